"""seqlab.func (torch.func: grad, grad_and_value, vjp, jvp, jacrev, jacfwd, vmap,
functional_call, stack_module_state) and seqlab.autograd.functional (jacobian, vjp, jvp), compared
with torch on small functions, nn.Linear and an LSTM: values, argument conventions, and torch's
errors; and what seqlab refuses for lack of double backward and forward mode."""
import numpy as np
import pytest
import torch
import torch.autograd.functional as TAF
import torch.func as tf

import seqlab
import seqlab.autograd.functional as SAF
import seqlab.func as sf
from conftest import assert_close, assert_raises_like_torch

LIBS = [(seqlab, sf), (torch, tf)]


def np_of(t):
    return t.detach().numpy().copy()


def assert_trees_close(got, want, atol=1e-6, rtol=1e-5, what="value"):
    if isinstance(want, (tuple, list)):
        assert type(got) is type(want) and len(got) == len(want), f"{what}: {type(got)} vs {type(want)}"
        for i, (g, w) in enumerate(zip(got, want)):
            assert_trees_close(g, w, atol, rtol, f"{what}[{i}]")
    elif isinstance(want, dict):
        assert isinstance(got, dict) and list(got) == list(want), what
        for k in want:
            assert_trees_close(got[k], want[k], atol, rtol, f"{what}[{k!r}]")
    elif isinstance(want, torch.Tensor):
        assert isinstance(got, seqlab.Tensor), f"{what}: {type(got)}"
        assert_close(np_of(got), np_of(want), atol, rtol, what)
    else:
        assert got == want, what


def tensors(rng, *shapes, dtype=np.float64):
    arrays = [rng.standard_normal(s).astype(dtype) for s in shapes]
    return [seqlab.tensor(a) for a in arrays], [torch.tensor(a) for a in arrays]


def f_lib(lib):
    """f(x, y) = Σ sin(x) * y² + (x @ y).tanh().sum(), written for either library."""
    def f(x, y):
        return (x.sin() * y * y).sum() + (x @ y.t()).tanh().sum()
    return f


# ------------------------------------------------------------------ grad
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_grad_and_grad_and_value_match_torch(rng, dtype):
    (x, y), (tx, ty) = tensors(rng, (3, 4), (3, 4), dtype=dtype)
    atol, rtol = (1e-5, 1e-5) if dtype == np.float32 else (1e-12, 1e-12)
    for argnums in [0, 1, (0, 1), (1, 0), -1]:
        got = sf.grad(f_lib(seqlab), argnums=argnums)(x, y)
        want = tf.grad(f_lib(torch), argnums=argnums)(tx, ty)
        assert_trees_close(got, want, atol, rtol, f"grad argnums={argnums}")
    (g, v) = sf.grad_and_value(f_lib(seqlab))(x, y)
    (tg, tv) = tf.grad_and_value(f_lib(torch))(tx, ty)
    assert_trees_close((g, v), (tg, tv), atol, rtol)
    assert not x.requires_grad and not g.requires_grad and not v.requires_grad


def test_grad_with_aux_pytrees_and_keywords(rng):
    (x, y), (tx, ty) = tensors(rng, (2, 3), (2, 3))
    results = []
    for lib, fn in LIBS:
        a, b = (x, y) if lib is seqlab else (tx, ty)

        def loss(params, scale=1.0):
            out = (params["w"] * params["v"][0]).sum() * scale
            return out, {"out": out, "w": [params["w"] * 2]}

        results.append(fn.grad(loss, has_aux=True)({"w": a, "v": [b]}, scale=2.0))
    assert_trees_close(*results)


def test_grad_under_no_grad_and_of_a_constant():
    for lib, fn in LIBS:
        x = lib.ones(3)
        with lib.no_grad():
            assert fn.grad(lambda x: (x * x).sum())(x).tolist() == [2.0, 2.0, 2.0]
        assert fn.grad(lambda x: x.sum().detach())(x).tolist() == [0.0, 0.0, 0.0]
        assert fn.grad(lambda x, y: (x * 2).sum(), argnums=1)(x, x).tolist() == [0.0, 0.0, 0.0]


def test_grad_errors_as_torch():
    x, tx = seqlab.ones(3), torch.ones(3)
    cases = [
        (lambda fn: fn.grad(lambda x: x * 2)(x if fn is sf else tx),
         r"grad_and_value\(f\)\(\*args\): Expected f\(\*args\) to return a scalar Tensor, got tensor with 1 dims"),
        (lambda fn: fn.grad(lambda x: 3)(x if fn is sf else tx), "Expected f\\(\\*args\\) to return a Tensor, got "
                                                                  "<class 'int'>"),
        (lambda fn: fn.grad(lambda x: x.sum(), argnums=1)(x if fn is sf else tx),
         "Got argnum=1, but only 1 positional inputs"),
        (lambda fn: fn.grad(lambda x: x.sum(), argnums=1.5)(x if fn is sf else tx),
         "argnums must be int or Tuple\\[int, ...\\], got: <class 'float'>"),
        (lambda fn: fn.grad(lambda x: x.sum(), argnums=())(x if fn is sf else tx), "argnums must be non-empty"),
        (lambda fn: fn.grad(lambda x: x.sum(), argnums=(0, 0))(x if fn is sf else tx),
         r"argnums elements must be unique, got \(0, 0\)"),
        (lambda fn: fn.grad(lambda x: x.sum(), has_aux=True)(x if fn is sf else tx),
         r"output of function f should be a tuple: \(output, aux\) if has_aux is True"),
        (lambda fn: fn.grad(lambda x: x * 2)(3.0), "Thing passed to transform API must be Tensor, got <class 'float'>"),
        (lambda fn: fn.grad(lambda x: (x.sum(), {"n": 3}), has_aux=True)(x if fn is sf else tx),
         "Expected tensors, got unsupported type <class 'int'>"),
    ]
    for call, message in cases:
        assert_raises_like_torch(lambda: call(sf), lambda: call(tf), message)


def test_differentiating_a_gradient_is_refused():
    x = seqlab.ones(3)
    with pytest.raises(NotImplementedError, match="double backward"):
        sf.grad(lambda x: sf.grad(lambda y: (y ** 3).sum())(x).sum())(x)
    with pytest.raises(NotImplementedError, match="double backward"):
        sf.jacrev(sf.grad(lambda y: (y ** 3).sum()))(x)
    with pytest.raises(NotImplementedError, match="double backward"):
        sf.hessian(lambda y: (y ** 3).sum())(x)
    for name in ["hessian", "hvp", "vhp"]:
        with pytest.raises(NotImplementedError, match="double backward"):
            getattr(SAF, name)(lambda y: (y ** 3).sum(), x, *([x] if name != "hessian" else []))
    with pytest.raises(NotImplementedError, match="double backward"):
        SAF.jacobian(lambda y: y * 2, x, create_graph=True)
    with pytest.raises(NotImplementedError, match="double backward"):
        SAF.jacobian(sf.grad(lambda y: (y ** 3).sum()), x)
    # after a refusal the next transform runs normally
    assert sf.grad(lambda y: (y ** 2).sum())(x).tolist() == [2.0, 2.0, 2.0]


# ------------------------------------------------------------------ vjp, jvp, jacobians
def test_vjp_and_jvp_match_torch(rng):
    (x, y, u, v), (tx, ty, tu, tv) = tensors(rng, (3, 4), (3, 4), (3, 4), (3, 4))

    def g(lib):
        return lambda a, b: ((a * b).exp(), a.sum() * b)

    out, fn = sf.vjp(g(seqlab), x, y)
    tout, tfn = tf.vjp(g(torch), tx, ty)
    assert_trees_close(out, tout)
    assert_trees_close(fn((u, v)), tfn((tu, tv)), 1e-10, 1e-10)
    assert_trees_close(fn((v, u)), tfn((tv, tu)), 1e-10, 1e-10)   # vjp_fn may be called again
    got = sf.jvp(g(seqlab), (x, y), (u, v))
    want = tf.jvp(g(torch), (tx, ty), (tu, tv))
    assert_trees_close(got, want, 1e-10, 1e-10)
    got = sf.vjp(lambda a: (a * 2, {"n": a.sum()}), x, has_aux=True)
    want = tf.vjp(lambda a: (a * 2, {"n": a.sum()}), tx, has_aux=True)
    assert_trees_close((got[0], got[2]), (want[0], want[2]))
    assert_trees_close(got[1](u), want[1](tu))


def test_vjp_jvp_errors_as_torch():
    x, tx = seqlab.ones(2), torch.ones(2)
    _, fn = sf.vjp(lambda a: a ** 2, x)
    _, tfn = tf.vjp(lambda a: a ** 2, tx)
    assert_raises_like_torch(lambda: fn(seqlab.ones(3)), lambda: tfn(torch.ones(3)),
                             r"Mismatch in shape: grad_output\[0\] has a shape of")
    assert_raises_like_torch(lambda: fn((seqlab.ones(2),)), lambda: tfn((torch.ones(2),)),
                             "Expected pytree structure of cotangents to be the same as pytree structure of outputs")
    assert_raises_like_torch(lambda: sf.vjp(lambda a: (a, 5), x), lambda: tf.vjp(lambda a: (a, 5), tx),
                             "expected f\\(\\*primals\\) to return only tensors, got unsupported type <class 'int'>")
    assert_raises_like_torch(lambda: sf.jvp(lambda a: a, x, x), lambda: tf.jvp(lambda a: a, tx, tx),
                             "jvp\\(f, primals, tangents\\): Expected primals to be a tuple")
    assert_raises_like_torch(lambda: sf.jvp(lambda a: a, (x,), (seqlab.ones(3),)),
                             lambda: tf.jvp(lambda a: a, (tx,), (torch.ones(3),)),
                             "Trying to set a forward gradient that has a different size")
    assert_raises_like_torch(lambda: sf.jvp(lambda a: a, (x,), x), lambda: tf.jvp(lambda a: a, (tx,), tx),
                             "Expected primals and tangents to have the same python structure")


@pytest.mark.parametrize("transform", ["jacrev", "jacfwd"])
def test_jacobians_match_torch(rng, transform):
    (x, y), (tx, ty) = tensors(rng, (3,), (2, 3))

    def h(a, b):
        return (b @ a).sin(), a * a

    for argnums in [0, 1, (0, 1)]:
        got = getattr(sf, transform)(h, argnums=argnums)(x, y)
        want = getattr(tf, transform)(h, argnums=argnums)(tx, ty)
        assert_trees_close(got, want, 1e-12, 1e-12, f"{transform} argnums={argnums}")
    got = getattr(sf, transform)(lambda a: (a.exp(), a.sum()), has_aux=True)(x)
    want = getattr(tf, transform)(lambda a: (a.exp(), a.sum()), has_aux=True)(tx)
    assert_trees_close(got, want, 1e-12, 1e-12)


def test_jacrev_of_a_linear_layer_through_functional_call(rng):
    lin_t = torch.nn.Linear(3, 2).double()
    lin_s = seqlab.nn.Linear(3, 2, dtype=seqlab.float64)
    lin_s.load_state_dict(lin_t.state_dict())
    (x,), (tx,) = tensors(rng, (4, 3))
    params = {k: v.detach() for k, v in lin_s.named_parameters()}
    tparams = {k: v.detach() for k, v in lin_t.named_parameters()}
    got = sf.jacrev(lambda p, a: sf.functional_call(lin_s, p, (a,)))(params, x)
    want = tf.jacrev(lambda p, a: tf.functional_call(lin_t, p, (a,)))(tparams, tx)
    assert_trees_close(got, want, 1e-12, 1e-12)


# ------------------------------------------------------------------ autograd.functional
def test_autograd_functional_matches_torch(rng):
    (a, b, v), (ta, tb, tv) = tensors(rng, (2,), (2,), (2,))
    calls = [
        lambda M, x, y, w: M.jacobian(lambda p: p.exp() * 2, x),
        lambda M, x, y, w: M.jacobian(lambda p, q: (p * q, p.sum()), (x, y)),
        lambda M, x, y, w: M.jacobian(lambda p, q: p * q, (x, y)),
        lambda M, x, y, w: M.jacobian(lambda p: (p * 2,), x),
        lambda M, x, y, w: M.jacobian(lambda p: p * 0 + 1, x, strict=True),
        lambda M, x, y, w: M.jacobian(lambda p: p.new_ones(2), x),
        lambda M, x, y, w: M.jacobian(lambda p: p.cos(), x, vectorize=True, strategy="forward-mode"),
        lambda M, x, y, w: M.vjp(lambda p: p.sin() * 2, x, w),
        lambda M, x, y, w: M.vjp(lambda p: p.sin().sum(), x),
        lambda M, x, y, w: M.vjp(lambda p, q: (p * q).sum(), (x, y)),
        lambda M, x, y, w: M.vjp(lambda p: p.detach() * 2, x, w),
        lambda M, x, y, w: M.jvp(lambda p: p.exp() * 2, x, w),
        lambda M, x, y, w: M.jvp(lambda p: p.sum(), x, w),
        lambda M, x, y, w: M.jvp(lambda p, q: (p * q, q.exp()), (x, y), (w, w)),
        lambda M, x, y, w: M.jvp(lambda p: p * 3, x[:1]),
        lambda M, x, y, w: M.jacobian(lambda p: p.exp().sum().reshape(1), x[:0]),      # size 0
        lambda M, x, y, w: M.jacobian(lambda p: p.exp().sum(0), x.expand(3, 2).t()),   # not contiguous
        lambda M, x, y, w: M.vjp(lambda p, q: p * q, (x.reshape(2, 1), y), w * w.reshape(2, 1)),  # broadcasting
    ]
    for i, call in enumerate(calls):
        assert_trees_close(call(SAF, a, b, v), call(TAF, ta, tb, tv), 1e-12, 1e-12, f"call {i}")
    assert not a.requires_grad
    # an output with no elements: an empty Jacobian (torch's stacks an empty list and raises)
    assert tuple(SAF.jacobian(lambda p: p.exp(), a[:0]).shape) == (0, 0)


def test_autograd_functional_errors_as_torch():
    a, ta = seqlab.ones(2), torch.ones(2)
    cases = [
        (lambda M, x: M.jacobian(lambda p: 3, x), "The outputs of the user-provided function given to jacobian must "
                                                  "be either a Tensor or a tuple of Tensors but the given outputs of "
                                                  "the user-provided function has type <class 'int'>."),
        (lambda M, x: M.jacobian(lambda p: p, 3), "The inputs given to jacobian must be either a Tensor or a tuple of "
                                                  "Tensors but the given inputs has type <class 'int'>."),
        (lambda M, x: M.jacobian(lambda p, q: p, (x, 3)), "but the value at index 1 has type <class 'int'>"),
        (lambda M, x: M.jacobian(lambda p: p.new_ones(2), x, strict=True),
         "Output 0 of the user-provided function does not require gradients"),
        (lambda M, x: M.jacobian(lambda p, q: p * 2, (x, x), strict=True),
         "Output 0 of the user-provided function is independent of input 1. This is not allowed in strict mode."),
        (lambda M, x: M.jacobian(lambda p: p, x, strategy="forward-mode"), "only implemented for `vectorize=True`"),
        (lambda M, x: M.jacobian(lambda p: p, x, strategy="bad"), "Expected strategy to be either"),
        (lambda M, x: M.jacobian(lambda p: p, x, strict=True, vectorize=True),
         "`strict=True` and `vectorized=True` are not supported together"),
        (lambda M, x: M.vjp(lambda p: p * 2, x), "The vector v can only be None if the user-provided function returns "
                                                 "a single Tensor with a single element."),
        (lambda M, x: M.vjp(lambda p: p * 2, x, x.new_ones(3)), "v has invalid size: should be"),
        (lambda M, x: M.vjp(lambda p: (p * 2, p), x, (x,)), "v is a tuple of invalid length: should be 2 but got 1."),
        (lambda M, x: M.vjp(lambda p, q: (p * 2).sum(), (x, x), strict=True),
         "The output of the user-provided function is independent of input 1. This is not allowed in strict mode."),
        (lambda M, x: M.jvp(lambda p: p * 2, x), "The vector v can only be None if the input to the user-provided "
                                                 "function is a single Tensor with a single element."),
        (lambda M, x: M.jvp(lambda p: p * 2, (x, x), (x,)), "v is a tuple of invalid length"),
    ]
    for call, message in cases:
        assert_raises_like_torch(lambda: call(SAF, a), lambda: call(TAF, ta), message)


def test_forward_ad_names_exist_and_refuse_use():
    from seqlab.autograd import forward_ad, grad_mode
    assert grad_mode.no_grad is seqlab.no_grad
    assert seqlab.autograd.Variable and seqlab.autograd.Function
    with pytest.raises(NotImplementedError, match="forward-mode AD"):
        forward_ad.make_dual(seqlab.ones(2), seqlab.ones(2))
    with pytest.raises(NotImplementedError, match="forward-mode AD"):
        with forward_ad.dual_level():
            pass


# ------------------------------------------------------------------ vmap
def test_vmap_matches_torch(rng):
    (x, y, z), (tx, ty, tz) = tensors(rng, (4, 3), (3, 4), (3,))
    calls = [
        lambda F, a, b, c: F.vmap(lambda p: p.sum() * p)(a),
        lambda F, a, b, c: F.vmap(lambda p, q: p @ q, in_dims=(0, 1))(a, b),
        lambda F, a, b, c: F.vmap(lambda p, q: p * q, in_dims=(0, None))(a, c),
        lambda F, a, b, c: F.vmap(lambda p: (p * 2, p.sum()), out_dims=(1, 0))(a),
        lambda F, a, b, c: F.vmap(lambda p: p.exp(), in_dims=-1, out_dims=-1)(b),
        lambda F, a, b, c: F.vmap(F.vmap(lambda s, t: s * t), in_dims=(0, None))(a, c),   # nested: an outer product
        lambda F, a, b, c: F.vmap(lambda d: d["p"] * d["q"][0], in_dims=({"p": 0, "q": [1]},))({"p": a, "q": [b]}),
        lambda F, a, b, c: F.vmap(lambda p, n, scale=1.0: p * n * scale, in_dims=(0, None))(a, 2, scale=3.0),
        lambda F, a, b, c: F.vmap(lambda p: {"o": p * 2}, chunk_size=2)(a),
        lambda F, a, b, c: F.vmap(lambda p: p.sum())(a[:0]),
        lambda F, a, b, c: F.vmap(lambda p: (p * 2, c), out_dims=(0, None))(a),
    ]
    for i, call in enumerate(calls):
        assert_trees_close(call(sf, x, y, z), call(tf, tx, ty, tz), 1e-12, 1e-12, f"call {i}")
    # torch.vmap is torch.func.vmap, and so at seqlab's top level
    assert seqlab.vmap is sf.vmap and torch.vmap is tf.vmap
    assert_trees_close(seqlab.vmap(lambda p: p * 2)(x), torch.vmap(lambda p: p * 2)(tx), 0, 0, "top level")


def test_per_sample_gradients_of_a_linear_layer(rng):
    """The torch.func tutorial: vmap(grad(loss of functional_call)) gives one gradient per example."""
    lin_t = torch.nn.Linear(3, 2).double()
    lin_s = seqlab.nn.Linear(3, 2, dtype=seqlab.float64)
    lin_s.load_state_dict(lin_t.state_dict())
    (x, t), (tx, tt) = tensors(rng, (5, 3), (5, 2))
    results = []
    for (lib, F), model, inputs, targets in [(LIBS[0], lin_s, x, t), (LIBS[1], lin_t, tx, tt)]:
        params = {k: v.detach() for k, v in model.named_parameters()}

        def loss(p, a, b, F=F, model=model):
            out = F.functional_call(model, p, (a.unsqueeze(0),))
            return ((out - b.unsqueeze(0)) ** 2).mean()

        results.append(F.vmap(F.grad(loss), in_dims=(None, 0, 0))(params, inputs, targets))
    assert_trees_close(*results, 1e-12, 1e-12)
    assert tuple(results[0]["weight"].shape) == (5, 2, 3)


def test_vmap_over_a_custom_function_and_with_autograd(rng):
    class Square(seqlab.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 2 * x * g

    x = seqlab.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    y = sf.vmap(Square.apply)(x)
    y.sum().backward()   # gradients flow through vmap's slices and stack
    assert_close(np_of(x.grad), 2 * np_of(x), 1e-12, 1e-12)
    assert_close(np_of(sf.vmap(sf.grad(lambda r: Square.apply(r).sum()))(x)), 2 * np_of(x), 1e-12, 1e-12)


def test_vmap_randomness():
    x = seqlab.zeros(3, 2)
    assert_raises_like_torch(lambda: sf.vmap(lambda p: p + seqlab.rand(2))(x),
                             lambda: tf.vmap(lambda p: p + torch.rand(2))(torch.zeros(3, 2)),
                             "vmap: called random operation while in randomness error mode")
    same = sf.vmap(lambda p: p + seqlab.rand(2), randomness="same")(x)
    assert bool((same == same[0]).all())
    different = sf.vmap(lambda p: p + seqlab.rand(2), randomness="different")(x)
    assert not bool((different == different[0]).all())
    assert_raises_like_torch(lambda: sf.vmap(lambda p: p, randomness="bad")(x),
                             lambda: tf.vmap(lambda p: p, randomness="bad")(torch.zeros(3, 2)),
                             "Only allowed values for randomness are 'error', 'different', or 'same'. Got bad")


def test_vmap_errors_as_torch():
    x, tx = seqlab.ones(3), torch.ones(3)
    cases = [
        (lambda F, a: F.vmap(lambda p: p * 2, in_dims=1)(a),
         "Got in_dim=1 for some input, but that input is a Tensor of dimensionality 1 so expected in_dim to satisfy "
         "-1 <= in_dim < 1."),
        (lambda F, a: F.vmap(lambda p, q: p * q)(a, a.new_ones(4)),
         r"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes \[3, 4\]"),
        (lambda F, a: F.vmap(lambda p: p * 2, in_dims=(0, 0))(a), "in_dims is not compatible with the structure of "
                                                                   "`inputs`"),
        (lambda F, a: F.vmap(lambda p: 3)(a), "must only return Tensors, got type <class 'int'>. Did you mean to set "
                                              "out_dims= to None for output?"),
        (lambda F, a: F.vmap(lambda p: p * 2, in_dims=None)(a), "expected `in_dims` to be int or a \\(potentially "
                                                                "nested\\) tuple matching the structure of inputs, "
                                                                "got: <class 'NoneType'>"),
        (lambda F, a: F.vmap(lambda p: p * 2, in_dims=[0])(a), "got: <class 'list'>"),
        (lambda F, a: F.vmap(lambda p, q: p, in_dims=(None, None))(a, a), "vmap: Expected at least one Tensor to vmap "
                                                                          "over"),
        (lambda F, a: F.vmap(lambda p: p, chunk_size=0)(a), r"vmap: chunk_size should be None or greater than 0. "
                                                            r"\(got 0\)"),
        (lambda F, a: F.vmap(lambda p: p)(5), "Got in_dim=0 for an input but the input is of type <class 'int'>. We "
                                              "cannot vmap over non-Tensor arguments"),
        (lambda F, a: F.vmap(lambda p: p)(), "got no inputs. Maybe you forgot to add inputs"),
        (lambda F, a: F.vmap(lambda p: p * 2, out_dims=None)(a.cumsum(0)),
         "can not return a BatchedTensor when out_dim is None"),
        (lambda F, a: F.vmap(lambda p: p, out_dims=(0, 1))(a), "out_dims is not compatible with the structure of "
                                                               "`outputs`"),
    ]
    for call, message in cases:
        assert_raises_like_torch(lambda: call(sf, x), lambda: call(tf, tx), message)


# ------------------------------------------------------------------ functional_call
def test_functional_call_on_an_lstm_matches_torch_and_restores_the_module(rng):
    lstm_t = torch.nn.LSTM(3, 4, num_layers=2, batch_first=True).double()
    lstm_s = seqlab.nn.LSTM(3, 4, num_layers=2, batch_first=True, dtype=seqlab.float64)
    lstm_s.load_state_dict(lstm_t.state_dict())
    (x,), (tx,) = tensors(rng, (2, 5, 3))
    new = {k: rng.standard_normal(tuple(v.shape)) * 0.3 for k, v in lstm_t.named_parameters()}
    before = {k: np_of(v) for k, v in lstm_s.named_parameters()}
    got = sf.functional_call(lstm_s, {k: seqlab.tensor(v) for k, v in new.items()}, x)
    want = tf.functional_call(lstm_t, {k: torch.tensor(v) for k, v in new.items()}, tx)
    assert_trees_close(got, want, 1e-12, 1e-12)
    assert all(np.array_equal(np_of(v), before[k]) for k, v in lstm_s.named_parameters())
    assert all(isinstance(v, seqlab.nn.Parameter) for v in lstm_s.parameters())
    # gradients reach the tensors passed in, not the module's parameters
    w = seqlab.tensor(new["weight_hh_l1"], requires_grad=True)
    tw = torch.tensor(new["weight_hh_l1"], requires_grad=True)
    sf.functional_call(lstm_s, {"weight_hh_l1": w}, (x,))[0].pow(2).sum().backward()
    tf.functional_call(lstm_t, {"weight_hh_l1": tw}, (tx,))[0].pow(2).sum().backward()
    assert_close(np_of(w.grad), np_of(tw.grad), 1e-12, 1e-10)
    assert lstm_s.weight_hh_l1.grad is None


def test_functional_call_restores_even_on_error():
    lin = seqlab.nn.Linear(3, 2)
    weight = lin.weight
    with pytest.raises(RuntimeError):
        sf.functional_call(lin, {"weight": seqlab.zeros(5, 5), "extra": seqlab.ones(1)}, seqlab.ones(4, 3))
    assert lin.weight is weight and not hasattr(lin, "extra")


def tied_module(lib):
    """Two Linear layers sharing a weight, and a buffer, for seqlab or torch."""
    class Tied(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b = lib.nn.Linear(2, 2), lib.nn.Linear(2, 2)
            self.b.weight = self.a.weight
            self.register_buffer("buf", lib.zeros(2))

        def forward(self, x):
            return self.b(self.a(x)) + self.buf

    return Tied()


def test_functional_call_arguments_as_torch(rng):
    tm, sm = tied_module(torch), tied_module(seqlab)
    sm.load_state_dict(tm.state_dict())
    eye, ones = np.eye(2, dtype=np.float32), np.ones((1, 2), np.float32)
    calls = [
        lambda F, m, L: F.functional_call(m, {"a.weight": L.tensor(eye)}, L.tensor(ones)),
        lambda F, m, L: F.functional_call(m, {"a.weight": L.tensor(eye), "b.weight": L.tensor(2 * eye)},
                                          L.tensor(ones), tie_weights=False),
        lambda F, m, L: F.functional_call(m, ({"buf": L.ones(2)}, {"a.bias": L.ones(2)}), (L.tensor(ones),)),
        lambda F, m, L: F.functional_call(m, [{"a.weight": L.tensor(eye)}], kwargs={"x": L.tensor(ones)}),
    ]
    for i, call in enumerate(calls):
        assert_trees_close(call(sf, sm, seqlab), call(tf, tm, torch), 1e-6, 1e-6, f"call {i}")
    errors = [
        (lambda F, m, L: F.functional_call(m, {"a.weight": L.tensor(eye), "b.weight": L.tensor(eye)}, L.tensor(ones)),
         ValueError, r"functional_call got multiple values for keys \['a.weight', 'b.weight'\], which are tied. "
                     "Consider using tie_weights=False"),
        (lambda F, m, L: F.functional_call(m, {"a.weight": L.tensor(eye), "zz": L.ones(1)}, L.tensor(ones), strict=True),
         RuntimeError, "Error\\(s\\) in reparametrizing for Tied:\n\tUnexpected key\\(s\\): 'zz'.\n\tMissing "
                       "key\\(s\\): 'a.bias', 'b.bias', 'buf'."),
        (lambda F, m, L: F.functional_call(m, ({"buf": L.ones(2)}, {"buf": L.ones(2)}), L.tensor(ones)),
         ValueError, r"\['buf'\] appeared in multiple dictionaries; behavior of functional call is ambiguous"),
        (lambda F, m, L: F.functional_call(m, 3, L.tensor(ones)), ValueError,
         "Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got <class 'int'>"),
    ]
    for call, kind, message in errors:
        err = assert_raises_like_torch(lambda: call(sf, sm, seqlab), lambda: call(tf, tm, torch), message)
        assert type(err) is kind


def test_stack_module_state_and_an_ensemble(rng):
    models_t = [torch.nn.Linear(3, 2).double() for _ in range(3)]
    models_s = [seqlab.nn.Linear(3, 2, dtype=seqlab.float64) for _ in range(3)]
    for s, t in zip(models_s, models_t):
        s.load_state_dict(t.state_dict())
    (x,), (tx,) = tensors(rng, (4, 3))
    results = []
    for F, models, inputs in [(sf, models_s, x), (tf, models_t, tx)]:
        params, buffers = F.stack_module_state(models)
        results.append(F.vmap(lambda p, b, a, F=F, m=models[0]: F.functional_call(m, (p, b), (a,)),
                              in_dims=(0, 0, None))(params, buffers, inputs))
        assert params["weight"].requires_grad
    assert_trees_close(*results, 1e-12, 1e-12)


def test_grad_jacrev_and_vmap_through_an_lstm(rng):
    """torch.func on an LSTM: the gradient of a loss with respect to the parameters (through
    functional_call) and the Jacobian of the last output with respect to the input; vmap over the
    batch, which torch cannot do (no batching rule for aten::lstm), against a loop in torch."""
    lstm_t = torch.nn.LSTM(3, 4, batch_first=True).double()
    lstm_s = seqlab.nn.LSTM(3, 4, batch_first=True, dtype=seqlab.float64)
    lstm_s.load_state_dict(lstm_t.state_dict())
    (x,), (tx,) = tensors(rng, (2, 5, 3))
    params = {k: v.detach() for k, v in lstm_s.named_parameters()}
    tparams = {k: v.detach() for k, v in lstm_t.named_parameters()}
    got = sf.grad(lambda p, a: sf.functional_call(lstm_s, p, (a,))[0].pow(2).sum())(params, x)
    want = tf.grad(lambda p, a: tf.functional_call(lstm_t, p, (a,))[0].pow(2).sum())(tparams, tx)
    assert_trees_close(got, want, 1e-12, 1e-10)
    got = sf.jacrev(lambda a: lstm_s(a)[0][-1])(x[0])
    want = tf.jacrev(lambda a: lstm_t(a)[0][-1])(tx[0])
    assert_trees_close(got, want, 1e-12, 1e-10)
    got = sf.vmap(lambda a: lstm_s(a.unsqueeze(0))[0].sum())(x)
    want = torch.stack([lstm_t(a.unsqueeze(0))[0].sum() for a in tx])
    assert_trees_close(got, want.detach(), 1e-12, 1e-12)


def test_stack_module_state_errors_as_torch():
    cases = [
        (lambda L: L.func.stack_module_state([]), "stack_module_state: Expected at least one model, got 0."),
        (lambda L: L.func.stack_module_state([L.nn.Linear(2, 2), L.nn.Linear(2, 2).eval()]),
         "stack_module_state: Expected all models to have the same training/eval mode."),
    ]
    for call, message in cases:
        assert_raises_like_torch(lambda: call(seqlab), lambda: call(torch), message)


# ------------------------------------------------------------------ linearize
def test_linearize_matches_torchs_jvp(rng):
    """linearize(f, *primals) gives f(*primals) and a jvp_fn equal to torch.func.jvp at those
    primals (linearize's definition; torch's own linearize traces with make_fx, which this test
    process keeps out of), callable many times, over pytrees."""
    (x, y, u, v), (tx, ty, tu, tv) = tensors(rng, (3, 4), (3, 4), (3, 4), (3, 4))

    def g(a, b):
        return ((a * b).exp(), {"s": a.sum() * b, "t": a.tanh()})

    out, fn = sf.linearize(g, x, y)
    tout = g(tx, ty)
    assert_trees_close(out, tout)
    for (p, q), (tp, tq) in [((u, v), (tu, tv)), ((v, u), (tv, tu)), ((u * 0, v), (tu * 0, tv))]:
        assert_trees_close(fn(p, q), tf.jvp(g, (tx, ty), (tp, tq))[1], 1e-10, 1e-10)
    out, fn = sf.linearize(lambda d: d["a"].sin() @ d["b"].t(), {"a": x, "b": y})
    want = tf.jvp(lambda d: d["a"].sin() @ d["b"].t(), ({"a": tx, "b": ty},), ({"a": tu, "b": tv},))[1]
    assert_trees_close(fn({"a": u, "b": v}), want, 1e-10, 1e-10)
    # an output that does not depend on the inputs has a zero derivative
    _, fn = sf.linearize(lambda a: (a * 2, seqlab.ones(2)), x)
    assert_trees_close(fn(u), (tu * 2, torch.zeros(2)), 1e-12, 0)


def test_linearize_errors_as_torch():
    """jvp_fn checks its tangents against the primals as torch's does (messages as torch 2.13's)."""
    x = seqlab.ones(3)
    _, fn = sf.linearize(lambda a, b: a * b, x, x)
    with pytest.raises(RuntimeError, match=r"Expected the tangents \(\*\) to have the same argspec as the primals "
                                           r"\(\*, \*\)"):
        fn(seqlab.ones(3))
    with pytest.raises(RuntimeError, match=r"tangent:0 with shape seqlab.Size\(\[2\]\) in flattened pytree doesn't "
                                           r"match the shape seqlab.Size\(\[3\]\) of the corresponding primal"):
        fn(seqlab.ones(2), seqlab.ones(3))
    with pytest.raises(RuntimeError, match="tangent:1 with dtype seqlab.float64 in flattened pytree doesn't match "
                                           "the dtype seqlab.float32 of the corresponding primal"):
        fn(seqlab.ones(3), seqlab.ones(3, dtype=seqlab.float64))


# ------------------------------------------------------------------ rearrange (einops)
REARRANGE = [
    ("b h w c -> b c h w", {}), ("b h w c -> (b h) w c", {}), ("b h w c -> h (b w) c", {}),
    ("b h w c -> b (c h w)", {}), ("b (h1 h) (w1 w) c -> (b h1 w1) h w c", {"h1": 2, "w1": 2}),
    ("b (h h1) (w w1) c -> b h w (c h1 w1)", {"h1": 2, "w1": 2}), ("b ... c -> c b ...", {}),
    ("b h w c -> b h w c 1", {}), ("b h w c -> b h w () c", {}), ("... c -> (...) c", {}),
    ("b h w c -> c (w h) b", {}), ("b (h w) ... -> b h w ...", {"h": 3}), ("b h w c -> b h w c", {}),
]


@pytest.mark.parametrize("pattern,lengths", REARRANGE)
def test_rearrange_matches_torch(rng, pattern, lengths):
    """torch.func.rearrange's patterns (its docstring's and more): the same values and shapes, and the
    gradient flows back through the reshapes and the permute."""
    x = rng.standard_normal((4, 6, 8, 3))
    got = sf.rearrange(seqlab.tensor(x), pattern, **lengths)
    want = tf.rearrange(torch.tensor(x), pattern, **lengths)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    xs = seqlab.tensor(x, requires_grad=True)
    (sf.rearrange(xs, pattern, **lengths) * seqlab.tensor(want.numpy())).sum().backward()
    np.testing.assert_allclose(xs.grad.numpy(), x, rtol=1e-12)   # d Σ r(x)·r(x) / dx = x through a permutation


def test_rearrange_stacks_a_list_and_gives_views():
    xs = [seqlab.ones(2, 3) * k for k in range(4)]
    got = sf.rearrange(xs, "n b c -> b n c")
    want = tf.rearrange([torch.ones(2, 3) * k for k in range(4)], "n b c -> b n c")
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    x = seqlab.zeros(2, 6)
    sf.rearrange(x, "a (b c) -> c a b", c=3).fill_(1.0)   # a reshape and a permute of x: a view
    assert float(x.sum()) == 12.0


@pytest.mark.parametrize("pattern,lengths,match", [
    ("b (h w) c -> c", {"h": 2}, "Identifiers only on one side"),
    ("a b c -> a b", {}, "Identifiers only on one side"),
    ("a a c -> a c", {}, "duplicate dimension 'a'"),
    ("a b c -> a b c", {"d": 3}, "Identifiers not found in rearrange expression"),
    ("a b -> a b", {}, "Wrong shape"),
    ("a (b c) d -> a b c d", {}, "Could not infer sizes"),
    ("a b c -> a b c ...", {}, "Ellipsis found in right side, but not left side"),
    ("a b c", {}, "single '->'"),
])
def test_rearrange_errors(pattern, lengths, match):
    """Bad patterns raise ValueError as torch's rearrange does, with its words where it has them."""
    x, tx = seqlab.zeros(2, 6, 4), torch.zeros(2, 6, 4)
    with pytest.raises(ValueError, match=match):
        sf.rearrange(x, pattern, **lengths)
    with pytest.raises(Exception):
        tf.rearrange(tx, pattern, **lengths)
    with pytest.raises(ValueError, match="can't divide axis of length 6 in chunks of 4"):
        sf.rearrange(x, "a (b b2) c -> a b b2 c", b=4)
