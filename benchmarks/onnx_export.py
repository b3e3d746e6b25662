"""seqlab.onnx.export against torch.onnx.export (the TorchScript exporter, dynamo=False) on
pytorch/examples' word_language_model RNNModel (Embedding, 2-layer LSTM, Linear with tied
weights; the hidden state in and out), same weights: the time to export, and the time
onnxruntime takes to run each file on the same batch (seqlab's file keeps the LSTM weights as
the state dict's initializers plus gate-reordering nodes, torch's folds them into new ones).

    python benchmarks/onnx_export.py [--threads 2] [--repeats 5] [--min-time 0.2]
"""
import argparse
import io
import os
import statistics
import sys
import time
import warnings

import numpy as np
import onnxruntime as ort
import torch

import seqlab
import timing

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
from test_onnx import RNNModel  # noqa: E402  (the example's model, written for seqlab)


class TorchRNNModel(torch.nn.Module):
    """The same model in torch (word_language_model/model.py, LSTM branch)."""

    def __init__(self, ntoken, ninp, nhid, nlayers):
        super().__init__()
        self.ntoken = ntoken
        self.drop = torch.nn.Dropout(0.2)
        self.encoder = torch.nn.Embedding(ntoken, ninp)
        self.rnn = torch.nn.LSTM(ninp, nhid, nlayers, dropout=0.2)
        self.decoder = torch.nn.Linear(nhid, ntoken)
        self.decoder.weight = self.encoder.weight

    def forward(self, input, hidden):
        output, hidden = self.rnn(self.drop(self.encoder(input)), hidden)
        decoded = self.decoder(self.drop(output)).view(-1, self.ntoken)
        return torch.nn.functional.log_softmax(decoded, dim=1), hidden


def seconds(fn, repeats):
    out = []
    for _ in range(repeats):
        time.sleep(timing.PAUSE)
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return statistics.median(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--min-time", type=float, default=0.2)
    args = parser.parse_args()
    seqlab.set_num_threads(args.threads)
    torch.set_num_threads(args.threads)
    warnings.filterwarnings("ignore")
    ntoken, emsize, nlayers, bptt, batch = 10000, 200, 2, 35, 20     # the example's sizes (its vocabulary smaller)
    theirs = TorchRNNModel(ntoken, emsize, emsize, nlayers).eval()
    ours = RNNModel("LSTM", ntoken, emsize, emsize, nlayers, dropout=0.2, tie_weights=True).eval()
    ours.load_state_dict({k: seqlab.from_numpy(v.detach().numpy().copy()) for k, v in theirs.state_dict().items()})
    tokens = np.random.default_rng(0).integers(0, ntoken, (bptt, batch))
    h = np.zeros((nlayers, batch, emsize), np.float32)
    our_args = (seqlab.from_numpy(tokens), (seqlab.from_numpy(h), seqlab.from_numpy(h.copy())))
    their_args = (torch.from_numpy(tokens), (torch.from_numpy(h), torch.from_numpy(h.copy())))
    files = {}

    def export_ours():
        buf = io.BytesIO()
        seqlab.onnx.export(ours, our_args, buf, input_names=["input", "h0", "c0"])
        files["seqlab"] = buf.getvalue()

    def export_theirs():
        buf = io.BytesIO()
        torch.onnx.export(theirs, their_args, buf, dynamo=False, input_names=["input", "h0", "c0"])
        files["torch"] = buf.getvalue()

    print(timing.header())
    print(f"threads: seqlab {seqlab.get_num_threads()}, torch {torch.get_num_threads()}, onnxruntime "
          f"{ort.__version__}; RNNModel LSTM ntoken={ntoken} emsize=nhid={emsize} nlayers={nlayers}, "
          f"input ({bptt}, {batch})\n")
    print(f"{'case':44s}{'seqlab ms':>12s}{'torch ms':>12s}{'ratio':>8s}")
    a, b = seconds(export_ours, args.repeats), seconds(export_theirs, args.repeats)
    print(f"{'export (median of ' + str(args.repeats) + ')':44s}{a * 1e3:12.1f}{b * 1e3:12.1f}{a / b:8.2f}")
    options = ort.SessionOptions()
    options.intra_op_num_threads = args.threads
    sessions = {k: ort.InferenceSession(v, options, providers=["CPUExecutionProvider"]) for k, v in files.items()}
    feed = {"input": tokens, "h0": h, "c0": h}
    outs = {k: s.run(None, feed)[0] for k, s in sessions.items()}
    assert np.allclose(outs["seqlab"], outs["torch"], atol=1e-5), "the two files disagree"
    a, b = timing.steady_seconds([lambda: sessions["seqlab"].run(None, feed), lambda: sessions["torch"].run(None, feed)],
                                 args.repeats, args.min_time)
    print(f"{'onnxruntime run of the exported file':44s}{a * 1e3:12.3f}{b * 1e3:12.3f}{a / b:8.2f}")
    print(f"{'file size (MB)':44s}{len(files['seqlab']) / 1e6:12.2f}{len(files['torch']) / 1e6:12.2f}"
          f"{len(files['seqlab']) / len(files['torch']):8.2f}")


if __name__ == "__main__":
    main()
