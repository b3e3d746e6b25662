// The key/value cache of incremental decoding (ops/kv_cache.hpp): appending a step's keys and
// values, and reordering the batch rows for beam search. Ordinary ops (cat, index_select), so
// under grad mode a cached step keeps its history like any other tensor.
// Tests: tests/test_kv_cache.py.
#include "seqlab/ops/kv_cache.hpp"

#include "seqlab/check.hpp"
#include "seqlab/ops/index.hpp"
#include "seqlab/ops/shape.hpp"

namespace seqlab {

void AttentionCache::update(const Tensor& k_new, const Tensor& v_new, int64_t heads) {
  SEQLAB_CHECK(k_new.dim() == 3 && v_new.dim() == 3 && k_new.shape()[0] == v_new.shape()[0] &&
                   k_new.shape()[1] == v_new.shape()[1],
               "KVCache: keys and values must be (N*num_heads, L, head_dim) of the same length, got ",
               shape_str(k_new.shape()), " and ", shape_str(v_new.shape()));
  if (!key.defined()) {
    key = k_new;
    value = v_new;
    num_heads = heads;
    return;
  }
  SEQLAB_CHECK(!is_static, "KVCache: a cross-attention cache is filled once (it already holds ", length(),
               " memory positions); call reset() to start a new sequence");
  // The batch and head layout must be the one already cached: a step of another batch size is
  // a mistake (or a missing reorder_cache after beam search changed the rows).
  SEQLAB_CHECK(heads == num_heads && k_new.shape()[0] == key.shape()[0] && k_new.shape()[2] == key.shape()[2] &&
                   v_new.shape()[2] == value.shape()[2],
               "KVCache: the new keys ", shape_str(k_new.shape()), " (", heads,
               " heads) do not continue the cached keys ", shape_str(key.shape()), " (", num_heads,
               " heads): batch size, heads and head_dim must stay the same");
  key = cat({key, k_new}, 1);    // (N·H, P + L, d)
  value = cat({value, v_new}, 1);
}

void AttentionCache::reorder(const Tensor& beam_idx) {
  if (!key.defined()) return;
  // (N·H, P, d) -> (N, H·P·d): a batch row is one row, so index_select moves whole sequences.
  const int64_t N = key.shape()[0] / num_heads;
  auto pick = [&](const Tensor& t) {
    const Tensor rows = index_select(reshape(t, {N, -1}), 0, beam_idx);
    return reshape(rows, {rows.shape()[0] * num_heads, t.shape()[1], t.shape()[2]});
  };
  key = pick(key);
  value = pick(value);
}

namespace {
std::shared_ptr<AttentionCache> grow(std::vector<std::shared_ptr<AttentionCache>>& list, int64_t layer, bool is_static) {
  SEQLAB_CHECK_INDEX(layer >= 0, "KVCache: layer index must be >= 0, got ", layer);
  while (static_cast<int64_t>(list.size()) <= layer) list.push_back(std::make_shared<AttentionCache>(is_static));
  return list[layer];
}
}  // namespace

std::shared_ptr<AttentionCache> KVCache::self_attention(int64_t layer) { return grow(self_, layer, false); }
std::shared_ptr<AttentionCache> KVCache::cross_attention(int64_t layer) { return grow(cross_, layer, true); }

int64_t KVCache::get_seq_length() const { return self_.empty() ? 0 : self_[0]->length(); }

void KVCache::reorder_cache(const Tensor& beam_idx) {
  SEQLAB_CHECK(beam_idx.dim() == 1 && beam_idx.dtype() == Dtype::Int64,
               "KVCache.reorder_cache: beam_idx must be a 1-D int64 tensor, got ", shape_str(beam_idx.shape()), " ",
               dtype_name(beam_idx.dtype()));
  for (auto& c : self_) c->reorder(beam_idx);
  for (auto& c : cross_) c->reorder(beam_idx);
}

void KVCache::reset() {
  for (auto& c : self_) c->reset();
  for (auto& c : cross_) c->reset();
}

}  // namespace seqlab
