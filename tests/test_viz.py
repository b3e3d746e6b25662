"""seqlab.viz: each picture is a Figure of the asked size with the right axes labels, tick
labels and data, or (autograd_graph) a graphviz.Digraph with the graph's nodes and edges."""
import numpy as np
import pytest
from matplotlib.figure import Figure

import seqlab
import seqlab.nn as nn
from seqlab import viz
from seqlab.lm import SHANNON_1951


def ticklabels(axis):
    return [t.get_text() for t in axis.get_ticklabels()]


def test_attention_heatmap_one_panel_per_head_with_token_labels():
    w = seqlab.softmax(seqlab.randn(3, 4, 5), dim=-1)
    fig = viz.attention_heatmap(w, query_labels=list("abcd"), key_labels=list("vwxyz"), title="t")
    assert isinstance(fig, Figure)
    heads = [ax for ax in fig.axes if ax.get_images()]
    assert len(heads) == 3
    for h, ax in enumerate(heads):
        assert ax.get_title() == f"head {h}"
        assert ax.get_xlabel() == "key" and ax.get_ylabel() == "query"
        assert ticklabels(ax.xaxis) == list("vwxyz") and ticklabels(ax.yaxis) == list("abcd")
        np.testing.assert_allclose(ax.get_images()[0].get_array(), w[h].numpy(), rtol=1e-6)
    width, height = fig.get_size_inches()
    assert width > height > 2   # three panels side by side


def test_attention_heatmap_refuses_wrong_labels_and_shapes():
    with pytest.raises(ValueError, match=r"attention_heatmap: key_labels has 2 labels for 5 positions"):
        viz.attention_heatmap(np.ones((4, 5)) / 5, key_labels=["a", "b"])
    with pytest.raises(ValueError, match=r"attention_heatmap: weights must be \(L, S\) or \(H, L, S\), got shape \(5,\)"):
        viz.attention_heatmap(np.ones(5))


def test_grad_norms_through_time_log_axis_one_line_per_row():
    fig = viz.grad_norms_through_time({"RNN": np.geomspace(1e-6, 1, 20), "LSTM": np.ones((2, 20))})
    (ax,) = fig.axes
    assert ax.get_yscale() == "log"
    assert ax.get_xlabel() == "time step t" and ax.get_ylabel() == "||∂L/∂h_t||"
    assert [line.get_label() for line in ax.get_lines()] == ["RNN", "LSTM [0]", "LSTM [1]"]
    assert tuple(fig.get_size_inches()) == (7, 4)


def test_training_curves_from_a_dict_and_from_a_train_history():
    fig = viz.training_curves({"a": [3, 2, 1], "b": [4, 3, 2]}, xlabel="epoch", ylabel="nats")
    (ax,) = fig.axes
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("epoch", "nats")
    assert [line.get_label() for line in ax.get_lines()] == ["a", "b"]
    fig = viz.training_curves({"train_loss": [4, 3, 2, 1], "valid_loss": [3.5, 1.5]})
    train, valid = fig.axes[0].get_lines()
    np.testing.assert_array_equal(valid.get_xdata(), [2, 4])   # end of each epoch of 2 steps
    np.testing.assert_array_equal(valid.get_ydata(), [3.5, 1.5])


def test_autograd_graph_names_ops_and_parameters():
    model = nn.Sequential(nn.Linear(4, 3), nn.Tanh())
    loss = (model(seqlab.randn(2, 4)) ** 2).sum()
    dot = viz.autograd_graph(loss, params=dict(model.named_parameters()))
    src = dot.source
    for name in ("AddmmBackward0", "TanhBackward0", "PowBackward0", "SumBackward0", 'label="0.weight', "(3, 4)", 'label="0.bias', "(3)"):
        assert name in src, name
    assert src.count("->") == 6   # weight, bias -> addmm -> tanh -> pow -> sum -> output
    assert dot.pipe(format="svg").startswith(b"<?xml")   # Debian's dot renders it


def test_autograd_graph_refuses_a_leaf():
    with pytest.raises(ValueError, match="autograd_graph: the tensor has no grad_fn"):
        viz.autograd_graph(seqlab.ones(2, requires_grad=True))


def test_pca_2d_finds_the_plane_of_the_points():
    rng = np.random.default_rng(0)
    plane = rng.standard_normal((50, 2)) * [5.0, 2.0]
    basis = np.linalg.qr(rng.standard_normal((10, 2)))[0].T         # (2, 10), orthonormal rows
    xy = viz.pca_2d(plane @ basis + 3.0)
    # the projection is the plane up to a rotation: the same pairwise distances
    d = lambda a: np.linalg.norm(a[:, None] - a[None], axis=-1)    # noqa: E731
    np.testing.assert_allclose(d(xy), d(plane), atol=1e-9)


def test_embedding_projection_labels_every_point():
    fig = viz.embedding_projection(np.random.default_rng(1).standard_normal((6, 8)), list("abcdef"),
                                   groups=[0, 0, 0, 1, 1, 1], arrows=[(0, 3)])
    (ax,) = fig.axes
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("PC 1", "PC 2")
    assert [t.get_text() for t in ax.texts if t.get_text()] == list("abcdef")
    with pytest.raises(ValueError, match="embedding_projection: 2 labels for 6 vectors"):
        viz.embedding_projection(np.ones((6, 8)), ["a", "b"])


def test_shannon_bounds_figure_and_table_beside_his():
    ours = {1: (4.1, 3.2), 2: (3.3, 2.4), 100: (1.5, 0.7)}
    fig = viz.shannon_bounds_figure({"5-gram": ours})
    ax, tab = fig.axes
    assert ax.get_ylabel() == "bits per letter" and ax.get_xlabel().startswith("N")
    assert ticklabels(ax.xaxis)[-1] == "100"
    labels = [line.get_label() for line in ax.get_lines()]
    assert labels == ["Shannon 1951 upper", "Shannon 1951 lower", "5-gram upper", "5-gram lower"]
    np.testing.assert_array_equal(ax.get_lines()[0].get_ydata(), SHANNON_1951["upper"])
    cells = tab.tables[0].get_celld()
    texts = [c.get_text().get_text() for c in cells.values()]
    assert "4.10 / 3.20" in texts and "4.03 / 3.19" in texts and "1.30 / 0.60" in texts
    table = viz.shannon_bounds_table(ours, label="kn")
    assert "kn upper" in table.splitlines()[0]
    assert [line.split()[0] for line in table.splitlines()[2:]] == [str(n) for n in SHANNON_1951["N"]]
