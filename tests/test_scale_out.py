"""python -m seqlab.experiments.scale_out: a seqlab nn.TransformerLM with ALiBi, converted with
seqlab.to_torch, trained by DistributedDataParallel on 2 CPU processes (gloo), takes the steps one
process takes on the whole batch (to 1e-6), and comes back to seqlab with seqlab.from_torch; the
script runs end to end. python/seqlab/experiments/scale_out.py."""
import numpy as np
import torch

import seqlab
from seqlab.experiments import scale_out

V, STEPS, BATCH, LENGTH, LR = 20, 3, 8, 16, 0.5


def ids():
    """A stream with structure to learn: each token is the previous one plus 7, mod V."""
    return (7 * np.arange(5000)) % V


def one_process_full_batch(model, data):
    """The same steps without DDP: one process, the whole global batch, plain SGD. (Not Adam: its
    normalised step magnifies differences at the level of rounding in small gradients, such as the
    key bias's, zero in exact arithmetic; with AdamW at 3e-3, 1 and 2 processes part by 8e-5 in 3
    steps.)"""
    tm = seqlab.to_torch(model)
    opt = torch.optim.SGD(tm.parameters(), lr=LR)
    for step in range(STEPS):
        x = torch.from_numpy(scale_out.global_batch(data, step, BATCH, LENGTH, 0))
        logits = tm(x[:, :-1])
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, V), x[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
    return seqlab.from_torch(tm)


def test_two_processes_take_the_steps_of_one_on_the_whole_batch():
    data = ids()
    model = scale_out.make_model(V, d_model=16, nhead=2, num_layers=2, dropout=0.0)
    want = one_process_full_batch(model, data)
    got, losses = scale_out.train_data_parallel(model, data, procs=2, steps=STEPS, batch=BATCH, length=LENGTH,
                                                lr=LR, log=False, optimizer="sgd")
    assert type(got) is seqlab.nn.TransformerLM and type(got.layers[0].self_attn.pos) is seqlab.nn.positional.ALiBi
    assert len(losses) == STEPS and losses[-1] < losses[0]
    for (name, a), (_, b) in zip(got.state_dict().items(), want.state_dict().items()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-6, err_msg=name)
    for (name, a), (_, b) in zip(got.state_dict().items(), model.state_dict().items()):
        assert not np.allclose(a.numpy(), b.numpy()), f"{name} did not train"


def test_the_script_runs_end_to_end(capsys):
    assert scale_out.main(["--procs", "2", "--steps", "2", "--d-model", "16", "--layers", "1", "--heads", "2",
                           "--batch", "4", "--length", "16", "--eval-chars", "500"]) == 0
    out = capsys.readouterr().out
    assert "before:" in out and "trained 2 steps on 2 processes (gloo, cpu)" in out and "after:" in out
