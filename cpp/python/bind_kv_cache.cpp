// The key/value cache of incremental decoding (ops/kv_cache.hpp) as seqlab.nn.AttentionCache and
// seqlab.nn.KVCache. Keys and values are shown as (N, num_heads, P, head_dim), Hugging Face's
// layout; inside they are the attention's (N·num_heads, P, head_dim), which is the same memory.
#include "bind_common.hpp"
#include "seqlab/ops/kv_cache.hpp"
#include "seqlab/ops/shape.hpp"

namespace seqlab::bind {

namespace {

py::object heads_view(const Tensor& t, int64_t num_heads) {
  if (!t.defined()) return py::none();
  return py::cast(view(t, {t.shape()[0] / num_heads, num_heads, t.shape()[1], t.shape()[2]}));
}

}  // namespace

void bind_kv_cache(py::module_& m) {
  py::class_<AttentionCache, std::shared_ptr<AttentionCache>>(m, "AttentionCache",
      "One attention layer's cached keys and values (B, H, T, Dh), grown by one step per decoding call,\n"
      "so generation attends over the past without recomputing it.")
      .def(py::init<bool>(), py::arg("is_static") = false,
        "An empty cache; is_static keeps its storage between reset() calls.")
      .def_property_readonly("key", [](const AttentionCache& c) { return heads_view(c.key, c.num_heads); },
                             "The cached keys (B, H, T, Dh), or None.")
      .def_property_readonly("value", [](const AttentionCache& c) { return heads_view(c.value, c.num_heads); },
                             "The cached values (B, H, T, Dh), or None.")
      .def_readonly("is_static", &AttentionCache::is_static)
      .def("get_seq_length", &AttentionCache::length,
        "The number of positions cached.")
      .def("__len__", &AttentionCache::length,
        "The number of positions cached.")
      .def("reorder_cache", &AttentionCache::reorder, py::arg("beam_idx"), Release(),
        "Keep the batch rows beam_idx (beam search), in order.")
      .def("reset", &AttentionCache::reset,
        "Forget every cached position.")
      .def("__repr__", [](const AttentionCache& c) {
        return str_cat("AttentionCache(", c.is_static ? "static, " : "", "positions=", c.length(),
                       c.key.defined() ? str_cat(", key=", shape_str(c.key.shape())) : std::string(), ")");
      });
  py::class_<KVCache, std::shared_ptr<KVCache>>(m, "KVCache",
      "The key/value caches of a whole decoder: one self-attention and one cross-attention cache per layer.")
      .def(py::init<>(),
        "An empty cache for every layer of a decoder.")
      .def("self_attention", &KVCache::self_attention, py::arg("layer"),
        "The self-attention cache of layer `layer`.")
      .def("cross_attention", &KVCache::cross_attention, py::arg("layer"),
        "The cross-attention cache of layer `layer` (the encoder's keys and values).")
      .def("get_seq_length", &KVCache::get_seq_length,
        "The number of positions cached.")
      .def("__len__", &KVCache::num_layers,
        "The number of layers.")
      .def("reorder_cache", &KVCache::reorder_cache, py::arg("beam_idx"), Release(),
        "Keep the batch rows beam_idx in every layer (beam search).")
      .def("reset", &KVCache::reset,
        "Forget every cached position of every layer.")
      .def("__repr__", [](const KVCache& c) {
        return str_cat("KVCache(layers=", c.num_layers(), ", positions=", c.get_seq_length(), ")");
      });
}

}  // namespace seqlab::bind
