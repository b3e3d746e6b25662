"""Three machines play Shannon's game on the King James Bible.

Shannon (1951, "Prediction and Entropy of Printed English") had people guess English text letter
by letter over a 27-symbol alphabet (a-z and space) and bounded its entropy from the ranks of their
guesses. This demo trains three character language models on the same stream of the KJV's
27-symbol text and puts each in his subjects' place:

  1. a 5-gram Kneser-Ney model (seqlab.lm.NGram, KenLM's estimates),
  2. an LSTM language model (nn.RNNLM, Hochreiter & Schmidhuber 1997),
  3. a small GPT (nn.TransformerLM: pre-LN causal blocks with ALiBi positions, Press et al. 2022),

then prints their bits per character on the same held-out letters beside the unigram baseline and
Shannon's 1951 estimates, with each neural machine's gap to the 5-gram; plays the game with each
(the machine ranks the 27 symbols at every held-out position, context up to 100 letters) and prints
his upper and lower bounds from the rank frequencies; and samples text from each.

The neural machines' recipes (RECIPES) were chosen by held-out bits at equal time on 2 cores. A
learning rate of 1e-2 lets the LSTM pass the 5-gram in 800 steps; the GPT trains at 6e-3 with a
warm-up and AdamW's beta2 = 0.95 (GPT-2's recipe), has 8 ALiBi heads (slopes 1/2 ... 1/256: heads
for the last few letters and heads for whole words) and needs 1,500 steps of 64-letter windows.
With 1,100 such steps (about the time of the recipe it replaces, lr 3e-3 for 800 steps, with which
both machines lost to the 5-gram) the GPT only ties the 5-gram: what passing it takes is those 400
more steps.

    python -m seqlab.demo            # about 4.5 minutes on 2 cores
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
from .lm import SHANNON_1951, NGram, shannon_bounds
from .lm.ngram import SPACE
from .nn import functional as F
from .nn import positional
from .random import manual_seed

CONTEXT = 100  # the longest context a neural machine reads in the game (Shannon's N = 100)


def unigram_next_probs(stream, vocab_size, n):
    """The baseline: the training text's letter frequencies, the same guess at each of n positions."""
    p = np.bincount(stream, minlength=vocab_size) / len(stream)
    return np.broadcast_to(p, (n, vocab_size))


def ngram_next_probs(lm, text, positions, alphabet):
    """p(symbol | the previous order − 1 letters of `text`) of an n-gram model at each position,
    over `alphabet`: (len(positions), len(alphabet)), renormalised over the alphabet (<unk> and
    </s> keep a sliver of the model's mass)."""
    display = [" " if v == SPACE else v for v in lm.vocab]
    cols = np.array([display.index(a) for a in alphabet])
    n = lm.order - 1
    p = np.stack([lm.next_probs(list(text[max(0, t - n):t]), bos=False)[cols] for t in positions])
    return p / p.sum(axis=1, keepdims=True)


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


def log2_of_true(p, targets):
    """log2 p(true symbol) at each position: the bits per character are minus its mean."""
    return np.log2(p[np.arange(len(targets)), targets].astype(np.float64))


def paired_gap(log2_ref, log2_machine):
    """The machine's bits per character minus the reference's on the same letters, and the standard
    error of that mean difference (the letters are paired: the hard ones, hard for both, cancel)."""
    d = log2_ref - log2_machine          # −log2 p_machine − (−log2 p_ref), letter by letter
    return float(d.mean()), float(d.std(ddof=1) / math.sqrt(len(d)))


def ranks_from_probs(p, targets):
    """The rank of the true symbol among the machine's guesses (1 = its first guess; ties count
    against it, as a subject who names the true letter last among equals)."""
    p_true = p[np.arange(len(targets)), targets]
    return (p >= p_true[:, None]).sum(axis=1)      # the true symbol and every symbol at least as likely


# Each neural machine's model and training recipe (full mode; --fast shrinks the models and the
# windows). Chosen by held-out bits at equal time on 2 cores: see the module's docstring.
RECIPES = {
    "LSTM": dict(steps=800, batch=32, length=96, lr=1e-2, warmup=0, betas=(0.9, 0.999)),
    "GPT": dict(steps=1500, batch=32, length=64, lr=6e-3, warmup=50, betas=(0.9, 0.95)),
}


def make_machine(name, vocab_size, fast):
    if name == "LSTM":
        return nn.RNNLM(vocab_size, embedding_dim=32, hidden_size=64 if fast else 256, num_layers=1, mode="LSTM")
    # 8 heads, so ALiBi's slopes 1/2 ... 1/256 give it heads for the last few letters and heads for
    # whole words (with 4 heads it measured 0.03 bits worse after the same 1,100 steps)
    return nn.TransformerLM(vocab_size, d_model=64 if fast else 128, nhead=8, num_layers=2 if fast else 4,
                            dropout=0.0, pos=positional.ALiBi(8))


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m seqlab.demo", description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=None, help="training steps of each neural model "
                        "(default: the LSTM 800, the GPT 1,500; 80 with --fast)")
    parser.add_argument("--seed", type=int, default=42, help="seed for initialisation, batches and sampling")
    parser.add_argument("--fast", action="store_true", help="a short run (for the tests)")
    args = parser.parse_args(argv)
    fast = args.fast
    if args.steps is not None and args.steps < 1:
        parser.error("--steps must be at least 1")
    n_verses = 3000 if fast else None
    positions_played = 400 if fast else 5000

    t0 = time.perf_counter()
    kjv = corpora.kjv("shannon27")
    vocab = kjv.vocab
    V = len(vocab.itos)
    train_lines = kjv.train[:n_verses]
    stream = np.array(vocab.encode(" ".join(train_lines)), dtype=np.int64)
    held_out = kjv.text("valid")[:CONTEXT + positions_played]
    ids = np.array(vocab.encode(held_out), dtype=np.int64)
    positions = np.arange(CONTEXT, len(ids))
    targets = ids[positions]
    print(f"King James Bible in Shannon's 27 symbols: {len(stream):,} training letters "
          f"({len(train_lines):,} verses, joined by spaces); every machine is scored on the same "
          f"{len(positions):,} held-out letters")
    results = {"unigram": {"log2_p": log2_of_true(unigram_next_probs(stream, V, len(positions)), targets)}}

    # 1. the 5-gram Kneser-Ney model: counts of the same letter stream the neural machines learn from
    manual_seed(args.seed)
    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kn = NGram(5, "kneser_ney", level="char").fit([" ".join(train_lines)])
    p = ngram_next_probs(kn, held_out, positions, vocab.itos)
    results["5-gram KN"] = {"log2_p": log2_of_true(p, targets), "ranks": ranks_from_probs(p, targets),
                            "seconds": time.perf_counter() - t,
                            "sample": sample_ngram(kn, "and god said ", 160, args.seed)}
    print(f"5-gram Kneser-Ney: fitted and played in {results['5-gram KN']['seconds']:.1f} s")

    # 2. the LSTM, 3. the small GPT
    for name, recipe in RECIPES.items():
        steps = args.steps if args.steps is not None else (80 if fast else recipe["steps"])
        batch, length = (16, 64) if fast else (recipe["batch"], recipe["length"])
        manual_seed(args.seed)
        model = make_machine(name, V, fast)
        t = time.perf_counter()
        train_bits = train_on_windows(model, stream, steps, batch, length, recipe["lr"], args.seed,
                                      desc=f"training the {name}", warmup=min(recipe["warmup"], steps // 4),
                                      betas=recipe["betas"]) / math.log(2)
        p = neural_next_probs(model, ids, positions, CONTEXT)
        results[name] = {"log2_p": log2_of_true(p, targets), "train_bits": train_bits,
                         "ranks": ranks_from_probs(p, targets), "seconds": time.perf_counter() - t, "steps": steps}
        prompt = tensor([vocab.encode("and god said ")])
        out = model.generate(prompt, max_new_tokens=160, do_sample=True, temperature=0.8, top_k=10, seed=args.seed)
        results[name]["sample"] = "and god said " + "".join(vocab.itos[i] for i in out[0, prompt.shape[1]:].tolist())
        print(f"{name}: {steps:,} steps and the game in {results[name]['seconds']:.1f} s")

    for r in results.values():
        r["bits"] = float(-r["log2_p"].mean())
    print(f"\nbits per character on the {len(positions):,} held-out letters (uniform guessing: {math.log2(V):.2f})")
    print(f"  {'unigram (letter frequencies)':30s} {results['unigram']['bits']:5.2f}")
    print(f"  {'5-gram KN':30s} {results['5-gram KN']['bits']:5.2f}")
    for name in RECIPES:
        gap, se = paired_gap(results["5-gram KN"]["log2_p"], results[name]["log2_p"])
        results[name]["gap"] = (gap, se)
        side = "below" if gap < 0 else "above"
        print(f"  {name:30s} {results[name]['bits']:5.2f}   {abs(gap):.3f} ± {se:.3f} {side} the 5-gram")
    n15 = SHANNON_1951["N"].index(15)
    print(f"  Shannon 1951, people, N = 15:  between {SHANNON_1951['lower'][n15]} and {SHANNON_1951['upper'][n15]}; "
          f"N = 100: between {SHANNON_1951['lower'][-1]} and {SHANNON_1951['upper'][-1]}")
    print("  (± is the standard error of the mean per-letter difference: the machines guess the same letters)")

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
