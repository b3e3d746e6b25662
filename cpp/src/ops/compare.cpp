// Comparisons (eq ne lt le gt ge, every dtype, torch's promotion) and the logical ops; bool
// results, no gradient. Tests: tests/test_elementwise.py.
#include "elementwise_impl.hpp"
#include "seqlab/ops/shape.hpp"

namespace seqlab {

// ---------------------------------------------------------------- comparisons, logic
Tensor compare(const Tensor& a_, const Tensor& b_, CompareOp op) {
  static const char* names[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  const char* name = names[static_cast<int>(op)];
  Shape shape = broadcast_shapes(a_.shape(), b_.shape(), name);
  const Dtype d = result_type(a_, b_);
  const Tensor a = a_.dtype() == d ? a_ : to_dtype(a_, d), b = b_.dtype() == d ? b_ : to_dtype(b_, d);
  Tensor out = Tensor::empty(shape, Dtype::Bool);
  dispatch_all(d, [&](auto tag) {
    using T = decltype(tag);
    switch (op) {
      case CompareOp::Eq: binary_kernel<T, bool>(out, a, b, [](T x, T y) { return x == y; }); break;
      case CompareOp::Ne: binary_kernel<T, bool>(out, a, b, [](T x, T y) { return x != y; }); break;
      case CompareOp::Lt: binary_kernel<T, bool>(out, a, b, [](T x, T y) { return x < y; }); break;
      case CompareOp::Le: binary_kernel<T, bool>(out, a, b, [](T x, T y) { return x <= y; }); break;
      case CompareOp::Gt: binary_kernel<T, bool>(out, a, b, [](T x, T y) { return x > y; }); break;
      case CompareOp::Ge: binary_kernel<T, bool>(out, a, b, [](T x, T y) { return x >= y; }); break;
    }
  });
  return out;
}

static Tensor as_bool(const Tensor& t) { return t.dtype() == Dtype::Bool ? t : compare(t, scalar_tensor(0, t.dtype()), CompareOp::Ne); }

template <typename F>
static Tensor logical(const Tensor& a_, const Tensor& b_, const char* name, F f) {
  const Tensor a = as_bool(a_), b = as_bool(b_);
  Tensor out = Tensor::empty(broadcast_shapes(a.shape(), b.shape(), name), Dtype::Bool);
  binary_kernel<bool, bool>(out, a, b, f);
  return out;
}
Tensor logical_and(const Tensor& a, const Tensor& b) { return logical(a, b, "logical_and", [](bool x, bool y) { return x && y; }); }
Tensor logical_or(const Tensor& a, const Tensor& b) { return logical(a, b, "logical_or", [](bool x, bool y) { return x || y; }); }
Tensor logical_xor(const Tensor& a, const Tensor& b) { return logical(a, b, "logical_xor", [](bool x, bool y) { return x != y; }); }
Tensor logical_not(const Tensor& a_) {
  const Tensor a = as_bool(a_);
  Tensor out = Tensor::empty(a.shape(), Dtype::Bool);
  unary_kernel<bool, bool>(out, a, [](bool x) { return !x; });
  return out;
}
}  // namespace seqlab
