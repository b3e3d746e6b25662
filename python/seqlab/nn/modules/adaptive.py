"""torch.nn.modules.adaptive: the adaptive softmax (Grave et al. 2017, "Efficient softmax
approximation for GPUs"), composed of Linear layers, log_softmax, gather, cat and index_select;
torch's parameter layout (head, tail.i.0, tail.i.1), so torch's state dicts load. Tests:
tests/test_nn_modules_extra.py."""
from collections import namedtuple

import numpy as np

from ... import _core
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """The adaptive softmax over n_classes split by `cutoffs` into a shortlist [0, cutoffs[0]) and
    clusters [cutoffs[i], cutoffs[i+1]) (the last ending at n_classes); frequent classes belong in the
    shortlist. The head (a Linear to cutoffs[0] + number of clusters logits) scores the shortlist
    and one logit per cluster; cluster i has its tail, Linear(in_features, in_features // div_value**(i+1))
    then Linear(to the cluster's size), both without bias:
        log p(c) = log softmax(head(x))[c]                                       c in the shortlist
        log p(c) = log softmax(head(x))[shortlist + i] + log softmax(tail_i(x))[c - cutoffs[i]]   c in cluster i
    forward(input (N, in_features) or (in_features), target (N) or ()) -> (output, loss): output the log
    probability of each target, loss the mean of -output. log_prob(input): every class's; predict(input):
    the most probable class."""

    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False, device=None, dtype=None):
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in an increasing order, "
                             "where each value is between 1 and n_classes-1")
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, device=device, dtype=dtype)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hidden, bias=False, device=device, dtype=dtype),
                                        Linear(hidden, size, bias=False, device=device, dtype=dtype)))

    def reset_parameters(self):
        """Re-draw the head's and every tail's weights (Linear's init)."""
        self.head.reset_parameters()
        for projection, output in self.tail:
            projection.reset_parameters()
            output.reset_parameters()

    def forward(self, input_, target_):
        """(output, loss): log p(target_n) for each row, and mean_n(-output_n)."""
        if target_.dim() == 1:
            if input_.shape[0] != target_.shape[0]:
                raise RuntimeError("Input and target should have the same size in the batch dimension.")
            if input_.dim() != 2:
                raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with size "
                                   f"{tuple(input_.shape)}")
        elif target_.dim() == 0:
            if input_.dim() != 1:
                raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with size "
                                   f"{tuple(input_.shape)}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        batched = target_.dim() > 0
        input = input_ if batched else input_.unsqueeze(0)
        target = (target_ if batched else target_.unsqueeze(0)).detach().numpy().astype(np.int64)
        if target.size and (target.min() < 0 or target.max() >= self.n_classes):
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                               f"[{target.min()}, {target.max()}] were found. ")
        # the head's logit each row reads: its class in the shortlist, else its cluster's
        cluster = np.searchsorted(np.asarray(self.cutoffs), target, side="right")  # 0: shortlist, i: tail i-1
        head_index = np.where(cluster == 0, target, self.shortlist_size + cluster - 1)
        head_logprob = _core.log_softmax(self.head(input), 1)
        output = head_logprob.gather(1, _index(head_index).unsqueeze(1)).squeeze(1)
        # each cluster's rows: log softmax of their tail, at the target's place in the cluster
        rows, parts = [np.flatnonzero(cluster == 0)], [_core._full([int((cluster == 0).sum())], 0.0, output.dtype)]
        for i in range(1, self.n_clusters + 1):
            in_cluster = np.flatnonzero(cluster == i)
            if in_cluster.size == 0:
                continue
            local = target[in_cluster] - self.cutoffs[i - 1]
            tail_logprob = _core.log_softmax(self.tail[i - 1](input.index_select(0, _index(in_cluster))), 1)
            rows.append(in_cluster)
            parts.append(tail_logprob.gather(1, _index(local).unsqueeze(1)).squeeze(1))
        # back to the batch's order: row r of the concatenation is batch row order[r]
        order = np.concatenate(rows)
        inverse = np.empty_like(order)
        inverse[order] = np.arange(order.size)
        output = output + _core.cat(parts, 0).index_select(0, _index(inverse))
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _full_log_prob(self, input, head_output):
        """(N, n_classes): the shortlist's log-probabilities, then each cluster's plus its head logit."""
        head_logprob = _core.log_softmax(head_output, 1)
        columns = [head_logprob.narrow(1, 0, self.shortlist_size)]
        for i, tail in enumerate(self.tail):
            cluster_logprob = _core.log_softmax(tail(input), 1)
            columns.append(cluster_logprob + head_logprob.narrow(1, self.shortlist_size + i, 1))
        return _core.cat(columns, 1)

    def log_prob(self, input):
        """log p(c | input) for every class c: (N, n_classes) for input (N, in_features)."""
        return self._full_log_prob(input, self.head(input))

    def predict(self, input):
        """The most probable class of each row (N) int64; the tails run only for rows whose best head
        logit is a cluster's (the head's best shortlist class is otherwise the answer)."""
        head_output = self.head(input)
        best = head_output.argmax(1).numpy().copy()
        outside = np.flatnonzero(best >= self.shortlist_size)
        if outside.size:
            rows = _index(outside)
            full = self._full_log_prob(input.index_select(0, rows), head_output.index_select(0, rows))
            best[outside] = full.argmax(1).numpy()
        return _core.from_numpy(best)


def _index(values):
    """An int64 index tensor of a NumPy array."""
    return _core.from_numpy(np.ascontiguousarray(values, dtype=np.int64))
