"""The training loop the demo, the length-generalisation harness and notebooks 09 and 11 share
(seqlab.experiments.windows): its warm-up + cosine schedule against torch's LinearLR followed by
CosineAnnealingLR, and random windows of a stream."""
import numpy as np
import pytest
import torch

import seqlab
from seqlab.experiments.windows import random_windows, train_on_windows, warmup_cosine


def torch_warmup_cosine(steps, warmup, lr=1.0, floor=0.1):
    p = torch.nn.Parameter(torch.zeros(1))
    opt = torch.optim.SGD([p], lr=lr)
    cosine = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps - warmup, eta_min=lr * floor)
    if warmup:
        linear = torch.optim.lr_scheduler.LinearLR(opt, start_factor=1 / warmup, total_iters=warmup - 1)
        sched = torch.optim.lr_scheduler.SequentialLR(opt, [linear, cosine], milestones=[warmup])
    else:
        sched = cosine
    lrs = []
    for _ in range(steps):
        lrs.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    return np.array(lrs)


@pytest.mark.parametrize("steps, warmup", [(100, 0), (100, 1), (100, 10), (37, 5), (800, 50)])
def test_warmup_cosine_is_torchs_linear_then_cosine(steps, warmup):
    ours = np.array([warmup_cosine(steps, warmup)(s) for s in range(steps)])
    np.testing.assert_allclose(ours, torch_warmup_cosine(steps, warmup), rtol=1e-12, atol=1e-12)
    assert ours[-1] > 0.1 and ours.max() == pytest.approx(1.0)


def test_warmup_cosine_drives_lambda_lr_as_torch_does():
    w = seqlab.nn.Parameter(seqlab.zeros(1))
    opt = seqlab.optim.AdamW([w], lr=6e-3)
    sched = seqlab.optim.lr_scheduler.LambdaLR(opt, warmup_cosine(60, 8))
    lrs = []
    for _ in range(60):
        lrs.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    np.testing.assert_allclose(lrs, torch_warmup_cosine(60, 8, lr=6e-3), rtol=1e-12)


def test_random_windows_are_consecutive_tokens_of_the_stream():
    ids = np.arange(1000)
    w = random_windows(ids, 16, 8, np.random.default_rng(0))
    assert w.shape == (8, 17)
    assert (np.diff(w, axis=1) == 1).all() and w.min() >= 0 and w.max() < 1000


def test_train_on_windows_lowers_the_loss_of_a_small_model():
    # a stream with structure: the repeated alphabet, which a small LSTM learns in a few steps
    ids = np.tile(np.arange(10), 300)
    seqlab.manual_seed(0)
    model = seqlab.nn.RNNLM(10, embedding_dim=8, hidden_size=16, num_layers=1, mode="LSTM")
    first = train_on_windows(model, ids, 1, 8, 12, 1e-2, 0)
    last = train_on_windows(model, ids, 60, 8, 12, 1e-2, 0, warmup=5, betas=(0.9, 0.95))
    assert last < 0.5 * first, (first, last)  # from about ln 10 = 2.3 nats
    assert not model.training
