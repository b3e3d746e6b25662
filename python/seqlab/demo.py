"""A character-level MLP language model trained on the King James Bible.

Follows Bengio, Ducharme, Vincent & Jauvin, "A Neural Probabilistic Language Model"
(JMLR 2003), at the scale of the course (and of Karpathy's makemore part 2): each of
the previous `block_size` characters is looked up in an embedding table C, the
embeddings are concatenated, passed through a tanh hidden layer and a linear output
layer, and the whole thing is trained by plain minibatch SGD on the cross-entropy.

    python -m seqlab.demo            # about 1-2 minutes on 2 cores
    python -m seqlab.demo --fast     # a few seconds; what the tests run

The text comes from Debian's bible-kjv package (`bible`); `make setup` installs it.
"""

import argparse
import math
import re
import shutil
import subprocess
import sys
import textwrap
import time

import numpy as np
from tqdm import tqdm

import seqlab
import seqlab.nn.functional as F

# ----------------------------------------------------------------------------- data

# `bible -f` prints one verse per line, each starting with its reference:
#   Ge1:1 In the beginning God created the heaven and the earth.
#   1Cor13:4 Charity suffereth long, and is kind; ...
VERSE_REFERENCE = re.compile(r"^\s*\w+?\d+:\d+\s+")
ALPHABET = " !',.:;?abcdefghijklmnopqrstuvwxyz"  # index 0 is the space
DROPPED = re.compile("[^" + re.escape(ALPHABET) + "]")


def load_kjv():
    """The whole KJV as one lowercase string over ALPHABET, verses joined by spaces."""
    if shutil.which("bible") is None:
        sys.exit("seqlab.demo: the `bible` program is missing; install Debian's bible-kjv "
                 "(`make setup` does)")
    result = subprocess.run(["bible", "-f", "Gen1:1-Rev22:21"],
                            capture_output=True, text=True, check=True)
    verses = [VERSE_REFERENCE.sub("", line) for line in result.stdout.splitlines()]
    text = " ".join(verse for verse in verses if verse)
    text = DROPPED.sub("", text.lower())   # "(", "-", digits ... go
    return re.sub(" +", " ", text).strip()


def build_dataset(text, block_size):
    """X[i] = the block_size characters before position i + block_size, Y[i] = that character.

    X: (N, block_size) int64, Y: (N,) int64, as numpy arrays.
    """
    lookup = np.zeros(256, dtype=np.int64)
    for i, ch in enumerate(ALPHABET):
        lookup[ord(ch)] = i
    ids = lookup[np.frombuffer(text.encode("ascii"), dtype=np.uint8)]
    windows = np.lib.stride_tricks.sliding_window_view(ids, block_size + 1)
    X = np.ascontiguousarray(windows[:, :block_size])
    Y = np.ascontiguousarray(windows[:, block_size])
    return X, Y


# ----------------------------------------------------------------------------- model

class CharMLP:
    """Bengio et al. 2003, Figure 1, without the direct input-to-output connections.

    B = batch, T = block_size (context length), E = n_embd, H = n_hidden, V = vocabulary.
    """

    def __init__(self, vocab_size, block_size, n_embd, n_hidden):
        V, T, E, H = vocab_size, block_size, n_embd, n_hidden
        self.block_size = T
        # C: one row of E numbers per character
        self.C = seqlab.randn(V, E).requires_grad_()
        # tanh layer: Kaiming-style gain 5/3 keeps the pre-activations out of saturation
        self.W1 = (seqlab.randn(T * E, H) * (5 / 3) / math.sqrt(T * E)).requires_grad_()
        self.b1 = (seqlab.randn(H) * 0.01).requires_grad_()
        # output layer: small weights make the initial prediction nearly uniform,
        # so the initial loss is close to log(V)
        self.W2 = (seqlab.randn(H, V) * 0.01).requires_grad_()
        self.b2 = seqlab.zeros(V, requires_grad=True)

    def parameters(self):
        return [self.C, self.W1, self.b1, self.W2, self.b2]

    def __call__(self, X):
        """X: (B, T) int64 character ids -> logits (B, V)."""
        B = X.shape[0]
        emb = self.C[X]                                   # (B, T, E)
        h = (emb.view(B, -1) @ self.W1 + self.b1).tanh()  # (B, H)
        return h @ self.W2 + self.b2                      # (B, V)


@seqlab.no_grad()
def mean_loss(model, X, Y, chunk=65536):
    """Mean cross-entropy of the model over all of (X, Y), in chunks to bound memory."""
    total, n = 0.0, X.shape[0]
    for start in range(0, n, chunk):
        end = min(start + chunk, n)
        logits = model(X[start:end])
        total += F.cross_entropy(logits, Y[start:end]).item() * (end - start)
    return total / n


@seqlab.no_grad()
def sample(model, prompt, n_chars, rng):
    """Continue `prompt` by n_chars characters drawn from the model's distribution."""
    context = [ALPHABET.index(ch) for ch in prompt[-model.block_size:]]
    out = []
    for _ in range(n_chars):
        x = seqlab.tensor([context], dtype=seqlab.int64)     # (1, T)
        probs = F.softmax(model(x), dim=1)[0].numpy().astype(np.float64)
        # inverse-CDF draw: the first id whose cumulative probability exceeds u
        cdf = np.cumsum(probs)
        ix = min(int(np.searchsorted(cdf, rng.random() * cdf[-1], side="right")),
                 len(ALPHABET) - 1)
        context = context[1:] + [ix]
        out.append(ALPHABET[ix])
    return prompt + "".join(out)


# ----------------------------------------------------------------------------- training

def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m seqlab.demo", description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=None, help="SGD steps (default 30000, 300 with --fast)")
    parser.add_argument("--seed", type=int, default=42, help="seed for initialisation, batches and sampling")
    parser.add_argument("--fast", action="store_true", help="a tiny run on the first 200k characters (for tests)")
    args = parser.parse_args(argv)

    steps = args.steps if args.steps is not None else (300 if args.fast else 30000)
    if steps < 1:
        parser.error("--steps must be at least 1")
    block_size, n_embd, n_hidden, batch_size = 3, 16, 128, 128
    lr_start, lr_end = 0.1, 0.01          # lr drops to lr_end for the last quarter of steps
    eval_examples = 2_000 if args.fast else 50_000
    sample_chars = 100 if args.fast else 300

    t0 = time.perf_counter()
    text = load_kjv()
    if args.fast:
        text = text[:200_000]
    X, Y = build_dataset(text, block_size)
    n_train = int(0.9 * len(X))           # the first 90% of the text trains, the rest validates
    Xtr, Ytr = seqlab.from_numpy(X[:n_train]), seqlab.from_numpy(Y[:n_train])
    Xva, Yva = seqlab.from_numpy(X[n_train:]), seqlab.from_numpy(Y[n_train:])
    print(f"King James Bible: {len(text):,} characters, vocabulary of {len(ALPHABET)} "
          f"({ALPHABET!r}); {Xtr.shape[0]:,} training and {Xva.shape[0]:,} validation examples")

    seqlab.manual_seed(args.seed)
    model = CharMLP(len(ALPHABET), block_size, n_embd, n_hidden)
    params = model.parameters()
    print(f"MLP: context {block_size} chars, embedding {n_embd}, hidden {n_hidden} (tanh), "
          f"{sum(p.numel() for p in params):,} parameters; SGD, batch {batch_size}, "
          f"lr {lr_start} then {lr_end}, {steps:,} steps")

    # Losses during training are measured on fixed random subsets of each split (the
    # same examples every time, so the numbers are comparable); at the end, on all of it.
    rng = np.random.default_rng(args.seed)
    tr_sub = seqlab.from_numpy(rng.choice(Xtr.shape[0], min(eval_examples, Xtr.shape[0]), replace=False))
    va_sub = seqlab.from_numpy(rng.choice(Xva.shape[0], min(eval_examples, Xva.shape[0]), replace=False))

    def report(step):
        train = mean_loss(model, Xtr[tr_sub], Ytr[tr_sub])
        val = mean_loss(model, Xva[va_sub], Yva[va_sub])
        tqdm.write(f"step {step:>7,}/{steps:,}   train loss {train:.4f}   val loss {val:.4f}")
        return val

    first_val = report(0)
    eval_every = max(1, steps // 10)
    running = None
    interactive = sys.stderr.isatty()
    bar = tqdm(range(1, steps + 1), desc="training", unit="step", ascii=not interactive,
               mininterval=0.1 if interactive else 10.0, dynamic_ncols=True)
    t_train = time.perf_counter()
    for step in bar:
        ix = seqlab.randint(0, Xtr.shape[0], (batch_size,))   # (B,) int64
        logits = model(Xtr[ix])
        loss = F.cross_entropy(logits, Ytr[ix])
        loss.backward()

        lr = lr_start if step <= 0.75 * steps else lr_end
        with seqlab.no_grad():
            for p in params:
                p -= lr * p.grad
                p.grad = None

        value = loss.item()
        running = value if running is None else 0.98 * running + 0.02 * value
        if step % 50 == 0 or step == steps:
            bar.set_postfix(loss=f"{running:.3f}", lr=lr, refresh=False)
        if step % eval_every == 0 and step != steps:
            report(step)
    bar.close()
    train_seconds = time.perf_counter() - t_train

    last_train = mean_loss(model, Xtr, Ytr)
    last_val = mean_loss(model, Xva, Yva)
    print(f"after {steps:,} steps ({train_seconds:.1f} s, {steps / train_seconds:,.0f} steps/s): "
          f"train loss {last_train:.4f}   val loss {last_val:.4f}   (all examples; "
          f"uniform guessing: {math.log(len(ALPHABET)):.4f})")

    print(f"\nsample (seed {args.seed}):")
    text_out = sample(model, "and god said ", sample_chars, np.random.default_rng(args.seed))
    print(textwrap.fill(text_out, width=80))
    print(f"\ntotal time {time.perf_counter() - t0:.1f} s")

    if not last_val < first_val:
        sys.exit(f"seqlab.demo: the validation loss did not fall ({first_val:.4f} -> {last_val:.4f})")


if __name__ == "__main__":
    main()
