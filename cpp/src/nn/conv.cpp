// Conv1d and Conv2d for C++ users (the twins of python/seqlab/nn/modules/conv.py): parameters under torch's
// names, torch's initialisation and repr; the computation is ops/conv.hpp's functional.
#include "seqlab/nn/conv.hpp"

#include <cmath>

#include "seqlab/check.hpp"
#include "seqlab/nn/init.hpp"
#include "seqlab/ops/conv.hpp"

namespace seqlab::nn {

namespace {
// "(5, 5)", "(3,)": a Python tuple, as torch's repr prints it.
std::string tuple_str(const Shape& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}
}  // namespace

namespace {

// The options with one value per spatial dim, checked with torch.nn's words.
ConvOptions per_dim(const ConvOptions& o, size_t dims, const char* name) {
  ConvOptions e = o;
  const auto expand = [dims](const Shape& v) { return v.size() == 1 ? Shape(dims, v[0]) : v; };
  e.kernel_size(expand(o.kernel_size())).stride(expand(o.stride())).dilation(expand(o.dilation()));
  const auto* padding = std::get_if<Shape>(&o.padding());
  const auto* padding_string = std::get_if<std::string>(&o.padding());
  if (padding) e.padding(expand(*padding));
  const int64_t g = o.groups();
  SEQLAB_CHECK_VALUE(g > 0, "groups must be a positive integer");
  SEQLAB_CHECK_VALUE(o.in_channels() % g == 0, "in_channels must be divisible by groups");
  SEQLAB_CHECK_VALUE(o.out_channels() % g == 0, "out_channels must be divisible by groups");
  SEQLAB_CHECK_VALUE(!padding_string || *padding_string == "same" || *padding_string == "valid",
                     "Invalid padding string '", padding_string ? *padding_string : "",
                     "', should be one of {'valid', 'same'}");
  for (int64_t v : e.stride())
    SEQLAB_CHECK_VALUE(!padding_string || *padding_string != "same" || v == 1,
                       "padding='same' is not supported for strided convolutions");
  SEQLAB_CHECK_VALUE(o.padding_mode() == "zeros", name, " (C++): padding_mode '", o.padding_mode(),
                     "' is seqlab.nn's (F.pad in Python); the C++ layer pads with zeros");
  const Shape* padding_sizes = padding ? &std::get<Shape>(e.padding()) : nullptr;
  for (const Shape* v : {&e.kernel_size(), &e.stride(), &e.dilation(), padding_sizes})
    SEQLAB_CHECK_VALUE(!v || v->size() == dims, name, ": expected ", dims, " values per argument, got ", shape_str(*v));
  return e;
}

}  // namespace

ConvNd::ConvNd(const char* name, size_t dims, const ConvOptions& options_)
    : UnaryModule(name), options(per_dim(options_, dims, name)) {
  const int64_t out = options.out_channels();
  Shape w_shape{out, options.in_channels() / options.groups()};
  w_shape.insert(w_shape.end(), options.kernel_size().begin(), options.kernel_size().end());
  weight = register_parameter("weight", Tensor::empty(w_shape, options.dtype()));
  if (options.bias()) bias = register_parameter("bias", Tensor::empty({out}, options.dtype()));
  reset_parameters();
}

void ConvNd::reset_parameters() {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const int64_t fan_in = init::calculate_fan_in_and_fan_out(weight).first;
    if (fan_in != 0) init::uniform_(bias, -1.0 / std::sqrt(double(fan_in)), 1.0 / std::sqrt(double(fan_in)));
  }
}

Tensor ConvNd::forward(const Tensor& x) {
  const ConvOptions& o = options;
  const bool two = o.kernel_size().size() == 2;
  if (const auto* padding_string = std::get_if<std::string>(&o.padding())) {
    const ConvPadding p = conv_padding(*padding_string, name().c_str());
    return two ? conv2d(x, weight, bias, o.stride(), p, o.dilation(), o.groups())
               : conv1d(x, weight, bias, o.stride(), p, o.dilation(), o.groups());
  }
  const Shape& p = std::get<Shape>(o.padding());
  return two ? conv2d(x, weight, bias, o.stride(), p, o.dilation(), o.groups())
             : conv1d(x, weight, bias, o.stride(), p, o.dilation(), o.groups());
}

std::string ConvNd::extra_repr() const {
  const ConvOptions& o = options;
  std::string s = str_cat(o.in_channels(), ", ", o.out_channels(), ", kernel_size=", tuple_str(o.kernel_size()),
                          ", stride=", tuple_str(o.stride()));
  if (const auto* padding_string = std::get_if<std::string>(&o.padding())) {
    s += ", padding=" + *padding_string;
  } else {
    const Shape& padding = std::get<Shape>(o.padding());
    if (padding != Shape(padding.size(), 0)) s += ", padding=" + tuple_str(padding);
  }
  if (o.dilation() != Shape(o.dilation().size(), 1)) s += ", dilation=" + tuple_str(o.dilation());
  if (o.groups() != 1) s += str_cat(", groups=", o.groups());
  if (!bias.defined()) s += ", bias=False";
  return s;
}

}  // namespace seqlab::nn

namespace seqlab::nn {

namespace {

// The transposed convolution's options with one value per spatial dim, checked with torch.nn's words.
ConvTransposeOptions per_dim(const ConvTransposeOptions& o, size_t dims, const char* name) {
  ConvTransposeOptions e = o;
  const auto expand = [dims](const Shape& v) { return v.size() == 1 ? Shape(dims, v[0]) : v; };
  e.kernel_size(expand(o.kernel_size())).stride(expand(o.stride())).dilation(expand(o.dilation()));
  e.padding(expand(o.padding())).output_padding(expand(o.output_padding()));
  const int64_t g = o.groups();
  SEQLAB_CHECK_VALUE(o.padding_mode() == "zeros", "Only \"zeros\" padding mode is supported for ", name);
  SEQLAB_CHECK_VALUE(g > 0, "groups must be a positive integer");
  SEQLAB_CHECK_VALUE(o.in_channels() % g == 0, "in_channels must be divisible by groups");
  SEQLAB_CHECK_VALUE(o.out_channels() % g == 0, "out_channels must be divisible by groups");
  for (const Shape* v : {&e.kernel_size(), &e.stride(), &e.dilation(), &e.padding(), &e.output_padding()})
    SEQLAB_CHECK_VALUE(v->size() == dims, name, ": expected ", dims, " values per argument, got ", shape_str(*v));
  return e;
}

}  // namespace

ConvTransposeNd::ConvTransposeNd(const char* name, size_t dims, const ConvTransposeOptions& options_)
    : UnaryModule(name), options(per_dim(options_, dims, name)) {
  const int64_t out = options.out_channels();
  Shape w_shape{options.in_channels(), out / options.groups()};
  w_shape.insert(w_shape.end(), options.kernel_size().begin(), options.kernel_size().end());
  weight = register_parameter("weight", Tensor::empty(w_shape, options.dtype()));
  if (options.bias()) bias = register_parameter("bias", Tensor::empty({out}, options.dtype()));
  reset_parameters();
}

void ConvTransposeNd::reset_parameters() {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const int64_t fan_in = init::calculate_fan_in_and_fan_out(weight).first;
    if (fan_in != 0) init::uniform_(bias, -1.0 / std::sqrt(double(fan_in)), 1.0 / std::sqrt(double(fan_in)));
  }
}

Tensor ConvTransposeNd::forward(const Tensor& x) {
  const ConvTransposeOptions& o = options;
  return o.kernel_size().size() == 2
             ? conv_transpose2d(x, weight, bias, o.stride(), o.padding(), o.output_padding(), o.groups(), o.dilation())
             : conv_transpose1d(x, weight, bias, o.stride(), o.padding(), o.output_padding(), o.groups(), o.dilation());
}

std::string ConvTransposeNd::extra_repr() const {
  const ConvTransposeOptions& o = options;
  std::string s = str_cat(o.in_channels(), ", ", o.out_channels(), ", kernel_size=", tuple_str(o.kernel_size()),
                          ", stride=", tuple_str(o.stride()));
  if (o.padding() != Shape(o.padding().size(), 0)) s += ", padding=" + tuple_str(o.padding());
  if (o.dilation() != Shape(o.dilation().size(), 1)) s += ", dilation=" + tuple_str(o.dilation());
  if (o.output_padding() != Shape(o.output_padding().size(), 0))
    s += ", output_padding=" + tuple_str(o.output_padding());
  if (o.groups() != 1) s += str_cat(", groups=", o.groups());
  if (!bias.defined()) s += ", bias=False";
  return s;
}

}  // namespace seqlab::nn
