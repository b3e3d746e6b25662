"""softmax, log_softmax and cross_entropy at the sizes attention and the losses use: seqlab
against torch, same process, same threads, same data (float32). Forward alone, and forward +
backward (a sum of the output times a fixed upstream gradient, then .backward()).

    python benchmarks/softmax.py [--threads 2] [--repeats 5] [--min-time 0.1]
"""
import argparse

import numpy as np
import torch

import seqlab
import timing


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--min-time", type=float, default=0.1)
    args = parser.parse_args()
    seqlab.set_num_threads(args.threads)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(0)
    print(timing.header())
    print(f"threads: seqlab {seqlab.get_num_threads()}, torch {torch.get_num_threads()}; torch {torch.__version__}\n")
    print(f"{'case (float32)':44s}{'seqlab us':>12s}{'torch us':>12s}{'ratio':>8s}")
    # (rows, D): attention rows (batch·heads·queries, keys) and class counts of the losses
    for rows, D in [(4096, 64), (1024, 256), (512, 1000), (128, 4096), (32, 32768)]:
        x = rng.standard_normal((rows, D)).astype(np.float32)
        g = rng.standard_normal((rows, D)).astype(np.float32)
        for op in ("softmax", "log_softmax"):
            for dim in (-1, 0):
                sx, tx = seqlab.from_numpy(x), torch.from_numpy(x)
                cases = [(f"{op}(dim={dim}) {rows}x{D}", lambda: getattr(sx, op)(dim), lambda: getattr(tx, op)(dim))]
                sxl, txl = seqlab.from_numpy(x).requires_grad_(), torch.from_numpy(x).requires_grad_()
                sg, tg = seqlab.from_numpy(g), torch.from_numpy(g)
                cases.append((f"  + backward", lambda: getattr(sxl, op)(dim).backward(sg),
                              lambda: getattr(txl, op)(dim).backward(tg)))
                for name, ours, theirs in cases:
                    a, b = timing.steady_seconds([ours, theirs], args.repeats, args.min_time, warmup=2)
                    print(f"{name:44s}{a * 1e6:12.1f}{b * 1e6:12.1f}{a / b:8.2f}", flush=True)
        t = rng.integers(0, D, size=rows)
        sxl, txl = seqlab.from_numpy(x).requires_grad_(), torch.from_numpy(x).requires_grad_()
        st, tt = seqlab.from_numpy(t), torch.from_numpy(t)
        ours = lambda: seqlab.nn.functional.cross_entropy(sxl, st).backward()
        theirs = lambda: torch.nn.functional.cross_entropy(txl, tt).backward()
        a, b = timing.steady_seconds([ours, theirs], args.repeats, args.min_time, warmup=2)
        print(f"{f'cross_entropy fwd+bwd {rows}x{D}':44s}{a * 1e6:12.1f}{b * 1e6:12.1f}{a / b:8.2f}", flush=True)
    print("\nus = microseconds per call (median); ratio = seqlab time / torch time (below 1: seqlab is faster).")


if __name__ == "__main__":
    main()
