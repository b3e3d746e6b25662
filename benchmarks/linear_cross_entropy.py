"""F.linear_cross_entropy at a language-model head's size (N=4096 rows, d=256, C=32000 classes, float32),
forward + backward (grads of input and weight), seqlab against torch: the chunked path
(LinearCrossEntropyOptions, default "auto" chunking unless --chunk) and, with --reference, the reference
path (the (N, C) logits made whole). Each configuration runs in its own process, so its peak resident
memory above what the data took (during its first call) is its own; the time is the best of --repeats later calls.

    python benchmarks/linear_cross_entropy.py [--n 4096] [--d 256] [--c 32000] [--chunk ROWS] [--repeats 3]
                                              [--reference] [--threads 2]
"""
import argparse
import json
import subprocess
import sys
import time


def status(key):
    """A /proc/self/status field in bytes (VmRSS: resident now, VmHWM: its peak)."""
    with open("/proc/self/status") as f:
        return int(next(line for line in f if line.startswith(key)).split()[1]) * 1024


def child(lib_name, path, n, d, c, chunk, repeats, threads):
    import numpy as np
    if lib_name == "torch":
        import torch as lib
        lib.set_num_threads(threads)
    else:
        import seqlab as lib
    F = lib.nn.functional
    rng = np.random.default_rng(0)
    x = lib.from_numpy(rng.standard_normal((n, d), dtype=np.float32)).requires_grad_()
    w = lib.from_numpy((rng.standard_normal((c, d), dtype=np.float32) / np.sqrt(d)).astype(np.float32))
    w.requires_grad_()
    t = lib.from_numpy(rng.integers(0, c, n))
    options = None
    if path == "chunked":
        options = lib.nn.LinearCrossEntropyOptions(batch_chunk_size=chunk) if chunk else \
            lib.nn.LinearCrossEntropyOptions()

    def step():
        x.grad = w.grad = None
        F.linear_cross_entropy(x, w, t, options=options).backward()

    # a warm-up on 8 rows (torch registers its custom op, each library starts its threads), then the peak of
    # the first full call (memory an allocator kept from an earlier one would hide it); VmHWM := VmRSS first
    F.linear_cross_entropy(x[:8], w, t[:8], options=options).backward()
    open("/proc/self/clear_refs", "w").write("5")
    before = status("VmRSS")
    step()
    peak = status("VmHWM") - before
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        step()
        best = min(best, time.perf_counter() - start)
    print(json.dumps({"seconds": best, "peak_bytes": peak}))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=4096)
    p.add_argument("--d", type=int, default=256)
    p.add_argument("--c", type=int, default=32000)
    p.add_argument("--chunk", type=int, default=0, help="batch_chunk_size (0: the options' automatic choice)")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--reference", action="store_true", help="also the reference path (options=None)")
    p.add_argument("--child", nargs=2, metavar=("LIB", "PATH"), help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.child:
        return child(*a.child, a.n, a.d, a.c, a.chunk, a.repeats, a.threads)
    paths = ["chunked"] + (["reference"] if a.reference else [])
    print(f"linear_cross_entropy forward + backward, N={a.n} d={a.d} C={a.c} float32, logits would be "
          f"{a.n * a.c * 4 / 2**20:.0f} MiB; best of {a.repeats}, {a.threads} threads")
    for path in paths:
        res = {}
        for lib in ("seqlab", "torch"):
            cmd = [sys.executable, __file__, "--child", lib, path, "--n", str(a.n), "--d", str(a.d), "--c", str(a.c),
                   "--chunk", str(a.chunk), "--repeats", str(a.repeats), "--threads", str(a.threads)]
            out = subprocess.run(cmd, capture_output=True, text=True, check=True)
            res[lib] = json.loads(out.stdout.strip().splitlines()[-1])
        s, t = res["seqlab"], res["torch"]
        print(f"{path:9s}  seqlab {s['seconds'] * 1e3:8.1f} ms {s['peak_bytes'] / 2**20:7.1f} MiB   "
              f"torch {t['seconds'] * 1e3:8.1f} ms {t['peak_bytes'] / 2**20:7.1f} MiB   "
              f"seqlab/torch time {s['seconds'] / t['seconds']:.2f}x, "
              f"peak {s['peak_bytes'] / max(t['peak_bytes'], 1):.2f}x")


if __name__ == "__main__":
    main()
