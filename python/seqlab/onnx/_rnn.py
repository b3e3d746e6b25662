"""The recurrent layers (seqlab._core.rnn: nn.RNN, nn.LSTM, nn.GRU) as ONNX's RNN, LSTM and GRU
ops, one per layer, chained (https://onnx.ai/onnx/operators/onnx__LSTM.html).

ONNX takes each layer's weights as W (D, G·H, in), R (D, G·H, H), B (D, 2·G·H) = [W_b, R_b]
with D directions stacked, and orders the gates differently from torch:
    LSTM  torch i, f, g, o   ->  ONNX i, o, f, c
    GRU   torch r, z, n      ->  ONNX z, r, h   (linear_before_reset=1: r multiplies R_h h + R_bh, as torch's n)
The parameters stay initializers under their state-dict names; the reordering is Split and
Concat nodes on them, so that the file's parameters are the model's, as they are in torch's
export. ONNX's layout is (T, N, ·); batch_first input is transposed in and out. h_0 / c_0
(num_layers·D, N, H) are sliced per layer; h_n, c_n concatenate the layers' Y_h, Y_c."""
import numpy as np

_ONNX_GATES = {"LSTM": [0, 3, 1, 2], "GRU": [1, 0, 2], "RNN_TANH": [0], "RNN_RELU": [0]}
_OP = {"LSTM": "LSTM", "GRU": "GRU", "RNN_TANH": "RNN", "RNN_RELU": "RNN"}


def _reorder(tr, weight, mode, hidden_size):
    """weight (G·H, ...) with torch's gate blocks in ONNX's order, unsqueezed to (1, G·H, ...)."""
    g, order = tr.graph, _ONNX_GATES[mode]
    name = tr.name(weight)
    if order != sorted(order):
        parts = g.op("Split", name, g.ints([hidden_size] * len(order)), axis=0, outputs=len(order))
        name = g.op("Concat", *[parts[i] for i in order], axis=0)
    return g.unsqueeze(name, [0])


def rnn(tr, out, mode, input, hx, cx, weights, has_biases, num_layers, dropout, train, bidirectional, batch_first,
        proj_size=0, grad_norms=None):
    g = tr.graph
    if proj_size:
        raise NotImplementedError("seqlab.onnx.export: LSTM with proj_size > 0 has no ONNX translation (ONNX's LSTM "
                                  "has no projection)")
    output, h_n, c_n = out
    D = 2 if bidirectional else 1
    H = weights[1].shape[1]
    per = 4 if has_biases else 2
    unbatched = input.dim() == 2
    x = tr.name(input)
    h0 = None if hx is None else tr.name(hx)
    c0 = None if cx is None else tr.name(cx)
    if unbatched:                                            # (T, in) -> (T, 1, in); h (L·D, H) -> (L·D, 1, H)
        x = g.unsqueeze(x, [1])
        h0 = None if h0 is None else g.unsqueeze(h0, [1])
        c0 = None if c0 is None else g.unsqueeze(c0, [1])
    elif batch_first:                                        # (N, T, in) -> (T, N, in)
        x = g.transpose(x, [1, 0, 2])
    hs, cs = [], []
    for layer in range(num_layers):
        W, R, B = [], [], []
        for d in range(D):
            w = weights[(layer * D + d) * per:(layer * D + d + 1) * per]
            W.append(_reorder(tr, w[0], mode, H))
            R.append(_reorder(tr, w[1], mode, H))
            if has_biases:
                B.append(g.op("Concat", _reorder(tr, w[2], mode, H), _reorder(tr, w[3], mode, H), axis=1))
        stack = (lambda xs: xs[0]) if D == 1 else (lambda xs: g.op("Concat", *xs, axis=0))
        span = (g.ints([layer * D]), g.ints([(layer + 1) * D]), g.ints([0]))
        inputs = [x, stack(W), stack(R), stack(B) if has_biases else None, None,
                  None if h0 is None else g.op("Slice", h0, *span)]
        attributes = {"hidden_size": H, "direction": "bidirectional" if bidirectional else "forward"}
        if mode == "LSTM":
            inputs.append(None if c0 is None else g.op("Slice", c0, *span))
        elif mode == "GRU":
            attributes["linear_before_reset"] = 1
        else:
            attributes["activations"] = ["Tanh" if mode == "RNN_TANH" else "Relu"] * D
        while inputs[-1] is None:
            inputs.pop()
        results = g.op(_OP[mode], *inputs, outputs=3 if mode == "LSTM" else 2, **attributes)
        # Y (T, D, N, H) -> (T, N, D·H): the next layer's input (no dropout between layers in eval)
        x = g.reshape(g.transpose(results[0], [0, 2, 1, 3]), [[0, 0, -1]])
        hs.append(results[1])
        if mode == "LSTM":
            cs.append(results[2])
    if unbatched:
        x = g.squeeze(x, [1])
    elif batch_first:
        x = g.transpose(x, [1, 0, 2])
    tr.bind(output, x)
    for final, parts in ((h_n, hs), (c_n, cs)):
        if final is None:
            continue
        value = parts[0] if len(parts) == 1 else g.op("Concat", *parts, axis=0)
        tr.bind(final, g.squeeze(value, [1]) if unbatched else value)


FUNCTIONS = {"rnn": rnn}
