"""Recurrent layers: seqlab against torch, same process, same threads, tokens per second.

  layer fwd+bwd   2-layer LSTM / GRU / tanh RNN, input 200, hidden 200 (and 650), batch 20,
                  sequence 35: forward, sum of the output, backward
  word LM step    embedding, 2-layer LSTM (or GRU), linear decoder tied to the embedding,
                  cross-entropy, backward, clip_grad_norm_(0.25), SGD: vocab 10,000, batch 20,
                  BPTT 35, embedding = hidden = 200 (and 650) (PyTorch's word_language_model)
  inference       1-layer LSTM over a 1,000-step sequence, batch 1, no grad
  packed          2-layer LSTM and GRU, hidden 200, batch 20, lengths uniform in [5, 35]
  proj_size       2-layer LSTM, hidden 200, proj_size 100, batch 20, sequence 35

Each line: seqlab tokens/s, torch tokens/s, their ratio (> 1: seqlab is faster), for the
first call and the steady state (median of repeated blocks, both orders; benchmarks/timing.py).

    python benchmarks/recurrent.py [--threads 2] [--repeats 5] [--min-time 0.3] [--quick]
"""
import argparse
import warnings

import numpy as np
import torch

# torch says, for proj_size, that oneDNN does not do it: known, and the case says so.
warnings.filterwarnings("ignore", message="LSTM with projections is not supported with oneDNN")

import seqlab  # noqa: E402
import seqlab.nn.utils  # noqa: F401  (seqlab.nn.utils.rnn for the packed cases)
import timing  # noqa: E402


def layer_case(lib, kind, hidden, proj=0, packed=False, seed=0):
    rng = np.random.default_rng(seed)
    T, B, I = 35, 20, 200
    kw = dict(proj_size=proj) if proj else {}
    m = getattr(lib.nn, kind)(I, hidden, num_layers=2, **kw)
    x = lib.from_numpy(rng.standard_normal((T, B, I)).astype(np.float32)).requires_grad_()
    if packed:
        lengths = sorted(rng.integers(5, 36, size=B).tolist(), reverse=True)
        pack = lib.nn.utils.rnn.pack_padded_sequence
        tokens = sum(lengths)

        def step():
            out, _ = m(pack(x, lengths))
            out.data.sum().backward()
        return step, tokens

    def step():
        out, _ = m(x)
        out.sum().backward()
    return step, T * B


class WordLM:
    """PyTorch's examples/word_language_model RNNModel, written against `lib`."""

    def __init__(self, lib, kind, vocab, hidden):
        nn = lib.nn
        self.lib = lib
        self.drop = nn.Dropout(0.2)
        self.encoder = nn.Embedding(vocab, hidden)
        self.rnn = getattr(nn, kind)(hidden, hidden, 2, dropout=0.2)
        self.decoder = nn.Linear(hidden, vocab)
        self.decoder.weight = self.encoder.weight
        self.params = list({id(p): p for mod in (self.encoder, self.rnn, self.decoder)
                            for p in mod.parameters()}.values())

    def __call__(self, x, hidden):
        emb = self.drop(self.encoder(x))
        out, hidden = self.rnn(emb, hidden)
        out = self.drop(out)
        return self.decoder(out), hidden


def lm_case(lib, kind, hidden, seed=0):
    rng = np.random.default_rng(seed)
    vocab, T, B = 10_000, 35, 20
    model = WordLM(lib, kind, vocab, hidden)
    data = lib.from_numpy(rng.integers(0, vocab, size=(T + 1, B)).astype(np.int64))
    x, y = data[:-1], data[1:].reshape(-1)
    zeros = lib.zeros(2, B, hidden)
    state = {"h": (zeros, zeros) if kind == "LSTM" else zeros}
    F = lib.nn.functional

    def step():
        h = state["h"]
        h = tuple(t.detach() for t in h) if isinstance(h, tuple) else h.detach()
        for p in model.params:
            p.grad = None
        out, h = model(x, h)
        loss = F.cross_entropy(out.reshape(-1, vocab), y)
        loss.backward()
        lib.nn.utils.clip_grad_norm_(model.params, 0.25)
        with lib.no_grad():
            for p in model.params:
                p.add_(p.grad, alpha=-20.0)
        state["h"] = h
    return step, T * B


def inference_case(lib, seed=0):
    rng = np.random.default_rng(seed)
    m = lib.nn.LSTM(200, 200)
    x = lib.from_numpy(rng.standard_normal((1000, 1, 200)).astype(np.float32))

    def step():
        with lib.no_grad():
            m(x)
    return step, 1000


CASES = [
    ("layer LSTM h200", lambda lib: layer_case(lib, "LSTM", 200)),
    ("layer GRU h200", lambda lib: layer_case(lib, "GRU", 200)),
    ("layer RNN-tanh h200", lambda lib: layer_case(lib, "RNN", 200)),
    ("layer LSTM h650", lambda lib: layer_case(lib, "LSTM", 650)),
    ("layer GRU h650", lambda lib: layer_case(lib, "GRU", 650)),
    ("layer RNN-tanh h650", lambda lib: layer_case(lib, "RNN", 650)),
    ("LM step LSTM h200", lambda lib: lm_case(lib, "LSTM", 200)),
    ("LM step GRU h200", lambda lib: lm_case(lib, "GRU", 200)),
    ("LM step LSTM h650", lambda lib: lm_case(lib, "LSTM", 650)),
    ("LM step GRU h650", lambda lib: lm_case(lib, "GRU", 650)),
    ("inference LSTM T1000 b1", inference_case),
    ("packed LSTM h200", lambda lib: layer_case(lib, "LSTM", 200, packed=True)),
    ("packed GRU h200", lambda lib: layer_case(lib, "GRU", 200, packed=True)),
    ("proj LSTM h200 p100", lambda lib: layer_case(lib, "LSTM", 200, proj=100)),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=0.3)
    ap.add_argument("--quick", action="store_true", help="h200 cases only")
    ap.add_argument("--only", default="", help="run the cases whose name contains this")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    seqlab.set_num_threads(args.threads)
    print(timing.header())
    print(f"threads {args.threads}; tokens/s, seqlab vs torch {torch.__version__}")
    print(f"{'case':26s} {'first: seqlab':>14s} {'torch':>10s} {'ratio':>6s}   "
          f"{'steady: seqlab':>14s} {'torch':>10s} {'ratio':>6s}")
    for name, make in CASES:
        if args.quick and "650" in name or args.only not in name:
            continue
        f_s, f_t = (units / sec for sec, units in (timing.first_call(make, seqlab), timing.first_call(make, torch)))
        fs, tokens = make(seqlab)
        ft, _ = make(torch)
        s_sec, t_sec = timing.steady_seconds([fs, ft], args.repeats, args.min_time, warmup=2)
        print(f"{name:26s} {f_s:14,.0f} {f_t:10,.0f} {f_s / f_t:6.2f}   "
              f"{tokens / s_sec:14,.0f} {tokens / t_sec:10,.0f} {t_sec / s_sec:6.2f}", flush=True)


if __name__ == "__main__":
    main()
