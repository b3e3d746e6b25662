"""Hugging Face checkpoints loaded with seqlab.hub.from_pretrained give Hugging Face's outputs.

For each supported architecture, tiny models are built from a config with transformers (5.24),
their weights drawn at random with a seed (larger than the init's, so that the next-token
logits are well apart and greedy and beam search have no near-ties), saved with save_pretrained
and loaded by seqlab. Compared with transformers' own forward: logits, every hidden state and
every attention map, in float64 and float32; generate(), greedy and beam, plain and with
left-padded prompts. Then the files: sharded and torch.save checkpoints, 16-bit weights (widened
by default, kept with dtype= or dtype="auto"), and bad checkpoints, each an error naming the file and the tensor or field. python/seqlab/hub/."""
import copy
import json
import os
import shutil

import numpy as np
import pytest
import safetensors.numpy
import torch
import transformers
from transformers import (BloomConfig, BloomForCausalLM, GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM,
                          T5Config, T5ForConditionalGeneration)

import seqlab
from seqlab import hub

transformers.logging.set_verbosity_error()
V, EOS, PAD = 61, 3, 1  # (PAD not 0: transformers' beam search pads a left-padded batch with eos when it is 0)

# (id, transformers model class, config): each a variant a converter must get right
MODELS = [
    ("gpt2", GPT2LMHeadModel, GPT2Config(vocab_size=V, n_positions=40, n_embd=24, n_layer=3, n_head=4)),
    ("gpt2-untied-relu-ff40", GPT2LMHeadModel,
     GPT2Config(vocab_size=V, n_positions=40, n_embd=24, n_layer=2, n_head=3, n_inner=40, activation_function="relu",
                tie_word_embeddings=False)),
    ("gpt2-erf-gelu-unscaled", GPT2LMHeadModel,
     GPT2Config(vocab_size=V, n_positions=40, n_embd=16, n_layer=2, n_head=2, activation_function="gelu",
                scale_attn_weights=False)),
    ("gpt2-inverse-layer-scale", GPT2LMHeadModel,
     GPT2Config(vocab_size=V, n_positions=40, n_embd=16, n_layer=3, n_head=4, scale_attn_by_inverse_layer_idx=True,
                layer_norm_epsilon=1e-3)),
    ("bloom", BloomForCausalLM, BloomConfig(vocab_size=V, hidden_size=24, n_layer=3, n_head=4)),
    ("bloom-3-heads", BloomForCausalLM, BloomConfig(vocab_size=V, hidden_size=24, n_layer=2, n_head=3)),
    ("bloom-6-heads-untied", BloomForCausalLM,
     BloomConfig(vocab_size=V, hidden_size=24, n_layer=2, n_head=6, tie_word_embeddings=False)),
    ("llama-gqa", LlamaForCausalLM,
     LlamaConfig(vocab_size=V, hidden_size=24, intermediate_size=40, num_hidden_layers=3, num_attention_heads=4,
                 num_key_value_heads=2, rope_theta=500.0)),
    ("llama-mha-tied", LlamaForCausalLM,
     LlamaConfig(vocab_size=V, hidden_size=24, intermediate_size=32, num_hidden_layers=2, num_attention_heads=3,
                 tie_word_embeddings=True, rms_norm_eps=1e-5)),
    ("llama-mqa-biased", LlamaForCausalLM,
     LlamaConfig(vocab_size=V, hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=4,
                 num_key_value_heads=1, attention_bias=True, mlp_bias=True)),
    ("llama-wide-heads", LlamaForCausalLM,  # 4 heads of head_dim 10 span 40 features of the 24
     LlamaConfig(vocab_size=V, hidden_size=24, intermediate_size=40, num_hidden_layers=2, num_attention_heads=4,
                 num_key_value_heads=2, head_dim=10)),
]
IDS = [m[0] for m in MODELS]

# How closely seqlab's float64 forward can equal transformers': to rounding, except where
# transformers computes in float32 whatever the model's dtype: BLOOM's and Llama's attention take
# their softmax in float32 (F.softmax(attn_weights, dim=-1, dtype=torch.float32)), and Llama's
# rotary cos/sin come from float32 frequencies (LlamaRotaryEmbedding: inv_freq ... .float()).
F64_TOL = {"gpt2": 1e-9, "bloom": 1e-6, "llama": 1e-5}


def hf_model(cls, config, seed=0):
    config = config.__class__.from_dict({**config.to_dict(), "bos_token_id": EOS, "eos_token_id": EOS})
    torch.manual_seed(seed)
    model = cls._from_config(config, attn_implementation="eager").eval()
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            gain = 1.0 if "ln" in name.split(".")[-2] or "layernorm" in name and name.endswith("weight") else 0.0
            p.copy_(gain + 0.4 * torch.randn(p.shape, generator=g))
    return model


@pytest.fixture(scope="module", params=MODELS, ids=IDS)
def saved(request, tmp_path_factory):
    """(id, transformers model in float64, the directory save_pretrained wrote it to)."""
    name, cls, config = request.param
    model = hf_model(cls, config)
    path = tmp_path_factory.mktemp(name)
    model.save_pretrained(path)
    return name, model.double(), path


def rel_err(got, want):
    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    return float(np.abs(got - want).max() / max(np.abs(want).max(), 1e-30))


def prompts(seed=0, shape=(3, 7)):
    return np.random.default_rng(seed).integers(4, V, size=shape)


def test_the_supported_architectures_are_the_registered_ones():
    assert hub.supported_architectures() == ["bloom", "deberta-v2", "gpt2", "llama", "t5"]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_logits_hidden_states_and_attentions_equal_hugging_faces(saved, dtype):
    name, hf, path = saved
    tol = F64_TOL[name.split("-")[0]] if dtype == "float64" else 1e-4
    model = hub.from_pretrained(path, dtype=getattr(seqlab, dtype))
    assert not model.training and type(model) is seqlab.nn.TransformerLM
    ids = prompts()
    with torch.no_grad():
        want = copy.deepcopy(hf).to(getattr(torch, dtype))(torch.from_numpy(ids), output_hidden_states=True,
                                                          output_attentions=True)
    with seqlab.no_grad():
        got = model(seqlab.tensor(ids), output_hidden_states=True, output_attentions=True)
        plain = model(seqlab.tensor(ids))
    assert got.logits.dtype == getattr(seqlab, dtype)
    assert rel_err(got.logits, want.logits) < tol
    np.testing.assert_array_equal(plain.numpy(), got.logits.numpy())
    assert len(got.hidden_states) == len(want.hidden_states) == hf.config.num_hidden_layers + 1
    for i, (a, b) in enumerate(zip(got.hidden_states, want.hidden_states)):
        assert rel_err(a, b) < tol, f"hidden state {i}"
    assert len(got.attentions) == len(want.attentions) == hf.config.num_hidden_layers
    for i, (a, b) in enumerate(zip(got.attentions, want.attentions)):
        assert a.shape == tuple(b.shape)
        assert rel_err(a, b) < tol, f"attention of layer {i}"


def hf_generate(hf, ids, mask=None, **kw):
    with torch.no_grad():
        return hf.generate(torch.from_numpy(ids), attention_mask=None if mask is None else torch.from_numpy(mask),
                           do_sample=False, pad_token_id=PAD, **kw).numpy()


@pytest.mark.parametrize("num_beams", [1, 3])
def test_generate_returns_hugging_faces_tokens(saved, num_beams):
    name, hf, path = saved
    model = hub.from_pretrained(path, dtype=seqlab.float64)
    ids = prompts(1)
    kw = dict(max_new_tokens=12, num_beams=num_beams, eos_token_id=EOS)
    want = hf_generate(hf, ids, **kw)
    got = model.generate(seqlab.tensor(ids), pad_token_id=PAD, **kw).numpy()
    np.testing.assert_array_equal(got, want)
    # without eos_token_id: generation_config.json's, as transformers reads it
    assert model.generation_config["eos_token_id"] == EOS
    np.testing.assert_array_equal(model.generate(seqlab.tensor(ids), max_new_tokens=12, num_beams=num_beams,
                                                 pad_token_id=PAD).numpy(),
                                  hf_generate(hf, ids, max_new_tokens=12, num_beams=num_beams))


def test_generate_from_left_padded_prompts_returns_hugging_faces_tokens(saved):
    """In float32: transformers' BLOOM in float64 gives NaN logits for a left-padded row (its
    padding mask in float64 meets its float32 softmax), and it is the reference here."""
    name, hf, path = saved
    model, hf = hub.from_pretrained(path), copy.deepcopy(hf).float()
    ids = prompts(2, (3, 8))
    mask = np.ones_like(ids)
    mask[0, :3] = 0
    mask[2, :5] = 0
    ids[mask == 0] = PAD
    for num_beams in (1, 2):
        kw = dict(max_new_tokens=10, num_beams=num_beams, eos_token_id=EOS)
        got = model.generate(seqlab.tensor(ids), attention_mask=seqlab.tensor(mask), pad_token_id=PAD, **kw).numpy()
        np.testing.assert_array_equal(got, hf_generate(hf, ids, mask, **kw))


def test_the_model_trains_from_the_loaded_weights(saved):
    name, hf, path = saved
    model = hub.from_pretrained(path).train()
    ids = seqlab.tensor(prompts(3))
    loss = seqlab.nn.functional.cross_entropy(model(ids[:, :-1]).reshape(-1, V), ids[:, 1:].reshape(-1))
    loss.backward()
    assert all(p.grad is not None and np.isfinite(p.grad.numpy()).all() for p in model.parameters())
    config = hf.config.to_dict()
    assert model.layers[0].dropout1.p == pytest.approx(config.get("resid_pdrop", config.get("hidden_dropout", 0.0)))
    assert model.layers[0].self_attn.dropout == pytest.approx(config.get("attn_pdrop",
                                                                         config.get("attention_dropout", 0.0)))


def test_no_two_parameters_share_memory_unless_tied(saved):
    """The loader takes the file's tensors over as parameters where it can (no copy); no two
    distinct parameters may end up on the same memory, and tied ones stay one parameter."""
    name, hf, path = saved
    model = hub.from_pretrained(path)
    params = list(model.parameters())  # each parameter once
    addresses = [p.detach().numpy().__array_interface__["data"][0] for p in params]
    assert len(set(addresses)) == len(addresses)
    if hf.config.tie_word_embeddings:
        assert model.lm_head.weight is model.tok_emb.weight


def test_config_is_kept_as_attributes(saved):
    name, hf, path = saved
    model = hub.from_pretrained(path)
    assert model.config.model_type == hf.config.model_type
    assert model.config.vocab_size == V


# ---------------------------------------------------------------------------------- files

@pytest.fixture(scope="module")
def gpt2(tmp_path_factory):
    model = hf_model(GPT2LMHeadModel, MODELS[0][2], seed=5)
    path = tmp_path_factory.mktemp("gpt2-files")
    model.save_pretrained(path)
    return model, path


def logits_of(model, ids):
    with seqlab.no_grad():
        return model(seqlab.tensor(ids)).numpy()


def test_a_sharded_checkpoint_loads_as_the_single_file(gpt2, tmp_path):
    hf, path = gpt2
    hf.save_pretrained(tmp_path, max_shard_size="8KB")
    assert os.path.exists(tmp_path / "model.safetensors.index.json")
    assert len([f for f in os.listdir(tmp_path) if f.endswith(".safetensors")]) > 2
    ids = prompts()
    np.testing.assert_array_equal(logits_of(hub.from_pretrained(tmp_path), ids),
                                  logits_of(hub.from_pretrained(path), ids))


def test_a_torch_save_checkpoint_loads_through_torch(gpt2, tmp_path):
    hf, path = gpt2
    shutil.copy(path / "config.json", tmp_path)
    torch.save(hf.state_dict(), tmp_path / "pytorch_model.bin")
    ids = prompts()
    np.testing.assert_array_equal(logits_of(hub.from_pretrained(tmp_path), ids),
                                  logits_of(hub.from_pretrained(path), ids))


@pytest.mark.parametrize("half", ["float16", "bfloat16"])
def test_16_bit_weights_load_exactly_as_float32(gpt2, tmp_path, half):
    hf, path = gpt2
    low = hf_model(GPT2LMHeadModel, MODELS[0][2], seed=5).to(getattr(torch, half))
    low.save_pretrained(tmp_path)
    model = hub.from_pretrained(tmp_path)
    assert model.tok_emb.weight.dtype == seqlab.float32
    np.testing.assert_array_equal(model.tok_emb.weight.detach().numpy(),
                                  low.transformer.wte.weight.float().detach().numpy())
    ids = prompts()
    with torch.no_grad():
        want = low.float()(torch.from_numpy(ids)).logits.numpy()
    assert rel_err(logits_of(model, ids), want) < 1e-5


def torch_bits(t):
    return t.detach().contiguous().view(torch.int16).numpy()


@pytest.mark.parametrize("half", ["float16", "bfloat16"])
@pytest.mark.parametrize("how", ["dtype", "name", "torch_dtype", "auto", "auto-from-weights", "auto-torch-bin"])
def test_16_bit_weights_load_in_their_dtype_when_asked(tmp_path, half, how):
    """dtype=seqlab.float16/bfloat16 (or its name, or torch_dtype=) keeps a 16-bit checkpoint's dtype, bit
    for bit; dtype="auto" takes config.json's dtype, else the first floating-point tensor's (Hugging
    Face's torch_dtype="auto"), from safetensors and torch.save files alike."""
    low = hf_model(GPT2LMHeadModel, MODELS[0][2], seed=5).to(getattr(torch, half))
    low.save_pretrained(tmp_path)
    ours = getattr(seqlab._core.dtype, half)
    if how.startswith("auto-"):   # no dtype in config.json: the weights decide
        config = json.loads((tmp_path / "config.json").read_text())
        config.pop("torch_dtype", None), config.pop("dtype", None)
        (tmp_path / "config.json").write_text(json.dumps(config))
    if how == "auto-torch-bin":
        os.remove(tmp_path / "model.safetensors")
        torch.save(low.state_dict(), tmp_path / "pytorch_model.bin")
    kwargs = {"dtype": {"dtype": ours, "name": half}.get(how, "auto")}
    if how == "torch_dtype":
        kwargs = {"torch_dtype": ours}
    model = hub.from_pretrained(tmp_path, **kwargs)
    assert {p.dtype for p in model.parameters()} == {ours}
    np.testing.assert_array_equal(torch_bits(torch.from_dlpack(model.tok_emb.weight.detach())),
                                  torch_bits(low.transformer.wte.weight))
    w = low.transformer.h[0].attn.c_attn.weight   # Conv1D (in, out): transposed into in_proj_weight
    np.testing.assert_array_equal(torch_bits(torch.from_dlpack(model.layers[0].self_attn.in_proj_weight.detach())),
                                  torch_bits(w.t()))
    ids = prompts()
    with seqlab.no_grad():
        logits = model(seqlab.tensor(ids))
    assert logits.dtype == ours
    with torch.no_grad():
        want = low.float()(torch.from_numpy(ids)).logits.numpy()
    # computed in 16 bits: a few roundings from the float32 forward of the same weights
    assert rel_err(torch.from_dlpack(logits).double().numpy(), want) < (2e-2 if half == "float16" else 6e-2)


def test_auto_dtype_of_a_float32_checkpoint_is_float32_and_a_bad_config_dtype_is_named(gpt2, tmp_path):
    hf, path = gpt2
    assert {p.dtype for p in hub.from_pretrained(path, dtype="auto").parameters()} == {seqlab.float32}
    hf.save_pretrained(tmp_path)
    config = json.loads((tmp_path / "config.json").read_text())
    config.pop("dtype", None)
    config["torch_dtype"] = "int8"
    (tmp_path / "config.json").write_text(json.dumps(config))
    with pytest.raises(ValueError, match="torch_dtype = 'int8' is not a floating-point dtype"):
        hub.from_pretrained(tmp_path, dtype="auto")
    assert hub.from_pretrained(tmp_path).tok_emb.weight.dtype == seqlab.float32   # only "auto" reads it
    with pytest.raises(ValueError, match="give dtype or torch_dtype"):
        hub.from_pretrained(path, dtype=seqlab.float32, torch_dtype=seqlab.float32)


def test_transformer_lm_from_pretrained_is_the_hub_loader(gpt2):
    hf, path = gpt2
    ids = prompts()
    np.testing.assert_array_equal(logits_of(seqlab.nn.TransformerLM.from_pretrained(path), ids),
                                  logits_of(hub.from_pretrained(path), ids))


def test_a_name_that_is_not_a_directory_and_cannot_be_fetched_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(FileNotFoundError, match="'seqlab-test/no-such-model' is not a directory and could not be "
                                                "fetched from the Hugging Face Hub"):
        hub.from_pretrained("seqlab-test/no-such-model", cache_dir=tmp_path, local_files_only=True)


# ---------------------------------------------------------------------------------- bad checkpoints

def copy_of(path, tmp_path):
    target = tmp_path / "model"
    shutil.copytree(path, target)
    return target


def edit_config(path, **fields):
    config = json.loads((path / "config.json").read_text())
    config.update(fields)
    (path / "config.json").write_text(json.dumps(config))


def edit_weights(path, edit):
    tensors = safetensors.numpy.load_file(path / "model.safetensors")
    edit(tensors)
    safetensors.numpy.save_file(tensors, path / "model.safetensors")


def resize(name, shape):
    def edit(tensors):
        tensors[name] = np.zeros(shape, dtype=np.float32)
    return edit


def extra(tensors):
    tensors["transformer.h.0.attn.rotary.weight"] = np.zeros(4, dtype=np.float32)


BAD = [
    (lambda p: edit_config(p, model_type="gpt_neox"), NotImplementedError,
     r"config.json: model_type = 'gpt_neox' is not an architecture seqlab reads \(supported: bloom, deberta-v2, gpt2, llama, t5\)"),
    (lambda p: edit_config(p, activation_function="quick_gelu"), NotImplementedError,
     r"config.json: activation_function = 'quick_gelu' is not supported by seqlab's gpt2"),
    (lambda p: edit_config(p, add_cross_attention=True), NotImplementedError,
     r"config.json: add_cross_attention = True is not supported"),
    (lambda p: edit_config(p, n_head=5), ValueError, r"config.json: n_embd = 24 is not a multiple of n_head = 5"),
    (lambda p: edit_config(p, n_layer=0), ValueError, r"config.json: n_layer = 0 is not an integer >= 1"),
    (lambda p: (p / "config.json").write_text("{oops"), ValueError, r"config.json is not valid JSON"),
    (lambda p: os.remove(p / "config.json"), FileNotFoundError, r"has no config.json"),
    (lambda p: os.remove(p / "model.safetensors"), FileNotFoundError,
     r"has no weights: expected model.safetensors, model.safetensors.index.json or pytorch_model.bin"),
    (lambda p: edit_weights(p, lambda t: t.pop("transformer.h.1.mlp.c_fc.bias")), ValueError,
     r"model.safetensors has no tensor 'transformer.h.1.mlp.c_fc.bias'"),
    (lambda p: edit_weights(p, resize("transformer.h.2.attn.c_attn.weight", (24, 24))), ValueError,
     r"model.safetensors: tensor 'transformer.h.2.attn.c_attn.weight' has shape \(24, 24\), but the config asks "
     r"for \(24, 72\)"),
    (lambda p: edit_config(p, n_positions=64), ValueError,
     r"tensor 'transformer.wpe.weight' has shape \(40, 24\), but the config asks for \(64, 24\)"),
    (lambda p: edit_weights(p, extra), ValueError,
     r"model.safetensors holds 1 tensor\(s\) that seqlab's gpt2 has no place for, e.g. "
     r"'transformer.h.0.attn.rotary.weight'"),
    (lambda p: (p / "model.safetensors").write_bytes((p / "model.safetensors").read_bytes()[:1000]), ValueError,
     r"model.safetensors is not a valid checkpoint"),
]


@pytest.mark.parametrize("damage,error,message", BAD, ids=[m[2][:40] for m in BAD])
def test_a_bad_checkpoint_is_an_error_naming_the_file_and_what_is_wrong(gpt2, tmp_path, damage, error, message,
                                                                        monkeypatch):
    path = copy_of(gpt2[1], tmp_path)
    damage(path)
    copied = []
    original = seqlab.nn.Module.load_state_dict
    monkeypatch.setattr(seqlab.nn.Module, "load_state_dict",
                        lambda self, *a, **k: copied.append(1) or original(self, *a, **k))
    with pytest.raises(error, match=message):
        hub.from_pretrained(path)
    assert not copied  # found before any weight was copied into a model


def test_a_bloom_variant_with_the_residual_after_the_layernorm_is_refused(tmp_path):
    hf_model(BloomForCausalLM, MODELS[4][2]).save_pretrained(tmp_path)
    edit_config(tmp_path, apply_residual_connection_post_layernorm=True)
    with pytest.raises(NotImplementedError, match="apply_residual_connection_post_layernorm = True is not supported"):
        hub.from_pretrained(tmp_path)


@pytest.mark.parametrize("fields,message", [
    (dict(rope_parameters={"rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0}),
     "rope_type = 'llama3' is not supported by seqlab's llama"),
    (dict(head_dim=8), r"tensor 'model.layers.0.self_attn.q_proj.weight' has shape \(24, 24\), but the config asks "
                       r"for \(32, 24\)"),
    (dict(hidden_act="gelu"), "hidden_act = 'gelu' is not supported by seqlab's llama"),
    (dict(mlp_bias=True), "mlp_bias = True is not supported by seqlab's llama"),
    (dict(num_key_value_heads=3), "num_attention_heads = 4 is not a multiple of num_key_value_heads = 3"),
    (dict(num_attention_heads=5, num_key_value_heads=5, head_dim=None),  # no head_dim: hidden_size / heads
     "hidden_size = 24 is not a multiple of num_attention_heads = 5"),
])
def test_a_llama_variant_seqlab_cannot_honour_is_refused(tmp_path, fields, message):
    hf_model(LlamaForCausalLM, MODELS[-4][2]).save_pretrained(tmp_path)
    edit_config(tmp_path, **fields)
    with pytest.raises((NotImplementedError, ValueError), match=message):
        hub.from_pretrained(tmp_path)


def test_only_float32_and_float64(gpt2):
    with pytest.raises(ValueError, match="dtype must be a floating-point dtype"):
        hub.from_pretrained(gpt2[1], dtype=seqlab.int64)


# ---------------------------------------------------------------------------------- nanoGPT's path

def test_nanogpt_style_from_pretrained_copies_hugging_faces_torch_tensors(gpt2):
    """A GPT module written as nanoGPT's (its own names; Linear where Hugging Face has Conv1D) is
    filled as nanoGPT's GPT.from_pretrained fills it: with seqlab in place of torch, for each name
    sd[k].copy_(sd_hf[k]) (transposed for the Conv1D weights) under no_grad, reading the torch
    tensors of transformers' model; then it computes transformers' logits."""
    import seqlab as torch_  # the script's "import torch"
    nn, F = torch_.nn, torch_.nn.functional
    hf, _ = gpt2
    cfg = hf.config

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.ln_2 = nn.LayerNorm(cfg.n_embd), nn.LayerNorm(cfg.n_embd)
            self.attn = nn.ModuleDict(dict(c_attn=nn.Linear(cfg.n_embd, 3 * cfg.n_embd),
                                           c_proj=nn.Linear(cfg.n_embd, cfg.n_embd)))
            self.mlp = nn.ModuleDict(dict(c_fc=nn.Linear(cfg.n_embd, 4 * cfg.n_embd),
                                          c_proj=nn.Linear(4 * cfg.n_embd, cfg.n_embd)))

        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.attn.c_attn(self.ln_1(x)).split(C, dim=2)
            q, k, v = (t.view(B, T, cfg.n_head, C // cfg.n_head).transpose(1, 2) for t in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).contiguous().view(B, T, C)
            x = x + self.attn.c_proj(y)
            return x + self.mlp.c_proj(F.gelu(self.mlp.c_fc(self.ln_2(x)), approximate="tanh"))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.transformer = nn.ModuleDict(dict(wte=nn.Embedding(cfg.vocab_size, cfg.n_embd),
                                                  wpe=nn.Embedding(cfg.n_positions, cfg.n_embd),
                                                  h=nn.ModuleList([Block() for _ in range(cfg.n_layer)]),
                                                  ln_f=nn.LayerNorm(cfg.n_embd)))
            self.lm_head = nn.Linear(cfg.n_embd, cfg.vocab_size, bias=False)
            self.transformer.wte.weight = self.lm_head.weight

        def forward(self, idx):
            pos = torch_.arange(0, idx.size(1), dtype=torch_.long)
            x = self.transformer.wte(idx) + self.transformer.wpe(pos)
            for block in self.transformer.h:
                x = block(x)
            return self.lm_head(self.transformer.ln_f(x))

    model = GPT()
    sd, sd_hf = model.state_dict(), hf.state_dict()
    transposed = ["attn.c_attn.weight", "attn.c_proj.weight", "mlp.c_fc.weight", "mlp.c_proj.weight"]
    for k in sd_hf:
        if k not in sd:
            continue
        if any(k.endswith(w) for w in transposed):
            assert sd_hf[k].shape[::-1] == sd[k].shape
            with torch_.no_grad():
                sd[k].copy_(sd_hf[k].t())
        else:
            assert sd_hf[k].shape == sd[k].shape
            with torch_.no_grad():
                sd[k].copy_(sd_hf[k])
    ids = prompts()
    with torch.no_grad():
        want = hf(torch.from_numpy(ids)).logits.numpy()
    with torch_.no_grad():
        got = model(torch_.tensor(ids)).numpy()
    assert rel_err(got, want) < 1e-5


def test_copy_from_a_foreign_tensor_names_copy_when_its_dtype_cannot_be_read():
    with pytest.raises(TypeError, match="copy_: src Tensor: .*convert it first"):
        seqlab.zeros(3).copy_(torch.ones(3, dtype=torch.uint16))
    x = seqlab.zeros(3)   # bfloat16 is a seqlab dtype now: copied with conversion, as torch's copy_
    x.copy_(torch.tensor([1.5, -2.25, 3.0], dtype=torch.bfloat16))
    np.testing.assert_array_equal(x.numpy(), [1.5, -2.25, 3.0])
    x = seqlab.zeros(2, 3, dtype=seqlab.float64)
    x.copy_(np.arange(6.0).reshape(3, 2).T)  # a NumPy view through DLPack, strides and all
    np.testing.assert_array_equal(x.numpy(), np.arange(6.0).reshape(3, 2).T)


# ---------------------------------------------------------------------------------- T5: encoder-decoder

T5_MODELS = [
    ("t5-gated-gelu-tied", T5Config(vocab_size=V, d_model=24, d_kv=6, d_ff=40, num_layers=2, num_heads=4,
                                    feed_forward_proj="gated-gelu", relative_attention_num_buckets=8,
                                    relative_attention_max_distance=20)),
    ("t5-relu-untied-3-decoder-layers", T5Config(vocab_size=V, d_model=24, d_kv=8, d_ff=32, num_layers=2,
                                                 num_decoder_layers=3, num_heads=3, feed_forward_proj="relu",
                                                 tie_word_embeddings=False)),
    # t5-v1_1-small's and flan-t5-small's proportions: 3 heads of d_kv 4 span 12 of the 24 features
    ("t5-narrow-heads", T5Config(vocab_size=V, d_model=24, d_kv=4, d_ff=40, num_layers=2, num_heads=3,
                                 feed_forward_proj="gated-gelu", tie_word_embeddings=False)),
]
# transformers computes T5's RMSNorm statistics and attention softmax in float32 in any dtype
T5_F64_TOL = 1e-5


def t5_model(config, seed=0):
    config = T5Config.from_dict({**config.to_dict(), "eos_token_id": EOS, "pad_token_id": 0})
    torch.manual_seed(seed)
    model = T5ForConditionalGeneration._from_config(config, attn_implementation="eager").eval()
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            p.copy_((1.0 if "layer_norm" in name else 0.0) + 0.4 * torch.randn(p.shape, generator=g))
    return model


@pytest.fixture(scope="module", params=T5_MODELS, ids=[m[0] for m in T5_MODELS])
def saved_t5(request, tmp_path_factory):
    name, config = request.param
    model = t5_model(config)
    path = tmp_path_factory.mktemp(name)
    model.save_pretrained(path)
    return name, model.double(), path


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_t5_logits_equal_hugging_faces(saved_t5, dtype):
    name, hf, path = saved_t5
    model = hub.from_pretrained(path, dtype=getattr(seqlab, dtype))
    assert type(model) is seqlab.nn.TransformerSeq2Seq and not model.training
    for stack in (model.encoder, model.decoder):  # T5's one relative bias per stack
        assert all(layer.self_attn.pos.relative_attention_bias is stack.layers[0].self_attn.pos.relative_attention_bias
                   for layer in stack.layers)
    src, tgt = prompts(0, (2, 9)), prompts(1, (2, 6))
    mask = np.ones_like(src)
    mask[1, 6:] = 0  # the second source padded at the end
    with torch.no_grad():
        want = copy.deepcopy(hf).to(getattr(torch, dtype))(
            input_ids=torch.from_numpy(src), attention_mask=torch.from_numpy(mask),
            decoder_input_ids=torch.from_numpy(tgt)).logits
    with seqlab.no_grad():
        pad = seqlab.tensor(mask == 0)
        got = model.decode(seqlab.tensor(tgt), model.encode(seqlab.tensor(src), src_key_padding_mask=pad),
                           memory_key_padding_mask=pad)
    assert rel_err(got, want) < (T5_F64_TOL if dtype == "float64" else 1e-4)


@pytest.mark.parametrize("num_beams", [1, 3])
def test_t5_generate_returns_hugging_faces_tokens(saved_t5, num_beams):
    """transformers runs without its cache here: with fewer encoder than decoder layers its
    generate() sizes the cache by the encoder's and fails."""
    name, hf, path = saved_t5
    model = hub.from_pretrained(path, dtype=seqlab.float64)
    assert model.generation_config["decoder_start_token_id"] == 0  # T5's pad token, when the config names none
    src = prompts(2, (3, 8))
    mask = np.ones_like(src)
    mask[0, 5:] = 0
    src[mask == 0] = 0
    kw = dict(max_new_tokens=10, num_beams=num_beams)
    with torch.no_grad():
        want = hf.generate(torch.from_numpy(src), attention_mask=torch.from_numpy(mask), do_sample=False,
                           decoder_start_token_id=0, use_cache=False, **kw).numpy()
    got = model.generate(seqlab.tensor(src), attention_mask=seqlab.tensor(mask), **kw).numpy()
    np.testing.assert_array_equal(got, want)
    assert type(seqlab.nn.TransformerSeq2Seq.from_pretrained(path)) is seqlab.nn.TransformerSeq2Seq
    with pytest.raises(TypeError, match="holds a t5 model, which seqlab builds as TransformerSeq2Seq"):
        seqlab.nn.TransformerLM.from_pretrained(path)


@pytest.mark.parametrize("fields,message", [
    (dict(d_kv=4), r"tensor 'encoder.block.0.layer.0.SelfAttention.q.weight' has shape \(24, 24\), but the config "
                   r"asks for \(16, 24\)"),
    (dict(feed_forward_proj="gated-silu"), "feed_forward_proj = 'gated-silu' is not supported by seqlab's t5"),
])
def test_a_t5_variant_seqlab_cannot_honour_is_refused(tmp_path, fields, message):
    t5_model(T5_MODELS[0][1]).save_pretrained(tmp_path)
    edit_config(tmp_path, **fields)
    with pytest.raises((NotImplementedError, ValueError), match=message):
        hub.from_pretrained(tmp_path)
