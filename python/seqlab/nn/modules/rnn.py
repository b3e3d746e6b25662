"""seqlab.nn.modules.rnn: torch.nn.modules.rnn's import path for classes defined in seqlab.nn."""
from ..rnn import RNNBase, RNN, LSTM, GRU, RNNCellBase, RNNCell, LSTMCell, GRUCell  # noqa: F401

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]
