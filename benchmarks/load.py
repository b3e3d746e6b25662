"""Training under load: how much a training step slows down when another busy process competes
for the cores, seqlab against torch, as on a shared JupyterHub server where other users' jobs run.

  gpt    a small decoder-only transformer LM over characters: token + learned position embeddings,
         4 pre-LN nn.TransformerEncoderLayer (d_model 128, 4 heads, ff 512, dropout 0) under a
         causal mask, final LayerNorm, a linear head over 27 characters; batch 32, context 64,
         cross-entropy, backward, AdamW
  lstm   PyTorch's word_language_model step (recurrent.py's WordLM): embedding, 2-layer LSTM
         hidden 200, decoder tied to the embedding, dropout 0.2; vocabulary 10,000, batch 20,
         BPTT 35, cross-entropy, backward, clip_grad_norm_(0.25), SGD (lr 20)

Each (library, workload, condition) runs in a child process of its own (this script with
--child), which loads only its library, sets its threads (2 by default, the same for both),
warms up and prints the median milliseconds per step over --repeats blocks of about --min-time
seconds each. "quiet": nothing else of ours runs. "loaded": the parent first starts one busy
Python loop (`while True: pass`) in a session of its own (setsid, as another user's job would
be), waits 0.5 s, runs the child, then kills the load's whole process group (always, also on an
error or Ctrl-C). The cells run in an interleaved order (each round reverses the previous one),
--rounds times, and the table shows each cell's median over the rounds.

slowdown = loaded / quiet. If the scheduler shared the 2 cores among the 3 runnable threads
alike, the ideal slowdown would be 1.5x. With autogroup (/proc/sys/kernel/sched_autogroup_enabled,
on by default in Debian's kernels), it shares them among sessions: the load's session gets one
core and the library's two threads share the other, so the best a library can do is its
one-thread speed, and the floor is T(1 thread) / T(2 threads) on the quiet machine, printed as
"floor". A library whose threads wait for each other (a barrier per op, spinning workers) loses
far more, because one thread waits for the other's turn on the shared core. The target is
<= 1.6x. The figures depend on what else runs on the machine: run it on a quiet one.

    python benchmarks/load.py [--threads 2] [--repeats 5] [--min-time 0.5] [--rounds 2]
                              [--workload {gpt,lstm,all}] [--quick]
"""
import argparse
import importlib
import json
import math
import os
import signal
import statistics
import subprocess
import sys
import time

import numpy as np

import timing

LIBS = ("seqlab", "torch")
CONDITIONS = ("quiet", "loaded", "1 thread")  # "1 thread": quiet, at one thread (the autogroup floor)
LOAD_SETTLE = 0.5  # seconds between starting the load and starting the child


# ---------------------------------------------------------------- workloads (run in the child)

def gpt_step(lib, seed=0):
    """One training step of a character-level GPT (the module docstring's sizes)."""
    vocab, d, heads, layers, ff, ctx, batch = 27, 128, 4, 4, 512, 64, 32
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(seed)
    tok, pos = nn.Embedding(vocab, d), nn.Embedding(ctx, d)
    layer = nn.TransformerEncoderLayer(d, heads, ff, dropout=0.0, batch_first=True, norm_first=True)
    blocks = nn.TransformerEncoder(layer, layers, norm=nn.LayerNorm(d), enable_nested_tensor=False)
    head = nn.Linear(d, vocab)
    mask = nn.Transformer.generate_square_subsequent_mask(ctx)
    positions = lib.arange(ctx)
    opt = lib.optim.AdamW([p for m in (tok, pos, blocks, head) for p in m.parameters()], lr=3e-4)
    data = np.random.default_rng(seed).integers(0, vocab, size=(batch, ctx + 1))
    data = lib.from_numpy(data.astype(np.int64))
    x, y = data[:, :-1].contiguous(), data[:, 1:].reshape(-1)

    def step():
        opt.zero_grad()
        h = blocks(tok(x) + pos(positions), mask=mask, is_causal=True)
        loss = F.cross_entropy(head(h).reshape(-1, vocab), y)
        loss.backward()
        opt.step()
    return step


def lstm_step(lib, seed=0):
    """One step of PyTorch's word_language_model (recurrent.py's WordLM, written compactly here
    so that a child loads only its own library: recurrent.py imports both)."""
    vocab, hidden, bptt, batch = 10_000, 200, 35, 20
    nn, F = lib.nn, lib.nn.functional
    lib.manual_seed(seed)
    drop, encoder = nn.Dropout(0.2), nn.Embedding(vocab, hidden)
    rnn = nn.LSTM(hidden, hidden, 2, dropout=0.2)
    decoder = nn.Linear(hidden, vocab)
    decoder.weight = encoder.weight  # tied
    params = list({id(p): p for m in (encoder, rnn, decoder) for p in m.parameters()}.values())
    opt = lib.optim.SGD(params, lr=20.0)
    data = np.random.default_rng(seed).integers(0, vocab, size=(bptt + 1, batch))
    data = lib.from_numpy(data.astype(np.int64))
    x, y = data[:-1], data[1:].reshape(-1)
    zeros = lib.zeros(2, batch, hidden)
    state = [(zeros, zeros)]

    def step():
        h = tuple(t.detach() for t in state[0])
        opt.zero_grad()
        out, h = rnn(drop(encoder(x)), h)
        loss = F.cross_entropy(decoder(drop(out)).reshape(-1, vocab), y)
        loss.backward()
        lib.nn.utils.clip_grad_norm_(params, 0.25)
        opt.step()
        state[0] = h
    return step


WORKLOADS = {"gpt": ("GPT step (chars)", gpt_step), "lstm": ("LSTM word-LM step", lstm_step)}


def child(args):
    """Time one workload with one library; print one JSON line."""
    lib = importlib.import_module(args.lib)
    if args.lib == "seqlab":
        import seqlab.nn.utils  # noqa: F401  (clip_grad_norm_)
    lib.set_num_threads(args.threads)
    step = WORKLOADS[args.workload][1](lib)
    for _ in range(max(1, args.warmup)):
        t0 = time.perf_counter()
        step()
        last = time.perf_counter() - t0
    calls = max(1, math.ceil(args.min_time / last))  # steps per block, from the last warm-up step
    samples = []
    for _ in range(args.repeats):
        t0 = time.perf_counter()
        for _ in range(calls):
            step()
        samples.append((time.perf_counter() - t0) / calls * 1e3)
    print(json.dumps({"lib": args.lib, "workload": args.workload, "threads": lib.get_num_threads(),
                      "calls": calls, "ms": statistics.median(samples), "samples": samples}), flush=True)


# ---------------------------------------------------------------- the parent

def autogroup():
    try:
        with open("/proc/sys/kernel/sched_autogroup_enabled") as f:
            return "on" if f.read().strip() == "1" else "off"
    except OSError:
        return "unknown"


def start_load():
    """One busy process in a session (and process group) of its own, like another user's job."""
    return subprocess.Popen([sys.executable, "-c", "while True: pass"], stdin=subprocess.DEVNULL,
                            start_new_session=True)  # setsid() in the child: pgid = sid = pid


def stop_load(load):
    try:
        os.killpg(load.pid, signal.SIGKILL)  # the whole group, whatever it started
    except ProcessLookupError:
        pass
    load.wait()


def measure(args, lib, workload, condition):
    threads = 1 if condition == "1 thread" else args.threads
    cmd = [sys.executable, os.path.abspath(__file__), "--child", "--lib", lib, "--workload", workload,
           "--threads", str(threads), "--repeats", str(args.repeats), "--min-time", str(args.min_time),
           "--warmup", str(args.warmup)]
    time.sleep(timing.PAUSE)
    load = None
    try:
        if condition == "loaded":
            load = start_load()
            time.sleep(LOAD_SETTLE)
            if load.poll() is not None:
                raise RuntimeError(f"the load process exited with {load.returncode}")
        out = subprocess.run(cmd, capture_output=True, text=True)
    finally:
        if load is not None:
            stop_load(load)
    if out.returncode != 0:
        raise RuntimeError(f"{lib} {workload} {condition} failed:\n{out.stderr}")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    if result["threads"] != threads:
        raise RuntimeError(f"{lib} ran with {result['threads']} threads, not {threads}")
    return result["ms"]


def cell_order(round_index):
    """seqlab quiet, seqlab loaded, torch quiet, torch loaded, reversed every other round: each
    library's quiet and loaded cells are neighbours, and over two rounds every cell's mean position
    is the same, so a linear drift of the machine weighs on all of them alike."""
    order = [(lib, cond) for lib in LIBS for cond in CONDITIONS]
    return order if round_index % 2 == 0 else order[::-1]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=2, help="threads of both libraries")
    ap.add_argument("--repeats", type=int, default=5, help="timed blocks per child; their median is its figure")
    ap.add_argument("--min-time", type=float, default=0.5, help="seconds per timed block")
    ap.add_argument("--rounds", type=int, default=2, help="runs of every cell; the table shows their median")
    ap.add_argument("--workload", choices=["gpt", "lstm", "all"], default="all")
    ap.add_argument("--quick", action="store_true",
                    help="a smoke test: 1 round, 2 warm-up steps and one block of >= 0.1 s per cell")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--lib", choices=LIBS, help=argparse.SUPPRESS)
    ap.add_argument("--warmup", type=int, default=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args)
    if args.quick:
        args.repeats, args.min_time, args.rounds, args.warmup = 1, 0.1, 1, 2

    # Ctrl-C raises KeyboardInterrupt; make SIGTERM (kill, a closing terminal) unwind too, so that
    # the finally in measure() kills the load process.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    signal.signal(signal.SIGHUP, lambda *_: sys.exit(128 + signal.SIGHUP))

    import seqlab
    from importlib.metadata import version
    seqlab.set_num_threads(args.threads)
    print(timing.header())
    print(f"{os.cpu_count()} logical CPUs; load average at start {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"scheduler autogroup {autogroup()}")
    print(f"torch {version('torch')}; threads: {args.threads} for both, each cell in a process of its own; "
          f"loaded = 1 busy process (setsid) alongside")
    print(f"{args.rounds} round(s); per cell: {args.repeats} blocks of >= {args.min_time} s, median ms per step\n",
          flush=True)

    workloads = list(WORKLOADS) if args.workload == "all" else [args.workload]
    ms = {}  # (workload, lib, condition) -> [ms per round]
    for r in range(args.rounds):
        for w in workloads:
            for lib, cond in cell_order(r):
                t = measure(args, lib, w, cond)
                ms.setdefault((w, lib, cond), []).append(t)
                print(f"  round {r + 1} {w:5s} {lib:7s} {cond:7s} {t:9.2f} ms", flush=True)

    med = {k: statistics.median(v) for k, v in ms.items()}
    print(f"\n{'workload':18s} {'lib':7s} {'quiet':>9s} {'loaded':>9s} {'1 thread':>9s} {'slowdown':>9s} {'floor':>7s}")
    for w in workloads:
        for lib in LIBS:
            q, l, one = med[w, lib, "quiet"], med[w, lib, "loaded"], med[w, lib, "1 thread"]
            print(f"{WORKLOADS[w][0]:18s} {lib:7s} {q:9.2f} {l:9.2f} {one:9.2f} {l / q:8.2f}x {one / q:6.2f}x",
                  flush=True)
    print(f"\nms per step (median over rounds), at {args.threads} threads unless '1 thread'; slowdown = loaded / "
          "quiet; floor = 1 thread / quiet, the best slowdown when the scheduler gives each session one core "
          "(autogroup); 1.5x if it shared the cores among threads.")


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:  # the load process is already gone (measure's finally)
        sys.exit("interrupted")
