"""||∂L/∂h_t|| through time, for plotting vanishing and exploding gradients (Pascanu et al. 2012).

    norms = hidden_grad_norms(model, lambda: loss_fn(model(x), y))
    norms["rnn"]        # (num_layers * num_directions, T) float64: row l*D + d, column t

The fused backward of RNN/LSTM/GRU (cpp/src/ops/rnn_layer.cpp) already computes ∂L/∂h_t for
every step on its way back through time; when a recurrent module runs inside
record_hidden_grad_norms, it is handed a float64 buffer and writes the norm of that gradient
(over the batch and the hidden units, output and recurrent paths together) for every layer,
direction and step into it. Nothing switches to a cell loop and nothing else changes: the
forward and backward are the ordinary ones."""
from .._tensor import float64, zeros

__all__ = ["record_hidden_grad_norms", "hidden_grad_norms"]


class record_hidden_grad_norms:
    """Within `with record_hidden_grad_norms(model) as rec:`, every forward of a recurrent
    module of `model` gets a buffer that its backward fills (also after the with block):
    rec.norms[name] is the list of (num_layers * num_directions, T) float64 tensors, one per
    forward call, where name is the module's name in model.named_modules() ("" for model itself)."""

    def __init__(self, model):
        self.model = model
        self.norms = {}
        self._names = {}

    def __enter__(self):
        for name, module in self.model.named_modules():
            if _records(module):
                self._names[id(module)] = name
                module._hidden_grad_sink = self
        return self

    def __exit__(self, *exc):
        for _, module in self.model.named_modules():
            if _records(module) and module._hidden_grad_sink is self:
                del module._hidden_grad_sink
        return False

    def new_buffer(self, module, steps):
        """Called by RNNBase.forward: a zeroed (rows, steps) buffer for this call's backward."""
        rows = module.num_layers * (2 if module.bidirectional else 1)
        buffer = zeros(rows, steps, dtype=float64)
        self.norms.setdefault(self._names[id(module)], []).append(buffer)
        return buffer


def _records(module):
    """A module whose forward fills a recorder's buffers: the recurrent layers (RNNBase declares the
    _hidden_grad_sink it reads), found by that declaration so that nn.utils, which re-exports this
    file, needs nothing of nn.modules (whose rnn.py imports nn.utils.rnn)."""
    return hasattr(type(module), "_hidden_grad_sink")


def hidden_grad_norms(model, loss_fn):
    """Run loss = loss_fn() with recording on, then loss.backward() (which accumulates into the
    parameters' .grad as any backward does), and return {module name: norms} with the
    (num_layers * num_directions, T) tensor of ||∂L/∂h_t|| for each recurrent module of model
    (a list of them for a module that ran more than once)."""
    with record_hidden_grad_norms(model) as rec:
        loss = loss_fn()
    loss.backward()
    return {name: bufs[0] if len(bufs) == 1 else bufs for name, bufs in rec.norms.items()}
