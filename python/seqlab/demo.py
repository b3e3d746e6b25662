"""A character-level MLP language model trained on the King James Bible.

Follows Bengio, Ducharme, Vincent & Jauvin, "A Neural Probabilistic Language Model"
(JMLR 2003), at the scale of the course (and of Karpathy's makemore part 2): each of the
previous `block` characters is looked up in an embedding table, the embeddings are
concatenated, passed through a tanh hidden layer and a linear output layer, and the model is
trained on the cross-entropy of the next character, with SGD + momentum and a cosine
learning-rate schedule. It is written as a PyTorch user would write it: an nn.Module, an
optimizer, a scheduler, and seqlab.train's loop with its progress bar.

    python -m seqlab.demo            # about a minute on 2 cores
    python -m seqlab.demo --fast     # a few seconds; what the tests run

The text comes from Debian's bible-kjv package through seqlab.data.corpora.kjv
(`make setup` installs it): 31,102 verses, split 90/5/5 by verse.
"""
import argparse
import math
import textwrap
import time

import numpy as np

import seqlab
import seqlab.nn as nn
import seqlab.nn.functional as F
from seqlab.data import corpora


class CharMLP(nn.Module):
    """logits = W2 tanh(W1 [C[x_1]; ...; C[x_block]] + b1) + b2"""

    def __init__(self, vocab_size, block, n_embd, n_hidden):
        super().__init__()
        self.block = block
        self.embedding = nn.Embedding(vocab_size, n_embd)      # C: (V, n_embd)
        self.hidden = nn.Linear(block * n_embd, n_hidden)
        self.output = nn.Linear(n_hidden, vocab_size)

    def forward(self, idx):                                    # idx: (B, block) int64
        x = self.embedding(idx).flatten(1)                     # (B, block * n_embd)
        return self.output(self.hidden(x).tanh())              # (B, V)


def windows(ids, block):
    """X[i] = ids[i : i+block], Y[i] = ids[i+block]: every position of the text is an example."""
    ids = ids.numpy()
    X = np.lib.stride_tricks.sliding_window_view(ids[:-1], block)
    return seqlab.tensor(np.ascontiguousarray(X)), seqlab.tensor(ids[block:])


class RandomBatches:
    """n_batches random minibatches (X[ix], Y[ix]), drawn anew on each pass with seqlab's
    seeded generator."""

    def __init__(self, X, Y, n_batches, batch_size):
        self.X, self.Y, self.n_batches, self.batch_size = X, Y, n_batches, batch_size

    def __len__(self):
        return self.n_batches

    def __iter__(self):
        for _ in range(self.n_batches):
            ix = seqlab.randint(0, self.X.shape[0], (self.batch_size,))
            yield self.X[ix], self.Y[ix]


@seqlab.no_grad()
def sample(model, vocab, prompt, n_chars):
    """Continue `prompt` by n_chars characters drawn from the model's next-character distribution."""
    context = [vocab.stoi.get(ch, vocab.unk_index) for ch in prompt[-model.block:]]
    out = []
    for _ in range(n_chars):
        probs = F.softmax(model(seqlab.tensor([context])), dim=1)[0]
        ix = seqlab.multinomial(probs, 1).item()
        context = context[1:] + [ix]
        out.append("\n" if ix == vocab.eos_index else vocab.itos[ix])  # </s> ends a verse
    return prompt + "".join(out)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m seqlab.demo", description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=None, help="training steps (default 20000, 500 with --fast)")
    parser.add_argument("--seed", type=int, default=42, help="seed for initialisation, batches and sampling")
    parser.add_argument("--fast", action="store_true", help="a short run (for the tests)")
    args = parser.parse_args(argv)
    steps = args.steps if args.steps is not None else (500 if args.fast else 20000)
    if steps < 5:
        parser.error("--steps must be at least 5")
    block, n_embd, n_hidden, batch_size, rounds = 3, 16, 200, 256, 5

    t0 = time.perf_counter()
    kjv = corpora.kjv("char")
    vocab = kjv.vocab
    Xtr, Ytr = windows(kjv.ids("train"), block)
    Xva, Yva = windows(kjv.ids("valid"), block)
    if args.fast:
        Xva, Yva = Xva[:20_000], Yva[:20_000]
    print(f"King James Bible: {Xtr.shape[0]:,} training and {Xva.shape[0]:,} validation characters, "
          f"vocabulary of {len(vocab)} (uniform guessing: {math.log(len(vocab)):.3f} nats/char)")

    seqlab.manual_seed(args.seed)
    model = CharMLP(len(vocab), block, n_embd, n_hidden)
    print(model)
    print(f"{sum(p.numel() for p in model.parameters()):,} parameters; SGD(momentum=0.9), batch {batch_size}, "
          f"cosine schedule 0.1 -> 0.005 over {steps:,} steps")
    opt = seqlab.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = seqlab.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps, eta_min=0.005)

    valid = [(Xva[i:i + 50_000], Yva[i:i + 50_000]) for i in range(0, Xva.shape[0], 50_000)]
    print(f"before training: valid loss {seqlab.evaluate(model, valid):.4f}")
    history = seqlab.train(model, opt, RandomBatches(Xtr, Ytr, steps // rounds, batch_size), epochs=rounds,
                           valid_batches=valid, scheduler=sched, clip_grad_norm=5.0, desc="training")
    print(f"after {steps:,} steps ({time.perf_counter() - t0:.1f} s, {history['tokens_per_s']:,.0f} chars/s): "
          f"valid loss {history['valid_loss'][-1]:.4f} nats/char = {history['valid_loss'][-1] / math.log(2):.3f} bits/char")

    seqlab.manual_seed(args.seed)
    text = sample(model, vocab, "In the beginning ", 120 if args.fast else 400)
    print(f"\nsample (seed {args.seed}):")
    for verse in text.split("\n"):
        print(textwrap.fill(verse, width=88))
    return history, text


if __name__ == "__main__":
    main()
