"""The course notebooks (notebooks/*.ipynb), each executed end to end in a real Jupyter kernel.

Each notebook runs in fast mode (SEQLAB_FAST=1: smaller data, fewer steps) in a plain kernel, as
a student starts one (no backend forced: the kernel's own inline backend), in notebooks/ as its
working directory; any error, failed assert included, fails its test with the cell and the
traceback. Every cell that draws a figure must show it as an image, and no output may be a
figure's text ("<Figure size 700x400 with 1 Axes>", what a figure made without pyplot printed
before seqlab.viz's figures displayed themselves). Every notebook ends with asserts of the claims
it shows, so a green run means the claims held, not only that the code ran.

Measured fast-mode times on the 2-core development machine (Intel Xeon family 6 model 167,
quiet; kernel start included): 01_autograd 4 s, 02_ngrams 5 s, 03_shannon_game 7 s,
04_embeddings 13 s, 05_recurrent 12 s, 06_rnn_lm 17 s, 07_seq2seq_attention 10 s,
08_transformers 16 s, 09_positional 10 s, 10_pretrained 15 s, 11_scale_out 12 s,
12_convolutions_and_embeddings 16 s; 145 s for this file. Inside the whole suite with other jobs
loading the cores they take up to about twice as long. Each stays under 30 s on a quiet machine.
The full mode (what a class runs) states its time at the top of each notebook.
"""
import pathlib
import re

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

NOTEBOOKS = pathlib.Path(__file__).resolve().parent.parent / "notebooks"
PATHS = sorted(NOTEBOOKS.glob("*.ipynb"))
CELL_TIMEOUT = 300   # seconds: a hang guard, far above any cell's fast-mode time
# A cell that draws: a figure of seqlab.viz (its tables and the autograd graph aside), pyplot, or
# the length-generalisation plot.
PLOTS = re.compile(r"viz\.(attention_heatmap|grad_norms_through_time|training_curves|embedding_projection|pca_2d|"
                   r"shannon_bounds_figure|autograd_graph)\(|plt\.(show|subplots|figure)\(|lg\.plot\(")
FIGURE_TEXT = re.compile(r"<(Figure size|graphviz\.)")


def test_there_are_notebooks():
    assert len(PATHS) >= 1, f"no notebooks found in {NOTEBOOKS}"


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_notebook_is_committed_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, \
                f"{path.name}: cell {i} has outputs; clear them before committing"


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_notebook_runs_and_its_claims_hold(path, monkeypatch):
    # The kernel inherits the environment: fast mode, no GUI backend, one BLAS/pool size for
    # all notebooks (2 cores shared with pytest itself).
    monkeypatch.setenv("SEQLAB_FAST", "1")
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel's default, as a student's
    nb = nbformat.read(path, as_version=4)
    first = nb.cells[0]
    assert first.cell_type == "markdown" and "full mode" in first.source.lower(), \
        f"{path.name}: the first cell must say what the notebook shows and its full-mode time"
    client = NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name="python3",
                            resources={"metadata": {"path": str(NOTEBOOKS)}})
    try:
        client.execute()
    except CellExecutionError as e:
        pytest.fail(f"{path.name} failed:\n{e}", pytrace=False)
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        shown = [o for o in cell.outputs if o.output_type in ("display_data", "execute_result")]
        images = [o for o in shown if {"image/png", "image/svg+xml"} & set(o.get("data", {}))]
        if PLOTS.search(cell.source):
            assert images, f"{path.name}: cell {i} draws a figure but shows no image:\n{cell.source}"
        pictures = [str(o["data"].get("image/png", o["data"].get("image/svg+xml"))) for o in images]
        assert len(set(pictures)) == len(pictures), f"{path.name}: cell {i} shows the same figure twice"
        for o in cell.outputs:  # a figure shown only as its text (its image, when it has one, is shown instead)
            if o in images:
                continue
            text = o.get("text", "") + o.get("data", {}).get("text/plain", "")
            assert not FIGURE_TEXT.search(text), f"{path.name}: cell {i} shows a figure as text: {text[:200]!r}"
    # the claims are asserted in the last code cell
    last = [c for c in nb.cells if c.cell_type == "code"][-1]
    assert "assert" in last.source, f"{path.name}: the last code cell must assert the notebook's claims"
