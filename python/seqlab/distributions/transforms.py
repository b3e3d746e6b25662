"""Transforms (torch.distributions.transforms): invertible maps y = f(x) with log|det df/dx|, which
TransformedDistribution pushes a base distribution through. Here: Exp, Power, Sigmoid, Softplus,
Tanh, Abs, Affine, Compose, Independent and the inverse of each (`t.inv`). Tests:
tests/test_distributions.py."""
import math

from .._core import Tensor, exp, log, log1p, sigmoid, tanh
from .._math import atanh
from .._shape import broadcast_shapes
from .._tensor import full_like, zeros_like
from .._type_info import finfo
from ..nn.functional import softplus
from . import constraints
from .utils import _sum_rightmost, broadcast_all, lazy_property

__all__ = [
    "AbsTransform", "AffineTransform", "ComposeTransform", "ExpTransform", "IndependentTransform", "PowerTransform",
    "SigmoidTransform", "SoftplusTransform", "TanhTransform", "Transform", "identity_transform",
]


class Transform:
    """y = f(x) from `domain` to `codomain`, with its inverse `inv` and log|det J|. cache_size=1
    remembers the last (x, y) pair, so inverting a value just made returns the x it came from."""
    bijective = False

    def __init__(self, cache_size=0):
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._inv = None
        self._cached_x_y = (None, None)

    @property
    def event_dim(self):
        """The number of rightmost dims one application acts on together."""
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self):
        """The inverse transform (made once, then kept)."""
        if self._inv is None:
            self._inv = _InverseTransform(self)
        return self._inv

    @property
    def sign(self):
        """+1 or -1: whether f is increasing or decreasing (monotone transforms only)."""
        raise NotImplementedError

    def with_cache(self, cache_size=1):
        """This transform with the given cache size."""
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = object.__hash__

    def __call__(self, x):
        if self._cache_size == 0:
            return self._call(x)
        x_old, y_old = self._cached_x_y
        if x is x_old:
            return y_old
        y = self._call(x)
        self._cached_x_y = (x, y)
        return y

    def _inv_call(self, y):
        if self._cache_size == 0:
            return self._inverse(y)
        x_old, y_old = self._cached_x_y
        if y is y_old:
            return x_old
        x = self._inverse(y)
        self._cached_x_y = (x, y)
        return x

    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError

    def log_abs_det_jacobian(self, x, y):
        """log |det dy/dx| at x (y = f(x))."""
        raise NotImplementedError

    def forward_shape(self, shape):
        """The shape of f(x) for x of this shape."""
        return shape

    def inverse_shape(self, shape):
        """The shape of f⁻¹(y) for y of this shape."""
        return shape

    def __repr__(self):
        return type(self).__name__ + "()"


class _InverseTransform(Transform):
    """f⁻¹ of a transform f: domain and codomain swapped, log|det| negated."""

    def __init__(self, transform):
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        return self._inv.codomain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        return self._inv.domain

    @property
    def bijective(self):
        return self._inv.bijective

    @property
    def sign(self):
        return self._inv.sign

    @property
    def inv(self):
        return self._inv

    def with_cache(self, cache_size=1):
        return self.inv.with_cache(cache_size).inv

    def __eq__(self, other):
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    __hash__ = object.__hash__

    def __call__(self, x):
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape):
        return self._inv.forward_shape(shape)

    def __repr__(self):
        return f"_InverseTransform({self._inv!r})"


class ComposeTransform(Transform):
    """parts applied in order: y = f_n(... f_1(x)); log|det| is the sum of the parts' (each summed
    over the event dims it does not act on)."""

    def __init__(self, parts, cache_size=0):
        if cache_size:
            parts = [part.with_cache(cache_size) for part in parts]
        super().__init__(cache_size=cache_size)
        self.parts = parts

    def __eq__(self, other):
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    __hash__ = object.__hash__

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        """The first part's domain, widened to the event dims the later parts need."""
        if not self.parts:
            return constraints.real
        domain = self.parts[0].domain
        event_dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            event_dim = max(event_dim + part.domain.event_dim - part.codomain.event_dim, part.domain.event_dim)
        if event_dim > domain.event_dim:
            domain = constraints.independent(domain, event_dim - domain.event_dim)
        return domain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        """The last part's codomain, widened to the event dims the earlier parts produce."""
        if not self.parts:
            return constraints.real
        codomain = self.parts[-1].codomain
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim = max(event_dim + part.codomain.event_dim - part.domain.event_dim, part.codomain.event_dim)
        if event_dim > codomain.event_dim:
            codomain = constraints.independent(codomain, event_dim - codomain.event_dim)
        return codomain

    @lazy_property
    def bijective(self):
        """Whether every part is."""
        return all(p.bijective for p in self.parts)

    @lazy_property
    def sign(self):
        """The product of the parts' signs."""
        sign = 1
        for p in self.parts:
            sign = sign * p.sign
        return sign

    @property
    def inv(self):
        """The parts' inverses in reverse order."""
        if self._inv is None:
            self._inv = ComposeTransform([p.inv for p in reversed(self.parts)])
            self._inv._inv = self
        return self._inv

    def with_cache(self, cache_size=1):
        """This composition with every part caching."""
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x):
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x, y):
        """Σ_i log|det J_i| at the intermediate values x_i (x_0 = x, x_n = y)."""
        if not self.parts:
            return zeros_like(x)
        xs = [x]
        for part in self.parts[:-1]:
            xs.append(part(xs[-1]))
        xs.append(y)
        total = None
        event_dim = self.domain.event_dim
        for part, a, b in zip(self.parts, xs[:-1], xs[1:]):
            term = _sum_rightmost(part.log_abs_det_jacobian(a, b), event_dim - part.domain.event_dim)
            total = term if total is None else total + term
            event_dim += part.codomain.event_dim - part.domain.event_dim
        return total

    def forward_shape(self, shape):
        """The shape of f(x) for x of this shape (broadcast with the parameters)."""
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        """The shape of f⁻¹(y) for y of this shape."""
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self):
        return "ComposeTransform(\n    " + ",\n    ".join(repr(p) for p in self.parts) + "\n)"


identity_transform = ComposeTransform([])


class IndependentTransform(Transform):
    """base_transform with reinterpreted_batch_ndims more dims read as one event (log|det| summed
    over them)."""

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size=1):
        """This transform with the given cache size."""
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims, cache_size=cache_size)

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        """The base's domain over the reinterpreted dims."""
        return constraints.independent(self.base_transform.domain, self.reinterpreted_batch_ndims)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        """The base's codomain over the reinterpreted dims."""
        return constraints.independent(self.base_transform.codomain, self.reinterpreted_batch_ndims)

    @property
    def bijective(self):
        """The base's."""
        return self.base_transform.bijective

    @property
    def sign(self):
        """The base's."""
        return self.base_transform.sign

    def _call(self, x):
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y):
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        """The base's, summed over the reinterpreted dims."""
        return _sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y), self.reinterpreted_batch_ndims)

    def forward_shape(self, shape):
        """The shape of f(x) for x of this shape (broadcast with the parameters)."""
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        """The shape of f⁻¹(y) for y of this shape."""
        return self.base_transform.inverse_shape(shape)

    def __repr__(self):
        return f"IndependentTransform({self.base_transform!r}, {self.reinterpreted_batch_ndims})"


class ExpTransform(Transform):
    """y = e^x;  log|dy/dx| = x."""
    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, ExpTransform)

    __hash__ = Transform.__hash__

    def _call(self, x):
        return exp(x)

    def _inverse(self, y):
        return log(y)

    def log_abs_det_jacobian(self, x, y):
        """x."""
        return x


class PowerTransform(Transform):
    """y = x^exponent on x > 0;  log|dy/dx| = log|exponent·y/x|."""
    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size=cache_size)
        (self.exponent,) = broadcast_all(exponent)

    def with_cache(self, cache_size=1):
        """This transform with the given cache size."""
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

    @lazy_property
    def sign(self):
        """sign(exponent)."""
        return self.exponent.sign()

    def __eq__(self, other):
        return isinstance(other, PowerTransform) and bool((self.exponent == other.exponent).all())

    __hash__ = Transform.__hash__

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        """log|exponent·y/x|."""
        return log((self.exponent * y / x).abs())

    def forward_shape(self, shape):
        """The shape of f(x) for x of this shape (broadcast with the parameters)."""
        return broadcast_shapes(shape, tuple(self.exponent.shape))

    def inverse_shape(self, shape):
        """The shape of f⁻¹(y) for y of this shape."""
        return broadcast_shapes(shape, tuple(self.exponent.shape))


def _clipped_sigmoid(x):
    """sigmoid(x) kept inside [tiny, 1 - eps] of its dtype, so its inverse stays finite."""
    info = finfo(x.dtype)
    return sigmoid(x).clamp(min=info.tiny, max=1.0 - info.eps)


class SigmoidTransform(Transform):
    """y = sigmoid(x);  log|dy/dx| = log σ(x) + log σ(-x) = -softplus(-x) - softplus(x)."""
    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, SigmoidTransform)

    __hash__ = Transform.__hash__

    def _call(self, x):
        return _clipped_sigmoid(x)

    def _inverse(self, y):
        info = finfo(y.dtype)
        y = y.clamp(min=info.tiny, max=1.0 - info.eps)
        return log(y) - log1p(-y)

    def log_abs_det_jacobian(self, x, y):
        """-softplus(-x) - softplus(x)."""
        return -softplus(-x) - softplus(x)


class SoftplusTransform(Transform):
    """y = log(1 + e^x);  x = y + log(1 - e^{-y});  log|dy/dx| = -softplus(-x)."""
    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, SoftplusTransform)

    __hash__ = Transform.__hash__

    def _call(self, x):
        return softplus(x)

    def _inverse(self, y):
        return log(-((-y).expm1())) + y

    def log_abs_det_jacobian(self, x, y):
        """-softplus(-x)."""
        return -softplus(-x)


class TanhTransform(Transform):
    """y = tanh(x);  log|dy/dx| = log(1 - tanh²x) = 2 (log 2 - x - softplus(-2x)) (stable for large |x|)."""
    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, TanhTransform)

    __hash__ = Transform.__hash__

    def _call(self, x):
        return tanh(x)

    def _inverse(self, y):
        return atanh(y)

    def log_abs_det_jacobian(self, x, y):
        """2 (log 2 - x - softplus(-2x))."""
        return 2.0 * (math.log(2.0) - x - softplus(-2.0 * x))


class AbsTransform(Transform):
    """y = |x| (not injective: the inverse returns y)."""
    domain = constraints.real
    codomain = constraints.positive

    def __eq__(self, other):
        return isinstance(other, AbsTransform)

    __hash__ = Transform.__hash__

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class AffineTransform(Transform):
    """y = loc + scale·x (loc, scale tensors or numbers);  log|dy/dx| = log|scale|, summed over
    event_dim rightmost dims."""
    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = event_dim

    @property
    def event_dim(self):
        """The number of rightmost dims one application acts on together."""
        return self._event_dim

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        """The real line (over event_dim dims)."""
        return constraints.real if self.event_dim == 0 else constraints.independent(constraints.real, self.event_dim)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        """The real line (over event_dim dims)."""
        return constraints.real if self.event_dim == 0 else constraints.independent(constraints.real, self.event_dim)

    def with_cache(self, cache_size=1):
        """This transform with the given cache size."""
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self.event_dim, cache_size=cache_size)

    def __eq__(self, other):
        if not isinstance(other, AffineTransform):
            return False
        for a, b in ((self.loc, other.loc), (self.scale, other.scale)):
            if isinstance(a, Tensor) or isinstance(b, Tensor):
                if not bool((a == b).all()):
                    return False
            elif a != b:
                return False
        return True

    __hash__ = Transform.__hash__

    @property
    def sign(self):
        """sign(scale)."""
        if isinstance(self.scale, Tensor):
            return self.scale.sign()
        return 1 if self.scale > 0 else -1 if self.scale < 0 else 0

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        """log|scale|, broadcast to x's shape (summed over the event dims)."""
        shape = tuple(x.shape)
        if isinstance(self.scale, Tensor):
            result = log(self.scale.abs())
        else:
            result = full_like(x, math.log(abs(self.scale)))
        if self.event_dim:
            result = _sum_rightmost(result, self.event_dim)
            shape = shape[:len(shape) - self.event_dim]
        return result.expand(shape)

    def forward_shape(self, shape):
        """The shape of f(x) for x of this shape (broadcast with the parameters)."""
        return broadcast_shapes(shape, tuple(getattr(self.loc, "shape", ())), tuple(getattr(self.scale, "shape", ())))

    def inverse_shape(self, shape):
        """The shape of f⁻¹(y) for y of this shape."""
        return broadcast_shapes(shape, tuple(getattr(self.loc, "shape", ())), tuple(getattr(self.scale, "shape", ())))
