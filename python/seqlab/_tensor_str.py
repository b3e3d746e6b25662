"""repr(tensor) as torch prints it (torch/_tensor_str.py's rules, with its default print options):
one width for every element; floats with 4 decimals, or as integers with a trailing '.' when all
are whole, or in scientific notation when the nonzero magnitudes span more than 1000x, exceed
1e8 or fall below 1e-4; 80 columns; more than 1000 elements summarised with '...' (3 at each edge);
then the dtype when it is not the default float dtype, int64 or bool, and grad_fn= or requires_grad=True.
set_printoptions changes those numbers as torch's does (precision, threshold, edgeitems, linewidth,
profile, sci_mode). Tests: tests/test_docs.py (reprs against torch's), tests/test_torch_switches.py."""
import math

import numpy as np


class _PrintOptions:
    """The numbers the repr reads (torch's PRINT_OPTS), changed by set_printoptions."""
    precision = 4
    threshold = 1000
    edgeitems = 3
    linewidth = 80
    sci_mode = None


PRINT_OPTS = _PrintOptions()

# torch's named profiles: (precision, threshold, edgeitems, linewidth)
_PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80), "full": (4, math.inf, 3, 80)}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None):
    """How tensors print (torch.set_printoptions): `precision` digits after the point (4),
    more than `threshold` elements summarised (1000) with `edgeitems` at each edge (3),
    `linewidth` columns (80); `profile` "default", "short" or "full" (never summarised) sets all
    four first; sci_mode True or False forces scientific notation on or off, None (which every
    call without it restores, as torch's) chooses it from the values."""
    if profile in _PROFILES:
        PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = _PROFILES[profile]
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


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
        if PRINT_OPTS.sci_mode is not None:  # forced before the width is chosen, as in torch
            self.sci_mode = PRINT_OPTS.sci_mode
        precision = PRINT_OPTS.precision
        for v in shown.tolist():
            if self.sci_mode:
                text = f"{v:.{precision}e}"
            elif self.int_mode:
                text = f"{v:.0f}."
            else:
                text = f"{v:.{precision}f}"
            self.width = max(self.width, len(text))

    def format(self, v):
        if not self.floating:
            text = str(v)
        elif self.sci_mode:
            text = f"{v:{self.width}.{PRINT_OPTS.precision}e}"
        elif self.int_mode:
            text = f"{v:.0f}" + ("" if math.isinf(v) or math.isnan(v) else ".")
        else:
            text = f"{v:.{PRINT_OPTS.precision}f}"
        return " " * (self.width - len(text)) + text


def _summarized(a):
    """The elements a summary shows: edgeitems at each end of every dim longer than 2*edgeitems."""
    edge = PRINT_OPTS.edgeitems
    if a.ndim == 0:
        return a
    if a.shape[0] > 2 * edge:
        a = np.concatenate([a[:edge], a[-edge:]])
    if a.ndim == 1:
        return a
    return np.stack([_summarized(x) for x in a])


def _vector(a, indent, summarize, fmt):
    edge = PRINT_OPTS.edgeitems
    per_line = max(1, (PRINT_OPTS.linewidth - indent) // (fmt.width + 2))  # ", " between elements
    if summarize and a.shape[0] > 2 * edge:
        items = [fmt.format(v) for v in a[:edge].tolist()] + [" ..."] + \
                [fmt.format(v) for v in a[-edge:].tolist()]
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
    edge = PRINT_OPTS.edgeitems
    if summarize and n > 2 * edge:
        rows = [_nested(a[i], indent + 1, summarize, fmt) for i in range(edge)] + ["..."] + \
               [_nested(a[i], indent + 1, summarize, fmt) for i in range(n - edge, n)]
    else:
        rows = [_nested(a[i], indent + 1, summarize, fmt) for i in range(n)]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(rows) + "]"


def _with_suffixes(text, suffixes, indent):
    """', suffix' on the last line while it fits in the line width, else on a new line."""
    parts = [text]
    last_line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line + len(suffix) + 2 > PRINT_OPTS.linewidth:
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
        summarize = values.size > PRINT_OPTS.threshold
        floating = values.dtype.kind == "f"
        fmt = _Formatter(_summarized(values) if summarize else values, floating)
        body = _nested(values, indent, summarize, fmt)
    if grad_fn_name is not None:
        suffixes.append(f"grad_fn=<{grad_fn_name}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    return _with_suffixes(prefix + body, suffixes, indent)
