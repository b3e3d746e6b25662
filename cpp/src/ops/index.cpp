// Indexing that gathers: advanced indexing x[i, j] and its in-place twin index_put_, gather,
// index_select, masked_fill, nonzero, triu/tril. The scatter family: scatter.cpp.
// Tests: tests/test_index.py.
#include "seqlab/ops/index.hpp"

#include "autograd/ops_used.hpp"  // declares add, reshape, ... for autograd/

#include <cstring>

#include "kernel_utils.hpp"
#include "seqlab/ops/elementwise.hpp"
#include "seqlab/ops/creation.hpp"
#include "seqlab/ops/reduce.hpp"
#include "seqlab/ops/scatter.hpp"
#include "seqlab/ops/shape.hpp"

namespace seqlab {

namespace {

// x[indices] seen as rows: x permuted to (indexed dims..., other dims...) has one "row"
// (a sub-tensor over the other dims) per element of the broadcast index shape.
struct RowPlan {
  std::vector<int64_t> perm;   // indexed dims first, then the others in order
  Shape index_shape;           // broadcast shape of the index tensors
  Shape rest_shape;            // sizes of the dims that are not indexed
  std::vector<int64_t> rows;   // per index element: flat row number in the indexed dims
  std::vector<int64_t> row_offsets;  // per index element: element offset in x's storage (relative)
  int64_t insert_at = 0;       // where the index dims go in the result
  Shape result_shape;
};

}  // namespace

// Index tensors may be int64 or int32 (torch's gather, index_select, x[idx], embedding accept
// both); int32 ones are read as int64, so the kernels have one index type.
static Tensor index_as_int64(const Tensor& ix) { return ix.dtype() == Dtype::Int32 ? to_dtype(ix.detach(), Dtype::Int64) : ix; }

namespace {

RowPlan plan_rows(const Tensor& x, const TensorList& indices_in, const char* op) {
  SEQLAB_CHECK_INDEX(static_cast<int64_t>(indices_in.size()) <= x.dim(), op, ": too many indices for tensor of dimension ",
                     x.dim(), " (got ", indices_in.size(), ")");
  RowPlan p;
  std::vector<int64_t> adv;
  Shape ishape;
  for (size_t d = 0; d < indices_in.size(); ++d) {
    const Tensor& ix = indices_in[d];
    if (!ix.defined()) continue;
    SEQLAB_CHECK_INDEX(ix.dtype() == Dtype::Int64 || ix.dtype() == Dtype::Int32, op, ": tensors used as indices must be long, int, byte or bool "
                       "tensors, got ", dtype_name(ix.dtype()));
    adv.push_back(static_cast<int64_t>(d));
    ishape = adv.size() == 1 ? ix.shape() : broadcast_shapes(ishape, ix.shape(), "index");
  }
  SEQLAB_CHECK(!adv.empty(), op, ": no index tensor given");
  const bool adjacent = adv.back() - adv.front() + 1 == static_cast<int64_t>(adv.size());
  std::vector<bool> is_adv(x.dim(), false);
  for (int64_t d : adv) is_adv[d] = true;
  p.perm = adv;
  for (int64_t d = 0; d < x.dim(); ++d)
    if (!is_adv[d]) {
      p.perm.push_back(d);
      p.rest_shape.push_back(x.shape()[d]);
    }
  p.index_shape = ishape;
  p.insert_at = adjacent ? adv.front() : 0;
  p.result_shape.assign(p.rest_shape.begin(), p.rest_shape.begin() + p.insert_at);
  p.result_shape.insert(p.result_shape.end(), ishape.begin(), ishape.end());
  p.result_shape.insert(p.result_shape.end(), p.rest_shape.begin() + p.insert_at, p.rest_shape.end());

  // Flat row numbers and storage offsets, with bounds checks (negative indices wrap).
  const int64_t n = shape_numel(ishape);
  p.rows.assign(n, 0);
  p.row_offsets.assign(n, 0);
  int64_t row_stride = 1;
  for (size_t k = adv.size(); k-- > 0;) {
    const int64_t d = adv[k];
    const int64_t size = x.shape()[d];
    Tensor ix = contiguous(expand(index_as_int64(indices_in[d].detach()), ishape));
    const int64_t* pi = ix.data<int64_t>();
    for (int64_t j = 0; j < n; ++j) {
      int64_t v = pi[j];
      SEQLAB_CHECK_INDEX(v >= -size && v < size, "index ", v, " is out of bounds for dimension ", d, " with size ", size);
      if (v < 0) v += size;
      p.rows[j] += v * row_stride;
      p.row_offsets[j] += v * x.strides()[d];
    }
    row_stride *= size;
  }
  return p;
}

// Permutation taking (index dims..., rest...) to the result order (rest[:at], index dims, rest[at:]).
std::vector<int64_t> result_perm(const RowPlan& p) {
  const int64_t ni = static_cast<int64_t>(p.index_shape.size());
  const int64_t nr = static_cast<int64_t>(p.rest_shape.size());
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < p.insert_at; ++i) perm.push_back(ni + i);
  for (int64_t i = 0; i < ni; ++i) perm.push_back(i);
  for (int64_t i = p.insert_at; i < nr; ++i) perm.push_back(ni + i);
  return perm;
}
std::vector<int64_t> inverse_perm(const std::vector<int64_t>& perm) {
  std::vector<int64_t> inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inv[perm[i]] = static_cast<int64_t>(i);
  return inv;
}

// dst rows (contiguous, row size `rest`) += src rows (contiguous), by row number.
template <typename T>
void add_rows(T* dst, const T* src, const std::vector<int64_t>& rows, int64_t rest) {
  for (size_t j = 0; j < rows.size(); ++j) {
    T* d = dst + rows[j] * rest;
    const T* s = src + static_cast<int64_t>(j) * rest;
    for (int64_t i = 0; i < rest; ++i) d[i] += s[i];
  }
}

}  // namespace

// out = x[indices].   dx = zeros with g's rows added back at the indexed rows
Tensor index(const Tensor& x, const TensorList& indices) {
  const RowPlan p = plan_rows(x, indices, "index");
  Tensor xp = contiguous(permute(x.detach(), p.perm));
  const int64_t rest = shape_numel(p.rest_shape);
  Shape tmp_shape = p.index_shape;
  tmp_shape.insert(tmp_shape.end(), p.rest_shape.begin(), p.rest_shape.end());
  Tensor tmp = Tensor::empty(tmp_shape, x.dtype());
  const size_t row_bytes = static_cast<size_t>(rest) * itemsize(x.dtype());
  const char* src = static_cast<const char*>(xp.raw_data());
  char* dst = static_cast<char*>(tmp.raw_data());
  for (size_t j = 0; j < p.rows.size(); ++j)
    if (row_bytes) std::memcpy(dst + j * row_bytes, src + p.rows[j] * row_bytes, row_bytes);
  Tensor out = p.insert_at == 0 ? tmp : contiguous(permute(tmp, result_perm(p)));
  if (any_requires_grad({x})) {
    attach(out, "IndexBackward0", {x}, [p, in_shape = x.shape(), rest](const Tensor& g16) -> TensorList {
      // a float16/bfloat16 gradient: the rows summed in float32, rounded once, as torch's kernel
      const Tensor g = is_reduced_float(g16.dtype()) ? to_dtype(g16, Dtype::Float32) : g16;
      // g in result order -> (index dims..., rest...) rows
      Tensor gr = contiguous(p.insert_at == 0 ? g : permute(g, inverse_perm(result_perm(p))));
      Shape perm_shape;
      for (int64_t d : p.perm) perm_shape.push_back(in_shape[d]);
      Tensor dxp = zeros(perm_shape, g.dtype());
      dispatch_float(g.dtype(), "index_backward", [&](auto tag) {
        using T = decltype(tag);
        add_rows<T>(dxp.data<T>(), gr.data<T>(), p.rows, rest);
      });
      if (g16.dtype() != g.dtype()) dxp = to_dtype(dxp, g16.dtype());
      return {permute(dxp, inverse_perm(p.perm))};
    });
  }
  return out;
}

Tensor& index_put_(Tensor& x, const TensorList& indices, const Tensor& values, bool accumulate) {
  check_writable(x, "index_put_");
  SEQLAB_CHECK(!GradMode::is_enabled() || (!x.requires_grad() && !values.requires_grad()),
               "index_put_: in-place indexed assignment (x[idx] = v) on tensors that require grad is not supported "
               "by seqlab; build the result out of place (seqlab.where, masked_fill, cat) instead");
  const RowPlan p = plan_rows(x, indices, "index_put_");
  broadcast_shapes(p.result_shape, values.shape(), "index_put_");
  SEQLAB_CHECK(broadcast_shapes(p.result_shape, values.shape(), "index_put_") == p.result_shape,
               "shape mismatch: value tensor of shape ", shape_str(values.shape()),
               " cannot be broadcast to indexing result of shape ", shape_str(p.result_shape));
  // values in (index dims..., rest...) order, one row per index element
  Tensor v = expand(to_dtype(values.detach(), x.dtype()), p.result_shape);
  if (p.insert_at != 0) v = permute(v, inverse_perm(result_perm(p)));
  Shape rows_shape{static_cast<int64_t>(p.rows.size())};
  rows_shape.insert(rows_shape.end(), p.rest_shape.begin(), p.rest_shape.end());
  v = reshape(v, rows_shape);
  Shape rest_strides;
  for (size_t i = p.perm.size() - p.rest_shape.size(); i < p.perm.size(); ++i)
    rest_strides.push_back(x.strides()[p.perm[i]]);
  for (size_t j = 0; j < p.rows.size(); ++j) {
    auto impl = std::make_shared<TensorImpl>(*x.impl());
    impl->grad_fn = nullptr;
    impl->grad = nullptr;
    impl->shape = p.rest_shape;
    impl->strides = rest_strides;
    impl->numel = shape_numel(p.rest_shape);
    impl->offset = x.offset() + p.row_offsets[j];
    Tensor dst(impl);
    Tensor src = select(v, 0, static_cast<int64_t>(j));
    if (accumulate) {
      NoGradGuard ng;
      copy_(dst, add(dst, src));
    } else {
      copy_(dst, src);
    }
  }
  x.bump_version();
  return x;
}

// out = x with out[idx] = values (or += when accumulate).
// dx = g with the written positions zeroed (kept when accumulate),  dvalues = g[idx] summed to values' shape
Tensor index_put(const Tensor& x, const TensorList& indices, const Tensor& values, bool accumulate) {
  Tensor out = clone(x.detach());
  {
    NoGradGuard ng;
    index_put_(out, indices, values, accumulate);
  }
  if (any_requires_grad({x, values})) {
    attach(out, "IndexPutBackward0", {x, values},
           [indices, accumulate, vshape = values.shape(), vdtype = values.dtype()](const Tensor& g) -> TensorList {
             Tensor dx = g;
             if (!accumulate) {
               dx = clone(g);
               index_put_(dx, indices, scalar_tensor(0.0, g.dtype()), false);
             }
             Tensor dv = sum_to(seqlab::index(g, indices), vshape);
             return {dx, is_floating(vdtype) ? to_dtype(dv, vdtype) : Tensor()};
           });
  }
  return out;
}

// out[i][j][k] = x[i][index[i][j][k]][k]  (dim = 1).   dx = zeros.scatter_add_(dim, index, g)
// torch's rules for gather (aten/src/ATen/native/ScatterGatherChecks.h; the scatters' twin: scatter.cpp): the
// index has self's number of dims (a 0-d self takes a 0-d or 1-d index); index.size(d) <=
// self.size(d) for d != dim and <= src.size(d) for every d; every index in [0, self.size(dim)),
// negative ones included, as PyTorch refuses them. All checked before anything is read or written.
static void check_gather_scatter(const char* op, const Tensor& self, int64_t dim, const Tensor& index,
                                 const Tensor* src) {
  SEQLAB_CHECK(index.dim() == self.dim() || (self.dim() == 0 && index.dim() <= 1), op,
               "(): Index tensor must have the same number of dimensions as input tensor (input ",
               shape_str(self.shape()), ", index ", shape_str(index.shape()), ")");
  if (self.dim() > 0 && index.numel() > 0) {
    for (int64_t d = 0; d < self.dim(); ++d) {
      const bool fits_self = d == dim || index.shape()[d] <= self.shape()[d];
      const bool fits_src = src == nullptr || src->dim() == 0 || index.shape()[d] <= src->shape()[d];
      SEQLAB_CHECK(fits_self && fits_src, op, "(): Expected index ", shape_str(index.shape()),
                   " to be no larger than self ", shape_str(self.shape()), " apart from dimension ", dim,
                   src ? str_cat(" and to be no larger size than src ", shape_str(src->shape())) : std::string());
    }
  }
  const int64_t size = self.dim() == 0 ? 1 : self.shape()[dim];
  const Tensor idx = contiguous_copy_if_needed(index);
  const int64_t* p = idx.data<int64_t>();
  for (int64_t i = 0; i < idx.numel(); ++i)
    SEQLAB_CHECK(p[i] >= 0 && p[i] < size, op, "(): index ", p[i], " is out of bounds for dimension ", dim,
                 " with size ", size);
}

Tensor gather(const Tensor& x, int64_t dim_in, const Tensor& index_in) {
  SEQLAB_CHECK(index_in.dtype() == Dtype::Int64 || index_in.dtype() == Dtype::Int32,
               "gather(): Expected dtype int32/int64 for index, got ", dtype_name(index_in.dtype()));
  const Tensor index = index_as_int64(index_in);
  const int64_t dim = wrap_dim(dim_in, x.dim(), "gather");
  check_gather_scatter("gather", x, dim, index, nullptr);
  Tensor out = Tensor::empty(index.shape(), x.dtype());
  const Shape xs = x.dim() == 0 ? Shape{1} : x.strides();
  std::array<Shape, 2> st{contiguous_strides(index.shape()), index.strides()};
  dispatch_all(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* po = out.data<T>();
    const T* px = static_cast<const T*>(x.raw_data());
    const int64_t* pi = static_cast<const int64_t*>(index.raw_data());
    const int64_t nd = index.dim();
    std::vector<int64_t> pos(nd, 0);
    for (int64_t e = 0; e < index.numel(); ++e) {
      int64_t ioff = 0, xoff = 0;
      for (int64_t d = 0; d < nd; ++d) {
        ioff += pos[d] * index.strides()[d];
        if (d != dim) xoff += pos[d] * xs[d];
      }
      po[e] = px[xoff + pi[ioff] * xs[dim]];  // pi[ioff] in [0, size): checked above
      for (int64_t d = nd - 1; d >= 0; --d) {
        if (++pos[d] < index.shape()[d]) break;
        pos[d] = 0;
      }
    }
  });
  if (any_requires_grad({x}))
    attach(out, "GatherBackward0", {x}, [in = x.shape(), dim, idx = index](const Tensor& g) -> TensorList {
      Tensor dx = zeros(in, g.dtype());
      scatter_add_(dx, dim, idx, g);
      return {dx};
    });
  return out;
}

Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index_in) {
  SEQLAB_CHECK_INDEX(index_in.dim() <= 1, "index_select(): Index is supposed to be a vector, got shape ",
                     shape_str(index_in.shape()));
  SEQLAB_CHECK(index_in.dtype() == Dtype::Int64 || index_in.dtype() == Dtype::Int32,
               "index_select(): Expected dtype int32 or int64 for index, got ", dtype_name(index_in.dtype()));
  const Tensor index = index_as_int64(index_in);
  {
    const int64_t size = x.dim() == 0 ? 1 : x.shape()[wrap_dim(dim, x.dim(), "index_select")];
    const Tensor idx = contiguous_copy_if_needed(index);
    const int64_t* p = idx.data<int64_t>();
    for (int64_t i = 0; i < idx.numel(); ++i)
      SEQLAB_CHECK_INDEX(p[i] >= 0 && p[i] < size, "index_select(): index ", p[i], " is out of range in self (size ",
                         size, " at dimension ", dim, ")");
  }
  if (x.dim() == 0) {  // one element along dim: the result is 0-d, as PyTorch's
    wrap_dim(dim, 0, "index_select");
    SEQLAB_CHECK(index.numel() == 1, "index_select(): Index to scalar can have only 1 value, got ", index.numel(),
                 " value(s)");
    return reshape(seqlab::index(reshape(x, {1}), {reshape(index, {-1})}), {});
  }
  const int64_t d = wrap_dim(dim, x.dim(), "index_select");
  TensorList idx(d + 1);
  idx[d] = reshape(index, {-1});
  return seqlab::index(x, idx);
}

// out = mask ? value : x.   dx = mask ? 0 : g
Tensor masked_fill(const Tensor& x, const Tensor& mask, double value) {
  check_value_fits(value, x.dtype(), "masked_fill");
  SEQLAB_CHECK_TYPE(mask.dtype() == Dtype::Bool, "masked_fill_ only supports boolean masks, but got mask with dtype ",
                    dtype_name(mask.dtype()));
  SEQLAB_CHECK(broadcast_shapes(x.shape(), mask.shape(), "masked_fill") == x.shape(), "masked_fill: mask of shape ",
               shape_str(mask.shape()), " is not broadcastable to the input of shape ", shape_str(x.shape()));
  return where(mask, scalar_tensor(value, x.dtype()), x);
}

Tensor& masked_fill_(Tensor& x, const Tensor& mask, double value) {
  check_inplace(x, "masked_fill_");
  check_value_fits(value, x.dtype(), "masked_fill_");
  Tensor r = masked_fill(x, mask, value);
  if (GradMode::is_enabled() && x.requires_grad()) {
    rebase_history(x, r, "masked_fill_");
    return x;
  }
  NoGradGuard ng;
  copy_(x, r);
  return x;
}

Tensor nonzero(const Tensor& x) {
  Tensor xc = contiguous(x.detach());
  std::vector<int64_t> flat;
  dispatch_all(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* p = static_cast<const T*>(xc.raw_data());
    for (int64_t i = 0; i < xc.numel(); ++i)
      if (p[i] != T(0)) flat.push_back(i);
  });
  const int64_t nd = x.dim();
  Tensor out = Tensor::empty({static_cast<int64_t>(flat.size()), nd}, Dtype::Int64);
  int64_t* po = out.data<int64_t>();
  const Shape cs = contiguous_strides(x.shape());
  for (size_t j = 0; j < flat.size(); ++j) {
    int64_t rem = flat[j];
    for (int64_t d = 0; d < nd; ++d) {
      po[j * nd + d] = rem / cs[d];
      rem %= cs[d];
    }
  }
  return out;
}

// Keep the upper (triu) or lower (tril) triangle of the last two dims.   dx = the same mask of g
static Tensor triangle(const Tensor& x, int64_t diagonal, bool upper) {
  SEQLAB_CHECK(x.dim() >= 2, upper ? "triu" : "tril", ": input tensor must have at least 2 dimensions, got shape ",
               shape_str(x.shape()));
  Tensor out = clone(x.detach());
  const int64_t R = x.shape()[x.dim() - 2], C = x.shape()[x.dim() - 1];
  const int64_t mats = R * C == 0 ? 0 : out.numel() / (R * C);
  dispatch_all(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* p = out.data<T>();
    for (int64_t m = 0; m < mats; ++m)
      for (int64_t i = 0; i < R; ++i)
        for (int64_t j = 0; j < C; ++j) {
          const bool keep = upper ? (j - i >= diagonal) : (j - i <= diagonal);
          if (!keep) p[(m * R + i) * C + j] = T(0);
        }
  });
  if (any_requires_grad({x}))
    attach(out, upper ? "TriuBackward0" : "TrilBackward0", {x}, [diagonal, upper](const Tensor& g) -> TensorList {
      return {triangle(g, diagonal, upper)};
    });
  return out;
}
Tensor triu(const Tensor& x, int64_t diagonal) { return triangle(x, diagonal, true); }
Tensor tril(const Tensor& x, int64_t diagonal) { return triangle(x, diagonal, false); }

}  // namespace seqlab
