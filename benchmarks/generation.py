"""Generation with and without the key/value cache (issue 14, item 3): greedy decoding of 256
new tokens from a 1-token prompt, batch 1, with seqlab.nn.TransformerLM (d_model 256, 4 heads,
4 pre-LN layers, ff 1,024, vocabulary 5,000, learned positions), eval mode, no_grad.

  cache       one incremental step per token (the new token's q, k, v; attention over the cache)
  no cache    every step re-encodes the whole sequence (what a model without a cache must do)
  torch       the same model in torch.nn, re-encoding every step (torch.nn has no cache)

One timed run each after one warm-up run of 16 tokens (a one-off measurement, not a test).

    python benchmarks/generation.py [--threads 2] [--new-tokens 256]
"""
import argparse
import time

import torch

import seqlab
from seqlab.generation import generate

VOCAB, D_MODEL, HEADS, LAYERS, FF = 5_000, 256, 4, 4, 1_024


class TorchLM(torch.nn.Module):
    """seqlab.nn.TransformerLM's layout in torch.nn (the state dict loads)."""

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


def torch_greedy(model, ids, n):
    with torch.no_grad():
        for _ in range(n):
            ids = torch.cat([ids, model(ids)[:, -1].argmax(-1, keepdim=True)], 1)
    return ids


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--new-tokens", type=int, default=256)
    args = ap.parse_args()
    seqlab.set_num_threads(args.threads)
    torch.set_num_threads(args.threads)
    n = args.new_tokens
    seqlab.manual_seed(0)
    model = seqlab.nn.TransformerLM(VOCAB, D_MODEL, HEADS, LAYERS, FF, dropout=0.0,
                                    positional=seqlab.nn.Embedding(n + 1, D_MODEL)).eval()
    tmodel = TorchLM(n + 1).eval()
    tmodel.load_state_dict({k: torch.from_numpy(v.numpy().copy()) for k, v in model.state_dict().items()})
    prompt = seqlab.tensor([[1]])
    for use_cache in (True, False):  # warm-up
        generate(model, prompt, max_new_tokens=16, use_cache=use_cache)
    torch_greedy(tmodel, torch.tensor([[1]]), 16)
    t_cache, a = timed(lambda: generate(model, prompt, max_new_tokens=n, use_cache=True))
    t_full, b = timed(lambda: generate(model, prompt, max_new_tokens=n, use_cache=False))
    t_torch, c = timed(lambda: torch_greedy(tmodel, torch.tensor([[1]]), n))
    same = a.tolist() == b.tolist() == c.tolist()
    print(f"greedy, {n} new tokens, batch 1, {args.threads} threads (tokens equal in all three: {same})")
    print(f"  seqlab with the cache     {t_cache:8.3f} s   {1e3 * t_cache / n:7.2f} ms/token")
    print(f"  seqlab without the cache  {t_full:8.3f} s   {1e3 * t_full / n:7.2f} ms/token   "
          f"cache speed-up {t_full / t_cache:.1f}x")
    print(f"  torch without a cache     {t_torch:8.3f} s   {1e3 * t_torch / n:7.2f} ms/token")


if __name__ == "__main__":
    main()
