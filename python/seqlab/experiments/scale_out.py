"""Outgrowing the laptop: a seqlab nn.TransformerLM with ALiBi positions, converted with
seqlab.to_torch, trained by torch.nn.parallel.DistributedDataParallel on N processes, brought back
with seqlab.from_torch and evaluated in seqlab (bits per character on the King James Bible).

    python -m seqlab.experiments.scale_out --procs 2              # CPU processes, gloo (this machine)
    python -m seqlab.experiments.scale_out --procs 4 --device cuda  # one GPU per process, NCCL
    torchrun --nproc-per-node 8 -m seqlab.experiments.scale_out --device cuda   # torchrun's processes
    torchrun --nnodes 2 --nproc-per-node 8 --rdzv-endpoint host:29500 -m seqlab.experiments.scale_out --device cuda

Each step draws one global batch of `batch` windows of `length` + 1 characters from a generator
seeded by the step (the same on every process); process r takes rows r·B/N ... (r + 1)·B/N − 1 and
DDP averages the gradients, so N processes take the steps one process would take on the whole
batch (to rounding; with dropout each process draws its own masks). The model's code is the same
on a CPU and a GPU: .to(device) and the backend are all that change. Process 0 logs each step's loss
(the mean over processes) and writes the trained parameters; the launching process reads them
back into seqlab. Tests: tests/test_scale_out.py."""
import argparse
import copy
import math
import os
import sys
import tempfile
import time

import numpy as np

from .. import nn
from ..nn import positional
from .windows import random_windows


def make_model(vocab_size, d_model=128, nhead=4, num_layers=4, dropout=0.1, seed=0):
    """The seqlab model the experiment scales out: a causal character LM with ALiBi."""
    from .._core import manual_seed
    manual_seed(seed)
    return nn.TransformerLM(vocab_size, d_model, nhead, num_layers, 4 * d_model, dropout=dropout,
                            pos=positional.ALiBi(nhead))


def global_batch(ids, step, batch, length, seed):
    """The step's (batch, length + 1) windows: the same on every process."""
    return random_windows(ids, length, batch, np.random.default_rng([seed, step]))


def _worker(rank, world, model, ids, config, init_file, out_file, log):
    """One process of the data-parallel run: its shard of every global batch, DDP's all-reduce."""
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel

    env_rank = os.environ.get("RANK")
    if env_rank is None:  # spawned here; under torchrun the environment names the rendezvous
        dist.init_process_group(config["backend"], init_method=f"file://{init_file}", rank=rank, world_size=world)
    else:
        dist.init_process_group(config["backend"])
        rank, world = dist.get_rank(), dist.get_world_size()
    device = torch.device(config["device"] if config["device"] == "cpu" else f"cuda:{rank % torch.cuda.device_count()}")
    if device.type == "cpu":  # the processes share the machine's cores
        torch.set_num_threads(max(1, (os.cpu_count() or 1) // world))
    torch.manual_seed(config["seed"] + rank)  # each process its own dropout masks
    # torch.multiprocessing hands every spawned process the same shared-memory parameters: each takes
    # its own copy, or the processes' optimizer steps would all land in one tensor
    model = copy.deepcopy(model).to(device)
    ddp = DistributedDataParallel(model, device_ids=None if device.type == "cpu" else [device])
    opt = torch.optim.AdamW(ddp.parameters(), lr=config["lr"], weight_decay=0.01) if config["optimizer"] == "adamw" \
        else torch.optim.SGD(ddp.parameters(), lr=config["lr"])
    B, N = config["batch"], world
    if B % N:
        raise ValueError(f"scale_out: batch {B} does not split evenly over {N} processes")
    losses = []
    for step in range(config["steps"]):
        rows = global_batch(ids, step, B, config["length"], config["seed"])[rank * B // N:(rank + 1) * B // N]
        x = torch.from_numpy(rows).to(device)
        logits = ddp(x[:, :-1])
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), x[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()  # DDP: the gradients averaged over the processes
        opt.step()
        mean = loss.detach().clone()
        dist.all_reduce(mean)
        losses.append(mean.item() / N)
        if rank == 0 and log and (step % max(1, config["steps"] // 20) == 0 or step == config["steps"] - 1):
            print(f"step {step:5d}  loss {losses[-1]:.4f} nats/char  ({N} processes)", flush=True)
    if rank == 0:
        torch.save({"state": {k: v.cpu() for k, v in model.state_dict().items()}, "losses": losses}, out_file)
    # every process reaches the end before any tears its connections down (once, on a loaded
    # machine, rank 1 died of SIGABRT at the end of a run; a rank leaving while the other still
    # talks to it is the likely cause, and the barrier rules it out)
    dist.barrier()
    dist.destroy_process_group()


def train_data_parallel(model, ids, procs=2, steps=100, batch=32, length=128, lr=3e-3, seed=0, backend="gloo",
                        device="cpu", log=True, optimizer="adamw"):
    """Train the seqlab `model` as a torch module on `procs` processes (DDP) with AdamW (weight
    decay 0.01) or plain SGD (optimizer="sgd"); returns (the trained seqlab model, the mean
    training loss of each step)."""
    import torch.multiprocessing as mp
    import torch
    from ..torch_modules import from_torch, to_torch

    tm = to_torch(model)
    config = dict(steps=steps, batch=batch, length=length, lr=lr, seed=seed, backend=backend, device=device,
                  optimizer=optimizer)
    with tempfile.TemporaryDirectory(prefix="seqlab-scale-out-") as scratch:
        init_file, out_file = os.path.join(scratch, "rendezvous"), os.path.join(scratch, "trained.pt")
        mp.spawn(_worker, args=(procs, tm, ids, config, init_file, out_file, log), nprocs=procs, join=True)
        result = torch.load(out_file, weights_only=True)
    tm.load_state_dict(result["state"])
    return from_torch(tm.cpu()), result["losses"]


def bits_per_char(model, ids, length=128, chars=20000):
    """Cross-entropy in bits per character of `model` (seqlab) over held-out windows."""
    from .length_generalization import evaluate
    return evaluate(model, ids, length, chars) / math.log(2)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--procs", type=int, default=2, help="processes to spawn (ignored under torchrun)")
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--batch", type=int, default=32, help="the global batch, split over the processes")
    ap.add_argument("--length", type=int, default=128)
    ap.add_argument("--d-model", type=int, default=128)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    ap.add_argument("--backend", default=None, help="gloo (default on CPU) or nccl (default on CUDA)")
    ap.add_argument("--eval-chars", type=int, default=20000)
    args = ap.parse_args(argv)
    backend = args.backend or ("nccl" if args.device == "cuda" else "gloo")
    from ..data import corpora
    corpus = corpora.kjv("char")
    train_ids, test_ids = corpus.ids("train").numpy(), corpus.ids("test").numpy()
    model = make_model(len(corpus.vocab), args.d_model, args.heads, args.layers, seed=args.seed)
    if "RANK" in os.environ:  # launched by torchrun: this process is one of the group, its model the same (seeded)
        from ..torch_modules import to_torch
        config = dict(steps=args.steps, batch=args.batch, length=args.length, lr=args.lr, seed=args.seed,
                      backend=backend, device=args.device, optimizer="adamw")
        out = os.environ.get("SEQLAB_SCALE_OUT_FILE", "scale_out.pt")
        tm = to_torch(model)
        _worker(0, 0, tm, train_ids, config, None, out, True)
        if os.environ["RANK"] == "0":  # process 0 brings the trained model back to seqlab
            import torch
            from ..torch_modules import from_torch
            tm.load_state_dict(torch.load(out, weights_only=True)["state"])
            after = bits_per_char(from_torch(tm), test_ids, args.length, args.eval_chars)
            print(f"trained parameters written to {out}; after: {after:.3f} bits/char on KJV test, evaluated in "
                  "seqlab after from_torch")
        return 0
    print(f"seqlab TransformerLM with ALiBi: {sum(p.numel() for p in model.parameters()):,} parameters; KJV "
          f"characters, vocabulary {len(corpus.vocab)}")
    before = bits_per_char(model, test_ids, args.length, args.eval_chars)
    print(f"before: {before:.3f} bits/char on KJV test (seqlab)")
    start = time.perf_counter()
    model, losses = train_data_parallel(model, train_ids, args.procs, args.steps, args.batch, args.length, args.lr,
                                        args.seed, backend, args.device)
    print(f"trained {args.steps} steps on {args.procs} processes ({backend}, {args.device}) in "
          f"{time.perf_counter() - start:.1f} s; last loss {losses[-1]:.4f} nats/char")
    after = bits_per_char(model, test_ids, args.length, args.eval_chars)
    print(f"after: {after:.3f} bits/char on KJV test, evaluated in seqlab after from_torch")
    return 0


if __name__ == "__main__":
    sys.exit(main())
