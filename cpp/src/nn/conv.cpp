// Conv1d and Conv2d for C++ users (the twins of python/seqlab/nn/conv.py): parameters under torch's
// names, torch's initialisation and repr; the computation is ops/conv.hpp's functional.
#include "seqlab/nn/conv.hpp"

#include <cmath>

#include "seqlab/check.hpp"
#include "seqlab/nn/init.hpp"
#include "seqlab/ops/conv.hpp"

namespace seqlab::nn {

namespace {
// One value per spatial dim (torch's _single / _pair).
Shape per_dim(const Shape& v, size_t dims) { return v.size() == 1 ? Shape(dims, v[0]) : v; }

// "(5, 5)", "(3,)": a Python tuple, as torch's repr prints it.
std::string tuple_str(const Shape& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}
}  // namespace

ConvNd::ConvNd(const char* name, size_t dims, int64_t in, int64_t out, const Shape& k, const Shape& s, const Shape& p,
               const std::string& ps, const Shape& d, int64_t g, bool with_bias, Dtype dtype)
    : UnaryModule(name), in_channels(in), out_channels(out), kernel_size(per_dim(k, dims)), stride(per_dim(s, dims)),
      padding(per_dim(p, dims)), dilation(per_dim(d, dims)), padding_string(ps), groups(g) {
  // torch.nn's checks, in its words
  SEQLAB_CHECK_VALUE(g > 0, "groups must be a positive integer");
  SEQLAB_CHECK_VALUE(in % g == 0, "in_channels must be divisible by groups");
  SEQLAB_CHECK_VALUE(out % g == 0, "out_channels must be divisible by groups");
  SEQLAB_CHECK_VALUE(ps.empty() || ps == "same" || ps == "valid", "Invalid padding string '", ps,
                     "', should be one of {'valid', 'same'}");
  for (int64_t v : stride)
    SEQLAB_CHECK_VALUE(ps != "same" || v == 1, "padding='same' is not supported for strided convolutions");
  for (const Shape* v : {&kernel_size, &stride, &padding, &dilation})
    SEQLAB_CHECK_VALUE(v->size() == dims, name, ": expected ", dims, " values per argument, got ", shape_str(*v));
  Shape w_shape{out, in / g};
  w_shape.insert(w_shape.end(), kernel_size.begin(), kernel_size.end());
  weight = register_parameter("weight", Tensor::empty(w_shape, dtype));
  if (with_bias) bias = register_parameter("bias", Tensor::empty({out}, dtype));
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
  const bool two = kernel_size.size() == 2;
  if (!padding_string.empty()) {
    const ConvPadding p = conv_padding(padding_string, name().c_str());
    return two ? conv2d(x, weight, bias, stride, p, dilation, groups)
               : conv1d(x, weight, bias, stride, p, dilation, groups);
  }
  return two ? conv2d(x, weight, bias, stride, padding, dilation, groups)
             : conv1d(x, weight, bias, stride, padding, dilation, groups);
}

std::string ConvNd::extra_repr() const {
  std::string s = str_cat(in_channels, ", ", out_channels, ", kernel_size=", tuple_str(kernel_size),
                          ", stride=", tuple_str(stride));
  if (!padding_string.empty())
    s += ", padding=" + padding_string;
  else if (padding != Shape(padding.size(), 0))
    s += ", padding=" + tuple_str(padding);
  if (dilation != Shape(dilation.size(), 1)) s += ", dilation=" + tuple_str(dilation);
  if (groups != 1) s += str_cat(", groups=", groups);
  if (!bias.defined()) s += ", bias=False";
  return s;
}

}  // namespace seqlab::nn
