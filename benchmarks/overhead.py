"""Per-op overhead from Python: seqlab against torch, same process, same threads.

The small models of the course are overhead-bound: what a tiny op costs to dispatch,
record in the graph and differentiate matters more than its arithmetic.

  add              c = a + b on 16 floats, no grad (forward only)
  tiny fwd+bwd     (a*b + c).tanh().sum() on 16 floats requiring grad, then backward()
  MLP step         a training step of a 64 -> 128 (tanh) -> 10 MLP at batch 32:
                   forward, cross_entropy, backward, manual SGD update under no_grad

    python benchmarks/overhead.py [--threads 2] [--repeats 7] [--min-time 0.2]
"""

import argparse
import math

import numpy as np
import torch
import torch.nn.functional as torch_F

import seqlab
import timing
import seqlab.nn.functional as seqlab_F


def steady_seconds(fns, repeats, min_time):
    return timing.steady_seconds(fns, repeats, min_time, warmup=100, start_calls=100)


def make_add(lib, data):
    a, b = lib.from_numpy(data[0].copy()), lib.from_numpy(data[1].copy())

    def step():
        return a + b
    return step


def make_tiny_graph(lib, data):
    a, b, c = (lib.from_numpy(x.copy()).requires_grad_() for x in data)

    def step():
        (a * b + c).tanh().sum().backward()
        a.grad = b.grad = c.grad = None
    return step


def make_mlp_step(lib, F, data, lr=0.1):
    x, y, W1, b1, W2, b2 = (lib.from_numpy(v.copy()) for v in data)
    params = [p.requires_grad_() for p in (W1, b1, W2, b2)]

    def step():
        h = (x @ W1 + b1).tanh()            # (32, 128)
        loss = F.cross_entropy(h @ W2 + b2, y)
        loss.backward()
        with lib.no_grad():
            for p in params:
                p -= lr * p.grad
                p.grad = None
        return loss
    return step


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=7, help="timings per case; the median is shown")
    parser.add_argument("--min-time", type=float, default=0.2, help="seconds per timing")
    args = parser.parse_args()

    seqlab.set_num_threads(args.threads)
    torch.set_num_threads(args.threads)
    print(timing.header())
    print(f"threads: seqlab {seqlab.get_num_threads()}, torch {torch.get_num_threads()}; "
          f"torch {torch.__version__}")

    rng = np.random.default_rng(0)
    vec16 = [rng.standard_normal(16, dtype=np.float32) for _ in range(3)]
    B, D, H, V = 32, 64, 128, 10
    mlp = [rng.standard_normal((B, D), dtype=np.float32),
           rng.integers(0, V, B, dtype=np.int64),
           (rng.standard_normal((D, H)) / math.sqrt(D)).astype(np.float32),
           np.zeros(H, dtype=np.float32),
           (rng.standard_normal((H, V)) / math.sqrt(H)).astype(np.float32),
           np.zeros(V, dtype=np.float32)]

    cases = [
        ("add, 16 floats, forward only", make_add(seqlab, vec16), make_add(torch, vec16)),
        ("(a*b+c).tanh().sum() fwd+bwd, 16 floats", make_tiny_graph(seqlab, vec16), make_tiny_graph(torch, vec16)),
        (f"MLP step {D}->{H}->{V}, batch {B}", make_mlp_step(seqlab, seqlab_F, mlp),
         make_mlp_step(torch, torch_F, mlp)),
    ]

    # same data, same initial weights: both compute the same training step
    loss_s, loss_t = cases[2][1]().item(), cases[2][2]().item()
    assert abs(loss_s - loss_t) < 1e-4 * max(1.0, abs(loss_t)), (loss_s, loss_t)

    print()
    print(f"{'case':<42}{'seqlab us':>12}{'torch us':>12}{'ratio':>10}")
    for name, seqlab_fn, torch_fn in cases:
        sec_s, sec_t = steady_seconds([seqlab_fn, torch_fn], args.repeats, args.min_time)
        us_s, us_t = sec_s * 1e6, sec_t * 1e6
        print(f"{name:<42}{us_s:>12.2f}{us_t:>12.2f}{us_s / us_t:>10.2f}")
    print("\nus = microseconds per call (median); ratio = seqlab time / torch time (below 1: seqlab is faster).")


if __name__ == "__main__":
    main()
