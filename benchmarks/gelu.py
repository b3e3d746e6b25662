"""GELU forward and backward, both forms (approximate='none' and 'tanh'): seqlab against torch,
same process, same threads, same data, float32 and float64, on a 1000 x 1000 matrix and on a
transformer feed-forward activation (batch 64 x 128 tokens, 512 features). The backward is
autograd.grad of a kept graph, so no .grad accumulation is timed.

    python benchmarks/gelu.py [--threads 1 2] [--repeats 5] [--min-time 0.2]
"""
import argparse

import numpy as np
import torch

import seqlab
import timing

SHAPES = [(1000, 1000), (64 * 128, 512)]


def cases(x, g):
    """(name, seqlab fn, torch fn) for the forward and backward of both forms on x."""
    sx, tx = seqlab.from_numpy(x), torch.from_numpy(x)
    sxr, txr = seqlab.from_numpy(x.copy()).requires_grad_(), torch.from_numpy(x.copy()).requires_grad_()
    sg, tg = seqlab.from_numpy(g), torch.from_numpy(g)
    out = []
    for approximate in ("none", "tanh"):
        sy = seqlab.nn.functional.gelu(sxr, approximate=approximate)
        ty = torch.nn.functional.gelu(txr, approximate=approximate)
        out.append((f"{approximate} forward",
                    lambda a=approximate: seqlab.nn.functional.gelu(sx, approximate=a),
                    lambda a=approximate: torch.nn.functional.gelu(tx, approximate=a)))
        out.append((f"{approximate} backward",
                    lambda sy=sy: seqlab.autograd.grad(sy, sxr, sg, retain_graph=True),
                    lambda ty=ty: torch.autograd.grad(ty, txr, tg, retain_graph=True)))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--min-time", type=float, default=0.2)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    print(timing.header())
    print(f"torch {torch.__version__}\n")
    print(f"{'threads':>7s}  {'shape':12s}{'dtype':9s}{'case':18s}{'seqlab us':>12s}{'torch us':>12s}{'ratio':>8s}")
    for threads in args.threads:
        seqlab.set_num_threads(threads)
        torch.set_num_threads(threads)
        for shape in SHAPES:
            for dtype in (np.float32, np.float64):
                x = rng.standard_normal(shape).astype(dtype)
                g = rng.standard_normal(shape).astype(dtype)
                for name, ours, theirs in cases(x, g):
                    a, b = timing.steady_seconds([ours, theirs], args.repeats, args.min_time, warmup=2)
                    print(f"{threads:7d}  {'x'.join(map(str, shape)):12s}{np.dtype(dtype).name:9s}{name:18s}"
                          f"{a * 1e6:12.1f}{b * 1e6:12.1f}{a / b:8.2f}", flush=True)
    print("\nus = microseconds per call (median); ratio = seqlab time / torch time (below 1: seqlab is faster).")


if __name__ == "__main__":
    main()
