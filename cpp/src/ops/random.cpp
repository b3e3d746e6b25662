// Random numbers and dropout. One mt19937_64 generator seeded by seqlab.manual_seed
// makes runs repeatable (not bitwise equal to PyTorch's Philox/MT streams).
// Tests: tests/test_creation.py.
#include "seqlab/ops/random.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

#include "kernel_utils.hpp"
#include "ops/counter_rng.hpp"
#include "seqlab/parallel.hpp"
#include "seqlab/autograd.hpp"
#include "seqlab/ops/creation.hpp"
#include "seqlab/ops/elementwise.hpp"

namespace seqlab {

namespace {
uint64_t g_seed = 5489u;
std::mt19937_64& generator() {
  static std::mt19937_64 gen(g_seed);
  return gen;
}
}  // namespace

void manual_seed(uint64_t seed) {
  g_seed = seed;
  generator().seed(seed);
}
uint64_t initial_seed() { return g_seed; }
uint64_t random_u64() { return generator()(); }

ForkRng::ForkRng() {
  std::ostringstream os;
  os << generator();
  state_ = os.str();
}

ForkRng::~ForkRng() {
  std::istringstream is(state_);
  is >> generator();
}

Tensor& uniform_(Tensor& x, double from, double to) {
  assert_no_internal_overlap(x, "uniform_");
  NoGradGuard ng;
  Tensor tmp = Tensor::empty(x.shape(), x.dtype());
  dispatch_float(x.dtype(), "uniform_", [&](auto tag) {
    using T = decltype(tag);
    std::uniform_real_distribution<double> dist(from, to);
    T* p = tmp.data<T>();
    for (int64_t i = 0; i < tmp.numel(); ++i) {
      T v = static_cast<T>(dist(generator()));
      p[i] = v >= T(to) && to > from ? T(from) : v;  // keep [from, to) after rounding to float
    }
  });
  copy_(x, tmp);
  return x;
}

Tensor& normal_(Tensor& x, double mean, double std) {
  assert_no_internal_overlap(x, "normal_");
  NoGradGuard ng;
  Tensor tmp = Tensor::empty(x.shape(), x.dtype());
  dispatch_float(x.dtype(), "normal_", [&](auto tag) {
    using T = decltype(tag);
    std::normal_distribution<double> dist(mean, std);
    T* p = tmp.data<T>();
    for (int64_t i = 0; i < tmp.numel(); ++i) p[i] = static_cast<T>(dist(generator()));
  });
  copy_(x, tmp);
  return x;
}

Tensor rand(const Shape& shape, Dtype dtype) {
  Tensor t = Tensor::empty(shape, dtype);
  return uniform_(t, 0.0, 1.0);
}

Tensor randn(const Shape& shape, Dtype dtype) {
  Tensor t = Tensor::empty(shape, dtype);
  return normal_(t, 0.0, 1.0);
}

Tensor randint(int64_t low, int64_t high, const Shape& shape, Dtype dtype) {
  SEQLAB_CHECK(high > low, "random_ expects 'from' to be less than 'to', but got from=", low, " >= to=", high);
  Tensor t = Tensor::empty(shape, Dtype::Int64);
  std::uniform_int_distribution<int64_t> dist(low, high - 1);
  int64_t* p = t.data<int64_t>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = dist(generator());
  return dtype == Dtype::Int64 ? t : to_dtype(t, dtype);
}

Tensor randperm(int64_t n) {
  Tensor t = arange(0, static_cast<double>(n), 1, Dtype::Int64);
  int64_t* p = t.data<int64_t>();
  for (int64_t i = n - 1; i > 0; --i) {
    std::uniform_int_distribution<int64_t> dist(0, i);
    std::swap(p[i], p[dist(generator())]);
  }
  return t;
}

// Draw indices by inverse-CDF sampling of each row of (unnormalised, non-negative) probs.
Tensor multinomial(const Tensor& probs, int64_t num_samples, bool replacement) {
  SEQLAB_CHECK(probs.dim() == 1 || probs.dim() == 2, "multinomial: prob_dist must be 1 or 2 dim, got shape ",
               shape_str(probs.shape()));
  const int64_t rows = probs.dim() == 1 ? 1 : probs.shape()[0];
  const int64_t C = probs.shape()[probs.dim() - 1];
  SEQLAB_CHECK(replacement || num_samples <= C, "multinomial: cannot sample n_sample > prob_dist.size(-1) samples "
               "without replacement");
  const Tensor p = contiguous(to_dtype(probs.detach(), Dtype::Float64));
  Tensor out = Tensor::empty(probs.dim() == 1 ? Shape{num_samples} : Shape{rows, num_samples}, Dtype::Int64);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<double> w(p.data<double>() + r * C, p.data<double>() + (r + 1) * C);
    for (double v : w)
      SEQLAB_CHECK(v >= 0 && std::isfinite(v), "multinomial: probability tensor contains either `inf`, `nan` or element < 0");
    for (int64_t s = 0; s < num_samples; ++s) {
      double total = 0;
      for (double v : w) total += v;
      SEQLAB_CHECK(total > 0, "multinomial: invalid multinomial distribution (sum of probabilities <= 0)");
      const double target = u(generator()) * total;
      double acc = 0;
      int64_t pick = C - 1;
      for (int64_t c = 0; c < C; ++c) {
        acc += w[c];
        if (target < acc && w[c] > 0) {
          pick = c;
          break;
        }
      }
      out.data<int64_t>()[r * num_samples + s] = pick;
      if (!replacement) w[pick] = 0;
    }
  }
  return out;
}

// y = x * m / (1 - p), m ~ Bernoulli(1 - p).   dx = g * m / (1 - p)
// m comes from the counter-based stream of one draw of the generator (ops/counter_rng.hpp), so
// the mask is filled on the pool: one generator draw per element made dropout the slowest op of
// a transformer's training step.
Tensor dropout(const Tensor& x, double p, bool training) {
  SEQLAB_CHECK_VALUE(p >= 0.0 && p <= 1.0, "dropout probability has to be between 0 and 1, but got ", p);
  if (!training || p == 0.0) return x;
  Tensor mask = Tensor::empty(x.shape(), x.dtype());
  const uint64_t seed = generator()();
  dispatch_float(x.dtype(), "dropout", [&](auto tag) {
    using T = decltype(tag);
    const bool all = p >= 1.0;
    const T scale = all ? T(0) : T(1.0 / (1.0 - p));
    const uint64_t threshold = all ? 0 : counter_rng::dropout_threshold(p);
    T* m = mask.data<T>();
    parallel_for(mask.numel(), 32768, [&](int64_t s, int64_t e) {
      for (int64_t i = s; i < e; ++i)
        m[i] = !all && counter_rng::dropout_keep(seed, static_cast<uint64_t>(i), threshold) ? scale : T(0);
    });
  });
  Tensor y;
  {
    NoGradGuard ng;
    y = mul(x, mask);
  }
  if (any_requires_grad({x}))
    attach(y, "MulBackward0", {x}, [mask](const Tensor& g) -> TensorList { return {g * mask}; });
  return y;
}

}  // namespace seqlab
