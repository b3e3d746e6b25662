"""seqlab.to_torch / from_torch of the encoder-decoder transformer and the masked LM
(python/seqlab/torch_modules/encoder_decoder.py, masked_lm.py, _convert_models.py): a decoder
layer with seqlab's options, stacks of twin layers, nn.TransformerSeq2Seq (forward, its KV
cache, generate) and nn.TransformerMaskedLM (BERT's and DeBERTa's) compute in torch what they
compute in seqlab, with every gradient equal, and come back with the same state."""
import numpy as np
import pytest
import torch

import seqlab
import seqlab.nn as nn
import seqlab.nn.functional as F
from seqlab import torch_modules as TM
from seqlab.nn import positional as P
from test_to_torch import TOL, assert_round_trip, assert_same_function, flat

# the seqlab.nn modules this file converts (test_to_torch's walk over seqlab.nn reads it)
CONVERTS = ("TransformerSeq2Seq", "TransformerMaskedLM")

E, H = 24, 4
f64 = seqlab.float64


def causal(L):
    return seqlab.tensor(np.triu(np.ones((L, L), dtype=bool), 1))


DECODER_LAYERS = {  # (made per test: a scheme's parameters would carry one test's gradients into the next)
    "rope-rms-glu": lambda: dict(pos=P.RoPE(E // H), rms_norm=True, glu=True, activation=F.silu),
    "alibi-gqa-head_dim": lambda: dict(pos=P.ALiBi(H), num_key_value_heads=2, head_dim=8),
    "t5-scale": lambda: dict(pos=P.T5RelativeBias(H, num_buckets=8, max_distance=20, bidirectional=False, dtype=f64),
                             scale=1.0),
}


@pytest.mark.parametrize("norm_first", [False, True], ids=["post-LN", "pre-LN"])
@pytest.mark.parametrize("name", DECODER_LAYERS)
def test_a_decoder_layer_with_seqlabs_options_becomes_its_twin(name, norm_first):
    seqlab.manual_seed(11)
    layer = nn.TransformerDecoderLayer(E, H, 40, dropout=0.1, batch_first=True, norm_first=norm_first, dtype=f64,
                                       **DECODER_LAYERS[name]()).eval()
    tl = seqlab.to_torch(layer)
    assert type(tl) is TM.TransformerDecoderLayer and tl.multihead_attn.pos is None
    pad = seqlab.tensor([[False] * 5, [False] * 3 + [True] * 2])
    xs = [seqlab.randn(2, 6, E, dtype=f64), seqlab.randn(2, 5, E, dtype=f64), causal(6), None, None, pad]
    assert_same_function(layer, tl, xs, name, 1e-10)
    back = assert_round_trip(layer, name)
    assert type(back.self_attn.pos) is type(layer.self_attn.pos) and back.multihead_attn.pos is None


def test_a_decoder_layer_without_options_stays_torchs():
    assert type(seqlab.to_torch(nn.TransformerDecoderLayer(E, H, 40))) is torch.nn.TransformerDecoderLayer


@pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")  # (seqlab's note on the stacks built here)
@pytest.mark.parametrize("options", [dict(), dict(norm_first=True), dict(nhead=3), dict(bias=False),
                                     dict(batch_first=False)], ids=lambda o: ",".join(o) or "post-LN")
def test_stacks_of_twin_layers_become_twin_stacks_and_zero_padding_where_seqlab_does(options):
    """The twin encoder stack takes seqlab's (and torch's) nested-tensor rule: padded positions
    come out 0 in eval without gradients only for a layer that qualifies (post-LN, batch_first,
    even heads, with bias, ...)."""
    seqlab.manual_seed(12)
    nhead = options.pop("nhead", H)
    E_ = 8 * nhead
    batch_first = options.setdefault("batch_first", True)
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(E_, nhead, 40, pos=P.ALiBi(nhead), dtype=f64, **options),
                                2, nn.LayerNorm(E_, dtype=f64)).eval()
    te = seqlab.to_torch(enc)
    assert type(te) is TM.TransformerEncoder and te.use_nested_tensor == enc.use_nested_tensor
    x = seqlab.randn(*((2, 6, E_) if batch_first else (6, 2, E_)), dtype=f64)
    pad = seqlab.tensor([[False] * 6, [False] * 4 + [True] * 2])
    assert_same_function(enc, te, [x, None, pad], "encoder stack", 1e-10)
    with seqlab.no_grad(), torch.no_grad():  # eval, no gradient: seqlab's nested-tensor rule on both sides
        ours = enc(x.detach(), src_key_padding_mask=pad)
        theirs = te(torch.from_dlpack(x.detach()), src_key_padding_mask=torch.from_dlpack(pad))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-10, atol=1e-10)
    assert_round_trip(enc, "encoder stack")
    dec = nn.TransformerDecoder(nn.TransformerDecoderLayer(E_, nhead, 40, glu=True, dtype=f64, **options), 2).eval()
    td = seqlab.to_torch(dec)
    assert type(td) is TM.TransformerDecoder
    shape = (lambda L: (2, L, E_)) if batch_first else (lambda L: (L, 2, E_))
    assert_same_function(dec, td, [seqlab.randn(*shape(5), dtype=f64), seqlab.randn(*shape(6), dtype=f64), causal(5)],
                         "decoder stack", 1e-10)
    assert_round_trip(dec, "decoder stack")


def test_layers_that_differ_convert_each_as_it_is():
    """A stack is converted layer by layer: NoPE in every other layer, or one layer's own scale,
    stays so in torch and back."""
    seqlab.manual_seed(18)
    lm = nn.TransformerLM(30, E, H, 3, 40, pos=P.RoPE(E // H), dtype=f64).eval()
    lm.layers[1] = nn.TransformerEncoderLayer(E, H, 40, 0.1, "gelu", batch_first=True, norm_first=True,
                                              dtype=f64).eval()
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(E, H, 40, batch_first=True, dtype=f64), 2).eval()
    enc.layers[1] = nn.TransformerEncoderLayer(E, H, 40, batch_first=True, pos=P.ALiBi(H), dtype=f64).eval()
    mlm = make_masked("deberta", f64)
    mlm.layers[0].self_attn.pos = P.T5RelativeBias(H, dtype=f64)
    ids = seqlab.tensor(np.random.default_rng(19).integers(0, 30, (2, 7)))
    for m, xs in ((lm, [ids]), (enc, [seqlab.randn(2, 7, E, dtype=f64)]), (mlm, [ids])):
        tm = seqlab.to_torch(m)
        assert_same_function(m, tm, xs, type(m).__name__, 1e-10)
        back = assert_round_trip(m, type(m).__name__)
        with seqlab.no_grad():
            np.testing.assert_array_equal(back(*[x.detach() for x in xs]).numpy(),
                                          m(*[x.detach() for x in xs]).numpy())
    assert tm.layers[0].self_attn.pos is not None and type(back.layers[0].self_attn.pos) is P.T5RelativeBias


# ------------------------------------------------------------------------------ TransformerSeq2Seq

SEQ2SEQ = {
    "plain": lambda dt: dict(),
    "t5": lambda dt: dict(pos=P.T5RelativeBias(H, num_buckets=8, max_distance=20, dtype=dt),
                          decoder_pos=P.T5RelativeBias(H, num_buckets=8, max_distance=20, bidirectional=False,
                                                       dtype=dt),
                          scale=1.0, rms_norm=True, glu=True, activation="relu", tie_weights=True, bias=False,
                          scale_decoder_outputs=True, head_dim=8),
    "shared-sinusoidal-rope": lambda dt: dict(positional=P.SinusoidalPositionalEncoding(E), share_embeddings=True,
                                              pos=P.RoPE(E // H, interleaved=False), num_key_value_heads=2),
    "learned-table-alibi": lambda dt: dict(positional=nn.Embedding(40, E, dtype=dt), pos=P.ALiBi(H)),
}


def make_seq2seq(name, dtype):
    seqlab.manual_seed(13)
    vocab = (30, 30) if name.startswith("shared") else (30, 34)
    return nn.TransformerSeq2Seq(*vocab, E, H, 2, 2, 40, dropout=0.1, dtype=dtype, **SEQ2SEQ[name](dtype)).eval()


@pytest.mark.parametrize("dtype", [seqlab.float64, seqlab.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("name", SEQ2SEQ)
def test_a_transformer_seq2seq_becomes_its_twin_computing_the_same(name, dtype):
    m = make_seq2seq(name, dtype)
    tm = seqlab.to_torch(m)
    assert type(tm) is TM.TransformerSeq2Seq and not tm.training
    assert (tm.tgt_emb is tm.src_emb) == (m.tgt_emb is m.src_emb)
    assert (tm.lm_head.weight is tm.tgt_emb.weight) == (m.lm_head.weight is m.tgt_emb.weight)
    rng = np.random.default_rng(14)
    src, tgt = seqlab.tensor(rng.integers(0, 30, (3, 9))), seqlab.tensor(rng.integers(0, 30, (3, 7)))
    pad = np.zeros((3, 9), dtype=bool)
    pad[1, 6:] = pad[2, 2:] = True
    assert_same_function(m, tm, [src, tgt, seqlab.tensor(pad)], name, TOL[dtype])
    back = assert_round_trip(m, name)
    with seqlab.no_grad():
        np.testing.assert_array_equal(back.eval()(src, tgt).numpy(), m(src, tgt).numpy())


@pytest.mark.parametrize("name", SEQ2SEQ)
def test_the_seq2seq_twin_decodes_step_by_step_and_generates_seqlabs_tokens(name):
    m = make_seq2seq(name, seqlab.float64)
    tm = seqlab.to_torch(m)
    rng = np.random.default_rng(15)
    src = rng.integers(1, 30, (2, 8))
    with torch.no_grad():
        memory = tm.encode(torch.from_numpy(src))
        tgt = torch.from_numpy(rng.integers(0, 30, (2, 7)))
        whole = tm.decode(tgt, memory)
        cache = tm.new_cache()
        steps = [tm.decode(tgt[:, :3], memory, cache=cache)] + [tm.decode(tgt[:, t:t + 1], memory, cache=cache)
                                                                 for t in range(3, 7)]
    np.testing.assert_allclose(torch.cat(steps, 1).numpy(), whole.numpy(), rtol=1e-10, atol=1e-12)
    mask = np.ones_like(src)
    mask[1, 5:] = 0  # a source padded at its end
    for kw in (dict(), dict(num_beams=3, length_penalty=0.8), dict(do_sample=True, top_k=8, seed=4)):
        for padded in (False, True):
            extra = dict(attention_mask=mask) if padded else {}
            want = m.generate(seqlab.tensor(src), max_new_tokens=6, decoder_start_token_id=0, **kw,
                              **{k: seqlab.tensor(v) for k, v in extra.items()}).numpy()
            got = tm.generate(torch.from_numpy(src), max_new_tokens=6, decoder_start_token_id=0, **kw,
                              **{k: torch.from_numpy(v) for k, v in extra.items()})
            np.testing.assert_array_equal(got.numpy(), want, err_msg=f"{name} {kw} padded={padded}")


# ----------------------------------------------------------------------------- TransformerMaskedLM

def deberta(**options):
    return lambda dt: dict(pos=P.DeBERTaRelativePosition(E, H, 6, dtype=dt, **options), positional=None)


MASKED = {
    "bert": lambda dt: dict(positional=nn.Embedding(16, 12, dtype=dt), type_vocab_size=2, embedding_size=12,
                            padding_idx=0),
    "pre-LN-untied-relu": lambda dt: dict(positional=P.LearnedPositionalEmbedding(16, E, dtype=dt), norm_first=True,
                                          tie_weights=False, activation="relu", embedding_norm=False),
    "deberta": deberta(),
    "deberta-v3": deberta(position_buckets=4, share_att_key=True, norm_rel_ebd="layer_norm"),
}


def make_masked(name, dtype, shared_table=False):
    seqlab.manual_seed(16)
    m = nn.TransformerMaskedLM(40, E, H, 2, 40, dropout=0.1, dtype=dtype, **MASKED[name](dtype))
    if shared_table:  # one relative table (and its norm) for every layer, as seqlab.hub builds DeBERTa
        for block in m.layers[1:]:
            block.self_attn.pos.rel_embeddings = m.layers[0].self_attn.pos.rel_embeddings
            block.self_attn.pos.rel_norm = m.layers[0].self_attn.pos.rel_norm
    return m.eval()


@pytest.mark.parametrize("dtype", [seqlab.float64, seqlab.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("name", MASKED)
def test_a_masked_lm_becomes_its_twin_computing_the_same(name, dtype):
    m = make_masked(name, dtype, shared_table=name.startswith("deberta"))
    tm = seqlab.to_torch(m)
    assert type(tm) is TM.TransformerMaskedLM and not tm.training
    assert (tm.lm_head.weight is tm.tok_emb.weight) == (m.lm_head.weight is m.tok_emb.weight)
    if name.startswith("deberta"):  # the shared table stays one module
        assert tm.layers[1].self_attn.pos.rel_embeddings is tm.layers[0].self_attn.pos.rel_embeddings
    rng = np.random.default_rng(17)
    ids = seqlab.tensor(rng.integers(1, 40, (3, 10)))
    mask = np.ones((3, 10), dtype=np.int64)
    mask[1, 7:] = mask[2, 3:] = 0
    types = seqlab.tensor((np.arange(10)[None, :] >= 5).repeat(3, 0).astype(np.int64)) \
        if m.token_type_emb is not None else None
    assert_same_function(m, tm, [ids, seqlab.tensor(mask), types], name, TOL[dtype])
    with seqlab.no_grad(), torch.no_grad():
        ours = m(ids, attention_mask=seqlab.tensor(mask), output_hidden_states=True, output_attentions=True)
        theirs = tm(torch.from_dlpack(ids), attention_mask=torch.from_numpy(mask), output_hidden_states=True,
                    output_attentions=True)
    assert sorted(ours) == sorted(theirs)
    for key in ours:
        for a, b in zip(flat(ours[key]), flat(theirs[key])):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=TOL[dtype], atol=TOL[dtype], err_msg=f"{name} {key}")
    back = assert_round_trip(m, name)
    if name.startswith("deberta"):
        assert back.layers[1].self_attn.pos.rel_embeddings is back.layers[0].self_attn.pos.rel_embeddings


def test_the_twins_move_dtype_like_any_torch_module():
    """Nothing in the seq2seq and masked-LM twins (DeBERTa's buckets, T5's bias) is tied to a dtype."""
    s2s = seqlab.to_torch(make_seq2seq("t5", seqlab.float32))
    src, tgt = torch.randint(1, 30, (2, 7)), torch.randint(0, 30, (2, 5))
    want = s2s.double()(src, tgt)
    got = s2s.to(torch.bfloat16)(src, tgt)
    assert got.dtype == torch.bfloat16 and torch.allclose(got.double(), want, atol=0.15)
    assert s2s.generate(src, max_new_tokens=3, decoder_start_token_id=0).shape == (2, 4)
    mlm = seqlab.to_torch(make_masked("deberta-v3", seqlab.float32))
    ids = torch.randint(1, 40, (2, 9))
    want = mlm.double()(ids)
    got = mlm.half()(ids)
    assert got.dtype == torch.float16 and torch.allclose(got.double(), want, atol=0.05)
