// torch.ctc_loss and the core of F.ctc_loss (cpp/src/ops/ctc_loss.cpp): the lengths are tensors or
// tuples of ints, both of one kind, as torch's two overloads; reduction is torch's enum (0 none,
// 1 mean, 2 sum). Tests: tests/test_ctc_loss.py.
#include "bind_common.hpp"
#include "seqlab/ops/ctc_loss.hpp"

namespace seqlab::bind {

namespace {

// A lengths argument: an integer tensor (any shape, read in order) or a sequence of ints.
std::vector<int64_t> lengths_arg(py::handle o, const char* arg) {
  if (py::isinstance<TensorImpl>(o)) {
    const Tensor t = o.cast<Tensor>();
    SEQLAB_CHECK(is_integral(t.dtype()), arg, " must be integral");
    const Tensor flat = contiguous(to_dtype(reshape(t.detach(), {t.numel()}), Dtype::Int64));
    const int64_t* p = flat.data<int64_t>();
    return std::vector<int64_t>(p, p + flat.numel());
  }
  if (PyUnicode_Check(o.ptr()) || !PySequence_Check(o.ptr()))
    throw py::type_error(str_cat("ctc_loss(): argument '", arg, "' must be tuple of ints or Tensor, not ",
                                 type_name(o)));
  std::vector<int64_t> out;
  for (const py::handle v : py::reinterpret_borrow<py::sequence>(o)) out.push_back(int_arg(v, "ctc_loss", arg));
  return out;
}

Reduction reduction_enum(int64_t r) {
  SEQLAB_CHECK_VALUE(r >= 0 && r <= 2, "ctc_loss: reduction must be 0 (none), 1 (mean) or 2 (sum), got ", r);
  return r == 0 ? Reduction::None : r == 1 ? Reduction::Mean : Reduction::Sum;
}

}  // namespace

void bind_ctc(py::module_& m) {
  // torch.ctc_loss's reduction reads as 0 (none) when left out, though its signature names Mean.
  def_op(m, "ctc_loss", [](const Tensor& log_probs, const Tensor& targets, py::handle input_lengths,
                       py::handle target_lengths, int64_t blank, int64_t reduction, bool zero_infinity) {
    const bool tensors = py::isinstance<TensorImpl>(input_lengths);
    if (tensors != py::isinstance<TensorImpl>(target_lengths))
      throw py::type_error(str_cat("ctc_loss() received an invalid combination of arguments - got input_lengths of "
                                   "type ", type_name(input_lengths), " and target_lengths of type ",
                                   type_name(target_lengths), ", but expected both Tensors or both tuples of ints"));
    const std::vector<int64_t> il = lengths_arg(input_lengths, "input_lengths");
    const std::vector<int64_t> tl = lengths_arg(target_lengths, "target_lengths");
    const Reduction red = reduction_enum(reduction);
    return released([&] { return ctc_loss(log_probs, targets, il, tl, blank, red, zero_infinity); });
  }, py::arg("log_probs"), py::arg("targets"), py::arg("input_lengths"), py::arg("target_lengths"),
        py::arg("blank") = 0, py::arg("reduction") = 0, py::arg("zero_infinity") = false,
        "The connectionist temporal classification loss (Graves et al. 2006) of log_probs (T, N, C) or (T, C)\n"
        "against targets (N, S) padded or (sum(target_lengths)) concatenated: -log of the summed probability of\n"
        "every alignment (blanks, repeats) of each target to its first input_lengths[n] steps, computed by\n"
        "the forward-backward recursions in log space. reduction is torch's enum: 0 per-sample losses,\n"
        "1 the mean of loss_n / max(target_lengths[n], 1), 2 the sum; zero_infinity zeroes infinite losses\n"
        "(impossible alignments) and their gradients (torch.ctc_loss).");
}

}  // namespace seqlab::bind
