// The scatter family: scatter (src or value, the deprecated reduce='add'|'multiply'), scatter_add,
// scatter_reduce, index_add, index_copy, index_reduce, each with its in-place form.
// cpp/src/ops/scatter.cpp; tests: tests/test_scatter.py.
#pragma once
#include <string>

#include "seqlab/tensor.hpp"
#include "seqlab/autograd.hpp"

namespace seqlab {

// out = self with out[i][index[i][j]] = src[i][j] (dim = 1; likewise for other dims), or `value`.
// reduce "" assigns; "add" or "multiply" combine (torch's deprecated scatter reduce, no gradient).
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce = "");
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, double value, const std::string& reduce = "");
Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce = "");
Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, double value, const std::string& reduce = "");

// out = self with out[i][index[i][j]] += src[i][j] (dim = 1).
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor& scatter_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);

// reduce in "sum", "prod", "mean", "amax", "amin": out[p] = reduce of the src values scattered to p,
// and of self[p] too when include_self.
Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                      const std::string& reduce, bool include_self = true);
Tensor& scatter_reduce_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce,
                        bool include_self = true);

// index 1-d (or 0-d): out[..., index[i], ...] += alpha * source[..., i, ...] along dim.
Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, double alpha = 1.0);
Tensor& index_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, double alpha = 1.0);
// out[..., index[i], ...] = source[..., i, ...] along dim.
Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
Tensor& index_copy_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
// reduce in "prod", "mean", "amax", "amin", as scatter_reduce with index broadcast along source.
Tensor index_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                    const std::string& reduce, bool include_self = true);
Tensor& index_reduce_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const std::string& reduce,
                      bool include_self = true);

}  // namespace seqlab
