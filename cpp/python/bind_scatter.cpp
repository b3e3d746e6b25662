// The scatter family (cpp/src/ops/scatter.cpp), each bound as seqlab.NAME(input, ...) and
// Tensor.NAME(...), the in-place forms as Tensor methods, with torch's argument names and its
// two scatter overloads (src a tensor, or value a number). Tests: tests/test_scatter.py.
#include "bind_common.hpp"

namespace seqlab::bind {
namespace {

// torch warns once per process (TORCH_WARN_ONCE) for these two.
void warn_once(bool& warned, const char* message) {
  if (warned) return;
  warned = true;
  if (PyErr_WarnEx(PyExc_UserWarning, message, 1) < 0) throw py::error_already_set();
}
bool warned_scatter_reduce = false, warned_index_reduce = false;

// scatter's reduce keyword: None, or 'add' / 'multiply' (checked by the op).
std::string reduce_arg(const std::optional<std::string>& reduce, bool with_src) {
  if (!reduce) return "";
  if (with_src)
    warn_once(warned_scatter_reduce,
              "The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in a future "
              "PyTorch release. Use torch.scatter_reduce instead for more reduction options.");
  return *reduce;
}

// A number stored into self (the op checks that it fits self's dtype).
double value_arg(const py::handle& value, const char* op) { return number_arg(value, op, "value"); }

const char* const kScatterDoc =
    "out = input with out[index[i][j]][j] = src[i][j] for dim=0 (out[i][index[i][j]] = src[i][j] for dim=1, and\n"
    "likewise for other dims); src may be a number `value`. reduce='add' or 'multiply' combines instead of\n"
    "writing (deprecated in torch, no gradient). index is int64 or int32 with input's number of dims\n"
    "(torch.scatter).";
const char* const kScatterReduceDoc =
    "out = input with every src[i][j] reduced into out[index[i][j]][j] for dim=0 (and likewise for other dims);\n"
    "reduce is 'sum', 'prod', 'mean', 'amax' or 'amin', and input's own value takes part when include_self\n"
    "(torch.scatter_reduce). amax/amin split the gradient equally among tied values.";

}  // namespace

void bind_scatter(py::module_& m) {
  auto cls = py::reinterpret_borrow<TensorClass>(m.attr("Tensor"));

  // ------------------------------------------------------------ scatter: src a tensor, or value a number
  both(m, cls, "scatter", [](const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src,
                             const std::optional<std::string>& reduce) {
    const std::string r = reduce_arg(reduce, true);
    return released([&] { return scatter(x, dim, index, src, r); });
  }, py::arg("dim"), py::arg("index"), py::arg("src"), py::kw_only(), py::arg("reduce") = py::none(), kScatterDoc);
  both(m, cls, "scatter", [](const Tensor& x, int64_t dim, const Tensor& index, py::handle value,
                             const std::optional<std::string>& reduce) {
    const double v = value_arg(value, "scatter");
    const std::string r = reduce_arg(reduce, false);
    return released([&] { return scatter(x, dim, index, v, r); });
  }, py::arg("dim"), py::arg("index"), py::arg("value"), py::kw_only(), py::arg("reduce") = py::none(), kScatterDoc);
  def_op(cls, "scatter_", [](Tensor& x, int64_t dim, const Tensor& index, const Tensor& src,
                         const std::optional<std::string>& reduce) -> Tensor {
    const std::string r = reduce_arg(reduce, true);
    return released([&]() -> Tensor { return scatter_(x, dim, index, src, r); });
  }, py::arg("dim"), py::arg("index"), py::arg("src"), py::kw_only(), py::arg("reduce") = py::none(),
          "In place: self[index[i][j]][j] = src[i][j] for dim=0 (or the number value; reduce='add' or 'multiply'\n"
          "combines); returns self (Tensor.scatter_).");
  def_op(cls, "scatter_", [](Tensor& x, int64_t dim, const Tensor& index, py::handle value,
                         const std::optional<std::string>& reduce) -> Tensor {
    const double v = value_arg(value, "scatter_");
    const std::string r = reduce_arg(reduce, false);
    return released([&]() -> Tensor { return scatter_(x, dim, index, v, r); });
  }, py::arg("dim"), py::arg("index"), py::arg("value"), py::kw_only(), py::arg("reduce") = py::none(),
          "In place: self[index[i][j]][j] = value for dim=0 (and likewise for other dims); returns self.");

  // ------------------------------------------------------------ scatter_add, scatter_reduce
  both(m, cls, "scatter_add", [](const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src) {
    return scatter_add(x, dim, index, src);
  }, py::arg("dim"), py::arg("index"), py::arg("src"), Release(),
       "out = input with out[index[i][j]][j] += src[i][j] for dim=0 (and likewise for other dims); duplicate\n"
       "indices accumulate (torch.scatter_add).");
  def_op(cls, "scatter_add_", [](Tensor& x, int64_t dim, const Tensor& index, const Tensor& src) -> Tensor {
    return scatter_add_(x, dim, index, src);
  }, py::arg("dim"), py::arg("index"), py::arg("src"), Release(),
          "In place: self[index[i][j]][j] += src[i][j] for dim=0 (and likewise for other dims); returns self.");
  both(m, cls, "scatter_reduce", [](const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src,
                                    const std::string& reduce, bool include_self) {
    return scatter_reduce(x, dim, index, src, reduce, include_self);
  }, py::arg("dim"), py::arg("index"), py::arg("src"), py::arg("reduce"), py::kw_only(),
       py::arg("include_self") = true, Release(), kScatterReduceDoc);
  def_op(cls, "scatter_reduce_", [](Tensor& x, int64_t dim, const Tensor& index, const Tensor& src,
                                const std::string& reduce, bool include_self) -> Tensor {
    return scatter_reduce_(x, dim, index, src, reduce, include_self);
  }, py::arg("dim"), py::arg("index"), py::arg("src"), py::arg("reduce"), py::kw_only(),
          py::arg("include_self") = true, Release(), "In place scatter_reduce; returns self (Tensor.scatter_reduce_).");

  // ------------------------------------------------------------ index_add, index_copy, index_reduce
  both(m, cls, "index_add", [](const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source,
                               py::handle alpha) {
    const double a = number_arg(alpha, "index_add", "alpha");
    return released([&] { return index_add(x, dim, index, source, a); });
  }, py::arg("dim"), py::arg("index"), py::arg("source"), py::kw_only(), py::arg("alpha") = 1,
       "out = input with out[..., index[i], ...] += alpha * source[..., i, ...] along dim; index is 1-d (int64 or\n"
       "int32), duplicates accumulate (torch.index_add).");
  def_op(cls, "index_add_", [](Tensor& x, int64_t dim, const Tensor& index, const Tensor& source,
                           py::handle alpha) -> Tensor {
    const double a = number_arg(alpha, "index_add_", "alpha");
    return released([&]() -> Tensor { return index_add_(x, dim, index, source, a); });
  }, py::arg("dim"), py::arg("index"), py::arg("source"), py::kw_only(), py::arg("alpha") = 1,
          "In place: self[..., index[i], ...] += alpha * source[..., i, ...] along dim; returns self.");
  both(m, cls, "index_copy", [](const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source) {
    return index_copy(x, dim, index, source);
  }, py::arg("dim"), py::arg("index"), py::arg("source"), Release(),
       "out = input with out[..., index[i], ...] = source[..., i, ...] along dim; index is 1-d int64\n"
       "(torch.index_copy).");
  def_op(cls, "index_copy_", [](Tensor& x, int64_t dim, const Tensor& index, const Tensor& source) -> Tensor {
    return index_copy_(x, dim, index, source);
  }, py::arg("dim"), py::arg("index"), py::arg("source"), Release(),
          "In place: self[..., index[i], ...] = source[..., i, ...] along dim; returns self.");
  both(m, cls, "index_reduce", [](const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source,
                                  const std::string& reduce, bool include_self) {
    warn_once(warned_index_reduce, "index_reduce() is in beta and the API may change at any time.");
    return released([&] { return index_reduce(x, dim, index, source, reduce, include_self); });
  }, py::arg("dim"), py::arg("index"), py::arg("source"), py::arg("reduce"), py::kw_only(),
       py::arg("include_self") = true,
       "out = input with every source[..., i, ...] reduced into out[..., index[i], ...] along dim; reduce is\n"
       "'prod', 'mean', 'amax' or 'amin', input's own value taking part when include_self (torch.index_reduce).");
  def_op(cls, "index_reduce_", [](Tensor& x, int64_t dim, const Tensor& index, const Tensor& source,
                              const std::string& reduce, bool include_self) -> Tensor {
    warn_once(warned_index_reduce, "index_reduce() is in beta and the API may change at any time.");
    return released([&]() -> Tensor { return index_reduce_(x, dim, index, source, reduce, include_self); });
  }, py::arg("dim"), py::arg("index"), py::arg("source"), py::arg("reduce"), py::kw_only(),
          py::arg("include_self") = true, "In place index_reduce; returns self (Tensor.index_reduce_).");
}

}  // namespace seqlab::bind
