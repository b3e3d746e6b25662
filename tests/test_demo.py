"""The README's main job, `make demo` = `python -m seqlab.demo`, in its fast mode: a 5-gram
Kneser-Ney model, an LSTM and a small GPT are trained on the KJV's 27 symbols, each beats the
unigram baseline in bits per character, plays Shannon's game (lower bound <= upper bound < the
unigram's bits) and writes text; the printout has the tables."""
import subprocess
import sys

import numpy as np

from seqlab import demo


def test_demo_fast_run_beats_the_unigram_baseline_and_plays_the_game(capsys):
    results = demo.main(["--fast", "--seed", "3"])
    baseline = results["unigram"]["bits"]
    assert 3.9 < baseline < 4.2  # English letter frequencies: about 4.1 bits (Shannon: 4.14)
    for name in ("5-gram KN", "LSTM", "GPT"):
        r = results[name]
        assert r["bits"] < baseline - 0.3, (name, r["bits"], baseline)
        upper, lower = r["bounds"]
        assert 0 <= lower <= upper, (name, r["bounds"])
        ranks = np.asarray(r["ranks"])
        assert ranks.min() >= 1 and ranks.max() <= 27 and len(ranks) == 400
        assert upper < baseline, (name, upper, baseline)  # the ranks say less than letter frequencies do
        assert len(r["sample"]) > 100 and set(r["sample"]) <= set(" abcdefghijklmnopqrstuvwxyz"), name
    assert results["5-gram KN"]["bits"] < 2.0  # measured 1.59
    out = capsys.readouterr().out
    for text in ("bits per character on held-out text", "Shannon's game", "Shannon 1951, people (N = 100)",
                 "samples (seed 3)", "5-gram KN", "LSTM", "GPT"):
        assert text in out, text


def test_demo_runs_as_a_module():
    r = subprocess.run([sys.executable, "-m", "seqlab.demo", "--fast", "--steps", "20"], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "LSTM: 20 steps" in r.stdout and "GPT: 20 steps" in r.stdout


def test_ranks_count_ties_against_the_machine():
    # 1 = first guess; a symbol as likely as the true one is guessed before it
    p = np.array([[0.1, 0.6, 0.3], [0.4, 0.4, 0.2], [0.4, 0.4, 0.2]])
    ranks = demo.ranks_from_probs(p, np.array([2, 0, 1]))
    assert ranks.tolist() == [2, 2, 2]
    assert demo.ranks_from_probs(p[:1], np.array([1])).tolist() == [1]
