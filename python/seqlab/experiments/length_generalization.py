"""Train short, test long: does a positional scheme let a transformer read past its training length?

Press et al. (2022, "Train Short, Test Long", Figure 1 and Table 1) trained the same language model
with sinusoidal, rotary, T5-bias and ALiBi positions at length L and evaluated it at longer lengths:
sinusoidal perplexity explodes past L, rotary degrades, T5 bias and ALiBi barely move. Kazemnejad et
al. (2023) added NoPE: a causal decoder without positions still generalises better than absolute
embeddings. This harness repeats that experiment at course scale on the King James Bible's
characters: the same small causal decoder (nn.TransformerLM) is trained with each scheme of seqlab.nn.positional at
length L and evaluated (cross-entropy over every position of held-out windows) at L, 2L, 4L, 8L.

    python -m seqlab.experiments.length_generalization            # defaults: a few minutes per scheme
    python -m seqlab.experiments.length_generalization --fast     # seconds: what the tests run
    python -m seqlab.experiments.length_generalization --schemes alibi sinusoidal --plot curves.png

The learned table has 8L rows: positions past L exist but were never trained (a table cannot
extrapolate; that is the point). Library use: run(...) returns the table; plot(...) draws it.
Tests: tests/test_length_generalization.py."""
import argparse
import math
import time

import numpy as np

from .. import nn
from .._tensor import tensor
from ..autograd import no_grad
from ..nn import functional as F
from ..nn import positional as P
from ..random import manual_seed
from .windows import random_windows, train_on_windows

SCHEMES = tuple(P.SCHEMES)  # every registered scheme, in the order seqlab.nn.positional defines them


def make_positions(name, d_model, nhead, max_len, dtype=None):
    """(absolute module added to the embeddings or None, relative scheme for pos= or None): the
    scheme registered under `name` (seqlab.nn.positional.SCHEMES), as its for_model() configures it."""
    if name not in P.SCHEMES:
        raise ValueError(f"unknown scheme {name!r}; choose from {', '.join(SCHEMES)}")
    module = P.SCHEMES[name].for_model(d_model, nhead, max_len, dtype=dtype)
    return (None, module) if isinstance(module, P.RelativePositionScheme) else (module, None)


def make_model(name, vocab_size, d_model=64, nhead=4, num_layers=2, dim_feedforward=256, max_len=512):
    """The decoder every scheme shares: nn.TransformerLM (token embedding, pre-LN causal blocks,
    final LayerNorm, linear head) with the scheme's absolute module or relative pos=."""
    absolute, pos = make_positions(name, d_model, nhead, max_len)
    return nn.TransformerLM(vocab_size, d_model, nhead, num_layers, dim_feedforward, dropout=0.0, positional=absolute,
                            pos=pos)


@no_grad()
def evaluate(model, ids, length, tokens):
    """Mean cross-entropy (nats/char) over every position of held-out windows of `length`, about
    `tokens` predicted characters in all, the same windows for every scheme."""
    count = max(1, tokens // length)
    data = random_windows(ids, length, count, np.random.default_rng(1234))
    model.eval()
    total, n = 0.0, 0
    for i in range(0, count, max(1, 4096 // length)):
        chunk = tensor(data[i:i + max(1, 4096 // length)])
        logits = model(chunk[:, :-1])
        total += F.cross_entropy(logits.reshape(-1, logits.shape[-1]), chunk[:, 1:].reshape(-1),
                                 reduction="sum").item()
        n += chunk[:, 1:].numel()
    model.train()
    return total / n


def run(schemes=SCHEMES, train_length=64, eval_factors=(1, 2, 4, 8), d_model=64, nhead=4, num_layers=2,
        dim_feedforward=256, steps=600, batch_size=32, lr=2e-3, eval_tokens=16384, seed=0, corpus=None,
        log=print):
    """Train one decoder per scheme at train_length and evaluate it at each factor × train_length.
    Returns {"lengths": [...], "rows": {scheme: {"loss": [...], "train_loss": x, "seconds": s}}}."""
    if corpus is None:
        from ..data import corpora
        corpus = corpora.kjv("char")
    train_ids = corpus.ids("train").numpy()
    valid_ids = corpus.ids("valid").numpy()
    vocab_size = len(corpus.vocab)
    lengths = [train_length * f for f in eval_factors]
    rows = {}
    for name in schemes:
        t0 = time.perf_counter()
        manual_seed(seed)
        model = make_model(name, vocab_size, d_model, nhead, num_layers, dim_feedforward, max(lengths))
        train_loss = train_on_windows(model, train_ids, steps, batch_size, train_length, lr, seed)
        losses = [evaluate(model, valid_ids, n, eval_tokens) for n in lengths]
        rows[name] = {"loss": losses, "train_loss": train_loss, "seconds": time.perf_counter() - t0}
        if log:
            log(f"{name:10s} " + " ".join(f"{x:8.3f}" for x in losses) + f"   ({rows[name]['seconds']:.0f} s)")
    return {"lengths": lengths, "train_length": train_length, "rows": rows}


def table(result):
    """The result as text: loss (nats/char) per scheme and evaluation length."""
    head = f"{'scheme':10s} " + " ".join(f"{'L=' + str(n):>8s}" for n in result["lengths"]) + "   seconds"
    lines = [head]
    for name, row in result["rows"].items():
        lines.append(f"{name:10s} " + " ".join(f"{x:8.3f}" for x in row["loss"]) + f"   {row['seconds']:7.0f}")
    return "\n".join(lines)


def plot(result, ax=None):
    """Loss against evaluation length, one curve per scheme (log-2 length axis): a matplotlib Figure."""
    import matplotlib.pyplot as plt
    fig = None
    if ax is None:
        fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, row in result["rows"].items():
        ax.plot(result["lengths"], row["loss"], marker="o", label=name)
    ax.set_xscale("log", base=2)
    ax.axvline(result["train_length"], color="grey", linestyle=":", linewidth=1)
    ax.set_xlabel("evaluation length (characters)")
    ax.set_ylabel("cross-entropy (nats/char)")
    ax.set_title(f"train at {result['train_length']}, test longer")
    ax.legend(fontsize=8, ncol=2)
    return fig if fig is not None else ax.figure


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m seqlab.experiments.length_generalization",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--schemes", nargs="+", default=list(SCHEMES), choices=SCHEMES)
    parser.add_argument("--fast", action="store_true", help="tiny sizes, seconds per scheme (the tests)")
    parser.add_argument("--steps", type=int, default=None)
    parser.add_argument("--train-length", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--plot", default=None, help="write the curves to this image file")
    args = parser.parse_args(argv)
    sizes = dict(train_length=16, d_model=32, nhead=2, num_layers=1, dim_feedforward=64, steps=40, batch_size=16,
                 eval_tokens=2048) if args.fast else {}
    if args.steps is not None:
        sizes["steps"] = args.steps
    if args.train_length is not None:
        sizes["train_length"] = args.train_length
    print(f"train short, test long on the KJV characters; loss in nats/char ({math.log(2):.3f} nats = 1 bit)")
    result = run(args.schemes, seed=args.seed, log=None, **sizes)
    print(table(result))
    if args.plot:
        plot(result).savefig(args.plot, dpi=120, bbox_inches="tight")
        print(f"curves: {args.plot}")
    return result


if __name__ == "__main__":
    main()
