"""The README's main job, `make demo` = `python -m seqlab.demo`: a 5-gram Kneser-Ney model, an LSTM
and a small GPT are trained on the KJV's 27 symbols, scored on the same held-out letters, play
Shannon's game (lower bound <= upper bound < the unigram's bits) and write text; the printout has
the tables. In fast mode each beats the unigram baseline; the full run (what `make demo` prints,
about 4.5 minutes) is the one that can show the lectures' story, that both neural machines beat the
5-gram, so it runs here too."""
import subprocess
import sys

import numpy as np
import pytest

from seqlab import demo


def test_demo_fast_run_beats_the_unigram_baseline_and_plays_the_game(capsys):
    results = demo.main(["--fast", "--seed", "3"])
    baseline = results["unigram"]["bits"]
    # the held-out letters' cross-entropy under the training letters' frequencies: measured 3.89
    # on the 400 letters of fast mode (Shannon's F1 for English: 4.14)
    assert 3.7 < baseline < 4.3
    for name in ("5-gram KN", "LSTM", "GPT"):
        r = results[name]
        assert r["bits"] < baseline - 0.3, (name, r["bits"], baseline)
        upper, lower = r["bounds"]
        assert 0 <= lower <= upper, (name, r["bounds"])
        ranks = np.asarray(r["ranks"])
        assert ranks.min() >= 1 and ranks.max() <= 27 and len(ranks) == 400
        assert upper < baseline, (name, upper, baseline)  # the ranks say less than letter frequencies do
        assert len(r["sample"]) > 100 and set(r["sample"]) <= set(" abcdefghijklmnopqrstuvwxyz"), name
    assert results["5-gram KN"]["bits"] < 2.0  # measured 1.68
    for name in ("LSTM", "GPT"):  # the gap is the difference of the two bits on the same letters
        gap, se = results[name]["gap"]
        assert gap == pytest.approx(results[name]["bits"] - results["5-gram KN"]["bits"], abs=1e-9)
        assert 0 < se < 0.2
    out = capsys.readouterr().out
    for text in ("bits per character on the 400 held-out letters", "the 5-gram", "standard error", "Shannon's game", "Shannon 1951, people (N = 100)",
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


def test_paired_gap_is_the_difference_in_bits_with_its_standard_error():
    ref = np.log2(np.array([0.5, 0.25, 0.5, 0.125]))        # 1, 2, 1, 3 bits
    machine = np.log2(np.array([0.5, 0.5, 0.25, 0.25]))    # 1, 1, 2, 2 bits
    gap, se = demo.paired_gap(ref, machine)
    d = np.array([0, -1, 1, -1])                             # machine minus reference, letter by letter
    assert gap == pytest.approx(d.mean()) and se == pytest.approx(d.std(ddof=1) / 2)


def test_ngram_probabilities_are_the_models_renormalised_over_the_alphabet():
    from seqlab.lm import NGram
    with pytest.warns(RuntimeWarning, match="discount_fallback"):  # a corpus too small for KN's estimates
        lm = NGram(3, "kneser_ney", level="char").fit(["abc abd", "abc"])
    p = demo.ngram_next_probs(lm, "xabcab", np.array([3, 5]), [" ", "a", "b", "c", "d"])
    assert p.shape == (2, 5) and np.allclose(p.sum(axis=1), 1)
    q = lm.next_probs(list("ab"), bos=False)
    display = [" " if v == "<space>" else v for v in lm.vocab]
    expected = np.array([q[display.index(a)] for a in " abcd"])
    np.testing.assert_allclose(p[0], expected / expected.sum())   # after "ab" (position 3: "c")
    assert p[0].argmax() == 3


def test_demo_full_run_both_neural_machines_beat_the_5gram():
    """The flagship claim, on what `make demo` runs: the LSTM and the GPT each guess the held-out
    letters better than the 5-gram, in bits per character (by more than three standard errors of
    the paired difference) and in Shannon's game (a lower upper bound)."""
    results = demo.main([])
    kn = results["5-gram KN"]
    assert kn["bits"] < 1.75, kn["bits"]
    for name in ("LSTM", "GPT"):
        gap, se = results[name]["gap"]
        assert gap + 3 * se < 0, (name, results[name]["bits"], kn["bits"], gap, se)
        assert results[name]["bounds"][0] < kn["bounds"][0], (name, results[name]["bounds"], kn["bounds"])
