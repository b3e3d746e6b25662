"""torch.optim's optimizers, with torch's signatures and defaults; the update rules run in
C++ (cpp/src/optim/sgd.cpp, adam.cpp, adagrad.cpp, rmsprop.cpp)."""
from .. import _core
from .optimizer import Optimizer


class SGD(Optimizer):
    """Stochastic gradient descent with optional momentum, dampening, Nesterov, weight decay."""
    _core_factory = _core.optim.SGD
    _core_options = _core.optim.SGDOptions

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *, maximize=False,
                 foreach=None, differentiable=False, fused=None):
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                                      nesterov=nesterov, maximize=maximize))


class Adam(Optimizer):
    """Adam (Kingma & Ba 2015); amsgrad as Reddi et al. 2018; with decoupled_weight_decay, AdamW
    (Loshchilov & Hutter 2019), as torch's Adam."""
    _core_factory = _core.optim.Adam
    _core_options = _core.optim.AdamOptions
    _per_optimizer = ("decoupled_weight_decay",)

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        if decoupled_weight_decay:  # the decay leaves the moments: θ ← θ − lr·λ·θ before Adam's step
            self._core_factory, self._core_options = _core.optim.AdamW, _core.optim.AdamWOptions
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                                      maximize=maximize, decoupled_weight_decay=bool(decoupled_weight_decay)))


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter 2019): torch's AdamW is
    Adam(..., decoupled_weight_decay=True) with weight_decay 1e-2 by default."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize,
                         decoupled_weight_decay=True)


class Adagrad(Optimizer):
    """Adagrad (Duchi et al. 2011)."""
    _core_factory = _core.optim.Adagrad
    _core_options = _core.optim.AdagradOptions

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value, eps=eps,
                                      maximize=maximize))


class RMSprop(Optimizer):
    """RMSprop (Hinton, lecture 6e), optionally centered and with momentum."""
    _core_factory = _core.optim.RMSprop
    _core_options = _core.optim.RMSpropOptions

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        super().__init__(params, dict(lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay, momentum=momentum,
                                      centered=centered, maximize=maximize))
