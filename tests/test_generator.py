"""seqlab.Generator and generator= (torch.Generator's API): the same seed gives the same numbers,
generators are independent of each other and of the default one, states round trip, and every
random function that takes generator= in torch takes it here. The numbers themselves are not
torch's (mt19937_64, not torch's stream), so values are compared with the same seqlab call, and
the API (defaults, return values, errors) with torch.
"""

import numpy as np
import pytest
import torch

import seqlab
from conftest import sl_np


# One call per random function that has generator= in torch, each given a generator.
DRAWS = {
    "rand": lambda g: seqlab.rand(3, 4, generator=g),
    "randn": lambda g: seqlab.randn(3, 4, generator=g, dtype=seqlab.float64),
    "randint": lambda g: seqlab.randint(0, 100, (12,), generator=g),
    "randint_high": lambda g: seqlab.randint(7, (12,), generator=g),
    "randperm": lambda g: seqlab.randperm(20, generator=g),
    "multinomial": lambda g: seqlab.multinomial(seqlab.ones(2, 6), 4, generator=g),
    "multinomial_method": lambda g: seqlab.ones(6).multinomial(6, replacement=True, generator=g),
    "bernoulli": lambda g: seqlab.bernoulli(seqlab.full((12,), 0.5), generator=g),
    "bernoulli_p": lambda g: seqlab.bernoulli(seqlab.zeros(12), 0.3, generator=g),
    "bernoulli_method": lambda g: seqlab.full((12,), 0.5).bernoulli(generator=g),
    "bernoulli_": lambda g: seqlab.zeros(12).bernoulli_(0.5, generator=g),
    "bernoulli_tensor_p": lambda g: seqlab.zeros(12).bernoulli_(seqlab.full((12,), 0.5), generator=g),
    "normal_": lambda g: seqlab.zeros(6).normal_(2.0, 3.0, generator=g),
    "uniform_": lambda g: seqlab.zeros(6).uniform_(-1.0, 1.0, generator=g),
    "exponential_": lambda g: seqlab.zeros(6).exponential_(2.0, generator=g),
    "random_": lambda g: seqlab.zeros(6).random_(0, 50, generator=g),
    "rand_like": lambda g: seqlab.rand_like(seqlab.zeros(5), generator=g),
    "randn_like": lambda g: seqlab.randn_like(seqlab.zeros(5), generator=g),
    "randint_like": lambda g: seqlab.randint_like(seqlab.zeros(5), 10, generator=g),
    "init.uniform_": lambda g: seqlab.nn.init.uniform_(seqlab.zeros(6), generator=g),
    "init.normal_": lambda g: seqlab.nn.init.normal_(seqlab.zeros(6), generator=g),
    "init.xavier_uniform_": lambda g: seqlab.nn.init.xavier_uniform_(seqlab.zeros(3, 4), generator=g),
    "init.xavier_normal_": lambda g: seqlab.nn.init.xavier_normal_(seqlab.zeros(3, 4), generator=g),
    "init.kaiming_uniform_": lambda g: seqlab.nn.init.kaiming_uniform_(seqlab.zeros(3, 4), generator=g),
    "init.kaiming_normal_": lambda g: seqlab.nn.init.kaiming_normal_(seqlab.zeros(3, 4), generator=g),
    "init.orthogonal_": lambda g: seqlab.nn.init.orthogonal_(seqlab.zeros(3, 4), generator=g),
}


@pytest.mark.parametrize("name", sorted(DRAWS))
def test_same_seed_same_numbers(name):
    draw = DRAWS[name]
    a = sl_np(draw(seqlab.Generator().manual_seed(1234)))
    b = sl_np(draw(seqlab.Generator().manual_seed(1234)))
    np.testing.assert_array_equal(a, b)
    c = np.concatenate([sl_np(draw(seqlab.Generator().manual_seed(s))).ravel() for s in range(5)])
    assert len(np.unique(c)) > 1, f"{name}: five seeds gave one value"


@pytest.mark.parametrize("name", sorted(DRAWS))
def test_generator_leaves_others_alone(name):
    """Drawing from g changes neither the default generator nor another generator."""
    draw = DRAWS[name]
    seqlab.manual_seed(7)
    h = seqlab.Generator().manual_seed(8)
    expected_default, expected_h = sl_np(seqlab.rand(8)), sl_np(seqlab.rand(8, generator=h))
    seqlab.manual_seed(7)
    h.manual_seed(8)
    draw(seqlab.Generator().manual_seed(99))
    np.testing.assert_array_equal(sl_np(seqlab.rand(8)), expected_default)
    np.testing.assert_array_equal(sl_np(seqlab.rand(8, generator=h)), expected_h)


def test_default_generator_is_manual_seeds():
    seqlab.manual_seed(5)
    a = sl_np(seqlab.randn(10))
    np.testing.assert_array_equal(sl_np(seqlab.randn(10, generator=seqlab.Generator().manual_seed(5))), a)
    seqlab.default_generator.manual_seed(5)
    np.testing.assert_array_equal(sl_np(seqlab.randn(10)), a)
    np.testing.assert_array_equal(sl_np(seqlab.randn(10, generator=seqlab.default_generator.manual_seed(5))), a)
    assert seqlab.random.default_generator is seqlab.default_generator


def test_state_round_trip():
    g = seqlab.Generator().manual_seed(3)
    seqlab.rand(17, generator=g)  # mid-stream
    state = g.get_state()
    a = sl_np(seqlab.randn(50, generator=g))
    seqlab.randn(1000, generator=g)
    assert g.set_state(state) is g
    np.testing.assert_array_equal(sl_np(seqlab.randn(50, generator=g)), a)
    other = seqlab.Generator().set_state(state)
    seqlab.rand(1, generator=g)
    assert other.initial_seed() == 3
    other.set_state(state)
    np.testing.assert_array_equal(sl_np(seqlab.randn(50, generator=other)), a)
    # the state is a snapshot: drawing afterwards does not change it
    state2 = g.get_state()
    b = sl_np(seqlab.rand(4, generator=g))
    g.set_state(state2)
    np.testing.assert_array_equal(sl_np(seqlab.rand(4, generator=g)), b)


def test_default_state_round_trip_and_fork_rng():
    seqlab.manual_seed(11)
    state = seqlab.get_rng_state()
    a = sl_np(seqlab.rand(20))
    seqlab.set_rng_state(state)
    np.testing.assert_array_equal(sl_np(seqlab.rand(20)), a)
    seqlab.set_rng_state(state)
    with seqlab.random.fork_rng():
        seqlab.rand(100)
    np.testing.assert_array_equal(sl_np(seqlab.rand(20)), a)


def test_seed_is_random_and_reported():
    g = seqlab.Generator()
    s = g.seed()
    assert isinstance(s, int) and g.initial_seed() == s
    a = sl_np(seqlab.rand(5, generator=g))
    np.testing.assert_array_equal(sl_np(seqlab.rand(5, generator=seqlab.Generator().manual_seed(s))), a)
    assert seqlab.Generator().seed() != seqlab.Generator().seed()
    assert isinstance(seqlab.seed(), int)


def test_api_matches_torch():
    assert seqlab.Generator().initial_seed() == torch.Generator().initial_seed()
    g = seqlab.Generator(device="cpu")
    assert g.manual_seed(1) is g
    assert g.device == seqlab.device("cpu")
    assert isinstance(seqlab.manual_seed(0), seqlab.Generator)
    assert seqlab.manual_seed(0) is seqlab.default_generator
    for seed in [0, 1, -1, -2**63, 2**64 - 1, 2**63]:
        assert seqlab.manual_seed(seed).initial_seed() == torch.manual_seed(seed).initial_seed()
        assert seqlab.initial_seed() == torch.initial_seed()
        assert seqlab.Generator().manual_seed(seed).initial_seed() == torch.Generator().manual_seed(seed).initial_seed()
    assert seqlab.manual_seed(3.7).initial_seed() == torch.manual_seed(3.7).initial_seed() == 3  # truncated
    with pytest.raises(RuntimeError, match="expected a long"):
        torch.Generator().manual_seed(3.7)
    with pytest.raises(RuntimeError, match="expected a long"):
        seqlab.Generator().manual_seed(3.7)
    for seed in [2**64, -2**63 - 1]:
        with pytest.raises(ValueError, match="Overflow"):
            torch.manual_seed(seed)
        with pytest.raises(ValueError, match="Overflow"):
            seqlab.manual_seed(seed)
    seqlab.manual_seed(0)
    torch.manual_seed(0)


def test_errors():
    g = seqlab.Generator()
    with pytest.raises(RuntimeError, match="RNG state size"):
        g.set_state(seqlab.zeros(3, dtype=seqlab.int64))
    with pytest.raises(TypeError, match="RNG state"):
        g.set_state(seqlab.zeros(3))
    with pytest.raises(TypeError, match="generator"):
        seqlab.rand(3, generator=5)
    with pytest.raises(TypeError, match="generator"):
        seqlab.zeros(3).normal_(generator="g")
    with pytest.raises(RuntimeError, match="CPU"):
        seqlab.Generator(device="cuda")
    with pytest.raises(TypeError, match="seed"):
        g.manual_seed("1")
    # a corrupted position word is refused, not read past the engine's state
    bad = g.get_state()
    bad[-1] = 10**6
    with pytest.raises(RuntimeError, match="get_state"):
        g.set_state(bad)


@pytest.mark.parametrize("call, torch_call", [
    (lambda: seqlab.zeros(3).uniform_(2.0, 1.0), lambda: torch.zeros(3).uniform_(2.0, 1.0)),
    (lambda: seqlab.zeros(3).normal_(0.0, -1.0), lambda: torch.zeros(3).normal_(0.0, -1.0)),
    (lambda: seqlab.zeros(3).exponential_(-1.0), lambda: torch.zeros(3).exponential_(-1.0)),
    (lambda: seqlab.zeros(3).bernoulli_(1.5), lambda: torch.zeros(3).bernoulli_(1.5)),
    (lambda: seqlab.zeros(3).random_(5, 2), lambda: torch.zeros(3).random_(5, 2)),
    (lambda: seqlab.zeros(3, dtype=seqlab.int64).uniform_(), lambda: torch.zeros(3, dtype=torch.int64).uniform_()),
    (lambda: seqlab.zeros(3, dtype=seqlab.int64).exponential_(),
     lambda: torch.zeros(3, dtype=torch.int64).exponential_()),
    (lambda: seqlab.zeros(3).random_(2**70), lambda: torch.zeros(3).random_(2**70)),
    (lambda: seqlab.randperm(-1), lambda: torch.randperm(-1)),
    (lambda: seqlab.bernoulli(seqlab.tensor([2.0])), lambda: torch.bernoulli(torch.tensor([2.0]))),
    (lambda: seqlab.bernoulli(seqlab.tensor([1, 0])), lambda: torch.bernoulli(torch.tensor([1, 0]))),
    (lambda: seqlab.zeros(3).expand(2, 3).normal_(), lambda: torch.zeros(3).expand(2, 3).normal_()),
    (lambda: seqlab.multinomial(seqlab.ones(3), 5), lambda: torch.multinomial(torch.ones(3), 5)),
])
def test_bad_arguments_raise_as_torch(call, torch_call):
    with pytest.raises(Exception) as expected:
        torch_call()
    with pytest.raises(type(expected.value)):
        call()


def test_distributions():
    """Each draw has the range and, over many samples, the moments torch's does."""
    g = seqlab.Generator().manual_seed(0)
    n = 200_000
    u = sl_np(seqlab.zeros(n).uniform_(-2.0, 3.0, generator=g))
    assert u.min() >= -2.0 and u.max() < 3.0 and abs(u.mean() - 0.5) < 0.02
    z = sl_np(seqlab.zeros(n, dtype=seqlab.float64).normal_(1.0, 2.0, generator=g))
    assert abs(z.mean() - 1.0) < 0.02 and abs(z.std() - 2.0) < 0.02
    e = sl_np(seqlab.zeros(n).exponential_(4.0, generator=g))
    assert e.min() >= 0 and abs(e.mean() - 0.25) < 0.005
    b = sl_np(seqlab.bernoulli(seqlab.full((n,), 0.3), generator=g))
    assert set(np.unique(b)) <= {0.0, 1.0} and abs(b.mean() - 0.3) < 0.01
    p = seqlab.tensor([0.0, 1.0, 0.0, 0.5])
    bp = sl_np(p.expand(1000, 4).contiguous().bernoulli(generator=g))
    assert (bp[:, 0] == 0).all() and (bp[:, 1] == 1).all() and abs(bp[:, 3].mean() - 0.5) < 0.06
    r = sl_np(seqlab.zeros(n, dtype=seqlab.int64).random_(3, 7, generator=g))
    assert set(np.unique(r)) == {3, 4, 5, 6}
    r = sl_np(seqlab.zeros(1000).random_(10, generator=g))
    assert set(np.unique(r)) == set(range(10)), "random_(to) draws from [0, to), as torch"
    r = sl_np(seqlab.zeros(1000).random_(generator=g))
    assert r.min() >= 0 and r.max() <= 2**24 and (r == np.round(r)).all()
    assert sorted(sl_np(seqlab.randperm(50, generator=g)).tolist()) == list(range(50))
    assert seqlab.randperm(4, dtype=seqlab.float32).dtype == seqlab.float32
    assert seqlab.bernoulli(seqlab.full((3,), 0.5, dtype=seqlab.float64)).dtype == seqlab.float64


def test_dataloader_shuffle_uses_generator():
    from seqlab.utils.data import DataLoader
    data = list(range(20))
    a = [b.tolist() for b in DataLoader(data, batch_size=5, shuffle=True, generator=seqlab.Generator().manual_seed(1))]
    b = [b.tolist() for b in DataLoader(data, batch_size=5, shuffle=True, generator=seqlab.Generator().manual_seed(1))]
    assert a == b and sorted(sum(a, [])) == data and sum(a, []) != data


@pytest.mark.parametrize("how", ["pickle", "deepcopy", "copy"])
def test_generator_pickles_and_copies_as_torch(how):
    """torch.Generator survives pickle.dumps/loads and copy.deepcopy with its state: the copy draws
    the same next numbers as the original, and the two then run independently."""
    import copy
    import pickle
    clone = {"pickle": lambda g: pickle.loads(pickle.dumps(g)), "deepcopy": copy.deepcopy, "copy": copy.copy}[how]
    for lib in (seqlab, torch):
        g = lib.Generator().manual_seed(1234)
        lib.rand(5, generator=g)  # not at the start of the stream
        c = clone(g)
        assert type(c) is lib.Generator and c is not g
        assert c.initial_seed() == g.initial_seed() == 1234
        a, b = lib.rand(7, generator=g), lib.rand(7, generator=c)
        assert lib.equal(a, b)
        lib.rand(3, generator=g)  # independent from here on
        assert not lib.equal(lib.rand(4, generator=g), lib.rand(4, generator=c))
    d = pickle.loads(pickle.dumps(seqlab.default_generator))
    assert d is not seqlab.default_generator
    assert seqlab.equal(seqlab.rand(3, generator=d), seqlab.rand(3))
