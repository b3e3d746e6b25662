"""kl_divergence(p, q) and register_kl (torch.distributions.kl): KL(p || q) = E_p[log p - log q]
in closed form, one function per registered (type of p, type of q) pair; a pair is looked up by
the most specific registered superclasses. The pairs are torch's among seqlab's distributions
(those needing lgamma, such as Gumbel-Gumbel, are not here yet). Tests: tests/test_distributions.py."""
import math
import warnings

from .._core import erf, exp, log, log1p, where
from .._tensor import full_like
from ..nn.functional import softplus
from .bernoulli import Bernoulli
from .categorical import Categorical
from .cauchy import Cauchy
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .geometric import Geometric
from .gumbel import Gumbel
from .half_normal import HalfNormal
from .independent import Independent
from .laplace import Laplace
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform
from .utils import _sum_rightmost, euler_constant

__all__ = ["register_kl", "kl_divergence"]

_KL_REGISTRY = {}  # (type_p, type_q) -> fn(p, q)
_KL_MEMOIZE = {}  # (type(p), type(q)) -> the registered fn dispatch chose (or NotImplemented)


def register_kl(type_p, type_q):
    """Decorator: fn(p, q) computes KL(p || q) for p an instance of type_p, q of type_q.

        @register_kl(Normal, Normal)
        def kl_normal_normal(p, q): ...

    For a pair with several matches, the most specific wins; register the pair itself when that is
    ambiguous (a RuntimeWarning names it)."""
    for name, t in (("type_p", type_p), ("type_q", type_q)):
        if not (isinstance(t, type) and issubclass(t, Distribution)):
            raise TypeError(f"Expected {name} to be a Distribution subclass but got {t}")

    def decorator(fn):
        _KL_REGISTRY[type_p, type_q] = fn
        _KL_MEMOIZE.clear()
        return fn
    return decorator


def _more_specific(a, b):
    """Whether the type pair a is at least as specific as b, comparing the first differing member."""
    for x, y in zip(a, b):
        if not issubclass(x, y):
            return False
        if x is not y:
            break
    return True


def _most_specific(pairs):
    best = pairs[0]
    for pair in pairs[1:]:
        if _more_specific(pair, best):
            best = pair
    return best


def _dispatch_kl(type_p, type_q):
    """The registered function for the most specific (superclass of p, superclass of q) pair, or
    NotImplemented. Specificity is judged p first and q first; when they disagree, warn."""
    matches = [(sp, sq) for sp, sq in _KL_REGISTRY if issubclass(type_p, sp) and issubclass(type_q, sq)]
    if not matches:
        return NotImplemented
    left_p, left_q = _most_specific(matches)
    right_q, right_p = _most_specific([(sq, sp) for sp, sq in matches])
    left, right = _KL_REGISTRY[left_p, left_q], _KL_REGISTRY[right_p, right_q]
    if left is not right:
        warnings.warn(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). "
                      f"Please register_kl({left_p.__name__}, {right_q.__name__})", RuntimeWarning, stacklevel=3)
    return left


def kl_divergence(p, q):
    """KL(p || q) = ∫ p(x) log(p(x) / q(x)) dx, batched over the batch shape (p and q broadcast).
    NotImplementedError for a pair with no registered closed form."""
    key = (type(p), type(q))
    if key not in _KL_MEMOIZE:
        _KL_MEMOIZE[key] = _dispatch_kl(*key)
    fn = _KL_MEMOIZE[key]
    if fn is NotImplemented:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {type(p).__name__} and q type "
                                  f"{type(q).__name__}")
    return fn(p, q)


def _infinite_like(t):
    return full_like(t, math.inf)


# ---- same family ---------------------------------------------------------------------------------

@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    # p log(p/q) + (1-p) log((1-p)/(1-q)), with log p = -softplus(-logits), log(1-p) = -softplus(logits);
    # a term is 0 where p's weight is 0 and inf where q's probability is 0
    t1 = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    t1 = where(p.probs == 0, 0.0, where(q.probs == 0, math.inf, t1))
    t2 = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    t2 = where(p.probs == 1, 0.0, where(q.probs == 1, math.inf, t2))
    return t1 + t2


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    # Σ_k p_k (log p_k - log q_k); 0 where p_k = 0, inf where q_k = 0 < p_k
    t = p.probs * (p.logits - q.logits)
    t = where(q.probs == 0, math.inf, t)
    t = where(p.probs == 0, 0.0, t)
    return t.sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    # (σp²/σq² + (μp - μq)²/σq² - 1 - log(σp²/σq²)) / 2
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - log(var_ratio))


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    # log((bq - aq) / (bp - ap)) when [ap, bp] ⊂ [aq, bq], inf otherwise
    result = log((q.high - q.low) / (p.high - p.low))
    return where((q.low > p.low) | (q.high < p.high), math.inf, result)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    # λq/λp - log(λq/λp) - 1
    rate_ratio = q.rate / p.rate
    return -log(rate_ratio) + rate_ratio - 1


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    # -log(bp/bq) + |μp - μq|/bq + (bp/bq) e^{-|μp - μq|/bp} - 1
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    return -log(scale_ratio) + loc_abs_diff / q.scale + scale_ratio * exp(-loc_abs_diff / p.scale) - 1


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    # Σ_k P(k) log(P(k)/Q(k)) = -H(p) - E_p[k] log(1 - q) - log q, with E_p[k] = 1/p - 1;
    # -log(1 - q)/p + log(1 - q) - log q = -log(1 - q)/p - logit(q)
    return -p.entropy() - log1p(-q.probs) / p.probs - q.logits


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p, q):
    # |x| folds both Normals the same way, which KL does not see
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    # log(((γp + γq)² + (x0p - x0q)²) / (4 γp γq))  (Chyzak & Nielsen 2019)
    return log((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)) - log(4 * p.scale * q.scale)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    # the same bijection applied to both leaves KL unchanged (LogNormal-LogNormal is this pair)
    if p.transforms != q.transforms:
        raise NotImplementedError
    if p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    # torch's fallback (the Bregman divergence of the log-normaliser) takes a double backward, which
    # seqlab lacks; every same-family pair here is registered in closed form above.
    if type(p) is not type(q):
        raise NotImplementedError("The cross KL-divergence between different exponential families cannot "
                                  "be computed using Bregman divergences")
    raise NotImplementedError(f"No KL(p || q) is implemented for p type {type(p).__name__} and q type "
                              f"{type(q).__name__} (torch's Bregman fallback needs a double backward; "
                              "register_kl the pair)")


# ---- across families -----------------------------------------------------------------------------

@register_kl(Exponential, Uniform)
@register_kl(Gumbel, Exponential)
@register_kl(Gumbel, Uniform)
@register_kl(Laplace, Exponential)
@register_kl(Laplace, Uniform)
@register_kl(Normal, Exponential)
@register_kl(Normal, Uniform)
def _kl_infinite(p, q):
    # p puts mass where q has none
    return _infinite_like(p.mean)


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p, q):
    # λ rate of p, (μ, β) of q, c = λβ:  log c - 1 - μ/β + e^{μ/β} c/(c + 1) + 1/c
    c = p.rate * q.scale
    m = q.loc / q.scale
    return log(c) - 1 - m + exp(m) * c / (c + 1) + 1 / c


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p, q):
    # -H(p) - E_p[log q]: log(λ σ √(2π)) - 1 + (E[x²] - 2μ E[x] + μ²) / (2σ²), E[x] = 1/λ, E[x²] = 2/λ²
    var = q.scale.pow(2)
    lam2 = p.rate.pow(2)
    return 0.5 * log(lam2 * var * 2 * math.pi) - 1 + (1 / lam2 - q.loc / p.rate + 0.5 * q.loc.pow(2)) / var


@register_kl(Gumbel, Normal)
def _kl_gumbel_normal(p, q):
    # -H(p) - E_p[log q], E[x] = μp + βp γ, Var[x] = (π βp)²/6:
    # -log(βp / (σ√(2π))) + (π βp/σ)²/12 + (E[x] - μq)²/(2σ²) - (γ + 1)
    r = p.scale / q.scale
    z = (p.loc + p.scale * euler_constant - q.loc) / q.scale
    return -log(r / math.sqrt(2 * math.pi)) + (0.5 * math.pi * r).pow(2) / 3 + 0.5 * z.pow(2) - (euler_constant + 1)


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p, q):
    # -H(p) - E_p[log q], E[x²] = μp² + 2bp²:  -log(√(2/π) bp/σ) + bp²/σ² + (μp - μq)²/(2σ²) - 1
    var = q.scale.pow(2)
    r2 = p.scale.pow(2) / var
    spread = 0.5 * p.loc.pow(2) - p.loc * q.loc + 0.5 * q.loc.pow(2)
    return -0.5 * log(2 * r2 / math.pi) + r2 + spread / var - 1


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p, q):
    # -H(p) - E_p[log q] with E_p[e^{-x/β}] = e^{-μ/β + σ²/(2β²)}:
    # -log(σ/β) + (μp - μq)/β + e^{-(μp - μq)/β + σ²/(2β²)} - (1 + log 2π)/2
    m = p.loc / q.scale
    r2 = (p.scale / q.scale).pow(2)
    c = q.loc / q.scale
    return -0.5 * log(r2) + (m - c) + exp(c - m + 0.5 * r2) - 0.5 * (1 + math.log(2 * math.pi))


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p, q):
    # -H(p) - E_p[log q] with E_p|x - μq| = σ√(2/π) e^{-d²/(2σ²)} + d·erf(d/(σ√2)), d = μp - μq:
    # -log(σ/b) + E|x - μq| / b - (1 + log(π/2))/2
    d = p.loc - q.loc
    z = d / p.scale
    mean_abs = math.sqrt(2 / math.pi) * p.scale * exp(-0.5 * z.pow(2)) + d * erf(math.sqrt(0.5) * z)
    return -log(p.scale / q.scale) + mean_abs / q.scale - 0.5 * (1 + math.log(0.5 * math.pi))


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p, q):
    # λ (a + b)/2 - log((b - a) λ); inf when p reaches below 0
    result = q.rate * (p.high + p.low) / 2 - log((p.high - p.low) * q.rate)
    return where(p.low < 0, math.inf, result)


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p, q):
    # log(β/(b - a)) + (zb + za)/2 - β/(b - a)·(e^{-zb} - e^{-za}),  z = (x - μ)/β at x = a, b
    r = q.scale / (p.high - p.low)
    zb = (p.high - q.loc) / q.scale
    za = (p.low - q.loc) / q.scale
    return log(r) + 0.5 * (zb + za) - r * (exp(-zb) - exp(-za))


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    # log(σ√(2π)/(b - a)) + ((b - a)²/12 + ((a + b)/2 - μ)²) / (2σ²)
    width = p.high - p.low
    centre = (p.high + p.low - 2 * q.loc) / 2
    return log(math.sqrt(2 * math.pi) * q.scale / width) + 0.5 * (width.pow(2) / 12 + centre.pow(2)) / q.scale.pow(2)
