"""Large elementwise ops, reductions and softmax: seqlab against torch, same process,
same threads, same data (float32, 1000 x 1000 unless said). These are bandwidth- and
SIMD-bound: they show the run-time dispatched kernels (seqlab.show_config()).

    python benchmarks/elementwise.py [--threads 2] [--repeats 7] [--min-time 0.2]
"""
import argparse

import numpy as np
import torch

import seqlab
import timing


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--min-time", type=float, default=0.2)
    args = parser.parse_args()
    seqlab.set_num_threads(args.threads)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1000, 1000)).astype(np.float32)
    y = rng.standard_normal((1000, 1000)).astype(np.float32)
    sx, sy = seqlab.from_numpy(x), seqlab.from_numpy(y)
    tx, ty = torch.from_numpy(x), torch.from_numpy(y)
    # GELU's backward alone: autograd.grad of a kept graph (no .grad accumulation), both libraries
    sxr, txr = seqlab.from_numpy(x).requires_grad_(), torch.from_numpy(x.copy()).requires_grad_()
    sg, tg = seqlab.from_numpy(y), torch.from_numpy(y)
    s_gelu, t_gelu = seqlab.nn.functional.gelu(sxr), torch.nn.functional.gelu(txr)
    s_gelu_tanh = seqlab.nn.functional.gelu(sxr, approximate="tanh")
    t_gelu_tanh = torch.nn.functional.gelu(txr, approximate="tanh")
    cases = [
        ("a + b", lambda: sx + sy, lambda: tx + ty),
        ("a * b[0] (row broadcast)", lambda: sx * sy[0], lambda: tx * ty[0]),
        ("relu", lambda: sx.relu(), lambda: tx.relu()),
        ("exp", lambda: sx.exp(), lambda: tx.exp()),
        ("tanh", lambda: sx.tanh(), lambda: tx.tanh()),
        ("sigmoid", lambda: sx.sigmoid(), lambda: tx.sigmoid()),
        ("gelu", lambda: seqlab.nn.functional.gelu(sx), lambda: torch.nn.functional.gelu(tx)),
        ("gelu backward", lambda: seqlab.autograd.grad(s_gelu, sxr, sg, retain_graph=True),
         lambda: torch.autograd.grad(t_gelu, txr, tg, retain_graph=True)),
        ("gelu(approximate='tanh')", lambda: seqlab.nn.functional.gelu(sx, approximate="tanh"),
         lambda: torch.nn.functional.gelu(tx, approximate="tanh")),
        ("gelu(approximate='tanh') backward", lambda: seqlab.autograd.grad(s_gelu_tanh, sxr, sg, retain_graph=True),
         lambda: torch.autograd.grad(t_gelu_tanh, txr, tg, retain_graph=True)),
        ("sum()", lambda: sx.sum(), lambda: tx.sum()),
        ("sum(dim=0)", lambda: sx.sum(0), lambda: tx.sum(0)),
        ("sum(dim=1)", lambda: sx.sum(1), lambda: tx.sum(1)),
        ("softmax(dim=1)", lambda: sx.softmax(1), lambda: tx.softmax(1)),
        ("log_softmax(dim=1)", lambda: sx.log_softmax(1), lambda: tx.log_softmax(1)),
        ("max(dim=1)", lambda: sx.max(1), lambda: tx.max(1)),
        ("t().contiguous()", lambda: sx.t().contiguous(), lambda: tx.t().contiguous()),
    ]
    print(timing.header())
    print(f"threads: seqlab {seqlab.get_num_threads()}, torch {torch.get_num_threads()}; torch {torch.__version__}\n")
    print(f"{'case (1000x1000 float32)':34s}{'seqlab us':>12s}{'torch us':>12s}{'ratio':>8s}")
    for name, ours, theirs in cases:
        a, b = timing.steady_seconds([ours, theirs], args.repeats, args.min_time, warmup=3)
        print(f"{name:34s}{a * 1e6:12.1f}{b * 1e6:12.1f}{a / b:8.2f}")
    print("\nus = microseconds per call (median); ratio = seqlab time / torch time (below 1: seqlab is faster).")


if __name__ == "__main__":
    main()
