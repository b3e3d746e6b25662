// Losses, as torch.nn.functional. cross_entropy is one fused node: log-softmax, the
// (smoothed, weighted) target distribution and NLL in a single pass, with the classic
// gradient dz = p·S - coef (p = softmax(z), coef_c = weight of class c in the target
// distribution, S = Σ_c coef_c). Tests: tests/test_activation_loss.py.
#include "seqlab/ops/loss.hpp"

#include <cmath>
#include <limits>

#include "kernel_utils.hpp"
#include "seqlab/autograd.hpp"
#include "seqlab/ops/activation.hpp"
#include "seqlab/ops/elementwise.hpp"
#include "seqlab/ops/reduce.hpp"
#include "seqlab/ops/shape.hpp"

namespace seqlab {

Reduction parse_reduction(const std::string& name) {
  if (name == "mean") return Reduction::Mean;
  if (name == "sum") return Reduction::Sum;
  if (name == "none") return Reduction::None;
  throw std::invalid_argument(name + " is not a valid value for reduction (expected 'none', 'mean' or 'sum')");
}

namespace {

// input (N, C, d1, ...) -> (M, C) rows with classes last; target -> (M) or (M, C).
struct ClassRows {
  Tensor rows;       // (M, C) contiguous
  Tensor target;     // (M) int64 or (M, C) float, contiguous
  Shape out_shape;   // shape of the unreduced loss
  int64_t M = 0, C = 0;
  bool soft = false; // class probabilities instead of indices
};

ClassRows class_rows(const Tensor& input, const Tensor& target, const char* op) {
  ClassRows r;
  const int64_t nd = input.dim();
  SEQLAB_CHECK(nd >= 1, op, ": input must have at least 1 dimension (C) or (N, C, ...), got shape ",
               shape_str(input.shape()));
  const int64_t cdim = nd == 1 ? 0 : 1;
  r.C = input.shape()[cdim];
  r.soft = is_floating(target.dtype());
  if (r.soft) {
    // (torch's words: a float target not of the input's shape is taken for class indices)
    SEQLAB_CHECK(target.shape() == input.shape(), op, ": expected target dtype to be Long or Byte, but got ",
                 scalar_type_name(target.dtype()), " (class-index targets are int64 or uint8; class-probability "
                 "targets have the input's shape: input ", shape_str(input.shape()), ", target ",
                 shape_str(target.shape()), ")");
  } else {
    // torch's CPU kernels take int64 and uint8 class indices; (N, C, d1, ...) inputs (its nll_loss2d)
    // int64 only. int32 and the other integer types are refused, as in torch.
    SEQLAB_CHECK(target.dtype() == Dtype::Int64 || target.dtype() == Dtype::UInt8, op,
                 ": expected target dtype to be Long or Byte, but got ", scalar_type_name(target.dtype()));
    SEQLAB_CHECK(nd < 3 || target.dtype() == Dtype::Int64, op, ": expected scalar type Long but found ",
                 scalar_type_name(target.dtype()), " (class-index target of an input of shape ",
                 shape_str(input.shape()), ")");
    Shape expect = input.shape();
    expect.erase(expect.begin() + cdim);
    SEQLAB_CHECK_VALUE(nd == 1 || target.dim() == 0 || target.shape()[0] == input.shape()[0], op,
                       ": Expected input batch_size (", input.shape()[0], ") to match target batch_size (",
                       target.dim() ? target.shape()[0] : 0, ").");
    SEQLAB_CHECK(target.shape() == expect, op, ": Expected target of shape ", shape_str(expect), " for input of shape ",
                 shape_str(input.shape()), ", got target of shape ", shape_str(target.shape()));
  }
  Shape out_shape = input.shape();
  out_shape.erase(out_shape.begin() + cdim);
  r.out_shape = out_shape;
  r.M = shape_numel(out_shape);
  Tensor x = input.detach(), t = target.detach();
  if (nd >= 3) {  // move classes last
    std::vector<int64_t> perm{0};
    for (int64_t d = 2; d < nd; ++d) perm.push_back(d);
    perm.push_back(1);
    x = permute(x, perm);
    if (r.soft) t = permute(t, perm);
  }
  r.rows = contiguous(reshape(x, {r.M, r.C}));
  r.target = contiguous(r.soft ? reshape(t, {r.M, r.C}) : to_dtype(reshape(t, {r.M}), Dtype::Int64));
  return r;
}

// (M, C) rows back to the input's layout (N, C, d1, ...).
Tensor rows_to_input(const Tensor& rows, const Shape& in_shape) {
  const int64_t nd = static_cast<int64_t>(in_shape.size());
  if (nd < 3) return reshape(rows, in_shape);
  Shape moved{in_shape[0]};
  for (int64_t d = 2; d < nd; ++d) moved.push_back(in_shape[d]);
  moved.push_back(in_shape[1]);
  std::vector<int64_t> back{0, nd - 1};
  for (int64_t d = 1; d < nd - 1; ++d) back.push_back(d);
  return contiguous(permute(reshape(rows, moved), back));
}

Tensor reduce_rows(const Tensor& per_row, Reduction red, double denom, const Shape& out_shape) {
  if (red == Reduction::None) return reshape(per_row, out_shape);
  Tensor s = sum(per_row);
  return red == Reduction::Mean ? s * (1.0 / denom) : s;
}

// The target distribution of row i, times the class weights: coef_c.
// Class index t:  coef_c = (1-ε) w_t [c = t] + (ε/C) w_c;  probabilities y: coef_c = w_c ((1-ε) y_c + ε/C)
template <typename T>
void row_coef(const ClassRows& r, const T* w, int64_t i, double eps, int64_t ignore_index, T* coef, bool& ignored,
              T& row_weight) {
  const int64_t C = r.C;
  ignored = false;
  if (r.soft) {
    const T* y = r.target.data<T>() + i * C;
    for (int64_t c = 0; c < C; ++c) coef[c] = (w ? w[c] : T(1)) * (T(1 - eps) * y[c] + T(eps / C));
    row_weight = T(1);
    return;
  }
  const int64_t t = r.target.data<int64_t>()[i];
  if (t == ignore_index) {
    ignored = true;
    row_weight = T(0);
    for (int64_t c = 0; c < C; ++c) coef[c] = T(0);
    return;
  }
  SEQLAB_CHECK_INDEX(t >= 0 && t < C, "Target ", t, " is out of bounds (", C, " classes).");
  for (int64_t c = 0; c < C; ++c) coef[c] = T(eps / C) * (w ? w[c] : T(1));
  row_weight = w ? w[t] : T(1);
  coef[t] += T(1 - eps) * row_weight;
}

}  // namespace

// loss_i = -Σ_c coef_ic log p_ic.   dz_i = (p_i S_i - coef_i) · (dL/dloss_i)
Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                     Reduction reduction, double label_smoothing) {
  SEQLAB_CHECK(label_smoothing >= 0.0 && label_smoothing <= 1.0,
                     "cross_entropy: label_smoothing must be between 0.0 and 1.0. Got: ", label_smoothing);
  SEQLAB_CHECK_TYPE(is_floating(input.dtype()), "cross_entropy: expected a floating point input, got ",
                    dtype_name(input.dtype()));
  const ClassRows r = class_rows(input, target, "cross_entropy");
  if (r.soft)
    SEQLAB_CHECK_TYPE(target.dtype() == input.dtype(), "cross_entropy: expected target dtype ", dtype_name(input.dtype()),
                      ", got ", dtype_name(target.dtype()));
  if (weight.defined())
    SEQLAB_CHECK(weight.dim() == 1 && weight.numel() == r.C, "cross_entropy: weight tensor should be defined either for "
                 "all ", r.C, " classes or no classes but got weight tensor of shape: ", shape_str(weight.shape()));
  const Tensor w = weight.defined() ? contiguous(to_dtype(weight.detach(), input.dtype())) : Tensor();
  Tensor logp = log_softmax(r.rows, 1);  // r.rows has no history: a plain kernel call
  Tensor per_row = Tensor::empty({r.M}, input.dtype());
  // Targets are checked before the rows are split over the pool (kernels never throw there).
  if (!r.soft) {
    const int64_t* t = r.target.data<int64_t>();
    for (int64_t i = 0; i < r.M; ++i)
      SEQLAB_CHECK_INDEX(t[i] == ignore_index || (t[i] >= 0 && t[i] < r.C), "Target ", t[i], " is out of bounds (",
                         r.C, " classes).");
  }
  // Class indices without smoothing: the target distribution is one class, w_t at t.
  const bool one_hot = !r.soft && label_smoothing == 0.0;
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(1, r.C));
  std::vector<double> row_weights(static_cast<size_t>(r.M));
  dispatch_float(input.dtype(), "cross_entropy", [&](auto tag) {
    using T = decltype(tag);
    const T* lp = logp.data<T>();
    const T* pw = w.defined() ? w.data<T>() : nullptr;
    T* out = per_row.data<T>();
    parallel_for(r.M, grain, [&](int64_t s0, int64_t s1) {
      std::vector<T> coef(one_hot ? 0 : r.C);
      for (int64_t i = s0; i < s1; ++i) {
        if (one_hot) {
          const int64_t t = r.target.data<int64_t>()[i];
          const T rw = t == ignore_index ? T(0) : (pw ? pw[t] : T(1));
          out[i] = t == ignore_index ? T(0) : -rw * lp[i * r.C + t];
          row_weights[i] = rw;
          continue;
        }
        bool ignored;
        T rw;
        row_coef<T>(r, pw, i, label_smoothing, ignore_index, coef.data(), ignored, rw);
        double l = 0;
        if (!ignored)
          for (int64_t c = 0; c < r.C; ++c)
            if (coef[c] != T(0)) l -= static_cast<double>(coef[c]) * lp[i * r.C + c];
        out[i] = static_cast<T>(l);
        row_weights[i] = rw;
      }
    });
  });
  double denom = 0;
  for (double rw : row_weights) denom += rw;  // in row order: the same sum for any number of threads
  if (r.soft) denom = static_cast<double>(r.M);
  Tensor loss = reduce_rows(per_row, reduction, denom, r.out_shape).detach();
  if (any_requires_grad({input, target})) {
    // Soft targets get a gradient too:  d loss_i / d y_ic = -w_c (1-ε) log p_ic
    attach(loss, "CrossEntropyLossBackward0", {input, target},
           [r, w, logp, reduction, denom, label_smoothing, ignore_index, in_shape = input.shape(),
            need_x = input.requires_grad(), need_y = r.soft && target.requires_grad()](const Tensor& g_) -> TensorList {
             const Tensor g = contiguous(g_);
             Tensor dz = Tensor::empty({r.M, r.C}, logp.dtype());
             Tensor dy = need_y ? Tensor::empty({r.M, r.C}, logp.dtype()) : Tensor();
             dispatch_float(logp.dtype(), "cross_entropy_backward", [&](auto tag) {
               using T = decltype(tag);
               const T* lp = logp.data<T>();
               const T* pw = w.defined() ? w.data<T>() : nullptr;
               const T* pg = g.data<T>();
               T* d = dz.data<T>();
               const bool one_hot = !r.soft && label_smoothing == 0.0;
               const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(1, r.C));
               parallel_for(r.M, grain, [&](int64_t s0, int64_t s1) {
                 std::vector<T> coef(one_hot ? 0 : r.C);
                 for (int64_t i = s0; i < s1; ++i) {
                   const T scale = reduction == Reduction::None ? pg[i]
                                   : reduction == Reduction::Sum ? pg[0]
                                                                 : static_cast<T>(pg[0] / denom);
                   T* di = d + i * r.C;
                   const T* lpi = lp + i * r.C;
                   if (one_hot) {  // dz = scale w_t (p - e_t)
                     const int64_t t = r.target.data<int64_t>()[i];
                     if (t == ignore_index) {
                       std::fill_n(di, r.C, T(0));
                       continue;
                     }
                     const T k = scale * (pw ? pw[t] : T(1));
                     simd::unary(simd::VecOp::Exp, lpi, di, r.C);
                     for (int64_t c = 0; c < r.C; ++c) di[c] *= k;
                     di[t] -= k;
                     continue;
                   }
                   bool ignored;
                   T rw;
                   row_coef<T>(r, pw, i, label_smoothing, ignore_index, coef.data(), ignored, rw);
                   T S = 0;
                   for (int64_t c = 0; c < r.C; ++c) S += coef[c];
                   if (ignored) {
                     std::fill_n(di, r.C, T(0));
                   } else {
                     simd::unary(simd::VecOp::Exp, lpi, di, r.C);
                     for (int64_t c = 0; c < r.C; ++c) di[c] = scale * (di[c] * S - coef[c]);
                   }
                   if (need_y)
                     for (int64_t c = 0; c < r.C; ++c)
                       dy.data<T>()[i * r.C + c] = -scale * (pw ? pw[c] : T(1)) * T(1 - label_smoothing) * lpi[c];
                 }
               });
             });
             return {need_x ? rows_to_input(dz, in_shape) : Tensor(), need_y ? rows_to_input(dy, in_shape) : Tensor()};
           });
  }
  return loss;
}

// loss_i = -w_t input[i, t].   dinput[i, t] = -w_t · (dL/dloss_i)
Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                Reduction reduction) {
  SEQLAB_CHECK_TYPE(is_floating(input.dtype()), "nll_loss: expected a floating point input, got ",
                    dtype_name(input.dtype()));
  SEQLAB_CHECK(target.dtype() == Dtype::Int64 || target.dtype() == Dtype::UInt8,
               "nll_loss: expected target dtype to be Long or Byte, but got ", scalar_type_name(target.dtype()));
  const ClassRows r = class_rows(input, target, "nll_loss");
  if (weight.defined())
    SEQLAB_CHECK(weight.dim() == 1 && weight.numel() == r.C, "nll_loss: weight tensor should be defined either for all ",
                 r.C, " classes or no classes but got weight tensor of shape: ", shape_str(weight.shape()));
  const Tensor w = weight.defined() ? contiguous(to_dtype(weight.detach(), input.dtype())) : Tensor();
  Tensor per_row = Tensor::empty({r.M}, input.dtype());
  double denom = 0;
  dispatch_float(input.dtype(), "nll_loss", [&](auto tag) {
    using T = decltype(tag);
    const T* x = r.rows.data<T>();
    const int64_t* t = r.target.data<int64_t>();
    T* out = per_row.data<T>();
    for (int64_t i = 0; i < r.M; ++i) {
      if (t[i] == ignore_index) {
        out[i] = 0;
        continue;
      }
      SEQLAB_CHECK_INDEX(t[i] >= 0 && t[i] < r.C, "Target ", t[i], " is out of bounds (", r.C, " classes).");
      const T wt = w.defined() ? w.data<T>()[t[i]] : T(1);
      out[i] = -wt * x[i * r.C + t[i]];
      denom += wt;
    }
  });
  Tensor loss = reduce_rows(per_row, reduction, denom, r.out_shape).detach();
  if (any_requires_grad({input})) {
    attach(loss, "NllLossBackward0", {input},
           [r, w, reduction, denom, ignore_index, in_shape = input.shape()](const Tensor& g_) -> TensorList {
             const Tensor g = contiguous(g_);
             Tensor dz = Tensor::empty({r.M, r.C}, g.dtype());
             dispatch_float(g.dtype(), "nll_loss_backward", [&](auto tag) {
               using T = decltype(tag);
               T* d = dz.data<T>();
               std::fill(d, d + r.M * r.C, T(0));
               const int64_t* t = r.target.data<int64_t>();
               const T* pg = g.data<T>();
               for (int64_t i = 0; i < r.M; ++i) {
                 if (t[i] == ignore_index) continue;
                 const T wt = w.defined() ? w.data<T>()[t[i]] : T(1);
                 const T scale = reduction == Reduction::None ? pg[i]
                                 : reduction == Reduction::Sum ? pg[0]
                                                               : static_cast<T>(pg[0] / denom);
                 d[i * r.C + t[i]] = -wt * scale;
               }
             });
             return {rows_to_input(dz, in_shape)};
           });
  }
  return loss;
}

// Composed: (input - target)^2, reduced.
Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  Tensor d = sub(input, target);
  Tensor sq = mul(d, d);
  if (reduction == Reduction::None) return sq;
  return reduction == Reduction::Sum ? sum(sq) : mean(sq);
}

// l = w [ (1-y) x + (1 + (pw-1) y) softplus(-x) ],  softplus(-x) = ln(1+e^-|x|) + max(-x, 0)
// dl/dx = w [ σ(x)(pw·y + 1 - y) - pw·y ],   dl/dy = w [ (pw-1) softplus(-x) - x ]
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target, const Tensor& weight,
                                        Reduction reduction, const Tensor& pos_weight) {
  SEQLAB_CHECK_VALUE(target.shape() == input.shape(), "binary_cross_entropy_with_logits: Target size (",
               shape_str(target.shape()), ") must be the same as input size (", shape_str(input.shape()), ")");
  SEQLAB_CHECK_TYPE(is_floating(input.dtype()), "binary_cross_entropy_with_logits: expected a floating point input");
  const Dtype dt = input.dtype();
  const Tensor x = contiguous(input.detach()), y = contiguous(to_dtype(target.detach(), dt));
  const Tensor w = weight.defined() ? contiguous(expand(to_dtype(weight.detach(), dt), input.shape())) : Tensor();
  const Tensor pw = pos_weight.defined() ? contiguous(expand(to_dtype(pos_weight.detach(), dt), input.shape())) : Tensor();
  Tensor per = Tensor::empty(input.shape(), dt);
  dispatch_float(dt, "binary_cross_entropy_with_logits", [&](auto tag) {
    using T = decltype(tag);
    const T *px = x.data<T>(), *py = y.data<T>();
    const T* pwt = w.defined() ? w.data<T>() : nullptr;
    const T* ppw = pw.defined() ? pw.data<T>() : nullptr;
    T* out = per.data<T>();
    for (int64_t i = 0; i < x.numel(); ++i) {
      const T xv = px[i], yv = py[i], p = ppw ? ppw[i] : T(1);
      const T sp = std::log1p(std::exp(-std::abs(xv))) + std::max(-xv, T(0));
      out[i] = (pwt ? pwt[i] : T(1)) * ((T(1) - yv) * xv + (T(1) + (p - T(1)) * yv) * sp);
    }
  });
  Tensor loss = (reduction == Reduction::None ? per : reduction == Reduction::Sum ? sum(per) : mean(per)).detach();
  if (any_requires_grad({input, target})) {
    attach(loss, "BinaryCrossEntropyWithLogitsBackward0", {input, target},
           [x, y, w, pw, reduction, n = input.numel(), need_y = target.requires_grad()](const Tensor& g_) -> TensorList {
             const Tensor g = contiguous(g_);
             Tensor dx = Tensor::empty(x.shape(), x.dtype());
             Tensor dy = need_y ? Tensor::empty(x.shape(), x.dtype()) : Tensor();
             dispatch_float(x.dtype(), "bce_backward", [&](auto tag) {
               using T = decltype(tag);
               const T *px = x.data<T>(), *py = y.data<T>(), *pg = g.data<T>();
               const T* pwt = w.defined() ? w.data<T>() : nullptr;
               const T* ppw = pw.defined() ? pw.data<T>() : nullptr;
               T* d = dx.data<T>();
               for (int64_t i = 0; i < n; ++i) {
                 const T scale = (reduction == Reduction::None ? pg[i] : reduction == Reduction::Sum ? pg[0] : pg[0] / T(n)) *
                                 (pwt ? pwt[i] : T(1));
                 const T xv = px[i], yv = py[i], p = ppw ? ppw[i] : T(1);
                 const T sig = T(1) / (T(1) + std::exp(-xv));
                 d[i] = scale * (sig * (p * yv + T(1) - yv) - p * yv);
                 if (need_y) {
                   const T sp = std::log1p(std::exp(-std::abs(xv))) + std::max(-xv, T(0));
                   dy.data<T>()[i] = scale * ((p - T(1)) * sp - xv);
                 }
               }
             });
             return {dx, dy};
           });
  }
  return loss;
}

}  // namespace seqlab
