// Max, average and adaptive average pooling (torch.nn.functional.max_pool1d/2d, avg_pool1d/2d,
// adaptive_avg_pool1d/2d), each forward with its backward below it. All are 2-D over planes
// (1-D: H = 1): output (oh, ow) reads the window rows oh*sH - pH + i*dH, columns ow*sW - pW + j*dW.
//   max:  y = max over the window (NaN wins, as torch's), dx[argmax] += dy
//   avg:  y = Σ window / divisor, dx[window] += dy / divisor, with torch's divisor: the window
//         clipped to the padded input (count_include_pad), or to the input, or divisor_override
//   adaptive avg: window [floor(o*I/O), ceil((o+1)*I/O)), y = its mean
//   adaptive max: the same windows, y = their max, dx[argmax] += dy (max pooling's backward)
// Output sizes and checks follow torch's pooling_output_shape (ATen/native/Pool.h).
// Tests: tests/test_conv.py.

#include <cmath>
#include <limits>

#include "kernel_utils.hpp"
#include "seqlab/autograd.hpp"
#include "seqlab/check.hpp"
#include "seqlab/ops/pool.hpp"

namespace seqlab {
namespace {

constexpr int64_t kMaxPoolArg = (int64_t(1) << 31) - 1;

struct PoolGeometry {
  int64_t P, H, W;                        // planes (N*C) of H x W
  int64_t kH, kW, sH, sW, pH, pW, dH, dW;  // kernel, stride, padding, dilation
  int64_t OH, OW;
};

Shape expand_param(const Shape& v, size_t nsp, const char* op, const char* name) {
  if (v.size() == 1) return Shape(nsp, v[0]);
  SEQLAB_CHECK(v.size() == nsp, op, ": ", name, " must either be a single int, or a tuple of ", nsp,
               " ints, but got ", name, "=", shape_str(v));
  return v;
}

// torch's pooling_output_shape: floor (or ceil) of (I + 2p - d(k-1) - 1) / s, plus one; in ceil
// mode the last window must start inside the input or its left padding.
int64_t pool_out_size(int64_t I, int64_t k, int64_t p, int64_t s, int64_t d, bool ceil_mode, const char* op) {
  SEQLAB_CHECK(p >= 0, op, ": pad must be non-negative, but got pad: ", p);
  SEQLAB_CHECK(p <= ((k - 1) * d + 1) / 2, op, ": pad should be at most half of effective kernel size, but got pad=",
               p, ", kernel_size=", k, " and dilation=", d);
  const int64_t span = I + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
  int64_t out = (span >= 0 ? span / s : -((-span + s - 1) / s)) + 1;  // floor division
  if (ceil_mode && (out - 1) * s >= I + p) --out;
  return out;
}

// The checks and sizes shared by the pooling ops (torch's pool2d_shape_check, in its words).
// A pooling op's input: floating, (C, spatial...) or (N, C, spatial...) with every size but N's
// non-zero; `expected` ends torch's "expected 2D or 3D ..." message, which differs between its ops.
static void check_pool_input(const char* op, size_t nsp, const Tensor& input, const char* expected) {
  const int64_t dim = input.dim();
  bool ok = dim == int64_t(nsp) + 1 || dim == int64_t(nsp) + 2;
  for (int64_t k = dim == int64_t(nsp) + 2 ? 1 : 0; ok && k < dim; ++k) ok = input.shape()[k] > 0;
  SEQLAB_CHECK(ok, op, ": expected ", nsp + 1, "D or ", nsp + 2, expected, shape_str(input.shape()));
  SEQLAB_CHECK_TYPE(is_floating(input.dtype()), "\"", op, "\" not implemented for '",
                    scalar_type_name(input.dtype()), "'");
}

PoolGeometry pool_geometry(const char* op, size_t nsp, const Tensor& input, const Shape& kernel_size_,
                           const Shape& stride_, const Shape& padding_, const Shape& dilation_, bool ceil_mode) {
  check_pool_input(op, nsp, input,
                   "D (batch mode) tensor with optional 0 dim batch size for input, but got input of size ");
  const int64_t dim = input.dim();
  const Shape kernel = expand_param(kernel_size_, nsp, op, "kernel_size");
  const Shape stride = stride_.empty() ? kernel : expand_param(stride_, nsp, op, "stride");
  const Shape padding = expand_param(padding_, nsp, op, "padding");
  const Shape dilation = expand_param(dilation_, nsp, op, "dilation");
  for (int64_t k : kernel)
    SEQLAB_CHECK(k > 0, op, ": kernel size should be greater than zero, but got kernel_size=", shape_str(kernel));
  for (int64_t s : stride)
    SEQLAB_CHECK(s > 0, op, ": stride should be greater than zero, but got stride=", shape_str(stride));
  for (int64_t d : dilation)
    SEQLAB_CHECK(d > 0, op, ": dilation should be greater than zero, but got dilation=", shape_str(dilation));
  // Values beyond 2^31 - 1 are typos, and would overflow the size arithmetic below.
  for (const Shape* v : {&kernel, &stride, &padding, &dilation})
    for (int64_t e : *v)
      SEQLAB_CHECK(e <= kMaxPoolArg, op, ": kernel_size, stride, padding and dilation must be at most ", kMaxPoolArg,
                   ", got kernel_size=", shape_str(kernel), ", stride=", shape_str(stride), ", padding=",
                   shape_str(padding), ", dilation=", shape_str(dilation));
  PoolGeometry g{};
  g.W = input.shape().back();
  g.H = nsp == 2 ? input.shape()[dim - 2] : 1;
  g.P = input.numel() / (g.H * g.W);
  g.kH = nsp == 2 ? kernel[0] : 1;
  g.kW = kernel.back();
  g.sH = nsp == 2 ? stride[0] : 1;
  g.sW = stride.back();
  g.pH = nsp == 2 ? padding[0] : 0;
  g.pW = padding.back();
  g.dH = nsp == 2 ? dilation[0] : 1;
  g.dW = dilation.back();
  g.OH = pool_out_size(g.H, g.kH, g.pH, g.sH, g.dH, ceil_mode, op);
  g.OW = pool_out_size(g.W, g.kW, g.pW, g.sW, g.dW, ceil_mode, op);
  SEQLAB_CHECK(g.OH >= 1 && g.OW >= 1, op, ": given input size ", shape_str(input.shape()),
               ", calculated output size (", nsp == 2 ? str_cat(g.OH, "x") : std::string(), g.OW,
               "). Output size is too small");
  return g;
}

Shape out_shape(const Tensor& input, size_t nsp, int64_t OH, int64_t OW) {
  Shape s(input.shape().begin(), input.shape().end() - nsp);
  if (nsp == 2) s.push_back(OH);
  s.push_back(OW);
  return s;
}

int64_t plane_grain(int64_t work_per_plane) {
  return std::max<int64_t>(1, 32768 / std::max<int64_t>(1, work_per_plane));
}

// --- max pooling

Tensor max_pool_backward(const Tensor& dy_, const Tensor& indices, const Shape& x_shape, const PoolGeometry& g) {
  const Tensor dy = contiguous_copy_if_needed(dy_);
  Tensor dx = Tensor::empty(x_shape, dy.dtype());
  const int64_t* idx = indices.data<int64_t>();
  dispatch_float(dy.dtype(), "max_pool_backward", [&](auto tag) {
    using T = decltype(tag);
    const T* pg = dy.data<T>();
    T* px = dx.data<T>();
    const int64_t plane = g.H * g.W, L = g.OH * g.OW;
    parallel_for(g.P, plane_grain(plane + L), [&](int64_t s, int64_t e) {
      for (int64_t p = s; p < e; ++p) {
        T* d = px + p * plane;
        std::fill(d, d + plane, T(0));
        // dx[argmax] += dy   (overlapping windows may share an argmax)
        for (int64_t o = 0; o < L; ++o) {
          const int64_t i = idx[p * L + o];
          if (i >= 0 && i < plane) d[i] += pg[p * L + o];
        }
      }
    });
  });
  return dx;
}

std::pair<Tensor, Tensor> max_pool(const char* op, size_t nsp, const Tensor& input, const Shape& kernel_size,
                                   const Shape& stride, const Shape& padding, const Shape& dilation, bool ceil_mode) {
  const PoolGeometry g = pool_geometry(op, nsp, input, kernel_size, stride, padding, dilation, ceil_mode);
  const Tensor x = contiguous_copy_if_needed(input);
  const Shape shape = out_shape(input, nsp, g.OH, g.OW);
  Tensor out = Tensor::empty(shape, input.dtype()), indices = Tensor::empty(shape, Dtype::Int64);
  dispatch_float(input.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* py = out.data<T>();
    int64_t* pi = indices.data<int64_t>();
    parallel_for(g.P, plane_grain(g.OH * g.OW * g.kH * g.kW), [&](int64_t s, int64_t e) {
      for (int64_t p = s; p < e; ++p) {
        const T* plane = px + p * g.H * g.W;
        for (int64_t oh = 0; oh < g.OH; ++oh) {
          int64_t h0 = oh * g.sH - g.pH;
          const int64_t h1 = std::min(h0 + (g.kH - 1) * g.dH + 1, g.H);
          while (h0 < 0) h0 += g.dH;
          for (int64_t ow = 0; ow < g.OW; ++ow) {
            int64_t w0 = ow * g.sW - g.pW;
            const int64_t w1 = std::min(w0 + (g.kW - 1) * g.dW + 1, g.W);
            while (w0 < 0) w0 += g.dW;
            int64_t best = h0 * g.W + w0;
            T m = -std::numeric_limits<T>::infinity();
            for (int64_t h = h0; h < h1; h += g.dH)
              for (int64_t w = w0; w < w1; w += g.dW) {
                const T v = plane[h * g.W + w];
                if (v > m || std::isnan(v)) {  // a NaN anywhere makes the maximum NaN, as torch's
                  m = v;
                  best = h * g.W + w;
                }
              }
            py[(p * g.OH + oh) * g.OW + ow] = m;
            pi[(p * g.OH + oh) * g.OW + ow] = best;
          }
        }
      }
    });
  });
  if (any_requires_grad({input}))
    attach(out, nsp == 2 ? "MaxPool2DWithIndicesBackward0" : "MaxPool1DWithIndicesBackward0", {input},
           [si = save(indices), x_shape = input.shape(), g](const Tensor& dy) -> TensorList {
             return {max_pool_backward(dy, si.unpack(), x_shape, g)};
           });
  return {out, indices};
}

// --- average pooling

// The window of output (oh, ow) clipped to the input, [h0, h1) x [w0, w1), and its divisor.
struct AvgWindow {
  int64_t h0, h1, w0, w1, divisor;
};
AvgWindow avg_window(const PoolGeometry& g, int64_t oh, int64_t ow, bool count_include_pad,
                     std::optional<int64_t> divisor_override) {
  AvgWindow a{};
  a.h0 = oh * g.sH - g.pH;
  a.w0 = ow * g.sW - g.pW;
  a.h1 = std::min(a.h0 + g.kH, g.H + g.pH);
  a.w1 = std::min(a.w0 + g.kW, g.W + g.pW);
  const int64_t padded_size = (a.h1 - a.h0) * (a.w1 - a.w0);
  a.h0 = std::max<int64_t>(a.h0, 0);
  a.w0 = std::max<int64_t>(a.w0, 0);
  a.h1 = std::min(a.h1, g.H);
  a.w1 = std::min(a.w1, g.W);
  a.divisor = divisor_override ? *divisor_override
              : count_include_pad ? padded_size
                                  : (a.h1 - a.h0) * (a.w1 - a.w0);
  return a;
}

// The backward of an average over windows, per plane: dx[window(o)] += dy[o] / divisor(o), where
// window(oh, ow) gives the window and its divisor (avg_pool's, or adaptive_avg_pool's |window|).
template <typename Window>
Tensor average_backward(const Tensor& dy_, const Shape& x_shape, const PoolGeometry& g, int64_t work_per_plane,
                        const char* name, Window window) {
  const Tensor dy = contiguous_copy_if_needed(dy_);
  Tensor dx = Tensor::empty(x_shape, dy.dtype());
  dispatch_float(dy.dtype(), name, [&](auto tag) {
    using T = decltype(tag);
    const T* pg = dy.data<T>();
    T* px = dx.data<T>();
    parallel_for(g.P, plane_grain(work_per_plane), [&](int64_t s, int64_t e) {
      for (int64_t p = s; p < e; ++p) {
        T* d = px + p * g.H * g.W;
        std::fill(d, d + g.H * g.W, T(0));
        for (int64_t oh = 0; oh < g.OH; ++oh)
          for (int64_t ow = 0; ow < g.OW; ++ow) {
            const AvgWindow a = window(oh, ow);
            const T v = pg[(p * g.OH + oh) * g.OW + ow] / T(a.divisor);
            for (int64_t h = a.h0; h < a.h1; ++h)
              for (int64_t w = a.w0; w < a.w1; ++w) d[h * g.W + w] += v;
          }
      }
    });
  });
  return dx;
}

Tensor avg_pool(const char* op, size_t nsp, const Tensor& input, const Shape& kernel_size, const Shape& stride,
                const Shape& padding, bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  const PoolGeometry g = pool_geometry(op, nsp, input, kernel_size, stride, padding, {1}, ceil_mode);
  SEQLAB_CHECK(!divisor_override || *divisor_override != 0, op, ": divisor must be not zero");
  const Tensor x = contiguous_copy_if_needed(input);
  Tensor out = Tensor::empty(out_shape(input, nsp, g.OH, g.OW), input.dtype());
  dispatch_float(input.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* py = out.data<T>();
    parallel_for(g.P, plane_grain(g.OH * g.OW * g.kH * g.kW), [&](int64_t s, int64_t e) {
      for (int64_t p = s; p < e; ++p) {
        const T* plane = px + p * g.H * g.W;
        for (int64_t oh = 0; oh < g.OH; ++oh)
          for (int64_t ow = 0; ow < g.OW; ++ow) {
            const AvgWindow a = avg_window(g, oh, ow, count_include_pad, divisor_override);
            T sum = 0;
            for (int64_t h = a.h0; h < a.h1; ++h)
              for (int64_t w = a.w0; w < a.w1; ++w) sum += plane[h * g.W + w];
            // a window wholly in the padding averages nothing: 0, as torch's
            py[(p * g.OH + oh) * g.OW + ow] = a.h0 >= a.h1 || a.w0 >= a.w1 ? T(0) : sum / T(a.divisor);
          }
      }
    });
  });
  if (any_requires_grad({input}))
    attach(out, nsp == 2 ? "AvgPool2DBackward0" : "AvgPool1DBackward0", {input},
           [x_shape = input.shape(), g, count_include_pad, divisor_override](const Tensor& dy) -> TensorList {
             return {average_backward(dy, x_shape, g, g.OH * g.OW * g.kH * g.kW, "avg_pool_backward",
                                      [&](int64_t oh, int64_t ow) {
                                        return avg_window(g, oh, ow, count_include_pad, divisor_override);
                                      })};
           });
  return out;
}

// --- adaptive pooling: output o of O reads inputs [floor(o I / O), ceil((o + 1) I / O)) of I

int64_t adaptive_start(int64_t o, int64_t I, int64_t O) { return o * I / O; }
int64_t adaptive_end(int64_t o, int64_t I, int64_t O) { return ((o + 1) * I + O - 1) / O; }

// The checks and the geometry adaptive average and max pooling share.
PoolGeometry adaptive_geometry(const char* op, size_t nsp, const Tensor& input, const Shape& output_size_) {
  const int64_t dim = input.dim();
  check_pool_input(op, nsp, input,
                   "D tensor with non-zero sizes for all dims but the batch dim, but got input of size ");
  const Shape output_size = expand_param(output_size_, nsp, op, "output_size");
  for (int64_t o : output_size)
    SEQLAB_CHECK(o >= 0 && o <= kMaxPoolArg, op, ": elements of output_size must be between 0 and ", kMaxPoolArg,
                 " but received ", shape_str(output_size));
  PoolGeometry g{};
  g.W = input.shape().back();
  g.H = nsp == 2 ? input.shape()[dim - 2] : 1;
  g.P = input.numel() / (g.H * g.W);
  g.OH = nsp == 2 ? output_size[0] : 1;
  g.OW = output_size.back();
  return g;
}

// --- adaptive average pooling

Tensor adaptive_avg_pool(const char* op, size_t nsp, const Tensor& input, const Shape& output_size_) {
  const PoolGeometry g = adaptive_geometry(op, nsp, input, output_size_);
  auto start = adaptive_start;
  auto end = adaptive_end;
  const Tensor x = contiguous_copy_if_needed(input);
  Tensor out = Tensor::empty(out_shape(input, nsp, g.OH, g.OW), input.dtype());
  dispatch_float(input.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* py = out.data<T>();
    parallel_for(g.P, plane_grain(g.H * g.W), [&](int64_t s, int64_t e) {
      for (int64_t p = s; p < e; ++p)
        for (int64_t oh = 0; oh < g.OH; ++oh)
          for (int64_t ow = 0; ow < g.OW; ++ow) {
            const int64_t h0 = start(oh, g.H, g.OH), h1 = end(oh, g.H, g.OH);
            const int64_t w0 = start(ow, g.W, g.OW), w1 = end(ow, g.W, g.OW);
            T sum = 0;
            for (int64_t h = h0; h < h1; ++h)
              for (int64_t w = w0; w < w1; ++w) sum += px[(p * g.H + h) * g.W + w];
            py[(p * g.OH + oh) * g.OW + ow] = sum / T((h1 - h0) * (w1 - w0));
          }
    });
  });
  if (any_requires_grad({input}))
    attach(out, nsp == 2 ? "AdaptiveAvgPool2DBackward0" : "AdaptiveAvgPool1DBackward0", {input},
           [x_shape = input.shape(), g, start, end](const Tensor& dy) -> TensorList {
             return {average_backward(dy, x_shape, g, g.H * g.W, "adaptive_avg_pool_backward",
                                      [&](int64_t oh, int64_t ow) {
                                        const int64_t h0 = start(oh, g.H, g.OH), h1 = end(oh, g.H, g.OH);
                                        const int64_t w0 = start(ow, g.W, g.OW), w1 = end(ow, g.W, g.OW);
                                        return AvgWindow{h0, h1, w0, w1, (h1 - h0) * (w1 - w0)};
                                      })};
           });
  return out;
}

// --- adaptive max pooling

std::pair<Tensor, Tensor> adaptive_max_pool(const char* op, size_t nsp, const Tensor& input, const Shape& output_size_) {
  const PoolGeometry g = adaptive_geometry(op, nsp, input, output_size_);
  auto start = adaptive_start;
  auto end = adaptive_end;
  const Tensor x = contiguous_copy_if_needed(input);
  const Shape shape = out_shape(input, nsp, g.OH, g.OW);
  Tensor out = Tensor::empty(shape, input.dtype()), indices = Tensor::empty(shape, Dtype::Int64);
  dispatch_float(input.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* py = out.data<T>();
    int64_t* pi = indices.data<int64_t>();
    parallel_for(g.P, plane_grain(g.H * g.W), [&](int64_t s, int64_t e) {
      for (int64_t p = s; p < e; ++p) {
        const T* plane = px + p * g.H * g.W;
        for (int64_t oh = 0; oh < g.OH; ++oh)
          for (int64_t ow = 0; ow < g.OW; ++ow) {
            const int64_t h0 = start(oh, g.H, g.OH), h1 = end(oh, g.H, g.OH);
            const int64_t w0 = start(ow, g.W, g.OW), w1 = end(ow, g.W, g.OW);
            int64_t best = h0 * g.W + w0;
            T m = -std::numeric_limits<T>::infinity();
            for (int64_t h = h0; h < h1; ++h)
              for (int64_t w = w0; w < w1; ++w) {
                const T v = plane[h * g.W + w];
                if (v > m || std::isnan(v)) {  // NaN wins (the last one), as torch's
                  m = v;
                  best = h * g.W + w;
                }
              }
            py[(p * g.OH + oh) * g.OW + ow] = m;
            pi[(p * g.OH + oh) * g.OW + ow] = best;
          }
      }
    });
  });
  if (any_requires_grad({input}))
    attach(out, nsp == 2 ? "AdaptiveMaxPool2DBackward0" : "AdaptiveMaxPool1DBackward0", {input},
           [si = save(indices), x_shape = input.shape(), g](const Tensor& dy) -> TensorList {
             return {max_pool_backward(dy, si.unpack(), x_shape, g)};
           });
  return {out, indices};
}

}  // namespace

std::pair<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, const Shape& kernel_size, const Shape& stride,
                                                  const Shape& padding, const Shape& dilation, bool ceil_mode) {
  return max_pool("max_pool1d", 1, input, kernel_size, stride, padding, dilation, ceil_mode);
}
std::pair<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, const Shape& kernel_size, const Shape& stride,
                                                  const Shape& padding, const Shape& dilation, bool ceil_mode) {
  return max_pool("max_pool2d", 2, input, kernel_size, stride, padding, dilation, ceil_mode);
}
Tensor avg_pool1d(const Tensor& input, const Shape& kernel_size, const Shape& stride, const Shape& padding,
                  bool ceil_mode, bool count_include_pad) {
  return avg_pool("avg_pool1d", 1, input, kernel_size, stride, padding, ceil_mode, count_include_pad, std::nullopt);
}
Tensor avg_pool2d(const Tensor& input, const Shape& kernel_size, const Shape& stride, const Shape& padding,
                  bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  return avg_pool("avg_pool2d", 2, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                  divisor_override);
}
Tensor adaptive_avg_pool1d(const Tensor& input, const Shape& output_size) {
  return adaptive_avg_pool("adaptive_avg_pool1d", 1, input, output_size);
}
Tensor adaptive_avg_pool2d(const Tensor& input, const Shape& output_size) {
  return adaptive_avg_pool("adaptive_avg_pool2d", 2, input, output_size);
}
std::pair<Tensor, Tensor> adaptive_max_pool1d(const Tensor& input, const Shape& output_size) {
  return adaptive_max_pool("adaptive_max_pool1d", 1, input, output_size);
}
std::pair<Tensor, Tensor> adaptive_max_pool2d(const Tensor& input, const Shape& output_size) {
  return adaptive_max_pool("adaptive_max_pool2d", 2, input, output_size);
}

}  // namespace seqlab
