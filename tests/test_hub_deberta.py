"""DeBERTa-v2 and v3 checkpoints loaded with seqlab.hub.from_pretrained (as nn.TransformerMaskedLM)
give Hugging Face's outputs. As in tests/test_hub.py: tiny DebertaV2ForMaskedLM models built from
a config with transformers (5.24), their weights drawn at random with a seed, saved with
save_pretrained and loaded by seqlab; compared on a padded batch (at its tokens: Hugging Face
zeroes the embeddings of padding, which no token attends to) with transformers' forward: logits,
every hidden state and every attention map, in float64 and float32, and the gradients of the
shared relative table. An encoder has no generate(). python/seqlab/hub/deberta_v2.py."""
import copy
import json

import numpy as np
import pytest
import safetensors.numpy
import torch
import transformers
from transformers import DebertaV2Config, DebertaV2ForMaskedLM, DebertaV2Model

import seqlab
from seqlab import hub

transformers.logging.set_verbosity_error()
V, L = 53, 30

BASE = dict(vocab_size=V, hidden_size=24, num_hidden_layers=3, num_attention_heads=4, intermediate_size=40,
            max_position_embeddings=64, hidden_act="gelu")
# (id, config): each a variant the converter must get right
MODELS = [
    # DeBERTa-v2's layout: clipped distances (L = 30 > 12), absolute positions too, two segments
    ("v2-clipped", dict(BASE, relative_attention=True, pos_att_type=["p2c", "c2p"], max_relative_positions=12,
                        position_buckets=-1, type_vocab_size=2)),
    # DeBERTa-v3's: log buckets, shared q/k projections, a normalised relative table, no absolute
    # positions, DeBERTa's own head (legacy=False) and its "p2c|c2p" string
    ("v3", dict(BASE, relative_attention=True, pos_att_type="p2c|c2p", max_relative_positions=-1,
                position_buckets=8, share_att_key=True, norm_rel_ebd="layer_norm", position_biased_input=False,
                legacy=False)),
    # a smaller embedding projected to the width (embed_proj), the content-to-position term only
    ("c2p-embed-proj", dict(BASE, relative_attention=True, pos_att_type=["c2p"], max_relative_positions=8,
                            embedding_size=16, layer_norm_eps=1e-5)),
    # no relative attention: BERT with DeBERTa's scale √(3D)
    ("no-relative", dict(BASE, relative_attention=False, pos_att_type=["c2p", "p2c"])),
]


def hf_model(cls, config, seed=0):
    torch.manual_seed(seed)
    model = cls._from_config(DebertaV2Config(**config), attn_implementation="eager").eval()
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            gain = 1.0 if "LayerNorm" in name and name.endswith("weight") else 0.0
            p.copy_(gain + 0.3 * torch.randn(p.shape, generator=g))
    return model


@pytest.fixture(scope="module", params=MODELS, ids=[m[0] for m in MODELS])
def saved(request, tmp_path_factory):
    name, config = request.param
    model = hf_model(DebertaV2ForMaskedLM, config)
    path = tmp_path_factory.mktemp(name)
    model.save_pretrained(path)
    return name, model.double(), path


def batch(seed=0):
    """ids (2, L) and their mask: the second row padded over its last 9 positions."""
    ids = np.random.default_rng(seed).integers(1, V, size=(2, L))
    mask = np.ones((2, L), dtype=np.int64)
    mask[1, -9:] = 0
    ids[1, -9:] = 0
    return ids, mask


def tokens(a, mask):
    """The entries of a (2, L, ...) or (2, H, L, L) array at the tokens (padding left out)."""
    a = np.asarray(a, dtype=np.float64)
    if a.ndim == 4:  # attention maps: the queries and keys that are tokens
        return np.concatenate([a[0].ravel(), a[1][:, mask[1] == 1][:, :, mask[1] == 1].ravel()])
    return np.concatenate([a[0].ravel(), a[1][mask[1] == 1].ravel()])


def rel_err(got, want):
    return float(np.abs(got - want).max() / np.abs(want).max())


def hf_scale(model, hf):
    """Give seqlab's attention transformers' scale, which it rounds to float32 (scaled_size_sqrt:
    torch.sqrt(torch.tensor(D, dtype=torch.float) * n)): in float64 the two then agree to rounding."""
    encoder = hf.deberta.encoder if hasattr(hf, "deberta") else hf.encoder
    n = 1 + len(encoder.layer[0].attention.self.pos_att_type)
    D = model.d_model // model.nhead
    for block in model.layers:
        block.self_attn.scale = 1.0 / float(np.sqrt(np.float32(D) * np.float32(n)))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_logits_hidden_states_and_attentions_equal_hugging_faces(saved, dtype):
    name, hf, path = saved
    model = hub.from_pretrained(path, dtype=getattr(seqlab, dtype))
    assert type(model) is seqlab.nn.TransformerMaskedLM and not model.training
    if dtype == "float64":
        hf_scale(model, hf)
    tol = 1e-9 if dtype == "float64" else 1e-4
    ids, mask = batch()
    types = np.random.default_rng(1).integers(0, 2, size=ids.shape) if hf.config.type_vocab_size else None
    with torch.no_grad():
        want = copy.deepcopy(hf).to(getattr(torch, dtype))(
            torch.from_numpy(ids), attention_mask=torch.from_numpy(mask), output_hidden_states=True,
            output_attentions=True, token_type_ids=None if types is None else torch.from_numpy(types))
    with seqlab.no_grad():
        kw = dict(attention_mask=seqlab.tensor(mask), token_type_ids=None if types is None else seqlab.tensor(types))
        got = model(seqlab.tensor(ids), output_hidden_states=True, output_attentions=True, **kw)
        plain = model(seqlab.tensor(ids), **kw)
    np.testing.assert_array_equal(plain.numpy(), got.logits.numpy())
    assert rel_err(tokens(got.logits, mask), tokens(want.logits, mask)) < tol
    assert len(got.hidden_states) == len(want.hidden_states) == 4
    for i, (a, b) in enumerate(zip(got.hidden_states, want.hidden_states)):
        assert rel_err(tokens(a, mask), tokens(b, mask)) < tol, f"hidden state {i}"
    assert len(got.attentions) == len(want.attentions) == 3
    for i, (a, b) in enumerate(zip(got.attentions, want.attentions)):
        assert a.shape == tuple(b.shape)
        assert rel_err(tokens(a, mask), tokens(b, mask)) < tol, f"attention of layer {i}"


def test_the_shared_relative_table_gets_hugging_faces_gradient(saved):
    """One relative table serves every layer (and, with share_att_key, the attention's own q/k
    projections its position terms): the gradient of the masked-LM loss reaches each weight as in
    transformers' model, in float64."""
    name, hf, path = saved
    model = hub.from_pretrained(path, dtype=seqlab.float64)
    hf_scale(model, hf)
    ids, mask = batch(2)
    labels = np.where(mask == 1, np.random.default_rng(3).integers(1, V, size=ids.shape), -100)
    hf = copy.deepcopy(hf)
    hf(torch.from_numpy(ids), attention_mask=torch.from_numpy(mask), labels=torch.from_numpy(labels)).loss.backward()
    logits = model(seqlab.tensor(ids), attention_mask=seqlab.tensor(mask))
    seqlab.nn.functional.cross_entropy(logits.reshape(-1, V), seqlab.tensor(labels).reshape(-1)).backward()
    pairs = [("tok_emb.weight", "deberta.embeddings.word_embeddings.weight"),
             ("layers.1.self_attn.in_proj_weight", None), ("lm_head.bias", None)]
    if hf.config.relative_attention:
        pairs.append(("layers.0.self_attn.pos.rel_embeddings.weight", "deberta.encoder.rel_embeddings.weight"))
    theirs = dict(hf.named_parameters())
    for ours, their in pairs:
        grad = model.get_parameter(ours).grad.numpy()
        if ours.endswith("in_proj_weight"):
            att = hf.deberta.encoder.layer[1].attention.self
            want = torch.cat([att.query_proj.weight.grad, att.key_proj.weight.grad, att.value_proj.weight.grad])
        elif ours == "lm_head.bias":
            head = hf.cls.predictions if hf.config.legacy else hf.lm_predictions.lm_head
            want = head.bias.grad
        else:
            want = theirs[their].grad
        assert rel_err(grad, want.numpy()) < 1e-8, ours


def test_masked_lm_from_pretrained_is_the_hub_loader(saved):
    name, hf, path = saved
    model = seqlab.nn.TransformerMaskedLM.from_pretrained(path)
    assert model.config.model_type == "deberta-v2"
    with pytest.raises(TypeError, match="TransformerLM.from_pretrained: .* holds a deberta-v2 model, which seqlab "
                                        "builds as TransformerMaskedLM"):
        seqlab.nn.TransformerLM.from_pretrained(path)


def test_a_checkpoint_without_a_head_loads_its_encoder_and_warns(tmp_path):
    """DeBERTa-v3's released checkpoints are discriminators: an encoder (DebertaV2Model) and a
    replaced-token detector (mask_predictions.*), no masked-LM head. The encoder loads; the head is
    new, with a warning (as transformers' DebertaV2ForMaskedLM does); the detector is skipped."""
    hf = hf_model(DebertaV2Model, MODELS[1][1], seed=4)
    hf.save_pretrained(tmp_path)
    tensors = safetensors.numpy.load_file(tmp_path / "model.safetensors")
    tensors["mask_predictions.dense.weight"] = np.zeros((24, 24), dtype=np.float32)
    safetensors.numpy.save_file(tensors, tmp_path / "model.safetensors")
    with pytest.warns(UserWarning, match="has no masked-LM head .* newly initialised"):
        model = hub.from_pretrained(tmp_path, dtype=seqlab.float64)
    hf_scale(model, hf)
    ids, mask = batch(4)
    with torch.no_grad():
        want = hf.double()(torch.from_numpy(ids), attention_mask=torch.from_numpy(mask)).last_hidden_state
    with seqlab.no_grad():
        got = model(seqlab.tensor(ids), attention_mask=seqlab.tensor(mask), output_hidden_states=True)
    assert rel_err(tokens(got.hidden_states[-1], mask), tokens(want, mask)) < 1e-9
    assert np.isfinite(got.logits.numpy()).all() and got.logits.shape == (2, L, V)


@pytest.mark.parametrize("fields,message", [
    ({"conv_kernel_size": 3}, "conv_kernel_size = 3 is not supported by seqlab's deberta-v2"),
    ({"attention_head_size": 4}, "attention_head_size = 4 is not hidden_size / num_attention_heads = 6"),
    ({"norm_rel_ebd": "layer_norm|batch_norm"}, "norm_rel_ebd = 'layer_norm|batch_norm' is not supported"),
    ({"position_buckets": 64, "max_relative_positions": 16}, "position_buckets 64 and max_relative_position 16 leave "
                                                             "no log-spaced buckets"),
])
def test_a_deberta_variant_seqlab_cannot_honour_is_refused(tmp_path_factory, tmp_path, fields, message):
    path = tmp_path_factory.mktemp("v2")
    hf_model(DebertaV2ForMaskedLM, MODELS[0][1]).save_pretrained(path)
    config = json.loads((path / "config.json").read_text())
    (tmp_path / "config.json").write_text(json.dumps({**config, **fields}))
    (tmp_path / "model.safetensors").symlink_to(path / "model.safetensors")
    with pytest.raises((NotImplementedError, ValueError), match=message):
        hub.from_pretrained(tmp_path)
