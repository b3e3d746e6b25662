"""repr(tensor) as torch prints it (torch/_tensor_str.py's rules, with its default print options):
one width for every element; floats with 4 decimals, or as integers with a trailing '.' when all
are whole, or in scientific notation when the nonzero magnitudes span more than 1000x, exceed
1e8 or fall below 1e-4; 80 columns; more than 1000 elements summarised with '...' (3 at each edge);
then the dtype when it is not float32, int64 or bool, and grad_fn= or requires_grad=True.
Tests: tests/test_docs.py (reprs against torch's)."""
import math

import numpy as np

PRECISION = 4
THRESHOLD = 1000
EDGEITEMS = 3
LINEWIDTH = 80


class _Formatter:
    """Chooses the notation and the common width from the values that will be shown."""

    def __init__(self, values, floating):
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        flat = values.reshape(-1)
        if not floating:
            for v in flat.tolist():
                self.width = max(self.width, len(str(v)))
            return
        shown = flat[np.isfinite(flat) & (flat != 0)]
        if shown.size == 0:
            return
        magnitudes = np.abs(shown).astype(np.float64)
        lo, hi = magnitudes.min(), magnitudes.max()
        self.int_mode = bool(np.all(shown == np.ceil(shown)))
        spread = hi / lo > 1000.0 or hi > 1.0e8
        self.sci_mode = spread if self.int_mode else (spread or lo < 1.0e-4)
        for v in shown.tolist():
            if self.sci_mode:
                text = f"{v:.{PRECISION}e}"
            elif self.int_mode:
                text = f"{v:.0f}."
            else:
                text = f"{v:.{PRECISION}f}"
            self.width = max(self.width, len(text))

    def format(self, v):
        if not self.floating:
            text = str(v)
        elif self.sci_mode:
            text = f"{v:{self.width}.{PRECISION}e}"
        elif self.int_mode:
            text = f"{v:.0f}" + ("" if math.isinf(v) or math.isnan(v) else ".")
        else:
            text = f"{v:.{PRECISION}f}"
        return " " * (self.width - len(text)) + text


def _summarized(a):
    """The elements a summary shows: EDGEITEMS at each end of every dim longer than 2*EDGEITEMS."""
    if a.ndim == 0:
        return a
    if a.shape[0] > 2 * EDGEITEMS:
        a = np.concatenate([a[:EDGEITEMS], a[-EDGEITEMS:]])
    if a.ndim == 1:
        return a
    return np.stack([_summarized(x) for x in a])


def _vector(a, indent, summarize, fmt):
    per_line = max(1, (LINEWIDTH - indent) // (fmt.width + 2))  # ", " between elements
    if summarize and a.shape[0] > 2 * EDGEITEMS:
        items = [fmt.format(v) for v in a[:EDGEITEMS].tolist()] + [" ..."] + \
                [fmt.format(v) for v in a[-EDGEITEMS:].tolist()]
    else:
        items = [fmt.format(v) for v in a.tolist()]
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested(a, indent, summarize, fmt):
    if a.ndim == 0:
        return fmt.format(a.item())
    if a.ndim == 1:
        return _vector(a, indent, summarize, fmt)
    n = a.shape[0]
    if summarize and n > 2 * EDGEITEMS:
        rows = [_nested(a[i], indent + 1, summarize, fmt) for i in range(EDGEITEMS)] + ["..."] + \
               [_nested(a[i], indent + 1, summarize, fmt) for i in range(n - EDGEITEMS, n)]
    else:
        rows = [_nested(a[i], indent + 1, summarize, fmt) for i in range(n)]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(rows) + "]"


def _with_suffixes(text, suffixes, indent):
    """', suffix' on the last line while it fits in LINEWIDTH, else on a new line."""
    parts = [text]
    last_line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line + len(suffix) + 2 > LINEWIDTH:
            parts.append(",\n" + " " * indent + suffix)
            last_line = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line += len(suffix) + 2
    return "".join(parts) + ")"


def tensor_repr(values, dtype, dtype_name, default_dtypes, grad_fn_name, requires_grad):
    """`values` a NumPy array of the tensor's elements; default_dtypes those printed without dtype=."""
    prefix = "tensor("
    indent = len(prefix)
    suffixes = []
    if values.size == 0:
        if values.ndim != 1:
            suffixes.append("size=" + str(tuple(values.shape)))
        if dtype != default_dtypes[0]:  # no element shows whether it is an integer
            suffixes.append("dtype=" + dtype_name)
        body = "[]"
    else:
        if dtype not in default_dtypes:
            suffixes.append("dtype=" + dtype_name)
        summarize = values.size > THRESHOLD
        floating = values.dtype.kind == "f"
        fmt = _Formatter(_summarized(values) if summarize else values, floating)
        body = _nested(values, indent, summarize, fmt)
    if grad_fn_name is not None:
        suffixes.append(f"grad_fn=<{grad_fn_name}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    return _with_suffixes(prefix + body, suffixes, indent)
