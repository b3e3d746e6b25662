"""Every error path a user can hit raises the exception type torch raises, with a message that
names the op and the offending shapes / values / dims (DESIGN.md principle 5, STYLE.md rule 11).

Each case runs the same expression through torch (to get the expected exception type) and
through seqlab; the seqlab message must match the listed fragments (regex, case-insensitive).
No case may crash the interpreter. Helpers live in tests/conftest.py.
"""

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import seqlab
import seqlab.nn.functional as F
from conftest import assert_raises_like_torch


def shp(*dims):
    """Regex for a shape written as [2, 3], (2, 3) or 2x3."""
    inner = r",\s*".join(str(d) for d in dims)
    return rf"(\[{inner}\]|\({inner},?\)|\b{'x'.join(str(d) for d in dims)}\b)"


DIM_OOR = r"Dimension out of range"

# id -> (fn(lib, F) raising, regex fragments [, allowed exception types overriding torch's])
CASES = {
    # --- shape mismatch in elementwise ops: op name and both shapes
    "add-shape": (lambda lib, f: lib.add(lib.ones(2, 3), lib.ones(2, 4)), ["add", shp(2, 3), shp(2, 4)]),
    "add-operator-shape": (lambda lib, f: lib.ones(2, 3) + lib.ones(2, 4), ["add", shp(2, 3), shp(2, 4)]),
    "sub-shape": (lambda lib, f: lib.ones(2, 3) - lib.ones(3, 2), ["sub", shp(2, 3), shp(3, 2)]),
    "mul-shape": (lambda lib, f: lib.mul(lib.ones(4), lib.ones(5)), ["mul", shp(4), shp(5)]),
    "div-shape": (lambda lib, f: lib.ones(2, 3, 4) / lib.ones(3, 3), ["div", shp(2, 3, 4), shp(3, 3)]),
    "maximum-shape": (lambda lib, f: lib.maximum(lib.ones(2, 3), lib.ones(2, 4)), ["maximum", shp(2, 3), shp(2, 4)]),
    "where-shape": (lambda lib, f: lib.where(lib.ones(2, 3) > 0, lib.ones(2, 4), lib.ones(2, 3)),
                    ["where", shp(2, 4)]),
    "inplace-broadcast-to-smaller": (lambda lib, f: lib.ones(3).add_(lib.ones(2, 3)), [shp(3), shp(2, 3)]),
    "mse-shape": (lambda lib, f: f.mse_loss(lib.ones(2, 3), lib.ones(2, 4)), [shp(2, 3), shp(2, 4)]),
    # --- matmul family: op name and both shapes
    "matmul-shape": (lambda lib, f: lib.matmul(lib.ones(2, 3), lib.ones(4, 5)), ["matmul|mm", shp(2, 3), shp(4, 5)]),
    "matmul-operator-shape": (lambda lib, f: lib.ones(2, 3) @ lib.ones(4, 5), ["matmul|mm", shp(2, 3), shp(4, 5)]),
    "matmul-1d-shape": (lambda lib, f: lib.ones(3) @ lib.ones(4), ["matmul|dot", shp(3), shp(4)]),
    "matmul-batched-shape": (lambda lib, f: lib.ones(2, 2, 3) @ lib.ones(2, 4, 5),
                             ["matmul|bmm|mm", shp(2, 2, 3), shp(2, 4, 5)]),
    "matmul-0d": (lambda lib, f: lib.matmul(lib.tensor(1.0), lib.ones(2, 3)), ["matmul", r"0D|0-d|0 dim|at least 1"]),
    "matmul-dtype": (lambda lib, f: lib.ones(2, 3) @ lib.ones(3, 2, dtype=lib.float64),
                     ["matmul|mm", r"float32|\bfloat\b", r"float64|double"]),
    "matmul-dtype-int": (lambda lib, f: lib.ones(2, 3) @ lib.ones(3, 2, dtype=lib.int64),
                         ["matmul|mm", r"float32|\bfloat\b", r"int64|long"], (RuntimeError, TypeError)),
    "mm-shape": (lambda lib, f: lib.mm(lib.ones(2, 3), lib.ones(4, 5)), [r"\bmm\b", shp(2, 3), shp(4, 5)]),
    "mm-not-matrix": (lambda lib, f: lib.mm(lib.ones(3), lib.ones(3, 2)), [r"\bmm\b", r"matrix|2D|2-D"]),
    "mm-dtype": (lambda lib, f: lib.mm(lib.ones(2, 3), lib.ones(3, 2, dtype=lib.float64)),
                 [r"\bmm\b", r"float32|\bfloat\b", r"float64|double"]),
    "bmm-not-3d": (lambda lib, f: lib.bmm(lib.ones(2, 3), lib.ones(3, 2)), ["bmm", r"3D|3-D|3 dim"]),
    "bmm-batch-mismatch": (lambda lib, f: lib.bmm(lib.ones(2, 2, 3), lib.ones(3, 3, 2)),
                           ["bmm", shp(2, 2, 3), shp(3, 3, 2)]),
    "t-3d": (lambda lib, f: lib.ones(2, 3, 4).t(), [r"t\(\)", r"2 dim|<= ?2"]),
    # --- indexing: IndexError with the index and the size
    "index-int-oob": (lambda lib, f: lib.ones(2, 3)[5], [r"\b5\b", r"size 2|\b2\b", "out of (range|bounds)"]),
    "index-neg-oob": (lambda lib, f: lib.ones(2, 3)[-3], [r"-3", "out of (range|bounds)"]),
    "index-dim1-oob": (lambda lib, f: lib.ones(2, 3)[:, 3], [r"\b3\b", "out of (range|bounds)"]),
    "index-tensor-oob": (lambda lib, f: lib.ones(2, 3)[lib.tensor([0, 7])], [r"\b7\b", "out of (range|bounds)"]),
    "index-list-oob": (lambda lib, f: lib.ones(2, 3)[[1, -4]], [r"-4", "out of (range|bounds)"]),
    "index-too-many": (lambda lib, f: lib.ones(2, 3)[0, 0, 0], ["too many indices"]),
    "index-float-tensor": (lambda lib, f: lib.ones(2, 3)[lib.tensor([0.0])], [r"long|int64|integer"]),
    "index-mask-shape": (lambda lib, f: lib.ones(2, 3)[lib.ones(3, dtype=lib.bool)], ["mask", shp(3), shp(2, 3)]),
    "index-negative-step": (lambda lib, f: lib.ones(4)[::-1], [r"step"]),
    "setitem-oob": (lambda lib, f: lib.ones(2, 3).__setitem__(4, 1.0), [r"\b4\b", "out of (range|bounds)"]),
    "setitem-shape": (lambda lib, f: lib.zeros(2, 3).__setitem__(0, lib.ones(4)), [shp(3), shp(4)]),
    "gather-oob": (lambda lib, f: lib.ones(2, 3).gather(1, lib.tensor([[0], [5]])),
                   ["gather|index", r"\b5\b", r"\b3\b"], (IndexError, RuntimeError)),
    "gather-index-dtype": (lambda lib, f: lib.ones(2, 3).gather(1, lib.tensor([[0.0], [1.0]])),
                           ["gather", r"int64|long"]),
    "gather-ndim": (lambda lib, f: lib.ones(2, 3).gather(1, lib.zeros(3, dtype=lib.int64)),
                    ["gather|dimensions"]),
    "index_select-oob": (lambda lib, f: lib.ones(2, 3).index_select(1, lib.tensor([0, 5])),
                         [r"index_select|index", r"\b5\b"], (IndexError, RuntimeError)),
    "cross_entropy-target-oob": (lambda lib, f: f.cross_entropy(lib.ones(2, 3), lib.tensor([0, 5])),
                                 [r"\b5\b", "out of (range|bounds)"]),
    "nll_loss-target-oob": (lambda lib, f: f.nll_loss(lib.ones(2, 3), lib.tensor([9, 0])),
                            [r"\b9\b", "out of (range|bounds)"]),
    # --- bad dim: IndexError "Dimension out of range"
    "sum-dim": (lambda lib, f: lib.ones(2, 3).sum(dim=5), [DIM_OOR]),
    "sum-tuple-dim": (lambda lib, f: lib.ones(2, 3).sum(dim=(0, -3)), [DIM_OOR]),
    "mean-dim": (lambda lib, f: lib.ones(2, 3).mean(dim=-3), [DIM_OOR]),
    "max-dim": (lambda lib, f: lib.ones(2, 3).max(dim=2), [DIM_OOR]),
    "min-dim": (lambda lib, f: lib.min(lib.ones(2, 3), 2), [DIM_OOR]),
    "argmax-dim": (lambda lib, f: lib.ones(2, 3).argmax(dim=-3), [DIM_OOR]),
    "var-dim": (lambda lib, f: lib.ones(2, 3).var(dim=3), [DIM_OOR]),
    "transpose-dim": (lambda lib, f: lib.ones(2, 3).transpose(0, 3), [DIM_OOR]),
    "softmax-dim": (lambda lib, f: f.softmax(lib.ones(2, 3), dim=2), [DIM_OOR]),
    "log_softmax-dim": (lambda lib, f: f.log_softmax(lib.ones(2, 3), 5), [DIM_OOR]),
    "unsqueeze-dim": (lambda lib, f: lib.ones(2, 3).unsqueeze(4), [DIM_OOR]),
    "unsqueeze-neg-dim": (lambda lib, f: lib.ones(2, 3).unsqueeze(-4), [DIM_OOR]),
    "squeeze-dim": (lambda lib, f: lib.ones(2, 3).squeeze(4), [DIM_OOR]),
    "cat-dim": (lambda lib, f: lib.cat([lib.ones(2, 3), lib.ones(2, 3)], dim=3), [DIM_OOR]),
    "stack-dim": (lambda lib, f: lib.stack([lib.ones(2, 3), lib.ones(2, 3)], dim=4), [DIM_OOR]),
    "flatten-dim": (lambda lib, f: lib.ones(2, 3).flatten(0, 5), [DIM_OOR]),
    "narrow-dim": (lambda lib, f: lib.ones(2, 3).narrow(3, 0, 1), [DIM_OOR]),
    "gather-dim": (lambda lib, f: lib.ones(2, 3).gather(2, lib.zeros(2, 3, dtype=lib.int64)), [DIM_OOR]),
    "index_select-dim": (lambda lib, f: lib.ones(2, 3).index_select(2, lib.zeros(2, dtype=lib.int64)), [DIM_OOR]),
    "size-dim": (lambda lib, f: lib.ones(2, 3).size(3), [DIM_OOR]),
    "stride-dim": (lambda lib, f: lib.ones(2, 3).stride(3), [DIM_OOR]),
    "split-dim": (lambda lib, f: lib.ones(2, 3).split(1, dim=2), [DIM_OOR]),
    "chunk-dim": (lambda lib, f: lib.ones(2, 3).chunk(2, dim=-3), [DIM_OOR]),
    "sum-dup-dims": (lambda lib, f: lib.ones(2, 3).sum(dim=(0, 0)), [r"\b0\b", "multiple|duplicate|twice"]),
    # --- view / reshape / expand / permute
    "view-non-viewable": (lambda lib, f: lib.ones(2, 3).t().view(6), ["view", r"reshape|stride|contiguous"]),
    "view-bad-numel": (lambda lib, f: lib.ones(2, 3).view(4, 2), [shp(4, 2), r"\b6\b"]),
    "reshape-bad-numel": (lambda lib, f: lib.ones(2, 3).reshape(4, 2), [shp(4, 2), r"\b6\b"]),
    "reshape-bad-infer": (lambda lib, f: lib.ones(2, 3).reshape(4, -1), [shp(4, -1), r"\b6\b"]),
    "view-two-minus-one": (lambda lib, f: lib.ones(2, 3).view(-1, -1), [r"one dimension|infer"]),
    "expand-bad": (lambda lib, f: lib.ones(2, 3).expand(2, 4), ["expand", shp(2, 3), shp(2, 4)]),
    "expand-fewer-dims": (lambda lib, f: lib.ones(2, 3).expand(3), ["expand", shp(2, 3)]),
    "permute-wrong-len": (lambda lib, f: lib.ones(2, 3).permute(0, 1, 2), ["permute"]),
    "permute-duplicate": (lambda lib, f: lib.ones(2, 3).permute(0, 0), ["permute", "duplicate|repeat|unique"]),
    "narrow-exceeds": (lambda lib, f: lib.ones(2, 3).narrow(1, 2, 2), [r"narrow|exceeds", r"\b3\b"]),
    # --- cat / stack / split / chunk
    "cat-shape": (lambda lib, f: lib.cat([lib.ones(2, 3), lib.ones(2, 4)], 0), ["cat", r"\b3\b", r"\b4\b"]),
    "cat-ndim": (lambda lib, f: lib.cat([lib.ones(2, 3), lib.ones(3)]), ["cat|dimensions", r"\b2\b", r"\b1\b"]),
    "cat-empty-list": (lambda lib, f: lib.cat([]), ["cat", "empty"]),
    "stack-shape": (lambda lib, f: lib.stack([lib.ones(2, 3), lib.ones(2, 4)]), ["stack", shp(2, 3), shp(2, 4)]),
    "stack-empty-list": (lambda lib, f: lib.stack([]), ["stack", "empty"]),
    "split-size-0": (lambda lib, f: lib.ones(2, 3).split(0, 1), ["split"]),
    "split-sizes-sum": (lambda lib, f: lib.ones(2, 3).split([1, 1], dim=1), ["split", r"\b3\b"]),
    "chunk-0": (lambda lib, f: lib.ones(2, 3).chunk(0), ["chunk", r"\b0\b"]),
    # --- reductions on empty / wrong dtype
    "max-empty": (lambda lib, f: lib.zeros(0, 3).max(), ["max", r"numel|empty|dim"]),
    "mean-int": (lambda lib, f: lib.arange(3).mean(), ["mean", r"dtype|float|long|int64"]),
    # --- dtype requirements
    "where-cond-dtype": (lambda lib, f: lib.where(lib.ones(2, 3), lib.ones(2, 3), lib.ones(2, 3)),
                         ["where", r"bool"]),
    "masked_fill-mask-dtype": (lambda lib, f: lib.ones(2, 3).masked_fill(lib.ones(2, 3), 0.0),
                               ["masked_fill", "bool"]),
    "invert-float": (lambda lib, f: ~lib.ones(2, 3), [r"~|invert|bool|integer"], (TypeError, RuntimeError)),
    "and-float": (lambda lib, f: lib.ones(2) & lib.ones(2), [r"and|&|bool|integer"], (TypeError, RuntimeError)),
    "neg-bool": (lambda lib, f: -lib.ones(2, dtype=lib.bool), ["bool", r"neg|-"]),
    "int-negative-pow": (lambda lib, f: lib.tensor([2, 3]) ** -1, [r"negative"]),
    # kernels torch does not have (NotImplementedError), integer division by zero,
    # results an integer tensor cannot hold
    "floor-bool": (lambda lib, f: lib.floor(lib.ones(2, dtype=lib.bool)), [r'"floor_vml_cpu" not implemented', "Bool"]),
    "round-bool": (lambda lib, f: lib.ones(2, dtype=lib.bool).round(), [r'"round_vml_cpu" not implemented', "Bool"]),
    "round-decimals-int": (lambda lib, f: lib.arange(3).round(decimals=2), [r'"round_cpu" not implemented', "Long"]),
    "frac-int": (lambda lib, f: lib.arange(3).frac(), [r'"frac_cpu" not implemented', "Long"]),
    "remainder-bool": (lambda lib, f: lib.remainder(lib.ones(2, dtype=lib.bool), True),
                       [r'"remainder_cpu" not implemented', "Bool"]),
    "fmod-bool": (lambda lib, f: lib.ones(2, dtype=lib.bool).fmod(lib.ones(2, dtype=lib.bool)),
                  [r'"fmod_cpu" not implemented', "Bool"]),
    "remainder-int-by-0": (lambda lib, f: lib.arange(3) % 0, ["ZeroDivisionError"]),
    "fmod-int-by-0": (lambda lib, f: lib.fmod(lib.arange(3), lib.tensor([1, 0, 2])), ["ZeroDivisionError"]),
    "number-remainder-int-by-0": (lambda lib, f: 5 % lib.tensor([1, 0]), ["ZeroDivisionError"]),
    "remainder-shape": (lambda lib, f: lib.remainder(lib.ones(2, 3), lib.ones(2, 4)),
                        ["remainder", shp(2, 3), shp(2, 4)]),
    "fmod-shape": (lambda lib, f: lib.ones(4).fmod(lib.ones(5)), ["fmod", shp(4), shp(5)]),
    "sin_-int": (lambda lib, f: lib.arange(3).sin_(),
                 ["result type Float can't be cast to the desired output type Long"]),
    "log2_-bool": (lambda lib, f: lib.ones(2, dtype=lib.bool).log2_(),
                   ["result type Float can't be cast to the desired output type Bool"]),
    "remainder_-int-by-float": (lambda lib, f: lib.arange(3).remainder_(2.5),
                                ["result type Float can't be cast to the desired output type Long"]),
    "imod-int-by-float": (lambda lib, f: lib.arange(3).__imod__(1.5),
                          ["result type Float can't be cast to the desired output type Long"]),
    "number-remainder-backward": (lambda lib, f: (3 % lib.ones(2, requires_grad=True)).sum().backward(),
                                  ["derivative for aten::remainder is not implemented"]),
    "fmod-number-first": (lambda lib, f: lib.fmod(3, lib.ones(2)), ["fmod", "Tensor"]),
    "remainder-str": (lambda lib, f: lib.ones(2).remainder("a"), ["remainder", r"\bstr\b"]),
    "requires_grad-int": (lambda lib, f: lib.ones(3, dtype=lib.int64).requires_grad_(), ["floating point"]),
    "tensor-requires_grad-int": (lambda lib, f: lib.tensor([1, 2], requires_grad=True), ["floating point"]),
    "cross_entropy-target-dtype": (lambda lib, f: f.cross_entropy(lib.ones(2, 3), lib.zeros(2)),
                                   [r"target", r"long|int64"]),
    # --- losses
    "cross_entropy-batch": (lambda lib, f: f.cross_entropy(lib.ones(2, 3), lib.tensor([0, 1, 2])),
                            [r"batch", r"\b2\b", r"\b3\b"]),
    "cross_entropy-reduction": (lambda lib, f: f.cross_entropy(lib.ones(2, 3), lib.tensor([0, 1]), reduction="foo"),
                                ["foo", "reduction"]),
    "cross_entropy-weight-shape": (lambda lib, f: f.cross_entropy(lib.ones(2, 3), lib.tensor([0, 1]),
                                                                  weight=lib.ones(4)), ["weight", r"\b3\b", shp(4)]),
    "cross_entropy-label_smoothing": (lambda lib, f: f.cross_entropy(lib.ones(2, 3), lib.tensor([0, 1]),
                                                                     label_smoothing=1.5), ["label_smoothing", "1.5"]),
    "mse-reduction": (lambda lib, f: f.mse_loss(lib.ones(2), lib.ones(2), reduction="bad"), ["bad", "reduction"]),
    "bce-shape": (lambda lib, f: f.binary_cross_entropy_with_logits(lib.ones(2, 3), lib.ones(2, 4)),
                  [shp(2, 3), shp(2, 4)]),
    "dropout-p": (lambda lib, f: f.dropout(lib.ones(2), p=1.5), ["dropout", "1.5"]),
    "gelu-approximate": (lambda lib, f: f.gelu(lib.ones(2), approximate="foo"), ["approximate", "tanh"]),
    "tril-1d": (lambda lib, f: lib.tril(lib.ones(3)), ["tril", r"2 dim|at least 2|2D"]),
    "triu-1d": (lambda lib, f: lib.ones(3).triu(), ["triu", r"2 dim|at least 2|2D"]),
    # --- creation
    "zeros-negative": (lambda lib, f: lib.zeros(-1, 2), [r"negative|non-negative", r"-1"]),
    "ones-negative": (lambda lib, f: lib.ones(2, -3), [r"negative|non-negative", r"-3"]),
    "randn-negative": (lambda lib, f: lib.randn(-2), [r"negative|non-negative", r"-2"]),
    "full-negative": (lambda lib, f: lib.full((-1,), 1.0), [r"negative|non-negative", r"-1"]),
    "eye-negative": (lambda lib, f: lib.eye(-1), [r"-1"]),
    "arange-step-0": (lambda lib, f: lib.arange(0, 5, 0), ["step", "zero|nonzero|non-zero|0"]),
    "randint-empty-range": (lambda lib, f: lib.randint(5, 5, (3,)), [r"\b5\b"]),
    "tensor-ragged": (lambda lib, f: lib.tensor([[1, 2], [3]]), [r"length|sequence|ragged|shape"]),
    "tensor-str": (lambda lib, f: lib.tensor("abc"), [r"str"]),
    "from_numpy-negative-stride": (lambda lib, f: lib.from_numpy(np.arange(5.0)[::-1]), ["stride", "negative"]),
    "from_numpy-object-dtype": (lambda lib, f: lib.from_numpy(np.array([object()])), ["object"]),
    # --- special functions (seqlab.special; tests/test_special.py)
    "polygamma-negative-n": (lambda lib, f: lib.polygamma(-1, lib.ones(2)), [r"polygamma\(n, x\)", "negative n"]),
    "mvlgamma-p": (lambda lib, f: lib.mvlgamma(lib.ones(2), 0), ["p has to be greater than or equal to 1"]),
    "mvlgamma-bool": (lambda lib, f: lib.mvlgamma(lib.ones(2) > 0, 1), ["may not be a boolean tensor"]),
    "igamma-integer": (lambda lib, f: lib.igamma(lib.ones(2).long(), lib.ones(2).long()),
                       [r"igamma_cpu.*not implemented for 'Long'"]),
    "lgamma_-integer": (lambda lib, f: lib.ones(2).long().lgamma_(), ["can't be cast", "Long"]),
    "zeta-backward-x": (lambda lib, f: lib.special.zeta(lib.ones(2, requires_grad=True), lib.ones(2)).sum().backward(),
                        ["the derivative for 'zeta' is not implemented"]),
    "gammainc-backward-a": (lambda lib, f: lib.special.gammainc(lib.ones(2, requires_grad=True), lib.ones(2))
                            .sum().backward(), ["the derivative for 'igamma: input' is not implemented"]),
    # --- conversions
    "dlpack-export-requires-grad": (lambda lib, f: torch.from_dlpack(lib.ones(2, requires_grad=True)),
                                    [r"dlpack|export", "grad", "detach"]),
    "numpy-requires-grad": (lambda lib, f: lib.ones(2, requires_grad=True).numpy(),
                            [r"requires[_ ]grad", "detach"]),
    "item-multi-element": (lambda lib, f: lib.ones(2, 3).item(), [r"\b6\b", r"element|scalar"]),
}

# --- the scatter family: its cases are listed once, in tests/test_scatter.py
from test_scatter import ERRORS as SCATTER_ERRORS  # noqa: E402

CASES.update({name: (lambda lib, f, fn=fn: fn(lib), frags) for name, (fn, frags) in SCATTER_ERRORS.items()})


def _case(name):
    entry = CASES[name]
    fn, frags = entry[0], entry[1]
    types = entry[2] if len(entry) > 2 else None
    return fn, frags, types


@pytest.mark.parametrize("name", list(CASES))
def test_error(name):
    fn, frags, types = _case(name)
    if types is None:
        assert_raises_like_torch(lambda: fn(seqlab, F), lambda: fn(torch, TF), *frags)
    else:
        import re
        import warnings
        with pytest.raises(Exception), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn(torch, TF)  # the case is an error in torch too
        with pytest.raises(types) as info:
            fn(seqlab, F)
        for frag in frags:
            assert re.search(frag, str(info.value), flags=re.IGNORECASE), \
                f"message {str(info.value)!r} does not match {frag!r}"


def test_errors_leave_operands_usable():
    """A failed op neither corrupts its inputs nor the autograd state."""
    a = seqlab.ones(2, 3, requires_grad=True)
    b = seqlab.ones(2, 4)
    with pytest.raises(RuntimeError):
        a + b
    with pytest.raises(RuntimeError):
        a @ b
    (a * 2.0).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), np.full((2, 3), 2.0, dtype=np.float32))
    assert seqlab.is_grad_enabled()


def test_error_inside_no_grad_restores_mode():
    with pytest.raises(RuntimeError):
        with seqlab.no_grad():
            seqlab.ones(2, 3) @ seqlab.ones(4, 5)
    assert seqlab.is_grad_enabled()


def test_backward_errors():
    x = seqlab.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (x * 2.0).backward()
    with pytest.raises(RuntimeError, match=r"does not require grad"):
        seqlab.ones(3).sum().backward()
    y = x * 2.0
    with pytest.raises(RuntimeError, match=r"(?i)shape|size|mismatch"):
        y.backward(seqlab.ones(4))
