// Multi-head attention and the Transformer layers: the functionals (ops/multihead_attention.hpp,
// ops/transformer.hpp) for seqlab.nn.functional and seqlab.nn's modules, and the C++ twins
// (nn/transformer.hpp) in seqlab._core.cpp_nn. Also where torch's Python warnings about mask
// dtypes are raised, since C++ has no warnings: before the compute, with the GIL held.
#include <pybind11/functional.h>

#include "bind_common.hpp"
#include "seqlab/nn/transformer.hpp"
#include "seqlab/ops/multihead_attention.hpp"
#include "seqlab/ops/transformer.hpp"

namespace seqlab::bind {

namespace {

// torch's F._canonical_mask warns when a mask's dtype differs from its companion's.
void warn_mismatched_masks(const OptTensor& mask, const char* mask_name, const OptTensor& other,
                           const char* other_name) {
  if (!mask || !other || mask->dtype() == other->dtype()) return;
  const std::string msg = str_cat("Support for mismatched ", mask_name, " and ", other_name,
                                  " is deprecated. Use same type for both instead.");
  if (PyErr_WarnEx(PyExc_UserWarning, msg.c_str(), 1) < 0) throw py::error_already_set();
}

// A Python callable as the feed-forward activation. The compute runs without the GIL, so the
// call (and the release of the callable) takes it back; the result must be a seqlab Tensor.
struct PyCallable {
  explicit PyCallable(py::object f) : fn(std::move(f)) {}
  ~PyCallable() {
    py::gil_scoped_acquire gil;
    fn.release().dec_ref();
  }
  PyCallable(const PyCallable&) = delete;
  PyCallable& operator=(const PyCallable&) = delete;
  py::object fn;
};

Activation activation_arg(const py::handle& a, const char* layer) {
  if (a.is_none()) return transformer_activation("relu");
  if (py::isinstance<py::str>(a)) return transformer_activation(a.cast<std::string>());
  if (!PyCallable_Check(a.ptr()))
    throw py::type_error(str_cat(layer, ": activation must be 'relu', 'gelu' or a callable, not ", type_name(a)));
  auto held = std::make_shared<PyCallable>(py::reinterpret_borrow<py::object>(a));
  std::string name = layer;
  return [held, name](const Tensor& x) -> Tensor {
    py::gil_scoped_acquire gil;
    py::object y = held->fn(x);
    if (!py::isinstance<TensorImpl>(y))
      throw py::type_error(str_cat(name, ": the activation returned ", type_name(y), ", not a Tensor"));
    return y.cast<Tensor>();
  };
}

// A layer's GLU projection linear3: None when the layer has none (its weight undefined).
template <class P>
py::object linear3_of(const P& p) {
  return p.linear3.weight.defined() ? py::cast(p.linear3) : py::none();
}
template <class P>
void set_linear3(P& p, py::handle v) {
  p.linear3 = v.is_none() ? LinearParams() : v.cast<LinearParams>();
}

// A layer record's activation read back: a callable of the C++ function it became.
template <typename P>
py::object activation_of(const P& p) {
  if (!p.activation) return py::none();
  return py::cpp_function(p.activation);
}

py::object none_if_undefined(const Tensor& t) { return t.defined() ? py::cast(t) : py::none(); }

// (a py::object, not a py::tuple: through_float32 rounds the tensors of an object for 16-bit inputs)
py::object pair_result(const std::pair<Tensor, Tensor>& r) {
  return py::make_tuple(r.first, none_if_undefined(r.second));
}

template <typename M, typename Base = nn::Module>
using Class = py::class_<M, Base, std::shared_ptr<M>>;

void warn_encoder_nested(const nn::TransformerEncoder& enc) {
  if (!enc.options.enable_nested_tensor() || enc.why_not_sparsity_fast_path.empty()) return;
  const std::string msg = "enable_nested_tensor is True, but self.use_nested_tensor is False because " +
                          enc.why_not_sparsity_fast_path;
  if (PyErr_WarnEx(PyExc_UserWarning, msg.c_str(), 1) < 0) throw py::error_already_set();
}

// A module's forward bound twice, as forward and as __call__ (the C++ twins have no hooks).
template <typename Cls, typename F, typename... Extra>
void def_forward(Cls& cls, F&& f, const Extra&... extra) {
  cls.def("forward", f, extra...);
  cls.def("__call__", std::forward<F>(f), extra...);
}

// The activation option: "relu", "gelu" or a callable; read back as the name, or the callable.
template <class O>
void activation_option(ModuleOptions<O>& options, const char* layer) {
  options.arg(
      "activation",
      [](const O& o) -> py::object {
        const nn::TransformerActivation& a = o.activation();
        if (!a.name.empty()) return py::str(a.name);
        return a.fn ? py::object(py::cpp_function(a.fn)) : py::object(py::none());
      },
      [layer](O& o, py::handle a) {
        if (py::isinstance<py::str>(a)) {
          o.activation(nn::TransformerActivation(a.cast<std::string>()));
        } else {
          o.activation(nn::TransformerActivation(activation_arg(a, layer)));
        }
      });
}

// The fields after the activation that the layers' options and TransformerOptions share.
template <class O>
ModuleOptions<O>& norm_and_layout_args(ModuleOptions<O>& options) {
  return options.arg("layer_norm_eps", &O::layer_norm_eps, &O::layer_norm_eps)
      .arg("batch_first", &O::batch_first, &O::batch_first)
      .arg("norm_first", &O::norm_first, &O::norm_first)
      .arg("bias", &O::bias, &O::bias)
      .arg("dtype", &O::dtype, &O::dtype);
}

// TransformerLayerOptions, also named TransformerEncoderLayerOptions and TransformerDecoderLayerOptions.
ModuleOptions<nn::TransformerLayerOptions> transformer_layer_options(py::module_& c) {
  using O = nn::TransformerLayerOptions;
  ModuleOptions<O> options(c, "TransformerLayerOptions", [] { return O(0, 0); });
  options.arg("d_model", &O::d_model, &O::d_model)
      .arg("nhead", &O::nhead, &O::nhead)
      .arg("dim_feedforward", &O::dim_feedforward, &O::dim_feedforward)
      .arg("dropout", &O::dropout, &O::dropout);
  activation_option(options, "TransformerLayerOptions");
  norm_and_layout_args(options)
      .arg("pos", &O::pos, &O::pos)
      .arg("scale", &O::scale, &O::scale)
      .arg("num_key_value_heads", &O::num_key_value_heads, &O::num_key_value_heads)
      .arg("rms_norm", &O::rms_norm, &O::rms_norm)
      .arg("glu", &O::glu, &O::glu)
      .arg("head_dim", &O::head_dim, &O::head_dim);
  options.required({"d_model", "nhead"});
  c.attr("TransformerEncoderLayerOptions") = options.cls();
  c.attr("TransformerDecoderLayerOptions") = options.cls();
  return options;
}

}  // namespace

void bind_transformer(py::module_& m) {
  // --- torch.nn.functional.multi_head_attention_forward, torch's signature.
  def_op(m, "multi_head_attention_forward",
        [](const Tensor& query, const Tensor& key, const Tensor& value, int64_t embed_dim_to_check, int64_t num_heads,
           OptTensor in_proj_weight, OptTensor in_proj_bias, OptTensor bias_k, OptTensor bias_v, bool add_zero_attn,
           double dropout_p, const Tensor& out_proj_weight, OptTensor out_proj_bias, bool training,
           OptTensor key_padding_mask, bool need_weights, OptTensor attn_mask, bool use_separate_proj_weight,
           OptTensor q_proj_weight, OptTensor k_proj_weight, OptTensor v_proj_weight, OptTensor static_k,
           OptTensor static_v, bool average_attn_weights, bool is_causal) {
          warn_mismatched_masks(key_padding_mask, "key_padding_mask", attn_mask, "attn_mask");
          auto o = MultiheadAttentionForwardOptions(embed_dim_to_check, num_heads, opt(in_proj_weight),
                                                    opt(in_proj_bias), opt(bias_k), opt(bias_v), add_zero_attn,
                                                    dropout_p, out_proj_weight, opt(out_proj_bias))
                       .training(training)
                       .key_padding_mask(opt(key_padding_mask))
                       .need_weights(need_weights)
                       .attn_mask(opt(attn_mask))
                       .use_separate_proj_weight(use_separate_proj_weight)
                       .q_proj_weight(opt(q_proj_weight))
                       .k_proj_weight(opt(k_proj_weight))
                       .v_proj_weight(opt(v_proj_weight))
                       .static_k(opt(static_k))
                       .static_v(opt(static_v))
                       .average_attn_weights(average_attn_weights)
                       .is_causal(is_causal);
          auto r = released([&] { return multi_head_attention_forward(query, key, value, o); });
          return pair_result(r);
        },
        py::arg("query"), py::arg("key"), py::arg("value"), py::arg("embed_dim_to_check"), py::arg("num_heads"),
        py::arg("in_proj_weight"), py::arg("in_proj_bias"), py::arg("bias_k"), py::arg("bias_v"),
        py::arg("add_zero_attn"), py::arg("dropout_p"), py::arg("out_proj_weight"), py::arg("out_proj_bias"),
        py::arg("training") = true, py::arg("key_padding_mask") = py::none(), py::arg("need_weights") = true,
        py::arg("attn_mask") = py::none(), py::arg("use_separate_proj_weight") = false,
        py::arg("q_proj_weight") = py::none(), py::arg("k_proj_weight") = py::none(),
        py::arg("v_proj_weight") = py::none(), py::arg("static_k") = py::none(), py::arg("static_v") = py::none(),
        py::arg("average_attn_weights") = true, py::arg("is_causal") = false,
        "Multi-head attention, softmax(Q K^T / sqrt(d_k) + mask) V per head, with the input and output\n"
        "projections (Vaswani et al. 2017, §3.2; F.multi_head_attention_forward): (attn_output,\n"
        "attn_output_weights).");

  // --- what the modules pass: their parameters and options, field by field (Record: the Python
  // modules build them from the field names, python/seqlab/nn/modules/activation.py's _params).
  Record<MultiheadAttentionParams>(m, "MultiheadAttentionParams", "What a MultiheadAttention passes to its functional.")
      .field("embed_dim", &MultiheadAttentionParams::embed_dim)
      .field("num_heads", &MultiheadAttentionParams::num_heads)
      .field("dropout", &MultiheadAttentionParams::dropout)
      .field("add_zero_attn", &MultiheadAttentionParams::add_zero_attn)
      .field("batch_first", &MultiheadAttentionParams::batch_first)
      .field("in_proj_weight", &MultiheadAttentionParams::in_proj_weight)
      .field("q_proj_weight", &MultiheadAttentionParams::q_proj_weight)
      .field("k_proj_weight", &MultiheadAttentionParams::k_proj_weight)
      .field("v_proj_weight", &MultiheadAttentionParams::v_proj_weight)
      .field("in_proj_bias", &MultiheadAttentionParams::in_proj_bias)
      .field("out_proj_weight", &MultiheadAttentionParams::out_proj_weight)
      .field("out_proj_bias", &MultiheadAttentionParams::out_proj_bias)
      .field("bias_k", &MultiheadAttentionParams::bias_k)
      .field("bias_v", &MultiheadAttentionParams::bias_v)
      .field(
          "pos", [](const MultiheadAttentionParams& p) { return p.pos; },
          [](MultiheadAttentionParams& p, py::handle v) {  // None: torch's attention
            p.pos = v.is_none() ? PositionalScheme() : v.cast<PositionalScheme>();
          })
      .field("scale", &MultiheadAttentionParams::scale)
      .field("num_key_value_heads", &MultiheadAttentionParams::num_key_value_heads)
      .field("head_dim", &MultiheadAttentionParams::head_dim)
      .done();
  Record<LinearParams>(m, "LinearParams", "What a Linear passes to the layer functionals.")
      .field("weight", &LinearParams::weight)
      .field("bias", &LinearParams::bias)
      .done();
  Record<LayerNormParams>(m, "LayerNormParams", "What a LayerNorm passes to the layer functionals.")
      .field(
          "normalized_shape", [](const LayerNormParams& p) { return p.normalized_shape; },
          [](LayerNormParams& p, py::handle v) { p.normalized_shape = size_arg(v, "LayerNorm", "normalized_shape"); })
      .field("weight", &LayerNormParams::weight)
      .field("bias", &LayerNormParams::bias)
      .field("eps", &LayerNormParams::eps)
      .field("rms", &LayerNormParams::rms)
      .done();
  const auto set_encoder_activation = [](TransformerEncoderLayerParams& p, py::handle v) {
    p.activation = activation_arg(v, "TransformerEncoderLayer");
  };
  Record<TransformerEncoderLayerParams>(m, "TransformerEncoderLayerParams",
                                        "What a TransformerEncoderLayer passes to its functional.")
      .field("self_attn", &TransformerEncoderLayerParams::self_attn)
      .field("linear1", &TransformerEncoderLayerParams::linear1)
      .field("linear2", &TransformerEncoderLayerParams::linear2)
      .field("linear3", &linear3_of<TransformerEncoderLayerParams>, &set_linear3<TransformerEncoderLayerParams>)
      .field("norm1", &TransformerEncoderLayerParams::norm1)
      .field("norm2", &TransformerEncoderLayerParams::norm2)
      .field("dropout", &TransformerEncoderLayerParams::dropout)
      .field("dropout1", &TransformerEncoderLayerParams::dropout1)
      .field("dropout2", &TransformerEncoderLayerParams::dropout2)
      .field("activation", &activation_of<TransformerEncoderLayerParams>, set_encoder_activation)
      .field("norm_first", &TransformerEncoderLayerParams::norm_first)
      .done();
  const auto set_decoder_activation = [](TransformerDecoderLayerParams& p, py::handle v) {
    p.activation = activation_arg(v, "TransformerDecoderLayer");
  };
  Record<TransformerDecoderLayerParams>(m, "TransformerDecoderLayerParams",
                                        "What a TransformerDecoderLayer passes to its functional.")
      .field("self_attn", &TransformerDecoderLayerParams::self_attn)
      .field("multihead_attn", &TransformerDecoderLayerParams::multihead_attn)
      .field("linear1", &TransformerDecoderLayerParams::linear1)
      .field("linear2", &TransformerDecoderLayerParams::linear2)
      .field("linear3", &linear3_of<TransformerDecoderLayerParams>, &set_linear3<TransformerDecoderLayerParams>)
      .field("norm1", &TransformerDecoderLayerParams::norm1)
      .field("norm2", &TransformerDecoderLayerParams::norm2)
      .field("norm3", &TransformerDecoderLayerParams::norm3)
      .field("dropout", &TransformerDecoderLayerParams::dropout)
      .field("dropout1", &TransformerDecoderLayerParams::dropout1)
      .field("dropout2", &TransformerDecoderLayerParams::dropout2)
      .field("dropout3", &TransformerDecoderLayerParams::dropout3)
      .field("activation", &activation_of<TransformerDecoderLayerParams>, set_decoder_activation)
      .field("norm_first", &TransformerDecoderLayerParams::norm_first)
      .done();

  // --- the modules' forwards.
  def_op(m, "multihead_attention", [](const Tensor& query, const Tensor& key, const Tensor& value,
                                  const MultiheadAttentionParams& p, bool training, OptTensor key_padding_mask,
                                  bool need_weights, OptTensor attn_mask, bool average_attn_weights, bool is_causal,
                                  AttentionCache* cache) {
    warn_mismatched_masks(key_padding_mask, "key_padding_mask", attn_mask, "attn_mask");
    auto r = released([&] {
      return multihead_attention_module_forward(query, key, value, p, training, opt(key_padding_mask), need_weights,
                                                opt(attn_mask), average_attn_weights, is_causal, cache);
    });
    return pair_result(r);
  }, py::arg("query"), py::arg("key"), py::arg("value"), py::arg("params"), py::arg("training"),
        py::arg("key_padding_mask") = py::none(), py::arg("need_weights") = true, py::arg("attn_mask") = py::none(),
        py::arg("average_attn_weights") = true, py::arg("is_causal") = false, py::arg("cache") = py::none());
  def_op(m, "transformer_encoder_layer", [](const Tensor& src, const TransformerEncoderLayerParams& p, bool training,
                                        OptTensor src_mask, OptTensor src_key_padding_mask, bool is_causal,
                                        AttentionCache* cache) {
    warn_mismatched_masks(src_key_padding_mask, "src_key_padding_mask", src_mask, "src_mask");
    return released([&] {
      return transformer_encoder_layer_forward(src, p, training, opt(src_mask), opt(src_key_padding_mask), is_causal,
                                               cache);
    });
  }, py::arg("src"), py::arg("params"), py::arg("training"), py::arg("src_mask") = py::none(),
        py::arg("src_key_padding_mask") = py::none(), py::arg("is_causal") = false, py::arg("cache") = py::none());
  def_op(m, "transformer_decoder_layer", [](const Tensor& tgt, const Tensor& memory, const TransformerDecoderLayerParams& p,
                                        bool training, OptTensor tgt_mask, OptTensor memory_mask,
                                        OptTensor tgt_key_padding_mask, OptTensor memory_key_padding_mask,
                                        bool tgt_is_causal, bool memory_is_causal, AttentionCache* cache,
                                        AttentionCache* memory_cache) {
    // The warnings of the layer's two MultiheadAttention modules.
    warn_mismatched_masks(tgt_key_padding_mask, "key_padding_mask", tgt_mask, "attn_mask");
    warn_mismatched_masks(memory_key_padding_mask, "key_padding_mask", memory_mask, "attn_mask");
    return released([&] {
      return transformer_decoder_layer_forward(tgt, memory, p, training, opt(tgt_mask), opt(memory_mask),
                                               opt(tgt_key_padding_mask), opt(memory_key_padding_mask), tgt_is_causal,
                                               memory_is_causal, cache, memory_cache);
    });
  }, py::arg("tgt"), py::arg("memory"), py::arg("params"), py::arg("training"), py::arg("tgt_mask") = py::none(),
        py::arg("memory_mask") = py::none(), py::arg("tgt_key_padding_mask") = py::none(),
        py::arg("memory_key_padding_mask") = py::none(), py::arg("tgt_is_causal") = false,
        py::arg("memory_is_causal") = false, py::arg("cache") = py::none(), py::arg("memory_cache") = py::none());

  // --- the stacks' helpers.
  m.def("check_multihead_attention_args", &check_multihead_attention_args, py::arg("embed_dim"),
        py::arg("num_heads"));
  def_op(m, "canonical_mask", [](OptTensor mask, const std::string& mask_name, OptTensor other,
                             const std::string& other_name, Dtype dtype) -> py::object {
    warn_mismatched_masks(mask, mask_name.c_str(), other, other_name.c_str());
    return none_if_undefined(canonical_mask(opt(mask), mask_name, dtype));
  }, py::arg("mask"), py::arg("mask_name"), py::arg("other"), py::arg("other_name"), py::arg("target_type"));
  m.def("transformer_activation_check", [](const std::string& name) { transformer_activation(name); },
        py::arg("activation"));
  def_op(m, "generate_square_subsequent_mask", &generate_square_subsequent_mask, py::arg("sz"),
        py::arg("dtype") = Dtype::Float32, Release());
  def_op(m, "detect_is_causal_mask", [](OptTensor mask, std::optional<bool> is_causal, std::optional<int64_t> size) {
    return detect_is_causal_mask(opt(mask), is_causal, size);
  }, py::arg("mask"), py::arg("is_causal") = py::none(), py::arg("size") = py::none(), Release());
  m.def("transformer_encoder_why_not_nested", &transformer_encoder_why_not_nested, py::arg("is_encoder_layer"),
        py::arg("norm_first"), py::arg("batch_first"), py::arg("qkv_same_embed_dim"), py::arg("has_in_proj_bias"),
        py::arg("activation_relu_or_gelu"), py::arg("norm1_eps"), py::arg("norm2_eps"), py::arg("num_heads"));
  def_op(m, "transformer_encoder_nested_padding", [](const Tensor& src, OptTensor kpm, OptTensor mask, bool use_nested,
                                                 bool training, bool mask_check,
                                                 const std::vector<OptTensor>& params) -> py::object {
    TensorList ps;
    for (const auto& t : params) ps.push_back(opt(t));
    Tensor r = released([&] {
      return transformer_encoder_nested_padding(src, opt(kpm), opt(mask), use_nested, training, mask_check, ps);
    });
    return none_if_undefined(r);
  }, py::arg("src"), py::arg("src_key_padding_mask"), py::arg("mask"), py::arg("use_nested_tensor"),
        py::arg("first_layer_training"), py::arg("mask_check"), py::arg("first_layer_params"));
  m.def("check_transformer_inputs", &check_transformer_inputs, py::arg("src"), py::arg("tgt"), py::arg("d_model"),
        py::arg("batch_first"));

  // --- the C++ twins, with the Python modules' constructor arguments.
  py::module_ c = m.attr("cpp_nn").cast<py::module_>();
  Class<nn::ModuleList>(c, "ModuleList")
      .def("__len__", &nn::ModuleList::size)
      .def("__getitem__", [](const nn::ModuleList& l, size_t i) { return l[i]; }, py::arg("idx"));

  auto mha_forward = [](nn::MultiheadAttention& mod, const Tensor& query, const Tensor& key, const Tensor& value,
                        OptTensor key_padding_mask, bool need_weights, OptTensor attn_mask, bool average_attn_weights,
                        bool is_causal, AttentionCache* cache) {
    warn_mismatched_masks(key_padding_mask, "key_padding_mask", attn_mask, "attn_mask");
    auto r = released([&] {
      return mod.forward(query, key, value, opt(key_padding_mask), need_weights, opt(attn_mask),
                         average_attn_weights, is_causal, cache);
    });
    return pair_result(r);
  };
  using MHAO = nn::MultiheadAttentionOptions;
  Class<nn::MultiheadAttention> mha(c, "MultiheadAttention");
  ModuleOptions<MHAO>(c, "MultiheadAttentionOptions", [] { return MHAO(0, 0); })
      .arg("embed_dim", &MHAO::embed_dim, &MHAO::embed_dim)
      .arg("num_heads", &MHAO::num_heads, &MHAO::num_heads)
      .arg("dropout", &MHAO::dropout, &MHAO::dropout)
      .arg("bias", &MHAO::bias, &MHAO::bias)
      .arg("add_bias_kv", &MHAO::add_bias_kv, &MHAO::add_bias_kv)
      .arg("add_zero_attn", &MHAO::add_zero_attn, &MHAO::add_zero_attn)
      .arg("kdim", &MHAO::kdim, &MHAO::kdim)
      .arg("vdim", &MHAO::vdim, &MHAO::vdim)
      .arg("batch_first", &MHAO::batch_first, &MHAO::batch_first)
      .arg("dtype", &MHAO::dtype, &MHAO::dtype)
      .arg("pos", &MHAO::pos, &MHAO::pos)
      .arg("scale", &MHAO::scale, &MHAO::scale)
      .arg("num_key_value_heads", &MHAO::num_key_value_heads, &MHAO::num_key_value_heads)
      .arg("head_dim", &MHAO::head_dim, &MHAO::head_dim)
      .required({"embed_dim", "num_heads"})
      .module_init<nn::MultiheadAttention>(mha, "MultiheadAttention");
  def_forward(mha, mha_forward, py::arg("query"), py::arg("key"), py::arg("value"),
              py::arg("key_padding_mask") = py::none(), py::arg("need_weights") = true,
              py::arg("attn_mask") = py::none(), py::arg("average_attn_weights") = true,
              py::arg("is_causal") = false, py::arg("cache") = py::none());

  auto encoder_layer_forward = [](nn::TransformerEncoderLayer& mod, const Tensor& src, OptTensor src_mask,
                                  OptTensor src_key_padding_mask, bool is_causal, AttentionCache* cache) {
    warn_mismatched_masks(src_key_padding_mask, "src_key_padding_mask", src_mask, "src_mask");
    return released([&] { return mod.forward(src, opt(src_mask), opt(src_key_padding_mask), is_causal, cache); });
  };
  // One struct under torch's two names (TransformerEncoderLayerOptions, TransformerDecoderLayerOptions).
  auto layer_options = transformer_layer_options(c);
  Class<nn::TransformerEncoderLayer> encoder_layer(c, "TransformerEncoderLayer");
  layer_options.module_init<nn::TransformerEncoderLayer>(encoder_layer, "TransformerEncoderLayer");
  def_forward(encoder_layer, encoder_layer_forward, py::arg("src"), py::arg("src_mask") = py::none(),
              py::arg("src_key_padding_mask") = py::none(), py::arg("is_causal") = false,
              py::arg("cache") = py::none());

  auto decoder_layer_forward = [](nn::TransformerDecoderLayer& mod, const Tensor& tgt, const Tensor& memory,
                                  OptTensor tgt_mask, OptTensor memory_mask, OptTensor tgt_key_padding_mask,
                                  OptTensor memory_key_padding_mask, bool tgt_is_causal, bool memory_is_causal,
                                  AttentionCache* cache, AttentionCache* memory_cache) {
    warn_mismatched_masks(tgt_key_padding_mask, "key_padding_mask", tgt_mask, "attn_mask");
    warn_mismatched_masks(memory_key_padding_mask, "key_padding_mask", memory_mask, "attn_mask");
    return released([&] {
      return mod.forward(tgt, memory, opt(tgt_mask), opt(memory_mask), opt(tgt_key_padding_mask),
                         opt(memory_key_padding_mask), tgt_is_causal, memory_is_causal, cache, memory_cache);
    });
  };
  Class<nn::TransformerDecoderLayer> decoder_layer(c, "TransformerDecoderLayer");
  layer_options.module_init<nn::TransformerDecoderLayer>(decoder_layer, "TransformerDecoderLayer");
  def_forward(decoder_layer, decoder_layer_forward, py::arg("tgt"), py::arg("memory"),
              py::arg("tgt_mask") = py::none(), py::arg("memory_mask") = py::none(),
              py::arg("tgt_key_padding_mask") = py::none(), py::arg("memory_key_padding_mask") = py::none(),
              py::arg("tgt_is_causal") = false, py::arg("memory_is_causal") = false, py::arg("cache") = py::none(),
              py::arg("memory_cache") = py::none());

  auto encoder_forward = [](nn::TransformerEncoder& mod, const Tensor& src, OptTensor mask,
                            OptTensor src_key_padding_mask, std::optional<bool> is_causal, KVCache* cache) {
    warn_mismatched_masks(src_key_padding_mask, "src_key_padding_mask", mask, "mask");
    return released([&] { return mod.forward(src, opt(mask), opt(src_key_padding_mask), is_causal, cache); });
  };
  using TEO = nn::TransformerEncoderOptions;
  Class<nn::TransformerEncoder> encoder(c, "TransformerEncoder");
  ModuleOptions<TEO>(c, "TransformerEncoderOptions", [] { return TEO(nullptr, 0); })
      .arg("encoder_layer", &TEO::encoder_layer, &TEO::encoder_layer)
      .arg("num_layers", &TEO::num_layers, &TEO::num_layers)
      .arg("norm", &TEO::norm, &TEO::norm)
      .arg("enable_nested_tensor", &TEO::enable_nested_tensor, &TEO::enable_nested_tensor)
      .arg("mask_check", &TEO::mask_check, &TEO::mask_check)
      .required({"encoder_layer", "num_layers"})
      .module_init<nn::TransformerEncoder>(encoder, "TransformerEncoder", warn_encoder_nested);
  encoder.def_readonly("use_nested_tensor", &nn::TransformerEncoder::use_nested_tensor);
  def_forward(encoder, encoder_forward, py::arg("src"), py::arg("mask") = py::none(),
              py::arg("src_key_padding_mask") = py::none(), py::arg("is_causal") = py::none(),
              py::arg("cache") = py::none());

  auto decoder_forward = [](nn::TransformerDecoder& mod, const Tensor& tgt, const Tensor& memory, OptTensor tgt_mask,
                            OptTensor memory_mask, OptTensor tgt_key_padding_mask, OptTensor memory_key_padding_mask,
                            std::optional<bool> tgt_is_causal, bool memory_is_causal, KVCache* cache) {
    warn_mismatched_masks(tgt_key_padding_mask, "key_padding_mask", tgt_mask, "attn_mask");
    warn_mismatched_masks(memory_key_padding_mask, "key_padding_mask", memory_mask, "attn_mask");
    return released([&] {
      return mod.forward(tgt, memory, opt(tgt_mask), opt(memory_mask), opt(tgt_key_padding_mask),
                         opt(memory_key_padding_mask), tgt_is_causal, memory_is_causal, cache);
    });
  };
  using TDO = nn::TransformerDecoderOptions;
  Class<nn::TransformerDecoder> decoder(c, "TransformerDecoder");
  ModuleOptions<TDO>(c, "TransformerDecoderOptions", [] { return TDO(nullptr, 0); })
      .arg("decoder_layer", &TDO::decoder_layer, &TDO::decoder_layer)
      .arg("num_layers", &TDO::num_layers, &TDO::num_layers)
      .arg("norm", &TDO::norm, &TDO::norm)
      .required({"decoder_layer", "num_layers"})
      .module_init<nn::TransformerDecoder>(decoder, "TransformerDecoder");
  def_forward(decoder, decoder_forward, py::arg("tgt"), py::arg("memory"), py::arg("tgt_mask") = py::none(),
              py::arg("memory_mask") = py::none(), py::arg("tgt_key_padding_mask") = py::none(),
              py::arg("memory_key_padding_mask") = py::none(), py::arg("tgt_is_causal") = py::none(),
              py::arg("memory_is_causal") = false, py::arg("cache") = py::none());

  auto transformer_forward = [](nn::Transformer& mod, const Tensor& src, const Tensor& tgt, OptTensor src_mask,
                                OptTensor tgt_mask, OptTensor memory_mask, OptTensor src_key_padding_mask,
                                OptTensor tgt_key_padding_mask, OptTensor memory_key_padding_mask,
                                std::optional<bool> src_is_causal, std::optional<bool> tgt_is_causal,
                                bool memory_is_causal) {
    warn_mismatched_masks(src_key_padding_mask, "src_key_padding_mask", src_mask, "mask");
    warn_mismatched_masks(tgt_key_padding_mask, "key_padding_mask", tgt_mask, "attn_mask");
    warn_mismatched_masks(memory_key_padding_mask, "key_padding_mask", memory_mask, "attn_mask");
    return released([&] {
      return mod.forward(src, tgt, opt(src_mask), opt(tgt_mask), opt(memory_mask), opt(src_key_padding_mask),
                         opt(tgt_key_padding_mask), opt(memory_key_padding_mask), src_is_causal, tgt_is_causal,
                         memory_is_causal);
    });
  };
  using TO = nn::TransformerOptions;
  Class<nn::Transformer> transformer(c, "Transformer");
  ModuleOptions<TO> transformer_options(c, "TransformerOptions");
  transformer_options.arg("d_model", &TO::d_model, &TO::d_model)
      .arg("nhead", &TO::nhead, &TO::nhead)
      .arg("num_encoder_layers", &TO::num_encoder_layers, &TO::num_encoder_layers)
      .arg("num_decoder_layers", &TO::num_decoder_layers, &TO::num_decoder_layers)
      .arg("dim_feedforward", &TO::dim_feedforward, &TO::dim_feedforward)
      .arg("dropout", &TO::dropout, &TO::dropout);
  activation_option(transformer_options, "Transformer");
  transformer_options.arg("custom_encoder", &TO::custom_encoder, &TO::custom_encoder)
      .arg("custom_decoder", &TO::custom_decoder, &TO::custom_decoder);
  norm_and_layout_args(transformer_options)
      .module_init<nn::Transformer>(transformer, "Transformer", [](const nn::Transformer& t) {
        if (!t.options.custom_encoder()) warn_encoder_nested(*t.encoder);
      });
  transformer.def_static("generate_square_subsequent_mask", &nn::Transformer::generate_square_subsequent_mask,
                         py::arg("sz"), py::arg("dtype") = Dtype::Float32);
  def_forward(transformer, transformer_forward, py::arg("src"), py::arg("tgt"), py::arg("src_mask") = py::none(),
              py::arg("tgt_mask") = py::none(), py::arg("memory_mask") = py::none(),
              py::arg("src_key_padding_mask") = py::none(), py::arg("tgt_key_padding_mask") = py::none(),
              py::arg("memory_key_padding_mask") = py::none(), py::arg("src_is_causal") = py::none(),
              py::arg("tgt_is_causal") = py::none(), py::arg("memory_is_causal") = false);
}

}  // namespace seqlab::bind
