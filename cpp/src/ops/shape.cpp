// Views (view, reshape, transpose, permute, unsqueeze, squeeze, expand, narrow, select) and
// the ops that assemble or cut tensors (cat, stack, split, chunk). A view shares storage;
// its backward maps the gradient back to the base's shape. Tests: tests/test_shape.py.
#include "seqlab/ops/shape.hpp"

#include "autograd/ops_used.hpp"  // declares add, reshape, ... for autograd/
#include "autograd/positions.hpp"

#include <algorithm>
#include <optional>

#include "seqlab/ops/elementwise.hpp"
#include "seqlab/ops/creation.hpp"
#include "seqlab/ops/index.hpp"
#include "seqlab/ops/reduce.hpp"

namespace seqlab {

namespace {

Tensor make_view(const Tensor& x, Shape shape, Shape strides, int64_t offset) {
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = x.impl()->storage;
  impl->offset = offset;
  impl->numel = shape_numel(shape);
  impl->shape = std::move(shape);
  impl->strides = std::move(strides);
  impl->dtype = x.dtype();
  impl->is_view = true;
  impl->view_base = x.impl()->is_view && x.impl()->view_base ? x.impl()->view_base : x.impl_ptr();
  return Tensor(std::move(impl));
}

// Strides that let `new_shape` view memory laid out as (old_shape, old_strides), or none.
// Groups of old dims that are contiguous with each other may be split or merged freely.
std::optional<Shape> view_strides(const Shape& old_shape, const Shape& old_strides, const Shape& new_shape) {
  if (old_shape.empty()) return Shape(new_shape.size(), 1);
  const int64_t numel = shape_numel(old_shape);
  if (numel == 0) return contiguous_strides(new_shape);
  Shape out(new_shape.size(), 0);
  int64_t view_d = static_cast<int64_t>(new_shape.size()) - 1;
  int64_t chunk_base = old_strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(old_shape.size()) - 1; d >= 0; --d) {
    tensor_numel *= old_shape[d];
    // End of a chunk of old dims that are contiguous with one another.
    if (d == 0 || (old_shape[d - 1] != 1 && old_strides[d - 1] != tensor_numel * chunk_base)) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_shape[view_d] == 1)) {
        out[view_d] = view_numel * chunk_base;
        view_numel *= new_shape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (d > 0) {
        chunk_base = old_strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}

// Resolve one -1 and check the element count.
Shape infer_size(Shape shape, int64_t numel, const char* op) {
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      SEQLAB_CHECK(infer < 0, op, ": only one dimension can be inferred");
      infer = static_cast<int64_t>(i);
    } else {
      SEQLAB_CHECK(shape[i] >= 0, op, ": invalid shape dimension ", shape[i]);
      known *= shape[i];
    }
  }
  if (infer >= 0) {
    SEQLAB_CHECK(known != 0 && numel % known == 0, op, ": shape '", shape_str(shape), "' is invalid for input of size ",
                 numel);
    shape[infer] = numel / known;
  } else {
    SEQLAB_CHECK(known == numel, op, ": shape '", shape_str(shape), "' is invalid for input of size ", numel);
  }
  return shape;
}

// Backward of any view that only regroups elements: reshape the gradient back.
void attach_reshape_back(Tensor& out, const Tensor& x, const char* name) {
  if (any_requires_grad({x}))
    attach(out, name, {x}, [in = x.shape()](const Tensor& g) -> TensorList { return {reshape(g, in)}; });
}

}  // namespace

Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op) {
  const size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    SEQLAB_CHECK(da == db || da == 1 || db == 1, op, ": The size of tensor a (", da,
                 ") must match the size of tensor b (", db, ") at non-singleton dimension ", i, " (shapes ",
                 shape_str(a), " and ", shape_str(b), ")");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

Tensor view(const Tensor& x, Shape shape) {
  shape = infer_size(std::move(shape), x.numel(), "view");
  auto st = view_strides(x.shape(), x.strides(), shape);
  SEQLAB_CHECK(st.has_value(), "view size is not compatible with input tensor's size and stride (at least one "
                               "dimension spans across two contiguous subspaces). Use .reshape(...) instead. (view of ",
               shape_str(x.shape()), " with strides ", shape_str(x.strides()), " as ", shape_str(shape), ")");
  Tensor out = make_view(x, shape, *st, x.offset());
  attach_reshape_back(out, x, "ViewBackward0");
  return out;
}

Tensor reshape(const Tensor& x, Shape shape) {
  shape = infer_size(std::move(shape), x.numel(), "reshape");
  if (shape == x.shape()) return x.is_leaf() && !x.requires_grad() ? x : view(x, shape);
  if (view_strides(x.shape(), x.strides(), shape)) return view(x, shape);
  return view(clone(x), shape);  // a copy: the documented fallback, as in PyTorch
}

Tensor flatten(const Tensor& x, int64_t start_dim, int64_t end_dim) {
  if (x.dim() == 0) {  // dims in [-1, 0], as torch
    wrap_dim(start_dim, 0, "flatten");
    wrap_dim(end_dim, 0, "flatten");
    return reshape(x, {1});
  }
  const int64_t s = wrap_dim(start_dim, x.dim(), "flatten"), e = wrap_dim(end_dim, x.dim(), "flatten");
  SEQLAB_CHECK(s <= e, "flatten() has invalid args: start_dim cannot come after end_dim");
  Shape shape(x.shape().begin(), x.shape().begin() + s);
  int64_t n = 1;
  for (int64_t d = s; d <= e; ++d) n *= x.shape()[d];
  shape.push_back(n);
  shape.insert(shape.end(), x.shape().begin() + e + 1, x.shape().end());
  return reshape(x, shape);
}

// out = x with dims permuted.   dx = g permuted by the inverse permutation
Tensor permute(const Tensor& x, const std::vector<int64_t>& dims) {
  const int64_t nd = x.dim();
  SEQLAB_CHECK(static_cast<int64_t>(dims.size()) == nd, "permute(sparse_coo): number of dimensions in the tensor input "
               "does not match the length of the desired ordering of dimensions i.e. input.dim() = ", nd,
               " is not equal to len(dims) = ", dims.size());
  Shape shape(nd), strides(nd);
  std::vector<int64_t> inverse(nd);
  std::vector<bool> seen(nd, false);
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t d = wrap_dim(dims[i], nd, "permute");
    SEQLAB_CHECK(!seen[d], "permute(): duplicate dims are not allowed.");
    seen[d] = true;
    shape[i] = x.shape()[d];
    strides[i] = x.strides()[d];
    inverse[d] = i;
  }
  Tensor out = make_view(x, shape, strides, x.offset());
  if (any_requires_grad({x}))
    attach(out, "PermuteBackward0", {x}, [inverse](const Tensor& g) -> TensorList { return {permute(g, inverse)}; });
  return out;
}

Tensor transpose(const Tensor& x, int64_t dim0, int64_t dim1) {
  const int64_t nd = x.dim();
  if (nd == 0) {  // dims in [-1, 0], as torch
    wrap_dim(dim0, 0, "transpose");
    wrap_dim(dim1, 0, "transpose");
    return x;
  }
  std::vector<int64_t> perm(nd);
  for (int64_t i = 0; i < nd; ++i) perm[i] = i;
  std::swap(perm[wrap_dim(dim0, nd, "transpose")], perm[wrap_dim(dim1, nd, "transpose")]);
  return permute(x, perm);
}

Tensor t(const Tensor& x) {
  SEQLAB_CHECK(x.dim() <= 2, "t() expects a tensor with <= 2 dimensions, but self is ", x.dim(), "D");
  return x.dim() < 2 ? x : transpose(x, 0, 1);
}

Tensor unsqueeze(const Tensor& x, int64_t dim) {
  const int64_t nd = x.dim();
  const int64_t d = wrap_dim(dim, nd + 1, "unsqueeze");
  Shape shape = x.shape(), strides = x.strides();
  const int64_t st = d < nd ? shape[d] * strides[d] : 1;
  shape.insert(shape.begin() + d, 1);
  strides.insert(strides.begin() + d, st);
  Tensor out = make_view(x, shape, strides, x.offset());
  attach_reshape_back(out, x, "UnsqueezeBackward0");
  return out;
}

Tensor squeeze(const Tensor& x) {
  Shape shape, strides;
  for (int64_t i = 0; i < x.dim(); ++i)
    if (x.shape()[i] != 1) {
      shape.push_back(x.shape()[i]);
      strides.push_back(x.strides()[i]);
    }
  Tensor out = make_view(x, shape, strides, x.offset());
  attach_reshape_back(out, x, "SqueezeBackward0");
  return out;
}

Tensor squeeze(const Tensor& x, int64_t dim) {
  if (x.dim() == 0) return squeeze(x);
  const int64_t d = wrap_dim(dim, x.dim(), "squeeze");
  if (x.shape()[d] != 1) return view(x, x.shape());
  Shape shape = x.shape(), strides = x.strides();
  shape.erase(shape.begin() + d);
  strides.erase(strides.begin() + d);
  Tensor out = make_view(x, shape, strides, x.offset());
  attach_reshape_back(out, x, "SqueezeBackward1");
  return out;
}

// out = x broadcast to `shape` (stride 0 on new or size-1 dims).   dx = sum_to(g, x.shape)
Tensor expand(const Tensor& x, const Shape& shape_in) {
  const int64_t nd = static_cast<int64_t>(shape_in.size()), xd = x.dim();
  SEQLAB_CHECK(nd >= xd, "expand: the number of sizes provided (", nd,
               ") must be greater or equal to the number of dimensions in the tensor (", xd, "); tensor of shape ",
               shape_str(x.shape()), " expanded to ", shape_str(shape_in));
  Shape shape(nd), strides(nd);
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t j = i - (nd - xd);
    if (j < 0) {
      SEQLAB_CHECK(shape_in[i] >= 0, "expand: -1 is not allowed in a leading, non-existing dimension ", i);
      shape[i] = shape_in[i];
      strides[i] = 0;
      continue;
    }
    const int64_t have = x.shape()[j];
    const int64_t want = shape_in[i] == -1 ? have : shape_in[i];
    SEQLAB_CHECK(have == want || have == 1, "The expanded size of the tensor (", want,
                 ") must match the existing size (", have, ") at non-singleton dimension ", i,
                 ".  Target sizes: ", shape_str(shape_in), ".  Tensor sizes: ", shape_str(x.shape()));
    shape[i] = want;
    strides[i] = have == want ? x.strides()[j] : 0;
  }
  if (shape == x.shape()) return x;
  Tensor out = make_view(x, shape, strides, x.offset());
  if (any_requires_grad({x}))
    attach(out, "ExpandBackward0", {x}, [in = x.shape()](const Tensor& g) -> TensorList { return {sum_to(g, in)}; });
  return out;
}

// out = x[..., start:stop:step, ...] along dim.   dx = zeros with g written into the slice
Tensor slice(const Tensor& x, int64_t dim_in, int64_t start, int64_t stop, int64_t step) {
  const int64_t dim = wrap_dim(dim_in, x.dim(), "slice");
  SEQLAB_CHECK_VALUE(step > 0, "slice: step must be greater than zero (got ", step, ")");
  const int64_t n = x.shape()[dim];
  if (start < 0) start += n;
  if (stop < 0) stop += n;
  start = std::clamp<int64_t>(start, 0, n);
  stop = std::clamp<int64_t>(stop, start, n);
  Shape shape = x.shape(), strides = x.strides();
  shape[dim] = (stop - start + step - 1) / step;
  strides[dim] *= step;
  Tensor out = make_view(x, shape, strides, x.offset() + start * x.strides()[dim]);
  if (any_requires_grad({x}))
    attach(out, "SliceBackward0", {x}, [in = x.shape(), dim, start, stop, step](const Tensor& g) -> TensorList {
      Tensor dx = zeros(in, g.dtype());
      Tensor part = slice(dx, dim, start, stop, step);
      copy_(part, g);
      return {dx};
    });
  return out;
}

// ---------------------------------------------------------------- as_strided

// out = the elements at storage positions offset + Σ i_k·stride_k (torch.as_strided): a view of
// x's storage with any geometry that stays inside it.
//   dx: g summed into the storage positions it was read from (several outputs may read one), then
//   read back at x's own positions, each divided by how many of x's elements share it (as torch,
//   so an expanded x still sums to the right gradient).
Tensor as_strided(const Tensor& x, const Shape& size, const Shape& stride, std::optional<int64_t> storage_offset) {
  SEQLAB_CHECK(size.size() == stride.size(), "mismatch in length of strides and shape");
  const int64_t offset = storage_offset.value_or(x.offset());
  SEQLAB_CHECK(offset >= 0, "Tensor: invalid storage offset ", offset);
  for (int64_t s : stride)
    SEQLAB_CHECK(s >= 0, "as_strided: Negative strides are not supported at the moment, got strides: ", shape_str(stride));
  for (int64_t n : size) SEQLAB_CHECK(n >= 0, "as_strided: negative size in ", shape_str(size));
  const int64_t isz = static_cast<int64_t>(itemsize(x.dtype()));
  int64_t last = offset;  // the furthest element the view reaches
  bool empty = false;
  for (size_t d = 0; d < size.size(); ++d) {
    empty = empty || size[d] == 0;
    int64_t span = 0;
    SEQLAB_CHECK(!__builtin_mul_overflow(size[d] == 0 ? 0 : size[d] - 1, stride[d], &span) &&
                     !__builtin_add_overflow(last, span, &last),
                 "as_strided: sizes ", shape_str(size), " and strides ", shape_str(stride), " overflow int64");
  }
  const int64_t need = empty ? 0 : (last + 1) * isz, have = static_cast<int64_t>(x.impl()->storage->nbytes);
  SEQLAB_CHECK(need <= have, "setStorage: sizes ", shape_str(size), ", strides ", shape_str(stride), ", storage offset ",
               offset, ", and itemsize ", isz, " requiring a storage size of ", need,
               " are out of bounds for storage of size ", have);
  Tensor out = make_view(x, size, stride, offset);
  if (any_requires_grad({x}))
    attach(out, "AsStridedBackward0", {x},
           [in_shape = x.shape(), in_strides = x.strides(), in_offset = x.offset(), size, stride, offset,
            dtype = x.dtype()](const Tensor& g) -> TensorList {
             const Tensor gf = is_reduced_float(g.dtype()) ? to_dtype(g, Dtype::Float32) : g;
             const Tensor out_pos = strided_positions(size, stride, offset);
             const Tensor in_pos = strided_positions(in_shape, in_strides, in_offset);
             int64_t extent = 1;
             for (const Tensor& p : {out_pos, in_pos})
               for (int64_t i = 0; i < p.numel(); ++i) extent = std::max(extent, p.data<int64_t>()[i] + 1);
             Tensor storage_grad = index_put(zeros({extent}, gf.dtype()), {out_pos}, reshape(gf, {-1}), true);
             Tensor dx = index(storage_grad, {in_pos});
             bool overlap = false;  // x's own elements share storage (an expanded x)
             for (size_t d = 0; d < in_shape.size(); ++d) overlap = overlap || (in_strides[d] == 0 && in_shape[d] > 1);
             if (overlap) {
               const Tensor count = index_put(zeros({extent}, gf.dtype()), {in_pos}, ones({in_pos.numel()}, gf.dtype()), true);
               dx = div(dx, index(count, {in_pos}));
             }
             dx = reshape(dx, in_shape);
             return {dx.dtype() == dtype ? dx : to_dtype(dx, dtype)};
           });
  return out;
}

Tensor narrow(const Tensor& x, int64_t dim, int64_t start, int64_t length) {
  SEQLAB_CHECK(x.dim() > 0, "narrow() cannot be applied to a 0-dim tensor.");
  const int64_t d = wrap_dim(dim, x.dim(), "narrow");
  const int64_t n = x.shape()[d];
  SEQLAB_CHECK_INDEX(start >= -n && start <= n, "narrow(): start out of range (expected to be in range of [", -n,
                     ", ", n, "], but got ", start, ")");
  if (start < 0) start += n;
  SEQLAB_CHECK(length >= 0, "narrow(): length must be non-negative.");
  SEQLAB_CHECK(length <= n - start, "narrow(): start (", start, ") + length (", length,  // no overflow
               ") exceeds dimension size (", n, ").");
  return slice(x, d, start, start + length, 1);
}

// out = x[..., index, ...] along dim.   dx = zeros with g written at index
Tensor select(const Tensor& x, int64_t dim_in, int64_t index) {
  SEQLAB_CHECK_INDEX(x.dim() > 0, "select() cannot be applied to a 0-dim tensor.");
  const int64_t dim = wrap_dim(dim_in, x.dim(), "select");
  const int64_t n = x.shape()[dim];
  SEQLAB_CHECK_INDEX(index >= -n && index < n, "index ", index, " is out of bounds for dimension ", dim, " with size ", n);
  if (index < 0) index += n;
  Shape shape = x.shape(), strides = x.strides();
  shape.erase(shape.begin() + dim);
  strides.erase(strides.begin() + dim);
  Tensor out = make_view(x, shape, strides, x.offset() + index * x.strides()[dim]);
  if (any_requires_grad({x}))
    attach(out, "SelectBackward0", {x}, [in = x.shape(), dim, index](const Tensor& g) -> TensorList {
      Tensor dx = zeros(in, g.dtype());
      Tensor part = select(dx, dim, index);
      copy_(part, g);
      return {dx};
    });
  return out;
}

// out = inputs laid end to end along dim.   dx_i = the slice of g that x_i filled
Tensor cat(const TensorList& xs, int64_t dim_in) {
  SEQLAB_CHECK_VALUE(!xs.empty(), "cat(): expected a non-empty list of Tensors");
  // Legacy rule kept by PyTorch: 1-D empty tensors are skipped in the shape checks.
  auto skipped = [](const Tensor& x) { return x.dim() == 1 && x.numel() == 0; };
  TensorList parts;
  for (const Tensor& x : xs)
    if (!skipped(x)) parts.push_back(x);
  if (parts.empty()) return clone(xs[0]);
  const Tensor& ref = parts[0];
  SEQLAB_CHECK(ref.dim() > 0, "zero-dimensional tensor (at position 0) cannot be concatenated");
  const int64_t dim = wrap_dim(dim_in, ref.dim(), "cat");
  Dtype dtype = ref.dtype();
  Shape shape = ref.shape();
  shape[dim] = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    const Tensor& x = parts[i];
    SEQLAB_CHECK(x.dim() == ref.dim(), "Tensors must have same number of dimensions: got ", ref.dim(), " and ", x.dim());
    for (int64_t d = 0; d < ref.dim(); ++d)
      SEQLAB_CHECK(d == dim || x.shape()[d] == ref.shape()[d], "cat: Sizes of tensors must match except in dimension ", dim,
                   ". Expected size ", ref.shape()[d], " but got size ", x.shape()[d], " for tensor number ", i,
                   " in the list (shapes ", shape_str(ref.shape()), " and ", shape_str(x.shape()), ").");
    shape[dim] += x.shape()[dim];
    dtype = promote(dtype, x.dtype());
  }
  Tensor out = Tensor::empty(shape, dtype);
  std::vector<int64_t> sizes;  // along dim, per input (0 for a skipped one)
  {
    NoGradGuard ng;
    int64_t at = 0;
    for (const Tensor& x : xs) {
      const int64_t n = skipped(x) ? 0 : x.shape()[dim];
      if (n > 0) {
        Tensor dst = slice(out, dim, at, at + n, 1);
        copy_(dst, x);
      }
      sizes.push_back(n);
      at += n;
    }
  }
  out.impl()->storage->version = 0;
  if (any_requires_grad(xs)) {
    std::vector<Dtype> dtypes;
    std::vector<Shape> shapes;
    for (const Tensor& x : xs) {
      dtypes.push_back(x.dtype());
      shapes.push_back(x.shape());
    }
    attach(out, "CatBackward0", xs, [sizes, dim, dtypes, shapes](const Tensor& g) -> TensorList {
      TensorList dxs = split(g, sizes, dim);
      for (size_t i = 0; i < dxs.size(); ++i)
        dxs[i] = dxs[i].shape() == shapes[i] ? to_dtype(dxs[i], dtypes[i]) : zeros(shapes[i], dtypes[i]);
      return dxs;
    });
  }
  return out;
}

Tensor stack(const TensorList& xs, int64_t dim) {
  SEQLAB_CHECK(!xs.empty(), "stack expects a non-empty TensorList");
  const int64_t d = wrap_dim(dim, xs[0].dim() + 1, "stack");
  TensorList parts;
  for (size_t i = 0; i < xs.size(); ++i) {
    SEQLAB_CHECK(xs[i].shape() == xs[0].shape(), "stack expects each tensor to be equal size, but got ",
                 shape_str(xs[0].shape()), " at entry 0 and ", shape_str(xs[i].shape()), " at entry ", i);
    parts.push_back(unsqueeze(xs[i], d));
  }
  return cat(parts, d);
}

TensorList split(const Tensor& x, int64_t split_size, int64_t dim) {
  SEQLAB_CHECK(x.dim() > 0, "split expects at least a 1-dimensional tensor");
  SEQLAB_CHECK_VALUE(split_size >= 0, "split expects split_size be non-negative, but got split_size=", split_size);
  const int64_t d = wrap_dim(dim, x.dim(), "split");
  const int64_t n = x.shape()[d];
  TensorList out;
  if (split_size == 0) {
    SEQLAB_CHECK(n == 0, "split_size can only be 0 if dimension size is 0, but got dimension size of ", n);
    return {x};
  }
  for (int64_t at = 0; at < n || (n == 0 && out.empty()); at += split_size)
    out.push_back(narrow(x, d, at, std::min(split_size, n - at)));
  return out;
}

TensorList split(const Tensor& x, const std::vector<int64_t>& sizes, int64_t dim) {
  SEQLAB_CHECK(x.dim() > 0, "split expects at least a 1-dimensional tensor");
  const int64_t d = wrap_dim(dim, x.dim(), "split");
  int64_t total = 0;
  bool overflow = false;  // {2**63 - 1, 1} must be a wrong sum, not signed overflow
  for (int64_t s : sizes) {
    SEQLAB_CHECK(s >= 0, "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=",
                 shape_str(sizes));
    overflow |= __builtin_add_overflow(total, s, &total);
  }
  SEQLAB_CHECK(!overflow && total == x.shape()[d], "split_with_sizes expects split_sizes to sum exactly to ", x.shape()[d],
               " (input tensor's size at dimension ", d, "), but got split_sizes=", shape_str(sizes));
  TensorList out;
  int64_t at = 0;
  for (int64_t s : sizes) {
    out.push_back(narrow(x, d, at, s));
    at += s;
  }
  return out;
}

TensorList chunk(const Tensor& x, int64_t chunks, int64_t dim) {
  SEQLAB_CHECK(x.dim() > 0, "chunk expects at least a 1-dimensional tensor");
  SEQLAB_CHECK(chunks > 0, "chunk expects `chunks` to be greater than 0, got: ", chunks);
  const int64_t d = wrap_dim(dim, x.dim(), "chunk");
  const int64_t n = x.shape()[d];
  if (n == 0) return split(x, std::vector<int64_t>(chunks, 0), d);  // `chunks` empty pieces, as torch
  return split(x, (n - 1) / chunks + 1, d);  // ceil(n / chunks); n + chunks - 1 overflows for huge chunks
}

}  // namespace seqlab
