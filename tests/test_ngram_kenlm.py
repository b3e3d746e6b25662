"""seqlab.lm.NGram against KenLM: lmplz (built from the PyPI sdist by tools/build_lmplz.sh,
cached in build/kenlm) and the kenlm Python module on the query side.

A modified Kneser-Ney model built by seqlab on the same text as lmplz must have the same ARPA
entries (log10 probabilities and back-off weights to 1e-4), and kenlm must score any sentence
with seqlab's ARPA file as seqlab does.
"""
import math
import os
import pathlib
import random
import subprocess
import warnings

import kenlm
import pytest

from seqlab.lm import NGram

ROOT = pathlib.Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def lmplz():
    out = subprocess.run(["bash", str(ROOT / "tools" / "build_lmplz.sh"), str(ROOT / "build" / "kenlm")],
                         capture_output=True, text=True, timeout=900,
                         env={**os.environ, "PYTHON": os.environ.get("PYTHON", "python")})
    assert out.returncode == 0, out.stderr
    return pathlib.Path(out.stdout.strip().splitlines()[-1]) / "lmplz"


def bible(ref):
    """Verses of the King James Bible (Debian's bible-kjv) without their references."""
    text = subprocess.run(["bible", "-f", ref], capture_output=True, text=True, check=True).stdout
    return [line.split(" ", 1)[1] for line in text.splitlines() if " " in line]


def run_lmplz(lmplz, lines, order, tmp_path, extra=()):
    src = tmp_path / "text.txt"
    src.write_text("\n".join(lines) + "\n")
    arpa = tmp_path / f"kenlm{order}.arpa"
    with open(src) as fin, open(arpa, "w") as fout:
        r = subprocess.run([str(lmplz), "-o", str(order), "-S", "200M", "-T", str(tmp_path), *extra],
                           stdin=fin, stdout=fout, stderr=subprocess.PIPE, text=True, timeout=600)
    return r, arpa


def parse_arpa(path):
    """{(order, 'w1 w2 ..'): (log10 p, log10 backoff or None)}, and the header counts."""
    entries, counts, order = {}, {}, 0
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("ngram "):
            n, c = line[6:].split("=")
            counts[int(n)] = int(c)
        elif line.startswith("\\") and line.endswith("-grams:"):
            order = int(line[1:line.index("-")])
        elif line and not line.startswith("\\") and order:
            f = line.split("\t")
            key = (order, f[1])
            assert key not in entries, f"duplicate {key} in {path}"
            entries[key] = (float(f[0]), float(f[2]) if len(f) > 2 else None)
    return entries, counts


def assert_same_arpa(ours, theirs, tol=1e-4):
    a, ca = parse_arpa(ours)
    b, cb = parse_arpa(theirs)
    assert ca == cb
    assert a.keys() == b.keys()
    worst = 0.0
    for k, (p, bo) in b.items():
        q, qbo = a[k]
        worst = max(worst, abs(p - q))
        assert abs(p - q) <= tol, (k, q, p)
        assert (bo is None) == (qbo is None), k
        if bo is not None:
            worst = max(worst, abs(bo - qbo))
            assert abs(bo - qbo) <= tol, (k, qbo, bo)
    return worst


def sentences_to_score(lines, seed=0, n=60):
    """Held-in sentences, shuffled words (unseen n-grams), and out-of-vocabulary words."""
    rng = random.Random(seed)
    picked = rng.sample(lines, n // 3)
    shuffled = [" ".join(rng.sample(l.split(), len(l.split()))) for l in rng.sample(lines, n // 3)]
    oov = [f"{l} zyzzyva quux" if i % 2 else f"qwerty {l}" for i, l in enumerate(rng.sample(lines, n // 3))]
    return picked + shuffled + oov + ["", "the", "And"]


@pytest.mark.parametrize("order", [2, 3, 5])
def test_kneser_ney_equals_lmplz_on_genesis_and_exodus(lmplz, tmp_path, order):
    lines = bible("Gen1:1-Exo40:38")
    r, theirs = run_lmplz(lmplz, lines, order, tmp_path)
    assert r.returncode == 0, r.stderr
    lm = NGram(order, "kneser_ney").fit(lines)
    ours = tmp_path / "seqlab.arpa"
    lm.save_arpa(ours)
    assert_same_arpa(ours, theirs)

    # The discounts lmplz prints ("1 4395 D1=0.651385 D2=1.20295 D3+=1.3648") are seqlab's.
    printed = [l.split() for l in r.stderr.splitlines() if " D1=" in l]
    assert len(printed) == order
    for d, fields in zip(lm.discounts, printed):
        for name, value in (f.split("=") for f in fields[2:]):
            assert math.isclose(d[name], float(value), rel_tol=1e-5), (name, d[name], value)

    # kenlm scores every sentence with seqlab's file as seqlab does, and with lmplz's file too.
    k_ours, k_theirs = kenlm.Model(str(ours)), kenlm.Model(str(theirs))
    for s in sentences_to_score(lines):
        for bos, eos in [(True, True), (False, True), (True, False), (False, False)]:
            mine = lm.score(s, bos=bos, eos=eos)
            assert abs(mine - k_ours.score(s, bos=bos, eos=eos)) < 1e-4, s
            assert abs(mine - k_theirs.score(s, bos=bos, eos=eos)) < 1e-3, s
        ours_full = lm.full_scores(s)
        theirs_full = list(k_ours.full_scores(s))
        assert [(n, oov) for _, n, oov in ours_full] == [(n, oov) for _, n, oov in theirs_full]
        assert all(abs(a[0] - b[0]) < 1e-4 for a, b in zip(ours_full, theirs_full))
    held = lines[::7]
    ppl = lm.perplexity(held)
    total = sum(k_ours.score(s) for s in held)
    tokens = sum(len(s.split()) + 1 for s in held)
    assert math.isclose(ppl, 10 ** (-total / tokens), rel_tol=1e-5)


def test_character_level_equals_lmplz_on_spelled_out_text(lmplz, tmp_path):
    """A character model: lmplz reads the characters as words, with a space spelled <space>."""
    lines = [l.lower() for l in bible("Ruth1:1-Ruth4:22")]
    spelled = [" ".join("<space>" if c == " " else c for c in l) for l in lines]
    r, theirs = run_lmplz(lmplz, spelled, 5, tmp_path)
    assert r.returncode == 0, r.stderr
    lm = NGram(5, level="char").fit(lines)
    ours = tmp_path / "seqlab_char.arpa"
    lm.save_arpa(ours)
    assert_same_arpa(ours, theirs)
    k = kenlm.Model(str(ours))
    for line, sp in list(zip(lines, spelled))[:40]:
        assert abs(lm.score(line) - k.score(sp)) < 1e-4


def test_tiny_corpus_where_kenlm_fails_falls_back_with_a_warning(lmplz, tmp_path):
    lines = ["the cat sat", "the dog sat", "the cat ran"]
    r, _ = run_lmplz(lmplz, lines, 5, tmp_path)
    assert r.returncode != 0 and "BadDiscountException" in r.stderr  # lmplz refuses ...
    r, theirs = run_lmplz(lmplz, lines, 5, tmp_path, extra=["--discount_fallback"])
    assert r.returncode == 0, r.stderr
    with pytest.warns(RuntimeWarning, match="could not be estimated.*discount_fallback"):
        lm = NGram(5).fit(lines)  # ... seqlab falls back to the documented discounts and says so
    assert all(d["fallback"] and (d["D1"], d["D2"], d["D3+"]) == (0.5, 1.0, 1.5) for d in lm.discounts)
    ours = tmp_path / "tiny.arpa"
    lm.save_arpa(ours)
    assert_same_arpa(ours, theirs)
    k = kenlm.Model(str(ours))
    for s in ["the cat sat", "the dog ran", "a cat", "sat the"]:
        assert abs(lm.score(s) - k.score(s)) < 1e-5


def test_kenlm_reads_the_other_smoothings_files(tmp_path):
    """Katz, Witten-Bell and MLE files are valid ARPA: kenlm scores them as seqlab does."""
    lines = bible("Ruth1:1-Ruth4:22")
    for smoothing in ["katz", "witten_bell", "mle"]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            lm = NGram(3, smoothing).fit(lines)
        path = tmp_path / f"{smoothing}.arpa"
        lm.save_arpa(path)
        k = kenlm.Model(str(path))
        for s in lines[:30] + ["Naomi said unto Ruth"]:
            mine = lm.score(s)
            if smoothing == "mle" and math.isinf(mine):
                assert k.score(s) < -90  # log 0 is written as -99, as SRILM and KenLM do
            else:
                assert abs(mine - k.score(s)) < 1e-4, (smoothing, s)
