"""nn.TransformerMaskedLM, the BERT-style masked language model: equal to Hugging Face's
BertForMaskedLM on the same weights (an implementation seqlab did not write: logits and
gradients, float64), padding leaves the tokens' outputs alone, it learns to fill masks, and bad
input is a clear error. DeBERTa checkpoints: tests/test_hub_deberta.py."""
import numpy as np
import pytest
import torch
import transformers
from transformers import BertConfig, BertForMaskedLM

import seqlab
import seqlab.nn as nn
import seqlab.nn.functional as F

transformers.logging.set_verbosity_error()
V, E, H, NL, FF, MAXLEN = 37, 24, 4, 2, 40, 32


def bert_pair(seed=0):
    """A random BertForMaskedLM (float64) and the TransformerMaskedLM holding its weights."""
    torch.manual_seed(seed)
    cfg = BertConfig(vocab_size=V, hidden_size=E, num_hidden_layers=NL, num_attention_heads=H, intermediate_size=FF,
                     max_position_embeddings=MAXLEN, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    hf = BertForMaskedLM._from_config(cfg, attn_implementation="eager").double().eval()
    with torch.no_grad():
        for name, p in hf.named_parameters():
            p.copy_(("LayerNorm.weight" in name) + 0.3 * torch.randn(p.shape, dtype=torch.float64))
    ours = nn.TransformerMaskedLM(V, E, H, NL, FF, dropout=0.0, positional=nn.Embedding(MAXLEN, E, dtype=seqlab.float64),
                                  type_vocab_size=2, padding_idx=0, dtype=seqlab.float64).eval()
    sd = {k: v.numpy() for k, v in hf.state_dict().items()}
    state = {"tok_emb.weight": sd["bert.embeddings.word_embeddings.weight"],
             "positional.weight": sd["bert.embeddings.position_embeddings.weight"],
             "token_type_emb.weight": sd["bert.embeddings.token_type_embeddings.weight"],
             "embedding_norm.weight": sd["bert.embeddings.LayerNorm.weight"],
             "embedding_norm.bias": sd["bert.embeddings.LayerNorm.bias"],
             "head_dense.weight": sd["cls.predictions.transform.dense.weight"],
             "head_dense.bias": sd["cls.predictions.transform.dense.bias"],
             "head_norm.weight": sd["cls.predictions.transform.LayerNorm.weight"],
             "head_norm.bias": sd["cls.predictions.transform.LayerNorm.bias"],
             "lm_head.weight": sd["bert.embeddings.word_embeddings.weight"], "lm_head.bias": sd["cls.predictions.bias"]}
    for i in range(NL):
        hf_, sl = f"bert.encoder.layer.{i}.", f"layers.{i}."
        for part in ("weight", "bias"):
            state[sl + f"self_attn.in_proj_{part}"] = np.concatenate(
                [sd[hf_ + f"attention.self.{p}.{part}"] for p in ("query", "key", "value")])
            for ours_name, theirs in (("self_attn.out_proj", "attention.output.dense"),
                                      ("norm1", "attention.output.LayerNorm"), ("linear1", "intermediate.dense"),
                                      ("linear2", "output.dense"), ("norm2", "output.LayerNorm")):
                state[f"{sl}{ours_name}.{part}"] = sd[f"{hf_}{theirs}.{part}"]
    ours.load_state_dict({k: seqlab.from_numpy(np.ascontiguousarray(v)) for k, v in state.items()})
    return hf, ours


def padded_batch(seed=0):
    ids = np.random.default_rng(seed).integers(1, V, size=(3, 12))
    mask = np.ones_like(ids)
    mask[1, -4:] = mask[2, -7:] = 0
    return np.where(mask == 1, ids, 0), mask


def test_equals_hugging_faces_bert_for_masked_lm():
    hf, ours = bert_pair()
    ids, mask = padded_batch()
    types = (np.arange(12) >= 6).astype(np.int64)[None].repeat(3, 0)
    out = hf(torch.from_numpy(ids), attention_mask=torch.from_numpy(mask), token_type_ids=torch.from_numpy(types),
             output_hidden_states=True)
    got = ours(seqlab.tensor(ids), attention_mask=seqlab.tensor(mask), token_type_ids=seqlab.tensor(types),
               output_hidden_states=True)
    keep = mask == 1
    np.testing.assert_allclose(got.logits.detach().numpy()[keep], out.logits.detach().numpy()[keep], rtol=1e-10,
                               atol=1e-10)
    for a, b in zip(got.hidden_states, out.hidden_states):
        np.testing.assert_allclose(a.detach().numpy()[keep], b.detach().numpy()[keep], rtol=1e-10, atol=1e-10)
    # the masked-LM loss's gradients (labels only at the tokens, as Hugging Face's -100)
    labels = np.where(keep, (ids * 7) % V, -100)
    out_loss = hf(torch.from_numpy(ids), attention_mask=torch.from_numpy(mask), token_type_ids=torch.from_numpy(types),
                  labels=torch.from_numpy(labels)).loss
    out_loss.backward()
    loss = F.cross_entropy(got.logits.reshape(-1, V), seqlab.tensor(labels).reshape(-1))
    loss.backward()
    assert float(loss) == pytest.approx(float(out_loss.detach()), rel=1e-12)
    for ours_name, theirs in (("tok_emb.weight", hf.bert.embeddings.word_embeddings.weight),
                              ("positional.weight", hf.bert.embeddings.position_embeddings.weight),
                              ("layers.0.linear1.weight", hf.bert.encoder.layer[0].intermediate.dense.weight),
                              ("lm_head.bias", hf.cls.predictions.bias)):
        np.testing.assert_allclose(ours.get_parameter(ours_name).grad.numpy(), theirs.grad.numpy(), rtol=1e-9,
                                   atol=1e-12, err_msg=ours_name)


def test_padding_leaves_the_tokens_outputs_alone(rng):
    model = nn.TransformerMaskedLM(V, E, H, NL, dropout=0.0, positional=nn.Embedding(MAXLEN, E),
                                   pos=nn.positional.DeBERTaRelativePosition(E, H, 4)).eval()
    ids = seqlab.tensor(rng.integers(1, V, size=(1, 7)))
    padded = seqlab.cat([ids, seqlab.zeros(1, 5, dtype=seqlab.int64)], 1)
    alone = model(ids).detach().numpy()
    mask = seqlab.tensor([[1] * 7 + [0] * 5])
    with_padding = model(padded, attention_mask=mask).detach().numpy()
    np.testing.assert_allclose(with_padding[:, :7], alone, rtol=1e-5, atol=1e-5)


def test_it_learns_to_fill_masks():
    """Sequences count up by one (mod the vocabulary) from a random start; 15 % of the positions
    are replaced by [MASK] (id 0). A small encoder with DeBERTa's relative positions (and no
    absolute ones) learns to fill them from its neighbours on both sides."""
    seqlab.manual_seed(0)
    rng = np.random.default_rng(0)
    MASK, N, T = 0, 32, 16
    model = nn.TransformerMaskedLM(V, 32, 4, 2, 64, dropout=0.0, pos=nn.positional.DeBERTaRelativePosition(32, 4, 4))
    opt = seqlab.optim.Adam(model.parameters(), lr=3e-3)

    def batch():
        ids = (rng.integers(1, V, size=(N, 1)) + np.arange(T)) % (V - 1) + 1
        masked = rng.random((N, T)) < 0.15
        return np.where(masked, MASK, ids), np.where(masked, ids, -100)

    for _ in range(300):
        x, y = batch()
        loss = F.cross_entropy(model(seqlab.tensor(x)).reshape(-1, V), seqlab.tensor(y).reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    x, y = batch()
    pred = model(seqlab.tensor(x)).argmax(-1).numpy()
    assert (pred[y != -100] == y[y != -100]).mean() > 0.9


def test_tied_head_and_embedding_projection():
    model = nn.TransformerMaskedLM(V, E, H, 1, embedding_size=8)
    assert model.lm_head.weight is model.tok_emb.weight and tuple(model.tok_emb.weight.shape) == (V, 8)
    assert tuple(model.embed_proj.weight.shape) == (E, 8) and tuple(model.head_dense.weight.shape) == (8, E)
    assert model(seqlab.tensor([[1, 2, 3]])).shape == (1, 3, V)
    untied = nn.TransformerMaskedLM(V, E, H, 1, tie_weights=False, norm_first=True)
    assert untied.lm_head.weight is not untied.tok_emb.weight and untied.ln_f is not None


def test_bad_input_is_a_clear_error():
    model = nn.TransformerMaskedLM(V, E, H, 1)
    with pytest.raises(ValueError, match=r"TransformerMaskedLM: expected idx of shape \(N, L\), got \(5,\)"):
        model(seqlab.tensor([1, 2, 3, 4, 5]))
    with pytest.raises(ValueError, match=r"attention_mask \(1, 4\) must have idx's shape \(1, 5\)"):
        model(seqlab.tensor([[1, 2, 3, 4, 5]]), attention_mask=seqlab.tensor([[1, 1, 1, 1]]))
    with pytest.raises(IndexError, match="beyond the positional table's 4 positions"):
        nn.TransformerMaskedLM(V, E, H, 1, positional=nn.Embedding(4, E))(seqlab.tensor([[1, 2, 3, 4, 5]]))
