"""torch.nn.modules.rnn: recurrent layers with torch.nn's names, arguments, defaults, parameter names and layouts:
RNN, LSTM, GRU (stacked, bidirectional, batch_first, dropout between layers, LSTM's proj_size,
padded, unbatched or PackedSequence input) and the cells RNNCell, LSTMCell, GRUCell.

A torch state dict loads into them and back unchanged. The modules only hold the parameters;
the computation is one C++ functional (cpp/src/ops/rnn.cpp: each layer and its directions one
fused autograd node with a hand-written backward through time; the cells in rnn_cell.cpp are
composed of ordinary ops), the same one the C++ twins in cpp/include/seqlab/nn/rnn.hpp call."""
import math
import numbers
import warnings

from ... import _core
from .. import init
from .._helpers import _empty, _factory
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]


def _int(value, name):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} should be of type int, got: {type(value).__name__}")
    return int(value)


class RNNBase(Module):
    """The stack shared by RNN, LSTM and GRU. Parameters per layer k and direction (suffix
    '_reverse' for the backward one), in torch's order: weight_ih_l{k} (G*hidden_size, in),
    weight_hh_l{k} (G*hidden_size, H_out), bias_ih_l{k}, bias_hh_l{k} (G*hidden_size),
    weight_hr_l{k} (proj_size, hidden_size) with proj_size; G = 1, 4, 3 for RNN, LSTM, GRU.
    All ~ U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)), as torch."""

    # nn/hidden_grads.py's recorder while one records this module: forward asks it for a buffer
    # that the backward fills with ||dL/dh_t||
    _hidden_grad_sink = None

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        dtype = _factory(device, dtype)
        if isinstance(dropout, bool) or not isinstance(dropout, numbers.Number):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        input_size, hidden_size = _int(input_size, "input_size"), _int(hidden_size, "hidden_size")
        num_layers, proj_size = _int(num_layers, "num_layers"), _int(proj_size, "proj_size")
        _core.check_rnn_args(mode, input_size, hidden_size, num_layers, float(dropout), proj_size)
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and "
                          f"num_layers={num_layers}")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bool(bias)
        self.batch_first = bool(batch_first)
        self.dropout = float(dropout)
        self.bidirectional = bool(bidirectional)
        self.proj_size = proj_size
        gate_size = _core.rnn_gate_count(mode) * hidden_size  # the registered cell's (cpp/src/ops/recurrent/)
        num_directions = 2 if bidirectional else 1
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input = input_size if layer == 0 else real_hidden * num_directions
                suffix = "_reverse" if direction == 1 else ""
                shapes = [("weight_ih", (gate_size, layer_input)), ("weight_hh", (gate_size, real_hidden))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                names = [f"{kind}_l{layer}{suffix}" for kind, _ in shapes]
                for name, (_, shape) in zip(names, shapes):
                    setattr(self, name, Parameter(_empty(shape, dtype)))
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    @property
    def _flat_weights(self):
        # Read at every call, so that reassigned or loaded parameters are the ones used.
        return [getattr(self, name) for name in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self):
        """torch's cuDNN layout hint; seqlab's kernels use the weights where they are."""

    def _split_hx(self, hx):
        name = type(self).__name__
        if hx is None:
            return None, None
        if self.mode == "LSTM":
            if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                raise TypeError(f"{name}: hx must be a tuple (h_0, c_0) of tensors, got {type(hx).__name__}")
            return hx[0], hx[1]
        if not isinstance(hx, _core.Tensor):
            raise TypeError(f"{name}: hx must be a Tensor, got {type(hx).__name__}")
        return hx, None

    def forward(self, input, hx=None):
        h0, c0 = self._split_hx(hx)
        sink = self._hidden_grad_sink
        args = (self._flat_weights, self.bias, self.num_layers, self.dropout, self.training, self.bidirectional)
        if hasattr(input, "batch_sizes") and not isinstance(input, _core.Tensor):
            norms = sink.new_buffer(self, len(input.batch_sizes)) if sink is not None else None
            data, h_n, c_n = _core.rnn_packed(self.mode, input.data, input.batch_sizes, input.sorted_indices,
                                              input.unsorted_indices, h0, c0, *args, self.proj_size, norms)
            output = PackedSequence(data, input.batch_sizes, input.sorted_indices, input.unsorted_indices)
        else:
            norms = None
            if sink is not None and isinstance(input, _core.Tensor) and input.dim() in (2, 3):
                steps = input.shape[1 if self.batch_first and input.dim() == 3 else 0]
                norms = sink.new_buffer(self, steps)
            output, h_n, c_n = _core.rnn(self.mode, input, h0, c0, *args, self.batch_first, self.proj_size, norms)
        return output, ((h_n, c_n) if self.mode == "LSTM" else h_n)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s


class RNN(RNNBase):
    """Elman RNN: h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (or relu), stacked
    num_layers deep. forward(input, h_0=None) -> (output, h_n)."""

    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, device=None, dtype=None):
        self.nonlinearity = nonlinearity
        super().__init__(_core.rnn_nonlinearity_mode(nonlinearity), input_size, hidden_size, num_layers, bias,
                         batch_first, dropout, bidirectional, 0, device, dtype)


class LSTM(RNNBase):
    """Long short-term memory (Hochreiter & Schmidhuber 1997), torch's gate order i, f, g, o:
    c_t = f ⊙ c_{t-1} + i ⊙ g,  h_t = o ⊙ tanh(c_t)  (then h_t = W_hr h_t with proj_size > 0).
    forward(input, (h_0, c_0)=None) -> (output, (h_n, c_n))."""

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         proj_size, device, dtype)


class GRU(RNNBase):
    """Gated recurrent unit (Cho et al. 2014), torch's gate order r, z, n:
    n = tanh(W_in x + b_in + r ⊙ (W_hn h + b_hn)),  h_t = (1 - z) ⊙ n + z ⊙ h_{t-1}.
    forward(input, h_0=None) -> (output, h_n)."""

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, device=None, dtype=None):
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional, 0,
                         device, dtype)


class RNNCellBase(Module):
    """One step: weight_ih (G*hidden_size, input_size), weight_hh (G*hidden_size, hidden_size),
    bias_ih, bias_hh (G*hidden_size), all ~ U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        dtype = _factory(device, dtype)
        self.input_size = _int(input_size, "input_size")
        self.hidden_size = _int(hidden_size, "hidden_size")
        self.bias = bool(bias)
        self._new_parameter("weight_ih", (num_chunks * hidden_size, input_size), dtype)
        self._new_parameter("weight_hh", (num_chunks * hidden_size, hidden_size), dtype)
        self._new_parameter("bias_ih", (num_chunks * hidden_size,), dtype, bias)
        self._new_parameter("bias_hh", (num_chunks * hidden_size,), dtype, bias)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s


class RNNCell(RNNCellBase):
    """h' = tanh(W_ih x + b_ih + W_hh h + b_hh) (or relu). forward(input, hx=None) -> h'."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        _core.rnn_nonlinearity_mode(nonlinearity)
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        cell = _core.rnn_tanh_cell if self.nonlinearity == "tanh" else _core.rnn_relu_cell
        return cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)


class LSTMCell(RNNCellBase):
    """i, f, g, o gates; c' = f ⊙ c + i ⊙ g, h' = o ⊙ tanh(c'). forward(input, (h, c)=None) -> (h', c')."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        if hx is None:
            h, c = None, None
        elif isinstance(hx, (tuple, list)) and len(hx) == 2:
            h, c = hx
        else:
            raise TypeError(f"LSTMCell: hx must be a tuple (h, c) of tensors, got {type(hx).__name__}")
        return _core.lstm_cell(input, h, c, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)


class GRUCell(RNNCellBase):
    """r, z, n gates; h' = (1 - z) ⊙ n + z ⊙ h. forward(input, hx=None) -> h'."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        return _core.gru_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)

