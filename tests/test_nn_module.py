"""seqlab.nn.Module, Parameter and the containers, against torch.nn: registration and
traversal order, train/eval, to(dtype), zero_grad, state_dict/load_state_dict (and its
errors), hooks, apply, and repr. Most tests build the same model with both libraries from
one function that takes the `nn` namespace, then compare.
"""
import collections

import numpy as np
import pytest
import torch

import seqlab
import seqlab.nn as nn
from conftest import assert_raises_like_torch, sl_np


def _lib(tnn):
    """(nn namespace, tensor factory) for seqlab or torch."""
    return (nn, seqlab) if tnn is nn else (torch.nn, torch)


def build_net(tnn):
    """A Python-subclassed model with nested modules, a ModuleList, a ModuleDict, a raw
    Parameter, a persistent and a non-persistent buffer, a None parameter and a tied weight."""
    nn_, lib = _lib(tnn)

    class Block(nn_.Module):
        def __init__(self, d):
            super().__init__()
            self.norm = nn_.LayerNorm(d)
            self.ff = nn_.Sequential(nn_.Linear(d, 2 * d), nn_.GELU(), nn_.Linear(2 * d, d))
            self.gate = nn_.Parameter(lib.ones(d))

        def forward(self, x):
            return x + self.gate * self.ff(self.norm(x))

    class Net(nn_.Module):
        def __init__(self):
            super().__init__()
            self.scale = nn_.Parameter(lib.ones(1))  # registered before the submodules
            self.embed = nn_.Embedding(10, 4, padding_idx=0)
            self.blocks = nn_.ModuleList([Block(4) for _ in range(2)])
            self.heads = nn_.ModuleDict({"cls": nn_.Linear(4, 3), "reg": nn_.Linear(4, 1, bias=False)})
            self.register_buffer("steps", lib.zeros(1))
            self.register_buffer("cache", lib.zeros(2), persistent=False)
            self.register_parameter("unused", None)
            self.out = nn_.Linear(4, 10)
            self.out.weight = self.embed.weight  # tied

        def forward(self, idx):
            h = self.embed(idx) * self.scale
            for b in self.blocks:
                h = b(h)
            return self.out(h), self.heads["cls"](h), self.heads["reg"](h)

    return Net()


# ------------------------------------------------------------------ Parameter
def test_parameter_is_marked_leaf_sharing_storage():
    data = seqlab.randn(3, 2)
    p = nn.Parameter(data)
    assert isinstance(p, nn.Parameter) and isinstance(p, seqlab.Tensor)
    assert not isinstance(data, nn.Parameter)
    assert p.is_leaf and p.requires_grad and not data.requires_grad
    assert p.data_ptr() == data.data_ptr()  # shares storage, as torch's Parameter does
    assert not isinstance(p.detach(), nn.Parameter)
    assert not isinstance(p * 2, nn.Parameter)
    q = nn.Parameter(data, requires_grad=False)
    assert isinstance(q, nn.Parameter) and not q.requires_grad
    assert isinstance(nn.Parameter(), nn.Parameter) and nn.Parameter().shape == (0,)


def test_parameter_from_a_tensor_in_a_graph_is_a_leaf():
    x = seqlab.randn(3, requires_grad=True)
    p = nn.Parameter(x * 2)
    assert p.is_leaf and p.grad_fn is None and p.requires_grad


def test_parameter_repr_like_torch():
    p = nn.Parameter(seqlab.tensor([1.0, 2.0]))
    tp = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    assert repr(p) == repr(tp) == "Parameter containing:\ntensor([1., 2.], requires_grad=True)"
    assert str(p) == str(tp)
    assert repr(p.detach()) == "tensor([1., 2.])"


def test_parameter_rejects_non_tensors():
    with pytest.raises(TypeError, match="must be a seqlab.Tensor"):
        nn.Parameter([1.0, 2.0])


# ------------------------------------------------------------------ registration and order
def _names(pairs):
    return [n for n, _ in pairs]


def test_nested_model_registers_everything_in_torch_order():
    s, t = build_net(nn), build_net(torch.nn)
    assert _names(s.named_parameters()) == _names(t.named_parameters())
    assert _names(s.named_parameters(remove_duplicate=False)) == _names(t.named_parameters(remove_duplicate=False))
    assert _names(s.named_buffers()) == _names(t.named_buffers()) == ["steps", "cache"]
    assert _names(s.named_modules()) == _names(t.named_modules())
    assert _names(s.named_children()) == _names(t.named_children())
    assert list(s.state_dict()) == list(t.state_dict())
    assert len(list(s.parameters())) == len(list(t.parameters()))
    assert [tuple(p.shape) for p in s.parameters()] == [tuple(p.shape) for p in t.parameters()]
    assert _names(s.named_parameters(prefix="net")) == _names(t.named_parameters(prefix="net"))
    assert _names(s.named_parameters(recurse=False)) == _names(t.named_parameters(recurse=False)) == ["scale"]
    assert _names(s.blocks[1].named_modules(prefix="b")) == _names(t.blocks[1].named_modules(prefix="b"))


def test_tied_weight_listed_once_and_is_one_object():
    s = build_net(nn)
    assert s.out.weight is s.embed.weight
    names = _names(s.named_parameters())
    assert "embed.weight" in names and "out.weight" not in names
    assert "out.weight" in _names(s.named_parameters(remove_duplicate=False))
    assert "out.weight" in s.state_dict()  # state_dict keeps both names, as torch


def test_module_shared_twice_is_visited_once():
    for tnn in (nn, torch.nn):
        lin = tnn.Linear(2, 2)
        seq = tnn.Sequential(lin, tnn.Tanh(), lin)
        assert len(list(seq.parameters())) == 2
        assert _names(seq.named_modules()) == ["", "0", "1"]
        assert _names(seq.named_modules(remove_duplicate=False)) == ["", "0", "1", "2"]


def test_setattr_routing_matches_torch():
    for tnn, lib in ((nn, seqlab), (torch.nn, torch)):
        m = tnn.Module()
        m.w = tnn.Parameter(lib.zeros(2))
        m.sub = tnn.Linear(2, 2)
        m.register_buffer("buf", lib.zeros(2))
        m.plain = 3
        assert list(m._parameters) == ["w"] and list(m._modules) == ["sub"] and list(m._buffers) == ["buf"]
        m.buf = lib.ones(2)  # a tensor assigned to a buffer name replaces the buffer
        assert m._buffers["buf"].sum().item() == 2
        m.w = None  # None clears a parameter slot but keeps the name
        assert "w" in m._parameters and m.w is None
        m.sub = tnn.Parameter(lib.zeros(1))  # a Parameter replaces a module of the same name
        assert "sub" in m._parameters and "sub" not in m._modules
        del m.sub, m.buf, m.plain
        assert "sub" not in m._parameters and "buf" not in m._buffers and not hasattr(m, "plain")


def test_setattr_errors_like_torch():
    def assign_tensor_to_param(tnn, lib):
        m = tnn.Linear(2, 2)
        m.weight = lib.zeros(2, 2)

    def assign_tensor_to_module(tnn, lib):
        m = tnn.Sequential(tnn.Linear(2, 2))
        setattr(m, "0", lib.zeros(2))

    def assign_int_to_buffer(tnn, lib):
        m = tnn.BatchNorm1d(2)
        m.running_mean = 3

    def before_init(tnn, lib):
        class Bad(tnn.Module):
            def __init__(self):
                self.w = tnn.Parameter(lib.zeros(1))
                super().__init__()
        Bad()

    def module_before_init(tnn, lib):
        class Bad(tnn.Module):
            def __init__(self):
                self.l = tnn.Linear(1, 1)
        Bad()

    cases = [(assign_tensor_to_param, r"cannot assign '.*' as parameter 'weight' \(.*Parameter or None expected\)"),
             (assign_tensor_to_module, r"cannot assign '.*' as child module '0' \(.*Module or None expected\)"),
             (assign_int_to_buffer, r"cannot assign 'int' as buffer 'running_mean' \(.*Tensor or None expected\)"),
             (before_init, r"cannot assign parameters before Module.__init__\(\) call"),
             (module_before_init, r"cannot assign module before Module.__init__\(\) call")]
    for fn, msg in cases:
        assert_raises_like_torch(lambda: fn(nn, seqlab), lambda: fn(torch.nn, torch), msg)


def test_register_errors_like_torch():
    def dotted_buffer(tnn, lib):
        tnn.Module().register_buffer("a.b", lib.zeros(1))

    def empty_param(tnn, lib):
        tnn.Module().register_parameter("", None)

    def existing_attr(tnn, lib):
        m = tnn.Module()
        m.x = 1
        m.register_buffer("x", lib.zeros(1))

    def non_tensor_buffer(tnn, lib):
        tnn.Module().register_buffer("b", [1.0])

    def non_param(tnn, lib):
        tnn.Module().register_parameter("p", lib.zeros(1))

    def non_module(tnn, lib):
        tnn.Module().add_module("m", 3)

    def dotted_module(tnn, lib):
        tnn.Module().add_module("a.b", tnn.Tanh())

    cases = [(dotted_buffer, r'buffer name can.{1,2}t contain "\."'),
             (empty_param, r'parameter name can.{1,2}t be empty string ""'),
             (existing_attr, r"attribute 'x' already exists"),
             (non_tensor_buffer, r"cannot assign 'list' object to buffer 'b'"),
             (non_param, r"object to parameter 'p' \(.*Parameter or None required\)"),
             (non_module, r"int is not a Module subclass"),
             (dotted_module, r'module name can.{1,2}t contain "\.", got: a\.b')]
    for fn, msg in cases:
        assert_raises_like_torch(lambda: fn(nn, seqlab), lambda: fn(torch.nn, torch), msg)


def test_register_non_leaf_parameter_raises():
    p = seqlab.ones(2, requires_grad=True) * 2
    p._is_param = True  # only reachable by forging the mark; torch has the same check
    with pytest.raises(ValueError, match="Cannot assign non-leaf Tensor to parameter 'p'"):
        nn.Module().register_parameter("p", p)


def test_getattr_error_like_torch():
    assert_raises_like_torch(lambda: nn.Linear(2, 2).nope, lambda: torch.nn.Linear(2, 2).nope,
                             r"^'Linear' object has no attribute 'nope'$")


def test_forward_missing_like_torch():
    assert_raises_like_torch(lambda: nn.Module()(1), lambda: torch.nn.Module()(1),
                             r'Module \[Module\] is missing the required "forward" function')


def test_init_rejects_unexpected_arguments():
    with pytest.raises(TypeError, match="unexpected keyword argument 'foo'"):
        nn.Module(foo=1)


def test_get_submodule_and_dir():
    s, t = build_net(nn), build_net(torch.nn)
    assert type(s.get_submodule("blocks.1.ff.0")).__name__ == type(t.get_submodule("blocks.1.ff.0")).__name__
    assert s.get_submodule("") is s
    assert_raises_like_torch(lambda: s.get_submodule("blocks.nope"), lambda: t.get_submodule("blocks.nope"),
                             "has no attribute `nope`")
    assert {"embed", "blocks", "scale", "steps"} <= set(dir(s))


# ------------------------------------------------------------------ modes, grads, apply
def test_train_eval_propagate():
    s = build_net(nn)
    assert all(m.training for m in s.modules())
    assert s.eval() is s and not any(m.training for m in s.modules())
    s.blocks.train()
    assert s.blocks[0].ff[1].training and not s.training
    s.train()
    assert all(m.training for m in s.modules())
    assert_raises_like_torch(lambda: s.train("no"), lambda: build_net(torch.nn).train("no"),
                             "training mode is expected to be boolean")


def test_requires_grad_and_zero_grad():
    m = nn.Sequential(nn.Linear(3, 2), nn.Tanh(), nn.Linear(2, 1))
    m(seqlab.randn(4, 3)).sum().backward()
    assert all(p.grad is not None for p in m.parameters())
    m.zero_grad(set_to_none=False)
    assert all(p.grad is not None and not np.any(sl_np(p.grad)) for p in m.parameters())
    m.zero_grad()
    assert all(p.grad is None for p in m.parameters())
    assert m.requires_grad_(False) is m and not any(p.requires_grad for p in m.parameters())


def test_apply_visits_children_first_like_torch():
    seen = {}
    for tnn in (nn, torch.nn):
        order = []
        m = build_net(tnn)
        assert m.apply(lambda mod: order.append(type(mod).__name__)) is m
        seen[tnn] = order
    assert seen[nn] == seen[torch.nn]


def test_apply_for_custom_init():
    m = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))

    def init_weights(mod):
        if isinstance(mod, nn.Linear):
            nn.init.constant_(mod.weight, 0.5)
            nn.init.zeros_(mod.bias)
    m.apply(init_weights)
    assert np.all(sl_np(m[0].weight) == 0.5) and np.all(sl_np(m[2].bias) == 0)


# ------------------------------------------------------------------ to(dtype)
def test_to_dtype_converts_floats_and_keeps_ties():
    s = build_net(nn)
    s(seqlab.tensor([[1, 2, 0]]))[0].sum().backward()
    before = {n: sl_np(p) for n, p in s.named_parameters()}
    assert s.double() is s
    for n, p in s.named_parameters():
        assert isinstance(p, nn.Parameter) and p.dtype == seqlab.float64 and p.requires_grad and p.is_leaf
        np.testing.assert_array_equal(sl_np(p), before[n].astype(np.float64))
        assert p.grad is None or p.grad.dtype == seqlab.float64
    assert s.out.weight is s.embed.weight  # still tied
    assert s.steps.dtype == seqlab.float64 and s.cache.dtype == seqlab.float64
    out = s(seqlab.tensor([[1, 2, 0]]))
    assert all(o.dtype == seqlab.float64 for o in out)
    s.float()
    assert all(p.dtype == seqlab.float32 for p in s.parameters())


def test_to_same_dtype_keeps_parameter_objects():
    m = nn.Linear(2, 2)
    w = m.weight
    assert m.to(seqlab.float32) is m and m.weight is w
    assert m.to("cpu") is m and m.cpu() is m and m.weight is w
    m.to(device="cpu", dtype=seqlab.float64)
    assert m.weight.dtype == seqlab.float64 and m.weight is w  # converted in place, as torch's


def test_to_dtype_keeps_parameters_and_grads_for_an_existing_optimizer():
    # torch converts through p.data = ... (and p.grad.data = ...): an optimizer built before
    # model.double() steps the float64 parameters.
    results = []
    for lib in (seqlab, torch):
        lib.manual_seed(0)
        m = lib.nn.Linear(3, 2)
        w, b = m.weight, m.bias
        with lib.no_grad():
            w.copy_(lib.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]]))
            b.fill_(0.05)
        m(lib.ones(4, 3)).pow(2).sum().backward()
        g = w.grad
        opt = lib.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
        m.double()
        assert m.weight is w and m.bias is b and w.grad is g
        assert w.dtype == g.dtype == lib.float64 and w.is_leaf and w.requires_grad
        for _ in range(3):
            opt.zero_grad()
            m(lib.ones(4, 3, dtype=lib.float64)).pow(2).sum().backward()
            opt.step()
        assert w.dtype == lib.float64
        results.append(np.asarray(w.detach().numpy()))
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12)


def test_to_leaves_integer_buffers_and_rejects_integer_dtypes():
    bn = nn.BatchNorm1d(3).double()
    assert bn.num_batches_tracked.dtype == seqlab.int64 and bn.running_mean.dtype == seqlab.float64
    assert_raises_like_torch(lambda: nn.Linear(2, 2).to(seqlab.int64), lambda: torch.nn.Linear(2, 2).to(torch.int64),
                             "only accepts floating point")
    with pytest.raises(RuntimeError, match="CPU only"):
        nn.Linear(2, 2).to("cuda")


# ------------------------------------------------------------------ state_dict
def test_state_dict_detached_shared_and_versioned():
    s, t = build_net(nn), build_net(torch.nn)
    sd = s.state_dict()
    assert isinstance(sd, collections.OrderedDict) and "cache" not in sd
    w = sd["embed.weight"]
    assert not w.requires_grad and not isinstance(w, nn.Parameter)
    assert w.data_ptr() == s.embed.weight.data_ptr()
    assert dict(sd._metadata) == dict(t.state_dict()._metadata)
    kv = s.state_dict(keep_vars=True)
    assert kv["embed.weight"] is s.embed.weight
    dest = collections.OrderedDict()
    assert s.blocks.state_dict(destination=dest, prefix="x.") is dest and list(dest)[0] == "x.0.gate"
    assert list(nn.BatchNorm1d(2).state_dict()._metadata.items()) == [("", {"version": 2})]


def test_state_dict_round_trip_seqlab_to_seqlab():
    a, b = build_net(nn), build_net(nn)
    with seqlab.no_grad():
        a.steps.fill_(7.0)
    res = b.load_state_dict(a.state_dict())
    assert res.missing_keys == [] and res.unexpected_keys == [] and repr(res) == "<All keys matched successfully>"
    for (n, p), (_, q) in zip(a.state_dict().items(), b.state_dict().items()):
        np.testing.assert_array_equal(sl_np(p), sl_np(q), err_msg=n)
    assert b.out.weight is b.embed.weight


def test_load_state_dict_copies_in_place_keeping_identity():
    m = nn.Linear(3, 2)
    w = m.weight
    version = w._version
    src = {"weight": seqlab.ones(2, 3), "bias": seqlab.zeros(2)}
    m.load_state_dict(src)
    assert m.weight is w and w.requires_grad and w._version > version
    with seqlab.no_grad():
        src["weight"].fill_(5.0)  # a copy was made, not an alias
    assert np.all(sl_np(m.weight) == 1.0)


def test_load_state_dict_accepts_numpy_torch_and_converts_dtype():
    t = torch.nn.Linear(3, 2).double()
    m = nn.Linear(3, 2)  # float32
    m.load_state_dict({k: v.numpy() for k, v in t.state_dict().items()})
    np.testing.assert_allclose(sl_np(m.weight), t.weight.detach().numpy().astype(np.float32))
    assert m.weight.dtype == seqlab.float32
    t2 = torch.nn.Linear(3, 2)
    m.load_state_dict(t2.state_dict())
    np.testing.assert_array_equal(sl_np(m.bias), t2.bias.detach().numpy())
    # torch tensors that require grad (keep_vars=True) and non-contiguous ones load too
    m.load_state_dict({"weight": torch.randn(3, 2, requires_grad=True).t(), "bias": torch.arange(2.0)})
    np.testing.assert_array_equal(sl_np(m.bias), [0.0, 1.0])
    m.load_state_dict({"weight": np.ones((2, 3), dtype=np.float16), "bias": np.arange(2, dtype=np.int32)})
    np.testing.assert_array_equal(sl_np(m.weight), np.ones((2, 3)))


def _normalise_torch_msg(msg):
    return msg.replace("torch.Size(", "").replace("]) from", "] from").replace("]).", "].")


def test_load_state_dict_missing_unexpected_messages_like_torch():
    def run(tnn, lib):
        m = tnn.Sequential(tnn.Linear(4, 4), tnn.Tanh(), tnn.Linear(4, 2))
        sd = m.state_dict()
        del sd["2.bias"]
        sd["2.extra"] = lib.zeros(1)
        sd["9.weight"] = lib.zeros(1)
        m.load_state_dict(sd)

    expected = ('Error(s) in loading state_dict for Sequential:\n\tMissing key(s) in state_dict: "2.bias". \n\t'
                'Unexpected key(s) in state_dict: "9.weight", "2.extra". ')
    err = assert_raises_like_torch(lambda: run(nn, seqlab), lambda: run(torch.nn, torch))
    assert str(err) == expected
    with pytest.raises(RuntimeError) as th:
        run(torch.nn, torch)
    assert str(th.value) == expected


def test_load_state_dict_size_mismatch_message_like_torch():
    def run(tnn, lib):
        tnn.Linear(4, 4).load_state_dict({"weight": lib.zeros(3, 4), "bias": lib.zeros(4)})

    expected = ("Error(s) in loading state_dict for Linear:\n\tsize mismatch for weight: copying a param with shape "
                "[3, 4] from checkpoint, the shape in current model is [4, 4].")
    err = assert_raises_like_torch(lambda: run(nn, seqlab), lambda: run(torch.nn, torch))
    assert str(err) == expected
    with pytest.raises(RuntimeError) as th:
        run(torch.nn, torch)
    assert _normalise_torch_msg(str(th.value)) == expected


def test_load_state_dict_size_mismatch_raises_even_when_not_strict():
    m = nn.Linear(4, 4)
    with pytest.raises(RuntimeError, match="size mismatch for bias"):
        m.load_state_dict({"bias": seqlab.zeros(5)}, strict=False)


def test_load_state_dict_not_strict_reports_keys():
    for tnn, lib in ((nn, seqlab), (torch.nn, torch)):
        m = tnn.Sequential(tnn.Linear(2, 2))
        res = m.load_state_dict({"0.weight": lib.zeros(2, 2), "zzz": lib.zeros(1)}, strict=False)
        assert res.missing_keys == ["0.bias"] and res.unexpected_keys == ["zzz"]
        assert tuple(res) == (["0.bias"], ["zzz"])
        assert "missing_keys=['0.bias']" in repr(res)


def test_load_state_dict_bad_values_and_types():
    m = nn.Linear(2, 2)
    with pytest.raises(RuntimeError, match=r'While copying the parameter named "bias", expected a tensor .* '
                                           r"received <class 'list'>"):
        m.load_state_dict({"weight": seqlab.zeros(2, 2), "bias": [1.0, 2.0]})
    assert_raises_like_torch(lambda: m.load_state_dict([1]), lambda: torch.nn.Linear(2, 2).load_state_dict([1]),
                             "Expected state_dict to be dict-like, got <class 'list'>")


def test_load_state_dict_non_persistent_buffer_is_not_expected():
    s = build_net(nn)
    sd = s.state_dict()
    assert "cache" not in sd
    s.load_state_dict(sd)  # strict: "cache" is not missing
    with pytest.raises(RuntimeError, match='Unexpected key\\(s\\) in state_dict: "cache"'):
        s.load_state_dict({**sd, "cache": seqlab.zeros(2)})


# ------------------------------------------------------------------ hooks
def _hook_trace(tnn, lib):
    log = []
    m = tnn.Linear(2, 2)
    with torch.no_grad(), seqlab.no_grad():
        m.weight.copy_(lib.eye(2))
        m.bias.zero_()
    h1 = m.register_forward_pre_hook(lambda mod, args: log.append(("pre", len(args))))
    h2 = m.register_forward_pre_hook(lambda mod, args: (args[0] * 2,))  # replaces the input
    h3 = m.register_forward_hook(lambda mod, args, out: log.append(("post", out.tolist())))
    h4 = m.register_forward_hook(lambda mod, args, out: out + 1)  # replaces the output
    h5 = m.register_forward_hook(lambda mod, args, out: log.append(("first",)), prepend=True)
    h6 = m.register_forward_pre_hook(lambda mod, args, kwargs: ((args[0] + 1,), kwargs), with_kwargs=True)
    h7 = m.register_forward_hook(lambda mod, args, kwargs, out: log.append(("kw", sorted(kwargs))), with_kwargs=True)
    y = m(lib.tensor([[1.0, 2.0]]))
    log.append(("y", y.tolist()))
    for h in (h1, h2, h3, h4, h5, h6, h7):
        h.remove()
    log.append(("plain", m(lib.tensor([[1.0, 2.0]])).tolist()))
    with m.register_forward_hook(lambda mod, args, out: out * 0):
        log.append(("ctx", m(lib.tensor([[1.0, 2.0]])).tolist()))
    log.append(("after", m(lib.tensor([[1.0, 2.0]])).tolist()))
    return log


def test_forward_hooks_like_torch():
    got = _hook_trace(nn, seqlab)
    assert got == _hook_trace(torch.nn, torch)
    assert ("y", [[4.0, 6.0]]) in got and ("plain", [[1.0, 2.0]]) in got and ("ctx", [[0.0, 0.0]]) in got


def test_forward_hooks_on_submodules_collect_activations():
    m = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    acts = {}
    handles = [mod.register_forward_hook(lambda mod, a, out, name=name: acts.__setitem__(name, out))
               for name, mod in m.named_children()]
    y = m(seqlab.randn(5, 3))
    assert list(acts) == ["0", "1", "2"] and acts["2"] is y and tuple(acts["1"].shape) == (5, 4)
    for h in handles:
        h.remove()
    acts.clear()
    m(seqlab.randn(5, 3))
    assert acts == {}


def test_always_call_hook_runs_when_forward_raises():
    for tnn, lib in ((nn, seqlab), (torch.nn, torch)):
        calls = []
        m = tnn.Linear(2, 2)
        m.register_forward_hook(lambda mod, a, out: calls.append(out), always_call=True)
        with pytest.raises(RuntimeError):
            m(lib.zeros(3, 5))
        assert calls == [None]


def test_bad_pre_hook_with_kwargs_result():
    m = nn.Linear(2, 2)
    m.register_forward_pre_hook(lambda mod, a, kw: 5, with_kwargs=True)
    with pytest.raises(RuntimeError, match="forward pre-hook must return None or a tuple"):
        m(seqlab.zeros(1, 2))


# ------------------------------------------------------------------ repr
def test_repr_of_nested_model_equals_torch():
    assert repr(build_net(nn)) == repr(build_net(torch.nn))


def test_repr_examples():
    m = nn.Sequential(nn.Linear(4, 8), nn.Tanh())
    assert repr(m) == "Sequential(\n  (0): Linear(in_features=4, out_features=8, bias=True)\n  (1): Tanh()\n)"
    for tnn in (nn, torch.nn):
        assert repr(tnn.ModuleList()) == "ModuleList()"
        assert repr(tnn.Sequential()) == "Sequential()"
    assert repr(nn.ModuleList([nn.Linear(2, 2)] * 3 + [nn.ReLU()])) == \
        repr(torch.nn.ModuleList([torch.nn.Linear(2, 2)] * 3 + [torch.nn.ReLU()]))


def test_repr_with_multiline_extra_repr_and_none_child():
    def make(tnn):
        class M(tnn.Module):
            def __init__(self):
                super().__init__()
                self.a = tnn.Linear(1, 1)
                self.add_module("b", None)

            def extra_repr(self):
                return "line one\nline two"
        return tnn.Sequential(M())
    assert repr(make(nn)) == repr(make(torch.nn))


# ------------------------------------------------------------------ containers
def test_sequential_like_torch():
    for tnn in (nn, torch.nn):
        a, b, c = tnn.Linear(1, 2), tnn.Tanh(), tnn.Linear(2, 3)
        s = tnn.Sequential(a, b, c)
        assert len(s) == 3 and s[0] is a and s[-1] is c and list(s) == [a, b, c]
        assert isinstance(s[1:], tnn.Sequential) and list(s[1:]) == [b, c] and list(s[1:]._modules) == ["1", "2"]
        with pytest.raises(IndexError, match="index 3 is out of range"):
            s[3]
        s[1] = tnn.ReLU()
        assert type(s[1]).__name__ == "ReLU"
        del s[0]
        assert list(s._modules) == ["0", "1"] and s[1] is c
        s.append(tnn.Sigmoid()).insert(0, a).extend([tnn.Identity()])
        assert [type(m).__name__ for m in s] == ["Linear", "ReLU", "Linear", "Sigmoid", "Identity"]
        assert s.pop(-1).__class__.__name__ == "Identity" and len(s) == 4
        s2 = s + tnn.Sequential(tnn.Tanh())
        assert len(s2) == 5 and len(s * 2) == 8 and len(2 * s) == 8
        s += tnn.Sequential(tnn.Tanh())
        assert len(s) == 5
        named = tnn.Sequential(collections.OrderedDict([("fc", tnn.Linear(2, 2)), ("act", tnn.Tanh())]))
        assert list(named._modules) == ["fc", "act"] and named.fc is named[0]
        with pytest.raises(ValueError, match="add operator supports only objects of Sequential class"):
            s + 1
        with pytest.raises(ValueError, match="Non-positive multiplication factor 0"):
            s * 0


def test_sequential_forward_chains():
    s = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    x = seqlab.randn(5, 3)
    np.testing.assert_allclose(sl_np(s(x)), sl_np(s[2](s[1](s[0](x)))))


def test_modulelist_like_torch():
    for tnn in (nn, torch.nn):
        ml = tnn.ModuleList([tnn.Linear(1, 1), tnn.Tanh()])
        ml.append(tnn.ReLU())
        ml.extend([tnn.Sigmoid()])
        ml += [tnn.Identity()]
        ml.insert(1, tnn.GELU())
        assert [type(m).__name__ for m in ml] == ["Linear", "GELU", "Tanh", "ReLU", "Sigmoid", "Identity"]
        assert type(ml[-1]).__name__ == "Identity" and isinstance(ml[1:3], tnn.ModuleList) and len(ml[1:3]) == 2
        del ml[1]
        assert list(ml._modules) == [str(i) for i in range(5)]
        ml[0] = tnn.Tanh()
        assert type(ml.pop(0)).__name__ == "Tanh" and len(ml) == 4
        assert len(ml + tnn.ModuleList([tnn.Tanh()])) == 5
        with pytest.raises(IndexError, match="index 9 is out of range"):
            ml[9]
        with pytest.raises(TypeError, match="ModuleList.extend should be called with an iterable"):
            ml.extend(3)


def test_moduledict_like_torch():
    for tnn in (nn, torch.nn):
        md = tnn.ModuleDict({"a": tnn.Linear(1, 1)})
        md["b"] = tnn.Tanh()
        md.update([("c", tnn.ReLU())])
        md.update(collections.OrderedDict(d=tnn.Sigmoid()))
        assert list(md) == list(md.keys()) == ["a", "b", "c", "d"] and "b" in md and len(md) == 4
        assert [type(v).__name__ for v in md.values()] == ["Linear", "Tanh", "ReLU", "Sigmoid"]
        assert type(md.pop("b")).__name__ == "Tanh" and list(md) == ["a", "c", "d"]
        del md["c"]
        assert [k for k, _ in md.items()] == ["a", "d"]
        with pytest.raises(ValueError, match="has length 1; 2 is required"):
            md.update([("x",)])
        md.clear()
        assert len(md) == 0


# ------------------------------------------------------------------ copying
def test_deepcopy_copies_data_and_keeps_ties():
    import copy

    s = build_net(nn)
    s(seqlab.tensor([[1, 2, 0]]))[0].sum().backward()
    c = copy.deepcopy(s)
    assert _names(c.named_parameters()) == _names(s.named_parameters()) and repr(c) == repr(s)
    assert c.out.weight is c.embed.weight and c.embed.weight is not s.embed.weight
    for (n, p), (_, q) in zip(s.named_parameters(), c.named_parameters()):
        assert isinstance(q, nn.Parameter) and q.is_leaf and q.requires_grad == p.requires_grad
        assert q.data_ptr() != p.data_ptr()
        np.testing.assert_array_equal(sl_np(p), sl_np(q), err_msg=n)
        assert (p.grad is None) == (q.grad is None)
    with seqlab.no_grad():
        c.scale.fill_(3.0)
    assert s.scale.item() == 1.0
    assert "cache" in c._non_persistent_buffers_set and c.cache is not s.cache
