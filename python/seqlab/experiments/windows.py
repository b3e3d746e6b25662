"""A character or word language model trained on random windows of a token stream: what the
train-short/test-long harness and the demo share. Each step draws batch_size windows of
length + 1 tokens and minimises the next-token cross-entropy with AdamW (weight decay 0.01), an
optional linear warm-up, a cosine schedule down to lr/10 and gradient clipping at norm 1."""
import math

import numpy as np

from .. import nn, optim
from .._tensor import tensor
from ..nn import functional as F


def random_windows(ids, length, count, rng):
    """count windows of length + 1 consecutive tokens of ids (a 1-D array), at random starts: (count, length + 1)."""
    starts = rng.integers(0, len(ids) - length - 1, size=count)
    return ids[starts[:, None] + np.arange(length + 1)]


def warmup_cosine(steps, warmup, floor=0.1):
    """The learning-rate factor of step s (LambdaLR's lr_lambda): (s + 1) / warmup for the first
    `warmup` steps, then a cosine from 1 towards `floor`, which it would reach at s = steps, one
    past the last step, as CosineAnnealingLR(T_max=steps) (Loshchilov & Hutter 2017).
    The warm-up keeps the first steps small while Adam's second-moment estimates are still based on
    few gradients, the usual remedy for a transformer's early instability (Liu et al. 2020)."""
    def factor(s):
        if s < warmup:
            return (s + 1) / warmup
        progress = (s - warmup) / max(1, steps - warmup)
        return floor + (1 - floor) * 0.5 * (1 + math.cos(math.pi * progress))
    return factor


def train_on_windows(model, ids, steps, batch_size, length, lr, seed, desc=None, warmup=0, betas=(0.9, 0.999)):
    """Train `model` (token ids (B, T) -> logits (B, T, V)) for `steps` steps; desc: a progress
    bar's label (tqdm), None for none; warmup: steps of linear warm-up before the cosine; betas:
    AdamW's. Returns the running mean of the training loss (nats/token)."""
    opt = optim.AdamW(model.parameters(), lr=lr, betas=betas, weight_decay=0.01)
    sched = optim.lr_scheduler.LambdaLR(opt, warmup_cosine(steps, warmup))
    rng = np.random.default_rng(seed)
    steps_iter = range(steps)
    if desc is not None:
        from tqdm.auto import tqdm
        steps_iter = tqdm(steps_iter, desc=desc, leave=False, mininterval=0.5)
    model.train()
    running = float("nan")
    for step in steps_iter:
        batch = tensor(random_windows(ids, length, batch_size, rng))
        logits = model(batch[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), batch[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        running = 0.9 * running + 0.1 * loss.item() if step else loss.item()
        if desc is not None:
            steps_iter.set_postfix(loss=f"{running:.3f}", refresh=False)
    model.eval()
    return running
