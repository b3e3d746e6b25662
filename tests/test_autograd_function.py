"""Tensor hooks (register_hook, register_post_accumulate_grad_hook) and user-defined autograd
Functions (seqlab.autograd.Function), each written once for seqlab and torch and compared: values,
gradients, what hooks and backward see, the order hooks run in, and torch's errors."""
import gc
import weakref

import numpy as np
import pytest
import torch

import seqlab
from conftest import assert_close, assert_raises_like_torch

LIBS = [seqlab, torch]


def leaf(lib, arr):
    return lib.tensor(np.array(arr), requires_grad=True)


def tol(dtype):
    return (1e-5, 1e-5) if dtype == np.float32 else (1e-12, 1e-12)


def np_of(t):
    return t.detach().numpy().copy()


# ------------------------------------------------------------------ hooks
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_hooks_on_leaves_and_non_leaves_replace_the_gradient_as_torch(rng, dtype):
    a = rng.standard_normal((3, 4)).astype(dtype)
    seen = {}
    for lib in LIBS:
        x = leaf(lib, a)
        log = seen[lib.__name__] = []
        y = x * 2
        z = y.tanh()
        y.register_hook(lambda g: log.append(("y", np_of(g))))           # None: keep the gradient
        y.register_hook(lambda g: g * 3)                                   # replaces it ...
        y.register_hook(lambda g: log.append(("y after", np_of(g))))     # ... for the next hook
        x.register_hook(lambda g: g + 1)
        loss = (z * z).sum() + (y * x).sum()                               # y and x used twice
        loss.backward()
        log.append(("x.grad", np_of(x.grad)))
    for (name, got), (name_t, want) in zip(seen["seqlab"], seen["torch"], strict=True):
        assert name == name_t
        assert_close(got, want, *tol(dtype), name)


def test_retain_grad_keeps_the_hooked_gradient_whatever_the_order():
    for order in ("hook first", "retain first"):
        got = []
        for lib in LIBS:
            x = leaf(lib, [1.0, 2.0])
            y = x * 2
            if order == "hook first":
                y.register_hook(lambda g: g * 10)
                y.retain_grad()
            else:
                y.retain_grad()
                y.register_hook(lambda g: g * 10)
            y.sum().backward()
            got.append((y.grad.tolist(), x.grad.tolist()))
        assert got[0] == got[1] == ([10.0, 10.0], [20.0, 20.0]), order


def test_remove_and_the_handle_as_a_context_manager():
    for lib in LIBS:
        x = leaf(lib, [1.0, 2.0])
        h = x.register_hook(lambda g: g * 3)
        assert lib.autograd.grad((x * 1).sum(), x)[0].tolist() == [3.0, 3.0]   # grad() sees leaf hooks too
        h.remove()
        h.remove()  # harmless twice
        assert lib.autograd.grad((x * 1).sum(), x)[0].tolist() == [1.0, 1.0]
        y = x * 1
        with y.register_hook(lambda g: g * 5):
            pass
        y.sum().backward()
        assert x.grad.tolist() == [1.0, 1.0]


def test_non_leaf_hook_runs_after_the_tensor_object_is_gone_and_on_the_root():
    for lib in LIBS:
        calls = []
        x = leaf(lib, [1.0, 2.0])
        y = x * 2
        y.register_hook(lambda g: calls.append("y"))
        z = y.sum()
        z.register_hook(lambda g: calls.append("root") or g * 2)
        del y
        gc.collect()
        z.backward()
        assert calls == ["root", "y"]
        assert x.grad.tolist() == [4.0, 4.0]


def test_no_hook_call_where_no_gradient_flows():
    for lib in LIBS:
        calls = []
        a = leaf(lib, [1.0, 2.0])
        b, c = a * 1, a * 2
        b.register_hook(lambda g: calls.append("b"))
        c.sum().backward()
        assert calls == []


def test_post_accumulate_grad_hook_sees_the_updated_grad_and_not_autograd_grad():
    for lib in LIBS:
        seen = []
        x = leaf(lib, [1.0, 2.0])
        h = x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.tolist()))
        (x * 2).sum().backward()
        (x * 3).sum().backward()
        lib.autograd.grad((x * 5).sum(), x)
        assert seen == [[2.0, 2.0], [5.0, 5.0]]
        h.remove()
        (x * 1).sum().backward()
        assert len(seen) == 2


def test_an_optimizer_step_in_the_post_accumulate_hook():
    # torch's recipe for a fused optimizer step: update each parameter as soon as its grad is ready
    for lib in LIBS:
        w = leaf(lib, [1.0, -1.0])

        def step(p):
            with lib.no_grad():
                p.sub_(0.5 * p.grad)
            p.grad = None

        w.register_post_accumulate_grad_hook(step)
        (w * w).sum().backward()
        assert w.tolist() == [0.0, 0.0] and w.grad is None


def test_hook_errors_as_torch():
    def changes_size(g):
        return g.sum()

    def changes_type(g):
        return g.double()

    for bad, kind, message in [(changes_size, RuntimeError, "hook 'changes_size' has changed the size of value"),
                               (changes_type, RuntimeError, r"hook 'changes_type' has changed the type of value "
                                                            r"\(was \w+\.FloatTensor got \w+\.DoubleTensor\)"),
                               (lambda g: 3, TypeError, "expected Variable, but hook returned 'int'")]:
        def run(lib, bad=bad):
            y = leaf(lib, np.ones(3, np.float32)) * 2
            y.register_hook(bad)
            y.sum().backward()
        err = assert_raises_like_torch(lambda: run(seqlab), lambda: run(torch), message)
        assert type(err) is kind
    assert_raises_like_torch(lambda: seqlab.zeros(3).register_hook(lambda g: g),
                             lambda: torch.zeros(3).register_hook(lambda g: g),
                             "cannot register a hook on a tensor that doesn't require gradient")
    assert_raises_like_torch(lambda: (leaf(seqlab, [1.0]) * 2).register_post_accumulate_grad_hook(print),
                             lambda: (leaf(torch, [1.0]) * 2).register_post_accumulate_grad_hook(print),
                             "post accumulate grad hooks cannot be registered on non-leaf tensors")


def test_an_exception_in_a_hook_reaches_the_caller_unchanged():
    class Stop(Exception):
        pass

    def stop(g):
        raise Stop("from the hook")

    x = leaf(seqlab, [1.0, 2.0])
    y = x * 2
    y.register_hook(stop)
    with pytest.raises(Stop, match="from the hook"):
        y.sum().backward()
    z = x * 3
    z.register_hook(lambda g: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        seqlab.autograd.grad(z.sum(), x)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_hook_on_the_hidden_state_of_an_lstm_cell_loop(rng, dtype):
    """Gradient inspection through time: the gradient reaching each h_t of an LSTMCell loop."""
    T, B, C, H = 5, 2, 3, 4
    xs = rng.standard_normal((T, B, C)).astype(dtype)
    cell_t = torch.nn.LSTMCell(C, H).to(torch.float64 if dtype == np.float64 else torch.float32)
    cell_s = seqlab.nn.LSTMCell(C, H, dtype=seqlab.float64 if dtype == np.float64 else seqlab.float32)
    cell_s.load_state_dict(cell_t.state_dict())
    norms = {}
    for lib, cell in [(seqlab, cell_s), (torch, cell_t)]:
        seen = norms[lib.__name__] = [None] * T
        h = c = lib.zeros(B, H, dtype=lib.float64 if dtype == np.float64 else lib.float32)
        outs = []
        for t in range(T):
            h, c = cell(lib.tensor(xs[t]), (h, c))
            h.register_hook(lambda g, t=t: seen.__setitem__(t, np_of(g)))
            outs.append(h)
        loss = outs[-1].pow(2).sum() + 0.1 * outs[0].sum()
        loss.backward()
    for t in range(T):
        assert_close(norms["seqlab"][t], norms["torch"][t], *((1e-5, 1e-4) if dtype == np.float32 else (1e-12, 1e-10)),
                     f"dloss/dh_{t}")
    # the gradient through time shrinks going back, as the lecture shows
    assert np.abs(norms["seqlab"][0]).sum() > 0


def test_gradient_clipping_by_hook_changes_the_parameter_gradients_as_torch(rng):
    a = rng.standard_normal((4, 3)).astype(np.float32)
    lin_t = torch.nn.Linear(3, 2)
    lin_s = seqlab.nn.Linear(3, 2)
    lin_s.load_state_dict(lin_t.state_dict())
    for lib, lin in [(seqlab, lin_s), (torch, lin_t)]:
        lin.weight.register_hook(lambda g, lib=lib: g.clamp(-0.1, 0.1))
        (lin(lib.tensor(a)) ** 2).sum().backward()
    assert_close(np_of(lin_s.weight.grad), np_of(lin_t.weight.grad), 1e-6, 1e-6)
    assert_close(np_of(lin_s.bias.grad), np_of(lin_t.bias.grad), 1e-5, 1e-5)


# ------------------------------------------------------------------ Function
def functions(lib):
    """The same custom Functions, for seqlab or torch."""
    F = lib.autograd.Function

    class Cube(F):
        # y = k x^3.   dx = 3 k x^2 dy
        @staticmethod
        def forward(ctx, x, k):
            ctx.save_for_backward(x)
            ctx.k = k
            ctx.seen_needs = ctx.needs_input_grad
            return x * x * x * k

        @staticmethod
        def backward(ctx, dy):
            x, = ctx.saved_tensors
            return 3 * ctx.k * x * x * dy, None

    class MulAdd(F):
        # (a*b, a+b): two outputs, two inputs. da = db1 * b + db2, db = db1 * a + db2
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b, a + b

        @staticmethod
        def backward(ctx, d_prod, d_sum):
            a, b = ctx.saved_tensors
            return d_prod * b + d_sum, d_prod * a + d_sum

    class Scaled(F):
        # setup_context style, keyword argument with a default: y = x * y_ * scale
        @staticmethod
        def forward(x, y, scale=2.0):
            return x * y * scale

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, y, scale = inputs
            ctx.save_for_backward(x, y)
            ctx.scale = scale

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * y * ctx.scale, g * x * ctx.scale, None

    class Exp(F):
        # saves its own output: dx = dy * y
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, dy):
            y, = ctx.saved_tensors
            return dy * y

    return Cube, MulAdd, Scaled, Exp


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "empty"])
def test_custom_functions_match_torch(rng, dtype, layout):
    shape = (0, 3) if layout == "empty" else (3, 4)
    arrays = [rng.standard_normal(shape).astype(dtype) for _ in range(2)]
    results = {}
    for lib in LIBS:
        Cube, MulAdd, Scaled, Exp = functions(lib)
        if layout == "transposed":  # leaves stored transposed, used through non-contiguous views
            a, b = (leaf(lib, arr.T.copy()) for arr in arrays)
            xa, xb = a.t(), b.t()
        else:
            a, b = (leaf(lib, arr) for arr in arrays)
            xa, xb = a, b
        c = Cube.apply(xa, 1.5)
        p, s = MulAdd.apply(c, xb)
        q = Scaled.apply(p, s, scale=0.5) + Exp.apply(xb)
        (q.sin().sum() + Scaled.apply(xa, xb).sum()).backward()
        results[lib.__name__] = [q, a.grad, b.grad, c.grad_fn.name(), type(p.grad_fn).__name__]
    got, want = results["seqlab"], results["torch"]
    for g, w, what in zip(got[:3], want[:3], ["value", "grad a", "grad b"]):
        assert_close(np_of(g), np_of(w), *((1e-5, 1e-4) if dtype == np.float32 else (1e-12, 1e-11)), what)
    assert got[3:] == want[3:] == ["CubeBackward", "MulAddBackward"]


def test_custom_functions_pass_gradcheck(rng):
    Cube, MulAdd, Scaled, Exp = functions(seqlab)
    a, b = (leaf(seqlab, rng.standard_normal((2, 3))) for _ in range(2))
    assert seqlab.autograd.gradcheck(lambda x: Cube.apply(x, 2.0), (a,))
    assert seqlab.autograd.gradcheck(lambda x, y: MulAdd.apply(x, y), (a, b))
    assert seqlab.autograd.gradcheck(lambda x, y: Scaled.apply(x, y, scale=3.0), (a, b))
    assert seqlab.autograd.gradcheck(Exp.apply, (a,))


def test_ctx_and_grad_fn_as_torch():
    for lib in LIBS:
        Cube, *_ = functions(lib)
        x = leaf(lib, [1.0, 2.0])
        y = Cube.apply(x, 2.0)
        fn = y.grad_fn
        assert type(fn).__name__ == "CubeBackward" and fn.name() == "CubeBackward"
        assert isinstance(fn, lib.autograd.function.BackwardCFunction)
        assert fn.seen_needs == (True, False)
        assert fn.next_functions[0][0].name().endswith("AccumulateGrad") and fn.next_functions[0][1] == 0
        assert fn.next_functions[0][0].variable is x
        assert fn.saved_tensors[0].tolist() == [1.0, 2.0]
        assert "CubeBackward" in repr(y)
        z = y.exp()
        assert z.grad_fn.next_functions[0][0] is fn      # the same ctx object, seen from further down
        y.sum().backward()
        assert x.grad.tolist() == [6.0, 24.0]
        with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
            fn.saved_tensors
        with lib.no_grad():
            assert Cube.apply(x, 1.0).grad_fn is None
        assert Cube.apply(x.detach(), 1.0).requires_grad is False


def test_retain_graph_runs_the_python_backward_twice():
    for lib in LIBS:
        Cube, *_ = functions(lib)
        x = leaf(lib, [1.0])
        y = Cube.apply(x, 1.0)
        y.backward(retain_graph=True)
        y.backward()
        assert x.grad.tolist() == [6.0]


def test_backward_twice_without_retain_graph_is_torchs_error():
    def run(lib):
        Cube, *_ = functions(lib)
        y = Cube.apply(leaf(lib, [1.0]), 1.0)
        y.backward()
        y.backward()
    assert_raises_like_torch(lambda: run(seqlab), lambda: run(torch),
                             r"Trying to backward through the graph a second time \(or directly access saved tensors")


def test_saved_tensor_modified_in_place_is_torchs_error():
    def run(lib):
        Cube, *_ = functions(lib)
        w = leaf(lib, [1.0, 2.0]) * 1
        y = Cube.apply(w, 1.0)
        w.add_(1)
        y.sum().backward()
    assert_raises_like_torch(lambda: run(seqlab), lambda: run(torch),
                             "one of the variables needed for gradient computation has been modified by an inplace "
                             r"operation: \[.*\[2\]\].*is at version 1; expected version 0 instead")


def test_non_differentiable_outputs_and_materialized_grads():
    seen = {}
    for lib in LIBS:
        log = seen[lib.__name__] = []

        class ArgmaxAndDouble(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                idx = x.argmax()
                ctx.mark_non_differentiable(idx)
                return x * 2, idx, (x > 0).long()

            @staticmethod
            def backward(ctx, dy, didx, dmask):
                log.append((dy.tolist(), didx.tolist(), str(didx.dtype).split(".")[1], dmask.tolist()))
                return dy * 2

        class NoMaterialize(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(False)
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, d1, d2):
                log.append((d1, d2.tolist()))
                return None if d1 is None else d1 * 2

        x = leaf(lib, [1.0, -2.0, 3.0])
        y, idx, mask = ArgmaxAndDouble.apply(x)
        log.append((y.requires_grad, idx.requires_grad, idx.grad_fn, mask.requires_grad))
        y.sum().backward()
        log.append(x.grad.tolist())
        p, q = NoMaterialize.apply(x)
        q.sum().backward()
        log.append(x.grad.tolist())
    assert seen["seqlab"] == seen["torch"]


def test_non_tensor_arguments_and_outputs():
    seen = {}
    for lib in LIBS:
        log = seen[lib.__name__] = []

        class Mixed(lib.autograd.Function):
            @staticmethod
            def forward(ctx, k, x, name, scale=1.0):
                log.append((ctx.needs_input_grad, name, scale))
                return x * k * scale, "label"

            @staticmethod
            def backward(ctx, dy, dlabel):
                log.append(dlabel)
                return None, dy * 3, None, None   # keyword arguments given count as inputs, after the rest

        class Weighted(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, w=None):
                log.append(ctx.needs_input_grad)
                return x * w

            @staticmethod
            def backward(ctx, dy):
                return dy * 2, dy * 3

        x = leaf(lib, [1.0, 2.0])
        y, label = Mixed.apply(3, x, "n", scale=2.0)
        y.sum().backward()
        log.append((label, x.grad.tolist()))
        w = leaf(lib, [1.0, 1.0])
        Weighted.apply(x, w=w).sum().backward()    # a tensor given by keyword gets its gradient
        log.append((x.grad.tolist(), w.grad.tolist()))
    assert seen["seqlab"] == seen["torch"]


def test_an_input_returned_as_it_is_becomes_a_new_tensor_with_the_node():
    for lib in LIBS:
        class Identity(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 5

        x = leaf(lib, [1.0, 2.0])
        y = Identity.apply(x)
        assert y is not x and x.is_leaf and x.grad_fn is None
        assert y.grad_fn.name() == "IdentityBackward"
        y.sum().backward()
        assert x.grad.tolist() == [5.0, 5.0]


def test_mark_dirty_as_torch():
    seen = {}
    for lib in LIBS:
        log = seen[lib.__name__] = []

        class Double_(lib.autograd.Function):
            # in place: x *= 2.   dx = 2 dy
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 2

        a = leaf(lib, [1.0, 2.0, 3.0])
        b = a * 1
        out = Double_.apply(b)
        log.append((out is b, b.grad_fn.name(), b._version, b.tolist()))
        (out * out).sum().backward()
        log.append(a.grad.tolist())
        a.grad = None
        base = a * 1
        view = base[1:]
        Double_.apply(view)
        log.append(base.tolist())
        (base * base).sum().backward()   # through the view: the base's history includes the Function
        log.append(a.grad.tolist())
    assert seen["seqlab"] == seen["torch"]


def test_mark_dirty_errors_as_torch():
    def dirty_leaf(lib):
        class Double_(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 2
        return Double_.apply(leaf(lib, [1.0]))

    def dirty_not_returned(lib):
        class Copy(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x * 1

            @staticmethod
            def backward(ctx, g):
                return g
        return Copy.apply(leaf(lib, [1.0]) * 1)

    assert_raises_like_torch(lambda: dirty_leaf(seqlab), lambda: dirty_leaf(torch),
                             "a leaf Variable that requires grad has been used in an in-place operation.")
    assert_raises_like_torch(lambda: dirty_not_returned(seqlab), lambda: dirty_not_returned(torch),
                             "Some elements marked as dirty during the forward method were not returned as output")


def bad_backward(lib, backward, arg=None):
    """A Function of (k, x) whose backward is `backward`; runs its backward."""
    class Bad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, k, x):
            return x * k

    Bad.backward = staticmethod(backward)
    x = leaf(lib, np.ones((2, 3), np.float32))
    Bad.apply(2, x).sum().backward()
    return x.grad


def test_wrong_gradients_are_torchs_errors():
    cases = [
        (lambda ctx, g: g, "function BadBackward returned an incorrect number of gradients \\(expected 2, got 1\\)"),
        (lambda ctx, g: (None, g, g), "returned an incorrect number of gradients \\(expected 2, got 3\\)"),
        (lambda ctx, g: (g, g), "function BadBackward returned a gradient different than None at position 1, but the "
                                "corresponding forward input was not a Variable"),
        (lambda ctx, g: (None, g.sum()), r"Function BadBackward returned an invalid gradient at index 0 - got \[\] "
                                         r"but expected shape compatible with \[2, 3\]"),
        (lambda ctx, g: (None, g[0]), r"got \[3\] but expected shape compatible with \[2, 3\]"),
        (lambda ctx, g: (None, 3), "expected Variable or None \\(got int\\)"),
    ]
    for backward, message in cases:
        assert_raises_like_torch(lambda: bad_backward(seqlab, backward), lambda: bad_backward(torch, backward),
                                 message)


def test_tolerated_gradients_as_torch():
    # trailing Nones, a broadcastable gradient (summed), another dtype (converted)
    for backward in [lambda ctx, g: (None, g, None, None), lambda ctx, g: (None, g.expand(4, 2, 3)),
                     lambda ctx, g: (None, g.unsqueeze(0).expand(2, 2, 3)[:, :, :1]),
                     lambda ctx, g: (None, g.double())]:
        try:
            want = bad_backward(torch, backward)
        except RuntimeError as e:  # (g[:, :, :1] is not broadcastable: both refuse it)
            assert_raises_like_torch(lambda: bad_backward(seqlab, backward), lambda: bad_backward(torch, backward),
                                     str(e).split(" - ")[0])
            continue
        got = bad_backward(seqlab, backward)
        assert got.dtype == seqlab.float32 and got.tolist() == want.tolist()


def test_save_for_backward_takes_tensors_only():
    def run(lib):
        class Save(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x, 3)
                return x * 1

            @staticmethod
            def backward(ctx, g):
                return g
        return Save.apply(leaf(lib, [1.0]))
    assert_raises_like_torch(lambda: run(seqlab), lambda: run(torch),
                             "save_for_backward can only save variables, but argument 1 is of type int")


def test_an_exception_in_backward_keeps_its_type():
    class Boom(Exception):
        pass

    class Raise(seqlab.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            raise Boom("in backward")

    x = leaf(seqlab, [1.0])
    with pytest.raises(Boom, match="in backward"):
        Raise.apply(x).sum().backward()
    with pytest.raises(KeyError):
        class RaiseKey(Raise):
            @staticmethod
            def backward(ctx, g):
                raise KeyError("k")
        seqlab.autograd.grad(RaiseKey.apply(x).sum(), x)


def test_once_differentiable_and_grad_mode_in_backward():
    seen = {}
    for lib in LIBS:
        log = seen[lib.__name__] = []

        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            @lib.autograd.function.once_differentiable
            def backward(ctx, g):
                log.append(lib.is_grad_enabled())
                return g * 2

        x = leaf(lib, [1.0])
        Twice.apply(x).sum().backward()
        log.append((x.grad.tolist(), Twice.backward.__name__))
    assert seen["seqlab"] == seen["torch"] == [False, ([2.0], "backward")]


def test_legacy_and_unimplemented_functions_as_torch():
    class Legacy(seqlab.autograd.Function):
        def forward(self, x):
            return x

    class LegacyT(torch.autograd.Function):
        def forward(self, x):
            return x

    with pytest.warns(DeprecationWarning):
        legacy = Legacy()
    with pytest.warns(DeprecationWarning):
        legacy_t = LegacyT()
    assert_raises_like_torch(lambda: legacy(seqlab.ones(1)), lambda: legacy_t(torch.ones(1)),
                             "Legacy autograd function with non-static forward method is deprecated")

    class NoBackward(seqlab.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

    class NoBackwardT(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

    assert_raises_like_torch(lambda: NoBackward.apply(leaf(seqlab, [1.0])).sum().backward(),
                             lambda: NoBackwardT.apply(leaf(torch, [1.0])).sum().backward(),
                             "You must implement either the backward or vjp method")


def test_the_graph_of_a_function_is_freed():
    Cube, *_ = functions(seqlab)
    x = leaf(seqlab, [1.0, 2.0])
    y = Cube.apply(x, 2.0)
    ctx = weakref.ref(y.grad_fn)
    out = weakref.ref(y)
    del y
    gc.collect()
    assert ctx() is None and out() is None


def test_a_custom_function_inside_a_module_trains_as_torch(rng):
    a = rng.standard_normal((5, 3)).astype(np.float32)
    lin_t = torch.nn.Linear(3, 2)
    lin_s = seqlab.nn.Linear(3, 2)
    lin_s.load_state_dict(lin_t.state_dict())
    for lib, lin in [(seqlab, lin_s), (torch, lin_t)]:
        Cube, MulAdd, Scaled, Exp = functions(lib)
        opt = lib.optim.SGD(lin.parameters(), lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            loss = Exp.apply(Cube.apply(lin(lib.tensor(a)), 0.1)).mean()
            loss.backward()
            opt.step()
    assert_close(np_of(lin_s.weight), np_of(lin_t.weight), 1e-6, 1e-5)


def test_a_checkpoint_function_recomputes_in_backward_as_torch(rng):
    """Gradient checkpointing written as a Function: forward keeps only the input, backward
    recomputes under enable_grad and runs a nested backward (the engine re-entered from Python)."""
    a = rng.standard_normal((4, 3))
    grads = []
    for lib in LIBS:
        class Checkpoint(lib.autograd.Function):
            @staticmethod
            def forward(ctx, fn, x):
                ctx.fn = fn
                ctx.save_for_backward(x)
                return fn(x)

            @staticmethod
            def backward(ctx, dy):
                x, = ctx.saved_tensors
                with lib.enable_grad():
                    x = x.detach().requires_grad_(True)
                    y = ctx.fn(x)
                lib.autograd.backward(y, dy)
                return None, x.grad

        x = leaf(lib, a)
        y = Checkpoint.apply(lambda t: (t.tanh() @ t.t()).sin(), x * 2)
        assert y.grad_fn.name() == "CheckpointBackward"
        (y * y).sum().backward()
        grads.append(np_of(x.grad))
    assert_close(grads[0], grads[1], 1e-12, 1e-12)


def test_hooks_are_released_with_their_graph_their_tensor_or_remove():
    class Hook:
        def __call__(self, g):
            return g * 2

    def released(setup):
        hook = Hook()
        ref = weakref.ref(hook)
        setup(hook)
        del hook
        gc.collect()
        return ref() is None

    x = leaf(seqlab, [1.0, 2.0])

    def on_a_non_leaf(hook):
        y = x * 2
        y.register_hook(hook)
        y.sum().backward()

    def on_a_leaf(hook):
        seqlab.ones(2, requires_grad=True).register_hook(hook)

    def removed(hook):
        x.register_hook(hook).remove()

    assert released(on_a_non_leaf) and released(on_a_leaf) and released(removed)
