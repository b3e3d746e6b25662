"""Timing shared by the benchmark scripts: interleaved median timings, so that whatever
else the machine does weighs on seqlab and its peer alike."""
import statistics
import time


def calls_per_timing(fn, min_time, start=1):
    """How many back-to-back calls of fn() last at least min_time seconds."""
    calls = start
    while True:
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        elapsed = time.perf_counter() - t0
        if elapsed >= min_time or calls >= 1 << 20:
            return calls
        calls = max(2 * calls, int(calls * 1.2 * min_time / max(elapsed, 1e-9)))


def steady_seconds(fns, repeats, min_time, warmup=3, start_calls=1):
    """Median seconds per call of each fn in fns, after `warmup` calls of each.

    The libraries take turns (one timing of each per round)."""
    for fn in fns:
        for _ in range(warmup):
            fn()
    calls = [calls_per_timing(fn, min_time, start_calls) for fn in fns]
    samples = [[] for _ in fns]
    for _ in range(repeats):
        for fn, n, out in zip(fns, calls, samples):
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            out.append((time.perf_counter() - t0) / n)
    return [statistics.median(s) for s in samples]
