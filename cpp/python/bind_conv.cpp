// seqlab.nn.functional's convolutions and pooling (cpp/src/ops/conv.cpp, pool.cpp): thin, the
// arguments converted as torch's (an int or a tuple; padding also 'same' or 'valid').
#include "bind_common.hpp"
#include "seqlab/nn/conv.hpp"
#include "seqlab/ops/conv.hpp"
#include "seqlab/ops/pool.hpp"

namespace seqlab::bind {

namespace {
template <typename Conv>
Tensor conv_call(const char* op, Conv conv, const Tensor& input, const Tensor& weight, const OptTensor& bias,
                 py::handle stride, py::handle padding, py::handle dilation, int64_t groups) {
  const Shape s = size_arg(stride, op, "stride"), d = size_arg(dilation, op, "dilation");
  if (py::isinstance<py::str>(padding)) {
    const ConvPadding p = conv_padding(padding.cast<std::string>(), op);
    return released([&] { return conv(input, weight, opt(bias), s, p, d, groups); });
  }
  const Shape p = size_arg(padding, op, "padding");
  return released([&] { return conv(input, weight, opt(bias), s, p, d, groups); });
}
// stride=None (or an empty tuple) is the kernel size: an empty Shape for the C++ functionals.
Shape stride_arg(py::handle stride, const char* op) {
  return stride.is_none() ? Shape{} : size_arg(stride, op, "stride");
}

// F.conv1d and F.conv2d: the same arguments for `conv` (conv1d or conv2d).
template <typename Conv>
void def_conv(py::module_& m, const char* op, Conv conv, const char* doc) {
  def_op(m, op, [op, conv](const Tensor& input, const Tensor& weight, OptTensor bias, py::handle stride,
                       py::handle padding, py::handle dilation, int64_t groups) {
    return conv_call(op, conv, input, weight, bias, stride, padding, dilation, groups);
  }, py::arg("input"), py::arg("weight"), py::arg("bias") = py::none(), py::arg("stride") = 1, py::arg("padding") = 0,
        py::arg("dilation") = 1, py::arg("groups") = 1, doc);
}

// F.max_pool1d and F.max_pool2d with return_indices=True: the same arguments for `pool`.
template <typename Pool>
void def_max_pool(py::module_& m, const char* name, const char* op, Pool pool, const char* doc) {
  def_op(m, name, [op, pool](const Tensor& input, py::handle kernel_size, py::handle stride, py::handle padding,
                         py::handle dilation, bool ceil_mode) {
    const Shape k = size_arg(kernel_size, op, "kernel_size"), s = stride_arg(stride, op),
                p = size_arg(padding, op, "padding"), d = size_arg(dilation, op, "dilation");
    return released([&] { return pool(input, k, s, p, d, ceil_mode); });
  }, py::arg("input"), py::arg("kernel_size"), py::arg("stride") = py::none(), py::arg("padding") = 0,
        py::arg("dilation") = 1, py::arg("ceil_mode") = false, doc);
}
}  // namespace

void bind_conv(py::module_& m) {
  def_conv(m, "conv1d", [](auto&&... a) { return conv1d(a...); },
           "y[n, o, l] = b[o] + sum_{c, j} w[o, c, j] x[n, g*C/G + c, l*stride - padding + j*dilation]: a 1-D\n"
           "convolution (cross-correlation) over input (N, C, L) or (C, L), weight (out, C/groups, k) (F.conv1d).\n"
           "padding: an int, a tuple, 'valid' (0) or 'same' (output length = input length, stride 1).");
  def_conv(m, "conv2d", [](auto&&... a) { return conv2d(a...); },
           "y[n, o, i, j] = b[o] + sum_{c, p, q} w[o, c, p, q] x[n, g*C/G + c, i*sH - pH + p*dH, j*sW - pW + q*dW]:\n"
           "a 2-D convolution (cross-correlation) over input (N, C, H, W) or (C, H, W), weight\n"
           "(out, C/groups, kH, kW) (F.conv2d). padding: an int, a tuple, 'valid' (0) or 'same' (stride 1).");
  for (const char* op : {"conv_transpose1d", "conv_transpose2d"}) {
    const bool two = std::string(op) == "conv_transpose2d";
    def_op(m, op, [op, two](const Tensor& input, const Tensor& weight, OptTensor bias, py::handle stride,
                        py::handle padding, py::handle output_padding, int64_t groups, py::handle dilation) {
      const Shape s = size_arg(stride, op, "stride"), p = size_arg(padding, op, "padding"),
                  o = size_arg(output_padding, op, "output_padding"), d = size_arg(dilation, op, "dilation");
      return released([&] {
        return two ? conv_transpose2d(input, weight, opt(bias), s, p, o, groups, d)
                   : conv_transpose1d(input, weight, opt(bias), s, p, o, groups, d);
      });
    }, py::arg("input"), py::arg("weight"), py::arg("bias") = py::none(), py::arg("stride") = 1,
          py::arg("padding") = 0, py::arg("output_padding") = 0, py::arg("groups") = 1, py::arg("dilation") = 1,
          two ? "The transposed 2-D convolution (the adjoint of conv2d; F.conv_transpose2d) of input (N, C, H, W) or\n"
                "(C, H, W) by weight (C, out/groups, kH, kW): each input value adds w[c] times itself into the output\n"
                "window at (i*sH - pH, j*sW - pW); output H (H-1)*sH - 2pH + dH(kH-1) + output_padding + 1."
              : "The transposed 1-D convolution (the adjoint of conv1d; F.conv_transpose1d) of input (N, C, L) or\n"
                "(C, L) by weight (C, out/groups, k): output length (L-1)*stride - 2 padding + dilation (k-1) +\n"
                "output_padding + 1.");
  }
  def_max_pool(m, "max_pool1d_with_indices", "max_pool1d",
               [](auto&&... a) { return max_pool1d_with_indices(a...); },
               "(max over each window of input (N, C, L) or (C, L), the argmax's position in L) (F.max_pool1d\n"
               "with return_indices=True). stride defaults to kernel_size.");
  def_max_pool(m, "max_pool2d_with_indices", "max_pool2d",
               [](auto&&... a) { return max_pool2d_with_indices(a...); },
               "(max over each window of input (N, C, H, W) or (C, H, W), the argmax's position h*W + w in its plane)\n"
               "(F.max_pool2d with return_indices=True). stride defaults to kernel_size.");
  def_op(m, "avg_pool1d", [](const Tensor& input, py::handle kernel_size, py::handle stride, py::handle padding,
                         bool ceil_mode, bool count_include_pad) {
    const char* op = "avg_pool1d";
    const Shape k = size_arg(kernel_size, op, "kernel_size"), s = stride_arg(stride, op),
                p = size_arg(padding, op, "padding");
    return released([&] { return avg_pool1d(input, k, s, p, ceil_mode, count_include_pad); });
  }, py::arg("input"), py::arg("kernel_size"), py::arg("stride") = py::none(), py::arg("padding") = 0,
        py::arg("ceil_mode") = false, py::arg("count_include_pad") = true,
        "The mean over each window of input (N, C, L) or (C, L); the divisor counts the zero padding when\n"
        "count_include_pad (F.avg_pool1d). stride defaults to kernel_size.");
  def_op(m, "avg_pool2d", [](const Tensor& input, py::handle kernel_size, py::handle stride, py::handle padding,
                         bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
    const char* op = "avg_pool2d";
    const Shape k = size_arg(kernel_size, op, "kernel_size"), s = stride_arg(stride, op),
                p = size_arg(padding, op, "padding");
    return released([&] { return avg_pool2d(input, k, s, p, ceil_mode, count_include_pad, divisor_override); });
  }, py::arg("input"), py::arg("kernel_size"), py::arg("stride") = py::none(), py::arg("padding") = 0,
        py::arg("ceil_mode") = false, py::arg("count_include_pad") = true, py::arg("divisor_override") = py::none(),
        "The mean over each window of input (N, C, H, W) or (C, H, W); the divisor counts the zero padding\n"
        "when count_include_pad, or is divisor_override (F.avg_pool2d). stride defaults to kernel_size.");
  def_op(m, "_adaptive_avg_pool1d", [](const Tensor& input, py::handle output_size) {
    const Shape o = size_arg(output_size, "adaptive_avg_pool1d", "output_size");
    return released([&] { return adaptive_avg_pool1d(input, o); });
  }, py::arg("input"), py::arg("output_size"),
        "The mean over windows [floor(i*L/O), ceil((i+1)*L/O)) of input (N, C, L) or (C, L).");
  def_op(m, "_adaptive_avg_pool2d", [](const Tensor& input, py::handle output_size) {
    const Shape o = size_arg(output_size, "adaptive_avg_pool2d", "output_size");
    return released([&] { return adaptive_avg_pool2d(input, o); });
  }, py::arg("input"), py::arg("output_size"),
        "The mean over windows [floor(i*H/OH), ceil((i+1)*H/OH)) x [floor(j*W/OW), ceil((j+1)*W/OW)).");
  def_op(m, "adaptive_max_pool1d_with_indices", [](const Tensor& input, py::handle output_size) {
    const Shape o = size_arg(output_size, "adaptive_max_pool1d", "output_size");
    return released([&] { return adaptive_max_pool1d(input, o); });
  }, py::arg("input"), py::arg("output_size"),
        "(the max over windows [floor(i*L/O), ceil((i+1)*L/O)) of input (N, C, L) or (C, L), their argmax along L)\n"
        "(F.adaptive_max_pool1d_with_indices).");
  def_op(m, "adaptive_max_pool2d_with_indices", [](const Tensor& input, py::handle output_size) {
    const Shape o = size_arg(output_size, "adaptive_max_pool2d", "output_size");
    return released([&] { return adaptive_max_pool2d(input, o); });
  }, py::arg("input"), py::arg("output_size"),
        "(the max over windows [floor(i*H/OH), ceil((i+1)*H/OH)) x [floor(j*W/OW), ceil((j+1)*W/OW)), the argmax\n"
        "positions h*W + w in each plane) (F.adaptive_max_pool2d_with_indices).");

  // The C++ twins (nn/conv.hpp) in seqlab._core.cpp_nn, beside the others (bind_nn_modules.cpp).
  py::module_ cpp_nn = m.attr("cpp_nn");
  py::class_<nn::ConvNd, nn::UnaryModule, std::shared_ptr<nn::ConvNd>>(cpp_nn, "ConvNd");
  using O = nn::ConvOptions;
  ModuleOptions<O> options(cpp_nn, "ConvOptions", [] { return O(0, 0, {1}); });
  options.arg("in_channels", &O::in_channels, &O::in_channels)
      .arg("out_channels", &O::out_channels, &O::out_channels)
      .shape_arg("kernel_size", &O::kernel_size, &O::kernel_size)
      .shape_arg("stride", &O::stride, &O::stride)
      .arg(
      "padding",
      [](const O& o) -> py::object {
        if (const auto* s = std::get_if<std::string>(&o.padding())) return py::str(*s);
        return py::tuple(py::cast(std::get<Shape>(o.padding())));
      },
      [](O& o, py::handle v) {
        if (py::isinstance<py::str>(v)) {
          o.padding(v.cast<std::string>());
        } else {
          o.padding(size_arg(v, "ConvOptions", "padding"));
        }
      })
      .shape_arg("dilation", &O::dilation, &O::dilation)
      .arg("groups", &O::groups, &O::groups)
      .arg("bias", &O::bias, &O::bias)
      .arg("padding_mode", &O::padding_mode, &O::padding_mode)
      .arg("dtype", &O::dtype, &O::dtype)
      .required({"in_channels", "out_channels", "kernel_size"});
  cpp_nn.attr("Conv1dOptions") = options.cls();
  cpp_nn.attr("Conv2dOptions") = options.cls();
  py::class_<nn::Conv1d, nn::ConvNd, std::shared_ptr<nn::Conv1d>> conv1d(cpp_nn, "Conv1d");
  options.module_init<nn::Conv1d>(conv1d, "Conv1d");
  py::class_<nn::Conv2d, nn::ConvNd, std::shared_ptr<nn::Conv2d>> conv2d(cpp_nn, "Conv2d");
  options.module_init<nn::Conv2d>(conv2d, "Conv2d");

  py::class_<nn::ConvTransposeNd, nn::UnaryModule, std::shared_ptr<nn::ConvTransposeNd>>(cpp_nn, "ConvTransposeNd");
  using TO = nn::ConvTransposeOptions;
  ModuleOptions<TO> t_options(cpp_nn, "ConvTransposeOptions", [] { return TO(0, 0, {1}); });
  t_options.arg("in_channels", &TO::in_channels, &TO::in_channels)
      .arg("out_channels", &TO::out_channels, &TO::out_channels)
      .shape_arg("kernel_size", &TO::kernel_size, &TO::kernel_size)
      .shape_arg("stride", &TO::stride, &TO::stride)
      .shape_arg("padding", &TO::padding, &TO::padding)
      .shape_arg("output_padding", &TO::output_padding, &TO::output_padding)
      .arg("groups", &TO::groups, &TO::groups)
      .arg("bias", &TO::bias, &TO::bias)
      .shape_arg("dilation", &TO::dilation, &TO::dilation)
      .arg("padding_mode", &TO::padding_mode, &TO::padding_mode)
      .arg("dtype", &TO::dtype, &TO::dtype)
      .required({"in_channels", "out_channels", "kernel_size"});
  cpp_nn.attr("ConvTranspose1dOptions") = t_options.cls();
  cpp_nn.attr("ConvTranspose2dOptions") = t_options.cls();
  py::class_<nn::ConvTranspose1d, nn::ConvTransposeNd, std::shared_ptr<nn::ConvTranspose1d>> convt1d(
      cpp_nn, "ConvTranspose1d");
  t_options.module_init<nn::ConvTranspose1d>(convt1d, "ConvTranspose1d");
  py::class_<nn::ConvTranspose2d, nn::ConvTransposeNd, std::shared_ptr<nn::ConvTranspose2d>> convt2d(
      cpp_nn, "ConvTranspose2d");
  t_options.module_init<nn::ConvTranspose2d>(convt2d, "ConvTranspose2d");
}

}  // namespace seqlab::bind
