"""Matrix multiplication: seqlab.matmul against torch.matmul, same process, same threads; float32
by default, or an integer dtype (--dtype int8: exact products that wrap, no BLAS on either side).

Square sizes 64..2048 and the per-step GEMMs of a small LSTM/GRU (batch 20, hidden 200:
all four LSTM gates are one 20x200 @ 200x800 GEMM, the three GRU gates 20x200 @ 200x600).
Steady state is the median of repeated timings after a warm-up, the two libraries taking
turns; the first call of each shape (weight packing, allocation, thread start-up) is
reported separately.

    python benchmarks/matmul.py [--threads 2] [--repeats 7] [--min-time 0.2] [--dtype float32]
"""

import argparse
import time

import numpy as np
import torch

import seqlab
import timing

SHAPES = [(n, n, n) for n in (64, 128, 256, 512, 1024, 2048)] + [
    (20, 200, 800),   # LSTM step: h (B,H) @ W_hh^T (H,4H), B=20, H=200
    (20, 200, 600),   # GRU step:  h (B,H) @ W_hh^T (H,3H)
]


def first_call_seconds(matmul, a, b):
    time.sleep(timing.SETTLE_SECONDS)      # not charged for the other library's spinning threads
    start = time.perf_counter()
    matmul(a, b)
    return time.perf_counter() - start


def steady_seconds(fns, repeats, min_time):
    return timing.steady_seconds(fns, repeats, min_time, warmup=3, start_calls=1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=7, help="timings per shape; the median is shown")
    parser.add_argument("--min-time", type=float, default=0.2, help="seconds per timing")
    parser.add_argument("--dtype", default="float32", choices=["float32", "int64", "int32", "int16", "int8", "uint8"],
                        help="integer dtypes run the shapes up to 512 only (no BLAS: slower)")
    args = parser.parse_args()
    is_int = args.dtype != "float32"

    seqlab.set_num_threads(args.threads)
    torch.set_num_threads(args.threads)
    print(timing.header())
    print(f"threads: seqlab {seqlab.get_num_threads()}, torch {torch.get_num_threads()}; "
          f"torch {torch.__version__}, {args.dtype}")

    rng = np.random.default_rng(0)
    rows = []
    for m, k, n in SHAPES:
        if is_int and m * k * n > 512 ** 3:
            continue
        if is_int:
            info = np.iinfo(args.dtype)
            a_np = rng.integers(info.min, info.max, (m, k), endpoint=True).astype(args.dtype)
            b_np = rng.integers(info.min, info.max, (k, n), endpoint=True).astype(args.dtype)
        else:
            a_np = rng.standard_normal((m, k), dtype=np.float32)
            b_np = rng.standard_normal((k, n), dtype=np.float32)
        a_s, b_s = seqlab.from_numpy(a_np.copy()), seqlab.from_numpy(b_np.copy())
        a_t, b_t = torch.from_numpy(a_np.copy()), torch.from_numpy(b_np.copy())

        # the first call of this shape (for the first shape, the first call in the process)
        first_s = first_call_seconds(seqlab.matmul, a_s, b_s)
        first_t = first_call_seconds(torch.matmul, a_t, b_t)

        # both compute the same product
        c_s = np.asarray(seqlab.matmul(a_s, b_s))
        c_t = torch.matmul(a_t, b_t).numpy()
        if is_int:
            np.testing.assert_array_equal(c_s, c_t)
        else:
            np.testing.assert_allclose(c_s, c_t, rtol=1e-3, atol=1e-3 * np.sqrt(k))

        sec_s, sec_t = steady_seconds([lambda: seqlab.matmul(a_s, b_s), lambda: torch.matmul(a_t, b_t)],
                                      args.repeats, args.min_time)
        flops = 2.0 * m * k * n
        rows.append((f"{m}x{k} @ {k}x{n}", flops / sec_s / 1e9, flops / sec_t / 1e9,
                     sec_t / sec_s, sec_s * 1e6, sec_t * 1e6, first_s * 1e6, first_t * 1e6))

    unit = "GOP/s" if is_int else "GF/s"
    header = ("shape", f"seqlab {unit}", f"torch {unit}", "ratio", "seqlab us", "torch us",
              "seqlab 1st us", "torch 1st us")
    print()
    print(f"{header[0]:<22}" + "".join(f"{h:>14}" for h in header[1:]))
    for shape, gs, gt, ratio, us_s, us_t, f_s, f_t in rows:
        print(f"{shape:<22}{gs:>14.1f}{gt:>14.1f}{ratio:>14.2f}{us_s:>14.1f}{us_t:>14.1f}"
              f"{f_s:>14.1f}{f_t:>14.1f}")
    print(f"\nratio = seqlab {unit} / torch {unit} (above 1: seqlab is faster). "
          "us = microseconds per call, steady state (median); 1st = first call of that shape.")


if __name__ == "__main__":
    main()
