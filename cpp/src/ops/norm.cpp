// Normalisation: layer_norm, one fused node that caches mean and rstd for the backward
// pass as llm.c's layernorm_forward does (https://pytorch.org/docs/stable/generated/
// torch.nn.LayerNorm.html); rms_norm, the same kernels without the centring (Zhang & Sennrich
// 2019); batch_norm, composed from ops; group_norm, the layer_norm kernels over groups of channels
// with a per-channel affine, and instance_norm, group_norm with a group per channel. Tests:
// tests/test_nn_layers.py, tests/test_norm_init.py, tests/test_nn_modules_more.py.
#include "seqlab/ops/norm.hpp"

#include <vector>

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernel_utils.hpp"
#include "seqlab/parallel.hpp"
#include "seqlab/autograd.hpp"
#include "seqlab/ops/elementwise.hpp"
#include "seqlab/ops/shape.hpp"
#include "seqlab/ops/reduce.hpp"
#include "seqlab/ops/activation.hpp"

namespace seqlab {

namespace {

// x: (M, N) rows.   mean_m = Σ_n x/N,  rstd_m = 1/sqrt(Σ_n (x - mean)²/N + eps),
// y = (x - mean) rstd w + b.   RMSNorm (center = false): mean_m = 0, so rstd_m = 1/sqrt(Σ_n x²/N + eps)
// = 1/RMS(x), y = x rstd w.
template <typename T>
void layer_norm_forward(const T* x, const T* w, const T* b, T* y, T* mean, T* rstd, int64_t M, int64_t N, double eps,
                        bool center) {
  parallel_for(M, std::max<int64_t>(1, 8192 / std::max<int64_t>(N, 1)), [&](int64_t s, int64_t e) {
    for (int64_t m = s; m < e; ++m) {
      const T* xr = x + m * N;
      double sum = 0;
      if (center) {
#pragma omp simd reduction(+ : sum)
        for (int64_t n = 0; n < N; ++n) sum += xr[n];
      }
      const double mu = sum / static_cast<double>(N);
      double ss = 0;
#pragma omp simd reduction(+ : ss)
      for (int64_t n = 0; n < N; ++n) ss += (xr[n] - mu) * (xr[n] - mu);
      const double rs = 1.0 / std::sqrt(ss / static_cast<double>(N) + eps);
      mean[m] = static_cast<T>(mu);
      rstd[m] = static_cast<T>(rs);
      T* yr = y + m * N;
      const T mu_t = static_cast<T>(mu), rs_t = static_cast<T>(rs);
      for (int64_t n = 0; n < N; ++n) {
        const T xhat = (xr[n] - mu_t) * rs_t;
        yr[n] = xhat * (w ? w[n] : T(1)) + (b ? b[n] : T(0));
      }
    }
  });
}

// xhat = (x - mean) rstd,  dxhat = dy w
// dx = rstd (dxhat - mean_n(dxhat) - xhat mean_n(dxhat xhat)),  dw = Σ_m dy xhat,  db = Σ_m dy
// RMSNorm (center = false): the mean is the constant 0, so its term goes: dx = rstd (dxhat - xhat
// mean_n(dxhat xhat)).
// Rows are split into chunks that the pool shares out; each chunk sums its own dw, db in double,
// added in chunk order. The chunks depend on the shape only (at most 16, of 32k elements or more),
// not on the thread count, so dw and db have the same bits on any number of threads.
template <typename T>
void layer_norm_backward(const T* dy, const T* x, const T* w, const T* mean, const T* rstd, T* dx, T* dw, T* db,
                         int64_t M, int64_t N, bool center) {
  const int64_t chunks = std::clamp<int64_t>(M * N / 32768, 1, std::min<int64_t>(16, std::max<int64_t>(M, 1)));
  std::vector<std::vector<double>> dw_part(chunks), db_part(chunks);
  parallel_for(chunks, 1, [&](int64_t c0, int64_t c1) {
    std::vector<double> xhat(N), dxhat(N);
    for (int64_t c = c0; c < c1; ++c) {
      std::vector<double>& dwa = dw_part[c];
      std::vector<double>& dba = db_part[c];
      dwa.assign(dw ? N : 0, 0.0);
      dba.assign(db ? N : 0, 0.0);
      for (int64_t m = c * M / chunks; m < (c + 1) * M / chunks; ++m) {
        const T* xr = x + m * N;
        const T* gr = dy + m * N;
        const double mu = mean[m], rs = rstd[m];
        double mean_dxhat = 0, mean_dxhat_xhat = 0;
#pragma omp simd reduction(+ : mean_dxhat, mean_dxhat_xhat)
        for (int64_t n = 0; n < N; ++n) {
          xhat[n] = (xr[n] - mu) * rs;
          dxhat[n] = gr[n] * (w ? static_cast<double>(w[n]) : 1.0);
          mean_dxhat += dxhat[n];
          mean_dxhat_xhat += dxhat[n] * xhat[n];
        }
        if (dw)
          for (int64_t n = 0; n < N; ++n) dwa[n] += gr[n] * xhat[n];
        if (db)
          for (int64_t n = 0; n < N; ++n) dba[n] += gr[n];
        mean_dxhat = center ? mean_dxhat / static_cast<double>(N) : 0.0;
        mean_dxhat_xhat /= static_cast<double>(N);
        if (dx) {
          T* dr = dx + m * N;
          for (int64_t n = 0; n < N; ++n)
            dr[n] = static_cast<T>(rs * (dxhat[n] - mean_dxhat - xhat[n] * mean_dxhat_xhat));
        }
      }
    }
  });
  for (int64_t n = 0; dw && n < N; ++n) {
    double acc = 0;
    for (int64_t c = 0; c < chunks; ++c) acc += dw_part[c][n];
    dw[n] = static_cast<T>(acc);
  }
  for (int64_t n = 0; db && n < N; ++n) {
    double acc = 0;
    for (int64_t c = 0; c < chunks; ++c) acc += db_part[c][n];
    db[n] = static_cast<T>(acc);
  }
}

// layer_norm (center) or rms_norm: the checks, the forward kernel and the node; `op` names it in errors.
Tensor normalize_rows(const Tensor& x_in, const Shape& normalized_shape, const Tensor& weight, const Tensor& bias,
                      double eps, bool center, const char* op) {
  const int64_t k = static_cast<int64_t>(normalized_shape.size());
  SEQLAB_CHECK(k >= 1 && k <= x_in.dim() &&
                   Shape(x_in.shape().end() - k, x_in.shape().end()) == normalized_shape,
               op, ": Given normalized_shape=", shape_str(normalized_shape),
               ", expected input with shape [*, ", shape_str(normalized_shape).substr(1), ", but got input of size ",
               shape_str(x_in.shape()));
  SEQLAB_CHECK(!weight.defined() || weight.shape() == normalized_shape, op, ": weight of shape ",
               shape_str(weight.defined() ? weight.shape() : Shape{}), " does not match normalized_shape ",
               shape_str(normalized_shape));
  SEQLAB_CHECK(!bias.defined() || bias.shape() == normalized_shape, op, ": bias of shape ",
               shape_str(bias.defined() ? bias.shape() : Shape{}), " does not match normalized_shape ",
               shape_str(normalized_shape));
  SEQLAB_CHECK_TYPE(is_floating(x_in.dtype()), op, ": expected a floating point input, got ",
                    dtype_name(x_in.dtype()));
  for (const Tensor* t : {&weight, &bias})
    SEQLAB_CHECK_TYPE(!t->defined() || t->dtype() == x_in.dtype(), op,
                      ": mixed dtype: all inputs must share the same dtype, got input ", dtype_name(x_in.dtype()),
                      " and ", dtype_name(t->dtype()),
                      " parameters (convert the module with .to(dtype) or the input)");
  const int64_t N = shape_numel(normalized_shape), M = N == 0 ? 0 : x_in.numel() / N;
  const Tensor x = contiguous_copy_if_needed(x_in.detach());
  const Tensor w = weight.defined() ? contiguous_copy_if_needed(weight.detach()) : Tensor();
  const Tensor b = bias.defined() ? contiguous_copy_if_needed(bias.detach()) : Tensor();
  Tensor y = Tensor::empty(x.shape(), x.dtype());
  Tensor mean = Tensor::empty({M}, x.dtype()), rstd = Tensor::empty({M}, x.dtype());
  dispatch_float(x.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    layer_norm_forward<T>(x.data<T>(), w.defined() ? w.data<T>() : nullptr, b.defined() ? b.data<T>() : nullptr,
                          y.data<T>(), mean.data<T>(), rstd.data<T>(), M, N, eps, center);
  });
  if (any_requires_grad({x_in, weight, bias})) {
    attach(y, center ? "NativeLayerNormBackward0" : "FusedRmsNormBackward0", {x_in, weight, bias},
           [sx = save(x), sw = save(w), mean, rstd, M, N, need_x = x_in.requires_grad(),
            need_w = weight.defined() && weight.requires_grad(), need_b = bias.defined() && bias.requires_grad(),
            wshape = normalized_shape, center](const Tensor& g_) -> TensorList {
             const Tensor g = contiguous(g_);
             const Tensor xx = sx.unpack(), ww = sw.unpack();
             Tensor dx = need_x ? Tensor::empty(xx.shape(), xx.dtype()) : Tensor();
             Tensor dw = need_w ? Tensor::empty(wshape, xx.dtype()) : Tensor();
             Tensor db = need_b ? Tensor::empty(wshape, xx.dtype()) : Tensor();
             dispatch_float(xx.dtype(), "layer_norm_backward", [&](auto tag) {
               using T = decltype(tag);
               layer_norm_backward<T>(g.data<T>(), xx.data<T>(), ww.defined() ? ww.data<T>() : nullptr,
                                      mean.data<T>(), rstd.data<T>(), need_x ? dx.data<T>() : nullptr,
                                      need_w ? dw.data<T>() : nullptr, need_b ? db.data<T>() : nullptr, M, N, center);
             });
             return {dx, dw, db};
           });
  }
  return y;
}
}  // namespace

Tensor layer_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight, const Tensor& bias,
                  double eps) {
  return normalize_rows(x, normalized_shape, weight, bias, eps, true, "layer_norm");
}

// eps: torch's default is the dtype's machine epsilon (torch.finfo(x.dtype).eps).
Tensor rms_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight, std::optional<double> eps) {
  const double e = eps ? *eps
                       : x.dtype() == Dtype::Float64 ? std::numeric_limits<double>::epsilon()
                                                     : double(std::numeric_limits<float>::epsilon());
  return normalize_rows(x, normalized_shape, weight, Tensor(), e, false, "rms_norm");
}

Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                  const Tensor& bias, bool training, double momentum, double eps) {
  SEQLAB_CHECK_VALUE(x.dim() >= 2, "batch_norm(): expected input of shape (N, C, *), got ", x.dim(), "D input ",
                     shape_str(x.shape()));
  const int64_t C = x.shape()[1];
  std::vector<int64_t> dims{0};
  for (int64_t d = 2; d < x.dim(); ++d) dims.push_back(d);
  Shape bshape(x.dim(), 1);
  bshape[1] = C;
  SEQLAB_CHECK_VALUE(running_mean.defined() == running_var.defined(),
                     "running_mean and running_var must either both be None or neither be None");
  SEQLAB_CHECK_TYPE(is_floating(x.dtype()), "batch_norm(): expected a floating point input, got ",
                    dtype_name(x.dtype()));
  for (const Tensor* t : {&running_mean, &running_var, &weight, &bias})
    SEQLAB_CHECK_TYPE(!t->defined() || t->dtype() == x.dtype(), "batch_norm(): mixed dtype: all inputs must share "
                      "the same dtype, got input ", dtype_name(x.dtype()), " and running stats, weight or bias ",
                      dtype_name(t->dtype()), " (convert the module with .to(dtype) or the input)");
  for (const Tensor* t : {&running_mean, &running_var, &weight, &bias})
    SEQLAB_CHECK(!t->defined() || t->numel() == C, "batch_norm(): expected running stats, weight and bias of size ",
                 C, " (channels of input ", shape_str(x.shape()), "), got ", shape_str(t->shape()));
  Tensor mean, var;
  if (training) {
    int64_t n = x.shape()[0];  // values per channel: N times the spatial sizes (even when C is 0)
    for (int64_t d = 2; d < x.dim(); ++d) n *= x.shape()[d];
    SEQLAB_CHECK_VALUE(n != 1, "Expected more than 1 value per channel when training, got input size ",
                       shape_str(x.shape()));
    mean = seqlab::mean(x, dims);
    var = seqlab::var(x, dims, 0.0);
    NoGradGuard ng;
    if (running_mean.defined()) {
      Tensor r = running_mean;
      copy_(r, add(mul(running_mean, scalar_tensor(1.0 - momentum, running_mean.dtype())), mean * momentum));
    }
    if (running_var.defined()) {
      Tensor r = running_var;
      const double unbias = n > 1 ? static_cast<double>(n) / static_cast<double>(n - 1) : 1.0;
      copy_(r, add(mul(running_var, scalar_tensor(1.0 - momentum, running_var.dtype())), var * (momentum * unbias)));
    }
  } else {
    SEQLAB_CHECK(running_mean.defined() && running_var.defined(),
                 "batch_norm(): running_mean and running_var must be defined in evaluation mode");
    mean = running_mean;
    var = running_var;
  }
  Tensor y = div(sub(x, view(mean, bshape)), view(sqrt(add(var, scalar_tensor(eps, var.dtype()))), bshape));
  if (weight.defined()) y = mul(y, view(weight, bshape));
  if (bias.defined()) y = add(y, view(bias, bshape));
  return y;
}

Tensor batch_norm_module_forward(const Tensor& x, const Tensor& running_mean, const Tensor& running_var,
                                 const Tensor& num_batches_tracked, const Tensor& weight, const Tensor& bias,
                                 bool training, bool track_running_stats, std::optional<double> momentum, double eps) {
  double factor = momentum.value_or(0.0);
  if (training && track_running_stats && num_batches_tracked.defined()) {
    {
      NoGradGuard ng;
      Tensor n = num_batches_tracked;
      add_(n, scalar_tensor(1.0, n.dtype()));
    }
    if (!momentum) factor = 1.0 / num_batches_tracked.item<double>();  // cumulative moving average
  }
  const bool use_batch_stats = training || (!running_mean.defined() && !running_var.defined());
  const bool use_buffers = !training || track_running_stats;
  return batch_norm(x, use_buffers ? running_mean : Tensor(), use_buffers ? running_var : Tensor(), weight, bias,
                    use_batch_stats, factor, eps);
}

// ------------------------------------------------------------------ group_norm, instance_norm
// group_norm (Wu & He 2018; torch.nn.functional.group_norm). x: (N, C, *) with S values per channel,
// seen as R = N·G rows of L = (C/G)·S values; each row is normalised as a layer_norm row without
// affine, then each channel gets its own weight and bias:
//   xhat = (x - mean_r) rstd_r,   y[n, c, s] = xhat[n, c, s] w[c] + b[c]
// Backward: dxhat = dy w[c], then the rows' layer_norm backward (w = 1) gives dx;
//   dw[c] = Σ_{n,s} dy xhat,   db[c] = Σ_{n,s} dy   (summed per channel in double, in a fixed order).
namespace {

template <typename T>
void group_norm_affine(T* y, const T* w, const T* b, int64_t N, int64_t C, int64_t S) {
  parallel_for(N * C, std::max<int64_t>(1, 8192 / std::max<int64_t>(S, 1)), [&](int64_t s0, int64_t s1) {
    for (int64_t nc = s0; nc < s1; ++nc) {
      const int64_t c = nc % C;
      const T wc = w ? w[c] : T(1), bc = b ? b[c] : T(0);
      T* yr = y + nc * S;
      for (int64_t s = 0; s < S; ++s) yr[s] = yr[s] * wc + bc;
    }
  });
}

template <typename T>
void group_norm_weight_grads(const T* dy, const T* x, const T* mean, const T* rstd, T* dw, T* db, int64_t N,
                             int64_t C, int64_t S, int64_t G) {
  const int64_t cpg = C / G;  // channels per group
  parallel_for(C, 1, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      double sw = 0, sb = 0;
      for (int64_t n = 0; n < N; ++n) {
        const int64_t r = n * G + c / cpg;
        const double mu = mean[r], rs = rstd[r];
        const T* xr = x + (n * C + c) * S;
        const T* gr = dy + (n * C + c) * S;
        for (int64_t s = 0; s < S; ++s) {
          sw += static_cast<double>(gr[s]) * ((xr[s] - mu) * rs);
          sb += gr[s];
        }
      }
      if (dw) dw[c] = static_cast<T>(sw);
      if (db) db[c] = static_cast<T>(sb);
    }
  });
}

}  // namespace

Tensor group_norm(const Tensor& x_in, int64_t num_groups, const Tensor& weight, const Tensor& bias, double eps) {
  SEQLAB_CHECK(x_in.dim() >= 2, "Expected at least 2 dimensions for input tensor but received ", x_in.dim());
  const int64_t N = x_in.shape()[0], C = x_in.shape()[1];
  SEQLAB_CHECK(num_groups > 0 && C % num_groups == 0,
               "Expected number of channels in input to be divisible by num_groups, but got input of shape ",
               shape_str(x_in.shape()), " and num_groups=", num_groups);
  SEQLAB_CHECK(!weight.defined() || (weight.dim() == 1 && weight.numel() == C),
               "Expected weight to be a vector of size equal to the number of channels in input, but got weight "
               "of shape ", shape_str(weight.defined() ? weight.shape() : Shape{}), " and input of shape ",
               shape_str(x_in.shape()));
  SEQLAB_CHECK(!bias.defined() || (bias.dim() == 1 && bias.numel() == C),
               "Expected bias to be a vector of size equal to the number of channels in input, but got bias "
               "of shape ", shape_str(bias.defined() ? bias.shape() : Shape{}), " and input of shape ",
               shape_str(x_in.shape()));
  SEQLAB_CHECK_IMPL(is_floating(x_in.dtype()), "\"GroupNormKernelImpl\" not implemented for '",
                    dtype_name(x_in.dtype()), "'");
  for (const Tensor* t : {&weight, &bias})
    SEQLAB_CHECK_TYPE(!t->defined() || t->dtype() == x_in.dtype(),
                      "group_norm: mixed dtype: all inputs must share the same dtype, got input ",
                      dtype_name(x_in.dtype()), " and ", dtype_name(t->dtype()),
                      " parameters (convert the module with .to(dtype) or the input)");
  const int64_t G = num_groups, S = C == 0 || N == 0 ? 0 : x_in.numel() / (N * C);
  const int64_t R = N * G, L = (C / G) * S;
  const Tensor x = contiguous_copy_if_needed(x_in.detach());
  const Tensor w = weight.defined() ? contiguous_copy_if_needed(weight.detach()) : Tensor();
  const Tensor b = bias.defined() ? contiguous_copy_if_needed(bias.detach()) : Tensor();
  Tensor y = Tensor::empty(x.shape(), x.dtype());
  Tensor mean = Tensor::empty({N, G}, x.dtype()), rstd = Tensor::empty({N, G}, x.dtype());
  dispatch_float(x.dtype(), "group_norm", [&](auto tag) {
    using T = decltype(tag);
    layer_norm_forward<T>(x.data<T>(), nullptr, nullptr, y.data<T>(), mean.data<T>(), rstd.data<T>(), R, L, eps,
                          true);
    if (w.defined() || b.defined())
      group_norm_affine<T>(y.data<T>(), w.defined() ? w.data<T>() : nullptr, b.defined() ? b.data<T>() : nullptr, N,
                           C, S);
  });
  if (any_requires_grad({x_in, weight, bias})) {
    attach(y, "NativeGroupNormBackward0", {x_in, weight, bias},
           [sx = save(x), sw = save(w), mean, rstd, N, C, S, G, R, L, need_x = x_in.requires_grad(),
            need_w = weight.defined() && weight.requires_grad(),
            need_b = bias.defined() && bias.requires_grad()](const Tensor& g_) -> TensorList {
             const Tensor g = contiguous(g_);
             const Tensor xx = sx.unpack(), ww = sw.unpack();
             Tensor dx = need_x ? Tensor::empty(xx.shape(), xx.dtype()) : Tensor();
             Tensor dw = need_w ? Tensor::empty({C}, xx.dtype()) : Tensor();
             Tensor db = need_b ? Tensor::empty({C}, xx.dtype()) : Tensor();
             dispatch_float(xx.dtype(), "group_norm_backward", [&](auto tag) {
               using T = decltype(tag);
               if (need_x) {
                 // in the forward pass this was: y = xhat w[c] + b[c], so dxhat = dy w[c]
                 Tensor dxhat = ww.defined() ? Tensor::empty(xx.shape(), xx.dtype()) : g;
                 if (ww.defined()) {
                   const T* gp = g.data<T>();
                   const T* wp = ww.data<T>();
                   T* dp = dxhat.data<T>();
                   parallel_for(N * C, std::max<int64_t>(1, 8192 / std::max<int64_t>(S, 1)),
                                [&](int64_t s0, int64_t s1) {
                                  for (int64_t nc = s0; nc < s1; ++nc)
                                    for (int64_t s = 0; s < S; ++s) dp[nc * S + s] = gp[nc * S + s] * wp[nc % C];
                                });
                 }
                 layer_norm_backward<T>(dxhat.data<T>(), xx.data<T>(), nullptr, mean.data<T>(), rstd.data<T>(),
                                        dx.data<T>(), nullptr, nullptr, R, L, true);
               }
               if (need_w || need_b)
                 group_norm_weight_grads<T>(g.data<T>(), xx.data<T>(), mean.data<T>(), rstd.data<T>(),
                                            need_w ? dw.data<T>() : nullptr, need_b ? db.data<T>() : nullptr, N, C,
                                            S, G);
             });
             return {dx, dw, db};
           });
  }
  return y;
}

// instance_norm (Ulyanov et al. 2016; torch.nn.functional.instance_norm): each (n, c) plane by its
// own statistics, which is group_norm with one group per channel. Running statistics, when given
// (and use_input_stats), move towards the planes' statistics averaged over the batch:
//   r = (1 - momentum) r + momentum mean_n(mean_nc),  running_var with the unbiased variances.
// use_input_stats = false: the running statistics, as batch_norm's evaluation.
Tensor instance_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                     const Tensor& bias, bool use_input_stats, double momentum, double eps) {
  if (!use_input_stats) return batch_norm(x, running_mean, running_var, weight, bias, false, momentum, eps);
  SEQLAB_CHECK(x.dim() >= 2, "Expected at least 2 dimensions for input tensor but received ", x.dim());
  int64_t spatial = 1;
  for (int64_t d = 2; d < x.dim(); ++d) spatial *= x.shape()[d];
  SEQLAB_CHECK_VALUE(spatial > 1, "Expected more than 1 spatial element when training, got input size ",
                     shape_str(x.shape()));
  const int64_t C = x.shape()[1];
  for (const Tensor* t : {&running_mean, &running_var})
    SEQLAB_CHECK(!t->defined() || t->numel() == C, "instance_norm(): expected running stats of size ", C,
                 " (channels of input ", shape_str(x.shape()), "), got ", shape_str(t->shape()));
  Tensor y = group_norm(x, C, weight, bias, eps);
  if (running_mean.defined() || running_var.defined()) {
    NoGradGuard ng;
    std::vector<int64_t> dims;
    for (int64_t d = 2; d < x.dim(); ++d) dims.push_back(d);
    const Tensor xd = x.detach();
    if (running_mean.defined()) {
      Tensor r = running_mean;
      const Tensor m = seqlab::mean(seqlab::mean(xd, dims), std::vector<int64_t>{0});
      copy_(r, add(mul(running_mean, scalar_tensor(1.0 - momentum, r.dtype())), m * momentum));
    }
    if (running_var.defined()) {
      Tensor r = running_var;
      const Tensor v = seqlab::mean(seqlab::var(xd, dims, 1.0), std::vector<int64_t>{0});
      copy_(r, add(mul(running_var, scalar_tensor(1.0 - momentum, r.dtype())), v * momentum));
    }
  }
  return y;
}

Tensor instance_norm_module_forward(const Tensor& x, const Tensor& running_mean, const Tensor& running_var,
                                    const Tensor& weight, const Tensor& bias, bool training, bool track_running_stats,
                                    std::optional<double> momentum, double eps, int64_t num_features,
                                    int64_t spatial_dims) {
  const int64_t unbatched = spatial_dims + 1;
  SEQLAB_CHECK_VALUE(x.dim() == unbatched || x.dim() == unbatched + 1, "expected ", unbatched, "D or ",
                     unbatched + 1, "D input (got ", x.dim(), "D input)");
  const int64_t feature_dim = x.dim() - unbatched;
  SEQLAB_CHECK_VALUE(!weight.defined() || x.shape()[feature_dim] == num_features, "expected input's size at dim=",
                     feature_dim, " to match num_features (", num_features, "), but got: ", x.shape()[feature_dim],
                     ".");
  const bool use_input_stats = training || !track_running_stats;
  if (x.dim() == unbatched)
    return squeeze(instance_norm(unsqueeze(x, 0), running_mean, running_var, weight, bias, use_input_stats,
                                 momentum.value_or(0.0), eps), 0);
  return instance_norm(x, running_mean, running_var, weight, bias, use_input_stats, momentum.value_or(0.0), eps);
}

}  // namespace seqlab
