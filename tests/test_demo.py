"""The README's main job, `make demo` = `python -m seqlab.demo`, in its fast mode: the
validation loss falls well below uniform guessing and the model writes text."""
import math
import subprocess
import sys

from seqlab import demo


def test_demo_fast_run_learns_and_samples(capsys):
    history, text = demo.main(["--fast", "--seed", "3"])
    valid = history["valid_loss"]
    assert len(valid) == 5 and valid[-1] < valid[0]
    assert valid[-1] < 2.1 < math.log(66)  # uniform guessing over the 66 symbols: 4.19 nats
    assert text.startswith("In the beginning ") and len(text) > 100
    out = capsys.readouterr().out
    assert "valid loss" in out and "sample (seed 3)" in out


def test_demo_runs_as_a_module():
    r = subprocess.run([sys.executable, "-m", "seqlab.demo", "--fast", "--steps", "50"], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "after 50 steps" in r.stdout
