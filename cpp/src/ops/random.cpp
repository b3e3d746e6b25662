// Random numbers and dropout, each drawn from a Generator (generator.cpp: mt19937_64, so runs
// repeat for a seed but are not bitwise equal to PyTorch's streams); nullptr is the default one.
// Tests: tests/test_creation.py, tests/test_generator.py.
#include "seqlab/ops/random.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <limits>
#include <mutex>

#include "kernel_utils.hpp"
#include "ops/counter_rng.hpp"
#include "seqlab/parallel.hpp"
#include "seqlab/autograd.hpp"
#include "seqlab/ops/creation.hpp"
#include "seqlab/ops/elementwise.hpp"
#include "seqlab/ops/shape.hpp"

namespace seqlab {

void manual_seed(uint64_t seed) { default_generator().manual_seed(seed); }
uint64_t initial_seed() { return default_generator().initial_seed(); }
uint64_t random_u64(Generator* gen) {
  Generator& g = generator_or_default(gen);
  std::lock_guard<std::mutex> lock(g.mutex());
  return g.engine()();
}

ForkRng::ForkRng() : state_(default_generator().get_state()) {}
ForkRng::~ForkRng() { default_generator().set_state(state_); }

namespace {
// Fills x in place with draw(engine) per element, in x's dtype (written to a fresh contiguous
// tensor first and copied, so views and non-contiguous x are filled in row-major order).
template <typename Draw>
Tensor& fill_random(Tensor& x, const char* op, Generator* gen, Draw draw) {
  assert_no_internal_overlap(x, op);
  NoGradGuard ng;
  // float16/bfloat16 draw in float32 and round, as torch's kernels do
  Tensor tmp = Tensor::empty(x.shape(), is_reduced_float(x.dtype()) ? Dtype::Float32 : x.dtype());
  Generator& g = generator_or_default(gen);
  std::lock_guard<std::mutex> lock(g.mutex());
  dispatch_all(tmp.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* p = tmp.data<T>();
    for (int64_t i = 0; i < tmp.numel(); ++i) p[i] = draw(g.engine(), T{});
  });
  copy_(x, tmp);
  return x;
}

void check_float(const Tensor& x, const char* op) {
  SEQLAB_CHECK_IMPL(is_floating(x.dtype()), "\"", op, "\" not implemented for '", scalar_type_name(x.dtype()), "'");
}
}  // namespace

Tensor& uniform_(Tensor& x, double from, double to, Generator* gen) {
  check_float(x, "uniform_");
  SEQLAB_CHECK(from <= to, "uniform_ expects to return a [from, to) range, but found from=", from, " > to=", to);
  std::uniform_real_distribution<double> dist(from, to);
  return fill_random(x, "uniform_", gen, [&](std::mt19937_64& e, auto t) {
    using T = decltype(t);
    T v = static_cast<T>(dist(e));
    return v >= T(to) && to > from ? T(from) : v;  // keep [from, to) after rounding to float
  });
}

Tensor& normal_(Tensor& x, double mean, double std, Generator* gen) {
  check_float(x, "normal_");
  SEQLAB_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  std::normal_distribution<double> dist(mean, std);
  return fill_random(x, "normal_", gen, [&](std::mt19937_64& e, auto t) { return static_cast<decltype(t)>(dist(e)); });
}

// x = -log(1 - u) / lambd, u ~ U[0, 1): the inverse of the CDF 1 - e^(-lambd x).
Tensor& exponential_(Tensor& x, double lambd, Generator* gen) {
  SEQLAB_CHECK(is_floating(x.dtype()), "Exponential distribution is a continuous probability distribution. dtype "
               "must be a floating point but you specified ", scalar_type_name(x.dtype()));
  SEQLAB_CHECK(lambd > 0.0, "exponential_ expects lambda > 0.0, but found lambda=", lambd);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  return fill_random(x, "exponential_", gen,
                     [&](std::mt19937_64& e, auto t) { return static_cast<decltype(t)>(-std::log1p(-u(e)) / lambd); });
}

Tensor& random_(Tensor& x, int64_t from, std::optional<int64_t> to, Generator* gen) {
  // Without `to`: every integer the dtype holds exactly, from 0 (torch's random_()).
  int64_t hi = 0;
  switch (x.dtype()) {
    case Dtype::Float32: hi = (int64_t{1} << 24) + 1; break;
    case Dtype::Float64: hi = (int64_t{1} << 53) + 1; break;
    case Dtype::Float16: hi = (int64_t{1} << 11) + 1; break;
    case Dtype::BFloat16: hi = (int64_t{1} << 8) + 1; break;
    case Dtype::Bool: hi = 2; break;
    case Dtype::Int64: hi = std::numeric_limits<int64_t>::max(); break;
    case Dtype::Int32: hi = int64_t{1} << 31; break;
    case Dtype::Int16: hi = int64_t{1} << 15; break;
    case Dtype::Int8: hi = int64_t{1} << 7; break;
    case Dtype::UInt8: hi = int64_t{1} << 8; break;
  }
  if (to) hi = *to;
  SEQLAB_CHECK(from < hi, "random_ expects 'from' to be less than 'to', but got from=", from, " >= to=", hi);
  std::uniform_int_distribution<int64_t> dist(from, hi - 1);
  return fill_random(x, "random_", gen, [&](std::mt19937_64& e, auto t) { return static_cast<decltype(t)>(dist(e)); });
}

Tensor& bernoulli_(Tensor& x, double p, Generator* gen) {
  SEQLAB_CHECK(p >= 0.0 && p <= 1.0, "bernoulli_ expects p to be in [0, 1], but got p=", p);
  std::bernoulli_distribution dist(p);
  return fill_random(x, "bernoulli_", gen, [&](std::mt19937_64& e, auto t) { return static_cast<decltype(t)>(dist(e)); });
}

// x_i = [u_i < p_i], u_i ~ U[0, 1), p broadcast to x's shape.
Tensor& bernoulli_(Tensor& x, const Tensor& p, Generator* gen) {
  check_float(p, "bernoulli_");
  const Tensor probs = contiguous(to_dtype(expand(p.detach(), x.shape()), Dtype::Float64));
  const double* q = probs.data<double>();
  for (int64_t i = 0; i < probs.numel(); ++i)
    SEQLAB_CHECK(q[i] >= 0.0 && q[i] <= 1.0, "bernoulli_: expected all probabilities in [0, 1], but got ", q[i]);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  int64_t i = 0;
  return fill_random(x, "bernoulli_", gen,
                     [&](std::mt19937_64& e, auto t) { return static_cast<decltype(t)>(u(e) < q[i++] ? 1 : 0); });
}

Tensor bernoulli(const Tensor& probs, Generator* gen) {
  Tensor out = Tensor::empty(probs.shape(), probs.dtype());
  return bernoulli_(out, probs, gen);
}

Tensor rand(const Shape& shape, Dtype dtype, Generator* gen) {
  Tensor t = Tensor::empty(shape, dtype);
  return uniform_(t, 0.0, 1.0, gen);
}

Tensor randn(const Shape& shape, Dtype dtype, Generator* gen) {
  Tensor t = Tensor::empty(shape, dtype);
  return normal_(t, 0.0, 1.0, gen);
}

Tensor randint(int64_t low, int64_t high, const Shape& shape, Dtype dtype, Generator* gen) {
  SEQLAB_CHECK(high > low, "random_ expects 'from' to be less than 'to', but got from=", low, " >= to=", high);
  Tensor t = Tensor::empty(shape, Dtype::Int64);
  random_(t, low, high, gen);
  return dtype == Dtype::Int64 ? t : to_dtype(t, dtype);
}

// Fisher-Yates: swap each position from the end with a uniform one at or before it.
Tensor randperm(int64_t n, Dtype dtype, Generator* gen) {
  SEQLAB_CHECK(n >= 0, "Trying to create tensor with negative dimension ", n, ": [", n, "]");
  Tensor t = arange(0, static_cast<double>(n), 1, Dtype::Int64);
  int64_t* p = t.data<int64_t>();
  Generator& g = generator_or_default(gen);
  std::lock_guard<std::mutex> lock(g.mutex());
  for (int64_t i = n - 1; i > 0; --i) {
    std::uniform_int_distribution<int64_t> dist(0, i);
    std::swap(p[i], p[dist(g.engine())]);
  }
  return dtype == Dtype::Int64 ? t : to_dtype(t, dtype);
}

// Draw indices by inverse-CDF sampling of each row of (unnormalised, non-negative) probs.
Tensor multinomial(const Tensor& probs, int64_t num_samples, bool replacement, Generator* gen) {
  SEQLAB_CHECK(is_floating(probs.dtype()), "multinomial only supports floating-point dtypes for input, got: ",
               scalar_type_name(probs.dtype()));
  SEQLAB_CHECK(probs.dim() == 1 || probs.dim() == 2, "multinomial: prob_dist must be 1 or 2 dim, got shape ",
               shape_str(probs.shape()));
  const int64_t rows = probs.dim() == 1 ? 1 : probs.shape()[0];
  const int64_t C = probs.shape()[probs.dim() - 1];
  SEQLAB_CHECK(replacement || num_samples <= C, "multinomial: cannot sample n_sample > prob_dist.size(-1) samples "
               "without replacement");
  const Tensor p = contiguous(to_dtype(probs.detach(), Dtype::Float64));
  Tensor out = Tensor::empty(probs.dim() == 1 ? Shape{num_samples} : Shape{rows, num_samples}, Dtype::Int64);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Generator& g = generator_or_default(gen);
  std::lock_guard<std::mutex> lock(g.mutex());
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<double> w(p.data<double>() + r * C, p.data<double>() + (r + 1) * C);
    for (double v : w)
      SEQLAB_CHECK(v >= 0 && std::isfinite(v), "multinomial: probability tensor contains either `inf`, `nan` or element < 0");
    for (int64_t s = 0; s < num_samples; ++s) {
      double total = 0;
      for (double v : w) total += v;
      SEQLAB_CHECK(total > 0, "multinomial: invalid multinomial distribution (sum of probabilities <= 0)");
      const double target = u(g.engine()) * total;
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
  const uint64_t seed = random_u64();
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

namespace {

// The alpha dropouts (torch's _dropout_impl), m the keep mask, one entry per element or, for `feature`,
// per (n, c) channel (shape (N, C, 1, ...), broadcast over the rest; the plain channel dropout,
// feature_dropout, is shrink.cpp's):
//   y = x · a m + (a λα (m - 1) + a λα p),  a = ((λα)² p + 1)(1 - p))^(-1/2)   dx = g · a m
// so that dropped units sit at a λα (p - 1) (SELU's saturation, scaled and shifted). Composed of mul and
// add on the mask, which has no history: autograd gives dx (summed over the broadcast channel dims).
Tensor alpha_dropout_nd(const Tensor& x, double p, bool training, bool feature, const char* op) {
  // a RuntimeError, as torch.feature_dropout's (F.dropout1d and the others check p first: ValueError)
  SEQLAB_CHECK(p >= 0.0 && p <= 1.0, "dropout probability has to be between 0 and 1, but got ", p);
  if (!training || p == 0.0 || x.numel() == 0) return x;
  SEQLAB_CHECK(!feature || x.dim() >= 2, "Feature dropout requires at least 2 dimensions in the input");
  SEQLAB_CHECK_TYPE(is_floating(x.dtype()), "\"", op, "\" not implemented for '", scalar_type_name(x.dtype()), "'");
  Shape mask_shape = x.shape();
  if (feature)
    for (size_t d = 2; d < mask_shape.size(); ++d) mask_shape[d] = 1;
  if (p >= 1.0) return mul(x, zeros(mask_shape, x.dtype()));
  Tensor keep = Tensor::empty(mask_shape, x.dtype());
  const uint64_t seed = random_u64();
  const uint64_t threshold = counter_rng::dropout_threshold(p);
  dispatch_float(x.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    T* m = keep.data<T>();
    parallel_for(keep.numel(), 32768, [&](int64_t s, int64_t e) {
      for (int64_t i = s; i < e; ++i)
        m[i] = counter_rng::dropout_keep(seed, static_cast<uint64_t>(i), threshold) ? T(1) : T(0);
    });
  });
  constexpr double kSaturation = 1.7580993408473766;  // -λα of SELU
  const double a = 1.0 / std::sqrt((kSaturation * kSaturation * p + 1) * (1 - p));
  Tensor shift = (keep - 1.0) * (kSaturation * a) + kSaturation * a * p;
  return add(mul(x, keep * a), shift);
}

}  // namespace

Tensor alpha_dropout(const Tensor& x, double p, bool training) {
  return alpha_dropout_nd(x, p, training, false, "alpha_dropout");
}
Tensor feature_alpha_dropout(const Tensor& x, double p, bool training) {
  return alpha_dropout_nd(x, p, training, true, "feature_alpha_dropout");
}

}  // namespace seqlab
