// linear_cross_entropy's chunked path (torch.nn.functional.linear_cross_entropy with options): the
// rows of x go through in chunks of B, each chunk's logits z = x Wᵀ + b (B, C) made by one GEMM
// into the one buffer, so the (N, C) logits never exist. Per row, with t its target and w_t its
// class weight (0 where t == ignore_index):
//   loss_n = w_t (lse_n − z_t),   lse_n = m + ln Σ_c e^(z_c − m),   m = max_c z_c
//   dz_n   = a_n (softmax(z_n) − onehot(t)),   a_n = dL/dloss_n · w_t
//   dx = dz W,   dW = Σ_chunks dzᵀ x,   db = Σ_rows dz   (two GEMMs and a column sum per chunk)
// As torch's chunked op: for 'mean' and 'sum' the forward also makes the gradients (a_n is known
// then: w_t, divided by Σ w_t for 'mean') and the backward scales them by dL; for 'none' the
// forward keeps lse (N values) and the backward recomputes each chunk's logits with a_n = g_n w_t.
// Tests: tests/test_linear_cross_entropy.py.
#include "seqlab/ops/linear_cross_entropy.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <vector>

#include "blas.hpp"
#include "kernel_utils.hpp"
#include "seqlab/autograd.hpp"
#include "seqlab/ops/elementwise.hpp"
#include "simd/vec_math.hpp"

namespace seqlab {

namespace {

std::atomic<int64_t> g_max_chunk_rows{0};

void note_chunk_rows(int64_t rows) {
  int64_t seen = g_max_chunk_rows.load();
  while (rows > seen && !g_max_chunk_rows.compare_exchange_weak(seen, rows)) {
  }
}

// What every pass over the rows reads: contiguous, detached operands and each row's w_t.
struct Rows {
  Tensor x, w, b;              // (N, d), (C, d), (C) or undefined
  Tensor target;               // (N) int64
  std::vector<double> row_w;   // w_t, 0 for an ignored row
  int64_t N = 0, d = 0, C = 0, ignore_index = -100, chunk = 1;
};

// Which gradients a pass makes (into gx (N, d), gw (C, d), gb (C) doubles).
struct Grads {
  Tensor gx, gw;
  std::vector<double> gb;
  bool x = false, w = false, b = false;
  bool any() const { return x || w || b; }
};

template <typename T>
void scale_rows_by(T* p, int64_t n, T s) {
  simd::binary(simd::BinOp::Mul, p, &s, true, T(0), p, n);
}

// One sweep over the chunks. coef: a_n per row (null: no gradient). lse_in: the saved lse (the
// backward of 'none'), else lse is found and, with the loss, written to lse_out / loss_out.
template <typename T>
void sweep(const Rows& r, const double* coef, const T* lse_in, T* lse_out, T* loss_out, Grads* g) {
  const int64_t N = r.N, d = r.d, C = r.C;
  const int64_t B = std::min(r.chunk, std::max<int64_t>(N, 1));
  Tensor buf = Tensor::empty({B, C}, r.x.dtype());
  note_chunk_rows(B);
  T* L = buf.data<T>();
  const T* x = r.x.data<T>();
  const T* w = r.w.data<T>();
  const T* b = r.b.defined() ? r.b.data<T>() : nullptr;
  const int64_t* t = r.target.data<int64_t>();
  const bool grads = g && g->any();
  const int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, C));
  for (int64_t s = 0; s < N; s += B) {
    const int64_t rows = std::min(B, N - s);
    // z = x_chunk Wᵀ + b: the bias is the GEMM's C operand (beta = 1)
    if (b) parallel_for(rows, std::max<int64_t>(1, 32768 / std::max<int64_t>(1, C)), [&](int64_t i0, int64_t i1) {
        for (int64_t i = i0; i < i1; ++i) std::copy(b, b + C, L + i * C);
      });
    if (C > 0) gemm<T>(false, true, rows, C, d, T(1), x + s * d, d, w, d, b ? T(1) : T(0), L, C);
    parallel_for(rows, grain, [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) {
        const int64_t n = s + i;
        T* z = L + i * C;
        const bool kept = t[n] != r.ignore_index;
        const T zt = kept && C > 0 ? z[t[n]] : T(0);
        T lse;
        double sum_e = 1.0;
        if (lse_in) {
          lse = lse_in[n];
          if (grads) simd::exp_sum(z, lse, z, C);  // e^(z − lse) = softmax
        } else {
          // m: the max, or 0 for a row without a finite one (then the sums give inf or NaN, as torch)
          T m = C > 0 ? simd::reduce_max(z, C) : T(0);
          if (!std::isfinite(m)) m = T(0);
          sum_e = 0;
          for (int64_t c0 = 0; c0 < C; c0 += 4096)  // blocks summed in double: float lanes stay short
            sum_e += simd::exp_sum(z + c0, m, z + c0, std::min<int64_t>(4096, C - c0));
          // loss = w_t (ln Σ e^(z − m) − (z_t − m)): m cancels before it meets ln Σ
          const double log_sum = std::log(sum_e), shifted_t = static_cast<double>(zt) - static_cast<double>(m);
          lse = static_cast<T>(static_cast<double>(m) + log_sum);
          if (lse_out) lse_out[n] = lse;
          if (loss_out) loss_out[n] = kept ? static_cast<T>(r.row_w[n] * (log_sum - shifted_t)) : T(0);
        }
        if (!grads) continue;
        const double a = coef[n];
        if (std::isnan(a)) {  // 'mean' of no kept row: a = 0/0, every gradient NaN, as torch's
          std::fill(z, z + C, static_cast<T>(a));
          continue;
        }
        if (a == 0.0 || !kept) {
          std::fill(z, z + C, T(0));
          continue;
        }
        // z holds e^(z − m) (sum sum_e) or already softmax (sum 1): dz = a (softmax − onehot)
        scale_rows_by(z, C, static_cast<T>(a / sum_e));
        z[t[n]] -= static_cast<T>(a);
      }
    });
    if (!grads) continue;
    if (g->x) gemm<T>(false, false, rows, d, C, T(1), L, C, w, d, T(0), g->gx.data<T>() + s * d, d);
    if (g->w) gemm<T>(true, false, C, d, rows, T(1), L, C, x + s * d, d, s == 0 ? T(0) : T(1), g->gw.data<T>(), d);
    if (g->b) parallel_for(C, 1024, [&](int64_t c0, int64_t c1) {
        simd::column_sum(L + c0, rows, C, c1 - c0, g->gb.data() + c0);
      });
  }
  if (g && g->w && N == 0) std::fill(g->gw.data<T>(), g->gw.data<T>() + C * d, T(0));
}

Tensor bias_grad(const std::vector<double>& gb, Dtype dtype) {
  Tensor out = Tensor::empty({static_cast<int64_t>(gb.size())}, dtype);
  dispatch_float(dtype, "linear_cross_entropy_backward", [&](auto tag) {
    using T = decltype(tag);
    T* p = out.data<T>();
    for (size_t c = 0; c < gb.size(); ++c) p[c] = static_cast<T>(gb[c]);
  });
  return out;
}

// s · t as a new tensor (copy) or in t's memory (the consumed buffers of the scalar reductions).
Tensor scaled(const Tensor& t, const Tensor& s, bool copy) {
  if (!t.defined()) return t;
  Tensor out = copy ? Tensor::empty(t.shape(), t.dtype()) : t;
  dispatch_float(t.dtype(), "linear_cross_entropy_backward", [&](auto tag) {
    using T = decltype(tag);
    const T sv = static_cast<T>(contiguous(to_dtype(s.detach(), t.dtype())).data<T>()[0]);
    const T* src = t.data<T>();
    T* dst = out.data<T>();
    parallel_for(t.numel(), 32768, [&](int64_t i0, int64_t i1) {
      simd::binary(simd::BinOp::Mul, src + i0, &sv, true, T(0), dst + i0, i1 - i0);
    });
  });
  return out;
}

}  // namespace

int64_t linear_cross_entropy_max_chunk_rows() { return g_max_chunk_rows.exchange(0); }

Tensor linear_cross_entropy_chunked(const Tensor& input, const Tensor& weight, const Tensor& target,
                                    const Tensor& bias, const Tensor& class_weight, Reduction reduction,
                                    int64_t ignore_index, int64_t chunk_size, bool allow_retain_graph) {
  const char* op = "linear_cross_entropy";
  SEQLAB_CHECK(input.dim() == 2 && weight.dim() == 2, op, ": the chunked path takes input (N, in_features) and "
               "linear_weight (num_classes, in_features), got ", shape_str(input.shape()), " and ",
               shape_str(weight.shape()));
  SEQLAB_CHECK_TYPE(is_floating(input.dtype()), op, ": expected a floating point input, got ",
                    dtype_name(input.dtype()));
  SEQLAB_CHECK_TYPE(weight.dtype() == input.dtype(), op, ": expected m1 and m2 to have the same dtype, but got: ",
                    dtype_name(input.dtype()), " != ", dtype_name(weight.dtype()));
  SEQLAB_CHECK(input.shape()[1] == weight.shape()[1], op, ": expected equal input and linear_weight last dimensions "
               "(in_features), got ", input.shape()[1], " and ", weight.shape()[1], ", respectively");
  Rows r;
  r.N = input.shape()[0];
  r.d = input.shape()[1];
  r.C = weight.shape()[0];
  r.ignore_index = ignore_index;
  SEQLAB_CHECK_VALUE(chunk_size > 0, op, ": batch_chunk_size must be positive, got ", chunk_size);
  r.chunk = chunk_size;
  SEQLAB_CHECK_TYPE(target.dtype() == Dtype::Int64, op, ": target dtype must be torch.int64, got ",
                    scalar_type_name(target.dtype()), ".");
  SEQLAB_CHECK(target.dim() == 1 && target.shape()[0] == r.N, op, ": expected target of shape (", r.N,
               ",) for input of shape ", shape_str(input.shape()), ", got ", shape_str(target.shape()));
  if (bias.defined()) {
    SEQLAB_CHECK(bias.dim() == 1 && bias.shape()[0] == r.C, op, ": expected linear_bias shape (", r.C, ",), got ",
                 shape_str(bias.shape()), ".");
    SEQLAB_CHECK_TYPE(bias.dtype() == input.dtype(), op, ": expected linear_bias of dtype ",
                      dtype_name(input.dtype()), ", got ", dtype_name(bias.dtype()));
  }
  if (class_weight.defined())
    SEQLAB_CHECK(class_weight.dim() == 1 && class_weight.numel() == r.C, op, ": weight tensor should be defined "
                 "either for all ", r.C, " classes or no classes but got weight tensor of shape: ",
                 shape_str(class_weight.shape()));
  r.x = contiguous_copy_if_needed(input.detach());
  r.w = contiguous_copy_if_needed(weight.detach());
  r.b = bias.defined() ? contiguous_copy_if_needed(bias.detach()) : Tensor();
  r.target = contiguous_copy_if_needed(target.detach());
  // w_t per row; the targets are checked here, before the rows are split over the pool
  const Tensor cw = class_weight.defined() ? contiguous(to_dtype(class_weight.detach(), Dtype::Float64)) : Tensor();
  const int64_t* t = r.target.data<int64_t>();
  r.row_w.resize(static_cast<size_t>(r.N));
  double total_w = 0;
  for (int64_t n = 0; n < r.N; ++n) {
    if (t[n] == ignore_index) {
      r.row_w[n] = 0;
      continue;
    }
    SEQLAB_CHECK(t[n] >= 0 && t[n] < r.C, op, ": target ", t[n], " is out of bounds for ", r.C, " classes (index ",
                 t[n], " is out of bounds for dimension 1 with size ", r.C, ")");
    r.row_w[n] = cw.defined() ? cw.data<double>()[t[n]] : 1.0;
    total_w += r.row_w[n];
  }
  const bool record = any_requires_grad({input, weight, bias});
  const bool need_x = record && input.requires_grad(), need_w = record && weight.requires_grad();
  const bool need_b = record && bias.defined() && bias.requires_grad();
  const Dtype dtype = input.dtype();
  Tensor loss;
  if (reduction == Reduction::None) {
    Tensor per_row = Tensor::empty({r.N}, dtype), lse = Tensor::empty({r.N}, dtype);
    dispatch_float(dtype, op, [&](auto tag) {
      using T = decltype(tag);
      sweep<T>(r, nullptr, nullptr, lse.data<T>(), per_row.data<T>(), nullptr);
    });
    loss = per_row;
    if (record) {
      // recompute: a_n = g_n w_t, each chunk's logits again from x, W, b and the saved lse
      Rows meta = r;
      meta.x = meta.w = meta.b = Tensor();
      attach(loss, "LinearCrossEntropyBackward0", {input, weight, bias},
             [meta, sx = save(r.x), sw = save(r.w), sb = save(r.b), lse, need_x, need_w,
              need_b](const Tensor& g_) -> TensorList {
               Rows rr = meta;
               rr.x = sx.unpack(), rr.w = sw.unpack(), rr.b = sb.unpack();
               const Tensor g = contiguous(to_dtype(g_, Dtype::Float64));
               std::vector<double> coef(static_cast<size_t>(rr.N));
               for (int64_t n = 0; n < rr.N; ++n) coef[n] = g.data<double>()[n] * rr.row_w[n];
               Grads gr;
               gr.x = need_x, gr.w = need_w, gr.b = need_b;
               if (need_x) gr.gx = Tensor::empty({rr.N, rr.d}, rr.x.dtype());
               if (need_w) gr.gw = Tensor::empty({rr.C, rr.d}, rr.x.dtype());
               if (need_b) gr.gb.assign(static_cast<size_t>(rr.C), 0.0);
               dispatch_float(rr.x.dtype(), "linear_cross_entropy_backward", [&](auto tag) {
                 using T = decltype(tag);
                 sweep<T>(rr, coef.data(), lse.data<T>(), nullptr, nullptr, &gr);
               });
               return {gr.gx, gr.gw, need_b ? bias_grad(gr.gb, rr.x.dtype()) : Tensor()};
             });
    }
    return loss;
  }
  // 'mean' and 'sum': the loss and, when asked for, the gradients of the loss itself in one sweep
  const double denom = reduction == Reduction::Mean ? total_w : 1.0;
  Grads gr;
  gr.x = need_x, gr.w = need_w, gr.b = need_b;
  if (need_x) gr.gx = Tensor::empty({r.N, r.d}, dtype);
  if (need_w) gr.gw = Tensor::empty({r.C, r.d}, dtype);
  if (need_b) gr.gb.assign(static_cast<size_t>(r.C), 0.0);
  std::vector<double> coef;
  if (record) {
    coef.resize(static_cast<size_t>(r.N));
    for (int64_t n = 0; n < r.N; ++n) coef[n] = r.row_w[n] / denom;
  }
  Tensor per_row = Tensor::empty({r.N}, dtype);
  loss = Tensor::empty({}, dtype);
  dispatch_float(dtype, op, [&](auto tag) {
    using T = decltype(tag);
    sweep<T>(r, record ? coef.data() : nullptr, nullptr, nullptr, per_row.data<T>(), record ? &gr : nullptr);
    double l = 0;
    for (int64_t n = 0; n < r.N; ++n) l += static_cast<double>(per_row.data<T>()[n]);  // in row order
    *loss.data<T>() = static_cast<T>(l / denom);  // 'mean' of no kept row: 0/0 = NaN, as torch
  });
  if (record) {
    Tensor gb = need_b ? bias_grad(gr.gb, dtype) : Tensor();
    // dL/dloss scales the gradients made above; without allow_retain_graph they are scaled in place
    // and handed over, so a second backward finds none (torch's error)
    attach(loss, "LinearCrossEntropyBackward0", {input, weight, bias},
           [gx = gr.gx, gw = gr.gw, gb, allow_retain_graph, used = false](const Tensor& g) mutable -> TensorList {
             SEQLAB_CHECK(allow_retain_graph || !used, "linear_cross_entropy chunked backward called twice; "
                          "retain_graph=True / double backward are not supported.");
             used = true;
             TensorList out{scaled(gx, g, allow_retain_graph), scaled(gw, g, allow_retain_graph),
                            scaled(gb, g, allow_retain_graph)};
             if (!allow_retain_graph) gx = gw = gb = Tensor();
             return out;
           });
  }
  return loss;
}

}  // namespace seqlab
