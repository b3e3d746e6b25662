"""Attention and transformers: seqlab against torch, same process, same threads.

  GPT step     a GPT-style decoder training step: token + learned position embeddings, a pre-LN
               TransformerEncoder (d_model 256, 4 heads, 4 layers, ff 1,024, dropout 0.1, causal
               mask), a linear head over 5,000 words, cross-entropy, backward, AdamW; sequence 128,
               batch 16. Tokens per second.
  sdpa L       scaled_dot_product_attention forward + backward, batch 1, 4 heads, head dim 64,
               sequence L = 1,024 and 4,096 (plain and causal): milliseconds per call, and the
               peak resident memory one call adds (measured in a fresh child process per library).
  <scheme> L   causal attention forward + backward with a positional scheme (seqlab.nn.positional),
               same sizes, gradients to q, k, v and the scheme's parameters. seqlab computes the
               relative terms inside the fused kernel; torch gets the equivalent: its SDPA with the
               (1, 4, L, L) float bias materialised from the same parameters by ordinary ops (ALiBi,
               T5, Transformer-XL, DeBERTa; RoPE rotates q and k first), or explicit attention where
               the scheme is not an additive bias (Shaw's value term, DA's multiplier).
  generate     greedy decoding of 256 new tokens from a 1-token prompt, batch 1, with
               seqlab.nn.TransformerLM (d_model 256, 4 heads, 4 pre-LN layers, ff 1,024, vocabulary
               5,000, learned positions), eval mode, no_grad: seqlab with its key/value cache (one
               incremental step per token) and without it (every step re-encodes the sequence);
               torch is the same model in torch.nn re-encoding every step (torch.nn has no cache).
               Tokens per second; all three produce the same tokens.

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


SCHEMES = ("rope", "alibi", "t5", "shaw", "xl", "deberta", "da")
K_CLIP = 16  # Shaw's and DeBERTa's clipping distance


def scheme_params(kind, rng, H=HEADS, D=64):
    """The scheme's parameters, the same numbers for both libraries (numpy, float32)."""
    shapes = {"t5": {"relative_attention_bias": (32, H)},
              "shaw": {"relative_key": (2 * K_CLIP + 1, D), "relative_value": (2 * K_CLIP + 1, D)},
              "xl": {"r_w_bias": (H, D), "r_r_bias": (H, D), "r_net": (H * D, H * D)},
              "deberta": {"rel_embeddings": (2 * K_CLIP, H * D), "pos_key_proj_weight": (H * D, H * D),
                          "pos_key_proj_bias": (H * D,), "pos_query_proj_weight": (H * D, H * D),
                          "pos_query_proj_bias": (H * D,)},
              "da": {"distance_weight": (H,), "sigmoid_shift": (H,)}}.get(kind, {})
    return {n: (rng.standard_normal(s) * 0.05).astype(np.float32) for n, s in shapes.items()}


def torch_scheme_attention(kind, q, k, v, prm):
    """The scheme in torch: SDPA with the materialised (1, H, L, L) bias where it is one."""
    import math
    import torch.nn.functional as TF
    _, H, L, D = q.shape
    d = torch.arange(L)[:, None] - torch.arange(L)[None, :]
    causal = torch.zeros(L, L).masked_fill(d < 0, float("-inf"))
    if kind == "rope":
        ang = torch.arange(L, dtype=torch.float32)[:, None] * 10000.0 ** (-2 * torch.arange(D // 2) / D)
        cos, sin = torch.cos(ang), torch.sin(ang)

        def rot(x):
            a, b = x[..., 0::2], x[..., 1::2]
            return torch.stack([a * cos - b * sin, a * sin + b * cos], -1).flatten(-2)
        return TF.scaled_dot_product_attention(rot(q), rot(k), v, is_causal=True)
    if kind == "alibi":
        m = torch.tensor([2.0 ** (-8 * (h + 1) / H) for h in range(H)])
        return TF.scaled_dot_product_attention(q, k, v, attn_mask=-m[:, None, None] * d.abs() + causal)
    if kind == "t5":
        rel, n = (-d).clamp(max=0).neg(), 32  # causal buckets of j - i
        exact = n // 2
        large = (exact + (torch.log(rel.float().clamp(min=1) / exact) / math.log(128 / exact) * (n - exact)).long())
        bucket = torch.where(rel < exact, rel, large.clamp(max=n - 1))
        return TF.scaled_dot_product_attention(q, k, v, attn_mask=prm["relative_attention_bias"][bucket].permute(
            2, 0, 1) + causal)
    if kind == "xl":  # W_R R for the 2L − 1 distances, (q + v)·that, gathered by distance (XL's shift)
        c = torch.arange(H * D // 2)
        ang = torch.arange(-(L - 1), L, dtype=torch.float32)[:, None] * 10000.0 ** (-2 * c / (H * D))
        R = (torch.stack([torch.sin(ang), torch.cos(ang)], -1).flatten(-2) @ prm["r_net"].T).view(-1, H, D)
        qr = torch.einsum("bhld,rhd->bhlr", q + prm["r_r_bias"][None, :, None], R)
        bias = torch.gather(qr, 3, (d + L - 1).expand(1, H, L, L)) / math.sqrt(D)
        return TF.scaled_dot_product_attention(q + prm["r_w_bias"][None, :, None], k, v, attn_mask=bias + causal)
    if kind == "deberta":
        Pm = prm["rel_embeddings"]
        kr = (Pm @ prm["pos_key_proj_weight"].T + prm["pos_key_proj_bias"]).view(-1, H, D)
        qr = (Pm @ prm["pos_query_proj_weight"].T + prm["pos_query_proj_bias"]).view(-1, H, D)
        c2p = torch.gather(torch.einsum("bhld,rhd->bhlr", q, kr), 3,
                           (d.clamp(-K_CLIP, K_CLIP - 1) + K_CLIP).expand(1, H, L, L))
        p2c = torch.gather(torch.einsum("bhsd,rhd->bhsr", k, qr), 3,
                           (d.clamp(-K_CLIP, K_CLIP - 1) + K_CLIP).expand(1, H, L, L)).transpose(-1, -2)
        return TF.scaled_dot_product_attention(q, k, v, attn_mask=(c2p + p2c) / math.sqrt(3 * D) + causal,
                                               scale=1 / math.sqrt(3 * D))
    s = q @ k.transpose(-1, -2) / math.sqrt(D)
    if kind == "shaw":
        r = (-d).clamp(-K_CLIP, K_CLIP) + K_CLIP
        qa = torch.gather(q @ prm["relative_key"].T, 3, r.expand(1, H, L, L))
        p = torch.softmax(s + qa / math.sqrt(D) + causal, -1)
        onehot = torch.zeros(1, H, L, 2 * K_CLIP + 1).scatter_add_(3, r.expand(1, H, L, L), p)
        return p @ v + onehot @ prm["relative_value"]
    # da
    w, sh = prm["distance_weight"], prm["sigmoid_shift"]
    rhat = (1 + torch.exp(sh))[:, None, None] / (1 + torch.exp(sh[:, None, None] - w[:, None, None] * d.abs()))
    return torch.softmax(torch.relu(s) * rhat + causal, -1) @ v


def scheme_case(lib, kind, L, seed=0):
    rng = np.random.default_rng(seed)
    q, k, v = (lib.from_numpy(rng.standard_normal((1, HEADS, L, 64)).astype(np.float32)).requires_grad_()
               for _ in range(3))
    prm = {n: lib.from_numpy(a).requires_grad_() for n, a in scheme_params(kind, rng).items()}
    if lib is torch:
        def step():
            torch_scheme_attention(kind, q, k, v, prm).sum().backward()
        return step, 1
    from seqlab import _core
    scheme = _core.PositionalScheme(kind=kind, options=dict(num_heads=HEADS, max_relative_position=K_CLIP,
                                                            bidirectional=False), params=prm)

    def step():
        seqlab.nn.functional.positional_attention(q, k, v, scheme, is_causal=True).sum().backward()
    return step, 1


GEN_TOKENS = 256


class TorchLM(torch.nn.Module):
    """seqlab.nn.TransformerLM's layout in torch.nn (its state dict loads)."""

    def __init__(self, max_len):
        super().__init__()
        self.tok_emb = torch.nn.Embedding(VOCAB, D_MODEL)
        self.positional = torch.nn.Embedding(max_len, D_MODEL)
        self.layers = torch.nn.ModuleList([
            torch.nn.TransformerEncoderLayer(D_MODEL, HEADS, FF, 0.0, "gelu", batch_first=True, norm_first=True)
            for _ in range(LAYERS)])
        self.ln_f = torch.nn.LayerNorm(D_MODEL)
        self.lm_head = torch.nn.Linear(D_MODEL, VOCAB, bias=False)

    def forward(self, idx):
        L = idx.shape[1]
        x = self.tok_emb(idx) + self.positional(torch.arange(L))
        mask = torch.nn.Transformer.generate_square_subsequent_mask(L)
        for layer in self.layers:
            x = layer(x, src_mask=mask, is_causal=True)
        return self.lm_head(self.ln_f(x))


def generate_case(lib, use_cache, seed=0):
    seqlab.manual_seed(seed)
    model = seqlab.nn.TransformerLM(VOCAB, D_MODEL, HEADS, LAYERS, FF, dropout=0.0,
                                    positional=seqlab.nn.Embedding(GEN_TOKENS + 1, D_MODEL)).eval()
    if lib is torch:
        tmodel = TorchLM(GEN_TOKENS + 1).eval()
        tmodel.load_state_dict({k: torch.from_numpy(v.numpy().copy()) for k, v in model.state_dict().items()})

        def step():
            ids = torch.tensor([[1]])
            with torch.no_grad():
                for _ in range(GEN_TOKENS):
                    ids = torch.cat([ids, tmodel(ids)[:, -1].argmax(-1, keepdim=True)], 1)
            return ids
        return step, GEN_TOKENS

    def step():
        return model.generate(seqlab.tensor([[1]]), max_new_tokens=GEN_TOKENS, use_cache=use_cache)
    return step, GEN_TOKENS


# The peak resident memory one call adds: VmHWM is reset to the current RSS (clear_refs 5,
# Linux >= 4.0) after the inputs exist, so imports and inputs do not count.
CHILD = """
import sys
sys.path.insert(0, {bench!r})
lib = __import__({lib!r})
import torch
import transformer as b
lib.set_num_threads({threads})
step, _ = b.{case}(lib, {args})
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


def peak_mb(lib, case, args, threads):
    import os
    code = CHILD.format(bench=os.path.dirname(os.path.abspath(__file__)), lib=lib, threads=threads, case=case,
                        args=", ".join(map(repr, args)))
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
    print(timing.header())
    print(f"threads {args.threads}; seqlab vs torch {torch.__version__}")
    print(f"{'case':24s} {'first: seqlab':>14s} {'torch':>10s} {'ratio':>6s}   "
          f"{'steady: seqlab':>14s} {'torch':>10s} {'ratio':>6s}   {'peak MB: seqlab':>15s} {'torch':>7s}")
    cases = [("GPT step (tokens/s)", gpt_case, None)]
    for L in (1024, 4096):
        for causal in (False, True):
            name = f"sdpa L{L}{' causal' if causal else ''} (ms)"
            cases.append((name, (lambda lib, L=L, c=causal: sdpa_case(lib, L, c)), ("sdpa_case", (L, causal))))
    for use_cache in (True, False):
        cases.append((f"generate 256 {'cache' if use_cache else 'no cache'} (tok/s)",
                      (lambda lib, c=use_cache: generate_case(lib, c)), None))
    for kind in SCHEMES:
        for L in (1024, 4096):
            cases.append((f"{kind} L{L} causal (ms)", (lambda lib, kd=kind, L=L: scheme_case(lib, kd, L)),
                          ("scheme_case", (kind, L))))
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
