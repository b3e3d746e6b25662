// conv1d / conv2d (torch.nn.functional.conv1d, conv2d) as im2col + GEMM, the forward and its
// backward side by side. Both are one 2-D computation (conv1d is conv2d with H = kH = 1):
//   cols[(c, i, j), (n, oh, ow)] = x[n, c, oh*sH - pT + i*dH, ow*sW - pL + j*dW]   (0 outside x)
//   y_g = W_g cols_g + b        W_g: (OC/G, C/G*kH*kW), one GEMM per group, per sample or per batch
//   dW_g = Σ dy_g cols_gᵀ,   dcols_g = W_gᵀ dy_g,   dx = col2im(dcols),   db = Σ_{n,oh,ow} dy,
// col2im being im2col's adjoint (each column entry added back where it was read).
// conv_transpose1d / conv_transpose2d are that adjoint as an op: the convolution from the transposed
// convolution's output back to its input, run backwards (forward = conv's dx, backward = conv's forward
// and dW), so its weight is (in_channels, out_channels / groups, k...) as torch's.
// Tests: tests/test_conv.py (against torch 2.13, gradcheck).

#include <algorithm>

#include "blas.hpp"
#include "kernel_utils.hpp"
#include "seqlab/autograd.hpp"
#include "seqlab/check.hpp"
#include "seqlab/ops/conv.hpp"
#include "seqlab/parallel.hpp"

namespace seqlab {
namespace {

// One convolution's sizes, 2-D throughout (conv1d: H = kH = 1).
struct ConvGeometry {
  int64_t N, C, H, W;               // input (N, C, H, W)
  int64_t OC, kH, kW, G;            // weight (OC, C/G, kH, kW), groups
  int64_t sH, sW, pT, pL, dH, dW;   // stride, padding before (top, left), dilation
  int64_t OH, OW;                   // output (N, OC, OH, OW)
  int64_t K() const { return C / G * kH * kW; }  // rows of cols per group
  int64_t L() const { return OH * OW; }          // output positions per sample
  int64_t NL() const { return N * OH * OW; }     // columns of cols
};

// The kernel's fields of g, shared by the convolution and its transpose: size from the weight's
// trailing dims, stride, dilation and padding before (top, left); a 1-D convolution is a 2-D
// one with a height of 1.
void set_kernel(ConvGeometry& g, const Tensor& weight, const Shape& stride, const Shape& dilation,
                const Shape& pad_before, size_t nsp) {
  g.kH = nsp == 2 ? weight.shape()[2] : 1;
  g.kW = weight.shape().back();
  g.sH = nsp == 2 ? stride[0] : 1;
  g.sW = stride.back();
  g.dH = nsp == 2 ? dilation[0] : 1;
  g.dW = dilation.back();
  g.pT = nsp == 2 ? pad_before[0] : 0;
  g.pL = pad_before.back();
}

// The outputs o in [0, O) whose input index o*s + offset lies in [0, I): the range [lo, hi).
void inside(int64_t I, int64_t O, int64_t s, int64_t offset, int64_t& lo, int64_t& hi) {
  lo = std::min(O, offset >= 0 ? int64_t(0) : (-offset + s - 1) / s);
  hi = I - 1 - offset < 0 ? int64_t(0) : std::min(O, (I - 1 - offset) / s + 1);
  hi = std::max(lo, hi);
}

// cols (C*kH*kW, (n1-n0)*OH*OW), row stride ld, from samples [n0, n1) of x (N, C, H, W); rows
// split over the pool.
template <typename T>
void im2col(const T* x, T* cols, const ConvGeometry& g, int64_t n0, int64_t n1, int64_t ld) {
  const int64_t L = g.L();
  parallel_for(g.C * g.kH * g.kW, std::max<int64_t>(1, 32768 / std::max<int64_t>(1, (n1 - n0) * L)),
               [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t c = r / (g.kH * g.kW), i = r / g.kW % g.kH, j = r % g.kW;
      const int64_t off = j * g.dW - g.pL;  // x's column for output column ow is ow*sW + off
      int64_t lo, hi;
      inside(g.W, g.OW, g.sW, off, lo, hi);
      for (int64_t n = n0; n < n1; ++n)
        for (int64_t oh = 0; oh < g.OH; ++oh) {
          T* dst = cols + r * ld + (n - n0) * L + oh * g.OW;
          const int64_t ih = oh * g.sH - g.pT + i * g.dH;
          if (ih < 0 || ih >= g.H) {
            std::fill(dst, dst + g.OW, T(0));
            continue;
          }
          const T* row = x + ((n * g.C + c) * g.H + ih) * g.W;
          std::fill(dst, dst + lo, T(0));
          if (g.sW == 1)  // an inline loop: rows are short, and a memmove call per row cost more than the copy
            for (int64_t ow = lo; ow < hi; ++ow) dst[ow] = row[ow + off];
          else
            for (int64_t ow = lo; ow < hi; ++ow) dst[ow] = row[ow * g.sW + off];
          std::fill(dst + hi, dst + g.OW, T(0));
        }
    }
  });
}

// Samples [n0, n1) of dx (N, C, H, W) = col2im(dcols): the adjoint of im2col (same layout). Each
// (n, c) plane sums its own kH*kW rows of dcols, so the planes split over the pool without conflicts.
template <typename T>
void col2im(const T* dcols, T* dx, const ConvGeometry& g, int64_t n0, int64_t n1, int64_t ld) {
  const int64_t L = g.L();
  std::fill(dx + n0 * g.C * g.H * g.W, dx + n1 * g.C * g.H * g.W, T(0));
  parallel_for((n1 - n0) * g.C, std::max<int64_t>(1, 32768 / std::max<int64_t>(1, g.kH * g.kW * L)),
               [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      const int64_t n = n0 + p / g.C, c = p % g.C;
      T* plane = dx + (n * g.C + c) * g.H * g.W;
      for (int64_t i = 0; i < g.kH; ++i)
        for (int64_t j = 0; j < g.kW; ++j) {
          const int64_t r = (c * g.kH + i) * g.kW + j, off = j * g.dW - g.pL;
          int64_t lo, hi;
          inside(g.W, g.OW, g.sW, off, lo, hi);
          for (int64_t oh = 0; oh < g.OH; ++oh) {
            const int64_t ih = oh * g.sH - g.pT + i * g.dH;
            if (ih < 0 || ih >= g.H) continue;
            const T* src = dcols + r * ld + (n - n0) * L + oh * g.OW;
            T* row = plane + ih * g.W;
            if (g.sW == 1)  // contiguous: vectorised
              for (int64_t ow = lo; ow < hi; ++ow) row[ow + off] += src[ow];
            else
              for (int64_t ow = lo; ow < hi; ++ow) row[ow * g.sW + off] += src[ow];
          }
        }
    }
  });
}

// dst (B, R, L) <- src (R, B*L) (+ bias[r] when given): the batch-major / channel-major swap
// between the GEMM's layout and the tensor's; (B, R) pairs split over the pool.
template <typename T>
void swap_batch_channel(const T* src, T* dst, int64_t B, int64_t R, int64_t L, const T* bias, bool to_batch_major) {
  parallel_for(B * R, std::max<int64_t>(1, 32768 / std::max<int64_t>(1, L)), [&](int64_t s, int64_t e) {
    for (int64_t q = s; q < e; ++q) {
      const int64_t b = q / R, r = q % R;
      T* out = to_batch_major ? dst + q * L : dst + (r * B + b) * L;
      const T* in = to_batch_major ? src + (r * B + b) * L : src + q * L;
      if (bias) {
        const T v = bias[r];
        for (int64_t l = 0; l < L; ++l) out[l] = in[l] + v;
      } else {
        std::copy(in, in + L, out);
      }
    }
  });
}

// A sample whose product W cols is big enough to amortise a BLAS call is computed on its own: its
// cols (C*kH*kW, OH*OW) stay in cache between im2col and the GEMM, which writes y[n] in place. Small
// products (a late layer's few positions, short inputs) are one GEMM over the whole batch into
// (OC, N*OH*OW), then swapped to (N, OC, OH*OW). With several threads, "big enough" is far bigger:
// each BLAS call then synchronises its threads, and per-sample calls of a few million multiply-adds
// ran 2-7x slower than the one batched GEMM (benchmarks/conv.py, 2 threads: the 16->32 3x3 layer
// forward 7598 -> 1858 us, the char-CNN 5778 -> 3064 us). Large images stay per sample, which keeps
// the cols buffer to one sample's.
constexpr int64_t kPerSampleFlops = int64_t(1) << 15, kThreadedPerSampleFlops = int64_t(1) << 24;
bool gemm_per_sample(const ConvGeometry& g) {
  if (g.N == 1) return true;
  const int64_t flops = g.OC / g.G * g.L() * g.K();
  return flops >= (get_num_threads() == 1 ? kPerSampleFlops : kThreadedPerSampleFlops);
}

// y (N, OC, OH, OW) = conv(x, w) + b.
template <typename T>
void conv_forward(const T* x, const T* w, const T* b, T* y, const ConvGeometry& g) {
  const int64_t K = g.K(), NL = g.NL(), L = g.L(), OCg = g.OC / g.G;
  // Per sample: with several threads the samples go over seqlab's pool, each worker with its own
  // cols and its GEMMs on its own thread (a GEMM inside the pool runs inline); N = 1 keeps the pool
  // for im2col and for its GEMM's blocks (blas.cpp).
  const bool over_pool = g.N > 1 && get_num_threads() > 1;
  if (over_pool || gemm_per_sample(g)) {
    parallel_for(g.N, over_pool ? 1 : g.N, [&](int64_t s, int64_t e) {
      Tensor cols = Tensor::empty({g.C * g.kH * g.kW, L}, dtype_of<T>());
      T* pc = cols.data<T>();
      for (int64_t n = s; n < e; ++n) {
        if (b)  // y[n] = b first, then the GEMMs add W cols (beta = 1)
          for (int64_t oc = 0; oc < g.OC; ++oc) std::fill(y + (n * g.OC + oc) * L, y + (n * g.OC + oc + 1) * L, b[oc]);
        im2col(x, pc, g, n, n + 1, L);
        for (int64_t grp = 0; grp < g.G; ++grp)  // y[n, g] = W_g cols_g
          gemm<T>(false, false, OCg, L, K, T(1), w + grp * OCg * K, K, pc + grp * K * L, L, b ? T(1) : T(0),
                  y + (n * g.OC + grp * OCg) * L, L);
      }
    });
    return;
  }
  Tensor cols = Tensor::empty({g.C * g.kH * g.kW, NL}, dtype_of<T>());
  im2col(x, cols.data<T>(), g, 0, g.N, NL);
  Tensor tmp = Tensor::empty({g.OC, NL}, dtype_of<T>());
  for (int64_t grp = 0; grp < g.G; ++grp)
    gemm<T>(false, false, OCg, NL, K, T(1), w + grp * OCg * K, K, cols.data<T>() + grp * K * NL, NL, T(0),
            tmp.data<T>() + grp * OCg * NL, NL);
  swap_batch_channel<T>(tmp.data<T>(), y, g.N, g.OC, L, b, true);
}

// The gradients of conv_forward; dx, dw, db null where not needed. Per sample n (or once for the
// whole batch, with dy swapped to (OC, N*L)):
//   dW_g += dy_g[n] cols_g[n]ᵀ   (cols recomputed from x rather than kept from the forward)
//   dcols_g = W_gᵀ dy_g[n],  dx[n] = col2im(dcols)
template <typename T>
void conv_backward(const T* dy_, const T* x, const T* w, T* dx, T* dw, T* db, const ConvGeometry& g) {
  const int64_t K = g.K(), NL = g.NL(), L = g.L(), OCg = g.OC / g.G;
  const bool per_sample = gemm_per_sample(g);
  Tensor dy_t = per_sample ? Tensor() : Tensor::empty({g.OC, NL}, dtype_of<T>());
  if (!per_sample) swap_batch_channel<T>(dy_, dy_t.data<T>(), g.N, g.OC, L, nullptr, false);
  const T* dy = per_sample ? dy_ : dy_t.data<T>();
  if (db)  // db[oc] = Σ_{n, l} dy[n, oc, l], accumulated in double
    parallel_for(g.OC, std::max<int64_t>(1, 32768 / std::max<int64_t>(1, NL)), [&](int64_t s, int64_t e) {
      for (int64_t oc = s; oc < e; ++oc) {
        double acc = 0;
        for (int64_t n = 0; n < g.N; ++n) {
          const T* row = per_sample ? dy + (n * g.OC + oc) * L : dy + oc * NL + n * L;
#pragma omp simd reduction(+ : acc)
          for (int64_t l = 0; l < L; ++l) acc += double(row[l]);
        }
        db[oc] = T(acc);
      }
    });
  if (!dw && !dx) return;
  // the samples of one step, their columns' width and dy's rows for them
  const int64_t steps = per_sample ? g.N : 1, width = per_sample ? L : NL, ld_dy = per_sample ? L : NL;
  Tensor cols = Tensor::empty({g.C * g.kH * g.kW, width}, dtype_of<T>());
  T* pc = cols.data<T>();
  for (int64_t step = 0; step < steps; ++step) {
    const int64_t n0 = per_sample ? step : 0, n1 = per_sample ? step + 1 : g.N;
    auto dy_g = [&](int64_t grp) { return per_sample ? dy + (step * g.OC + grp * OCg) * L : dy + grp * OCg * NL; };
    if (dw) {
      im2col(x, pc, g, n0, n1, width);
      for (int64_t grp = 0; grp < g.G; ++grp)
        gemm<T>(false, true, OCg, K, width, T(1), dy_g(grp), ld_dy, pc + grp * K * width, width,
                step == 0 ? T(0) : T(1), dw + grp * OCg * K, K);
    }
    if (dx) {  // cols is free again: it takes dcols
      for (int64_t grp = 0; grp < g.G; ++grp)
        gemm<T>(true, false, K, width, OCg, T(1), w + grp * OCg * K, K, dy_g(grp), ld_dy, T(0), pc + grp * K * width,
                width);
      col2im(pc, dx, g, n0, n1, width);
    }
  }
}

// One value per spatial dim, from one value or one per dim (torch's expand_param_if_needed).
Shape expand_param(const Shape& v, size_t nsp, const char* op, const char* name) {
  if (v.size() == 1) return Shape(nsp, v[0]);
  SEQLAB_CHECK(v.size() == nsp, op, ": expected ", name, " to be a single integer value or a list of ", nsp,
               " values to match the convolution dimensions, but got ", name, "=", shape_str(v));
  return v;
}

// The checks convolution and conv_transpose share: the input unbatched or batched, the weight's
// rank (`layout` names its first two dims), a float dtype, one dtype for input, weight and bias.
void check_conv_operands(const char* op, size_t nsp, const Tensor& input, const Tensor& weight, const Tensor& bias,
                         const char* layout) {
  const int64_t in_dim = input.dim();
  SEQLAB_CHECK(in_dim == int64_t(nsp) + 1 || in_dim == int64_t(nsp) + 2, "Expected ", nsp + 1, "D (unbatched) or ",
               nsp + 2, "D (batched) input to ", op, ", but got input of size: ", shape_str(input.shape()));
  SEQLAB_CHECK(weight.dim() == int64_t(nsp) + 2, op, ": expected weight to be ", nsp + 2, "-dimensional (", layout,
               ", kernel size...), but got weight of size ", shape_str(weight.shape()));
  SEQLAB_CHECK_TYPE(is_floating(input.dtype()), "\"", op, "\" not implemented for '",
                    scalar_type_name(input.dtype()), "': input of size ", shape_str(input.shape()));
  SEQLAB_CHECK_TYPE(weight.dtype() == input.dtype() && (!bias.defined() || bias.dtype() == input.dtype()), op,
                    ": input, weight and bias must have the same dtype, but got input ", dtype_name(input.dtype()),
                    ", weight ", dtype_name(weight.dtype()),
                    bias.defined() ? str_cat(", bias ", dtype_name(bias.dtype())) : std::string());
}

void check_stride_dilation(const char* op, const Shape& stride, const Shape& dilation) {
  for (int64_t s : stride)
    SEQLAB_CHECK(s > 0, op, ": non-positive stride is not supported, got stride=", shape_str(stride));
  for (int64_t d : dilation)
    SEQLAB_CHECK(d > 0, op, ": dilation should be greater than zero, got dilation=", shape_str(dilation));
}

// The shared checks, geometry and autograd node of conv1d and conv2d. `same` chooses torch's
// padding='same' (the explicit padding is then ignored); `valid` is padding 0.
Tensor convolution(const char* op, size_t nsp, const Tensor& input, const Tensor& weight, const Tensor& bias,
                   const Shape& stride_, const Shape& padding_, bool same, const Shape& dilation_, int64_t groups) {
  const int64_t in_dim = input.dim();
  check_conv_operands(op, nsp, input, weight, bias, "out_channels, in_channels / groups");
  const Shape stride = expand_param(stride_, nsp, op, "stride");
  const Shape dilation = expand_param(dilation_, nsp, op, "dilation");
  check_stride_dilation(op, stride, dilation);
  SEQLAB_CHECK(groups > 0, op, ": non-positive groups is not supported, got groups=", groups);
  for (size_t k = 0; k < nsp; ++k)
    SEQLAB_CHECK(weight.shape()[2 + k] > 0, op, ": expected a positive kernel size, but got weight of size ",
                 shape_str(weight.shape()));
  // Padding before and after each spatial dim.
  Shape pad_before(nsp), pad_after(nsp);
  if (!same) pad_before = pad_after = expand_param(padding_, nsp, op, "padding");
  // Values beyond 2^31 - 1 are typos, and would overflow the size arithmetic below.
  constexpr int64_t kMax = (int64_t(1) << 31) - 1;
  bool small = groups <= kMax;
  for (const Shape* v : std::initializer_list<const Shape*>{&stride, &dilation, &pad_before})
    for (int64_t e : *v) small = small && e <= kMax;
  for (size_t k = 0; k < nsp; ++k) small = small && weight.shape()[2 + k] <= kMax;
  SEQLAB_CHECK(small, op, ": stride, padding, dilation, groups and kernel size must be at most ", kMax,
               ", got stride=", shape_str(stride), ", padding=", same ? std::string("'same'") : shape_str(pad_before),
               ", dilation=", shape_str(dilation), ", groups=", groups, " and weight of size ",
               shape_str(weight.shape()));
  if (same) {
    for (int64_t s : stride)
      SEQLAB_CHECK(s == 1, op, ": padding='same' is not supported for strided convolutions");
    for (size_t k = 0; k < nsp; ++k) {  // total d(k-1); the odd one out goes after, as torch's
      const int64_t total = dilation[k] * (weight.shape()[2 + k] - 1);
      pad_before[k] = total / 2;
      pad_after[k] = total - total / 2;
    }
  } else {
    for (int64_t p : pad_before)
      SEQLAB_CHECK(p >= 0, op, ": negative padding is not supported, got padding=", shape_str(pad_before));
  }
  const bool batched = in_dim == int64_t(nsp) + 2;
  const Shape& xs = input.shape();
  const int64_t C = xs[batched ? 1 : 0], OC = weight.shape()[0];
  SEQLAB_CHECK(OC % groups == 0, op, ": given groups=", groups, ", expected weight to be divisible by ", groups,
               " at dimension 0, but got weight of size ", shape_str(weight.shape()), " instead");
  SEQLAB_CHECK(C == weight.shape()[1] * groups, op, ": given groups=", groups, ", weight of size ",
               shape_str(weight.shape()), ", expected input", shape_str(xs), " to have ", weight.shape()[1] * groups,
               " channels, but got ", C, " channels instead");
  SEQLAB_CHECK(!bias.defined() || (bias.dim() == 1 && bias.shape()[0] == OC), op, ": given weight of size ",
               shape_str(weight.shape()), ", expected bias to be 1-dimensional with ", OC,
               " elements, but got bias of size ", shape_str(bias.defined() ? bias.shape() : Shape{}), " instead");
  ConvGeometry g{};
  g.N = batched ? xs[0] : 1;
  g.C = C;
  g.OC = OC;
  g.G = groups;
  g.H = nsp == 2 ? xs[xs.size() - 2] : 1;
  g.W = xs.back();
  set_kernel(g, weight, stride, dilation, pad_before, nsp);
  const int64_t padded_H = g.H + g.pT + (nsp == 2 ? pad_after[0] : 0), padded_W = g.W + g.pL + pad_after.back();
  const int64_t ext_H = g.dH * (g.kH - 1) + 1, ext_W = g.dW * (g.kW - 1) + 1;  // the dilated kernel
  SEQLAB_CHECK(padded_H >= ext_H && padded_W >= ext_W, op, ": calculated padded input size per channel: (",
               nsp == 2 ? str_cat(padded_H, " x ") : std::string(), padded_W, "). Kernel size: (",
               nsp == 2 ? str_cat(ext_H, " x ") : std::string(), ext_W,
               "). Kernel size can't be greater than actual input size (input of size ", shape_str(xs),
               ", weight of size ", shape_str(weight.shape()), ")");
  g.OH = (padded_H - ext_H) / g.sH + 1;
  g.OW = (padded_W - ext_W) / g.sW + 1;

  Shape out_shape;
  if (batched) out_shape.push_back(g.N);
  out_shape.push_back(OC);
  if (nsp == 2) out_shape.push_back(g.OH);
  out_shape.push_back(g.OW);
  const Tensor x = contiguous_copy_if_needed(input), w = contiguous_copy_if_needed(weight);
  const Tensor b = bias.defined() ? contiguous_copy_if_needed(bias) : Tensor();
  Tensor out = Tensor::empty(out_shape, input.dtype());
  dispatch_float(input.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    conv_forward<T>(x.data<T>(), w.data<T>(), b.defined() ? b.data<T>() : nullptr, out.data<T>(), g);
  });
  if (any_requires_grad({input, weight, bias})) {
    const bool need_x = input.requires_grad(), need_w = weight.requires_grad();
    const bool need_b = bias.defined() && bias.requires_grad();
    attach(out, "ConvolutionBackward0", {input, weight, bias},
           [sx = need_w ? save(x) : SavedTensor(), sw = need_x ? save(w) : SavedTensor(), x_shape = xs,
            w_shape = weight.shape(), OC, g, need_x, need_w, need_b](const Tensor& dy_) -> TensorList {
             const Tensor dy = contiguous_copy_if_needed(dy_);
             Tensor dx = need_x ? Tensor::empty(x_shape, dy.dtype()) : Tensor();
             Tensor dw = need_w ? Tensor::empty(w_shape, dy.dtype()) : Tensor();
             Tensor db = need_b ? Tensor::empty({OC}, dy.dtype()) : Tensor();
             dispatch_float(dy.dtype(), "conv_backward", [&](auto tag) {
               using T = decltype(tag);
               conv_backward<T>(dy.data<T>(), need_w ? sx.unpack().data<T>() : nullptr,
                                need_x ? sw.unpack().data<T>() : nullptr, need_x ? dx.data<T>() : nullptr,
                                need_w ? dw.data<T>() : nullptr, need_b ? db.data<T>() : nullptr, g);
             });
             return {dx, dw, db};
           });
  }
  return out;
}

// The transposed convolution of x (N, C, H, W) by w (C, OC/G, kH, kW) is the adjoint of the convolution g
// from y (N, OC, OH, OW) to x (g.C = OC, g.OC = C, g.H x g.W = OH x OW, g.OH x g.OW = H x W):
//   y = col2im(W_gᵀ x_g) + b                 (conv_backward's dx with dy = x)
//   dx = conv(dy, w)                         (conv_forward)
//   dW_g = x_g cols(dy)_gᵀ,  db = Σ_{n,h,w} dy  (conv_backward's dW with dy = x, x = dy)
// OH = (H - 1) sH - 2 pH + dH (kH - 1) + output_padding_H + 1.
Tensor conv_transpose(const char* op, size_t nsp, const Tensor& input, const Tensor& weight, const Tensor& bias,
                      const Shape& stride_, const Shape& padding_, const Shape& output_padding_, int64_t groups,
                      const Shape& dilation_) {
  const int64_t in_dim = input.dim();
  check_conv_operands(op, nsp, input, weight, bias, "in_channels, out_channels / groups");
  const Shape stride = expand_param(stride_, nsp, op, "stride");
  const Shape padding = expand_param(padding_, nsp, op, "padding");
  const Shape output_padding = expand_param(output_padding_, nsp, op, "output_padding");
  const Shape dilation = expand_param(dilation_, nsp, op, "dilation");
  check_stride_dilation(op, stride, dilation);
  for (int64_t p : padding)
    SEQLAB_CHECK(p >= 0, op, ": negative padding is not supported, got padding=", shape_str(padding));
  SEQLAB_CHECK(groups > 0, op, ": non-positive groups is not supported, got groups=", groups);
  for (size_t k = 0; k < nsp; ++k) {
    SEQLAB_CHECK(output_padding[k] >= 0 && (output_padding[k] < stride[k] || output_padding[k] < dilation[k]), op,
                 ": output padding must be smaller than either stride or dilation, but got output_padding=",
                 shape_str(output_padding), ", stride=", shape_str(stride), ", dilation=", shape_str(dilation));
    SEQLAB_CHECK(weight.shape()[2 + k] > 0, op, ": expected a positive kernel size, but got weight of size ",
                 shape_str(weight.shape()));
  }
  constexpr int64_t kMax = (int64_t(1) << 31) - 1;
  bool small = groups <= kMax;
  for (const Shape* v : std::initializer_list<const Shape*>{&stride, &dilation, &padding, &output_padding})
    for (int64_t e : *v) small = small && e <= kMax;
  for (size_t k = 0; k < nsp; ++k) small = small && weight.shape()[2 + k] <= kMax;
  SEQLAB_CHECK(small, op, ": stride, padding, output_padding, dilation, groups and kernel size must be at most ", kMax);
  SEQLAB_CHECK(weight.shape()[0] >= groups, op, ": given groups=", groups, ", expected weight to be at least ", groups,
               " at dimension 0, but got weight of size ", shape_str(weight.shape()), " instead");
  const bool batched = in_dim == int64_t(nsp) + 2;
  const Shape& xs = input.shape();
  const int64_t C = xs[batched ? 1 : 0];
  SEQLAB_CHECK(weight.shape()[0] == C, op, ": given transposed=1, weight of size ", shape_str(weight.shape()),
               ", expected input", shape_str(xs), " to have ", weight.shape()[0], " channels, but got ", C,
               " channels instead");
  SEQLAB_CHECK(C % groups == 0, op, ": given groups=", groups, ", expected weight to be divisible by ", groups,
               " at dimension 0, but got weight of size ", shape_str(weight.shape()), " instead");
  const int64_t OC = weight.shape()[1] * groups;
  SEQLAB_CHECK(!bias.defined() || (bias.dim() == 1 && bias.shape()[0] == OC), op,
               ": given transposed=1, weight of size ",
               shape_str(weight.shape()), ", expected bias to be 1-dimensional with ", OC,
               " elements, but got bias of size ", shape_str(bias.defined() ? bias.shape() : Shape{}), " instead");
  // g: the convolution from y back to x
  ConvGeometry g{};
  g.N = batched ? xs[0] : 1;
  g.C = OC;
  g.OC = C;
  g.G = groups;
  g.OH = nsp == 2 ? xs[xs.size() - 2] : 1;
  g.OW = xs.back();
  set_kernel(g, weight, stride, dilation, padding, nsp);
  g.H = nsp == 2 ? (g.OH - 1) * g.sH - 2 * g.pT + g.dH * (g.kH - 1) + output_padding[0] + 1 : 1;
  g.W = (g.OW - 1) * g.sW - 2 * g.pL + g.dW * (g.kW - 1) + output_padding.back() + 1;
  SEQLAB_CHECK(g.H > 0 && g.W > 0, op, ": given input size per channel: (",
               nsp == 2 ? str_cat(g.OH, " x ") : std::string(), g.OW, "). Calculated output size per channel: (",
               nsp == 2 ? str_cat(g.H, " x ") : std::string(), g.W, "). Output size is too small");
  Shape out_shape;
  if (batched) out_shape.push_back(g.N);
  out_shape.push_back(OC);
  if (nsp == 2) out_shape.push_back(g.H);
  out_shape.push_back(g.W);
  const Tensor x = contiguous_copy_if_needed(input), w = contiguous_copy_if_needed(weight);
  const Tensor b = bias.defined() ? contiguous_copy_if_needed(bias) : Tensor();
  Tensor out = Tensor::empty(out_shape, input.dtype());
  dispatch_float(input.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    T* y = out.data<T>();
    conv_backward<T>(x.data<T>(), nullptr, w.data<T>(), y, nullptr, nullptr, g);
    if (b.defined()) {  // y[n, oc] += b[oc]
      const T* pb = b.data<T>();
      const int64_t plane = g.H * g.W;
      parallel_for(g.N * OC, std::max<int64_t>(1, 32768 / std::max<int64_t>(1, plane)), [&](int64_t s, int64_t e) {
        for (int64_t q = s; q < e; ++q)
          for (int64_t l = 0; l < plane; ++l) y[q * plane + l] += pb[q % OC];
      });
    }
  });
  if (any_requires_grad({input, weight, bias})) {
    const bool need_x = input.requires_grad(), need_w = weight.requires_grad();
    const bool need_b = bias.defined() && bias.requires_grad();
    attach(out, "ConvolutionBackward0", {input, weight, bias},
           [sx = need_w ? save(x) : SavedTensor(), sw = need_x ? save(w) : SavedTensor(), x_shape = xs,
            w_shape = weight.shape(), OC, g, need_x, need_w, need_b](const Tensor& dy_) -> TensorList {
             const Tensor dy = contiguous_copy_if_needed(dy_);
             Tensor dx = need_x ? Tensor::empty(x_shape, dy.dtype()) : Tensor();
             Tensor dw = need_w ? Tensor::empty(w_shape, dy.dtype()) : Tensor();
             Tensor db = need_b ? Tensor::empty({OC}, dy.dtype()) : Tensor();
             dispatch_float(dy.dtype(), "conv_transpose_backward", [&](auto tag) {
               using T = decltype(tag);
               if (need_x) conv_forward<T>(dy.data<T>(), sw.unpack().data<T>(), nullptr, dx.data<T>(), g);
               if (need_w)
                 conv_backward<T>(sx.unpack().data<T>(), dy.data<T>(), nullptr, nullptr, dw.data<T>(), nullptr, g);
               if (need_b) {  // db[oc] = Σ_{n, h, w} dy[n, oc, h, w], accumulated in double
                 const T* pg = dy.data<T>();
                 const int64_t plane = g.H * g.W;
                 for (int64_t oc = 0; oc < OC; ++oc) {
                   double acc = 0;
                   for (int64_t n = 0; n < g.N; ++n)
                     for (int64_t l = 0; l < plane; ++l) acc += double(pg[(n * OC + oc) * plane + l]);
                   db.data<T>()[oc] = T(acc);
                 }
               }
             });
             return {dx, dw, db};
           });
  }
  return out;
}

}  // namespace

Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, const Shape& stride, const Shape& padding,
              const Shape& dilation, int64_t groups) {
  return convolution("conv1d", 1, input, weight, bias, stride, padding, false, dilation, groups);
}
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, const Shape& stride, const Shape& padding,
              const Shape& dilation, int64_t groups) {
  return convolution("conv2d", 2, input, weight, bias, stride, padding, false, dilation, groups);
}
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const Tensor& bias, const Shape& stride,
                        const Shape& padding, const Shape& output_padding, int64_t groups, const Shape& dilation) {
  return conv_transpose("conv_transpose1d", 1, input, weight, bias, stride, padding, output_padding, groups, dilation);
}
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias, const Shape& stride,
                        const Shape& padding, const Shape& output_padding, int64_t groups, const Shape& dilation) {
  return conv_transpose("conv_transpose2d", 2, input, weight, bias, stride, padding, output_padding, groups, dilation);
}
ConvPadding conv_padding(const std::string& padding, const char* op) {
  SEQLAB_CHECK(padding == "same" || padding == "valid", op, ": invalid padding string '", padding,
               "', expected 'same' or 'valid'");
  return padding == "same" ? ConvPadding::same : ConvPadding::valid;
}
Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, const Shape& stride, ConvPadding padding,
              const Shape& dilation, int64_t groups) {
  return convolution("conv1d", 1, input, weight, bias, stride, {0}, padding == ConvPadding::same, dilation, groups);
}
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, const Shape& stride, ConvPadding padding,
              const Shape& dilation, int64_t groups) {
  return convolution("conv2d", 2, input, weight, bias, stride, {0}, padding == ConvPadding::same, dilation, groups);
}

}  // namespace seqlab
