"""Convolutions and pooling at the shapes course code runs: a character CNN's conv1d, d2l's LeNet
(1 -> 6 channels, 28x28, kernel 5) and a small CNN layer (16 -> 32 channels, 16x16, kernel 3), forward
alone and forward + backward, seqlab against torch (oneDNN), same process, same threads, same data
(float32), for 1 and 2 threads.

    python benchmarks/conv.py [--threads 1 2] [--repeats 5] [--min-time 0.1] [--cpu-time]

--cpu-time reports, for 1 thread, the CPU time per call (time.process_time, best of the repeats,
the two libraries alternating) instead of the wall time: on a machine shared with other jobs it
moves far less than the wall time does.
"""
import argparse
import time

import numpy as np
import torch

import seqlab
import seqlab.nn.functional as F
import timing

# (name, functional, input shape, weight shape, kwargs, input needs a gradient)
CASES = [
    ("conv1d char-CNN N32 C64 L256 k5", "conv1d", (32, 64, 256), (64, 64, 5), dict(padding=2), True),
    ("conv2d LeNet N64 1->6 28x28 k5", "conv2d", (64, 1, 28, 28), (6, 1, 5, 5), dict(padding=2), False),
    ("conv2d N64 16->32 16x16 k3", "conv2d", (64, 16, 16, 16), (32, 16, 3, 3), dict(padding=1), True),
]
POOLS = [
    ("max_pool2d 2x2 N64 6x28x28", "max_pool2d", (64, 6, 28, 28), dict(kernel_size=2)),
    ("avg_pool2d 2x2 N64 6x28x28", "avg_pool2d", (64, 6, 28, 28), dict(kernel_size=2)),
]


def cpu_seconds(fns, repeats, min_time):
    """Best CPU seconds per call of each fn, the fns alternating (one thread: CPU time is the work's)."""
    for fn in fns:
        fn()
        fn()
    best = [float("inf")] * len(fns)
    for _ in range(repeats):
        for k, fn in enumerate(fns):
            c0, t0, n = time.process_time(), time.perf_counter(), 0
            while time.perf_counter() - t0 < min_time:
                fn()
                n += 1
            best[k] = min(best[k], (time.process_time() - c0) / n)
    return best


def row(name, ours, theirs, args):
    if args.cpu_time:
        a, b = cpu_seconds([ours, theirs], args.repeats, args.min_time)
    else:
        a, b = timing.steady_seconds([ours, theirs], args.repeats, args.min_time, warmup=2)
    print(f"{name:46s}{a * 1e6:12.1f}{b * 1e6:12.1f}{a / b:8.2f}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--min-time", type=float, default=0.1)
    parser.add_argument("--cpu-time", action="store_true", help="CPU time per call (1 thread only)")
    args = parser.parse_args()
    if args.cpu_time and args.threads != [1]:
        parser.error("--cpu-time measures one thread: use --threads 1")
    rng = np.random.default_rng(0)
    for threads in args.threads:
        seqlab.set_num_threads(threads)
        torch.set_num_threads(threads)
        print(timing.header())
        print(f"\nthreads: seqlab {seqlab.get_num_threads()}, torch {torch.get_num_threads()}; torch {torch.__version__}, "
              f"mkldnn {torch.backends.mkldnn.is_available()}")
        print(f"{'case (float32)':46s}{'seqlab us':>12s}{'torch us':>12s}{'ratio':>8s}")
        for name, fn, xs, ws, kw, input_grad in CASES:
            x = rng.standard_normal(xs).astype(np.float32)
            w = (rng.standard_normal(ws) / np.sqrt(np.prod(ws[1:]))).astype(np.float32)
            b = rng.standard_normal(ws[0]).astype(np.float32)
            sx, sw, sb = (seqlab.from_numpy(a) for a in (x, w, b))
            tx, tw, tb = (torch.from_numpy(a) for a in (x, w, b))
            ours_f, theirs_f = getattr(F, fn), getattr(torch.nn.functional, fn)
            row(name + " fwd", lambda: ours_f(sx, sw, sb, **kw), lambda: theirs_f(tx, tw, tb, **kw), args)
            sl = [seqlab.from_numpy(a).requires_grad_(input_grad or i > 0) for i, a in enumerate((x, w, b))]
            th = [torch.from_numpy(a).requires_grad_(input_grad or i > 0) for i, a in enumerate((x, w, b))]
            gs = ours_f(*sl, **kw)
            g = rng.standard_normal(tuple(gs.shape)).astype(np.float32)
            sg, tg = seqlab.from_numpy(g), torch.from_numpy(g)
            row(name + " fwd+bwd", lambda: ours_f(*sl, **kw).backward(sg), lambda: theirs_f(*th, **kw).backward(tg),
                args)
        for name, fn, xs, kw in POOLS:
            x = rng.standard_normal(xs).astype(np.float32)
            sx, tx = seqlab.from_numpy(x).requires_grad_(), torch.from_numpy(x).requires_grad_()
            ours_f, theirs_f = getattr(F, fn), getattr(torch.nn.functional, fn)
            row(name + " fwd+bwd", lambda: ours_f(sx, **kw).sum().backward(), lambda: theirs_f(tx, **kw).sum().backward(),
                args)
    what = "CPU time per call (best)" if args.cpu_time else "wall time per call (median)"
    print(f"\nus = microseconds of {what}; ratio = seqlab time / torch time (below 1: seqlab is faster).")


if __name__ == "__main__":
    main()
