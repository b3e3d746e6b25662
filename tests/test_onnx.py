"""seqlab.onnx.export (torch.onnx.export): the files pass onnx.checker's full check, and
onnxruntime, given other inputs than the traced ones (other batch sizes and lengths where
dynamic_axes say so), computes seqlab's outputs within 1e-5 (float32). Models: an MLP, PyTorch's
word_language_model RNNModel (LSTM, GRU, RNN_TANH; tied weights; the hidden state in and out),
a bidirectional batch_first GRU, a TransformerEncoder and seqlab's TransformerLM."""
import io
import os
import subprocess
import sys
import warnings

import numpy as np
import onnx
import onnxruntime as ort
import pytest

import seqlab
import seqlab.nn as nn
import seqlab.nn.functional as F


def export(model, args, **kwargs):
    """The exported bytes, checked by onnx.checker (full check: shape inference too)."""
    buf = io.BytesIO()
    seqlab.onnx.export(model, args, buf, **kwargs)
    data = buf.getvalue()
    onnx.checker.check_model(onnx.load_from_string(data), full_check=True)
    return data


def run(data, feeds):
    sess = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    return sess.run(None, {k: v.numpy() for k, v in feeds.items()})


def numpys(outputs):
    out = []
    for o in outputs:
        if isinstance(o, (tuple, list)):
            out += numpys(o)
        elif o is not None:                                  # None outputs are left out, as torch does
            out.append(o.detach().numpy())
    return out


def assert_runs_like_seqlab(data, model, args, names, atol=1e-5):
    """onnxruntime on `args` (named by `names`) equals model(*args)."""
    flat = []
    for a in args:
        flat += list(a) if isinstance(a, tuple) else [a]
    got = run(data, dict(zip(names, flat)))
    with seqlab.no_grad():
        result = model(*args)
    want = numpys(result if isinstance(result, (tuple, list)) else [result])
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=atol)


def initializer_names(data):
    return {t.name for t in onnx.load_from_string(data).graph.initializer}


# ---------------------------------------------------------------------------------------- MLP
def mlp(dtype=seqlab.float32):
    # onnxruntime has no float64 Erf kernel: GELU in float32 only
    act = nn.GELU() if dtype == seqlab.float32 else nn.ReLU()
    return nn.Sequential(nn.Linear(6, 16, dtype=dtype), nn.ReLU(), nn.Linear(16, 16, dtype=dtype), nn.Tanh(),
                         nn.Linear(16, 8, dtype=dtype), act, nn.Linear(8, 4, dtype=dtype), nn.Sigmoid(),
                         nn.Linear(4, 3, dtype=dtype), nn.LogSoftmax(dim=1))


@pytest.mark.parametrize("dtype,atol", [(seqlab.float32, 1e-5), (seqlab.float64, 1e-10)])
def test_mlp(dtype, atol):
    seqlab.manual_seed(0)
    model = mlp(dtype)
    data = export(model, (seqlab.randn(5, 6, dtype=dtype),), input_names=["x"], output_names=["logp"],
                  dynamic_axes={"x": {0: "batch"}, "logp": {0: "batch"}})
    assert initializer_names(data) == set(model.state_dict())
    graph = onnx.load_from_string(data).graph
    assert [i.name for i in graph.input] == ["x"] and [o.name for o in graph.output] == ["logp"]
    assert graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    assert {n.op_type for n in graph.node} >= {"Gemm", "Relu", "Tanh", "Sigmoid", "LogSoftmax"}
    for batch in (1, 9):
        assert_runs_like_seqlab(data, model, (seqlab.randn(batch, 6, dtype=dtype),), ["x"], atol)


def test_model_file_fields():
    seqlab.manual_seed(0)
    model = onnx.load_from_string(export(nn.Linear(3, 2), seqlab.randn(2, 3)))
    assert model.ir_version == 9 and model.opset_import[0].version == 20 and model.opset_import[0].domain == ""
    assert model.producer_name == "seqlab"
    model = onnx.load_from_string(export(nn.Linear(3, 2), seqlab.randn(2, 3), opset_version=17))
    assert model.ir_version == 8 and model.opset_import[0].version == 17
    with pytest.raises(ValueError, match="opset_version must be between 17 and 20, got 13"):
        seqlab.onnx.export(nn.Linear(3, 2), seqlab.randn(2, 3), io.BytesIO(), opset_version=13)


def test_path_is_written_atomically(tmp_path):
    seqlab.manual_seed(0)
    model = mlp()
    path = tmp_path / "mlp.onnx"
    seqlab.onnx.export(model, seqlab.randn(4, 6), str(path), input_names=["x"])
    assert os.listdir(tmp_path) == ["mlp.onnx"]
    onnx.checker.check_model(str(path), full_check=True)
    assert_runs_like_seqlab(path.read_bytes(), model, (seqlab.randn(4, 6),), ["x"])
    seqlab.onnx.export(model, seqlab.randn(4, 6), path)       # a PathLike, over the old file
    assert os.listdir(tmp_path) == ["mlp.onnx"]

    class Broken(nn.Module):
        def forward(self, x):
            return x.cumsum(0)
    with pytest.raises(NotImplementedError):
        seqlab.onnx.export(Broken(), seqlab.randn(4, 6), path)
    assert os.listdir(tmp_path) == ["mlp.onnx"]                  # an error leaves the old file alone
    onnx.checker.check_model(str(path))


# ---------------------------------------------------------------------------- word_language_model
class RNNModel(nn.Module):
    """pytorch/examples word_language_model/model.py's RNNModel, as written there."""

    def __init__(self, rnn_type, ntoken, ninp, nhid, nlayers, dropout=0.5, tie_weights=False):
        super().__init__()
        self.ntoken = ntoken
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        if rnn_type in ["LSTM", "GRU"]:
            self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=dropout)
        else:
            nonlinearity = {"RNN_TANH": "tanh", "RNN_RELU": "relu"}[rnn_type]
            self.rnn = nn.RNN(ninp, nhid, nlayers, nonlinearity=nonlinearity, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        if tie_weights:
            self.decoder.weight = self.encoder.weight
        self.rnn_type = rnn_type
        self.nhid = nhid
        self.nlayers = nlayers

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output)
        decoded = decoded.view(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        if self.rnn_type == "LSTM":
            return (weight.new_zeros(self.nlayers, bsz, self.nhid), weight.new_zeros(self.nlayers, bsz, self.nhid))
        return weight.new_zeros(self.nlayers, bsz, self.nhid)


@pytest.mark.parametrize("rnn_type", ["LSTM", "GRU", "RNN_TANH", "RNN_RELU"])
def test_word_language_model(rnn_type):
    seqlab.manual_seed(0)
    model = RNNModel(rnn_type, ntoken=50, ninp=16, nhid=16, nlayers=2, dropout=0.2, tie_weights=True)
    model.train()
    lstm = rnn_type == "LSTM"
    hidden = model.init_hidden(3)
    # as main.py --onnx-export: the dummy input and the hidden state
    names = ["input", "h0", "c0"] if lstm else ["input", "h0"]
    outputs = ["logp", "hn", "cn"] if lstm else ["logp", "hn"]
    dynamic = {n: {1: "batch"} for n in names[1:] + outputs[1:]}
    dynamic.update(input={0: "seq", 1: "batch"}, logp={0: "seq_batch"})
    data = export(model, (seqlab.randint(0, 50, (7, 3)), hidden), input_names=names, output_names=outputs,
                  dynamic_axes=dynamic)
    assert model.training and model.rnn.training and model.drop.training     # modes put back
    # tied weights: one initializer, under the first name (named_parameters' rule)
    assert initializer_names(data) == set(dict(model.named_parameters())) <= set(model.state_dict())
    assert "decoder.weight" not in initializer_names(data)
    op = {"LSTM": "LSTM", "GRU": "GRU"}.get(rnn_type, "RNN")
    assert sum(n.op_type == op for n in onnx.load_from_string(data).graph.node) == 2
    model.eval()
    for seq, batch in ((7, 3), (11, 5), (1, 1)):
        h = model.init_hidden(batch)
        h = tuple(seqlab.randn(*t.shape) for t in h) if lstm else seqlab.randn(*h.shape)
        assert_runs_like_seqlab(data, model, (seqlab.randint(0, 50, (seq, batch)), h), names)


@pytest.mark.parametrize("with_h0", [False, True])
def test_bidirectional_batch_first_gru(with_h0):
    seqlab.manual_seed(1)
    gru = nn.GRU(5, 6, num_layers=2, batch_first=True, bidirectional=True)
    x = seqlab.randn(3, 4, 5)
    args = (x, seqlab.randn(4, 3, 6)) if with_h0 else (x,)
    names = ["x", "h0"] if with_h0 else ["x"]
    dynamic = {"x": {0: "batch", 1: "seq"}, "h0": {1: "batch"}, "out": {0: "batch", 1: "seq"}, "hn": {1: "batch"}}
    if not with_h0:
        del dynamic["h0"]
    data = export(gru, args, input_names=names, output_names=["out", "hn"], dynamic_axes=dynamic)
    assert initializer_names(data) == set(gru.state_dict())
    for batch, seq in ((3, 4), (2, 9)):
        new = (seqlab.randn(batch, seq, 5), seqlab.randn(4, batch, 6)) if with_h0 else (seqlab.randn(batch, seq, 5),)
        assert_runs_like_seqlab(data, gru, new, names)


def test_lstm_unbatched_single_layer():
    seqlab.manual_seed(2)
    lstm = nn.LSTM(4, 5, bidirectional=True)
    data = export(lstm, (seqlab.randn(6, 4),), input_names=["x"], dynamic_axes={"x": {0: "seq"}})
    assert_runs_like_seqlab(data, lstm, (seqlab.randn(8, 4),), ["x"])


# ---------------------------------------------------------------------------- transformers
@pytest.mark.parametrize("norm_first,activation", [(False, "relu"), (True, "gelu")])
def test_transformer_encoder(norm_first, activation):
    seqlab.manual_seed(3)
    layer = nn.TransformerEncoderLayer(16, 4, dim_feedforward=32, dropout=0.1, activation=activation,
                                       norm_first=norm_first)
    encoder = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(16), enable_nested_tensor=False)
    mask = nn.Transformer.generate_square_subsequent_mask(5)
    # seq-first (S, N, E); a float causal mask as torch's examples pass it
    data = export(encoder, (seqlab.randn(5, 2, 16), mask), input_names=["src", "mask"],
                  dynamic_axes={"src": {1: "batch"}, "output": {1: "batch"}})
    assert initializer_names(data) == set(encoder.state_dict())
    assert encoder.training and encoder.layers[1].dropout.training       # modes put back: compare in eval
    encoder.eval()
    for batch in (2, 3):
        assert_runs_like_seqlab(data, encoder, (seqlab.randn(5, batch, 16), mask), ["src", "mask"])


@pytest.mark.parametrize("scale", [None, 1.0], ids=["default-scale", "scale-1"])
def test_multihead_attention_with_padding_mask(scale):
    seqlab.manual_seed(4)
    mha = nn.MultiheadAttention(8, 2, batch_first=True, scale=scale)

    class Attend(nn.Module):
        def __init__(self):
            super().__init__()
            self.mha = mha

        def forward(self, q, kv, key_padding_mask):
            return self.mha(q, kv, kv, key_padding_mask=key_padding_mask)

    model = Attend()
    pad = seqlab.tensor([[False, False, False, True, True], [False] * 5])
    names = ["q", "kv", "pad"]
    data = export(model, (seqlab.randn(2, 3, 8), seqlab.randn(2, 5, 8), pad), input_names=names)
    assert initializer_names(data) == {"mha." + k for k in mha.state_dict()}
    pad2 = seqlab.tensor([[False, True, True, True, True], [False, False, False, False, True]])
    assert_runs_like_seqlab(data, model, (seqlab.randn(2, 3, 8), seqlab.randn(2, 5, 8), pad2), names)
    # a sequence that is all padding: zeros before the out-projection, as seqlab's kernel (not NaN)
    pad3 = seqlab.tensor([[True] * 5, [False, False, True, True, True]])
    assert_runs_like_seqlab(data, model, (seqlab.randn(2, 3, 8), seqlab.randn(2, 5, 8), pad3), names)


def test_transformer_lm_dynamic_length():
    seqlab.manual_seed(5)
    lm = nn.TransformerLM(40, d_model=16, nhead=2, num_layers=2, dropout=0.1, tie_weights=True)
    data = export(lm, (seqlab.randint(0, 40, (2, 6)),), input_names=["idx"], output_names=["logits"],
                  dynamic_axes={"idx": {0: "batch", 1: "seq"}, "logits": {0: "batch", 1: "seq"}})
    assert initializer_names(data) == set(dict(lm.named_parameters()))
    lm.eval()
    for batch, seq in ((2, 6), (3, 9), (1, 1)):
        assert_runs_like_seqlab(data, lm, (seqlab.randint(0, 40, (batch, seq)),), ["idx"])


# ---------------------------------------------------------------------------- shapes and indexing
class Shapes(nn.Module):
    """The shape ops a course model writes in its forward."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 6)
        self.norm = nn.LayerNorm(6)

    def forward(self, x):                                      # x (B, T, 4)
        h = self.norm(self.proj(x))                            # (B, T, 6)
        a, b = h.chunk(2, dim=-1)                              # (B, T, 3) each
        c, d = seqlab.split(h, [2, 4], dim=2)
        y = seqlab.cat([a * b, c.tanh(), d.sigmoid() - 1], dim=-1)     # (B, T, 9)
        y = y.transpose(0, 1).contiguous().permute(1, 0, 2)    # back to (B, T, 9)
        y = y.unsqueeze(1).squeeze(1)[:, 1:, ::2]              # (B, T-1, 5)
        z = y.flatten(1) / 2 + 0.5                             # (B, 5(T-1))
        w = y[..., 0].unsqueeze(-1) ** 2 + y[:, None, -1].mean(dim=1, keepdim=True)   # (B, T-1, 5)
        v = seqlab.stack([w.exp(), w.relu()], dim=0).sum(dim=0)
        return z, v.view(v.size(0), -1, 5), x.T


def test_shape_ops():
    seqlab.manual_seed(6)
    model = Shapes()
    data = export(model, (seqlab.randn(3, 5, 4),), input_names=["x"], opset_version=17)
    assert_runs_like_seqlab(data, model, (seqlab.randn(3, 5, 4),), ["x"])
    data = export(model, (seqlab.randn(3, 5, 4),), input_names=["x"], dynamic_axes={"x": {0: "batch"}})
    assert_runs_like_seqlab(data, model, (seqlab.randn(6, 5, 4),), ["x"])


# ---------------------------------------------------------------------------- arguments and errors
def test_inputs_and_outputs_named_as_torch_does():
    seqlab.manual_seed(7)
    gru = nn.GRU(3, 4)
    graph = onnx.load_from_string(export(gru, (seqlab.randn(2, 1, 3), seqlab.randn(1, 1, 4)))).graph
    assert [i.name for i in graph.input] == ["input", "hx"]
    assert [o.name for o in graph.output] == ["output_0", "output_1"]
    model = RNNModel("LSTM", 10, 4, 4, 1, dropout=0.0)
    graph = onnx.load_from_string(export(model, (seqlab.randint(0, 10, (2, 1)), model.init_hidden(1)),
                                         input_names=["tokens"], dynamic_axes={"tokens": [0, 1]})).graph
    assert [i.name for i in graph.input] == ["tokens", "hidden_0", "hidden_1"]
    assert [d.dim_param for d in graph.input[0].type.tensor_type.shape.dim] == ["tokens_dynamic_axes_1",
                                                                                "tokens_dynamic_axes_2"]
    with pytest.warns(UserWarning, match="Provided key nope for dynamic axes is not a valid input/output name"):
        export(nn.Linear(2, 2), seqlab.randn(1, 2), dynamic_axes={"nope": [0]})


def test_export_params_false_and_initializers_as_inputs():
    seqlab.manual_seed(8)
    model = nn.Linear(3, 2)
    graph = onnx.load_from_string(export(model, seqlab.randn(2, 3), export_params=False)).graph
    assert not graph.initializer and [i.name for i in graph.input] == ["input", "weight", "bias"]
    graph = onnx.load_from_string(export(model, seqlab.randn(2, 3), keep_initializers_as_inputs=True)).graph
    assert {t.name for t in graph.initializer} == {"weight", "bias"}
    assert [i.name for i in graph.input] == ["input", "weight", "bias"]


def test_unsupported_op_is_a_clear_error_and_everything_is_restored():
    class Cumulative(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 3)

        def forward(self, x):
            return seqlab.cumsum(self.lin(x), dim=0)

    tanh, method, getitem = seqlab.tanh, seqlab.Tensor.tanh, seqlab.Tensor.__getitem__
    with pytest.raises(NotImplementedError, match=r"the op cumsum has no ONNX translation .*supports these "
                                                  r"functions: .*_linear.*embedding.*rnn"):
        seqlab.onnx.export(Cumulative(), seqlab.randn(2, 3), io.BytesIO())
    assert seqlab.tanh is tanh and seqlab.Tensor.tanh is method and seqlab.Tensor.__getitem__ is getitem
    assert seqlab.relu is seqlab._core.relu and not seqlab.onnx.is_in_onnx_export()

    class Method(nn.Module):
        def forward(self, x):
            return x.cumprod(1)
    with pytest.raises(NotImplementedError, match=r"the op Tensor.cumprod has no ONNX translation"):
        seqlab.onnx.export(Method(), seqlab.randn(2, 3), io.BytesIO())


_untraced_tanh = seqlab.Tensor.tanh     # a reference taken before the export: the tracer cannot see its calls


def test_work_outside_the_trace_is_caught():
    class Hidden(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 3)

        def forward(self, x):
            return self.lin(_untraced_tanh(x)) + 1

    with pytest.raises(RuntimeError, match=r"computed from the model's inputs or parameters by an op the "
                                           r"exporter did not see \(TanhBackward0\)"):
        seqlab.onnx.export(Hidden(), seqlab.randn(2, 3), io.BytesIO())


def test_dropout_in_training_and_unsupported_options():
    class AlwaysDrop(nn.Module):
        def forward(self, x):
            return F.dropout(x, 0.5)              # training=True by default, as torch's
    with pytest.raises(RuntimeError, match=r"dropout\(p=0.5\) was called with training=True"):
        seqlab.onnx.export(AlwaysDrop(), seqlab.randn(2, 3), io.BytesIO())
    with pytest.raises(NotImplementedError, match="TrainingMode.TRAINING"):
        seqlab.onnx.export(nn.Linear(2, 2), seqlab.randn(1, 2), io.BytesIO(),
                           training=seqlab.onnx.TrainingMode.TRAINING)
    with pytest.raises(NotImplementedError, match="proj_size"):
        seqlab.onnx.export(nn.LSTM(3, 4, proj_size=2), seqlab.randn(2, 1, 3), io.BytesIO())
    with pytest.raises(ValueError, match="f \\(a path or a binary file object\\) must be given"):
        seqlab.onnx.export(nn.Linear(2, 2), seqlab.randn(1, 2))


def test_is_in_onnx_export_and_constants():
    seen = []

    class Offset(nn.Module):
        def forward(self, x):
            seen.append(seqlab.onnx.is_in_onnx_export())
            return x + seqlab.arange(3).float()           # a constant made in forward: baked in

    data = export(Offset(), seqlab.randn(2, 3), input_names=["x"])
    assert seen == [True]
    x = seqlab.randn(2, 3)
    np.testing.assert_allclose(run(data, {"x": x})[0], (x + seqlab.arange(3).float()).numpy())


def test_in_place_writes_are_refused():
    class Write(nn.Module):
        def forward(self, x):
            y = x * 2
            y[:, 0] = 0.0
            return y

    with pytest.raises(NotImplementedError, match=r"in-place write .* to a traced tensor of shape \(2, 3\)"):
        seqlab.onnx.export(Write(), seqlab.randn(2, 3), io.BytesIO())

    class Add(nn.Module):
        def forward(self, x):
            return (x * 2).add_(1)

    with pytest.raises(NotImplementedError, match=r"Tensor.add_ has no ONNX translation"):
        seqlab.onnx.export(Add(), seqlab.randn(2, 3), io.BytesIO())


class Reshapes(nn.Module):
    """Views and constants whose sizes are read in Python (x.shape, x.size(d)): they follow the input."""

    def forward(self, x):                                    # (B, T, 6)
        B, T, C = x.shape
        heads = x.view(B, T, 2, C // 2).transpose(1, 2)      # (B, 2, T, 3)
        merged = heads.transpose(1, 2).reshape(B, T, C)      # (B, T, 6)
        ones = seqlab.ones(1, 1, C).expand(B, T, C)          # a constant broadcast to the input's size
        flat = x.view(x.size(0), -1).view(B, T * C).view(B, T, C)
        positions = seqlab.arange(T).float().view(1, T, 1) + seqlab.zeros(B, 1, 1)
        shifted = seqlab.cat([x[:, :1], x[:, :T - 1]], dim=1)   # a slice bound computed from a size
        return merged + flat + x * ones + seqlab.ones_like(x) + positions + x.new_zeros(B, T, 1) + shifted


def test_views_follow_dynamic_axes():
    model = Reshapes()
    data = export(model, (seqlab.randn(2, 3, 6),), input_names=["x"], dynamic_axes={"x": {0: "B", 1: "T"}})
    for shape in ((2, 3, 6), (4, 5, 6), (1, 1, 6)):
        assert_runs_like_seqlab(data, model, (seqlab.randn(*shape),), ["x"])


class StatelessRNN(nn.Module):
    """A course RNN that makes its initial state in forward from the input's batch size."""

    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(3, 5, num_layers=2)
        self.head = nn.Linear(5, 2)

    def forward(self, x):                                    # (T, N, 3)
        h0 = x.new_zeros(2, x.size(1), 5)
        c0 = seqlab.zeros(2, x.shape[1], 5)
        out, _ = self.rnn(x, (h0, c0))
        return self.head(out[-1])


def test_state_made_in_forward_follows_the_batch():
    seqlab.manual_seed(9)
    model = StatelessRNN()
    data = export(model, seqlab.randn(4, 2, 3), input_names=["x"], dynamic_axes={"x": {0: "T", 1: "N"}})
    for shape in ((4, 2, 3), (6, 5, 3)):
        assert_runs_like_seqlab(data, model, (seqlab.randn(*shape),), ["x"])


def test_transformer_lm_learned_positions():
    seqlab.manual_seed(10)
    lm = nn.TransformerLM(30, d_model=8, nhead=2, num_layers=1, positional=nn.Embedding(16, 8)).eval()
    data = export(lm, seqlab.randint(0, 30, (2, 5)), input_names=["idx"], dynamic_axes={"idx": {0: "N", 1: "L"}})
    for shape in ((2, 5), (3, 12)):
        assert_runs_like_seqlab(data, lm, (seqlab.randint(0, 30, shape),), ["idx"])


class Elementwise(nn.Module):
    """Arithmetic, masks and reductions as a forward writes them."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(seqlab.randn(4, 4))

    def forward(self, x, mask):                              # x (B, 4, 4), mask (B, 4, 4) bool
        scores = (x @ self.w).masked_fill(mask, float("-inf")).softmax(-1)
        causal = seqlab.ones(4, 4).triu(1).bool()
        y = seqlab.where(causal, 0.0, scores) + 2 ** x.clamp(-1, 1) - seqlab.sub(x, 1, alpha=0.5)
        z = seqlab.tril(y, -1).sum(dim=-1, keepdims=True) / (1 + x.abs()) + seqlab.matmul(x, x.mT).exp().log()
        return seqlab.log_softmax(z, dim=1).double(), z.mean()


def test_elementwise_and_masks():
    seqlab.manual_seed(11)
    model = Elementwise()
    mask = seqlab.rand(2, 4, 4) > 0.7
    names = ["x", "mask"]
    data = export(model, (seqlab.randn(2, 4, 4), mask), input_names=names, dynamic_axes={"x": [0], "mask": [0]})
    assert initializer_names(data) == {"w"}
    assert_runs_like_seqlab(data, model, (seqlab.randn(3, 4, 4), seqlab.rand(3, 4, 4) > 0.7), names)


def test_export_needs_onnx_but_not_onnxruntime_and_names_the_extra(tmp_path):
    path = tmp_path / "m.onnx"
    code = ("import sys; sys.modules['onnxruntime'] = None\n"
            "import seqlab\n"
            f"seqlab.onnx.export(seqlab.nn.Linear(3, 2), seqlab.randn(1, 3), {str(path)!r})\n")
    subprocess.run([sys.executable, "-c", code], check=True)
    onnx.checker.check_model(str(path), full_check=True)
    # without the onnx package: `import seqlab` works, and export says which extra installs it;
    # with onnx but without protobuf, which onnx imports, the error names protobuf, not onnx
    for blocked in ("onnx", "google.protobuf"):
        code = (f"import sys; sys.modules[{blocked!r}] = None\n"
                "import seqlab\n"
                "try:\n"
                f"    seqlab.onnx.export(seqlab.nn.Linear(3, 2), seqlab.randn(1, 3), {str(tmp_path / 'n.onnx')!r})\n"
                "except ImportError as e:\n"
                "    print(type(e).__name__, e.name, e)\n")
        out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
        assert out.startswith(f"ModuleNotFoundError {blocked}") and "pip install seqlab[onnx]" in out, out
        assert sorted(os.listdir(tmp_path)) == ["m.onnx"]
    assert "onnx package, which is installed" in out and "import 'google.protobuf" in out, out


@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer_encoder_decoder(norm_first):
    seqlab.manual_seed(12)
    with warnings.catch_warnings():           # torch's "enable_nested_tensor is True, but ... norm_first was True"
        warnings.simplefilter("ignore")
        model = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=2, dim_feedforward=16,
                               batch_first=True, norm_first=norm_first).eval()

    class Seq2Seq(nn.Module):
        def __init__(self):
            super().__init__()
            self.transformer = model

        def forward(self, src, tgt):
            mask = nn.Transformer.generate_square_subsequent_mask(tgt.size(1))
            return self.transformer(src, tgt, tgt_mask=mask, tgt_is_causal=True)

    wrapper = Seq2Seq()
    names = ["src", "tgt"]
    data = export(wrapper, (seqlab.randn(2, 5, 8), seqlab.randn(2, 4, 8)), input_names=names,
                  dynamic_axes={"src": [0, 1], "tgt": [0, 1]})
    assert initializer_names(data) == {"transformer." + k for k in model.state_dict()}
    for n, s, t in ((2, 5, 4), (3, 7, 6)):
        assert_runs_like_seqlab(data, wrapper, (seqlab.randn(n, s, 8), seqlab.randn(n, t, 8)), names)


def test_transformer_seq2seq_with_padding():
    seqlab.manual_seed(13)
    model = nn.TransformerSeq2Seq(20, 25, d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                                  positional=nn.Embedding(32, 8)).eval()
    names = ["src", "tgt", "src_pad"]
    pad = seqlab.tensor([[False] * 6, [False] * 4 + [True] * 2])
    data = export(model, (seqlab.randint(0, 20, (2, 6)), seqlab.randint(0, 25, (2, 3)), pad), input_names=names,
                  dynamic_axes={"src": [0, 1], "tgt": [0, 1], "src_pad": [0, 1]})
    pad = seqlab.tensor([[False] * 8, [False] * 5 + [True] * 3, [False] * 2 + [True] * 6])
    assert_runs_like_seqlab(data, model, (seqlab.randint(0, 20, (3, 8)), seqlab.randint(0, 25, (3, 5)), pad), names)


@pytest.mark.parametrize("flash", [True, False])
def test_nanogpt(flash):
    """tests/gpt_script.py's GPT (nanoGPT's): F.scaled_dot_product_attention(is_causal=True) or the
    tril buffer compared with == 0 and masked_fill; positions from arange(t); logits of x[:, [-1], :]."""
    sys.path.insert(0, os.path.dirname(__file__))
    from gpt_script import GPT
    seqlab.manual_seed(14)
    model = GPT(30, block_size=16, n_layer=2, n_head=2, n_embd=16, flash=flash).eval()
    data = export(model, seqlab.randint(0, 30, (2, 7)), input_names=["idx"], output_names=["logits"],
                  dynamic_axes={"idx": {0: "B", 1: "T"}, "logits": {0: "B"}})
    buffers = set() if flash else {"transformer.h.0.attn.bias", "transformer.h.1.attn.bias"}
    assert initializer_names(data) == set(dict(model.named_parameters())) | buffers
    for shape in ((2, 7), (3, 16), (1, 1)):
        assert_runs_like_seqlab(data, model, (seqlab.randint(0, 30, shape),), ["idx"])


@pytest.mark.parametrize("option,message", [
    (dict(glu=True), r"the GLU feed-forward \(glu=True\) has no ONNX translation"),
    (dict(rms_norm=True), r"RMSNorm \(rms_norm=True\) has no ONNX translation"),
    (dict(num_key_value_heads=2), r"num_key_value_heads < num_heads \(grouped-query attention\) has no ONNX"),
    (dict(head_dim=8), r"head_dim 8 \(heads that do not span embed_dim 16\) has no ONNX translation"),
])
def test_the_llama_layer_options_are_refused_not_exported_wrong(tmp_path, option, message):
    """The exporter translates torch's layers; seqlab's Llama options (a GLU feed-forward, RMSNorm,
    grouped-query attention, heads of another width) it does not know yet, so it refuses them rather than write a file
    that computes something else."""
    layer = seqlab.nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, batch_first=True, **option).eval()
    with pytest.raises(NotImplementedError, match=message):
        seqlab.onnx.export(layer, (seqlab.randn(2, 5, 16),), str(tmp_path / "layer.onnx"))
