"""The losses and distances of seqlab.nn.functional that are composed in Python of existing ops
(elementwise arithmetic, where, clamp, norm, gather, sums): l1_loss, smooth_l1_loss, huber_loss,
binary_cross_entropy, cosine_similarity, pairwise_distance, normalize, margin_ranking_loss,
hinge_embedding_loss, soft_margin_loss, multilabel_soft_margin_loss, cosine_embedding_loss,
triplet_margin_loss, poisson_nll_loss, gaussian_nll_loss and multi_margin_loss, with PyTorch's
signatures, reductions (and the deprecated size_average/reduce, with PyTorch's warning), warnings
and errors. Their gradients are those of the composition; where a branch is not taken its
argument is made safe first, so no NaN reaches a gradient that PyTorch has finite. Import them
from seqlab.nn.functional."""
import warnings

from .. import _core
from .._through_float32 import refuse
from ..autograd import no_grad
from ._helpers import _legacy_reduction


def _reduction(size_average, reduce, reduction):
    """reduction, or the one the deprecated flags name (with PyTorch's warning)."""
    if size_average is not None or reduce is not None:
        return _legacy_reduction(size_average, reduce, stacklevel=4)
    return reduction


def _reduce(loss, reduction):
    """The pointwise loss reduced: 'none' as is, 'mean' (NaN for no elements, as torch), 'sum'."""
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _warn_target_size(input, target):
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input size ({input.size()}). "
                      "This will likely lead to incorrect results due to broadcasting. "
                      "Please ensure they have the same size.", stacklevel=3)


def _weighted(loss, weight, input, reduction, mean):
    """A pointwise loss times per-element weights (of input's size), reduced; mean(w·l) is
    'sum' / Σw for l1_loss and the plain mean for huber_loss, as in PyTorch."""
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    loss = loss * weight
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return loss.sum() / weight.sum() if mean == "weights" else loss.mean()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """|input − target| pointwise (broadcast, with PyTorch's warning when the sizes differ), reduced;
    with per-element weight w: w·|input − target|, 'mean' being Σ w·|…| / Σ w (F.l1_loss)."""
    _warn_target_size(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    loss = (input - target).abs()
    if weight is not None:
        return _weighted(loss, weight, input, reduction, "weights")
    return _reduce(loss, reduction)


def _smooth(diff, beta):
    """0.5 d²/β where |d| < β, else |d| − β/2 (the quadratic branch at |d| ≥ β is bounded by β)."""
    small = diff.abs() < beta
    quad = _core.where(small, diff, 0.0)
    return _core.where(small, 0.5 * quad * quad / beta, diff.abs() - 0.5 * beta)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """Pointwise, for d = input − target: 0.5 d²/β if |d| < β, else |d| − β/2 (|d| for β = 0),
    reduced (F.smooth_l1_loss; Girshick 2015)."""
    _warn_target_size(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    diff = input - target
    return _reduce(diff.abs() if beta == 0 else _smooth(diff, beta), reduction)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """Pointwise, for d = input − target: 0.5 d² if |d| < δ, else δ(|d| − δ/2), reduced; with
    per-element weight w: w times that, 'mean' averaging over the elements (F.huber_loss)."""
    _warn_target_size(input, target)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    loss = _smooth(input - target, delta) * delta
    if weight is not None:
        return _weighted(loss, weight, input, reduction, "elements")
    return _reduce(loss, reduction)


def _clamped_log(x):
    """log x, at least −100 (log 0 = −100 as in PyTorch's binary_cross_entropy; gradient 0 there)."""
    positive = x > 0
    safe = _core.where(positive, x, 1.0)
    return _core.where(positive, safe.log(), -100.0).clamp(min=-100.0)


_BCE_EPS = 9.999999960041972e-13  # PyTorch's bound on x(1 − x) in the gradient: 1e-12 rounded to float32


def _bce_pointwise(x, y):
    return -(y * _clamped_log(x) + (1 - y) * _clamped_log(1 - x))


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """−w·[y log x + (1 − y) log(1 − x)] for probabilities x = input, y = target, each log at least
    −100 as in PyTorch, reduced (F.binary_cross_entropy; for logits use
    binary_cross_entropy_with_logits). The gradients are PyTorch's: w(x − y) / max(x(1 − x), 1e-12)
    for x, w(log(1 − x) − log x) for y (finite, ±100·w, at x = 0 or 1 where PyTorch's is infinite)."""
    reduction = _reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.size()}) that is different to the input size "
                         f"({input.size()}) is deprecated. Please ensure they have the same size.")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    with no_grad():
        if input.numel() and bool(((input < 0) | (input > 1)).any()):
            raise RuntimeError("all elements of input should be between 0 and 1")
        if target.numel() and bool(((target < 0) | (target > 1)).any()):
            raise RuntimeError("all elements of target should be between 0 and 1")
        x = input.detach()
        edge = x * (1 - x) < _BCE_EPS  # where PyTorch's gradient is not the clamped log's
    if input.numel() and bool(edge.any()):
        # value as below; gradients PyTorch's: (x − y) / 1e-12 for x, log(1 − x) − log x for y (inf at x = 0
        # or 1, where this one stays the clamped logs' finite difference)
        frozen = _core.where(edge, x, input)
        loss = _bce_pointwise(frozen, target)
        with no_grad():
            y = target.detach()
            dx = _core.where(edge, (x - y) / _BCE_EPS, 0.0)
            dy = (1 - x).log() - x.log() - (_clamped_log(1 - x) - _clamped_log(x))
            dy = _core.where(dy.isfinite(), dy, 0.0)
        loss = loss + (input - x) * dx + (target - y) * dy
    else:
        loss = _bce_pointwise(input, target)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def _value_clamped(norm, eps):
    """norm with its value clamped to at least eps and the gradient of the norm itself (PyTorch
    clamps the norms of cosine_similarity in place under no_grad)."""
    return norm + (norm.clamp(min=eps) - norm).detach()


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """Σ x1·x2 / (max(‖x1‖, ε) · max(‖x2‖, ε)) along dim, x1 and x2 broadcast together
    (F.cosine_similarity; each input divided by its norm first, so the result is in [−1, 1])."""
    shape = _broadcast_shape(x1, x2, "cosine_similarity")
    x1, x2 = x1.expand(*shape), x2.expand(*shape)
    n1 = _value_clamped(x1.norm(2, dim, True), eps)
    n2 = _value_clamped(x2.norm(2, dim, True), eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def _broadcast_shape(a, b, op):
    sa, sb = tuple(a.shape), tuple(b.shape)
    n = max(len(sa), len(sb))
    sa, sb = (1,) * (n - len(sa)) + sa, (1,) * (n - len(sb)) + sb
    out = []
    for i, (p, q) in enumerate(zip(sa, sb)):
        if p != q and p != 1 and q != 1:
            raise RuntimeError(f"{op}: The size of tensor a ({p}) must match the size of tensor b ({q}) at "
                               f"non-singleton dimension {i}")
        out.append(q if p == 1 else p)
    return out


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """‖x1 − x2 + ε‖_p over the last dimension of the broadcast inputs (F.pairwise_distance; ε
    keeps the norm's gradient away from its kink at 0)."""
    last = max(x1.dim(), x2.dim()) - 1
    return (x1 - x2 + eps).norm(p, last, keepdim)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """v / max(‖v‖_p, ε) for each vector v along dim (F.normalize); with out, written into out
    (not differentiable, as in PyTorch)."""
    result = input / input.norm(p, dim, True).clamp(min=eps)
    if out is None:
        return result
    with no_grad():
        return out.copy_(result)


def _softplus(x):
    """log(1 + eˣ), stably: x + log1p(e⁻ˣ) for x > 0, log1p(eˣ) otherwise (each branch's argument
    clamped to its side, so the branch not taken cannot overflow into the gradient)."""
    return _core.where(x > 0, x + (-x.clamp(min=0.0)).exp().log1p(), x.clamp(max=0.0).exp().log1p())


def _check_reduction(reduction):
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """max(0, −y·(x1 − x2) + margin) pointwise, for y = ±1 saying which input should rank higher,
    broadcast, reduced (F.margin_ranking_loss)."""
    reduction = _reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} ")
    return _reduce((-target * (input1 - input2) + margin).clamp(min=0.0), reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    """x where y = 1, max(0, margin − x) where y = −1 (x typically a distance), reduced
    (F.hinge_embedding_loss; other target values count both terms, as in PyTorch)."""
    reduction = _reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    hinge = (margin - input).clamp(min=0.0)
    loss = _core.where(target != 1, hinge, 0.0) + _core.where(target != -1, input, 0.0)
    if not input.is_floating_point():  # an integer input keeps its dtype, as torch's (mean then refuses it)
        loss = loss.to(input.dtype)
    return _reduce(loss, reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """log(1 + exp(−y·x)) pointwise for y = ±1, reduced (F.soft_margin_loss); computed stably, so
    it stays finite where PyTorch's log1p(exp(·)) overflows to inf (and its gradient to NaN)."""
    reduction = _reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    return _reduce(_softplus(-input * target), reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """−[y log σ(x) + (1 − y) log σ(−x)] (times weight), averaged over the classes (the last
    dimension), then reduced over the samples (F.multilabel_soft_margin_loss)."""
    reduction = _reduction(size_average, reduce, reduction)
    loss = target * _softplus(-input) + (1 - target) * _softplus(input)
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(class_dim) / input.size(class_dim)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    return _reduce(loss, reduction)


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """1 − cos(x1, x2) where y = 1, max(0, cos(x1, x2) − margin) where y = −1 (0 otherwise), cos over
    the last dimension with 1e-12 added to each squared norm, reduced (F.cosine_embedding_loss)."""
    reduction = _reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    dim = target.dim()
    if dim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if dim == 1 and (input1.dim() != 2 or input2.dim() != 2):
        raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with sizes "
                           f"{list(input1.shape)} and {list(input2.shape)}.")
    if dim == 0 and (input1.dim() != 1 or input2.dim() != 1):
        raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with sizes "
                           f"{list(input1.shape)} and {list(input2.shape)}.")
    products = (input1 * input2).sum(dim)
    squares1, squares2 = (input1 * input1).sum(dim) + 1e-12, (input2 * input2).sum(dim) + 1e-12
    cos = products / (squares1 * squares2).sqrt()
    loss = _core.where(target == 1, 1 - cos, 0.0) + _core.where(target == -1, (cos - margin).clamp(min=0.0), 0.0)
    return _reduce(loss, reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    """max(0, d(a, p) − d(a, n) + margin) with d the pairwise_distance of order p (and, with swap,
    d(a, n) replaced by min(d(a, n), d(p, n))), reduced (F.triplet_margin_loss; Schroff et al. 2015)."""
    reduction = _reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not anchor.dim() == positive.dim() == negative.dim():
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {anchor.dim()}D, positive {positive.dim()}D, and negative "
                           f"{negative.dim()}D inputs")
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = _core.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return _reduce((margin + d_pos - d_neg).clamp(min=0.0), reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    """Negative log-likelihood of target under Poisson(λ): eˣ − y·x for x = log λ (log_input), else
    λ − y·log(λ + eps); full adds Stirling's y log y − y + ½ log(2πy) where y > 1; reduced
    (F.poisson_nll_loss)."""
    reduction = _reduction(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    loss = input.exp() - target * input if log_input else input - target * (input + eps).log()
    if full:
        big = target > 1
        y = _core.where(big, target, 1.0)  # log of 1 where the term is masked: no NaN in its gradient
        stirling = y * y.log() - y + 0.5 * (2 * 3.141592653589793 * y).log()
        loss = loss + _core.where(big, stirling, 0.0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """Negative log-likelihood of target under N(input, var): ½(log max(var, eps) + (input −
    target)² / max(var, eps)) (+ ½ log 2π with full); var of input's size, or one dimension short
    or size 1 in one dimension (homoscedastic); reduced (F.gaussian_nll_loss). The clamp of var
    changes its value only (PyTorch clamps in place without gradient)."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = input.new_ones(()).expand(*input.shape) * var
    elif var.numel() and bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape)[:-1] == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif not (input.dim() == var.dim() and sum(v for i, v in zip(input.shape, var.shape) if i != v) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = _value_clamped(var, eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * 1.8378770664093453  # log 2π
    return _reduce(loss, reduction)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    """For each sample, Σ_{i ≠ y} max(0, margin − x_y + x_i)^p / C (times weight[y]), for class
    indices y and C classes (input (C) or (N, C)); reduced (F.multi_margin_loss, p 1 or 2)."""
    reduction = _reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    if input.dim() > 2 or (input.dim() == 2 and input.size(1) == 0) or (input.dim() < 2 and input.numel() == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    refuse("multi_margin_loss_cpu_kernel", input)   # torch has no 16-bit multi_margin_loss on CPU
    x = input.reshape(1, -1) if input.dim() < 2 else input
    n, c = x.size(0), x.size(1)
    if not (target.dim() <= 1 and target.numel() == n):
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                           f"samples (batch size). Expected target size [{n}], but got {list(target.shape)}. Input "
                           f"has shape {list(input.shape)}.")
    t = target.reshape(-1)
    if t.numel() and (bool((t < 0).any()) or bool((t >= c).any())):
        raise RuntimeError("target out of range")
    own = x.gather(1, t.unsqueeze(1))
    z = margin - own + x
    z = _core.where(_classes(c, t) & (z > 0), z, 0.0)  # (strictly positive: PyTorch's gradient at 0 is 0)
    h = z if p == 1 else z * z
    if weight is not None:
        h = h * weight[t].unsqueeze(1)
    loss = h.sum(1) / c
    if input.dim() < 2 and target.dim() == 0:
        loss = loss.reshape(())
    return _reduce(loss, reduction)


def _classes(c, t):
    """(N, C) bool: True where the class is not the sample's target."""
    return _core._arange(0, c, 1, _core.dtype.int64).unsqueeze(0) != t.unsqueeze(1)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """The multi-class multi-label hinge loss (F.multilabel_margin_loss): input (C) or (N, C) scores,
    target of the same shape holding each row's target classes, ended by the first -1;
        loss_n = Σ_{j target} Σ_{i not a target} max(0, 1 - (x[n, j] - x[n, i])) / C
    reduced over n. Composed: the (N, C, C) hinge matrix weighted by how often j is listed and
    whether i is a target (a class listed twice counts twice, as torch's loop over the list)."""
    reduction = _reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    import numpy as np  # only here: the target lists are read on the host

    if input.dim() > 2 or tuple(target.shape) != tuple(input.shape) or target.dtype != _core.dtype.int64:
        if target.dtype != _core.dtype.int64:
            raise RuntimeError(f"multilabel_margin_loss: expected scalar type Long but found {target.dtype}")
        raise RuntimeError(f"multilabel_margin_loss: inconsistent target size: {list(target.shape)} for input of "
                           f"size: {list(input.shape)}")
    rows = input if input.dim() == 2 else input.reshape(1, -1)
    C = rows.shape[1]
    t = target.detach().numpy().reshape(rows.shape[0], C)
    listed = np.zeros(t.shape, dtype=np.float64)  # how many times class c is listed in row n
    for n in range(t.shape[0]):
        for c in t[n]:
            if c == -1:
                break
            if c < 0 or c >= C:
                raise RuntimeError(f"multilabel_margin_loss: target index {c} is out of bounds for {C} classes "
                                   f"(target row {n})")
            listed[n, c] += 1
    other = (listed == 0).astype(np.float64)  # i not a target
    weight = _core.from_numpy(np.ascontiguousarray(listed[:, :, None] * other[:, None, :])).to(rows.dtype)
    hinge = (1.0 - rows.unsqueeze(2) + rows.unsqueeze(1)).clamp(min=0.0)  # [n, j, i] = max(0, 1 - x_j + x_i)
    loss = (hinge * weight).sum((1, 2)) / C if C else rows.sum(1) * 0.0
    if input.dim() < 2:
        loss = loss.reshape(())
    return _reduce(loss, reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False,
                                      reduction="mean"):
    """max(0, d(a, p) − d(a, n) + margin) for any distance d (default pairwise_distance), with swap
    taking min(d(a, n), d(p, n)) (F.triplet_margin_with_distance_loss; Balntas et al. 2016)."""
    if margin <= 0:
        raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {margin} instead")
    if not anchor.dim() == positive.dim() == negative.dim():
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {anchor.dim()}D, positive {positive.dim()}D, and negative "
                           f"{negative.dim()}D inputs")
    distance = distance_function if distance_function is not None else pairwise_distance
    d_pos = distance(anchor, positive)
    d_neg = distance(anchor, negative)
    if swap:
        d_neg = _core.minimum(d_neg, distance(positive, negative))
    loss = (margin + d_pos - d_neg).clamp(min=0.0)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss
