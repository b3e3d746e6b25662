"""float16 and bfloat16 through seqlab's ops, against torch 2.13 on CPU: result dtype, values,
gradients of 16-bit leaves, type promotion with other dtypes, and the ops torch refuses for them.
Follows torch's reduced-precision CPU semantics (each op computed in float32, rounded once); the
machinery is cpp/python/bind_reduced_float.hpp and python/seqlab/_reduced_float.py.

Tolerances are in ulps of the 16-bit type (eps = 2^-10 for float16, 2^-7 for bfloat16), scaled by
the largest |expected| of the output: 0 means bit-equal. An elementwise op computed in float32 and
rounded once is bit-equal to torch's. Where torch's kernel accumulates in another order (sums over a
dimension, matmul blocks, reductions inside norms and losses), or rounds an intermediate of a
composite op to 16 bits (torch's half backward is a chain of 16-bit kernels, seqlab's runs in float32
down to the leaf), the two float32 results differ in their last bits and a few ulps are allowed.
"""
import inspect
import warnings
import zlib

import pytest
import torch
import torch.nn.functional as TF

import seqlab
import seqlab.nn.functional as SF

# seqlab's 16-bit dtypes, as the C++ core names them
HALF_DTYPES = [
    pytest.param(torch.float16, seqlab._core.dtype.float16, id="f16"),
    pytest.param(torch.bfloat16, seqlab._core.dtype.bfloat16, id="bf16"),
]
_SL_OF = {
    torch.float16: seqlab._core.dtype.float16, torch.bfloat16: seqlab._core.dtype.bfloat16,
    torch.float32: seqlab.float32, torch.float64: seqlab.float64, torch.int64: seqlab.int64,
    torch.int32: seqlab.int32, torch.int16: seqlab.int16, torch.int8: seqlab.int8, torch.uint8: seqlab.uint8,
    torch.bool: seqlab.bool,
}
_TH_OF = {str(v): k for k, v in _SL_OF.items()}


def sl(t, requires_grad=False):
    """The seqlab tensor with torch tensor t's values and dtype (16-bit values pass exactly through float32)."""
    t = t.detach()
    if t.dtype in (torch.float16, torch.bfloat16):
        out = seqlab.from_numpy(t.float().numpy().copy()).to(_SL_OF[t.dtype])
    else:
        out = seqlab.from_numpy(t.numpy().copy())
    return out.requires_grad_() if requires_grad else out


def th(s):
    """The torch tensor with seqlab tensor s's values and dtype."""
    s = s.detach()
    dtype = _TH_OF[str(s.dtype)]
    if dtype in (torch.float16, torch.bfloat16):
        return torch.from_numpy(s.float().numpy().copy()).to(dtype)
    return torch.from_numpy(s.numpy().copy())


def _flat(out):
    if isinstance(out, (tuple, list)):
        return [x for o in out for x in _flat(o)]
    return [out]


def assert_same(got, expected, ulps=0, what=""):
    """got (seqlab) has expected's (torch) dtype, shape and values, within `ulps` ulps of the 16-bit
    type scaled by max |expected| (0: bit-equal, NaN where torch has NaN)."""
    assert str(got.dtype) == str(_SL_OF[expected.dtype]), f"{what}: dtype {got.dtype}, torch {expected.dtype}"
    assert tuple(got.shape) == tuple(expected.shape), f"{what}: shape {tuple(got.shape)}, torch {tuple(expected.shape)}"
    g, e = th(got), expected.detach()
    if not e.is_floating_point():
        assert torch.equal(g, e), f"{what}: {g.tolist()} != torch {e.tolist()}"
        return
    g, e = g.double(), e.double()
    assert torch.equal(g.isnan(), e.isnan()), f"{what}: NaN at other places: {g.tolist()} vs torch {e.tolist()}"
    g, e = g.nan_to_num(0.0, 1e300, -1e300), e.nan_to_num(0.0, 1e300, -1e300)
    if ulps == 0:
        assert torch.equal(g, e), f"{what}: not bit-equal, max diff {(g - e).abs().max().item():.3g}"
        return
    finite = e.abs() < 1e300
    scale = e[finite].abs().max().item() if finite.any() else 1.0
    bound = ulps * torch.finfo(expected.dtype).eps * max(scale, torch.finfo(expected.dtype).tiny)
    diff = (g - e).abs().max().item() if g.numel() else 0.0
    assert diff <= bound, f"{what}: max diff {diff:.3g} > {ulps} ulps ({bound:.3g})"


def run(fn, make, tdt, grad=True, ulps=0, grad_ulps=4, seed=0):
    """fn(lib, *args) on torch's args from make(tdt, generator) and on seqlab copies of them: the
    outputs agree, and so do the gradients of the 16-bit leaves for a random cotangent (grad: True
    for every 16-bit argument, or the indices of the arguments that require grad)."""
    g = torch.Generator().manual_seed(seed)
    args = make(tdt, g)
    leaf = [(grad is True or grad and i in grad) and isinstance(a, torch.Tensor) and a.dtype == tdt
            for i, a in enumerate(args)]
    t_args = [a.detach().clone().requires_grad_() if l else a for a, l in zip(args, leaf)]
    s_args = [sl(a, l) if isinstance(a, torch.Tensor) else a for a, l in zip(args, leaf)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_out, s_out = _flat(fn(torch, *t_args)), _flat(fn(seqlab, *s_args))
    assert len(s_out) == len(t_out)
    for i, (s, t) in enumerate(zip(s_out, t_out)):
        assert_same(s, t, ulps, f"output {i}")
    if not any(leaf):
        return
    t_loss, s_loss = 0, 0
    for s, t in zip(s_out, t_out):
        if t.requires_grad:
            w = torch.randn(t.shape, generator=g).to(t.dtype)   # d loss / d out = w exactly in both
            t_loss = t_loss + (t * w).sum().float()
            s_loss = s_loss + (s * sl(w)).sum().float()
    if isinstance(t_loss, int):
        return
    t_loss.backward()
    s_loss.backward()
    for i, (s, t, l) in enumerate(zip(s_args, t_args, leaf)):
        if not l:
            continue
        if t.grad is None:
            assert s.grad is None or not th(s.grad).any(), f"grad {i}: torch has none"
            continue
        assert s.grad is not None, f"grad {i}: seqlab has none"
        assert_same(s.grad, t.grad, grad_ulps, f"grad of input {i}")


def rand(tdt, g, *shape, low=-2.0, high=2.0):
    return (torch.rand(shape, generator=g) * (high - low) + low).to(tdt)


# ----------------------------------------------------------------------------------------
# A sweep over every name seqlab shares with torch's namespaces: called on one or two 16-bit
# tensors (values in (0.2, 1.8), inside most domains), each op that torch runs must give the same
# result and gradient in seqlab, and an op torch refuses must be refused with the same exception.
# ----------------------------------------------------------------------------------------

NAMESPACES = {
    "torch": (torch, seqlab), "Tensor": (torch.Tensor, seqlab.Tensor), "F": (TF, SF),
    "special": (torch.special, seqlab.special), "linalg": (torch.linalg, seqlab.linalg),
}
# random, or not an op on the values, or a creation/conversion/storage function (their 16-bit
# forms are tested in tests/test_half_tensors.py)
SWEEP_SKIP = set("""
    rand_like randn_like randint_like bernoulli bernoulli_ dropout alpha_dropout feature_alpha_dropout
    dropout1d dropout2d dropout3d rrelu rrelu_ normal normal_ uniform_ exponential_ geometric_ cauchy_
    log_normal_ random_ multinomial poisson gumbel_softmax empty_like new_empty empty_strided new
    new_tensor tensor as_tensor asarray from_numpy requires_grad_ retain_grad register_hook
    resize_ resize_as_ set_ share_memory_ data_ptr untyped_storage storage pin_memory
    numpy tolist item backward detach_ record_stream apply_ map_ map2_ zero_ fill_ copy_
    set_default_dtype set_default_tensor_type manual_seed seed use_deterministic_algorithms
    is_nonzero __bool__ __float__ __int__ __index__ __len__ __iter__ __hash__ __reduce_ex__
    __deepcopy__ __setstate__ __array__ __dlpack__ __dlpack_device__
""".split()) | {
    # seqlab differs from torch here in float32 too, so not a 16-bit question: where(x) (the one-argument
    # nonzero form), histogram(x) without bins, repeat_interleave(x) (the repeats-as-input form), the
    # logical_*_ methods on a leaf that requires grad, nextafter's requires_grad, binomial(x, x) with
    # probabilities above 1, multilabel_margin_loss on a float target (which of two errors comes first)
    "where", "histogram", "repeat_interleave", "logical_and_", "logical_or_", "logical_xor_", "logical_not_",
    # called without indexing= / dim= they give torch's one-time deprecation warnings, which
    # tests/test_torch_functions.py checks: CASES calls them with the argument
    "meshgrid", "cross",
    "nextafter", "nextafter_", "binomial", "multilabel_margin_loss",
    # matrix_rank(A, tol) (torch's deprecated positional tol)
    "matrix_rank",
    # torch's own 16-bit matrix_exp gives inf and NaN (its series runs in 16 bits): CASES compares
    # seqlab's with torch's float32 one rounded once
    "matrix_exp",
}
# ops whose torch kernel differs from one float32 computation rounded once; the ulps allowed
SWEEP_ULPS = {
    # sums and products over a dimension: torch's vectorized order
    "sum": 2, "nansum": 2, "mean": 2, "nanmean": 2, "prod": 2, "cumsum": 2, "cumprod": 2,
    "var": 2, "std": 2, "var_mean": 2, "std_mean": 2, "logsumexp": 2, "logcumsumexp": 2, "norm": 2,
    "trace": 2, "dist": 2, "softmax": 2, "log_softmax": 2, "softmin": 2, "matrix_norm": 2,
    "vector_norm": 2, "trapezoid": 2, "trapz": 2, "cumulative_trapezoid": 2,
    "normalize": 2, "cosine_similarity": 2, "pairwise_distance": 2, "cdist": 2,
    "mm": 2, "matmul": 2, "inner": 2, "outer": 0, "dot": 2, "vdot": 2, "mv": 2, "tensordot": 2,
    "chain_matmul": 2, "multi_dot": 2, "__matmul__": 2, "__rmatmul__": 2, "kron": 0, "einsum": 2,
    # seqlab's float32 kernel differs from torch's in the last float32 bits, which rounding to 16 bits
    # shows where a value is near a tie
    "tanhshrink": 1, "rsqrt": 1, "rsqrt_": 1, "erf": 1, "digamma": 1, "polygamma": 1, "i0e": 1,
    # losses: a mean or sum over the elements
    "mse_loss": 2, "l1_loss": 2, "smooth_l1_loss": 2, "huber_loss": 2, "soft_margin_loss": 2,
    "multilabel_soft_margin_loss": 2, "binary_cross_entropy": 2, "binary_cross_entropy_with_logits": 2,
    "kl_div": 2, "poisson_nll_loss": 2, "hinge_embedding_loss": 2, "cross_entropy": 2, "nll_loss": 2,
    "margin_ranking_loss": 2, "cosine_embedding_loss": 2, "triplet_margin_loss": 2,
    # torch composes these of 16-bit ops, rounding an intermediate: softsign is input / (1 + |input|)
    # with the divisor rounded, ldexp is input * 2**other with the power rounded,
    # and its Half logit kernel computes x / (1 - x) with 1 - x rounded
    "softsign": 1, "ldexp": 1, "ldexp_": 1, "logit": 1, "logit_": 1,
    # and its Half xlog1py and entr round log1p(other) and log(input) to 16 bits before the product
    "xlog1py": 1, "entr": 1,
}
# histc: torch finds an element's bin in 16-bit arithmetic, seqlab in float32, so an element within
# rounding of a bin edge may be counted in the neighbouring bin: each count within 1, the total equal
HISTC = {"histc"}


def _sweep_cases():
    cases = []
    for ns, (tobj, sobj) in NAMESPACES.items():
        for name in sorted(dir(tobj)):
            if name.startswith("_") and name not in ("__add__", "__sub__", "__mul__", "__truediv__", "__pow__",
                                                      "__matmul__", "__rsub__", "__rtruediv__", "__rpow__",
                                                      "__neg__", "__abs__", "__lt__", "__eq__", "__floordiv__",
                                                      "__mod__", "__iadd__", "__isub__", "__imul__", "__itruediv__"):
                continue
            # set_* change global state (print options, default device, autocast): called with
            # tensors they would leave it broken for every later test
            if name in SWEEP_SKIP or name.startswith("set_") or not hasattr(sobj, name):
                continue
            f = getattr(tobj, name, None)
            if not callable(f) or inspect.isclass(f):
                continue
            cases.append(f"{ns}.{name}")
    return cases


SWEEP = _sweep_cases()


def _torch_try(f, args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return f(*args), None
        except Exception as e:  # noqa: BLE001 - which exception torch raises is what is compared
            return None, e


@pytest.mark.parametrize("tdt,sdt", HALF_DTYPES)
@pytest.mark.parametrize("arity", [1, 2])
def test_sweep_against_torch(tdt, sdt, arity):
    """Every shared name called as f(x) and f(x, y) on 3x4 16-bit tensors (x also as a 4x4 for the
    square-matrix ops)."""
    failures, compared = [], 0
    for case in SWEEP:
        ns, name = case.split(".")
        tobj, sobj = NAMESPACES[ns]
        g = torch.Generator().manual_seed(zlib.crc32(case.encode()))
        shape = (4, 4) if ns == "linalg" else (3, 4)
        xs = [(torch.rand(shape, generator=g) * 1.6 + 0.2).to(tdt) for _ in range(arity)]
        t_args = [x.clone().requires_grad_() for x in xs]
        t_out, t_err = _torch_try(getattr(tobj, name), t_args)
        if t_err is not None and "requires grad" in str(t_err) or isinstance(t_err, RuntimeError) and (
                "leaf Variable" in str(t_err) or "a view of a leaf" in str(t_err)):
            t_args = [x.clone() for x in xs]       # an in-place op: not on a leaf that requires grad
            t_out, t_err = _torch_try(getattr(tobj, name), t_args)
        grad = all(a.requires_grad for a in t_args)
        s_args = [sl(x, grad) for x in xs]
        if t_err is not None:
            if isinstance(t_err, (NotImplementedError,)) or "not implemented for" in str(t_err):
                compared += 1
                _, s_err = _torch_try(getattr(sobj, name), s_args)
                if not isinstance(s_err, type(t_err).__mro__[[c.__module__ for c in type(t_err).__mro__].index("builtins")]):
                    failures.append(f"{case}: torch raises {type(t_err).__name__} ({t_err}), seqlab {s_err!r}")
            continue
        outs = _flat(t_out) if isinstance(t_out, (tuple, list)) else [t_out]
        if not outs or not all(isinstance(o, torch.Tensor) for o in outs):
            continue
        compared += 1
        s_out, s_err = _torch_try(getattr(sobj, name), s_args)
        if s_err is not None:
            failures.append(f"{case}: seqlab raises {type(s_err).__name__}: {s_err}")
            continue
        try:
            s_outs = _flat(s_out)
            assert len(s_outs) == len(outs), f"{len(s_outs)} outputs, torch {len(outs)}"
            for i, (s, t) in enumerate(zip(s_outs, outs)):
                if name in HISTC:
                    assert str(s.dtype) == str(_SL_OF[t.dtype]) and (th(s).float() - t.float()).abs().max() <= 1
                    assert th(s).float().sum() == t.float().sum()
                else:
                    assert_same(s, t, SWEEP_ULPS.get(name, 0), f"output {i}")
            for i, (s, t) in enumerate(zip(s_args, t_args)):   # an in-place op's self
                assert_same(s, t, SWEEP_ULPS.get(name, 0), f"argument {i} after the call")
            floats = [(s, t) for s, t in zip(s_outs, outs) if t.requires_grad]
            if grad and floats and not name.endswith("_"):
                ws = [torch.randn(t.shape, generator=g) for _, t in floats]   # a random cotangent, in float32
                t_loss = sum((t.float() * w).sum() for (_, t), w in zip(floats, ws))
                s_loss = sum((s.float() * sl(w)).sum() for (s, _), w in zip(floats, ws))
                t_grads, t_err = _torch_try(lambda: torch.autograd.grad(t_loss, t_args, allow_unused=True), ())
                if t_err is None:
                    assert s_loss.requires_grad, "the output does not require grad; torch's does"
                    s_grads = seqlab.autograd.grad(s_loss, s_args, allow_unused=True)
                    for i, (s, t) in enumerate(zip(s_grads, t_grads)):
                        if t is None:
                            assert s is None or not th(s).any(), f"grad {i}: torch has none"
                        else:
                            assert s is not None, f"grad {i}: seqlab has none"
                            assert_same(s, t, max(4, SWEEP_ULPS.get(name, 0)), f"grad of input {i}")
        except AssertionError as e:
            failures.append(f"{case}: {str(e).splitlines()[0]}")
    assert compared > 200
    assert not failures, f"{len(failures)} of {compared} ops differ from torch:\n" + "\n".join(failures)


# ----------------------------------------------------------------------------------------
# The ops that need arguments of their own: name -> (fn(lib, *args), make(dtype, generator) -> args,
# ulps of the output). Gradients are compared within 4 ulps of the largest (torch's 16-bit backward
# rounds at each of its kernels, seqlab's runs in float32 down to the leaf), 8 where a reduction's
# backward re-reads a rounded output (softmax, norms, losses).
# ----------------------------------------------------------------------------------------

def _F(lib):
    return TF if lib is torch else SF


def _x(*shape, low=-2.0, high=2.0):
    return lambda d, g: [rand(d, g, *shape, low=low, high=high)]


def _xy(sa, sb, low=-2.0, high=2.0):
    return lambda d, g: [rand(d, g, *sa, low=low, high=high), rand(d, g, *sb, low=low, high=high)]


def _labels(g, n, c):
    return torch.randint(0, c, (n,), generator=g)


CASES = {
    # elementwise math and operators, broadcast
    # torch's scalar (not vectorized) Half loop rounds alpha * other to 16 bits before the sum, its
    # vectorized loop does not; seqlab rounds once
    "add_alpha": (lambda L, a, b: L.add(a, b, alpha=3), _xy((3, 4), (4,)), 1),
    "sub_bcast": (lambda L, a, b: a - b, _xy((2, 1, 4), (3, 1)), 0),
    "mul_op": (lambda L, a, b: a * b, _xy((3, 4), (3, 4)), 0),
    "div_op": (lambda L, a, b: a / b, _xy((3, 4), (3, 4), 0.5, 2.0), 0),
    "pow_op": (lambda L, a, b: a ** b, _xy((3, 4), (3, 4), 0.5, 2.0), 0),
    "pow_scalar": (lambda L, a: a ** 2.5, _x(3, 4, low=0.1), 0),
    "rpow_scalar": (lambda L, a: 2 ** a, _x(3, 4), 0),
    "radd_scalar": (lambda L, a: 1.5 + a, _x(3, 4), 0),
    "rsub_scalar": (lambda L, a: 1 - a, _x(3, 4), 0),
    "neg_abs": (lambda L, a: (-a).abs(), _x(3, 4), 0),
    "meshgrid_cross": (lambda L, a, b: (*L.meshgrid(a[0], b[:, 0], indexing="ij"), L.cross(a, b, dim=1)),
                       _xy((3, 3), (3, 3)), 0),
    "floordiv_mod": (lambda L, a, b: (a // b, a % b), _xy((3, 4), (3, 4), 0.5, 2.0), 0, False),  # no derivative
    "matmul_op": (lambda L, a, b: a @ b, _xy((3, 5), (5, 4)), 2),
    "exp_log": (lambda L, a: (a.exp(), a.abs().log(), a.sigmoid(), a.tanh()), _x(3, 4), 0),
    "clamp": (lambda L, a: (a.clamp(-1, 0.5), a.clamp(min=0.0), L.clamp(a, max=a * 0.5)), _x(3, 4), 0),
    "maximum_minimum": (lambda L, a, b: (L.maximum(a, b), L.minimum(a, b)), _xy((3, 4), (4,)), 0),
    "where_masked_fill": (lambda L, a, b: (L.where(a > 0, a, b), a.masked_fill(a < 0, 0.25)), _xy((3, 4), (3, 4)), 0),
    "lerp_addcmul": (lambda L, a, b: (L.lerp(a, b, 0.3), L.addcmul(a, a, b, value=0.5), L.addcdiv(a, a, b.exp())),
                     _xy((3, 4), (3, 4)), 1),
    "non_finite": (lambda L, a: (L.nan_to_num(a), a.nan_to_num(nan=1.5, posinf=7.0), L.isinf(a), L.isnan(a),
                                 L.isfinite(a), a.exp(), a.sigmoid(), a.clamp(-1, 1), a.sum(), a.amax(), a * 0),
                   lambda d, g: [torch.tensor([[1.0, float("inf"), -float("inf")], [float("nan"), -0.0, 6e4]]).to(d)],
                   0, False),
    "comparisons": (lambda L, a, b: (a < b, a <= b, a == b, a != b, a > 0.5, a >= b, L.isclose(a, b, atol=0.5)),
                    _xy((3, 4), (3, 4)), 0),
    # reductions
    "sum_dims": (lambda L, a: (a.sum(), a.sum(1), a.sum((0, 2), keepdim=True)), _x(3, 5, 4), 2),
    "mean_var_std": (lambda L, a: (a.mean(0), a.var(1), a.std(), a.var(1, correction=0)), _x(4, 6), 2),
    "prod_amax_amin": (lambda L, a: (a.prod(1), a.amax(0), a.amin(1), a.max(), a.min(1)), _x(3, 4, low=0.5), 2),
    "argmax_topk_sort": (lambda L, a: (a.argmax(1), a.topk(2, 1), a.sort(1), a.max(1), a.cummax(1)), _x(3, 6), 0),
    "logsumexp_norm": (lambda L, a: (a.logsumexp(1), a.norm(), a.norm(1, 0), L.linalg.vector_norm(a, 3, 1)),
                       _x(3, 8), 2),
    "cumsum_cumprod": (lambda L, a: (a.cumsum(1), a.cumprod(0), L.logcumsumexp(a, 1)), _x(3, 6, low=0.5, high=1.5), 2),
    "sum_dtype_float32": (lambda L, a: (a.sum(dtype=L.float32), a.mean(1, dtype=L.float32)), _x(3, 4), 2),
    # the matmul family
    "mm_bmm": (lambda L, a, b: (L.mm(a, b), L.bmm(a.unsqueeze(0).expand(2, 3, 5), b.unsqueeze(0).expand(2, 5, 4))),
               _xy((3, 5), (5, 4)), 2),
    "addmm_baddbmm": (lambda L, a, b: (L.addmm(a[:, :4], a, b), L.addmm(a[:, :4], a, b, beta=0.5, alpha=2)),
                      _xy((3, 5), (5, 4)), 2),
    "matmul_bcast": (lambda L, a, b: (L.matmul(a, b), L.matmul(a[0], b), L.matmul(a, b[:, 0])), _xy((2, 3, 5), (5, 4)), 2),
    "einsum": (lambda L, a, b: (L.einsum("bij,jk->bik", a, b), L.einsum("bij->j", a)), _xy((2, 3, 5), (5, 4)), 2),
    "linear": (lambda L, x, w, b: _F(L).linear(x, w, b), lambda d, g: [rand(d, g, 2, 3, 5), rand(d, g, 4, 5),
                                                                       rand(d, g, 4)], 2),
    "bilinear": (lambda L, x, y, w: _F(L).bilinear(x, y, w), lambda d, g: [rand(d, g, 3, 4), rand(d, g, 3, 5),
                                                                           rand(d, g, 2, 4, 5)], 2),
    # softmax and activations
    "softmax": (lambda L, a: (a.softmax(1), a.log_softmax(-1), _F(L).softmax(a, 0)), _x(3, 6), 2),
    "activations": (lambda L, a: (_F(L).relu(a), _F(L).gelu(a), _F(L).gelu(a, approximate="tanh"), _F(L).silu(a),
                                  _F(L).elu(a), _F(L).selu(a), _F(L).leaky_relu(a, 0.1), _F(L).softplus(a),
                                  _F(L).mish(a), _F(L).hardtanh(a), _F(L).hardswish(a), _F(L).hardsigmoid(a),
                                  _F(L).celu(a), _F(L).relu6(a * 4), _F(L).logsigmoid(a), _F(L).glu(a, 1)),
                    _x(3, 6), 0),
    "prelu": (lambda L, a, w: _F(L).prelu(a, w), _xy((2, 3, 4), (3,)), 0),
    # normalization
    "layer_norm": (lambda L, x, w, b: (_F(L).layer_norm(x, (6,), w, b), _F(L).layer_norm(x, (6,))),
                   lambda d, g: [rand(d, g, 4, 6), rand(d, g, 6), rand(d, g, 6)], 2),
    "rms_norm": (lambda L, x, w: (_F(L).rms_norm(x, (6,), w), _F(L).rms_norm(x, (6,), w, eps=1e-3)),
                 lambda d, g: [rand(d, g, 4, 6), rand(d, g, 6)], 2),
    "group_norm": (lambda L, x, w, b: _F(L).group_norm(x, 2, w, b),
                   lambda d, g: [rand(d, g, 2, 4, 5), rand(d, g, 4), rand(d, g, 4)], 2),
    "batch_norm_eval": (lambda L, x, m, v, w, b: _F(L).batch_norm(x, m, v, w, b, training=False),
                        lambda d, g: [rand(d, g, 3, 4, 5), rand(d, g, 4), rand(d, g, 4, low=0.5), rand(d, g, 4),
                                      rand(d, g, 4)], 2, (0, 3, 4)),   # running statistics take no gradient
    "batch_norm_train": (lambda L, x, w, b: _F(L).batch_norm(x, None, None, w, b, training=True),
                         lambda d, g: [rand(d, g, 3, 4, 5), rand(d, g, 4), rand(d, g, 4)], 2),
    "normalize": (lambda L, x: _F(L).normalize(x, dim=1), _x(3, 6), 2),
    "dropout_eval": (lambda L, x: (_F(L).dropout(x, 0.5, training=False), _F(L).dropout(x, 0.0)), _x(3, 6), 0),
    "embedding": (lambda L, w, i: (_F(L).embedding(i, w), _F(L).embedding(i, w, padding_idx=1)),
                  lambda d, g: [rand(d, g, 5, 4), torch.randint(0, 5, (2, 3), generator=g)], 0),
    # losses
    "cross_entropy": (lambda L, x, y: (_F(L).cross_entropy(x, y), _F(L).cross_entropy(x, y, reduction="none"),
                                       _F(L).cross_entropy(x, y, label_smoothing=0.1)),
                      lambda d, g: [rand(d, g, 4, 5), _labels(g, 4, 5)], 2),
    "cross_entropy_probs": (lambda L, x, p: _F(L).cross_entropy(x, p.softmax(1)), _xy((4, 5), (4, 5)), 2),
    "nll_loss": (lambda L, x, y: (_F(L).nll_loss(x.log_softmax(1), y), _F(L).nll_loss(x, y, reduction="sum")),
                 lambda d, g: [rand(d, g, 4, 5), _labels(g, 4, 5)], 2),
    "regression_losses": (lambda L, x, t: (_F(L).mse_loss(x, t), _F(L).l1_loss(x, t), _F(L).smooth_l1_loss(x, t),
                                           _F(L).huber_loss(x, t, delta=0.5), _F(L).mse_loss(x, t, reduction="none")),
                          _xy((4, 5), (4, 5)), 2),
    "probability_losses": (lambda L, x, t: (_F(L).binary_cross_entropy(x.sigmoid(), t.sigmoid()),
                                            _F(L).binary_cross_entropy_with_logits(x, t.sigmoid()),
                                            _F(L).kl_div(x.log_softmax(1), t.softmax(1), reduction="batchmean"),
                                            _F(L).soft_margin_loss(x, t.sign().detach()),
                                            _F(L).poisson_nll_loss(x, t.abs())),
                           _xy((4, 5), (4, 5)), 2),
    "margin_losses": (lambda L, a, b, c: (_F(L).margin_ranking_loss(a, b, c.sign()),
                                          _F(L).hinge_embedding_loss(a, c.sign()),
                                          _F(L).cosine_embedding_loss(a.reshape(2, 2), b.reshape(2, 2), c[:2].sign()),
                                          _F(L).triplet_margin_loss(a.reshape(2, 2), b.reshape(2, 2), c.reshape(2, 2))),
                      lambda d, g: [rand(d, g, 4), rand(d, g, 4), rand(d, g, 4)], 2),
    "gaussian_nll_loss": (lambda L, x, t, v: _F(L).gaussian_nll_loss(x, t, v.abs() + 0.1),
                          lambda d, g: [rand(d, g, 4, 5), rand(d, g, 4, 5), rand(d, g, 4, 5)], 2),
    # convolution and pooling
    "conv1d": (lambda L, x, w, b: (_F(L).conv1d(x, w, b, padding=1), _F(L).conv1d(x, w, None, stride=2)),
               lambda d, g: [rand(d, g, 2, 3, 7), rand(d, g, 4, 3, 3), rand(d, g, 4)], 2),
    "conv2d": (lambda L, x, w, b: _F(L).conv2d(x, w, b, padding=1),
               lambda d, g: [rand(d, g, 2, 3, 5, 5), rand(d, g, 4, 3, 3, 3), rand(d, g, 4)], 2),
    "conv_transpose1d": (lambda L, x, w: _F(L).conv_transpose1d(x, w, stride=2),
                         lambda d, g: [rand(d, g, 2, 3, 5), rand(d, g, 3, 2, 3)], 2),
    "pooling": (lambda L, x: (_F(L).max_pool1d(x, 2), _F(L).avg_pool1d(x, 2), _F(L).max_pool1d(x, 3, 1, 1,
                                                                                               return_indices=True),
                              _F(L).adaptive_avg_pool1d(x, 3), _F(L).max_pool2d(x.unsqueeze(0), 2),
                              _F(L).avg_pool2d(x.unsqueeze(0), 2), _F(L).lp_pool1d(x.abs(), 2, 2)),
                _x(2, 3, 6), 2),
    # attention
    "scaled_dot_product_attention": (
        lambda L, q, k, v: (_F(L).scaled_dot_product_attention(q, k, v),
                            _F(L).scaled_dot_product_attention(q, k, v, is_causal=True)),
        lambda d, g: [rand(d, g, 2, 2, 4, 8), rand(d, g, 2, 2, 4, 8), rand(d, g, 2, 2, 4, 8)], 2),
    "sdpa_mask": (lambda L, q, k, v, m: _F(L).scaled_dot_product_attention(q, k, v, attn_mask=m),
                  lambda d, g: [rand(d, g, 2, 4, 8), rand(d, g, 2, 5, 8), rand(d, g, 2, 5, 8), rand(d, g, 4, 5)], 2),
    # indexing
    "gather_scatter": (lambda L, x, s, i: (x.gather(1, i), x.scatter(1, i, s), x.scatter_add(1, i, s),
                                           x.scatter(1, i, 0.5), x.index_select(0, i[0].clamp(max=2)),
                                           x.index_add(0, i[0].clamp(max=2), x[:2] * 0.5)),
                       lambda d, g: [rand(d, g, 3, 4), rand(d, g, 3, 2), torch.randint(0, 3, (3, 2), generator=g)], 0),
    # torch's own 16-bit matrix_exp returns inf even here (its series runs in 16 bits): compared with
    # torch's float32 one rounded once, which is what seqlab computes
    "matrix_exp": (lambda L, a: L.linalg.matrix_exp(a.float()).to(a.dtype) if L is torch else L.linalg.matrix_exp(a),
                   _x(4, 4, low=-0.5, high=0.5), 2),
    "indexing": (lambda L, x: (x[1], x[:, 1:3], x[x > 0], x[[0, 2]], x.T, x.reshape(4, 3), x.flip(0), L.cat([x, x]),
                               L.stack([x, x], 1), x.repeat(2, 1), x.tril(), x.roll(1, 1), x.narrow(1, 1, 2)),
                 _x(3, 4), 0),
}


@pytest.mark.parametrize("tdt,sdt", HALF_DTYPES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_op_against_torch(name, tdt, sdt):
    fn, make, ulps, *grad = CASES[name]
    run(fn, make, tdt, grad=grad[0] if grad else True, ulps=ulps, grad_ulps=max(4, 4 * ulps),
        seed=zlib.crc32(name.encode()))


# ----------------------------------------------------------------------------------------
# Type promotion with other dtypes and Python numbers
# ----------------------------------------------------------------------------------------

def _promotion_operands(tdt):
    """name -> make(g): the two operands, each a torch tensor (or a Python number)."""
    other = torch.bfloat16 if tdt == torch.float16 else torch.float16
    return {
        "with_float32": lambda g: [rand(tdt, g, 3, 4), rand(torch.float32, g, 3, 4)],
        "float32_first": lambda g: [rand(torch.float32, g, 3, 4), rand(tdt, g, 4)],
        "with_float64": lambda g: [rand(tdt, g, 3, 4), rand(torch.float64, g, 4)],
        "with_int64": lambda g: [rand(tdt, g, 3, 4), torch.randint(1, 4, (3, 4), generator=g)],
        "int64_first": lambda g: [torch.randint(1, 4, (4,), generator=g), rand(tdt, g, 3, 4)],
        "with_bool": lambda g: [rand(tdt, g, 3, 4), torch.rand(3, 4, generator=g) > 0.5],
        "zero_dim_float32": lambda g: [rand(tdt, g, 3, 4), rand(torch.float32, g)],
        "zero_dim_float64_first": lambda g: [rand(torch.float64, g), rand(tdt, g, 4)],
        "zero_dim_16_with_float32": lambda g: [rand(tdt, g), rand(torch.float32, g, 4)],
        "zero_dim_16_with_int64": lambda g: [rand(tdt, g), torch.randint(1, 4, (4,), generator=g)],
        "with_other_16": lambda g: [rand(tdt, g, 3, 4), rand(other, g, 3, 4)],
        "zero_dim_other_16": lambda g: [rand(tdt, g, 3, 4), rand(other, g)],
        "python_float": lambda g: [rand(tdt, g, 3, 4), 2.7],
        "python_int": lambda g: [rand(tdt, g, 3, 4), 3],
        "python_bool": lambda g: [rand(tdt, g, 3, 4), True],
        "python_float_first": lambda g: [1.3, rand(tdt, g, 3, 4)],
        "huge_python_float": lambda g: [rand(tdt, g, 3, 4), 1e6],   # float16 overflows to inf, as torch's
    }


PROMOTING_OPS = {
    "add": lambda L, a, b: a + b, "sub": lambda L, a, b: a - b, "mul": lambda L, a, b: a * b,
    "div": lambda L, a, b: a / b, "torch.add_alpha": lambda L, a, b: L.add(a, b, alpha=2) if isinstance(
        a, (torch.Tensor, seqlab.Tensor)) else L.add(b, a, alpha=2),
    "maximum": lambda L, a, b: L.maximum(*(x if isinstance(x, (torch.Tensor, seqlab.Tensor)) else L.tensor(x)
                                           for x in (a, b))),
    "where": lambda L, a, b: L.where(L.ones(3, 4, dtype=L.bool).tril(), a, b),
    "lt": lambda L, a, b: a < b, "eq": lambda L, a, b: a == b,
}


@pytest.mark.parametrize("tdt,sdt", HALF_DTYPES)
@pytest.mark.parametrize("op", sorted(PROMOTING_OPS))
def test_promotion_against_torch(op, tdt, sdt):
    """float16 op float32 -> float32, float16 op int64 -> float16, a 0-d float32 with a float16
    vector -> float16, float16 with bfloat16 -> float32, Python numbers keep the 16-bit dtype; the
    gradient of each floating operand in its own dtype."""
    fn = PROMOTING_OPS[op]
    for case, make in _promotion_operands(tdt).items():
        if op == "maximum" and any(isinstance(a, float) and a > 1e5 for a in make(torch.Generator())):
            continue   # torch.tensor(1e6) is a float32 0-d tensor, not a Python number: covered by zero_dim
        args = make(torch.Generator().manual_seed(0))
        grad = op not in ("lt", "eq") and [i for i, a in enumerate(args)
                                           if isinstance(a, torch.Tensor) and a.is_floating_point()]
        t_err = _torch_try(lambda: fn(torch, *args), ())[1]
        if t_err is not None:   # bool - bool and the like: refused alike
            with pytest.raises(type(t_err)):
                fn(seqlab, *(sl(a) if isinstance(a, torch.Tensor) else a for a in args))
            continue
        try:
            # the gradient: torch's backward rounds each of its steps to 16 bits (a / b: -g a / b^2)
            run(fn, lambda d, g: make(g), tdt, grad=grad, ulps=0, grad_ulps=4, seed=zlib.crc32(case.encode()))
        except AssertionError as e:
            raise AssertionError(f"{op} {case}: {e}") from None


@pytest.mark.parametrize("tdt,sdt", HALF_DTYPES)
def test_result_type_and_promote_types(tdt, sdt):
    other_t = torch.bfloat16 if tdt == torch.float16 else torch.float16
    other_s = _SL_OF[other_t]
    pairs = [(tdt, torch.float32), (tdt, torch.int64), (tdt, torch.bool), (tdt, other_t), (tdt, tdt),
             (torch.float64, tdt), (torch.uint8, tdt)]
    for a, b in pairs:
        assert str(seqlab.promote_types(_SL_OF[a], _SL_OF[b])) == str(_SL_OF[torch.promote_types(a, b)])
    x_t, x_s = torch.ones(2, dtype=tdt), sl(torch.ones(2, dtype=tdt))
    for other in [torch.ones((), dtype=torch.float32), torch.ones(2, dtype=torch.int64), 2.5, 3,
                  torch.ones(2, dtype=other_t)]:
        s_other = sl(other) if isinstance(other, torch.Tensor) else other
        assert str(seqlab.result_type(x_s, s_other)) == str(_SL_OF[torch.result_type(x_t, other)])
    assert str(other_s) != str(sdt)


def test_mismatched_matmul_dtypes_are_refused():
    """torch's matmul family takes no mixed dtypes (float16 @ float32 is a RuntimeError), nor
    does seqlab's."""
    a, b = torch.ones(2, 3, dtype=torch.float16), torch.ones(3, 2)
    for f in (lambda L, x, y: x @ y, lambda L, x, y: L.mm(x, y), lambda L, x, y: L.matmul(x, y)):
        with pytest.raises(RuntimeError):
            f(torch, a, b)
        with pytest.raises(RuntimeError):
            f(seqlab, sl(a), sl(b))


# ----------------------------------------------------------------------------------------
# In-place forms: the 16-bit self keeps its dtype and its autograd history
# ----------------------------------------------------------------------------------------

INPLACE = {
    "add_": lambda L, x, y: x.add_(y), "add_alpha_": lambda L, x, y: x.add_(y, alpha=-0.5),
    "sub_": lambda L, x, y: x.sub_(y), "mul_": lambda L, x, y: x.mul_(y), "div_": lambda L, x, y: x.div_(y.abs() + 1),
    "mul_scalar_": lambda L, x, y: x.mul_(3.3), "pow_": lambda L, x, y: x.abs().pow_(1.5),
    "clamp_": lambda L, x, y: x.clamp_(-0.5, 0.7), "clamp_min_": lambda L, x, y: x.clamp_(min=0.1),
    "iadd": lambda L, x, y: x.__iadd__(y), "isub": lambda L, x, y: x.__isub__(y * 2),
    "imul": lambda L, x, y: x.__imul__(y), "itruediv": lambda L, x, y: x.__itruediv__(y.abs() + 1),
    "iadd_float32": lambda L, x, y: x.__iadd__(y.float()), "mul_float32_": lambda L, x, y: x.mul_(y.float()),
    "iadd_int": lambda L, x, y: x.__iadd__(3), "sin_": lambda L, x, y: x.sin_(), "exp_": lambda L, x, y: x.exp_(),
    "sigmoid_": lambda L, x, y: x.sigmoid_(), "tanh_": lambda L, x, y: x.tanh_(), "relu_": lambda L, x, y: x.relu_(),
    "sqrt_": lambda L, x, y: x.abs().sqrt_(), "log_": lambda L, x, y: x.abs().log_(),
    "neg_": lambda L, x, y: x.neg_(), "abs_": lambda L, x, y: x.abs_(), "floor_": lambda L, x, y: x.floor_(),
    "round_": lambda L, x, y: x.round_(), "erf_": lambda L, x, y: x.erf_(), "reciprocal_": lambda L, x, y: x.reciprocal_(),
    "fmod_": lambda L, x, y: x.fmod_(0.7), "remainder_": lambda L, x, y: x.remainder_(y.abs() + 0.5),
    "masked_fill_": lambda L, x, y: x.masked_fill_(y > 0, 0.3), "lerp_": lambda L, x, y: x.lerp_(y, 0.25),
    "addcmul_": lambda L, x, y: x.addcmul_(y, y, value=0.5), "fill_": lambda L, x, y: x.fill_(1.7),
    "zero_": lambda L, x, y: x.zero_(), "copy_": lambda L, x, y: x.copy_(y.float()),
    "setitem": lambda L, x, y: x.__setitem__((slice(None), 1), y[:, 0]) or x,
    "setitem_mask": lambda L, x, y: x.__setitem__(y > 0, y[0, 0]) or x,
    "setitem_index": lambda L, x, y: x.__setitem__(L.tensor([0, 2]), y[:2]) or x,
    # (seqlab's index_put_ records no gradient, in float32 too: on detached tensors)
    "index_put_": lambda L, x, y: x.detach().index_put_((L.tensor([0, 1]),), y[:2].detach(), accumulate=True),
    "scatter_": lambda L, x, y: x.scatter_(1, L.tensor([[0], [1], [2]]), y[:, :1]),
    "sum_out_of_place_then_": lambda L, x, y: x.add_(y.sum(0)),
}


@pytest.mark.parametrize("tdt,sdt", HALF_DTYPES)
@pytest.mark.parametrize("name", sorted(INPLACE))
def test_in_place_against_torch(name, tdt, sdt):
    """self = leaf * 1 (not a leaf, so in place is allowed), the op in place, then the gradients reach
    both leaves."""
    f = INPLACE[name]
    # after fill_, zero_ or copy_ from a constant seqlab's self takes no gradient (torch's a zero one),
    # in float32 too
    grad = name not in ("fill_", "zero_", "copy_")
    run(lambda L, x, y: f(L, x * 1, y), _xy((3, 4), (3, 4)), tdt, grad=grad, ulps=0, grad_ulps=4,
        seed=zlib.crc32(name.encode()))


@pytest.mark.parametrize("tdt,sdt", HALF_DTYPES)
def test_in_place_on_leaf_refused(tdt, sdt):
    x_t = torch.ones(3, dtype=tdt, requires_grad=True)
    x_s = sl(x_t, True)
    for f in (lambda x: x.add_(1), lambda x: x.sin_(), lambda x: x.mul_(x), lambda x: x.clamp_(0, 1)):
        with pytest.raises(RuntimeError, match="leaf Variable"):
            f(x_t)
        with pytest.raises(RuntimeError, match="leaf Variable"):
            f(x_s)


# ----------------------------------------------------------------------------------------
# Defaults that depend on the dtype
# ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("tdt,sdt", HALF_DTYPES)
def test_rms_norm_default_eps_of_16_bit_input(tdt, sdt):
    """F.rms_norm(eps=None) on float16/bfloat16 adds float32's epsilon, not finfo(input.dtype).eps:
    torch 2.13's CPU kernel computes them in float32 with that type's epsilon. Inputs of size 0.05
    make mean(x^2) ~ 1e-3, where finfo(float16).eps = 2^-10 would change the result by a third."""
    run(lambda L, x, w: (_F(L).rms_norm(x, (6,)), _F(L).rms_norm(x, (6,), w), L.rms_norm(x, [6], eps=None)),
        lambda d, g: [rand(d, g, 4, 6, low=-0.05, high=0.05), rand(d, g, 6)], tdt, ulps=2, grad_ulps=8)


@pytest.mark.parametrize("tdt,sdt", HALF_DTYPES)
def test_softshrink_lambd_range_is_the_dtypes(tdt, sdt):
    x = torch.ones(3, dtype=tdt)
    for lambd in (1e5, 1e39):
        t_err = _torch_try(lambda: TF.softshrink(x, lambd), ())[1]
        s_out, s_err = _torch_try(lambda: SF.softshrink(sl(x), lambd), ())
        if t_err is None:
            assert s_err is None
            assert_same(s_out, TF.softshrink(x, lambd))
        else:
            assert isinstance(s_err, RuntimeError) and str(s_err) == str(t_err)


# ----------------------------------------------------------------------------------------
# What torch refuses for float16/bfloat16 on CPU, seqlab refuses with the same exception
# ----------------------------------------------------------------------------------------

REFUSED = {
    "linalg.det": lambda L, a: L.linalg.det(a), "linalg.inv": lambda L, a: L.linalg.inv(a),
    "linalg.slogdet": lambda L, a: L.linalg.slogdet(a), "logdet": lambda L, a: L.logdet(a),
    "linalg.solve": lambda L, a: L.linalg.solve(a, a), "linalg.cholesky": lambda L, a: L.linalg.cholesky(a),
    "cholesky": lambda L, a: L.cholesky(a), "linalg.qr": lambda L, a: L.linalg.qr(a),
    "linalg.eigh": lambda L, a: L.linalg.eigh(a), "linalg.svd": lambda L, a: L.linalg.svd(a),
    "linalg.svdvals": lambda L, a: L.linalg.svdvals(a), "linalg.matrix_rank": lambda L, a: L.linalg.matrix_rank(a),
    "linalg.solve_triangular": lambda L, a: L.linalg.solve_triangular(a, a, upper=True),
    "linalg.lstsq": lambda L, a: L.linalg.lstsq(a, a), "linalg.pinv": lambda L, a: L.linalg.pinv(a),
    "cdist": lambda L, a: L.cdist(a, a), "pdist": lambda L, a: _F(L).pdist(a),
    "histogram": lambda L, a: L.histogram(a, 5), "special.zeta": lambda L, a: L.special.zeta(a, a),
    "special.ndtri": lambda L, a: L.special.ndtri(a), "special.erfcx": lambda L, a: L.special.erfcx(a),
    "special.log_ndtr": lambda L, a: L.special.log_ndtr(a), "special.bessel_j0": lambda L, a: L.special.bessel_j0(a),
    "special.airy_ai": lambda L, a: L.special.airy_ai(a),
    "special.chebyshev_polynomial_t": lambda L, a: L.special.chebyshev_polynomial_t(a, 2),
    "multi_margin_loss": lambda L, a: _F(L).multi_margin_loss(a, L.tensor([0, 1, 2])),
    "bitwise_and": lambda L, a: L.bitwise_and(a, a), "bitwise_not": lambda L, a: L.bitwise_not(a),
    "bitwise_or_": lambda L, a: a.bitwise_or_(a), "gcd": lambda L, a: L.gcd(a, a),
}


@pytest.mark.parametrize("tdt,sdt", HALF_DTYPES)
@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_like_torch(name, tdt, sdt):
    a = (torch.eye(3) * 2 + 0.25).to(tdt)
    f = REFUSED[name]
    with pytest.raises(Exception) as t_info, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f(torch, a)
    builtin = next(c for c in type(t_info.value).__mro__ if c.__module__ == "builtins")
    with pytest.raises(builtin):
        f(seqlab, sl(a))


# ----------------------------------------------------------------------------------------
# Random ops: the values differ from torch's by design (another generator); the dtype, the shape and
# the support are torch's
# ----------------------------------------------------------------------------------------

RANDOM = {
    "uniform_": (lambda L, x: x.uniform_(-1, 2), (-1, 2)),
    "normal_": (lambda L, x: x.normal_(0, 1), None),
    "random_": (lambda L, x: x.random_(0, 10), (0, 9)),
    "exponential_": (lambda L, x: x.exponential_(), (0, float("inf"))),
    "bernoulli_": (lambda L, x: x.bernoulli_(0.5), (0, 1)),
    "rand_like": (lambda L, x: L.rand_like(x), (0, 1)),
    "randn_like": (lambda L, x: L.randn_like(x), None),
    "dropout_train": (lambda L, x: _F(L).dropout(x.abs() + 1, 0.5, training=True), (0, 10)),
    "init.kaiming_uniform_": (lambda L, x: L.nn.init.kaiming_uniform_(x), (-2, 2)),
    "init.xavier_normal_": (lambda L, x: L.nn.init.xavier_normal_(x), None),
}


@pytest.mark.parametrize("tdt,sdt", HALF_DTYPES)
@pytest.mark.parametrize("name", sorted(RANDOM))
def test_random_op_keeps_16_bit_dtype(name, tdt, sdt):
    f, support = RANDOM[name]
    t_out = f(torch, torch.zeros(64, 8, dtype=tdt))
    s_out = f(seqlab, sl(torch.zeros(64, 8, dtype=tdt)))
    assert str(s_out.dtype) == str(_SL_OF[t_out.dtype]) and tuple(s_out.shape) == tuple(t_out.shape)
    values = th(s_out).float()
    assert values.isfinite().all() or support and support[1] == float("inf")
    if support:
        assert values.min() >= support[0] and values.max() <= support[1]
    assert values.unique().numel() > 1


# ----------------------------------------------------------------------------------------
# Layers built with dtype=float16/bfloat16: the same parameters as torch's, the same output and
# parameter gradients (each layer is a chain of ops: a few ulps, more through a recurrence)
# ----------------------------------------------------------------------------------------

LAYERS = {
    "Linear": ((5, 3), {}, [(2, 5)], 2),
    "Bilinear": ((3, 4, 2), {}, [(2, 3), (2, 4)], 4),
    "Conv1d": ((3, 4, 3), dict(padding=1), [(2, 3, 7)], 4),
    "Conv2d": ((3, 2, 3), {}, [(2, 3, 5, 5)], 4),
    "LayerNorm": ((5,), {}, [(2, 5)], 4),
    "RMSNorm": ((5,), {}, [(2, 5)], 4),
    "GroupNorm": ((2, 4), {}, [(2, 4, 3)], 4),
    "BatchNorm1d": ((3,), {}, [(4, 3)], 8),
    "Embedding": ((5, 3), {}, ["index"], 0),
    "LSTMCell": ((5, 4), {}, [(2, 5)], 8),
    "GRUCell": ((5, 4), {}, [(2, 5)], 8),
    "LSTM": ((5, 4), dict(batch_first=True), [(2, 3, 5)], 16),
    "GRU": ((5, 4), {}, [(3, 2, 5)], 16),
    "RNN": ((5, 4), dict(num_layers=2), [(3, 2, 5)], 16),
    "MultiheadAttention": ((8, 2), dict(batch_first=True), [(2, 3, 8)] * 3, 8),
    "TransformerEncoderLayer": ((8, 2, 16), dict(batch_first=True, dropout=0.0), [(2, 3, 8)], 16),
}


@pytest.mark.parametrize("tdt,sdt", HALF_DTYPES)
@pytest.mark.parametrize("name", sorted(LAYERS))
def test_layer_against_torch(name, tdt, sdt):
    args, kwargs, shapes, ulps = LAYERS[name]
    torch.manual_seed(zlib.crc32(name.encode()))
    t_layer = getattr(torch.nn, name)(*args, **kwargs, dtype=tdt)
    s_layer = getattr(seqlab.nn, name)(*args, **kwargs, dtype=sdt)
    assert all(str(p.dtype) == str(sdt) for p in s_layer.parameters())
    s_layer.load_state_dict({k: sl(v) for k, v in t_layer.state_dict().items()})
    g = torch.Generator().manual_seed(1)
    inputs = [torch.randint(0, 5, (2, 3), generator=g) if s == "index" else rand(tdt, g, *s) for s in shapes]
    t_in = [x.clone().requires_grad_() if x.is_floating_point() else x for x in inputs]
    s_in = [sl(x, x.is_floating_point()) for x in inputs]
    t_out, s_out = _flat(t_layer(*t_in)), _flat(s_layer(*s_in))
    for i, (s, t) in enumerate(zip(s_out, t_out)):
        assert_same(s, t, ulps, f"output {i}")
    ws = [torch.randn(t.shape, generator=g) for t in t_out]
    sum((t.float() * w).sum() for t, w in zip(t_out, ws)).backward()
    sum((s.float() * sl(w)).sum() for s, w in zip(s_out, ws)).backward()
    for (n, tp), sp in zip(t_layer.named_parameters(), s_layer.parameters()):
        assert_same(sp.grad, tp.grad, max(4, ulps), f"grad of {n}")
    for i, (s, t) in enumerate(zip(s_in, t_in)):
        if t.requires_grad:
            assert_same(s.grad, t.grad, max(4, ulps), f"grad of input {i}")
