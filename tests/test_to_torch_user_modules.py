"""seqlab.to_torch of a user's own nn.Module subclass (python/seqlab/torch_modules/_convert_user.py):
the script a student wrote with `import seqlab as torch` becomes a torch module whose forward is
the student's own, run on torch; it computes the same with the same gradients, trains in torch,
and comes back as the student's class. What cannot run in torch is an error naming it before
anything runs."""
import textwrap

import numpy as np
import pytest
import torch

import seqlab
import seqlab.nn as nn
from test_to_torch import assert_round_trip, assert_same_function

# A student's model file, PyTorch-shaped: seqlab imported in torch's place.
STUDENT = textwrap.dedent('''
    import math

    import seqlab as torch
    import seqlab.nn as nn
    import seqlab.nn.functional as F
    from seqlab import tanh

    class Highway(nn.Module):
        """A gate between a transform and the identity."""

        def __init__(self, d):
            super().__init__()
            self.transform, self.gate = nn.Linear(d, d), nn.Linear(d, d)

        def forward(self, x):
            g = torch.sigmoid(self.gate(x))
            return g * F.relu(self.transform(x)) + (1 - g) * x

    class Tagger(nn.Module):
        def __init__(self, vocab, d, tags):
            super().__init__()
            self.embedding = nn.Embedding(vocab, d)
            self.lstm = nn.LSTM(d, d, batch_first=True, bidirectional=True)
            self.highway = Highway(2 * d)
            self.blocks = nn.ModuleList([nn.Linear(2 * d, 2 * d) for _ in range(2)])
            self.out = nn.Linear(2 * d, tags)
            self.scale = nn.Parameter(torch.ones(1, dtype=torch.float64))
            self.register_buffer("bias", torch.zeros(tags, dtype=torch.float64))
            self.temperature = 2.0
            self.table = torch.arange(tags).double()

        def features(self, idx):
            h, _ = self.lstm(self.embedding(idx))
            return self.highway(h)

        def forward(self, idx, mask=None):
            h = self.features(idx)
            for block in self.blocks:
                h = h + tanh(block(h)) * self.scale / math.sqrt(h.shape[-1])
            scores = self.out(h) / self.temperature + self.bias + 0.01 * self.table
            if mask is not None:
                scores = scores.masked_fill(~mask.unsqueeze(-1), 0.0)
            return F.log_softmax(scores, dim=-1), torch.stack([h.mean(), h.std()])

    class Derived(Highway):  # a subclass of the student's own class: super() is the torch twin's
        def forward(self, x):
            return super().forward(x) * 2.0

    class UsesViz(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 2)

        def forward(self, x):
            return F.seq2seq_attention(x, x)[0]

    class UsesMissing(nn.Module):
        def forward(self, x):
            return torch.nn.functional.not_a_function(x)

    class MyLinear(nn.Linear):
        def forward(self, x):
            return super().forward(x).tanh()

    # what a method reaches beyond its own code: helpers, closures, defaults, decorators, attributes
    ACTIVATIONS = {"relu": F.relu, "gelu": F.gelu}

    def squash(x, eps=torch.tensor(1e-3, dtype=torch.float64)):
        return x / (x.norm(dim=-1, keepdim=True) + eps)

    def scaled(factor):
        def apply(x):
            return torch.mul(x, factor) + torch.zeros_like(x)
        return apply

    class Reaches(Highway):
        twice = staticmethod(scaled(2.0))

        def __init__(self, d, act="gelu"):
            super().__init__(d)
            self.act = ACTIVATIONS[act]
            self.norm = nn.LayerNorm(d)

        def forward(self, x, activation=F.silu):
            h = Highway.forward(self, x) + super(Reaches, self).forward(x)
            return self.norm(squash(self.act(h)) + activation(self.twice(x)))

        @torch.no_grad()
        def predict(self, x):
            return self(x)

    class Pipeline(nn.Sequential):
        def forward(self, x):
            for layer in self:
                x = torch.tanh(layer(x))
            return x

    calls = 0

    class CountsCalls(nn.Module):
        def forward(self, x):
            global calls
            calls += 1
            return x

    class ImportsInside(nn.Module):
        def forward(self, x):
            import seqlab.nn.functional as G
            return G.relu(x)
''')


@pytest.fixture(scope="module")
def student():
    env = {"__name__": "student_model"}
    exec(compile(STUDENT, "student_model.py", "exec"), env)
    return env


def test_a_students_module_runs_its_own_forward_in_torch(student):
    seqlab.manual_seed(20)
    m = student["Tagger"](30, 8, 5).double().eval()
    tm = seqlab.to_torch(m)
    assert type(tm).__name__ == "Tagger" and isinstance(tm, torch.nn.Module)
    assert type(tm.lstm) is torch.nn.LSTM and type(tm.highway).__name__ == "Highway"
    assert tm.temperature == 2.0 and isinstance(tm.table, torch.Tensor)
    assert tm.forward.__func__.__globals__["torch"] is torch  # the student's `torch` is torch now
    ids = seqlab.tensor(np.random.default_rng(21).integers(0, 30, (3, 7)))
    mask = seqlab.tensor(np.random.default_rng(22).random((3, 7)) > 0.3)
    assert_same_function(m, tm, [ids, mask], "Tagger", 1e-10)
    back = assert_round_trip(m, "Tagger")
    assert type(back) is student["Tagger"] and back.temperature == 2.0 and isinstance(back.table, seqlab.Tensor)
    with seqlab.no_grad():
        np.testing.assert_array_equal(back(ids)[0].numpy(), m(ids)[0].numpy())


def test_the_converted_module_trains_in_torch_and_comes_back(student):
    seqlab.manual_seed(23)
    m = student["Highway"](6).double()
    tm = seqlab.to_torch(m)
    opt = torch.optim.SGD(tm.parameters(), lr=0.1)
    x = torch.randn(16, 6, dtype=torch.float64)
    for _ in range(3):
        opt.zero_grad()
        loss = (tm(x) - x.flip(-1)).pow(2).mean()
        loss.backward()
        opt.step()
    back = seqlab.from_torch(tm)
    with seqlab.no_grad(), torch.no_grad():
        np.testing.assert_allclose(back(seqlab.from_dlpack(x)).numpy(), tm(x).numpy(), rtol=1e-12, atol=1e-12)


def test_super_in_a_students_subclass_means_the_torch_twin(student):
    seqlab.manual_seed(24)
    m = student["Derived"](4).double()
    tm = seqlab.to_torch(m)
    assert isinstance(tm, type(seqlab.to_torch(student["Highway"](4))))
    assert_same_function(m, tm, [seqlab.randn(3, 4, dtype=seqlab.float64)], "Derived", 1e-10)


def test_what_cannot_run_in_torch_is_named_before_it_runs(student):
    with pytest.raises(NotImplementedError, match=r"to_torch: UsesViz.forward calls F.seq2seq_attention "
                                                  r"\(.*seq2seq_attention\), which torch does not have"):
        seqlab.to_torch(student["UsesViz"]())
    with pytest.raises(NotImplementedError, match=r"UsesMissing.forward calls torch.nn.functional.not_a_function, "
                                                  r"which torch does not have"):
        seqlab.to_torch(student["UsesMissing"]())
    with pytest.raises(NotImplementedError, match=r"to_torch: MyLinear is a MyLinear, a subclass of seqlab's Linear"):
        seqlab.to_torch(student["MyLinear"](2, 2))
    with pytest.raises(NotImplementedError, match=r"to_torch: CountsCalls.forward writes the module global 'calls'"):
        seqlab.to_torch(student["CountsCalls"]())
    with pytest.raises(NotImplementedError, match=r"to_torch: ImportsInside.forward imports seqlab.nn.functional "
                                                  r"inside a function"):
        seqlab.to_torch(student["ImportsInside"]())
    hooked = student["Highway"](2)
    hooked.gate.register_forward_hook(lambda module, args, out: out * 0)
    with pytest.raises(NotImplementedError, match=r"to_torch: Highway.gate has a forward hook"):
        seqlab.to_torch(hooked)

    class Holder(nn.Module):
        def __init__(self, child):
            super().__init__()
            self.head = child

        def forward(self, x):
            return self.head(x)

    with pytest.raises(NotImplementedError, match=r"to_torch: UsesViz.forward calls F.seq2seq_attention"):
        seqlab.to_torch(Holder(student["UsesViz"]()))


def test_a_lazy_submodule_stays_lazy_until_torch_runs_it():
    class Holder(nn.Module):
        def __init__(self):
            super().__init__()
            self.head = nn.LazyLinear(3)

        def forward(self, x):
            return self.head(x).relu()

    tm = seqlab.to_torch(Holder())
    assert type(tm.head) is torch.nn.LazyLinear
    assert tuple(tm(torch.randn(2, 5)).shape) == (2, 3) and type(tm.head) is torch.nn.Linear
    back = seqlab.from_torch(tm)
    assert type(back.head) is nn.Linear and tuple(back.head.weight.shape) == (3, 5)
    lazy_back = seqlab.from_torch(seqlab.to_torch(Holder()))
    assert type(lazy_back.head) is nn.LazyLinear


def test_what_a_method_reaches_is_translated_too(student):
    """A module-level dict of seqlab functions, a helper with a seqlab default, a closure over a
    seqlab call, an explicit base-class call and super(Cls, self), an activation held as an
    attribute, a @torch.no_grad() method, and a Sequential subclass: all run on torch."""
    seqlab.manual_seed(25)
    m = student["Reaches"](5).double().eval()
    tm = seqlab.to_torch(m)
    assert tm.act is torch.nn.functional.gelu
    x = seqlab.randn(3, 5, dtype=seqlab.float64)
    assert_same_function(m, tm, [x], "Reaches", 1e-10)
    out = tm.predict(torch.randn(3, 5, dtype=torch.float64))
    assert not out.requires_grad and m.predict(x.detach()).requires_grad is False
    back = seqlab.from_torch(tm)
    assert back.act is seqlab.nn.functional.gelu
    pipe = student["Pipeline"](nn.Linear(4, 4), nn.Linear(4, 2)).double()
    tp = seqlab.to_torch(pipe)
    assert isinstance(tp, torch.nn.Sequential) and type(tp[0]) is torch.nn.Linear
    assert_same_function(pipe, tp, [seqlab.randn(2, 4, dtype=seqlab.float64)], "Pipeline", 1e-10)
