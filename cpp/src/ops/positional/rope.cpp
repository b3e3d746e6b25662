// RoPE (Su et al. 2021, RoFormer §3.4): q and k rotated pairwise by position·θ_c,
// θ_c = base^(−2c/D), so that q_m·k_n depends on m − n only. Pairs (2c, 2c+1) as the paper
// (interleaved) or (c, c + D/2) as GPT-NeoX and LLaMA. Options: base (10000), interleaved (true),
// head_dim (0: any; else the query's head dimension must equal it). No tables: the scheme only
// changes the content query and key. Tests: tests/test_positional.py, tests/test_positional_hf.py.
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "kernel_utils.hpp"
#include "ops/positional/scheme.hpp"
#include "seqlab/autograd.hpp"
#include "seqlab/check.hpp"
#include "seqlab/ops/elementwise.hpp"
#include "seqlab/parallel.hpp"

namespace seqlab {
// RoPE: one elementwise pass, y_a = x_a cos − x_b sin, y_b = x_a sin + x_b cos; the backward is the
// same pass with sin negated (a rotation's inverse is its transpose).
namespace {

template <typename T>
void rotate(const T* x, T* y, int64_t rows, int64_t L, int64_t D, const double* cos_t, const double* sin_t,
            double sign, bool interleaved) {
  const int64_t half = D / 2;
  parallel_for(rows, std::max<int64_t>(1, 8192 / D), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const double* cs = cos_t + (r % L) * half;
      const double* sn = sin_t + (r % L) * half;
      const T* xr = x + r * D;
      T* yr = y + r * D;
      for (int64_t c = 0; c < half; ++c) {
        const int64_t a = interleaved ? 2 * c : c, b = interleaved ? 2 * c + 1 : c + half;
        const double xa = xr[a], xb = xr[b], s = sign * sn[c];
        yr[a] = static_cast<T>(xa * cs[c] - xb * s);
        yr[b] = static_cast<T>(xa * s + xb * cs[c]);
      }
    }
  });
}

}  // namespace

Tensor rotary_embedding(const Tensor& x, int64_t offset, double base, bool interleaved) {
  SEQLAB_CHECK(x.defined() && x.dim() >= 2 && is_floating(x.dtype()),
               "rotary_embedding: expected a floating point tensor (..., L, D), got ",
               x.defined() ? shape_str(x.shape()) + " " + dtype_name(x.dtype()) : std::string("None"));
  const int64_t L = x.size(-2), D = x.size(-1);
  SEQLAB_CHECK(D % 2 == 0, "rotary_embedding: RoPE rotates pairs of features, so the head dim must be even, got ",
               shape_str(x.shape()));
  SEQLAB_CHECK(offset >= 0, "rotary_embedding: offset must be >= 0, got ", offset);
  auto tables = std::make_shared<std::vector<double>>(static_cast<size_t>(L * D));  // cos then sin, (L, D/2) each
  double* cos_t = tables->data();
  double* sin_t = cos_t + L * (D / 2);
  for (int64_t l = 0; l < L; ++l)
    for (int64_t c = 0; c < D / 2; ++c) {
      const double angle = static_cast<double>(offset + l) * std::pow(base, -2.0 * c / static_cast<double>(D));
      cos_t[l * (D / 2) + c] = std::cos(angle);
      sin_t[l * (D / 2) + c] = std::sin(angle);
    }
  const Tensor xc = contiguous(x);
  Tensor y = Tensor::empty(x.shape(), x.dtype());
  const int64_t rows = L == 0 ? 0 : x.numel() / D;
  dispatch_float(x.dtype(), "rotary_embedding", [&](auto tag) {
    using T = decltype(tag);
    rotate(xc.data<T>(), y.data<T>(), rows, L, D, cos_t, sin_t, 1.0, interleaved);
  });
  if (any_requires_grad({x}))
    attach(y, "RotaryEmbeddingBackward", {x}, [tables, L, D, interleaved](const Tensor& g_) -> TensorList {
      const Tensor g = contiguous(g_);
      Tensor dx = Tensor::empty(g.shape(), g.dtype());
      const double* c = tables->data();
      dispatch_float(g.dtype(), "rotary_embedding_backward", [&](auto tag) {
        using T = decltype(tag);
        rotate(g.data<T>(), dx.data<T>(), g.numel() / D, L, D, c, c + L * (D / 2), -1.0, interleaved);
      });
      return {dx};
    });
  return y;
}

namespace positional_detail {
namespace {

void rope_inputs(const SchemeContext& ctx, SchemeInputs& in) {
  const int64_t head_dim = ctx.option_int("head_dim", 0);
  SEQLAB_CHECK(head_dim == 0 || head_dim == ctx.D, kOp, ": the rope scheme rotates head_dim ", head_dim,
               " but the attention's heads have dimension ", ctx.D, " (query ", shape_str(in.q.shape()), ")");
  const double base = ctx.option_double("base", 10000.0);
  const bool interleaved = ctx.option_bool("interleaved", true);
  in.q = rotary_embedding(in.q, ctx.off, base, interleaved);  // query l at position off + l
  in.k = rotary_embedding(in.k, 0, base, interleaved);
}

const SchemeRegistration kRope{"rope", {nullptr, rope_inputs}};

}  // namespace
}  // namespace positional_detail
}  // namespace seqlab
