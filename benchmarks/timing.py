"""Timing shared by the benchmark scripts.

Each library is timed in a block of its own, after a pause: thread pools spin for a while
after work (OpenBLAS's workers, PyTorch's OpenMP threads), and a library timed right after
the other one pays for the other's spinning threads (measured: torch's 512² matmul takes
1.9 ms rested, 3.9 ms right after seqlab's; seqlab's 1.7 ms vs 2.4 ms right after torch's).
The blocks run in both orders (A B, then B A) and the median of all timings is reported, so
slow drift of the machine weighs on both alike."""
import statistics
import time

def header():
    """The line every benchmark prints first: the CPU model, the instruction set seqlab's kernels
    dispatched to (SEQLAB_ISA caps it) and the levels the CPU has, the BLAS and the threads."""
    import seqlab
    from seqlab._config import cpu_model
    core = seqlab._core
    return (f"CPU: {cpu_model()}; seqlab SIMD {core._simd_isa()} (CPU has {', '.join(core._available_isas())}); "
            f"BLAS {core._blas_info().split(' (core: ')[-1].rstrip(')')}; seqlab threads {seqlab.get_num_threads()}")


PAUSE = 0.3  # seconds between blocks: longer than either library's spin-wait
SETTLE_SECONDS = PAUSE


def first_call(make, lib):
    """(seconds, units) of the first call of the case make(lib) returns as (fn, units)."""
    fn, units = make(lib)
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0, units


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
    """Median seconds per call of each fn in fns, after `warmup` calls of each."""
    for fn in fns:
        for _ in range(warmup):
            fn()
    calls = [calls_per_timing(fn, min_time, start_calls) for fn in fns]
    samples = [[] for _ in fns]
    half = max(1, (repeats + 1) // 2)
    for order in (list(range(len(fns))), list(reversed(range(len(fns))))):
        for k in order:
            time.sleep(PAUSE)
            fns[k]()  # one untimed call after the pause
            for _ in range(half):
                t0 = time.perf_counter()
                for _ in range(calls[k]):
                    fns[k]()
                samples[k].append((time.perf_counter() - t0) / calls[k])
    return [statistics.median(s) for s in samples]
