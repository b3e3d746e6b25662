"""torch's other random fills and samplers, from seqlab's generators: cauchy_, geometric_ and log_normal_
(in place, by inverse transform of uniform_ / normal_ draws), binomial and poisson (NumPy's samplers
seeded by one draw of the seqlab generator, so manual_seed makes them reproducible). The results
match torch's distributions, not its streams. Tests: tests/test_torch_compositions.py (statistics)."""
import math

import numpy as np

from . import _core, _dtypes


def _c_order(array, dtype=None):
    """A C-contiguous copy of array that stays 0-d when it is (np.ascontiguousarray makes 0-d 1-d)."""
    return np.array(array, dtype=dtype, order="C")


def _fill(self, values):
    """values (a float64 tensor of self's shape) written into self without history, as torch's
    random fills."""
    with_grad = _core.is_grad_enabled()
    _core._set_grad_enabled(False)
    try:
        self.copy_(values)
    finally:
        _core._set_grad_enabled(with_grad)
    return self


def _uniform(self, generator):
    return _core._empty(list(self.shape), _dtypes.float64).uniform_(0.0, 1.0, generator=generator)


def _cauchy_(self, median=0, sigma=1, *, generator=None):
    """Fills self with Cauchy(median, sigma) samples: median + sigma * tan(pi * (u - 1/2))
    (torch.Tensor.cauchy_)."""
    if not self.is_floating_point():
        raise RuntimeError(f"Cauchy distribution is a continuous probability distribution. dtype must be a floating "
                           f"point but you specified {self.dtype}")
    if not sigma > 0.0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
    u = _uniform(self, generator)
    return _fill(self, (u - 0.5).mul_(math.pi).tan() * sigma + median)


def _geometric_(self, p, *, generator=None):
    """Fills self with the number of Bernoulli(p) trials up to the first success, 1, 2, ...:
    ceil(log(1 - u) / log(1 - p)) (torch.Tensor.geometric_)."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    u = _uniform(self, generator)
    trials = ((1.0 - u).log() / math.log1p(-p)).ceil().clamp(1.0, None)
    return _fill(self, trials)


def _log_normal_(self, mean=1, std=2, *, generator=None):
    """Fills self with exp(N(mean, std)) samples (torch.Tensor.log_normal_: mean and std are those
    of the underlying normal)."""
    if not self.is_floating_point():
        raise NotImplementedError(f"\"log_normal_cpu\" not implemented for '{_dtypes.scalar_type_name(self.dtype)}'")
    if not std > 0.0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    z = _core._empty(list(self.shape), _dtypes.float64).normal_(float(mean), float(std), generator=generator)
    return _fill(self, z.exp())


def _numpy_rng(generator):
    """A NumPy generator seeded by one 62-bit draw of the seqlab generator (the default one if None)."""
    seed = _core._randint(0, 2 ** 62, [1], _dtypes.int64, generator)
    return np.random.default_rng(int(seed.item()))


def binomial(count, prob, generator=None):
    """Binomial(count, prob) samples elementwise, count and prob broadcast, in count's float dtype
    (torch.binomial); not differentiable."""
    if not count.is_floating_point():
        raise ValueError(f"binomial only supports floating-point dtypes for count, got: "
                         f"{_dtypes.scalar_type_name(count.dtype)}")
    n, p = np.broadcast_arrays(count.detach().numpy(), prob.detach().numpy())
    if np.any((p < 0) | (p > 1)) or np.any(np.isnan(p)):
        raise RuntimeError("binomial: prob must be in [0, 1]")
    draws = _numpy_rng(generator).binomial(n.astype(np.int64), p.astype(np.float64))
    return _core.from_numpy(_c_order(draws.astype(count.detach().numpy().dtype)))


def poisson(input, generator=None):
    """Poisson(rate) samples, one per element of input (the rates), in input's dtype (torch.poisson);
    the gradient is zero, as torch's."""
    if not input.is_floating_point():
        raise NotImplementedError(f"\"poisson_cpu\" not implemented for '{_dtypes.scalar_type_name(input.dtype)}'")
    rates = input.detach().numpy()
    if np.any(rates < 0) or np.any(np.isnan(rates)):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    draws = _core.from_numpy(_c_order(_numpy_rng(generator).poisson(rates).astype(rates.dtype)))
    return draws + input * 0 if input.requires_grad and _core.is_grad_enabled() else draws


METHODS = {"cauchy_": _cauchy_, "geometric_": _geometric_, "log_normal_": _log_normal_}
for _name, _method in METHODS.items():
    _method.__name__ = _method.__qualname__ = _name
del _name, _method
