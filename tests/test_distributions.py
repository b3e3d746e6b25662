"""seqlab.distributions (python/seqlab/distributions/) against torch.distributions: log_prob, cdf,
icdf, entropy, mean, variance, mode and kl_divergence values and every gradient (float32, float64,
broadcast parameters and values, non-contiguous and size-0), shapes, reprs, constraints and
validate_args errors with torch's type and message. Samples cannot be torch's bits: they are
tested by shape, dtype, support, by statistics of many draws (mean and variance within a few
standard errors, a two-sample Kolmogorov-Smirnov test against torch's draws) and by rsample's
gradients (d sample / d parameter, against a finite difference of the same noise)."""
import inspect
import math
import re

import numpy as np
import pytest
import torch
import torch.distributions as TD

import seqlab
import seqlab.distributions as SD
from conftest import DTYPE_IDS, FLOAT_DTYPES, assert_close, assert_gradcheck, assert_matches_torch, \
    assert_raises_like_torch, sl_np, tol


def torch_text(text):
    """A torch message or repr with torch.Size([2, 3]) written as seqlab's shapes, (2, 3)."""
    def shape(m):
        dims = [int(d) for d in m.group(1).split(",") if d.strip()]
        return str(tuple(dims))
    return re.sub(r"torch\.Size\(\[([^\]]*)\]\)", shape, text).replace("dtype=torch.", "dtype=seqlab.")


def positive(rng, shape, low=0.5, high=2.0):
    return rng.uniform(low, high, size=shape)


def simplex_rows(rng, shape):
    p = rng.uniform(0.1, 1.0, size=shape)
    return p / p.sum(-1, keepdims=True)


# ---- the table: one line per (distribution, parameters, value) ------------------------------------
# make(lib, *params) builds the distribution from lib (seqlab.distributions or torch.distributions);
# params and value are float64 arrays (cast per dtype; int64 values stay int64).

def _cases(rng):
    r = rng
    return {
        "Normal": (lambda D, loc, scale: D.Normal(loc, scale),
                   [r.standard_normal((2, 3)), positive(r, (3,))], r.standard_normal((4, 1, 3))),
        "Uniform": (lambda D, low, high: D.Uniform(low, low + high),
                    [r.standard_normal((2, 3)), positive(r, (2, 3), 1.0, 3.0)], None),
        "Exponential": (lambda D, rate: D.Exponential(rate), [positive(r, (2, 3))], positive(r, (4, 2, 3), 0.1, 3.0)),
        "Laplace": (lambda D, loc, scale: D.Laplace(loc, scale),
                    [r.standard_normal((3,)), positive(r, (2, 1))], r.standard_normal((2, 3))),
        "Gumbel": (lambda D, loc, scale: D.Gumbel(loc, scale),
                   [r.standard_normal((2, 3)), positive(r, (2, 3))], r.standard_normal((5, 2, 3))),
        "Cauchy": (lambda D, loc, scale: D.Cauchy(loc, scale),
                   [r.standard_normal((2, 3)), positive(r, (3,))], r.standard_normal((4, 1, 3))),
        "HalfNormal": (lambda D, scale: D.HalfNormal(scale), [positive(r, (2, 3))], positive(r, (4, 2, 3), 0.01, 3.0)),
        "LogNormal": (lambda D, loc, scale: D.LogNormal(loc, scale),
                      [r.standard_normal((2, 3)), positive(r, (2, 1))], positive(r, (4, 2, 3), 0.05, 5.0)),
        "Geometric(probs)": (lambda D, p: D.Geometric(probs=p), [r.uniform(0.1, 0.9, (2, 3))],
                             r.integers(0, 6, (4, 2, 3)).astype(np.float64)),
        "Geometric(logits)": (lambda D, l: D.Geometric(logits=l), [r.standard_normal((2, 3))],
                              r.integers(0, 6, (3,)).astype(np.float64)),
        "Bernoulli(probs)": (lambda D, p: D.Bernoulli(probs=p), [r.uniform(0.1, 0.9, (2, 3))],
                             (r.random((4, 2, 3)) < 0.5).astype(np.float64)),
        "Bernoulli(logits)": (lambda D, l: D.Bernoulli(logits=l), [2 * r.standard_normal((2, 3))],
                              (r.random((3,)) < 0.5).astype(np.float64)),
        "Categorical(probs)": (lambda D, p: D.Categorical(probs=p), [positive(r, (2, 5), 0.1, 2.0)],
                               r.integers(0, 5, (4, 2))),
        "Categorical(logits)": (lambda D, l: D.Categorical(logits=l), [2 * r.standard_normal((3, 2, 5))],
                                r.integers(0, 5, (4, 1, 1))),
        "OneHotCategorical": (lambda D, l: D.OneHotCategorical(logits=l), [r.standard_normal((2, 4))],
                              np.eye(4)[r.integers(0, 4, (3, 2))]),
        "RelaxedBernoulli": (lambda D, t, l: D.RelaxedBernoulli(t, logits=l),
                             [positive(r, ()), r.standard_normal((2, 3))], r.uniform(0.05, 0.95, (4, 2, 3))),
        "LogitRelaxedBernoulli": (lambda D, t, p: D.relaxed_bernoulli.LogitRelaxedBernoulli(t, probs=p),
                                  [positive(r, ()), r.uniform(0.1, 0.9, (3,))], r.standard_normal((2, 3))),
        "RelaxedOneHotCategorical": (lambda D, t, l: D.RelaxedOneHotCategorical(t, logits=l),
                                     [positive(r, ()), r.standard_normal((2, 4))], simplex_rows(r, (3, 2, 4))),
        "ExpRelaxedCategorical": (lambda D, t, p: D.relaxed_categorical.ExpRelaxedCategorical(t, probs=p),
                                  [positive(r, ()), simplex_rows(r, (2, 4))], np.log(simplex_rows(r, (2, 4)))),
        "Independent": (lambda D, loc, scale: D.Independent(D.Normal(loc, scale), 1),
                        [r.standard_normal((2, 3)), positive(r, (2, 3))], r.standard_normal((4, 2, 3))),
        "MixtureSameFamily": (lambda D, l, loc, scale: D.MixtureSameFamily(D.Categorical(logits=l),
                                                                            D.Normal(loc, scale)),
                              [r.standard_normal((2, 3)), r.standard_normal((2, 3)), positive(r, (2, 3))],
                              r.standard_normal((4, 2))),
        "MixtureSameFamily(Independent)": (
            lambda D, l, loc, scale: D.MixtureSameFamily(D.Categorical(logits=l),
                                                         D.Independent(D.Normal(loc, scale), 1)),
            [r.standard_normal((3,)), r.standard_normal((2, 3, 4)), positive(r, (2, 3, 4))],
            r.standard_normal((5, 2, 4))),
    }


CASE_NAMES = list(_cases(np.random.default_rng(0)))
# the methods each case has in torch (properties are read, the others called with the value)
METHODS = {
    "Normal": ["log_prob", "cdf", "icdf", "entropy", "mean", "mode", "variance", "stddev", "perplexity"],
    "Uniform": ["log_prob", "cdf", "icdf", "entropy", "mean", "variance", "stddev"],
    "Exponential": ["log_prob", "cdf", "icdf", "entropy", "mean", "mode", "variance", "stddev"],
    "Laplace": ["log_prob", "cdf", "icdf", "entropy", "mean", "mode", "variance", "stddev"],
    "Gumbel": ["log_prob", "cdf", "icdf", "entropy", "mean", "mode", "variance", "stddev"],
    "Cauchy": ["log_prob", "cdf", "icdf", "entropy", "mean", "mode", "variance"],
    "HalfNormal": ["log_prob", "cdf", "icdf", "entropy", "mean", "mode", "variance", "stddev"],
    "LogNormal": ["log_prob", "cdf", "icdf", "entropy", "mean", "mode", "variance", "stddev"],
    "Geometric(probs)": ["log_prob", "entropy", "mean", "mode", "variance", "logits"],
    "Geometric(logits)": ["log_prob", "entropy", "mean", "variance", "probs"],
    "Bernoulli(probs)": ["log_prob", "entropy", "mean", "mode", "variance", "logits", "perplexity"],
    "Bernoulli(logits)": ["log_prob", "entropy", "mean", "variance", "probs"],
    "Categorical(probs)": ["log_prob", "entropy", "mode", "probs", "logits", "mean", "variance"],
    "Categorical(logits)": ["log_prob", "entropy", "mode", "probs", "logits"],
    "OneHotCategorical": ["log_prob", "entropy", "mean", "mode", "variance"],
    "RelaxedBernoulli": ["log_prob"],
    "LogitRelaxedBernoulli": ["log_prob"],
    "RelaxedOneHotCategorical": ["log_prob"],
    "ExpRelaxedCategorical": ["log_prob"],
    "Independent": ["log_prob", "entropy", "mean", "mode", "variance"],
    "MixtureSameFamily": ["log_prob", "cdf", "mean", "variance"],
    "MixtureSameFamily(Independent)": ["log_prob", "mean", "variance"],
}
VALUE_METHODS = {"log_prob", "cdf", "icdf"}


def _value_for(name, method, value, params, rng):
    """The value a method is called with: probabilities for icdf, a point inside Uniform's support."""
    if method == "icdf":
        return rng.uniform(0.05, 0.95, (4, 1, 1) if name != "Laplace" else (2, 3))
    if name == "Uniform":
        low, width = params
        return low + width * rng.uniform(0.05, 0.95, (4,) + low.shape)
    return value


def _call(d, method, value):
    if method in VALUE_METHODS:
        return getattr(d, method)(value)
    if method in ("entropy", "perplexity"):
        return getattr(d, method)()
    return getattr(d, method)


def _cast(a, dtype):
    a = np.asarray(a)
    return a.astype(dtype) if np.issubdtype(a.dtype, np.floating) else a


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("layout", ["contig", "T"])
@pytest.mark.parametrize("name", CASE_NAMES)
def test_values_and_gradients_match_torch(name, layout, dtype, rng):
    make, params, value = _cases(rng)[name]
    for method in METHODS[name]:
        args = [_cast(p, dtype) for p in params]
        if method in VALUE_METHODS:
            args.append(_cast(_value_for(name, method, value, params, rng), dtype))

        def run(lib, *a, method=method):
            if method in VALUE_METHODS:
                return _call(make(lib, *a[:-1]), method, a[-1])
            return _call(make(lib, *a), method, None)
        atol, rtol = tol(dtype, 10 if dtype == np.float32 else 1)
        try:
            assert_matches_torch(lambda *a: run(SD, *a), lambda *a: run(TD, *a), args, atol=atol, rtol=rtol,
                                 layout=layout)
        except AssertionError as e:
            raise AssertionError(f"{name}.{method}: {e}") from None


@pytest.mark.parametrize("name", ["Normal", "Exponential", "Laplace", "Gumbel", "Bernoulli(logits)",
                                  "Categorical(logits)", "RelaxedBernoulli", "RelaxedOneHotCategorical",
                                  "MixtureSameFamily"])
def test_log_prob_gradcheck_float64(name, rng):
    make, params, value = _cases(rng)[name]
    value = _value_for(name, "log_prob", value, params, rng)
    if name in ("Normal", "Exponential", "Laplace", "Gumbel", "MixtureSameFamily"):  # value unconstrained
        assert_gradcheck(lambda *a: make(SD, *a[:-1]).log_prob(a[-1]), [*params, value])
    else:
        v = seqlab.tensor(value)
        assert_gradcheck(lambda *a: make(SD, *a).log_prob(v), params)


def test_shapes_match_torch(rng):
    for name, (make, params, value) in _cases(rng).items():
        s, t = make(SD, *[seqlab.tensor(p) for p in params]), make(TD, *[torch.tensor(p) for p in params])
        assert s.batch_shape == tuple(t.batch_shape), name
        assert s.event_shape == tuple(t.event_shape), name
        assert s.has_rsample == t.has_rsample, name
        assert s.has_enumerate_support == t.has_enumerate_support, name
        assert repr(s) == torch_text(repr(t)), name
        for shape in [(), (5,), (2, 1)]:
            assert s._extended_shape(shape) == tuple(t._extended_shape(shape))
            if t.has_rsample or name.startswith(("Bernoulli", "Categorical", "OneHot", "Mixture")):
                # torch's MixtureSameFamily.sample refuses a mixture batch_shape smaller than the components'
                expected = s._extended_shape(shape) if name == "MixtureSameFamily(Independent)" \
                    else tuple(t.sample(shape).shape)
                assert s.sample(shape).shape == expected, (name, shape)


def test_number_parameters_give_an_empty_batch_shape():
    for make in [lambda D: D.Normal(0.0, 1.0), lambda D: D.Uniform(0, 2), lambda D: D.Exponential(1.5),
                 lambda D: D.Laplace(1.0, 2.0), lambda D: D.Gumbel(0.5, 2.0), lambda D: D.Bernoulli(0.3),
                 lambda D: D.Bernoulli(logits=-1.0)]:
        s, t = make(SD), make(TD)
        assert s.batch_shape == () == tuple(t.batch_shape)
        assert repr(s) == repr(t)
        assert s.mean.dtype == seqlab.float32 and t.mean.dtype == torch.float32
        assert_close(sl_np(s.variance), t.variance.numpy(), 1e-7, 1e-6, repr(s))
    # a number and a float64 tensor: the number takes the tensor's dtype
    d = SD.Normal(0.0, seqlab.ones(2, dtype=seqlab.float64))
    assert d.loc.dtype == seqlab.float64 and d.batch_shape == (2,)


def test_broadcast_parameters_and_values(rng):
    loc, scale = rng.standard_normal((3, 1)), positive(rng, (4,))
    s, t = SD.Normal(seqlab.tensor(loc), seqlab.tensor(scale)), TD.Normal(torch.tensor(loc), torch.tensor(scale))
    assert s.batch_shape == (3, 4) and s.loc.shape == (3, 4)
    for vshape in [(), (4,), (1, 4), (2, 3, 4), (2, 1, 1)]:
        v = rng.standard_normal(vshape)
        assert_close(sl_np(s.log_prob(seqlab.tensor(v))), t.log_prob(torch.tensor(v)).numpy(), 1e-12, 1e-12, vshape)
    logits = rng.standard_normal((2, 3, 5))
    s, t = SD.Categorical(logits=seqlab.tensor(logits)), TD.Categorical(logits=torch.tensor(logits))
    for vshape in [(), (3,), (4, 1, 1), (4, 2, 3)]:
        v = rng.integers(0, 5, vshape)
        assert_close(sl_np(s.log_prob(seqlab.tensor(v))), t.log_prob(torch.tensor(v)).numpy(), 1e-12, 1e-12, vshape)


def test_size_zero_batches(rng):
    s = SD.Normal(seqlab.zeros(0, 3), seqlab.ones(0, 3))
    assert s.batch_shape == (0, 3) and s.sample((2,)).shape == (2, 0, 3) and s.rsample().shape == (0, 3)
    assert s.log_prob(seqlab.zeros(0, 3)).shape == (0, 3) and s.entropy().shape == (0, 3)
    c = SD.Categorical(logits=seqlab.zeros(0, 4))
    assert c.batch_shape == (0,) and c.sample((3,)).shape == (3, 0) and c.entropy().shape == (0,)
    assert c.log_prob(seqlab.zeros(0, dtype=seqlab.int64)).shape == (0,)
    assert SD.Categorical(logits=seqlab.zeros(2, 4)).sample((0,)).shape == (0, 2)
    b = SD.Bernoulli(probs=seqlab.full((0,), 0.5))
    assert b.sample((2,)).shape == (2, 0) and b.entropy().shape == (0,)


def test_expand_matches_torch(rng):
    for name, (make, params, value) in _cases(rng).items():
        s, t = make(SD, *[seqlab.tensor(p) for p in params]), make(TD, *[torch.tensor(p) for p in params])
        shape = (3,) + tuple(t.batch_shape)
        se, te = s.expand(shape), t.expand(shape)
        assert type(se) is type(s) and se.batch_shape == tuple(te.batch_shape) == shape, name
        assert se.event_shape == tuple(te.event_shape), name
        assert se._validate_args == s._validate_args
        tv = te.sample() if name != "MixtureSameFamily(Independent)" else torch.tensor(sl_np(se.sample()))
        sv = seqlab.tensor(tv.numpy())
        assert_close(sl_np(se.log_prob(sv)), te.log_prob(tv).numpy(), 1e-10, 1e-10, name)
        assert se.sample((2,)).shape == (2,) + shape + se.event_shape, name
    assert SD.Normal(seqlab.zeros(1), 1.0).expand([4, 2]).batch_shape == (4, 2)
    assert_raises_like_torch(lambda: SD.Normal(seqlab.zeros(3, 2), 1.0).expand((2,)),
                             lambda: TD.Normal(torch.zeros(3, 2), 1.0).expand((2,)))


def test_a_subclass_with_its_own_init_needs_its_own_expand():
    def subclass(D):
        class Shifted(D.Normal):
            def __init__(self, loc):
                super().__init__(loc, 1.0)
        return Shifted

    assert_raises_like_torch(lambda: subclass(SD)(seqlab.zeros(2)).expand((3, 2)),
                             lambda: subclass(TD)(torch.zeros(2)).expand((3, 2)),
                             "Subclass Shifted of Normal that defines a custom __init__ method must also define "
                             r"a custom \.expand\(\) method\.")


def test_enumerate_support_matches_torch(rng):
    p = rng.uniform(0.1, 0.9, (2, 3))
    for make in [lambda D, x: D.Bernoulli(x), lambda D, x: D.Categorical(x), lambda D, x: D.OneHotCategorical(x),
                 lambda D, x: D.Independent(D.Bernoulli(x), 0)]:
        s, t = make(SD, seqlab.tensor(p)), make(TD, torch.tensor(p))
        for expand in (True, False):
            a, b = s.enumerate_support(expand), t.enumerate_support(expand)
            assert a.shape == tuple(b.shape)
            assert_close(sl_np(a), b.numpy(), 0, 0, "enumerate_support")
    for make in [lambda D: D.Normal(0.0, 1.0), lambda D: D.Independent(D.Bernoulli(torch_or_sl(D).ones(2) / 2), 1)]:
        assert_raises_like_torch(lambda: make(SD).enumerate_support(), lambda: make(TD).enumerate_support())


def torch_or_sl(D):
    return seqlab if D is SD else torch


def test_mode_at_a_tie_and_onehot_straight_through(rng):
    p = np.array([0.2, 0.5, 0.7])
    assert_close(sl_np(SD.Bernoulli(seqlab.tensor(p)).mode), TD.Bernoulli(torch.tensor(p)).mode.numpy(), 0, 0, "mode")
    probs = positive(rng, (2, 4))
    leaf = seqlab.tensor(probs, requires_grad=True)
    x = SD.OneHotCategoricalStraightThrough(probs=leaf).rsample((5,))
    assert x.shape == (5, 2, 4) and bool(SD.constraints.one_hot.check(x).all())
    w = rng.standard_normal(4)
    (x * seqlab.tensor(w)).sum().backward()
    # the value is the one-hot draw; the gradient is that of probs = p / Σp, once per draw
    tp = torch.tensor(probs, requires_grad=True)
    (5 * (TD.OneHotCategorical(probs=tp).probs * torch.tensor(w)).sum()).backward()
    assert_close(sl_np(leaf.grad), tp.grad.numpy(), 1e-12, 1e-12, "straight-through gradient")


def test_kl_pairs_match_torch(rng):
    pairs = []
    p2 = lambda: positive(rng, (2, 3))  # noqa: E731
    n2 = lambda: rng.standard_normal((2, 3))  # noqa: E731
    uni = lambda: (n2(), positive(rng, (2, 3), 1.0, 3.0))  # noqa: E731
    makers = {
        "Normal": (lambda D, a, b: D.Normal(a, b), lambda: [n2(), p2()]),
        "Laplace": (lambda D, a, b: D.Laplace(a, b), lambda: [n2(), p2()]),
        "Gumbel": (lambda D, a, b: D.Gumbel(a, b), lambda: [n2(), p2()]),
        "Exponential": (lambda D, a: D.Exponential(a), lambda: [p2()]),
        "Uniform": (lambda D, a, w: D.Uniform(a, a + w), lambda: list(uni())),
        "Bernoulli": (lambda D, a: D.Bernoulli(logits=a), lambda: [2 * n2()]),
        "Categorical": (lambda D, a: D.Categorical(logits=a), lambda: [rng.standard_normal((2, 5))]),
        "OneHotCategorical": (lambda D, a: D.OneHotCategorical(probs=a), lambda: [positive(rng, (2, 5))]),
        "Independent": (lambda D, a, b: D.Independent(D.Normal(a, b), 1), lambda: [n2(), p2()]),
        "Cauchy": (lambda D, a, b: D.Cauchy(a, b), lambda: [n2(), p2()]),
        "HalfNormal": (lambda D, b: D.HalfNormal(b), lambda: [p2()]),
        "LogNormal": (lambda D, a, b: D.LogNormal(a, b), lambda: [n2(), p2()]),
        "Geometric": (lambda D, a: D.Geometric(logits=a), lambda: [n2()]),
    }
    registered = [("Bernoulli", "Bernoulli"), ("Categorical", "Categorical"),
                  ("OneHotCategorical", "OneHotCategorical"),
                  ("Normal", "Normal"), ("Uniform", "Uniform"), ("Exponential", "Exponential"), ("Laplace", "Laplace"),
                  ("Independent", "Independent"), ("Exponential", "Gumbel"), ("Exponential", "Normal"),
                  ("Exponential", "Uniform"), ("Gumbel", "Exponential"), ("Gumbel", "Normal"), ("Gumbel", "Uniform"),
                  ("Laplace", "Exponential"), ("Laplace", "Normal"), ("Laplace", "Uniform"), ("Normal", "Exponential"),
                  ("Normal", "Gumbel"), ("Normal", "Laplace"), ("Normal", "Uniform"), ("Uniform", "Exponential"),
                  ("Uniform", "Gumbel"), ("Uniform", "Normal"), ("Cauchy", "Cauchy"), ("HalfNormal", "HalfNormal"),
                  ("LogNormal", "LogNormal"), ("Geometric", "Geometric")]
    for p_name, q_name in registered:
        (make_p, gen_p), (make_q, gen_q) = makers[p_name], makers[q_name]
        pp, qq = gen_p(), gen_q()
        if (p_name, q_name) == ("Uniform", "Uniform"):  # one row inside q, one not
            pp[0][0], pp[1][0] = qq[0][0] + 0.1, qq[1][0] * 0.5
        if (p_name, q_name) == ("Uniform", "Exponential"):
            pp[0][0] = np.abs(pp[0][0])
        n_p = len(pp)
        pairs.append((p_name, q_name))
        for dtype in FLOAT_DTYPES:
            atol, rtol = tol(dtype, 10 if dtype == np.float32 else 1)
            args = [_cast(a, dtype) for a in pp + qq]
            try:
                assert_matches_torch(lambda *a: SD.kl_divergence(make_p(SD, *a[:n_p]), make_q(SD, *a[n_p:])),
                                     lambda *a: TD.kl_divergence(make_p(TD, *a[:n_p]), make_q(TD, *a[n_p:])),
                                     args, atol=atol, rtol=rtol)
            except AssertionError as e:
                raise AssertionError(f"KL({p_name} || {q_name}): {e}") from None
    assert len(pairs) == len(registered)


def test_kl_with_zero_probabilities_matches_torch():
    for p, q in [([0.0, 0.5, 1.0, 0.3], [0.5, 0.0, 1.0, 1.0]), ([0.2, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.7])]:
        s = SD.kl_divergence(SD.Bernoulli(seqlab.tensor(p)), SD.Bernoulli(seqlab.tensor(q)))
        t = TD.kl_divergence(TD.Bernoulli(torch.tensor(p)), TD.Bernoulli(torch.tensor(q)))
        assert_close(sl_np(s), t.numpy(), 1e-6, 1e-5, "Bernoulli")
    p, q = [[0.0, 0.5, 0.5], [0.2, 0.3, 0.5]], [[0.5, 0.5, 0.0], [0.0, 0.5, 0.5]]
    s = SD.kl_divergence(SD.Categorical(seqlab.tensor(p)), SD.Categorical(seqlab.tensor(q)))
    t = TD.kl_divergence(TD.Categorical(torch.tensor(p)), TD.Categorical(torch.tensor(q)))
    assert_close(sl_np(s), t.numpy(), 1e-6, 1e-5, "Categorical")


def test_kl_gradcheck_float64(rng):
    assert_gradcheck(lambda a, b, c, d: SD.kl_divergence(SD.Normal(a, b), SD.Normal(c, d)),
                     [rng.standard_normal(3), positive(rng, 3), rng.standard_normal(3), positive(rng, 3)])
    assert_gradcheck(lambda a, b: SD.kl_divergence(SD.Categorical(logits=a), SD.Categorical(logits=b)),
                     [rng.standard_normal((2, 4)), rng.standard_normal((2, 4))])
    assert_gradcheck(lambda a, b, c, d: SD.kl_divergence(SD.Normal(a, b), SD.Laplace(c, d)),
                     [rng.standard_normal(3), positive(rng, 3), rng.standard_normal(3), positive(rng, 3)])


def test_kl_registry_dispatch_and_errors():
    assert_raises_like_torch(lambda: SD.kl_divergence(SD.Categorical(seqlab.ones(3)), SD.Normal(0.0, 1.0)),
                             lambda: TD.kl_divergence(TD.Categorical(torch.ones(3)), TD.Normal(0.0, 1.0)),
                             r"^No KL\(p \|\| q\) is implemented for p type Categorical and q type Normal$")
    assert_raises_like_torch(lambda: SD.kl_divergence(SD.Bernoulli(0.3), SD.Normal(0.0, 1.0)),
                             lambda: TD.kl_divergence(TD.Bernoulli(0.3), TD.Normal(0.0, 1.0)),
                             "cross KL-divergence between different exponential families cannot")
    assert_raises_like_torch(lambda: SD.register_kl("Normal", SD.Normal), lambda: TD.register_kl("Normal", TD.Normal))
    with pytest.raises(TypeError, match="Expected type_p to be a Distribution subclass but got <class 'int'>"):
        SD.register_kl(int, SD.Normal)  # torch's check lets a class that is no Distribution through

    # a registered subclass pair wins over its parents; a new registration clears the memo
    class MyNormal(SD.Normal):
        pass

    p, q = MyNormal(0.0, 1.0), SD.Normal(1.0, 2.0)
    before = SD.kl_divergence(p, q)
    assert math.isclose(before.item(), SD.kl_divergence(SD.Normal(0.0, 1.0), q).item())

    @SD.register_kl(MyNormal, SD.Normal)
    def _kl_mine(p, q):
        return seqlab.tensor(42.0)
    try:
        assert SD.kl_divergence(p, q).item() == 42.0
        reverse = SD.kl_divergence(SD.Normal(1.0, 2.0), SD.Normal(0.0, 1.0)).item()
        assert SD.kl_divergence(q, p).item() == reverse  # (Normal, MyNormal) still finds (Normal, Normal)

        # ambiguity: (MyNormal, Normal) and (Normal, MyNormal) both match (MyNormal, MyNormal)
        @SD.register_kl(SD.Normal, MyNormal)
        def _kl_other(p, q):
            return seqlab.tensor(7.0)
        with pytest.warns(RuntimeWarning, match=r"Ambiguous kl_divergence\(MyNormal, MyNormal\). "
                                                r"Please register_kl\(MyNormal, MyNormal\)"):
            assert SD.kl_divergence(MyNormal(0.0, 1.0), MyNormal(0.0, 1.0)).item() == 42.0
    finally:
        from seqlab.distributions import kl
        kl._KL_REGISTRY.pop((MyNormal, SD.Normal), None)
        kl._KL_REGISTRY.pop((SD.Normal, MyNormal), None)
        kl._KL_MEMOIZE.clear()


# ---- validation: torch's errors -------------------------------------------------------------------

def _both(make):
    return (lambda: make(SD, seqlab)), (lambda: make(TD, torch))


PARAMETER_ERRORS = [
    (lambda D, L: D.Normal(0.0, -1.0), r"^Expected parameter scale \(Tensor of shape \(\)\) of distribution "
     r"Normal\(loc: 0.0, scale: -1.0\) to satisfy the constraint GreaterThan\(lower_bound=0.0\), but found "
     r"invalid values:\n-1.0$"),
    (lambda D, L: D.Normal(L.zeros(2), L.tensor([1.0, -1.0])), r"^Expected parameter scale \(Tensor of shape "
     r"\(2,\)\) of distribution Normal\(loc: \(2,\), scale: \(2,\)\) to satisfy the constraint "
     r"GreaterThan\(lower_bound=0.0\), but found invalid values:\ntensor\(\[ 1., -1.\]\)$"),
    (lambda D, L: D.Normal(L.tensor([math.nan]), 1.0), "Expected parameter loc .* Real()"),
    (lambda D, L: D.Uniform(1.0, 0.0), r"Expected parameter low \(Tensor of shape \(\)\) of distribution "
     r"Uniform\(low: 1.0, high: 0.0\) to satisfy the constraint LessThan\(upper_bound=0.0\)"),
    (lambda D, L: D.Exponential(L.tensor([0.0])), r"parameter rate .* GreaterThan\(lower_bound=0.0\)"),
    (lambda D, L: D.Laplace(0.0, 0.0), "parameter scale"),
    (lambda D, L: D.Gumbel(0.0, -2.0), "parameter scale"),
    (lambda D, L: D.Bernoulli(probs=L.tensor([1.5])), r"parameter probs \(Tensor of shape \(1,\)\) of "
     r"distribution Bernoulli\(probs: tensor\(\[1.5000\]\)\) to satisfy the constraint "
     r"Interval\(lower_bound=0.0, upper_bound=1.0\)"),
    (lambda D, L: D.Categorical(probs=L.tensor([0.5, -0.1, 0.6])), r"parameter probs .* Simplex\(\)"),
    (lambda D, L: D.Categorical(logits=L.tensor([0.5, math.nan])), r"parameter logits .* "
     r"IndependentConstraint\(Real\(\), 1\)"),
    (lambda D, L: D.OneHotCategorical(probs=L.tensor([[0.5, -0.1, 0.6]])), "parameter probs"),
    (lambda D, L: D.RelaxedBernoulli(L.tensor(1.0), probs=L.tensor([2.0])), "parameter probs .* LogitRelaxedBernoulli"),
    (lambda D, L: D.Geometric(L.tensor([0.5, 0.0, 0.0])), r"^Expected parameter probs \(Tensor of shape \(3,\)\) of "
     r"distribution Geometric\(probs: \(3,\)\) to be positive but found invalid values:\ntensor\(\[0., 0.\]\)$"),
    (lambda D, L: D.HalfNormal(-1.0),
     r"^Expected parameter scale \(Tensor of shape \(\)\) of distribution HalfNormal\(\)"),
    (lambda D, L: D.LogNormal(0.0, -1.0), r"^Expected parameter scale \(Tensor of shape \(\)\) of distribution Normal"),
    (lambda D, L: D.Cauchy(0.0, -1.0), r"^Expected parameter scale .* Cauchy\(loc: 0.0, scale: -1.0\)"),
    (lambda D, L: D.Categorical(), r"^Either `probs` or `logits` must be specified, but not both.$"),
    (lambda D, L: D.Bernoulli(0.2, 0.3), r"^Either `probs` or `logits` must be specified, but not both.$"),
    (lambda D, L: D.Categorical(L.tensor(0.5)), r"^`probs` parameter must be at least one-dimensional.$"),
    (lambda D, L: D.Categorical(logits=L.tensor(0.5)), r"^`logits` parameter must be at least one-dimensional.$"),
    (lambda D, L: D.Normal([0.0], 1.0), "^Input arguments must all be instances of Number"),
    (lambda D, L: D.Independent(D.Normal(0.0, 1.0), 1), r"^Expected reinterpreted_batch_ndims <= "
     r"len\(base_distribution.batch_shape\), actual 1 vs 0$"),
    (lambda D, L: D.MixtureSameFamily(D.Normal(L.zeros(3), 1.0), D.Normal(L.zeros(3), 1.0)),
     "The Mixture distribution needs to be an  instance of"),
    (lambda D, L: D.MixtureSameFamily(D.Categorical(L.ones(3)), 1.0), "The Component distribution needs to be an "
     "instance of"),
    (lambda D, L: D.MixtureSameFamily(D.Categorical(L.ones(2, 3)), D.Normal(L.zeros(4, 3), 1.0)),
     r"^`mixture_distribution.batch_shape` \(\(2,\)\) is not compatible with `component_distribution.batch_shape`"
     r"\(\(4,\)\)$"),
    (lambda D, L: D.MixtureSameFamily(D.Categorical(L.ones(2)), D.Normal(L.zeros(3), 1.0)),
     r"^`mixture_distribution component` \(2\) does not equal `component_distribution.batch_shape\[-1\]` \(3\)$"),
]


@pytest.mark.parametrize("make,message", PARAMETER_ERRORS, ids=range(len(PARAMETER_ERRORS)))
def test_parameter_errors_match_torch(make, message):
    ours, theirs = _both(make)
    with pytest.raises(Exception) as info:
        theirs()
    assert re.search(message, torch_text(str(info.value)).replace("torch.distributions", "seqlab.distributions")), \
        f"torch's message changed: {info.value}"
    assert_raises_like_torch(ours, theirs, message)


VALUE_ERRORS = [
    (lambda D, L: D.Bernoulli(probs=L.tensor([0.3])).log_prob(L.tensor([0.5])),
     r"^Expected value argument \(Tensor of shape \(1,\)\) to be within the support \(Boolean\(\)\) of the "
     r"distribution Bernoulli\(probs: tensor\(\[0.3000\]\)\), but found invalid values:\ntensor\(\[0.5000\]\)$"),
    (lambda D, L: D.Categorical(probs=L.tensor([0.3, 0.7])).log_prob(L.tensor([2])),
     r"within the support \(IntegerInterval\(lower_bound=0, upper_bound=1\)\) of the distribution "
     r"Categorical\(probs: \(2,\)\)"),
    (lambda D, L: D.Exponential(1.0).log_prob(L.tensor(-1.0)), r"GreaterThanEq\(lower_bound=0.0\)"),
    (lambda D, L: D.Exponential(1.0).cdf(L.tensor(-1.0)), r"GreaterThanEq\(lower_bound=0.0\)"),
    (lambda D, L: D.Uniform(0.0, 1.0).log_prob(L.tensor(1.5)), r"Interval\(lower_bound=0.0, upper_bound=1.0\)"),
    (lambda D, L: D.Geometric(0.5).log_prob(L.tensor(1.5)), r"IntegerGreaterThan\(lower_bound=0\)"),
    (lambda D, L: D.LogNormal(0.0, 1.0).log_prob(L.tensor(0.0)), r"GreaterThan\(lower_bound=0.0\)"),
    (lambda D, L: D.HalfNormal(1.0).cdf(L.tensor(-1.0)), r"GreaterThanEq\(lower_bound=0.0\)"),
    (lambda D, L: D.Normal(L.zeros(2), 1.0).log_prob(L.zeros(3)),
     r"^Value is not broadcastable with batch_shape\+event_shape: \(3,\) vs \(2,\).$"),
    (lambda D, L: D.OneHotCategorical(L.ones(3)).log_prob(L.ones(4)),
     r"^The right-most size of value must match event_shape: \(4,\) vs \(3,\).$"),
    (lambda D, L: D.OneHotCategorical(L.ones(3)).log_prob(L.ones(3)), r"OneHot\(\)"),
    (lambda D, L: D.RelaxedOneHotCategorical(L.tensor(0.5), L.ones(3)).log_prob(L.ones(3)), r"Simplex\(\)"),
    (lambda D, L: D.RelaxedBernoulli(L.tensor(0.5), L.ones(3) / 2).log_prob(L.ones(3) * 2), r"Interval"),
    (lambda D, L: D.Normal(0.0, 1.0).log_prob(0.5), "^The value argument to log_prob must be a Tensor$"),
    (lambda D, L: D.Independent(D.Normal(L.zeros(2, 3), 1.0), 1).log_prob(L.zeros(2, 4)),
     r"^Value is not broadcastable with batch_shape\+event_shape: \(2, 4\) vs \(2, 3\).$"),  # the base's check
    (lambda D, L: D.MixtureSameFamily(D.Categorical(L.ones(3)), D.Exponential(L.ones(3))).log_prob(-L.ones(2)),
     r"MixtureSameFamilyConstraint\(GreaterThanEq\(lower_bound=0.0\)\)"),
    (lambda D, L: D.Distribution.set_default_validate_args(3), "^$"),
    (lambda D, L: D.Normal(0.0, 1.0).sample(5), "'int' object is not iterable"),
]


@pytest.mark.parametrize("make,message", VALUE_ERRORS, ids=range(len(VALUE_ERRORS)))
def test_value_errors_match_torch(make, message):
    ours, theirs = _both(make)
    with pytest.raises(Exception) as info:
        theirs()
    assert re.search(message, torch_text(str(info.value))), f"torch's message changed: {info.value}"
    assert_raises_like_torch(ours, theirs, message)


def test_validate_args_off_computes_outside_the_support():
    for validate in (False, None):
        kwargs = {} if validate is None else {"validate_args": False}
        if validate is None:
            SD.Distribution.set_default_validate_args(False)
            TD.Distribution.set_default_validate_args(False)
        try:
            s = SD.Uniform(seqlab.tensor([0.0, 0.0]), seqlab.tensor([1.0, 2.0]), **kwargs)
            t = TD.Uniform(torch.tensor([0.0, 0.0]), torch.tensor([1.0, 2.0]), **kwargs)
            v = [1.5, -0.5]
            assert_close(sl_np(s.log_prob(seqlab.tensor(v))), t.log_prob(torch.tensor(v)).numpy(), 0, 0, "")
            assert_close(sl_np(s.cdf(seqlab.tensor(v))), t.cdf(torch.tensor(v)).numpy(), 0, 0, "")
            s = SD.Bernoulli(seqlab.tensor([0.3]), **kwargs)
            t = TD.Bernoulli(torch.tensor([0.3]), **kwargs)
            assert_close(sl_np(s.log_prob(seqlab.tensor([0.5]))), t.log_prob(torch.tensor([0.5])).numpy(),
                         1e-7, 1e-6, "Bernoulli")
            assert SD.Normal(0.0, -1.0, **kwargs).scale.item() == -1.0
        finally:
            SD.Distribution.set_default_validate_args(True)
            TD.Distribution.set_default_validate_args(True)
    # validate_args=True on one instance when the default is off
    SD.Distribution.set_default_validate_args(False)
    try:
        with pytest.raises(ValueError, match="parameter scale"):
            SD.Normal(0.0, -1.0, validate_args=True)
    finally:
        SD.Distribution.set_default_validate_args(True)


def test_sample_n_is_deprecated_as_in_torch():
    with pytest.warns(FutureWarning, match=r"`sample_n\(n\)` will be deprecated. Use `sample\(\(n,\)\)` instead."):
        assert SD.Normal(seqlab.zeros(2), 1.0).sample_n(3).shape == (3, 2)


def test_base_class_raises_as_torch():
    for what in ["mean", "variance", "support", "arg_constraints", "mode"]:
        assert_raises_like_torch(lambda: getattr(SD.Distribution(validate_args=False), what),
                                 lambda: getattr(TD.Distribution(validate_args=False), what))
    for call in [lambda d: d.entropy(), lambda d: d.rsample(), lambda d: d.expand((2,)), lambda d: d.cdf(None),
                 lambda d: d.icdf(None), lambda d: d.log_prob(None), lambda d: d.enumerate_support()]:
        assert_raises_like_torch(lambda: call(SD.Distribution(validate_args=False)),
                                 lambda: call(TD.Distribution(validate_args=False)))
    assert_raises_like_torch(lambda: SD.Bernoulli(0.5).rsample(), lambda: TD.Bernoulli(0.5).rsample())


# ---- sampling: shape, dtype, support, statistics, reparameterised gradients -----------------------

N_DRAWS = 20000


def _ks_statistic(a, b):
    """The two-sample Kolmogorov-Smirnov statistic sup |F_a - F_b|."""
    a, b = np.sort(a), np.sort(b)
    grid = np.concatenate([a, b])
    cdf_a = np.searchsorted(a, grid, side="right") / a.size
    cdf_b = np.searchsorted(b, grid, side="right") / b.size
    return np.max(np.abs(cdf_a - cdf_b))


def _ks_bound(n, m, alpha=1e-4):
    """The statistic's critical value at level alpha: sqrt(-log(alpha/2)/2 · (n+m)/(n·m))."""
    return math.sqrt(-math.log(alpha / 2) / 2 * (n + m) / (n * m))


# (make, parameters, kurtosis bound for the variance check); every batch has 2 entries
CONTINUOUS = {
    "Normal": (lambda D, L: D.Normal(L.tensor([0.5, -2.0]), L.tensor([1.5, 0.2])), 3),
    "Uniform": (lambda D, L: D.Uniform(L.tensor([0.0, -3.0]), L.tensor([1.0, 5.0])), 1.8),
    "Exponential": (lambda D, L: D.Exponential(L.tensor([0.5, 4.0])), 9),
    "Laplace": (lambda D, L: D.Laplace(L.tensor([1.0, -1.0]), L.tensor([0.5, 2.0])), 6),
    "Gumbel": (lambda D, L: D.Gumbel(L.tensor([1.0, -1.0]), L.tensor([0.5, 2.0])), 5.4),
    "Cauchy": (lambda D, L: D.Cauchy(L.tensor([1.0, -1.0]), L.tensor([0.5, 2.0])), None),
    "HalfNormal": (lambda D, L: D.HalfNormal(L.tensor([0.5, 2.0])), 4),
    "LogNormal": (lambda D, L: D.LogNormal(L.tensor([0.0, 1.0]), L.tensor([0.25, 0.5])), 20),
    "Geometric": (lambda D, L: D.Geometric(L.tensor([0.3, 0.8])), 10),
    "MixtureSameFamily": (lambda D, L: D.MixtureSameFamily(D.Categorical(L.tensor([[0.3, 0.7], [0.9, 0.1]])),
                                                           D.Normal(L.tensor([[-2.0, 2.0], [0.0, 5.0]]), 0.5)), 4),
    "RelaxedBernoulli": (lambda D, L: D.RelaxedBernoulli(L.tensor(0.5), probs=L.tensor([0.2, 0.7])), None),
    "LogitRelaxedBernoulli": (lambda D, L: D.relaxed_bernoulli.LogitRelaxedBernoulli(
        L.tensor(0.5), logits=L.tensor([0.2, -1.0])), None),
    "RelaxedOneHotCategorical": (lambda D, L: D.RelaxedOneHotCategorical(
        L.tensor(0.7), probs=L.tensor([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])), None),
    "ExpRelaxedCategorical": (lambda D, L: D.relaxed_categorical.ExpRelaxedCategorical(
        L.tensor(0.7), logits=L.tensor([[0.2, 0.3, 0.5], [0.6, 0.3, -1.0]])), None),
}


@pytest.mark.parametrize("name", list(CONTINUOUS))
def test_continuous_samples_follow_the_distribution(name):
    make, kurtosis = CONTINUOUS[name]
    s, t = make(SD, seqlab), make(TD, torch)
    draw = s.rsample((N_DRAWS,)) if s.has_rsample else s.sample((N_DRAWS,))
    assert draw.shape == (N_DRAWS,) + s.batch_shape + s.event_shape and draw.dtype == seqlab.float32
    assert not draw.requires_grad and bool(s.support.check(draw).all()), name
    ours, theirs = sl_np(draw), t.sample((N_DRAWS,)).numpy()
    flat_ours, flat_theirs = ours.reshape(N_DRAWS, -1), theirs.reshape(N_DRAWS, -1)
    for j in range(flat_ours.shape[1]):  # one KS test per batch entry (and per event coordinate)
        d = _ks_statistic(flat_ours[:, j], flat_theirs[:, j])
        assert d < _ks_bound(N_DRAWS, N_DRAWS), f"{name}[{j}]: KS statistic {d:.4f} against torch's draws"
    if kurtosis is not None:
        mean, var = sl_np(s.mean), sl_np(s.variance)
        se_mean = np.sqrt(var / N_DRAWS)
        assert np.all(np.abs(ours.mean(0) - mean) < 5 * se_mean), (name, ours.mean(0), mean)
        se_var = var * np.sqrt((kurtosis - 1) / N_DRAWS)
        assert np.all(np.abs(ours.var(0) - var) < 5 * se_var), (name, ours.var(0), var)


def test_discrete_samples_follow_the_distribution():
    p = np.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]])
    for d in [SD.Categorical(probs=seqlab.tensor(p)), SD.Categorical(logits=seqlab.tensor(np.log(p) + 3.0))]:
        x = d.sample((N_DRAWS,))
        assert x.shape == (N_DRAWS, 2) and x.dtype == seqlab.int64 and bool(d.support.check(x).all())
        counts = np.stack([(sl_np(x) == k).mean(0) for k in range(3)], -1)
        assert np.all(np.abs(counts - p) < 5 * np.sqrt(p * (1 - p) / N_DRAWS)), counts
    d = SD.OneHotCategorical(probs=seqlab.tensor(p, dtype=seqlab.float64))
    x = d.sample((N_DRAWS,))
    assert x.shape == (N_DRAWS, 2, 3) and x.dtype == seqlab.float64 and bool(d.support.check(x).all())
    assert np.all(np.abs(sl_np(x).mean(0) - p) < 5 * np.sqrt(p * (1 - p) / N_DRAWS))
    q = np.array([0.05, 0.5, 0.9])
    for d in [SD.Bernoulli(seqlab.tensor(q, dtype=seqlab.float32)),
              SD.Bernoulli(logits=seqlab.tensor(np.log(q / (1 - q)), dtype=seqlab.float32))]:
        x = d.sample((N_DRAWS,))
        assert x.shape == (N_DRAWS, 3) and x.dtype == seqlab.float32 and bool(d.support.check(x).all())
        assert np.all(np.abs(sl_np(x).mean(0) - q) < 5 * np.sqrt(q * (1 - q) / N_DRAWS))
    # parameters that require grad: samples are outside the graph
    d = SD.Categorical(logits=seqlab.zeros(3, requires_grad=True))
    assert not d.sample().requires_grad
    assert not SD.Bernoulli(seqlab.full((2,), 0.5, requires_grad=True)).sample().requires_grad


def test_samples_follow_manual_seed():
    for make in [lambda: SD.Normal(seqlab.zeros(3), 1.0), lambda: SD.Categorical(seqlab.ones(4)),
                 lambda: SD.Bernoulli(seqlab.full((3,), 0.5)), lambda: SD.Gumbel(0.0, 1.0)]:
        seqlab.manual_seed(7)
        a = make().sample((5,))
        seqlab.manual_seed(7)
        b = make().sample((5,))
        assert seqlab.equal(a, b)


def test_rsample_gradients_are_reparameterised():
    # Normal: x = loc + scale·ε, so d Σx / d loc = number of draws, d Σx / d scale = Σ ε = Σ (x - loc) / scale
    loc, scale = seqlab.tensor([0.5, -1.0], requires_grad=True), seqlab.tensor([2.0, 0.5], requires_grad=True)
    x = SD.Normal(loc, scale).rsample((1000,))
    x.sum().backward()
    assert_close(sl_np(loc.grad), np.full(2, 1000.0, np.float32), 0, 0, "dx/dloc")
    eps = (sl_np(x) - sl_np(loc)) / sl_np(scale)
    assert_close(sl_np(scale.grad), eps.sum(0).astype(np.float32), 1e-2, 1e-4, "dx/dscale")
    # Exponential: x = E / rate, dx/drate = -x / rate
    rate = seqlab.tensor([0.5, 3.0], dtype=seqlab.float64, requires_grad=True)
    x = SD.Exponential(rate).rsample((500,))
    x.sum().backward()
    assert_close(sl_np(rate.grad), (-sl_np(x) / sl_np(rate)).sum(0), 1e-10, 1e-10, "dx/drate")
    # Uniform: x = low + u (high - low), dx/dlow = 1 - u, dx/dhigh = u
    low, high = seqlab.tensor([0.0], dtype=seqlab.float64, requires_grad=True), \
        seqlab.tensor([4.0], dtype=seqlab.float64, requires_grad=True)
    x = SD.Uniform(low, high).rsample((300,))
    x.sum().backward()
    u = sl_np(x) / 4.0
    assert_close(sl_np(low.grad), (1 - u).sum(0), 1e-10, 1e-10, "dx/dlow")
    assert_close(sl_np(high.grad), u.sum(0), 1e-10, 1e-10, "dx/dhigh")


RSAMPLED = {
    "Normal": (lambda D, a, b: D.Normal(a, b), [[0.3, -1.0], [1.5, 0.4]]),
    "Uniform": (lambda D, a, b: D.Uniform(a, a + b), [[0.3, -1.0], [1.5, 0.4]]),
    "Exponential": (lambda D, a: D.Exponential(a), [[0.7, 2.0]]),
    "Laplace": (lambda D, a, b: D.Laplace(a, b), [[0.3, -1.0], [1.5, 0.4]]),
    "Gumbel": (lambda D, a, b: D.Gumbel(a, b), [[0.3, -1.0], [1.5, 0.4]]),
    "RelaxedBernoulli": (lambda D, t, p: D.RelaxedBernoulli(t, probs=p), [[0.6], [0.3, 0.8]]),
    "RelaxedOneHotCategorical": (lambda D, t, l: D.RelaxedOneHotCategorical(t, logits=l), [[0.6], [0.3, 0.8, -1.0]]),
    "Independent": (lambda D, a, b: D.Independent(D.Normal(a, b), 1), [[0.3, -1.0], [1.5, 0.4]]),
    "Cauchy": (lambda D, a, b: D.Cauchy(a, b), [[0.3, -1.0], [1.5, 0.4]]),
    "HalfNormal": (lambda D, b: D.HalfNormal(b), [[1.5, 0.4]]),
    "LogNormal": (lambda D, a, b: D.LogNormal(a, b), [[0.3, -1.0], [0.5, 0.4]]),
}


@pytest.mark.parametrize("name", list(RSAMPLED))
def test_rsample_gradient_matches_a_finite_difference_of_the_same_noise(name):
    # the same seed gives the same noise, so rsample is a differentiable function of the parameters
    make, params = RSAMPLED[name]
    weights = None

    def draw(values, seed=11):
        nonlocal weights
        seqlab.manual_seed(seed)
        x = make(SD, *values).rsample((50,))
        if weights is None:
            weights = seqlab.tensor(np.random.default_rng(0).standard_normal(tuple(x.shape)))
        return (x * weights).sum()

    leaves = [seqlab.tensor(p, dtype=seqlab.float64, requires_grad=True) for p in params]
    draw(leaves).backward()
    h = 1e-6
    for i, p in enumerate(params):
        numeric = []
        for j in range(len(p)):
            plus = [np.array(q, dtype=np.float64) for q in params]
            minus = [np.array(q, dtype=np.float64) for q in params]
            plus[i][j] += h
            minus[i][j] -= h
            f = lambda vals: draw([seqlab.tensor(v) for v in vals]).item()  # noqa: E731
            numeric.append((f(plus) - f(minus)) / (2 * h))
        assert_close(sl_np(leaves[i].grad), np.array(numeric), 1e-5, 1e-5, f"{name} parameter {i}")


def test_rsample_is_refused_where_torch_has_none():
    for make in [lambda D, L: D.Bernoulli(0.5), lambda D, L: D.Categorical(L.ones(3)),
                 lambda D, L: D.OneHotCategorical(L.ones(3)),
                 lambda D, L: D.MixtureSameFamily(D.Categorical(L.ones(2)), D.Normal(L.zeros(2), 1.0))]:
        ours, theirs = _both(make)
        assert ours().has_rsample is False is theirs().has_rsample
        assert_raises_like_torch(lambda: ours().rsample(), lambda: theirs().rsample())


# ---- constraints, the namespace, the docs -----------------------------------------------------------

def test_constraints_check_and_repr_match_torch():
    values = np.array([[-1.0, 0.0, 0.25, 1.0], [2.0, math.nan, 0.5, 0.5], [0.0, 1.0, 0.0, 0.0],
                       [0.1, 0.2, 0.3, 0.4]])
    makes = [lambda C: C.real, lambda C: C.positive, lambda C: C.nonnegative, lambda C: C.unit_interval,
             lambda C: C.boolean, lambda C: C.nonnegative_integer, lambda C: C.positive_integer,
             lambda C: C.integer_interval(0, 2), lambda C: C.interval(-0.5, 0.5), lambda C: C.half_open_interval(0, 1),
             lambda C: C.greater_than(0.1), lambda C: C.greater_than_eq(0.25), lambda C: C.less_than(0.5),
             lambda C: C.simplex, lambda C: C.one_hot, lambda C: C.real_vector, lambda C: C.independent(C.positive, 1),
             lambda C: C.multinomial(1), lambda C: C.MixtureSameFamilyConstraint(C.unit_interval)]
    for make in makes:
        ours, theirs = make(SD.constraints), make(TD.constraints)
        assert repr(ours) == repr(theirs)
        assert ours.event_dim == theirs.event_dim and ours.is_discrete == theirs.is_discrete, repr(ours)
        for v in (values, values[0]):
            got, want = ours.check(seqlab.tensor(v)), theirs.check(torch.tensor(v))
            assert got.dtype == seqlab.bool
            assert_close(sl_np(got), want.numpy(), 0, 0, repr(ours))
        # size 0 (torch's reshape to (..., -1) refuses some of these)
        assert ours.check(seqlab.tensor(values[:, :0])).shape == (4, 0)[:2 - ours.event_dim]
    assert repr(SD.constraints.interval(seqlab.tensor(0.0), seqlab.tensor(1.5))) == \
        repr(TD.constraints.interval(torch.tensor(0.0), torch.tensor(1.5)))
    assert SD.constraints.is_dependent(SD.constraints.dependent)
    assert not SD.constraints.is_dependent(SD.constraints.real)
    assert SD.constraints.is_dependent(SD.Uniform.support) and SD.Uniform.support.event_dim == 0
    assert SD.constraints.dependent(event_dim=1).event_dim == 1
    assert_raises_like_torch(lambda: SD.constraints.dependent.check(seqlab.ones(1)),
                             lambda: TD.constraints.dependent.check(torch.ones(1)),
                             "^Cannot determine validity of dependent constraint$")
    assert_raises_like_torch(lambda: SD.constraints.dependent.event_dim, lambda: TD.constraints.dependent.event_dim,
                             r"^.event_dim cannot be determined statically$")
    assert_raises_like_torch(lambda: SD.constraints.independent(SD.constraints.real, 2).check(seqlab.ones(3)),
                             lambda: TD.constraints.independent(TD.constraints.real, 2).check(torch.ones(3)),
                             r"^Expected value.dim\(\) >= 2 but got 1$")
    for name in ["boolean", "real", "positive", "unit_interval", "simplex", "integer_interval", "nonnegative_integer",
                 "one_hot", "real_vector", "interval", "greater_than", "dependent_property", "independent"]:
        assert name in SD.constraints.__all__ and name in TD.constraints.__all__


def test_arg_constraints_and_supports_match_torch(rng):
    for name, (make, params, value) in _cases(rng).items():
        s, t = make(SD, *[seqlab.tensor(p) for p in params]), make(TD, *[torch.tensor(p) for p in params])
        assert list(s.arg_constraints) == list(t.arg_constraints), name
        assert [repr(c) for c in s.arg_constraints.values()] == \
            [torch_text(repr(c)) for c in t.arg_constraints.values()], name
        assert repr(s.support) == torch_text(repr(t.support)), name


def test_the_namespace_matches_torch():
    assert seqlab.distributions is SD and seqlab.distributions.Normal is SD.normal.Normal
    for name in SD.__all__:
        assert hasattr(TD, name), name
    for name in ["Bernoulli", "Categorical", "Distribution", "Exponential", "Gumbel", "Independent", "Laplace",
                 "MixtureSameFamily", "Normal", "OneHotCategorical", "OneHotCategoricalStraightThrough",
                 "RelaxedBernoulli", "RelaxedOneHotCategorical", "Uniform", "kl_divergence", "register_kl",
                 "constraints", "ExponentialFamily"]:
        assert name in SD.__all__, name
    for module in ["relaxed_bernoulli", "relaxed_categorical"]:
        assert set(getattr(SD, module).__all__) == set(getattr(TD, module).__all__)


def test_every_public_callable_has_a_docstring_and_a_signature():
    missing = []
    for name in SD.__all__:
        obj = getattr(SD, name)
        if inspect.ismodule(obj):
            continue
        inspect.signature(obj)
        if not inspect.getdoc(obj):
            missing.append(name)
        if isinstance(obj, type):
            for attr, member in vars(obj).items():
                if attr.startswith("_"):
                    continue
                if isinstance(member, (property, staticmethod)) or inspect.isfunction(member) or \
                        isinstance(member, SD.utils.lazy_property):
                    if not (member.__doc__ or "").strip():
                        missing.append(f"{name}.{attr}")
    assert missing == []


def test_samples_take_the_parameters_dtype():
    f64 = seqlab.float64
    zeros, ones = seqlab.zeros(2, dtype=f64), seqlab.ones(2, dtype=f64)
    for make in [lambda: SD.Normal(zeros, 1.0), lambda: SD.Uniform(zeros, 1.0), lambda: SD.Exponential(ones),
                 lambda: SD.Laplace(zeros, 1.0), lambda: SD.Gumbel(zeros, 1.0), lambda: SD.Bernoulli(ones / 2),
                 lambda: SD.OneHotCategorical(seqlab.ones(2, dtype=f64)),
                 lambda: SD.RelaxedBernoulli(seqlab.tensor(0.5, dtype=f64), seqlab.ones(2, dtype=f64) / 2),
                 lambda: SD.RelaxedOneHotCategorical(seqlab.tensor(0.5, dtype=f64), seqlab.ones(2, dtype=f64))]:
        d = make()
        assert d.sample((3,)).dtype == f64, d
        if d.has_rsample:
            assert d.rsample((3,)).dtype == f64, d


def test_gumbel_is_exact_in_the_tails():
    # torch's Gumbel is a transformed Uniform(tiny, 1 - eps): its icdf is finite at 0 and 1 and its cdf
    # refuses values far in the tails (its base's support check); seqlab writes the formulas out
    d = SD.Gumbel(0.0, 1.0)
    assert sl_np(d.icdf(seqlab.tensor([0.0, 1.0]))).tolist() == [-math.inf, math.inf]
    assert sl_np(d.cdf(seqlab.tensor([-50.0, 50.0]))).tolist() == [0.0, 1.0]
    with pytest.raises(ValueError, match="to be within the support"):
        TD.Gumbel(0.0, 1.0).cdf(torch.tensor([50.0]))
    mid = np.array([0.1, 0.5, 0.9])
    assert_close(sl_np(d.icdf(seqlab.tensor(mid))), TD.Gumbel(0.0, 1.0).icdf(torch.tensor(mid)).numpy(), 1e-6, 1e-6, "")


# ---- transforms and TransformedDistribution -----------------------------------------------------

TRANSFORMS = {  # make(lib.transforms, *params), params, x (a point of the domain)
    "Exp": (lambda T: T.ExpTransform(), [], "real"),
    "Sigmoid": (lambda T: T.SigmoidTransform(), [], "real"),
    "Tanh": (lambda T: T.TanhTransform(), [], "real"),
    "Softplus": (lambda T: T.SoftplusTransform(), [], "real"),
    "Power": (lambda T, e: T.PowerTransform(e), [np.array([0.5, 2.0, -1.5])], "positive"),
    "Affine": (lambda T, a, b: T.AffineTransform(a, b), [np.array([1.0, -2.0, 0.5]), np.array([2.0, -0.5, 3.0])],
               "real"),
    "Affine(event_dim=1)": (lambda T, a, b: T.AffineTransform(a, b, event_dim=1),
                            [np.array([1.0, -2.0, 0.5]), np.array([2.0, -0.5, 3.0])], "real"),
    "Compose": (lambda T, b: T.ComposeTransform([T.AffineTransform(0.5, b), T.TanhTransform()]),
                [np.array([0.7, 1.3, -0.4])], "real"),
    "Independent": (lambda T: T.IndependentTransform(T.ExpTransform(), 1), [], "real"),
    "Sigmoid.inv": (lambda T: T.SigmoidTransform().inv, [], "unit"),
    "Abs": (lambda T: T.AbsTransform(), [], "real"),
}


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_transforms_match_torch(name, dtype, rng):
    make, params, domain = TRANSFORMS[name]
    x = {"real": rng.standard_normal((4, 3)), "positive": positive(rng, (4, 3), 0.2, 3.0),
         "unit": rng.uniform(0.05, 0.95, (4, 3))}[domain]
    args = [_cast(p, dtype) for p in params] + [_cast(x, dtype)]
    atol, rtol = tol(dtype, 10 if dtype == np.float32 else 1)
    fns = [lambda t, x: t(x)]
    if name != "Abs":
        fns += [lambda t, x: t.inv(t(x)), lambda t, x: t.log_abs_det_jacobian(x, t(x))]
    for fn in fns:
        assert_matches_torch(lambda *a: fn(make(SD.transforms, *a[:-1]), a[-1]),
                             lambda *a: fn(make(TD.transforms, *a[:-1]), a[-1]), args, atol=atol, rtol=rtol)
    ours, theirs = make(SD.transforms, *map(seqlab.tensor, params)), make(TD.transforms, *map(torch.tensor, params))
    assert repr(ours) == repr(theirs)
    assert repr(ours.domain) == torch_text(repr(theirs.domain))
    assert repr(ours.codomain) == torch_text(repr(theirs.codomain))
    assert ours.bijective == theirs.bijective and repr(ours.inv) == repr(theirs.inv)
    assert (ours == make(SD.transforms, *map(seqlab.tensor, params))) == \
        (theirs == make(TD.transforms, *map(torch.tensor, params)))
    if name not in ("Abs", "Independent", "Compose"):
        assert ours.event_dim == theirs.event_dim
    if name in ("Exp", "Sigmoid", "Tanh", "Softplus", "Affine", "Compose"):
        sign, want = ours.sign, theirs.sign
        np.testing.assert_array_equal(np.asarray(sl_np(sign) if isinstance(sign, seqlab.Tensor) else sign),
                                      np.asarray(want.numpy() if isinstance(want, torch.Tensor) else want))


def test_transform_caching_and_equality():
    t = SD.transforms.ExpTransform().with_cache(1)
    x = seqlab.tensor([0.5, -1.0])
    y = t(x)
    assert t(x) is y and t.inv(y) is x  # the cached pair
    assert SD.transforms.ExpTransform() == SD.transforms.ExpTransform() != SD.transforms.TanhTransform()
    assert SD.transforms.AffineTransform(1.0, 2.0) == SD.transforms.AffineTransform(1.0, 2.0)
    assert SD.transforms.AffineTransform(1.0, 2.0) != SD.transforms.AffineTransform(1.0, 3.0)
    assert SD.transforms.ExpTransform().inv == SD.transforms.ExpTransform().inv
    assert SD.transforms.ExpTransform().inv.inv == SD.transforms.ExpTransform()
    c = SD.transforms.ComposeTransform([SD.transforms.ExpTransform(), SD.transforms.AffineTransform(0.0, -1.0)])
    assert c.inv.inv is c and c.sign == -1 and c.bijective
    assert repr(c) == repr(TD.transforms.ComposeTransform([TD.transforms.ExpTransform(),
                                                           TD.transforms.AffineTransform(0.0, -1.0)]))
    assert_raises_like_torch(lambda: SD.transforms.Transform(cache_size=2),
                             lambda: TD.transforms.Transform(cache_size=2),
                             "^cache_size must be 0 or 1$")
    assert_raises_like_torch(lambda: SD.TransformedDistribution(SD.Normal(0.0, 1.0), "exp"),
                             lambda: TD.TransformedDistribution(TD.Normal(0.0, 1.0), "exp"),
                             "^transforms must be a Transform or list, but was exp$")
    assert_raises_like_torch(lambda: SD.TransformedDistribution(SD.Normal(0.0, 1.0), [1]),
                             lambda: TD.TransformedDistribution(TD.Normal(0.0, 1.0), [1]),
                             "^transforms must be a Transform or a list of Transforms$")
    assert_raises_like_torch(
        lambda: SD.TransformedDistribution(SD.Normal(0.0, 1.0), SD.transforms.AffineTransform(0.0, 1.0, event_dim=1)),
        lambda: TD.TransformedDistribution(TD.Normal(0.0, 1.0), TD.transforms.AffineTransform(0.0, 1.0, event_dim=1)),
        r"^base_distribution needs to have shape with size at least 1, but got \(\).$")


TRANSFORMED = {  # make(lib, *params), params, value
    "Normal∘exp": (lambda D, a, b: D.TransformedDistribution(D.Normal(a, b), D.transforms.ExpTransform()),
                   lambda r: ([r.standard_normal((2, 3)), positive(r, (2, 3))], positive(r, (4, 2, 3), 0.1, 4.0))),
    "tanh-squashed Normal": (
        lambda D, a, b, s: D.TransformedDistribution(D.Normal(a, b), [D.transforms.AffineTransform(0.5, s),
                                                                      D.transforms.TanhTransform()]),
        lambda r: ([r.standard_normal(3), positive(r, 3), positive(r, 3)], r.uniform(-0.9, 0.9, (4, 3)))),
    "logistic": (lambda D, a, b: D.TransformedDistribution(D.Uniform(a, a + b), [D.transforms.SigmoidTransform().inv]),
                 lambda r: ([np.full(3, 0.1), np.full(3, 0.8)], r.standard_normal((4, 3)))),
    "Exponential∘sqrt": (lambda D, a: D.TransformedDistribution(D.Exponential(a), D.transforms.PowerTransform(0.5)),
                         lambda r: ([positive(r, (2, 3))], positive(r, (2, 3)))),
    "Normal∘softplus": (lambda D, a, b: D.TransformedDistribution(D.Normal(a, b), D.transforms.SoftplusTransform()),
                        lambda r: ([r.standard_normal(3), positive(r, 3)], positive(r, (2, 3)))),
    "affine over events": (lambda D, a, b, s: D.TransformedDistribution(
        D.Normal(a, b), D.transforms.AffineTransform(1.0, s, event_dim=1)),
        lambda r: ([r.standard_normal((2, 3)), positive(r, (2, 3)), positive(r, 3)], r.standard_normal((4, 2, 3)))),
    "decreasing": (lambda D, a, b: D.TransformedDistribution(D.Normal(a, b), D.transforms.AffineTransform(1.0, -2.0)),
                   lambda r: ([r.standard_normal(3), positive(r, 3)], r.standard_normal((2, 3)))),
}
TRANSFORMED_METHODS = {
    "Normal∘exp": ["log_prob", "cdf", "icdf"], "tanh-squashed Normal": ["log_prob", "cdf", "icdf"],
    "logistic": ["log_prob", "cdf", "icdf"], "Exponential∘sqrt": ["log_prob", "cdf", "icdf"],
    "Normal∘softplus": ["log_prob", "cdf", "icdf"], "affine over events": ["log_prob"],
    "decreasing": ["log_prob", "cdf", "icdf"],
}


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name", list(TRANSFORMED))
def test_transformed_distributions_match_torch(name, dtype, rng):
    make, gen = TRANSFORMED[name]
    params, value = gen(rng)
    atol, rtol = tol(dtype, 10 if dtype == np.float32 else 1)
    for method in TRANSFORMED_METHODS[name]:
        v = rng.uniform(0.05, 0.95, (4, 1, 1)) if method == "icdf" else value
        args = [_cast(p, dtype) for p in params] + [_cast(v, dtype)]
        try:
            assert_matches_torch(lambda *a: getattr(make(SD, *a[:-1]), method)(a[-1]),
                                 lambda *a: getattr(make(TD, *a[:-1]), method)(a[-1]), args, atol=atol, rtol=rtol)
        except AssertionError as e:
            raise AssertionError(f"{name}.{method}: {e}") from None
    s, t = make(SD, *map(seqlab.tensor, params)), make(TD, *map(torch.tensor, params))
    assert (s.batch_shape, s.event_shape) == (tuple(t.batch_shape), tuple(t.event_shape))
    assert repr(s) == repr(t) and repr(s.support) == torch_text(repr(t.support)) and s.has_rsample == t.has_rsample
    x = s.rsample((N_DRAWS // 4,))
    assert x.shape == (N_DRAWS // 4,) + s.batch_shape + s.event_shape and bool(s.support.check(x).all())
    theirs = t.sample((N_DRAWS // 4,)).numpy().reshape(N_DRAWS // 4, -1)
    ours = sl_np(x).reshape(N_DRAWS // 4, -1)
    for j in range(ours.shape[1]):
        assert _ks_statistic(ours[:, j], theirs[:, j]) < _ks_bound(N_DRAWS // 4, N_DRAWS // 4), (name, j)
    e = s.expand((5,) + s.batch_shape)
    assert e.batch_shape == (5,) + s.batch_shape and e.sample().shape == (5,) + s.batch_shape + s.event_shape


def test_kl_of_transformed_distributions_matches_torch(rng):
    a, b, c, d = rng.standard_normal(3), positive(rng, 3), rng.standard_normal(3), positive(rng, 3)

    def kl(D, a, b, c, d, q_transform=None):
        p = D.TransformedDistribution(D.Normal(a, b), D.transforms.ExpTransform())
        q = D.TransformedDistribution(D.Normal(c, d), q_transform or D.transforms.ExpTransform())
        return D.kl_divergence(p, q)
    assert_matches_torch(lambda *x: kl(SD, *x), lambda *x: kl(TD, *x), [a, b, c, d])
    assert_raises_like_torch(lambda: kl(SD, *map(seqlab.tensor, (a, b, c, d)), SD.transforms.TanhTransform()),
                             lambda: kl(TD, *map(torch.tensor, (a, b, c, d)), TD.transforms.TanhTransform()))


def test_the_transformed_families_are_transformed_distributions_as_in_torch():
    for make in [lambda D, L: D.LogNormal(0.0, 1.0), lambda D, L: D.HalfNormal(1.0),
                 lambda D, L: D.RelaxedBernoulli(L.tensor(0.5), probs=L.tensor([0.3])),
                 lambda D, L: D.RelaxedOneHotCategorical(L.tensor(0.5), probs=L.ones(3) / 3)]:
        s, t = make(SD, seqlab), make(TD, torch)
        assert isinstance(s, SD.TransformedDistribution) and isinstance(t, TD.TransformedDistribution)
        assert [repr(x) for x in s.transforms] == [repr(x) for x in t.transforms]
        assert type(s.base_dist).__name__ == type(t.base_dist).__name__
    # Gumbel writes its cdf and icdf out (exact in the tails); torch's is a transformed Uniform
    assert not isinstance(SD.Gumbel(0.0, 1.0), SD.TransformedDistribution)
