"""Three machines play Shannon's game on the King James Bible.

Shannon (1951, "Prediction and Entropy of Printed English") had people guess English text letter
by letter over a 27-symbol alphabet (a-z and space) and bounded its entropy from the ranks of their
guesses. This demo trains three character language models on the KJV's 27-symbol text and puts
each in his subjects' place:

  1. a 5-gram Kneser-Ney model (seqlab.lm.NGram, KenLM's estimates),
  2. an LSTM language model (nn.RNNLM, Hochreiter & Schmidhuber 1997),
  3. a small GPT (nn.TransformerLM: pre-LN causal blocks with ALiBi positions, Press et al. 2022),

then prints their bits per character on held-out verses beside the unigram baseline and
Shannon's 1951 estimates, plays the game with each (the machine ranks the 27 symbols at every
position of held-out text, context up to 100 letters) and prints his upper and lower bounds from
the rank frequencies, and samples text from each.

    python -m seqlab.demo            # a few minutes on 2 cores
    python -m seqlab.demo --fast     # seconds; what the tests run

The text comes from Debian's bible-kjv package through seqlab.data.corpora.kjv (`make setup`
installs it): 31,102 verses, split 90/5/5 by verse, lower-cased to Shannon's 27 symbols.
"""
import argparse
import math
import textwrap
import time
import warnings

import numpy as np

from . import nn
from ._tensor import tensor
from .autograd import no_grad
from .data import corpora
from .experiments.windows import train_on_windows
from .lm import SHANNON_1951, NGram, shannon_bounds, shannon_game
from .nn import functional as F
from .nn import positional
from .random import manual_seed

CONTEXT = 100  # the longest context a neural machine reads in the game (Shannon's N = 100)


def unigram_bits(stream, vocab_size):
    """The baseline: H = −Σ p(c) log2 p(c) of the training text's letter frequencies."""
    p = np.bincount(stream, minlength=vocab_size) / len(stream)
    p = p[p > 0]
    return float(-(p * np.log2(p)).sum())


@no_grad()
def neural_next_probs(model, ids, positions, context):
    """p(symbol | up to `context` preceding symbols) for each position: (len(positions), V)."""
    out = []
    for i in range(0, len(positions), 256):
        pos = positions[i:i + 256]
        windows = np.stack([ids[p - context:p] for p in pos])
        out.append(F.softmax(model(tensor(windows))[:, -1], dim=-1).numpy())
    return np.concatenate(out)


def sample_ngram(lm, prompt, n_chars, seed):
    """Continue `prompt` by about n_chars symbols; a verse's end (</s>) starts the next verse."""
    text, i = prompt, 0
    while len(text) < len(prompt) + n_chars:
        text += lm.generate(max_tokens=n_chars, context=tuple(text[-(lm.order - 1):]), seed=seed + i, bos=False)
        text, i = text + " ", i + 1
    return text.rstrip()


def ranks_from_probs(p, targets):
    """The rank of the true symbol among the machine's guesses (1 = its first guess; ties count
    against it, as a subject who names the true letter last among equals)."""
    p_true = p[np.arange(len(targets)), targets]
    return (p >= p_true[:, None]).sum(axis=1)      # the true symbol and every symbol at least as likely


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m seqlab.demo", description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=None, help="training steps of each neural model "
                        "(default 800, 80 with --fast)")
    parser.add_argument("--seed", type=int, default=42, help="seed for initialisation, batches and sampling")
    parser.add_argument("--fast", action="store_true", help="a short run (for the tests)")
    args = parser.parse_args(argv)
    fast = args.fast
    steps = args.steps if args.steps is not None else (80 if fast else 800)
    if steps < 1:
        parser.error("--steps must be at least 1")
    n_verses = 3000 if fast else None
    positions_played = 400 if fast else 5000
    batch, length = (16, 64) if fast else (32, 96)
    hidden, d_model = (64, 64) if fast else (256, 128)

    t0 = time.perf_counter()
    kjv = corpora.kjv("shannon27")
    vocab = kjv.vocab
    V = len(vocab.itos)
    train_lines = kjv.train[:n_verses]
    stream = np.array(vocab.encode(" ".join(train_lines)), dtype=np.int64)
    held_out = kjv.text("valid")[:CONTEXT + positions_played]
    ids = np.array(vocab.encode(held_out), dtype=np.int64)
    positions = np.arange(CONTEXT, len(ids))
    print(f"King James Bible in Shannon's 27 symbols: {len(stream):,} training letters "
          f"({len(train_lines):,} verses); the game is played on {len(positions):,} held-out letters")
    baseline = unigram_bits(stream, V)
    results = {"unigram": {"bits": baseline}}

    # 1. the 5-gram Kneser-Ney model
    manual_seed(args.seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = time.perf_counter()
        kn = NGram(5, "kneser_ney", level="char").fit(train_lines)
        ranks = shannon_game(kn, held_out, N=5).ranks[CONTEXT:]
    kn_bits = kn.bits_per_char(kjv.valid[:200 if fast else None])
    results["5-gram KN"] = {"bits": kn_bits, "ranks": ranks, "seconds": time.perf_counter() - t,
                            "sample": sample_ngram(kn, "and god said ", 160, args.seed)}
    print(f"5-gram Kneser-Ney: fitted and played in {results['5-gram KN']['seconds']:.1f} s")

    # 2. the LSTM, 3. the small GPT
    machines = {
        "LSTM": lambda: nn.RNNLM(V, embedding_dim=32, hidden_size=hidden, num_layers=1, mode="LSTM"),
        "GPT": lambda: nn.TransformerLM(V, d_model=d_model, nhead=4, num_layers=2 if fast else 4, dropout=0.0,
                                        pos=positional.ALiBi(4)),
    }
    for name, make in machines.items():
        manual_seed(args.seed)
        model = make()
        t = time.perf_counter()
        train_bits = train_on_windows(model, stream, steps, batch, length, 3e-3, args.seed,
                                      desc=f"training the {name}") / math.log(2)
        p = neural_next_probs(model, ids, positions, CONTEXT)
        results[name] = {"bits": float(-np.log2(p[np.arange(len(positions)), ids[positions]]).mean()),
                         "train_bits": train_bits, "ranks": ranks_from_probs(p, ids[positions]),
                         "seconds": time.perf_counter() - t}
        prompt = tensor([vocab.encode("and god said ")])
        out = model.generate(prompt, max_new_tokens=160, do_sample=True, temperature=0.8, top_k=10, seed=args.seed)
        results[name]["sample"] = "and god said " + "".join(vocab.itos[i] for i in out[0, prompt.shape[1]:].tolist())
        print(f"{name}: {steps:,} steps and the game in {results[name]['seconds']:.1f} s")

    print(f"\nbits per character on held-out text (uniform guessing: {math.log2(V):.2f})")
    print(f"  {'unigram (letter frequencies)':30s} {baseline:5.2f}")
    for name in ("5-gram KN", "LSTM", "GPT"):
        print(f"  {name:30s} {results[name]['bits']:5.2f}")
    n15 = SHANNON_1951["N"].index(15)
    print(f"  Shannon 1951, people, N = 15:  between {SHANNON_1951['lower'][n15]} and {SHANNON_1951['upper'][n15]}; "
          f"N = 100: between {SHANNON_1951['lower'][-1]} and {SHANNON_1951['upper'][-1]}")

    print("\nShannon's game: bounds on the entropy (bits/letter) from the rank frequencies")
    print(f"  {'machine (context)':30s} {'upper':>6s} {'lower':>6s}   first guess right")
    for name, ctx in (("5-gram KN", 5), ("LSTM", CONTEXT), ("GPT", CONTEXT)):
        ranks = np.asarray(results[name]["ranks"])
        upper, lower = shannon_bounds(np.bincount(ranks, minlength=V + 1)[1:])
        results[name]["bounds"] = (upper, lower)
        print(f"  {name + f' (N = {ctx})':30s} {upper:6.2f} {lower:6.2f}   {np.mean(ranks == 1):6.1%}")
    n5 = SHANNON_1951["N"].index(5)
    print(f"  {'Shannon 1951, people (N = 5)':30s} {SHANNON_1951['upper'][n5]:6.2f} {SHANNON_1951['lower'][n5]:6.2f}")
    print(f"  {'Shannon 1951, people (N = 100)':30s} {SHANNON_1951['upper'][-1]:6.2f} "
          f"{SHANNON_1951['lower'][-1]:6.2f}")

    print(f"\nsamples (seed {args.seed}):")
    for name in ("5-gram KN", "LSTM", "GPT"):
        print(textwrap.fill(f"{name}: {results[name]['sample']}", width=96, subsequent_indent="    "))
    print(f"\ndone in {time.perf_counter() - t0:.0f} s")
    return results


if __name__ == "__main__":
    main()
