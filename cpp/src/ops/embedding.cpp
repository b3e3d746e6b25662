// embedding: a lookup of rows, one fused node whose backward adds the gradient's rows into
// a zero table (torch.nn.functional.embedding). Tests: tests/test_nn_layers.py.
#include "seqlab/ops/embedding.hpp"

#include <cstring>

#include "kernel_utils.hpp"
#include "seqlab/autograd.hpp"
#include "seqlab/ops/creation.hpp"
#include "seqlab/ops/elementwise.hpp"

namespace seqlab {

// out = weight[index].   dweight = zeros with g's rows added at index (none at padding_idx)
// (int32 indices are read as int64, as torch accepts both)
Tensor embedding(const Tensor& index_in, const Tensor& weight, std::optional<int64_t> padding_idx) {
  SEQLAB_CHECK(index_in.dtype() == Dtype::Int64 || index_in.dtype() == Dtype::Int32,
               "embedding: Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, "
               "Int; but got ", dtype_name(index_in.dtype()), " instead");
  const Tensor index = index_in.dtype() == Dtype::Int64 ? index_in : to_dtype(index_in, Dtype::Int64);
  SEQLAB_CHECK(weight.dim() == 2, "embedding: 'weight' must be 2-D, got shape ", shape_str(weight.shape()));
  const int64_t V = weight.shape()[0], D = weight.shape()[1];
  int64_t pad = -1;
  if (padding_idx) {
    pad = *padding_idx < 0 ? *padding_idx + V : *padding_idx;
    SEQLAB_CHECK_VALUE(pad >= 0 && pad < V, "embedding: padding_idx must be within num_embeddings (", V, "), got ",
                       *padding_idx);
  }
  const Tensor idx = contiguous_copy_if_needed(index.detach());
  const int64_t* pi = idx.data<int64_t>();
  for (int64_t i = 0; i < idx.numel(); ++i)
    SEQLAB_CHECK_INDEX(pi[i] >= 0 && pi[i] < V, "embedding: index ", pi[i], " is out of range in self (num_embeddings ",
                       V, ")");
  const Tensor w = contiguous_copy_if_needed(weight.detach());
  Shape out_shape = idx.shape();
  out_shape.push_back(D);
  Tensor out = Tensor::empty(out_shape, w.dtype());
  const size_t row = static_cast<size_t>(D) * itemsize(w.dtype());
  for (int64_t i = 0; i < idx.numel(); ++i)
    if (row) std::memcpy(static_cast<char*>(out.raw_data()) + i * row, static_cast<const char*>(w.raw_data()) + pi[i] * row, row);
  if (any_requires_grad({weight})) {
    attach(out, "EmbeddingBackward0", {weight}, [idx, V, D, pad](const Tensor& g_) -> TensorList {
      const Tensor g = contiguous(g_);
      Tensor dw = zeros({V, D}, g.dtype());
      dispatch_float(g.dtype(), "embedding_backward", [&](auto tag) {
        using T = decltype(tag);
        const int64_t* p = idx.data<int64_t>();
        const T* pg = g.data<T>();
        T* pd = dw.data<T>();
        for (int64_t i = 0; i < idx.numel(); ++i) {
          if (p[i] == pad) continue;
          T* dst = pd + p[i] * D;
          const T* src = pg + i * D;
          for (int64_t d = 0; d < D; ++d) dst[d] += src[d];
        }
      });
      return {dw};
    });
  }
  return out;
}

}  // namespace seqlab
