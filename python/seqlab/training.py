"""seqlab.train: the course's training loop, written once, with a progress bar.

    history = seqlab.train(model, optimizer, train_batches, epochs=3,
                           valid_batches=valid, loss_fn=F.cross_entropy)

Each batch is (inputs, targets); the loop is the one every PyTorch user writes
(zero_grad, forward, loss, backward, optional clipping, step, optional scheduler step),
so it hides nothing a student should know; it adds a tqdm bar with the running loss and
tokens/s, and validation loss after each epoch."""
import math
import time

from tqdm.auto import tqdm

from . import _core
from .autograd import no_grad
from .nn import functional as F
from .nn.utils import clip_grad_norm_


def _flat_loss(loss_fn):
    """cross_entropy on (..., C) logits against (...) targets: flatten the leading dims."""
    def wrapped(output, target):
        if loss_fn is F.cross_entropy and output.dim() > 2 and target.dim() == output.dim() - 1:
            return loss_fn(output.reshape(-1, output.shape[-1]), target.reshape(-1))
        return loss_fn(output, target)
    return wrapped


def evaluate(model, batches, loss_fn=F.cross_entropy):
    """Mean loss over batches, weighted by the number of targets, in eval mode without grad."""
    loss_fn = _flat_loss(loss_fn)
    was_training = getattr(model, "training", False)
    if hasattr(model, "eval"):
        model.eval()
    total, count = 0.0, 0
    with no_grad():
        for inputs, targets in batches:
            n = targets.numel()
            total += loss_fn(model(inputs), targets).item() * n
            count += n
    if was_training:
        model.train()
    return total / max(count, 1)


def train(model, optimizer, train_batches, *, epochs=1, loss_fn=F.cross_entropy, valid_batches=None, scheduler=None,
          scheduler_step="batch", clip_grad_norm=None, progress=True, desc="training", smoothing=0.05):
    """Train `model` and return {'train_loss': [per step], 'valid_loss': [per epoch], 'tokens_per_s': float}.

    train_batches / valid_batches: an iterable of (inputs, targets), or a callable returning a
    fresh one per epoch (e.g. a seqlab.data.DataLoader, or lambda: BPTTBatches(...)).
    scheduler_step: 'batch' or 'epoch'. clip_grad_norm: max norm for seqlab.nn.utils.clip_grad_norm_.
    """
    loss_fn = _flat_loss(loss_fn)
    history = {"train_loss": [], "valid_loss": [], "tokens_per_s": 0.0}
    tokens, start = 0, time.perf_counter()
    running = None
    for epoch in range(epochs):
        batches = train_batches() if callable(train_batches) else train_batches
        total = len(batches) if hasattr(batches, "__len__") else None
        if hasattr(model, "train"):
            model.train()
        bar = tqdm(batches, total=total, desc=f"{desc} {epoch + 1}/{epochs}" if epochs > 1 else desc,
                   disable=not progress, leave=True, dynamic_ncols=True, unit="batch")
        for inputs, targets in bar:
            optimizer.zero_grad()
            loss = loss_fn(model(inputs), targets)
            loss.backward()
            if clip_grad_norm is not None:
                clip_grad_norm_(model.parameters(), clip_grad_norm)
            optimizer.step()
            if scheduler is not None and scheduler_step == "batch":
                scheduler.step()
            value = loss.item()
            if not math.isfinite(value):
                bar.close()
                raise FloatingPointError(f"train: the loss became {value} at step {len(history['train_loss'])}; "
                                         "lower the learning rate or clip gradients")
            history["train_loss"].append(value)
            running = value if running is None else (1 - smoothing) * running + smoothing * value
            tokens += targets.numel() if isinstance(targets, _core.Tensor) else len(targets)
            rate = tokens / max(time.perf_counter() - start, 1e-9)
            bar.set_postfix(loss=f"{running:.4f}", tok_s=f"{rate:,.0f}", refresh=False)
        bar.close()
        if scheduler is not None and scheduler_step == "epoch":
            scheduler.step()
        if valid_batches is not None:
            vb = valid_batches() if callable(valid_batches) else valid_batches
            history["valid_loss"].append(evaluate(model, vb, loss_fn))
            if progress:
                tqdm.write(f"epoch {epoch + 1}: train loss {running:.4f}  valid loss {history['valid_loss'][-1]:.4f}")
    history["tokens_per_s"] = tokens / max(time.perf_counter() - start, 1e-9)
    return history
