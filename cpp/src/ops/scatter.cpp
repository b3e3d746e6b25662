// The scatter family: scatter (src or value; reduce='add'|'multiply'), scatter_add, scatter_reduce,
// index_add, index_copy, index_reduce and their in-place forms, as torch 2.13's Tensor.scatter_,
// scatter_reduce_, index_add_, index_copy_, index_reduce_ pages. Tests: tests/test_scatter.py.
//
// One kernel walks the index: its element e at coordinates (i, j, k) sends src[i][j][k] to
// out[i][index[i][j][k]][k] (dim = 1). The index_* ops are the same walk with their 1-d index
// broadcast along source (index[j] at every source[..., j, ...]), so they share the kernel and
// the backward: index_select(g, dim, index) is gather(g, dim, that broadcast index).
#include "seqlab/ops/scatter.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernel_utils.hpp"
#include "seqlab/ops/creation.hpp"
#include "seqlab/ops/elementwise.hpp"
#include "seqlab/ops/index.hpp"
#include "seqlab/ops/shape.hpp"

namespace seqlab {

namespace {

// How a scattered value meets the one already there. Mean sums, then divides by the count.
enum class Mode { Assign, Sum, Prod, Mean, Amax, Amin };

// scatter_reduce's names ('max' and 'min' are accepted by torch's forward as amax and amin).
Mode reduce_mode(const std::string& reduce) {
  if (reduce == "sum") return Mode::Sum;
  if (reduce == "prod") return Mode::Prod;
  if (reduce == "mean") return Mode::Mean;
  if (reduce == "amax" || reduce == "max") return Mode::Amax;
  if (reduce == "amin" || reduce == "min") return Mode::Amin;
  SEQLAB_CHECK(false, "reduce argument must be either sum, prod, mean, amax or amin, got ", reduce);
  return Mode::Sum;
}

// scatter(..., reduce=): only 'add' and 'multiply'.
Mode legacy_mode(const std::string& reduce) {
  SEQLAB_CHECK(reduce == "add" || reduce == "multiply", "reduce argument must be either add or multiply.");
  return reduce == "add" ? Mode::Sum : Mode::Prod;
}

// torch reads a 0-d tensor as one of size 1 in these rules (ensure_nonempty_dim / _size).
int64_t nonempty_dim(const Tensor& t) { return std::max<int64_t>(t.dim(), 1); }
int64_t nonempty_size(const Tensor& t, int64_t d) { return t.dim() == 0 ? 1 : t.shape()[d]; }

Tensor index_as_int64(const Tensor& index) {
  const Tensor i = index.dtype() == Dtype::Int64 ? index.detach() : to_dtype(index.detach(), Dtype::Int64);
  return i.dim() == 0 ? reshape(i, {1}) : i;  // the kernel and gather read a 0-d index as [1]
}

// Two tensors an in-place op reads and writes must not share memory (torch's assert_no_overlap):
// the result would depend on the order of the walk.
void check_no_overlap(const Tensor& self, const Tensor& other, const char* op) {
  if (!other.defined() || self.numel() == 0 || other.numel() == 0) return;
  if (self.impl()->storage != other.impl()->storage) return;
  auto extent = [](const Tensor& t) {
    int64_t lo = t.offset(), hi = t.offset();
    for (int64_t d = 0; d < t.dim(); ++d) (t.strides()[d] < 0 ? lo : hi) += (t.shape()[d] - 1) * t.strides()[d];
    return std::pair<int64_t, int64_t>{lo * static_cast<int64_t>(itemsize(t.dtype())),
                                       (hi + 1) * static_cast<int64_t>(itemsize(t.dtype()))};
  };
  const auto [a0, a1] = extent(self);
  const auto [b0, b1] = extent(other);
  SEQLAB_CHECK(a1 <= b0 || b1 <= a0, op, ": unsupported operation: some elements of the input tensor and the "
               "written-to tensor refer to a single memory location. Please clone() the tensor before performing "
               "the operation.");
}

// torch's rules for scatter, scatter_add and scatter_reduce (its ScatterGatherChecks): an int64 or
// int32 index, src of self's dtype; an empty index needs nothing more; otherwise index, self and
// src have the same number of dims, index.size(d) <= self.size(d) for d != dim and <= src.size(d)
// for every d; each index in [0, self.size(dim)), negative ones refused. Checked before any write.
void check_scatter(const char* op, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  SEQLAB_CHECK(index.numel() == 0 || index.dtype() == Dtype::Int64 || index.dtype() == Dtype::Int32,
               "scatter(): Expected dtype int32/int64 for index (", op, ": got ", dtype_name(index.dtype()), ")");
  SEQLAB_CHECK(!src.defined() || src.dtype() == self.dtype(), "scatter(): Expected self.dtype to be equal to src.dtype (",
               op, ": got ", dtype_name(self.dtype()), " and ", dtype_name(src.dtype()), ")");
  if (index.numel() == 0) return;
  const int64_t nd = nonempty_dim(self);
  SEQLAB_CHECK(nd == nonempty_dim(index), op, "(): Index tensor must have the same number of dimensions as self tensor (self ",
               shape_str(self.shape()), ", index ", shape_str(index.shape()), ")");
  bool fits = true;
  for (int64_t d = 0; d < nd && fits; ++d) fits = d == dim || nonempty_size(index, d) <= nonempty_size(self, d);
  for (int64_t d = 0; src.defined() && d < nd && fits; ++d) {
    // torch reads src.size(d) before comparing the dims: a src with fewer dims is its IndexError
    SEQLAB_CHECK_INDEX(src.dim() == 0 || d < src.dim(), "Dimension out of range (expected to be in range of [",
                       -src.dim(), ", ", src.dim() - 1, "], but got ", d, ") (", op, ": src ", shape_str(src.shape()),
                       ", index ", shape_str(index.shape()), ")");
    fits = nonempty_size(index, d) <= nonempty_size(src, d);
  }
  if (src.defined()) {
    SEQLAB_CHECK(nonempty_dim(src) == nonempty_dim(index), op,
                 "(): Index tensor must have the same number of dimensions as src tensor (index ",
                 shape_str(index.shape()), ", src ", shape_str(src.shape()), ")");
    SEQLAB_CHECK(fits, op, "(): Expected index ", shape_str(index.shape()), " to be no larger than self ",
                 shape_str(self.shape()), " apart from dimension ", dim, " and to be no larger size than src ",
                 shape_str(src.shape()));
  }
  SEQLAB_CHECK(fits, op, "(): Expected index ", shape_str(index.shape()), " to be no larger than self ",
               shape_str(self.shape()), " apart from dimension ", dim);
}

// Every index in [0, size): `index_error` makes the refusal an IndexError (index_copy, index_reduce).
void check_bounds(const char* op, const Tensor& index, int64_t size, int64_t dim, bool index_error = false,
                  const char* message = nullptr) {
  const Tensor idx = contiguous_copy_if_needed(index);
  const int64_t* p = idx.data<int64_t>();
  for (int64_t i = 0; i < idx.numel(); ++i) {
    if (p[i] >= 0 && p[i] < size) continue;
    const std::string what = message ? std::string(message)
                                     : str_cat(op, "(): index ", p[i], " is out of bounds for dimension ", dim,
                                               " with size ", size);
    if (index_error) throw std::out_of_range(what);
    throw std::runtime_error(what);
  }
}

// The reduction's identity, written first where include_self=False (torch does the same).
template <typename T>
T identity(Mode mode) {
  switch (mode) {
    case Mode::Prod: return T(1);
    case Mode::Amax: return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                                  : std::numeric_limits<T>::lowest();
    case Mode::Amin: return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                                  : std::numeric_limits<T>::max();
    default: return T(0);
  }
}

// a (already there) combined with b (scattered). amax/amin propagate NaN from either side, as torch.
template <typename T>
T combine(Mode mode, T a, T b) {
  switch (mode) {
    case Mode::Assign: return b;
    case Mode::Sum:
    case Mode::Mean: return wrap_add(a, b);
    case Mode::Prod: return wrap_mul(a, b);
    case Mode::Amax:
      if constexpr (std::is_floating_point_v<T>) if (std::isnan(b)) return b;
      return std::max(a, b);  // a NaN a stays
    case Mode::Amin:
      if constexpr (std::is_floating_point_v<T>) if (std::isnan(b)) return b;
      return std::min(a, b);
  }
  return b;
}

// out[..., index[e], ...] = combine(out[...], src[e]) for every element e of index, in index's
// order (the last of duplicates wins for Assign). Any strides; a 0-d out or src is one element.
// visit(out_offset) is called after each write (Mean counts with it).
template <typename T, typename Visit>
void scatter_walk(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src, T value, Mode mode,
                  Visit visit) {
  const int64_t nd = index.dim();  // >= 1 (index_as_int64)
  const Shape zeros_st(nd, 0);
  const Shape& ost = out.dim() == 0 ? zeros_st : out.strides();
  const Shape& sst = !src.defined() || src.dim() == 0 ? zeros_st : src.strides();
  T* po = static_cast<T*>(out.raw_data());
  const T* ps = src.defined() ? static_cast<const T*>(src.raw_data()) : nullptr;
  const int64_t* pi = static_cast<const int64_t*>(index.raw_data());
  std::vector<int64_t> pos(nd, 0);
  for (int64_t e = 0; e < index.numel(); ++e) {
    int64_t ioff = 0, soff = 0, ooff = 0;
    for (int64_t d = 0; d < nd; ++d) {
      ioff += pos[d] * index.strides()[d];
      soff += pos[d] * sst[d];
      if (d != dim) ooff += pos[d] * ost[d];
    }
    ooff += pi[ioff] * ost[dim];  // pi[ioff] in [0, size): checked before
    po[ooff] = combine(mode, po[ooff], ps ? ps[soff] : value);
    visit(ooff);
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (++pos[d] < index.shape()[d]) break;
      pos[d] = 0;
    }
  }
}

// Write src (or value) into `out` (any strides) along dim at index: the forward of every op here.
// index is int64, at least 1-d and checked; src has out's dtype or is undefined.
void scatter_into(const Tensor& out, int64_t dim, const Tensor& index, const Tensor& src, double value, Mode mode,
                  bool include_self) {
  if (index.numel() == 0) return;
  if (mode == Mode::Mean) {
    SEQLAB_CHECK_IMPL(out.dtype() != Dtype::Bool, "\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'");
    if (!out.is_contiguous()) {  // the counts are kept per element of a contiguous result
      Tensor tmp = contiguous_copy(out);
      scatter_into(tmp, dim, index, src, value, mode, include_self);
      copy_kernel(out, tmp);
      return;
    }
  }
  dispatch_all(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if (mode != Mode::Assign && !include_self)
      scatter_walk<T>(out, dim, index, Tensor(), identity<T>(mode), Mode::Assign, [](int64_t) {});
    if (mode != Mode::Mean) {
      scatter_walk<T>(out, dim, index, src, convert<T>(value), mode, [](int64_t) {});
      return;
    }
    // mean = (self if include_self) + the values scattered, over their count; integers floor.
    std::vector<int64_t> count(out.numel(), include_self ? 1 : 0);
    scatter_walk<T>(out, dim, index, src, convert<T>(value), mode, [&](int64_t off) { ++count[off]; });
    T* po = static_cast<T*>(out.raw_data());
    for (int64_t i = 0; i < out.numel(); ++i) {
      const int64_t c = std::max<int64_t>(count[i], 1);
      if constexpr (std::is_floating_point_v<T>) {
        po[i] = po[i] / static_cast<T>(c);
      } else if constexpr (!std::is_same_v<T, bool>) {
        const int64_t a = static_cast<int64_t>(po[i]);
        int64_t q = a / c;
        if (a % c != 0 && a < 0) --q;
        po[i] = static_cast<T>(q);
      }
    }
  });
}

// The gradient for src, which gather gives in index's shape: src may be larger (torch allows
// index.size(d) <= src.size(d)); the elements never read get 0.
Tensor grad_to_src(const Tensor& gathered, const Shape& src_shape) {
  if (gathered.shape() == src_shape) return gathered;
  if (src_shape.empty()) return reshape(gathered, {});
  Tensor dsrc = zeros(src_shape, gathered.dtype());
  Tensor part = dsrc;
  for (int64_t d = 0; d < static_cast<int64_t>(src_shape.size()); ++d) part = narrow(part, d, 0, gathered.shape()[d]);
  copy_(part, gathered);
  return dsrc;
}

// src seen in index's shape (the part the walk reads).
Tensor src_as_read(const Tensor& src, const Tensor& index) {
  if (src.dim() == 0) return reshape(src, index.shape());  // index holds one element
  Tensor s = src;
  for (int64_t d = 0; d < src.dim(); ++d) s = narrow(s, d, 0, index.shape()[d]);
  return s;
}

Tensor eq(const Tensor& a, const Tensor& b) { return compare(a, b, CompareOp::Eq); }

// g with the scattered positions zeroed: the gradient of what the scatter overwrote.
Tensor zero_scattered(const Tensor& g, int64_t dim, const Tensor& index) {
  Tensor out = clone(g);
  scatter_into(out, dim, index, Tensor(), 0.0, Mode::Assign, true);
  return out;
}

Tensor reduced(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, Mode mode, bool include_self) {
  Tensor out = clone(self);
  scatter_into(out, dim, index, src, 0.0, mode, include_self);
  return out;
}

// The gradients of out = scatter_reduce(self, dim, index, src, mode, include_self) (torch's
// scatter_reduce_backward); s is src as read (index's shape), r the result.
//   sum:   dself = g,                      dsrc = gather(g)
//   mean:  N = (1 if include_self) + number of values scattered to each position (0 -> 1)
//          dself = g / N,                  dsrc = gather(g / N)
//   prod:  dself = g * r / self, with r / self taken as the product of the others where self == 0
//          dsrc  = gather(g * r) / src, or gather(g * (product of the others)) for the one zero
//          among the values of a position (with two or more zeros, every gradient there is 0)
//   amax, amin: the gradient is split equally among self and the values equal to the result
// and with include_self=False self's gradient is 0 wherever something was scattered.
std::pair<Tensor, Tensor> reduce_backward(const Tensor& g, const Tensor& self, int64_t dim, const Tensor& index,
                                          const Tensor& s, Mode mode, bool include_self, const Tensor& r) {
  const Dtype dt = g.dtype();  // self and s are undefined for sum (not saved)
  Tensor dself, dsrc;
  switch (mode) {
    case Mode::Sum:
      dself = g;
      dsrc = gather(g, dim, index);
      break;
    case Mode::Mean: {
      Tensor n = include_self ? ones_like(g) : zeros_like(g);
      scatter_into(n, dim, index, Tensor(), 1.0, Mode::Sum, true);
      n = masked_fill(n, eq(n, scalar_tensor(0.0, dt)), 1.0);
      dself = div(g, n);
      dsrc = div(gather(g, dim, index), gather(n, dim, index));
      break;
    }
    case Mode::Prod: {
      const Tensor zero = scalar_tensor(0.0, dt);
      const Tensor masked_self = masked_fill(self, eq(self, zero), 1.0);
      dself = div(mul(g, reduced(masked_self, dim, index, s, mode, include_self)), masked_self);
      const Tensor src_zero = eq(s, zero);
      Tensor zeros_at = zeros_like(self);
      scatter_into(zeros_at, dim, index, to_dtype(src_zero, dt), 0.0, Mode::Sum, true);
      const Tensor single_zero = logical_and(src_zero, eq(gather(zeros_at, dim, index), scalar_tensor(1.0, dt)));
      const Tensor others = reduced(self, dim, index, masked_fill(s, single_zero, 1.0), mode, include_self);
      dsrc = where(single_zero, gather(mul(g, others), dim, index),
                   div(gather(mul(g, r), dim, index), masked_fill(s, src_zero, 1.0)));
      break;
    }
    case Mode::Amax:
    case Mode::Amin: {
      const Tensor self_is = to_dtype(eq(self, r), dt);
      const Tensor src_is = to_dtype(eq(s, gather(r, dim, index)), dt);
      Tensor n = clone(self_is);
      scatter_into(n, dim, index, src_is, 0.0, Mode::Sum, true);
      const Tensor shared = div(g, n);
      dself = mul(self_is, shared);
      dsrc = mul(src_is, gather(shared, dim, index));
      break;
    }
    case Mode::Assign: break;
  }
  if (!include_self) dself = zero_scattered(dself, dim, index);
  return {dself, dsrc};
}

const char* reduce_node_name(Mode mode, bool index_op) {
  if (index_op) return mode == Mode::Sum ? "IndexAddBackward0" : "IndexReduceBackward0";
  return mode == Mode::Sum ? "ScatterAddBackward0" : "ScatterReduceBackward0";
}

// out = scatter_*(self, ...) with its node. index: int64, >= 1-d, checked. legacy: scatter's
// reduce='add'|'multiply', whose derivative torch does not implement.
Tensor scatter_forward(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, double value, Mode mode,
                       bool include_self, bool legacy = false, bool index_op = false,
                       const std::string& reduce_name = "") {
  Tensor out = clone(self.detach());
  scatter_into(out, dim, index, src.defined() ? src.detach() : src, value, mode, include_self);
  const TensorList inputs = src.defined() ? TensorList{self, src} : TensorList{self};
  if (!any_requires_grad(inputs)) return out;
  if (legacy) {
    attach(out, "ScatterBackward0", inputs, [](const Tensor&) -> TensorList {
      SEQLAB_CHECK(false, "derivative for aten::scatter is not implemented");
      return {};
    });
    return out;
  }
  if (index.numel() == 0) {  // nothing scattered: out = self.   dself = g,  dsrc = 0
    const char* name = index_op ? (mode == Mode::Assign ? "IndexCopyBackward0" : reduce_node_name(mode, true))
                                : mode == Mode::Assign ? "ScatterBackward0" : reduce_node_name(mode, false);
    attach(out, name, inputs, [sshape = src.defined() ? src.shape() : Shape{}, has_src = src.defined()](const Tensor& g) {
      return has_src ? TensorList{g, zeros(sshape, g.dtype())} : TensorList{g};
    });
    return out;
  }
  if (mode == Mode::Assign) {
    // out = self; out[..., index, ...] = src (or value).
    // dself = g with the scattered positions zeroed,  dsrc = gather(g, dim, index)
    const bool has_src = src.defined();
    attach(out, index_op ? "IndexCopyBackward0" : has_src ? "ScatterBackward0" : "ScatterBackward1", inputs,
           [dim, index, has_src, sshape = has_src ? src.shape() : Shape{}](const Tensor& g) -> TensorList {
             Tensor dself = zero_scattered(g, dim, index);
             if (!has_src) return {dself};
             return {dself, grad_to_src(gather(g, dim, index), sshape)};
           });
    return out;
  }
  if (mode == Mode::Sum && include_self) {
    // out = self + the values scattered.   dself = g,  dsrc = gather(g, dim, index)
    attach(out, reduce_node_name(mode, index_op), inputs, [dim, index, sshape = src.shape()](const Tensor& g) -> TensorList {
      return {g, grad_to_src(gather(g, dim, index), sshape)};
    });
    return out;
  }
  // The other reductions read self, src and the result (reduce_backward above).
  const bool need_values = mode != Mode::Sum;
  if (reduce_name == "max" || reduce_name == "min") {  // accepted by the forward only, as torch
    attach(out, "ScatterReduceBackward0", inputs, [reduce_name](const Tensor&) -> TensorList {
      SEQLAB_CHECK(false, "Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', 'amin' but got ", reduce_name, ".");
      return {};
    });
    return out;
  }
  attach(out, reduce_node_name(mode, index_op), inputs,
         [dim, index, mode, include_self, sshape = src.shape(), need_values,
          ss = need_values ? save(self) : SavedTensor(), sr = need_values ? save(src) : SavedTensor(),
          so = need_values ? save(out) : SavedTensor()](const Tensor& g) -> TensorList {
           const Tensor self_v = need_values ? ss.unpack() : Tensor();
           const Tensor src_v = need_values ? src_as_read(sr.unpack(), index) : Tensor();
           auto [dself, dsrc] = reduce_backward(g, self_v, dim, index, src_v, mode, include_self,
                                                need_values ? so.unpack() : Tensor());
           return {dself, grad_to_src(dsrc, sshape)};
         });
  return out;
}

// An in-place op: checked like torch's (a leaf that requires grad, read-only or self-overlapping
// memory, src or index sharing self's memory), then computed out of place and rebased when it
// joins the graph, else written straight into self.
template <typename Forward, typename Write>
Tensor& scatter_inplace(Tensor& self, const Tensor& index, const Tensor& src, const char* op, Forward forward,
                        Write write) {
  check_inplace(self, op);
  assert_no_internal_overlap(self, op);
  check_no_overlap(self, index, op);
  check_no_overlap(self, src, op);
  if (GradMode::is_enabled() && (self.requires_grad() || (src.defined() && src.requires_grad()))) {
    rebase_history(self, forward(clone(self)), op);
    return self;
  }
  write();
  self.bump_version();
  return self;
}

// scatter, scatter_add and scatter_reduce checked (check_scatter, check_bounds): the wrapped dim
// and the index as the kernel reads it (int64, at least 1-d).
struct ScatterArgs {
  int64_t dim;
  Tensor index;
};

ScatterArgs prepare_scatter(const char* op, const Tensor& self, int64_t dim_in, const Tensor& index,
                            const Tensor& src) {
  const int64_t dim = wrap_dim(dim_in, self.dim(), op);
  check_scatter(op, self, dim, index, src);
  if (index.numel() == 0) return {dim, Tensor::empty({0}, Dtype::Int64)};
  const Tensor idx = index_as_int64(index);
  check_bounds(op, idx, nonempty_size(self, dim), dim);
  return {dim, idx};
}

}  // namespace

// ------------------------------------------------------------------ scatter
// out = self; out[i][index[i][j]] = src[i][j]  (dim = 1)
// dself = g with the scattered positions zeroed,  dsrc = gather(g, dim, index)
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce) {
  const ScatterArgs a = prepare_scatter("scatter", self, dim, index, src);
  const Mode mode = reduce.empty() ? Mode::Assign : legacy_mode(reduce);
  return scatter_forward(self, a.dim, a.index, src, 0.0, mode, true, /*legacy=*/!reduce.empty());
}

Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, double value, const std::string& reduce) {
  const ScatterArgs a = prepare_scatter("scatter", self, dim, index, Tensor());
  const Mode mode = reduce.empty() ? Mode::Assign : legacy_mode(reduce);
  check_value_fits(value, self.dtype(), "scatter");
  return scatter_forward(self, a.dim, a.index, Tensor(), value, mode, true, /*legacy=*/!reduce.empty());
}

Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce) {
  return scatter_inplace(self, index, src, "scatter_",
      [&](const Tensor& s) { return scatter(s, dim, index, src, reduce); },
      [&] {
        const ScatterArgs a = prepare_scatter("scatter_", self, dim, index, src);
        scatter_into(self, a.dim, a.index, src, 0.0, reduce.empty() ? Mode::Assign : legacy_mode(reduce), true);
      });
}

Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, double value, const std::string& reduce) {
  return scatter_inplace(self, index, Tensor(), "scatter_",
      [&](const Tensor& s) { return scatter(s, dim, index, value, reduce); },
      [&] {
        const ScatterArgs a = prepare_scatter("scatter_", self, dim, index, Tensor());
        const Mode mode = reduce.empty() ? Mode::Assign : legacy_mode(reduce);
        check_value_fits(value, self.dtype(), "scatter_");
        scatter_into(self, a.dim, a.index, Tensor(), value, mode, true);
      });
}

// ------------------------------------------------------------------ scatter_add
// out = self; out[i][index[i][j]] += src[i][j]  (dim = 1)
// dself = g,  dsrc = gather(g, dim, index)
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  const ScatterArgs a = prepare_scatter("scatter_add", self, dim, index, src);
  return scatter_forward(self, a.dim, a.index, src, 0.0, Mode::Sum, true);
}

Tensor& scatter_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_inplace(self, index, src, "scatter_add_",
      [&](const Tensor& s) { return scatter_add(s, dim, index, src); },
      [&] {
        const ScatterArgs a = prepare_scatter("scatter_add_", self, dim, index, src);
        scatter_into(self, a.dim, a.index, src, 0.0, Mode::Sum, true);
      });
}

// ------------------------------------------------------------------ scatter_reduce
// out[p] = reduce({self[p] if include_self} ∪ {src[e] : e scattered to p}); unchanged where nothing
// is scattered. Gradients: reduce_backward above.
Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce,
                      bool include_self) {
  const ScatterArgs a = prepare_scatter("scatter_reduce", self, dim, index, src);
  const Mode mode = reduce_mode(reduce);
  return scatter_forward(self, a.dim, a.index, src, 0.0, mode, include_self, /*legacy=*/false, /*index_op=*/false, reduce);
}

Tensor& scatter_reduce_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce,
                        bool include_self) {
  return scatter_inplace(self, index, src, "scatter_reduce_",
      [&](const Tensor& s) { return scatter_reduce(s, dim, index, src, reduce, include_self); },
      [&] {
        const ScatterArgs a = prepare_scatter("scatter_reduce_", self, dim, index, src);
        scatter_into(self, a.dim, a.index, src, 0.0, reduce_mode(reduce), include_self);
      });
}

// ------------------------------------------------------------------ index_add, index_copy, index_reduce
namespace {

// The 1-d index of an index_* op broadcast along source: the scatter index with index[j] at
// every source[..., j, ...] (a stride-0 view, no copy). source is at least 1-d here.
Tensor broadcast_index(const Tensor& index, int64_t dim, const Shape& source_shape) {
  Shape s(source_shape.size(), 1);
  s[dim] = index.numel();
  return expand(reshape(index, s), source_shape);
}

// torch's shared checks of index_add and index_reduce (op "index_add_" / "index_reduce_").
void check_index_func(const char* op, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  SEQLAB_CHECK_INDEX(index.dim() <= 1, op, "(): Index is supposed to be a vector, but got dim: ", index.dim(),
                     " with type: ", scalar_type_name(index.dtype()), " and size: ", shape_str(index.shape()));
  SEQLAB_CHECK(index.dtype() == Dtype::Int64 || index.dtype() == Dtype::Int32, op,
               "(): Expected dtype int32/int64 for index but got: ", scalar_type_name(index.dtype()));
  SEQLAB_CHECK(self.dtype() == source.dtype(), op, "(): self (", scalar_type_name(self.dtype()), ") and source (",
               scalar_type_name(source.dtype()), ") must have the same scalar type");
  SEQLAB_CHECK(index.numel() == nonempty_size(source, dim), op, "(): Number of indices (", index.numel(),
               ") should be equal to source.size(dim): (", nonempty_size(source, dim), "), for dim: ", dim);
  Shape a = self.shape(), b = source.shape();
  if (self.dim() > 0 && source.dim() > 0) {
    a.erase(a.begin() + dim);
    b.erase(b.begin() + dim);
  }
  SEQLAB_CHECK(a == b, op, "(): source tensor shape must match self tensor shape, excluding the specified dimension. "
               "Got self.shape = ", shape_str(self.shape()), " source.shape = ", shape_str(source.shape()));
}

// index_* as a scatter: (the int64 index, bounds checked, broadcast along source; source at
// least 1-d). check(idx) refuses an index out of bounds in the op's words.
template <typename Check>
std::pair<Tensor, Tensor> as_scatter(const Tensor& index, int64_t dim, const Tensor& source, Check check) {
  const Tensor src = source.dim() == 0 ? reshape(source, {1}) : source;
  const Tensor idx = index.numel() == 0 ? Tensor::empty({0}, Dtype::Int64) : index_as_int64(index);
  check(idx);
  return {broadcast_index(idx, dim, src.shape()), src};
}

Mode index_reduce_mode(const std::string& reduce) {
  if (reduce == "prod") return Mode::Prod;
  if (reduce == "mean") return Mode::Mean;
  if (reduce == "amax") return Mode::Amax;
  if (reduce == "amin") return Mode::Amin;
  SEQLAB_CHECK(false, "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got ", reduce, ".");
  return Mode::Prod;
}

// index_copy's own checks (torch words them apart from index_add's).
void check_index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  SEQLAB_CHECK_INDEX(index.dim() < 2, "index_copy_(): Index should have dimension 1 or 0 (got ", index.dim(), ")");
  SEQLAB_CHECK_INDEX(self.dim() == 0 || source.dim() == 0 || self.dim() == source.dim(),
                     "index_copy_(): When source and destination are not scalars, their dimensionality must match. "
                     "Source dimensionality (", source.dim(), "), destination dimensionality (", self.dim(), ")");
  SEQLAB_CHECK(index.dtype() == Dtype::Int64, "index_copy_(): Expected a long tensor for index, but got ",
               scalar_type_name(index.dtype()));
  SEQLAB_CHECK(self.dtype() == source.dtype(), "index_copy_(): self and source expected to have the same dtype, but got "
               "(self) ", scalar_type_name(self.dtype()), " and (source) ", scalar_type_name(source.dtype()));
  SEQLAB_CHECK_INDEX(index.numel() == nonempty_size(source, dim), "index_copy_(): Number of indices (", index.numel(),
                     ") should be equal to source.size(dim) (", nonempty_size(source, dim), ")");
  if (self.dim() > 0 && source.dim() > 0) {
    Shape a = self.shape(), b = source.shape();
    a.erase(a.begin() + dim);
    b.erase(b.begin() + dim);
    auto join = [](const Shape& s) {
      std::string out;
      for (int64_t v : s) out += (out.empty() ? "" : " ") + std::to_string(v);
      return out;
    };
    SEQLAB_CHECK(a == b, "index_copy_(): Source/destination tensor must have same slice shapes. Destination slice shape: ",
                 join(a), " at dimension ", dim, " and source slice shape: ", join(b), " at dimension ", dim, ".");
  }
}

}  // namespace

// out = self; out[..., index[j], ...] += alpha * source[..., j, ...]  (along dim)
// dself = g,  dsource = alpha * index_select(g, dim, index)
Tensor index_add(const Tensor& self, int64_t dim_in, const Tensor& index, const Tensor& source, double alpha) {
  const int64_t dim = wrap_dim(dim_in, self.dim(), "index_add");
  check_index_func("index_add_", self, dim, index, source);
  auto [idx, src] = as_scatter(index, dim, source, [&](const Tensor& i) {
    check_bounds("index_add", i, nonempty_size(self, dim), dim);
  });
  if (alpha != 1.0) {
    const double a = is_floating(self.dtype()) ? alpha : self.dtype() == Dtype::Bool ? (alpha != 0) : std::trunc(alpha);
    src = mul(src, scalar_tensor(a, self.dtype()));
  }
  return scatter_forward(self, dim, idx, src, 0.0, Mode::Sum, true, /*legacy=*/false, /*index_op=*/true);
}

Tensor& index_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, double alpha) {
  check_no_overlap(self, source, "index_add_");
  check_no_overlap(self, index, "index_add_");
  check_inplace(self, "index_add_");
  Tensor r = index_add(GradMode::is_enabled() && (self.requires_grad() || source.requires_grad()) ? clone(self) : self,
                       dim, index, source, alpha);
  if (GradMode::is_enabled() && (self.requires_grad() || source.requires_grad())) {
    rebase_history(self, r, "index_add_");
    return self;
  }
  copy_kernel(self, r);
  self.bump_version();
  return self;
}

// out = self; out[..., index[j], ...] = source[..., j, ...]  (along dim)
// dself = g with the rows at index zeroed,  dsource = index_select(g, dim, index)
Tensor index_copy(const Tensor& self, int64_t dim_in, const Tensor& index, const Tensor& source) {
  const int64_t dim = wrap_dim(dim_in, self.dim(), "index_copy");
  check_index_copy(self, dim, index, source);
  auto [idx, src] = as_scatter(index, dim, source, [&](const Tensor& i) {
    check_bounds("index_copy_", i, nonempty_size(self, dim), dim, true);
  });
  return scatter_forward(self, dim, idx, src, 0.0, Mode::Assign, true, /*legacy=*/false, /*index_op=*/true);
}

Tensor& index_copy_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  check_no_overlap(self, source, "index_copy_");
  check_no_overlap(self, index, "index_copy_");
  check_inplace(self, "index_copy_");
  const bool track = GradMode::is_enabled() && (self.requires_grad() || source.requires_grad());
  Tensor r = index_copy(track ? clone(self) : self, dim, index, source);
  if (track) {
    rebase_history(self, r, "index_copy_");
    return self;
  }
  copy_kernel(self, r);
  self.bump_version();
  return self;
}

// out[p] = reduce({self[p] if include_self} ∪ {source[..., j, ...] : index[j] = p}) along dim.
// Gradients: scatter_reduce's (reduce_backward), with index broadcast along source.
Tensor index_reduce(const Tensor& self, int64_t dim_in, const Tensor& index, const Tensor& source,
                    const std::string& reduce, bool include_self) {
  const Mode mode = index_reduce_mode(reduce);
  const int64_t dim = wrap_dim(dim_in, self.dim(), "index_reduce");
  check_index_func("index_reduce_", self, dim, index, source);
  if (self.dtype() == Dtype::Bool) {  // which of torch's kernels refuses bool
    SEQLAB_CHECK_IMPL(include_self, "\"index_reduce_func_exclude_input_init\" not implemented for 'Bool'");
    SEQLAB_CHECK_IMPL(self.dim() > 1, "\"index_func_\" not implemented for 'Bool'");
    SEQLAB_CHECK_IMPL(mode != Mode::Mean, "\"div_floor_cpu\" not implemented for 'Bool'");
  }
  auto [idx, src] = as_scatter(index, dim, source, [&](const Tensor& i) {
    check_bounds("index_reduce_", i, nonempty_size(self, dim), dim, true, "index out of range in self");
  });
  return scatter_forward(self, dim, idx, src, 0.0, mode, include_self, /*legacy=*/false, /*index_op=*/true);
}

Tensor& index_reduce_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const std::string& reduce,
                      bool include_self) {
  check_no_overlap(self, source, "index_reduce_");
  check_no_overlap(self, index, "index_reduce_");
  check_inplace(self, "index_reduce_");
  const bool track = GradMode::is_enabled() && (self.requires_grad() || source.requires_grad());
  Tensor r = index_reduce(track ? clone(self) : self, dim, index, source, reduce, include_self);
  if (track) {
    rebase_history(self, r, "index_reduce_");
    return self;
  }
  copy_kernel(self, r);
  self.bump_version();
  return self;
}

}  // namespace seqlab
