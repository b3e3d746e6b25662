"""Attention and transformers: seqlab against torch, same process, same threads.

  GPT step     a GPT-style decoder training step: token + learned position embeddings, a pre-LN
               TransformerEncoder (d_model 256, 4 heads, 4 layers, ff 1,024, dropout 0.1, causal
               mask), a linear head over 5,000 words, cross-entropy, backward, AdamW; sequence 128,
               batch 16. Tokens per second.
  sdpa L       scaled_dot_product_attention forward + backward, batch 1, 4 heads, head dim 64,
               sequence L = 1,024 and 4,096 (plain and causal): milliseconds per call, and the
               peak resident memory one call adds (measured in a fresh child process per library).

Each line: seqlab, torch, their ratio (> 1: seqlab is faster / uses less memory), for the first
call and the steady state (median of repeated blocks, both orders; benchmarks/timing.py).

    python benchmarks/transformer.py [--threads 2] [--repeats 5] [--min-time 0.5] [--only sdpa]
"""
import argparse
import subprocess
import sys

import numpy as np
import torch

import seqlab
import timing

VOCAB, D_MODEL, HEADS, LAYERS, FF, SEQ, BATCH = 5_000, 256, 4, 4, 1_024, 128, 16


class GPT:
    """The same model written against `lib` (torch or seqlab)."""

    def __init__(self, lib):
        nn = lib.nn
        self.lib = lib
        self.tok = nn.Embedding(VOCAB, D_MODEL)
        self.pos = nn.Embedding(SEQ, D_MODEL)
        layer = nn.TransformerEncoderLayer(D_MODEL, HEADS, FF, dropout=0.1, batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, LAYERS, norm=nn.LayerNorm(D_MODEL), enable_nested_tensor=False)
        self.head = nn.Linear(D_MODEL, VOCAB)
        self.mask = nn.Transformer.generate_square_subsequent_mask(SEQ)
        self.modules = [self.tok, self.pos, self.blocks, self.head]
        self.positions = lib.arange(SEQ)

    def parameters(self):
        return [p for m in self.modules for p in m.parameters()]

    def __call__(self, idx):
        x = self.tok(idx) + self.pos(self.positions)
        x = self.blocks(x, mask=self.mask, is_causal=True)
        return self.head(x)


def gpt_case(lib, seed=0):
    rng = np.random.default_rng(seed)
    lib.manual_seed(seed)
    model = GPT(lib)
    opt = lib.optim.AdamW(model.parameters(), lr=3e-4)
    data = lib.from_numpy(rng.integers(0, VOCAB, size=(BATCH, SEQ + 1)).astype(np.int64))
    x, y = data[:, :-1].contiguous(), data[:, 1:].reshape(-1)
    F = lib.nn.functional

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(x).reshape(-1, VOCAB), y)
        loss.backward()
        opt.step()
    return step, BATCH * SEQ


def sdpa_case(lib, L, causal, seed=0):
    rng = np.random.default_rng(seed)
    q, k, v = (lib.from_numpy(rng.standard_normal((1, HEADS, L, 64)).astype(np.float32)).requires_grad_()
               for _ in range(3))
    sdpa = lib.nn.functional.scaled_dot_product_attention

    def step():
        sdpa(q, k, v, is_causal=causal).sum().backward()
    return step, 1


# The peak resident memory one call adds: VmHWM is reset to the current RSS (clear_refs 5,
# Linux >= 4.0) after the inputs exist, so imports and inputs do not count.
CHILD = """
import sys
sys.path.insert(0, {bench!r})
lib = __import__({lib!r})
import transformer as b
lib.set_num_threads({threads})
step, _ = b.sdpa_case(lib, {L}, {causal})
print(b.added_peak_mb(step))
"""


def _status_kb(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(field)


def added_peak_mb(fn):
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    before = _status_kb("VmRSS")
    fn()
    return (_status_kb("VmHWM") - before) / 1024


def peak_mb(lib, L, causal, threads):
    import os
    code = CHILD.format(bench=os.path.dirname(os.path.abspath(__file__)), lib=lib, threads=threads, L=L,
                        causal=causal)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=0.5)
    ap.add_argument("--only", default="", help="run the cases whose name contains this")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    seqlab.set_num_threads(args.threads)
    print(f"threads {args.threads}; seqlab vs torch {torch.__version__}")
    print(f"{'case':24s} {'first: seqlab':>14s} {'torch':>10s} {'ratio':>6s}   "
          f"{'steady: seqlab':>14s} {'torch':>10s} {'ratio':>6s}   {'peak MB: seqlab':>15s} {'torch':>7s}")
    cases = [("GPT step (tokens/s)", gpt_case, None)]
    for L in (1024, 4096):
        for causal in (False, True):
            name = f"sdpa L{L}{' causal' if causal else ''} (ms)"
            cases.append((name, (lambda lib, L=L, c=causal: sdpa_case(lib, L, c)), (L, causal)))
    for name, make, sdpa in cases:
        if args.only not in name:
            continue
        (f_s, units), (f_t, _) = timing.first_call(make, seqlab), timing.first_call(make, torch)
        fs, _ = make(seqlab)
        ft, _ = make(torch)
        s_sec, t_sec = timing.steady_seconds([fs, ft], args.repeats, args.min_time, warmup=2)
        if sdpa is None:  # throughput
            first = f"{units / f_s:14,.0f} {units / f_t:10,.0f} {f_t / f_s:6.2f}"
            steady = f"{units / s_sec:14,.0f} {units / t_sec:10,.0f} {t_sec / s_sec:6.2f}"
            mem = ""
        else:
            first = f"{f_s * 1e3:14.1f} {f_t * 1e3:10.1f} {f_t / f_s:6.2f}"
            steady = f"{s_sec * 1e3:14.1f} {t_sec * 1e3:10.1f} {t_sec / s_sec:6.2f}"
            m_s, m_t = peak_mb("seqlab", *sdpa, args.threads), peak_mb("torch", *sdpa, args.threads)
            mem = f"{m_s:15.1f} {m_t:7.1f}"
        print(f"{name:24s} {first}   {steady}   {mem}", flush=True)


if __name__ == "__main__":
    main()
