"""Train short, test long: the harness at tiny sizes trains a decoder with every
scheme, reports a row per scheme at each evaluation length, and draws the curves; a learned table
is refused past its length, every other scheme reads longer sequences than it was trained on."""
import math

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

import seqlab  # noqa: E402
from seqlab.experiments import length_generalization as g  # noqa: E402


@pytest.fixture(scope="module")
def result():
    return g.run(train_length=8, eval_factors=(1, 2, 4), d_model=16, nhead=2, num_layers=1, dim_feedforward=32,
                 steps=40, batch_size=8, lr=1e-2, eval_tokens=512, log=None)


def test_a_row_per_scheme_at_every_length(result):
    assert result["lengths"] == [8, 16, 32]
    assert list(result["rows"]) == list(g.SCHEMES)
    for name, row in result["rows"].items():
        assert len(row["loss"]) == 3 and all(math.isfinite(x) for x in row["loss"]), name
        # forty steps already beat guessing uniformly among the 66 characters (4.19 nats)
        assert row["train_loss"] < math.log(66) - 0.5, (name, row["train_loss"])
        assert row["loss"][0] < math.log(66) - 0.5, (name, row["loss"])
    text = g.table(result)
    assert all(name in text for name in g.SCHEMES) and "L=32" in text


def test_the_curves(result):
    fig = g.plot(result)
    ax = fig.axes[0]
    assert ax.get_xlabel() == "evaluation length (characters)"
    assert len(ax.get_lines()) == len(g.SCHEMES) + 1  # one per scheme and the training length
    assert sorted(t.get_text() for t in ax.get_legend().get_texts()) == sorted(g.SCHEMES)


def test_a_learned_table_cannot_read_past_its_length():
    model = g.make_model("learned", 30, 16, 2, 1, 32, max_len=8)
    model(seqlab.zeros(1, 8, dtype=seqlab.int64))
    with pytest.raises(IndexError, match="past the table of max_len=8"):
        model(seqlab.zeros(1, 9, dtype=seqlab.int64))
    with pytest.raises(ValueError, match="unknown scheme 'sinus'"):
        g.make_positions("sinus", 16, 2, 8)


def test_the_command_line(capsys):
    g.main(["--fast", "--schemes", "alibi", "learned", "--steps", "3"])
    out = capsys.readouterr().out
    assert "alibi" in out and "learned" in out and "L=128" in out
