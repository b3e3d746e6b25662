"""seqlab.viz: the course's pictures as library functions, for notebooks and scripts.

Each returns a matplotlib Figure (made without pyplot, so no global figure state piles up and no
GUI backend is needed) that displays itself: in a notebook, a returned figure shows as an image
in any kernel, with or without %matplotlib inline or pyplot (a plain matplotlib Figure made
this way would print as "<Figure size ...>"); in a script, fig.savefig(path). The autograd
graph is a graphviz.Digraph, which Jupyter draws too. Tests: tests/test_viz.py, and
tests/test_notebooks.py checks that every plotting cell shows an image.

    from seqlab import viz
    viz.attention_heatmap(weights, query_labels=list("hello"), key_labels=list("hello"))
    viz.autograd_graph(loss, params=dict(model.named_parameters()))
"""
import io

import numpy as np
from matplotlib.figure import Figure as _MatplotlibFigure

from ._core import Tensor
from .lm.shannon import SHANNON_1951

__all__ = ["attention_heatmap", "grad_norms_through_time", "training_curves", "autograd_graph",
           "embedding_projection", "pca_2d", "shannon_bounds_figure", "shannon_bounds_table"]


class Figure(_MatplotlibFigure):
    """A matplotlib Figure that Jupyter and IPython display as a PNG image (_repr_png_), whichever
    backend the kernel has: pyplot's inline backend only draws the figures pyplot made."""

    def _repr_png_(self):
        buffer = io.BytesIO()
        self.savefig(buffer, format="png", dpi=100)
        return buffer.getvalue()


def _array(x, what, finite=True):
    """A tensor, array or nested list as a float64 NumPy array (detached). finite=False lets
    NaN through (a curve with a gap: matplotlib skips it)."""
    if isinstance(x, Tensor):
        x = x.detach().contiguous().numpy()
    a = np.asarray(x, dtype=np.float64)
    if not (np.isfinite(a) | (np.isnan(a) & (not finite))).all():
        raise ValueError(f"{what}: the values must be finite" + ("" if finite else " or NaN (a gap)"))
    return a


# ----------------------------------------------------------------------------- attention

def attention_heatmap(weights, query_labels=None, key_labels=None, title=None, head_titles=None,
                      cell_size=0.35, cmap="viridis"):
    """Attention weights as heat maps, one panel per head.

    weights: (L, S) for one head, or (H, L, S) for H heads (a batch element of
      MultiheadAttention's weights with average_attn_weights=False); row i is query i's
      distribution over the S keys. query_labels (L) and key_labels (S): the tokens, drawn as
      tick labels (queries down the side, keys along the top, as in Bahdanau et al. 2015, Fig. 3).
    """
    w = _array(weights, "attention_heatmap")
    if w.ndim == 2:
        w = w[None]
    if w.ndim != 3 or 0 in w.shape:
        raise ValueError(f"attention_heatmap: weights must be (L, S) or (H, L, S), got shape {tuple(np.shape(w))}")
    H, L, S = w.shape
    for labels, n, name in ((query_labels, L, "query_labels"), (key_labels, S, "key_labels")):
        if labels is not None and len(labels) != n:
            raise ValueError(f"attention_heatmap: {name} has {len(labels)} labels for {n} positions "
                             f"(weights of shape {tuple(w.shape)})")
    cols = min(H, 4)
    rows = (H + cols - 1) // cols
    panel_w, panel_h = max(2.0, cell_size * S + 1.0), max(2.0, cell_size * L + 1.0)
    fig = Figure(figsize=(panel_w * cols + 1.0, panel_h * rows + (0.5 if title else 0.0)), layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False)
    for h in range(rows * cols):
        ax = axes[h // cols][h % cols]
        if h >= H:
            ax.set_axis_off()
            continue
        im = ax.imshow(w[h], cmap=cmap, vmin=0.0, vmax=max(1e-12, float(w[h].max())), aspect="auto")
        ax.set_xticks(range(S), [str(t) for t in key_labels] if key_labels is not None else range(S),
                      rotation=90 if key_labels is not None else 0)
        ax.set_yticks(range(L), [str(t) for t in query_labels] if query_labels is not None else range(L))
        ax.xaxis.tick_top()
        ax.set_xlabel("key")
        ax.set_ylabel("query")
        ax.set_title(head_titles[h] if head_titles is not None else (f"head {h}" if H > 1 else "attention"))
        fig.colorbar(im, ax=ax, shrink=0.8)
    if title:
        fig.suptitle(title)
    return fig


# ----------------------------------------------------------------------------- training

def grad_norms_through_time(norms, title="||∂L/∂h_t|| through time", log=True):
    """Gradient norms against the time step, one line per entry.

    norms: {label: values}, values a (T,) sequence (e.g. one row of
      nn.utils.hidden_grad_norms' (layers * directions, T) result) or a (rows, T) array,
      drawn as one line per row. log: a logarithmic y axis (vanishing gradients fall as a
      straight line there, |∂h_T/∂h_t| ~ ρ^(T-t), Pascanu et al. 2012)."""
    if not isinstance(norms, dict) or not norms:
        raise ValueError("grad_norms_through_time: norms must be a non-empty dict {label: values}")
    fig = Figure(figsize=(7, 4), layout="constrained")
    ax = fig.subplots()
    for label, values in norms.items():
        v = _array(values, "grad_norms_through_time")
        for r, row in enumerate(np.atleast_2d(v)):
            ax.plot(np.arange(row.size), row, label=label if v.ndim == 1 else f"{label} [{r}]")
    if log:
        ax.set_yscale("log")
    ax.set_xlabel("time step t")
    ax.set_ylabel("||∂L/∂h_t||")
    ax.set_title(title)
    ax.legend()
    return fig


def training_curves(curves, xlabel="step", ylabel="loss", title="training curves", log=False, smooth=0):
    """Loss (or any metric) against the step, one line per entry.

    curves: {label: values} (e.g. {"LSTM": history["train_loss"]}), or a history dict from
      seqlab.train ({"train_loss": [...], "valid_loss": [...]}, drawn in its own units: the
      validation points at the end of each epoch's steps). smooth: a moving-average window."""
    if not isinstance(curves, dict) or not curves:
        raise ValueError("training_curves: curves must be a non-empty dict {label: values}")
    if "train_loss" in curves:   # a seqlab.train history
        train = list(curves["train_loss"])
        valid = list(curves.get("valid_loss", []))
        curves = {"train": train}
        if valid:
            steps_per_epoch = max(1, len(train) // len(valid))
            curves["valid"] = (np.arange(1, len(valid) + 1) * steps_per_epoch, valid)
    fig = Figure(figsize=(7, 4), layout="constrained")
    ax = fig.subplots()
    for label, values in curves.items():
        if isinstance(values, tuple) and len(values) == 2:
            x, y = np.asarray(values[0], dtype=np.float64), _array(values[1], "training_curves", finite=False)
            ax.plot(x, y, "o-", label=label)
            continue
        y = _array(values, "training_curves", finite=False)
        if smooth > 1 and y.size >= smooth:
            y = np.convolve(y, np.ones(smooth) / smooth, mode="valid")
        ax.plot(np.arange(y.size) + (smooth - 1 if smooth > 1 else 0), y, label=label)
    if log:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend()
    return fig


# ----------------------------------------------------------------------------- autograd graph

def autograd_graph(tensor, params=None, show_shapes=True):
    """The graph backward() walks from `tensor`, as a graphviz.Digraph (as torchviz's make_dot).

    Blue boxes are the recorded ops (grad_fn.name(): MulBackward0, ...), light-green boxes the
    leaves' AccumulateGrad nodes, named and shaped when `params` ({name: leaf}, e.g.
    dict(model.named_parameters())) holds the leaf; the output is the dark-green box on top.
    Edges point the way the gradient flows."""
    import graphviz

    if not isinstance(tensor, Tensor):
        raise TypeError(f"autograd_graph: expected a seqlab Tensor, got {type(tensor).__name__}")
    if tensor.grad_fn is None:
        raise ValueError("autograd_graph: the tensor has no grad_fn (a leaf, or computed without grad); "
                         "nothing was recorded to draw")
    names = {id(p): name for name, p in (params or {}).items() if isinstance(p, Tensor)}
    dot = graphviz.Digraph(graph_attr={"rankdir": "TB", "size": "12,12"},
                           node_attr={"shape": "box", "style": "filled", "fontname": "monospace", "fontsize": "10"})
    shape = lambda t: "(" + ", ".join(str(d) for d in t.shape) + ")"  # noqa: E731
    dot.node("output", f"output\n{shape(tensor)}" if show_shapes else "output", fillcolor="darkolivegreen1")
    seen, stack = {}, [tensor.grad_fn]
    nodes = []   # keep the Python wrappers alive so that id() stays unique while drawing
    while stack:
        fn = stack.pop()
        if id(fn) in seen:
            continue
        seen[id(fn)] = key = f"n{len(seen)}"
        nodes.append(fn)
        name = fn.name()
        leaf = fn.variable if name == "AccumulateGrad" else None     # the leaf it accumulates into
        if leaf is not None and id(leaf) in names:
            pname = names[id(leaf)]
            dot.node(key, f"{pname}\n{shape(leaf)}" if show_shapes else pname, fillcolor="lightgreen")
        else:
            dot.node(key, name, fillcolor="lightgreen" if name == "AccumulateGrad" else "lightblue")
        for nxt, _ in fn.next_functions:
            if nxt is not None:
                stack.append(nxt)
                nodes.append(nxt)
    # edges: from each input's node to the node that consumes it (torchviz draws inputs above
    # outputs, so do we; backward runs them bottom-up)
    drawn = set()
    for fn in nodes:
        for nxt, _ in fn.next_functions:
            if nxt is not None and (id(nxt), id(fn)) not in drawn:
                drawn.add((id(nxt), id(fn)))
                dot.edge(seen[id(nxt)], seen[id(fn)])
    dot.edge(seen[id(tensor.grad_fn)], "output")
    return dot


# ----------------------------------------------------------------------------- embeddings

def pca_2d(vectors):
    """The rows of `vectors` (n, d) projected on their first two principal components (n, 2):
    centre, then the top two right singular vectors of the centred matrix."""
    x = _array(vectors, "pca_2d")
    if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 2:
        raise ValueError(f"pca_2d: need an (n, d) array with n >= 2 and d >= 2, got shape {x.shape}")
    x = x - x.mean(axis=0)
    _, _, vt = np.linalg.svd(x, full_matrices=False)
    return x @ vt[:2].T


def embedding_projection(vectors, labels, title="embeddings (PCA, 2-D)", groups=None, arrows=()):
    """Word vectors projected to 2-D by PCA, each point labelled with its word.

    vectors: (n, d) (e.g. kv[words]); labels: the n words; groups: optional n group names,
    one colour each; arrows: (i, j) pairs of rows to join by an arrow (king -> queen)."""
    labels = [str(w) for w in labels]
    xy = pca_2d(vectors)
    if len(labels) != xy.shape[0]:
        raise ValueError(f"embedding_projection: {len(labels)} labels for {xy.shape[0]} vectors")
    fig = Figure(figsize=(7, 6), layout="constrained")
    ax = fig.subplots()
    if groups is None:
        ax.scatter(xy[:, 0], xy[:, 1], s=12)
    else:
        groups = list(groups)
        for g in dict.fromkeys(groups):
            m = np.array([x == g for x in groups])
            ax.scatter(xy[m, 0], xy[m, 1], s=12, label=str(g))
        ax.legend(fontsize=8)
    for (x, y), w in zip(xy, labels):
        ax.annotate(w, (x, y), fontsize=8, xytext=(2, 2), textcoords="offset points")
    for i, j in arrows:
        ax.annotate("", xy=xy[j], xytext=xy[i], arrowprops={"arrowstyle": "->", "color": "gray"})
    ax.set_xlabel("PC 1")
    ax.set_ylabel("PC 2")
    ax.set_title(title)
    return fig


# ----------------------------------------------------------------------------- Shannon's bounds

def shannon_bounds_table(bounds, label="model"):
    """A text table of {N: (upper, lower)} beside Shannon's 1951 bounds (bits per letter)."""
    ref = {n: (u, l) for n, u, l in zip(SHANNON_1951["N"], SHANNON_1951["upper"], SHANNON_1951["lower"])}
    lines = [f"{'N':>4} | {label + ' upper':>12} {label + ' lower':>12} | {'Shannon upper':>13} {'Shannon lower':>13}"]
    lines.append("-" * len(lines[0]))
    for n in sorted(set(bounds) | set(ref)):
        ours = bounds.get(n)
        his = ref.get(n)
        a = f"{ours[0]:12.2f} {ours[1]:12.2f}" if ours else f"{'':12} {'':12}"
        b = f"{his[0]:13.2f} {his[1]:13.2f}" if his else f"{'':13} {'':13}"
        lines.append(f"{n:>4} | {a} | {b}")
    return "\n".join(lines)


def shannon_bounds_figure(bounds, label="model", title="Shannon's game: entropy bounds (bits per letter)"):
    """Upper and lower entropy bounds against N (symbols known, N-1 of context), beside Shannon's
    1951 bounds for English (his Fig. 4), with the numbers in a table on the right.

    bounds: {N: (upper, lower)} (e.g. from seqlab.lm.shannon_game's results), or
      {label: {N: (upper, lower)}} for several models. N = 100 is drawn at the right edge."""
    if not isinstance(bounds, dict) or not bounds:
        raise ValueError("shannon_bounds_figure: bounds must be a non-empty dict {N: (upper, lower)}")
    models = bounds if isinstance(next(iter(bounds.values())), dict) else {label: bounds}
    fig = Figure(figsize=(12, 4.5), layout="constrained")
    ax, tab = fig.subplots(1, 2, width_ratios=[3, 2])
    big = 18   # where N = 100 is drawn
    xpos = lambda n: n if n <= 15 else big   # noqa: E731
    ax.plot([xpos(n) for n in SHANNON_1951["N"]], SHANNON_1951["upper"], "k^--", label="Shannon 1951 upper")
    ax.plot([xpos(n) for n in SHANNON_1951["N"]], SHANNON_1951["lower"], "kv--", label="Shannon 1951 lower")
    for name, b in models.items():
        ns = sorted(b)
        p = ax.plot([xpos(n) for n in ns], [b[n][0] for n in ns], "^-", label=f"{name} upper")
        ax.plot([xpos(n) for n in ns], [b[n][1] for n in ns], "v:", color=p[0].get_color(), label=f"{name} lower")
    ticks = list(range(1, 16)) + [big]
    ax.set_xticks(ticks, [str(t) for t in range(1, 16)] + ["100"])
    ax.set_xlabel("N (letters known: N-1 of context + the one guessed)")
    ax.set_ylabel("bits per letter")
    ax.set_title(title)
    ax.legend(fontsize=8)
    ns = sorted(set(SHANNON_1951["N"]).union(*[set(b) for b in models.values()]))
    ref = {n: (u, l) for n, u, l in zip(SHANNON_1951["N"], SHANNON_1951["upper"], SHANNON_1951["lower"])}
    columns = ["N"] + [f"{m} up/low" for m in models] + ["Shannon up/low"]
    cells = []
    for n in ns:
        row = [str(n)]
        for b in models.values():
            row.append(f"{b[n][0]:.2f} / {b[n][1]:.2f}" if n in b else "")
        row.append(f"{ref[n][0]:.2f} / {ref[n][1]:.2f}" if n in ref else "")
        cells.append(row)
    tab.set_axis_off()
    table = tab.table(cellText=cells, colLabels=columns, loc="center")
    table.auto_set_font_size(False)
    table.set_fontsize(8)
    table.scale(1.0, 1.1)
    return fig
