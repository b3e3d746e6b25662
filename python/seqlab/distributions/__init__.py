"""seqlab.distributions: torch.distributions' API for what sequence-model code uses (sampling
tokens, policy gradients, VAEs, Gumbel-softmax), composed in Python from seqlab's differentiable
ops: log_prob, entropy, cdf/icdf and kl_divergence are ordinary graphs, rsample is a
reparameterised draw. Sampling uses seqlab's generator (seqlab.manual_seed), so samples are not
torch's. Tests: tests/test_distributions.py.

    d = seqlab.distributions.Categorical(logits=logits)
    token = d.sample()
    loss = -(d.log_prob(token) * reward).sum()
"""
from . import constraints, transforms
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
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .log_normal import LogNormal
from .mixture_same_family import MixtureSameFamily
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .relaxed_bernoulli import RelaxedBernoulli  # LogitRelaxedBernoulli: in relaxed_bernoulli, as torch
from .relaxed_categorical import RelaxedOneHotCategorical  # ExpRelaxedCategorical: in relaxed_categorical
from .transformed_distribution import TransformedDistribution
from .transforms import (  # torch.distributions exports its transforms too
    AbsTransform, AffineTransform, ComposeTransform, ExpTransform, IndependentTransform, PowerTransform,
    SigmoidTransform, SoftplusTransform, TanhTransform, Transform, identity_transform,
)
from .uniform import Uniform

__all__ = [
    "Bernoulli", "Categorical", "Cauchy", "Distribution", "Exponential", "ExponentialFamily", "Geometric", "Gumbel",
    "HalfNormal", "Independent", "Laplace", "LogNormal", "MixtureSameFamily", "Normal",
    "OneHotCategorical", "OneHotCategoricalStraightThrough", "RelaxedBernoulli", "RelaxedOneHotCategorical",
    "TransformedDistribution", "Uniform", "constraints", "kl_divergence", "register_kl", "transforms",
    "AbsTransform", "AffineTransform", "ComposeTransform", "ExpTransform", "IndependentTransform", "PowerTransform",
    "SigmoidTransform", "SoftplusTransform", "TanhTransform", "Transform", "identity_transform",
]
