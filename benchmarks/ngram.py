"""n-gram language models: seqlab vs KenLM, one run each, both sides and the ratio.

Build: a 5-gram modified Kneser-Ney model written as an ARPA file, seqlab (NGram.fit +
save_arpa, in a fresh Python process) vs lmplz (built from the PyPI sdist by
tools/build_lmplz.sh), on two corpora of >= 10M tokens: the King James Bible repeated, and a
seeded Zipfian corpus. A repeated text has no 5-gram seen once, so KenLM's discount estimate
fails on it: lmplz runs with --discount_fallback, as seqlab falls back by itself. Wall time and peak resident memory of each process (both have the two
cores; lmplz gets `-S` of sort memory, printed). Query: sentences/s of seqlab's NGram.score
vs kenlm.Model.score on the same ARPA file, one Python call per sentence.

    python benchmarks/ngram.py [--tokens 10000000] [--lmplz-memory 1G]
"""
import argparse
import os
import pathlib
import subprocess
import sys
import tempfile
import time

import numpy as np

import timing  # benchmarks/timing.py: the header line

ROOT = pathlib.Path(__file__).resolve().parent.parent


def kjv_lines():
    text = subprocess.run(["bible", "-f", "Gen1:1-Rev22:21"], capture_output=True, text=True, check=True).stdout
    return [line.split(" ", 1)[1] for line in text.splitlines() if " " in line]


def write_kjv(path, n_tokens):
    lines = kjv_lines()
    per_copy = sum(len(l.split()) for l in lines)
    copies = -(-n_tokens // per_copy)
    with open(path, "w") as f:
        for _ in range(copies):
            f.write("\n".join(lines))
            f.write("\n")
    return copies * per_copy, copies * len(lines)


def write_zipf(path, n_tokens, vocab_size=50_000, exponent=1.0, line_length=20, seed=0):
    """Words w1..wV drawn i.i.d. with P(w_k) ∝ 1/k**exponent (as seqlab.data.corpora.zipf)."""
    p = 1.0 / np.arange(1, vocab_size + 1) ** exponent
    p /= p.sum()
    ids = np.random.default_rng(seed).choice(vocab_size, size=n_tokens, p=p)
    names = np.array([f"w{k}" for k in range(1, vocab_size + 1)])
    with open(path, "w") as f:
        for start in range(0, n_tokens, 200_000):
            chunk = names[ids[start:start + 200_000]].reshape(-1, line_length)
            f.write("\n".join(" ".join(row) for row in chunk))
            f.write("\n")
    return n_tokens, n_tokens // line_length


SEQLAB_BUILD = """
import resource, sys, time
t0 = time.perf_counter()
from seqlab.lm import NGram
t1 = time.perf_counter()
lm = NGram(5, "kneser_ney").fit(sys.argv[1])
t2 = time.perf_counter()
lm.save_arpa(sys.argv[2])
t3 = time.perf_counter()
print(f"{t1 - t0:.3f} {t2 - t1:.3f} {t3 - t2:.3f} {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.1f}")
"""

LMPLZ_WRAPPER = """
import resource, subprocess, sys
with open(sys.argv[2]) as fin, open(sys.argv[3], "w") as fout:
    r = subprocess.run([sys.argv[1], "-o", "5", "-S", sys.argv[4], "-T", sys.argv[5],
                        "--discount_fallback"], stdin=fin, stdout=fout,
                       stderr=subprocess.PIPE, text=True)
if r.returncode:
    sys.exit(r.stderr[-2000:])
print(f"{resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024:.1f}")
"""


def bench_build(name, text, n_tokens, n_lines, lmplz, memory, tmp):
    print(f"\n== {name}: {n_tokens:,} tokens, {n_lines:,} sentences ({os.path.getsize(text) / 2**20:.0f} MiB)")
    ours, theirs = tmp / f"{name}.seqlab.arpa", tmp / f"{name}.lmplz.arpa"
    # seqlab in a fresh interpreter (its peak RSS includes Python, NumPy and seqlab: ~60 MiB idle).
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", SEQLAB_BUILD, str(text), str(ours)], capture_output=True, text=True)
    s_wall = time.perf_counter() - t0
    if r.returncode:
        sys.exit(r.stderr[-3000:])
    s_import, s_fit, s_write, s_rss = map(float, r.stdout.split()[-4:])
    time.sleep(1)
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", LMPLZ_WRAPPER, str(lmplz), str(text), str(theirs), memory, str(tmp)],
                       capture_output=True, text=True)
    k_wall = time.perf_counter() - t0
    if r.returncode:
        sys.exit(r.stderr[-3000:])
    k_rss = float(r.stdout.split()[-1])
    print(f"build 5-gram KN + write ARPA  seqlab {s_fit + s_write:7.2f} s (fit {s_fit:.2f} + write {s_write:.2f}; "
          f"process {s_wall:.2f} s)   lmplz -S {memory} {k_wall:7.2f} s   time ratio seqlab/lmplz "
          f"{(s_fit + s_write) / k_wall:.2f} (process {s_wall / k_wall:.2f})")
    print(f"peak memory                   seqlab {s_rss:7.0f} MiB   lmplz {k_rss:7.0f} MiB   ratio {s_rss / k_rss:.2f}")
    same = subprocess.run(["cmp", "-s", str(ours), str(theirs)]).returncode == 0
    print(f"ARPA files byte-identical: {same} (entries are compared to 1e-4 in tests/test_ngram_kenlm.py)")
    return theirs


def bench_query(arpa, lines, n):
    import kenlm

    from seqlab.lm import NGram
    sents = lines[:n]
    lm = NGram.load_arpa(arpa)
    k = kenlm.Model(str(arpa))

    def seqlab_loop():
        score = lm.score
        for s in sents:
            score(s)

    def kenlm_loop():
        score = k.score
        for s in sents:
            score(s)

    times = {"seqlab": [], "kenlm": []}
    for _ in range(3):
        for name, fn in (("seqlab", seqlab_loop), ("kenlm", kenlm_loop)):
            time.sleep(0.2)
            t0 = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
    s, q = min(times["seqlab"]), min(times["kenlm"])
    t0 = time.perf_counter()
    lm.evaluate(sents)
    batch = time.perf_counter() - t0
    print(f"query (one call per sentence, {len(sents):,} sentences, ARPA loaded from lmplz): seqlab "
          f"{len(sents) / s:,.0f} sentences/s   kenlm {len(sents) / q:,.0f} sentences/s   ratio {q / s:.2f}x")
    print(f"  seqlab NGram.evaluate (one call for all sentences): {len(sents) / batch:,.0f} sentences/s")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tokens", type=int, default=10_000_000)
    ap.add_argument("--lmplz-memory", default="1G", help="lmplz -S (its default, 80%% of RAM, takes GBs)")
    ap.add_argument("--query-sentences", type=int, default=100_000)
    args = ap.parse_args()
    out = subprocess.run(["bash", str(ROOT / "tools" / "build_lmplz.sh"), str(ROOT / "build" / "kenlm")],
                         capture_output=True, text=True, env={**os.environ, "PYTHON": sys.executable})
    if out.returncode:
        sys.exit(out.stderr)
    lmplz = pathlib.Path(out.stdout.split()[-1]) / "lmplz"
    print(timing.header())
    print(f"seqlab vs KenLM {lmplz.parent.parent.name} (lmplz from the PyPI sdist); {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory(dir=ROOT / "build") as d:
        tmp = pathlib.Path(d)
        kjv = tmp / "kjv.txt"
        n_tok, n_lines = write_kjv(kjv, args.tokens)
        arpa = bench_build("kjv-repeated", kjv, n_tok, n_lines, lmplz, args.lmplz_memory, tmp)
        bench_query(arpa, kjv_lines(), args.query_sentences)
        zipf = tmp / "zipf.txt"
        n_tok, n_lines = write_zipf(zipf, args.tokens)
        bench_build("zipf", zipf, n_tok, n_lines, lmplz, args.lmplz_memory, tmp)


if __name__ == "__main__":
    main()
