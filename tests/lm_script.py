"""PyTorch's word-level language model example (pytorch/examples, word_language_model: data.py,
model.py and main.py) written again as a PyTorch user writes it, with seqlab imported in
torch's place (the LSTM and the Transformer models). Run it, or call it
from a test:

    python tests/lm_script.py --model LSTM --epochs 1 --max-batches 300
    python tests/lm_script.py --model Transformer --nhead 2 --lr 5 --epochs 1 --max-batches 300
    validation_perplexity("LSTM", max_batches=300)      # -> float, the best validation perplexity

What differs from the example, and why: the corpus defaults to the King James Bible (Debian's
bible-kjv, split by seqlab.data.corpora.kjv and written out as train.txt / valid.txt /
test.txt, because nothing is downloaded); the checkpoint is `torch.save(model.state_dict(), f)`
(seqlab's checkpoints hold tensors, not pickled modules); there is no ONNX export or
--use-optimizer; --max-batches ends an epoch early (the example's --dry-run is max_batches=1).
Everything between the imports and prepare_kjv() is plain PyTorch code.
tests/test_lm_script_api.py runs this file with torch and with seqlab and compares them.
"""
import argparse
import math
import os
import time

import seqlab as torch
import seqlab.nn as nn
import seqlab.nn.functional as F


###############################################################################
# data.py: a corpus of train.txt / valid.txt / test.txt, one sentence a line
###############################################################################

class Dictionary(object):
    def __init__(self):
        self.word2idx = {}
        self.idx2word = []

    def add_word(self, word):
        if word not in self.word2idx:
            self.idx2word.append(word)
            self.word2idx[word] = len(self.idx2word) - 1
        return self.word2idx[word]

    def __len__(self):
        return len(self.idx2word)


class Corpus(object):
    def __init__(self, path):
        self.dictionary = Dictionary()
        self.train = self.tokenize(os.path.join(path, 'train.txt'))
        self.valid = self.tokenize(os.path.join(path, 'valid.txt'))
        self.test = self.tokenize(os.path.join(path, 'test.txt'))

    def tokenize(self, path):
        """One int64 tensor of word ids for the whole file, '<eos>' ending every line."""
        assert os.path.exists(path)
        with open(path, 'r', encoding="utf8") as f:
            for line in f:
                for word in line.split() + ['<eos>']:
                    self.dictionary.add_word(word)
        with open(path, 'r', encoding="utf8") as f:
            idss = []
            for line in f:
                ids = [self.dictionary.word2idx[word] for word in line.split() + ['<eos>']]
                idss.append(torch.tensor(ids).type(torch.int64))
            ids = torch.cat(idss)
        return ids


###############################################################################
# model.py: Dropout -> Embedding -> RNN/LSTM/GRU -> Dropout -> Linear decoder, or
# Embedding -> positional encoding -> Transformer encoder (causal mask) -> Linear decoder
###############################################################################

class RNNModel(nn.Module):
    """Container module with an encoder, a recurrent module, and a decoder."""

    def __init__(self, rnn_type, ntoken, ninp, nhid, nlayers, dropout=0.5, tie_weights=False):
        super(RNNModel, self).__init__()
        self.ntoken = ntoken
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        if rnn_type in ['LSTM', 'GRU']:
            self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=dropout)
        else:
            try:
                nonlinearity = {'RNN_TANH': 'tanh', 'RNN_RELU': 'relu'}[rnn_type]
            except KeyError as e:
                raise ValueError("An invalid option for `--model` was supplied, "
                                 "options are ['LSTM', 'GRU', 'RNN_TANH' or 'RNN_RELU']") from e
            self.rnn = nn.RNN(ninp, nhid, nlayers, nonlinearity=nonlinearity, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)

        # Tying the decoder to the embedding (Press & Wolf 2016, Inan et al. 2016): one
        # Parameter, registered under both names.
        if tie_weights:
            if nhid != ninp:
                raise ValueError('When using the tied flag, nhid must be equal to emsize')
            self.decoder.weight = self.encoder.weight

        self.init_weights()

        self.rnn_type = rnn_type
        self.nhid = nhid
        self.nlayers = nlayers

    def init_weights(self):
        initrange = 0.1
        nn.init.uniform_(self.encoder.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -initrange, initrange)

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output)
        decoded = decoded.view(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        if self.rnn_type == 'LSTM':
            return (weight.new_zeros(self.nlayers, bsz, self.nhid),
                    weight.new_zeros(self.nlayers, bsz, self.nhid))
        else:
            return weight.new_zeros(self.nlayers, bsz, self.nhid)


class PositionalEncoding(nn.Module):
    r"""Adds to each position of the sequence a fixed vector of sines and cosines of the position,
    at wavelengths from 2*pi to 10000*2*pi (Vaswani et al. 2017, section 3.5):

        PE(pos, 2i)   = sin(pos / 10000^(2i / d_model))
        PE(pos, 2i+1) = cos(pos / 10000^(2i / d_model))

    so that attention, which sees a set, can tell the order of the tokens; then dropout.
    x: (sequence length, batch size, d_model) -> the same shape. `pe` is a buffer: saved in the
    state dict, moved by .to(), never trained."""

    def __init__(self, d_model, dropout=0.1, max_len=5000):
        super(PositionalEncoding, self).__init__()
        self.dropout = nn.Dropout(p=dropout)

        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        pe = pe.unsqueeze(0).transpose(0, 1)
        self.register_buffer('pe', pe)

    def forward(self, x):
        x = x + self.pe[:x.size(0), :]
        return self.dropout(x)


class TransformerModel(nn.Transformer):
    """Container module with an encoder, a transformer module, and a decoder: nn.Transformer's
    encoder (its own decoder stack is replaced by the output layer), an embedding scaled by
    sqrt(ninp) plus positional encoding in front, and a causal mask so that position t only
    attends to positions <= t."""

    def __init__(self, ntoken, ninp, nhead, nhid, nlayers, dropout=0.5):
        super(TransformerModel, self).__init__(d_model=ninp, nhead=nhead, dim_feedforward=nhid,
                                               num_encoder_layers=nlayers)
        self.model_type = 'Transformer'
        self.src_mask = None
        self.pos_encoder = PositionalEncoding(ninp, dropout)

        self.input_emb = nn.Embedding(ntoken, ninp)
        self.ninp = ninp
        self.decoder = nn.Linear(ninp, ntoken)

        self.init_weights()

    def _generate_square_subsequent_mask(self, sz):
        """(sz, sz), added to the attention scores: 0 where a query may look (key <= query),
        -inf where it may not (the softmax gives those keys weight 0)."""
        mask = (torch.triu(torch.ones(sz, sz)) == 1).transpose(0, 1)
        mask = mask.float().masked_fill(mask == 0, float('-inf')).masked_fill(mask == 1, float(0.0))
        return mask

    def init_weights(self):
        initrange = 0.1
        nn.init.uniform_(self.input_emb.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -initrange, initrange)

    def forward(self, src, has_mask=True):
        if has_mask:
            device = src.device
            if self.src_mask is None or self.src_mask.size(0) != len(src):
                mask = self._generate_square_subsequent_mask(len(src)).to(device)
                self.src_mask = mask
        else:
            self.src_mask = None

        src = self.input_emb(src) * math.sqrt(self.ninp)
        src = self.pos_encoder(src)
        output = self.encoder(src, mask=self.src_mask)
        output = self.decoder(output)
        return F.log_softmax(output, dim=-1)


###############################################################################
# main.py: batching, truncated back-propagation through time, evaluation
###############################################################################

def batchify(data, bsz, device):
    """The token stream as bsz columns, (len // bsz, bsz): column j is the j-th slice of the
    stream. Columns are independent sequences; the remainder is dropped."""
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    data = data.view(bsz, -1).t().contiguous()
    return data.to(device)


def get_batch(source, i, bptt):
    """Rows i .. i+bptt-1 as input and the rows one step later, flattened, as targets."""
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i:i + seq_len]
    target = source[i + 1:i + 1 + seq_len].view(-1)
    return data, target


def repackage_hidden(h):
    """Wraps hidden states in new Tensors, to detach them from their history."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    else:
        return tuple(repackage_hidden(v) for v in h)


def evaluate(model, data_source, args, ntokens, eval_batch_size):
    """Average negative log-likelihood per token over data_source, dropout off."""
    model.eval()
    criterion = nn.NLLLoss()
    total_loss = 0.
    if args.model != 'Transformer':
        hidden = model.init_hidden(eval_batch_size)
    with torch.no_grad():
        for i in range(0, data_source.size(0) - 1, args.bptt):
            data, targets = get_batch(data_source, i, args.bptt)
            if args.model == 'Transformer':
                output = model(data)
                output = output.view(-1, ntokens)
            else:
                output, hidden = model(data, hidden)
                hidden = repackage_hidden(hidden)
            total_loss += len(data) * criterion(output, targets).item()
    return total_loss / (len(data_source) - 1)


def train(model, train_data, args, ntokens, lr, epoch):
    """One epoch (or args.max_batches batches) of SGD with gradient clipping; returns the
    loss of every batch."""
    model.train()
    criterion = nn.NLLLoss()
    total_loss = 0.
    losses = []
    start_time = time.time()
    if args.model != 'Transformer':
        hidden = model.init_hidden(args.batch_size)
    for batch, i in enumerate(range(0, train_data.size(0) - 1, args.bptt)):
        data, targets = get_batch(train_data, i, args.bptt)
        # Starting each batch, we detach the hidden state from how it was previously produced.
        # If we didn't, the model would try backpropagating all the way to start of the dataset.
        model.zero_grad()
        if args.model == 'Transformer':
            output = model(data)
            output = output.view(-1, ntokens)
        else:
            hidden = repackage_hidden(hidden)
            output, hidden = model(data, hidden)
        loss = criterion(output, targets)
        loss.backward()

        # `clip_grad_norm` helps prevent the exploding gradient problem in RNNs / LSTMs.
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)

        total_loss += loss.item()
        losses.append(loss.item())

        if batch % args.log_interval == 0 and batch > 0:
            cur_loss = total_loss / args.log_interval
            elapsed = time.time() - start_time
            print('| epoch {:3d} | {:5d}/{:5d} batches | lr {:02.2f} | ms/batch {:5.2f} | '
                  'loss {:5.2f} | ppl {:8.2f}'.format(
                      epoch, batch, len(train_data) // args.bptt, lr,
                      elapsed * 1000 / args.log_interval, cur_loss, math.exp(cur_loss)))
            total_loss = 0
            start_time = time.time()
        if args.max_batches is not None and batch + 1 >= args.max_batches:
            break
    return losses


def run(args, model=None):
    """main.py: train for args.epochs, keep the checkpoint with the best validation loss
    (annealing lr by 4 when validation does not improve), reload it, test it. `model`
    replaces the RNNModel or TransformerModel the arguments describe (tests pass one with
    known weights).
    Returns {'valid_ppl': best validation perplexity, 'test_ppl', 'losses', 'model'}."""
    torch.manual_seed(args.seed)
    if args.accel and torch.accelerator.is_available():
        device = torch.accelerator.current_accelerator()
    else:
        device = torch.device("cpu")

    corpus = Corpus(args.data)
    eval_batch_size = 10
    train_data = batchify(corpus.train, args.batch_size, device)
    val_data = batchify(corpus.valid, eval_batch_size, device)
    test_data = batchify(corpus.test, eval_batch_size, device)

    ntokens = len(corpus.dictionary)
    if model is None:
        if args.model == 'Transformer':
            model = TransformerModel(ntokens, args.emsize, args.nhead, args.nhid, args.nlayers, args.dropout)
        else:
            model = RNNModel(args.model, ntokens, args.emsize, args.nhid, args.nlayers, args.dropout, args.tied)
    model = model.to(device)

    lr = args.lr
    best_val_loss = None
    losses = []
    for epoch in range(1, args.epochs + 1):
        epoch_start_time = time.time()
        losses += train(model, train_data, args, ntokens, lr, epoch)
        val_loss = evaluate(model, val_data, args, ntokens, eval_batch_size)
        print('-' * 89)
        print('| end of epoch {:3d} | time: {:5.2f}s | valid loss {:5.2f} | '
              'valid ppl {:8.2f}'.format(epoch, (time.time() - epoch_start_time), val_loss, math.exp(val_loss)))
        print('-' * 89)
        # Save the model if the validation loss is the best we've seen so far.
        if not best_val_loss or val_loss < best_val_loss:
            with open(args.save, 'wb') as f:
                torch.save(model.state_dict(), f)
            best_val_loss = val_loss
        else:
            # Anneal the learning rate if no improvement has been seen in the validation dataset.
            lr /= 4.0

    # Load the best saved model.
    with open(args.save, 'rb') as f:
        model.load_state_dict(torch.load(f))
        # after load the rnn params are not a continuous chunk of memory
        # this makes them a continuous chunk, and will speed up forward pass
        # Currently, only rnn model supports flatten_parameters function.
        if args.model in ['RNN_TANH', 'RNN_RELU', 'LSTM', 'GRU']:
            model.rnn.flatten_parameters()

    test_loss = evaluate(model, test_data, args, ntokens, eval_batch_size)
    print('=' * 89)
    print('| End of training | test loss {:5.2f} | test ppl {:8.2f}'.format(test_loss, math.exp(test_loss)))
    print('=' * 89)
    return {'valid_ppl': math.exp(best_val_loss), 'test_ppl': math.exp(test_loss), 'losses': losses, 'model': model}


def build_parser():
    parser = argparse.ArgumentParser(description='seqlab word-level RNN/LSTM/GRU/Transformer language model '
                                                 '(as PyTorch\'s example)')
    parser.add_argument('--data', type=str, default=None,
                        help='directory with train.txt, valid.txt, test.txt (default: the KJV Bible)')
    parser.add_argument('--model', type=str, default='LSTM',
                        help='type of network (RNN_TANH, RNN_RELU, LSTM, GRU, Transformer)')
    parser.add_argument('--emsize', type=int, default=200, help='size of word embeddings')
    parser.add_argument('--nhid', type=int, default=200, help='number of hidden units per layer')
    parser.add_argument('--nlayers', type=int, default=2, help='number of layers')
    parser.add_argument('--lr', type=float, default=20, help='initial learning rate')
    parser.add_argument('--clip', type=float, default=0.25, help='gradient clipping')
    parser.add_argument('--epochs', type=int, default=40, help='upper epoch limit')
    parser.add_argument('--batch_size', type=int, default=20, metavar='N', help='batch size')
    parser.add_argument('--bptt', type=int, default=35, help='sequence length')
    parser.add_argument('--dropout', type=float, default=0.2, help='dropout applied to layers (0 = no dropout)')
    parser.add_argument('--tied', action='store_true', help='tie the word embedding and softmax weights')
    parser.add_argument('--seed', type=int, default=1111, help='random seed')
    parser.add_argument('--log-interval', type=int, default=200, metavar='N', help='report interval')
    parser.add_argument('--save', type=str, default='model.pt', help='path to save the final model')
    parser.add_argument('--nhead', type=int, default=2,
                        help='the number of heads in the encoder/decoder of the transformer model')
    parser.add_argument('--accel', action='store_true', help='Enables accelerated training')
    parser.add_argument('--max-batches', type=int, default=None, help='end each epoch after this many batches')
    return parser


###############################################################################
# Not in the example: the KJV corpus as files, and the entry point for tests
###############################################################################

def prepare_kjv(directory, max_lines=None):
    """Write seqlab's KJV word-level split (lowercased tokens, one verse a line) as
    train.txt / valid.txt / test.txt in `directory` (the first max_lines verses of each, if
    given); returns `directory`. Needs Debian's bible-kjv."""
    from seqlab.data.corpora import kjv

    corpus = kjv("word")
    os.makedirs(directory, exist_ok=True)
    for split in ("train", "valid", "test"):
        lines = corpus.lines(split)[:max_lines]
        path = os.path.join(directory, split + ".txt")
        with open(path + ".tmp", "w", encoding="utf8") as f:
            f.writelines(" ".join(verse) + "\n" for verse in lines)
        os.replace(path + ".tmp", path)
    return directory


def _default_data(max_lines=None):
    from seqlab.data.corpora import cache_dir

    suffix = "" if max_lines is None else f"-{max_lines}"
    directory = os.path.join(cache_dir(), "word-language-model-kjv" + suffix)
    if not os.path.exists(os.path.join(directory, "test.txt")):
        prepare_kjv(directory, max_lines)
    return directory


def validation_perplexity(rnn_type, data=None, max_lines=None, save=None, **options):
    """Train rnn_type ('LSTM', 'GRU', 'RNN_TANH', 'RNN_RELU', 'Transformer') with main.py's
    defaults, overridden by `options` (the argparse names: emsize, nhid, nlayers, nhead, lr, clip,
    epochs, batch_size, bptt, dropout, tied, seed, log_interval, max_batches), on `data` (default:
    the KJV Bible, its first max_lines verses per split if given); returns the best
    validation perplexity. The checkpoint goes to `save` (default: a temporary file)."""
    import tempfile

    args = build_parser().parse_args([])
    args.model = rnn_type
    args.data = data if data is not None else _default_data(max_lines)
    for name, value in options.items():
        if not hasattr(args, name):
            raise TypeError(f"validation_perplexity() got an unexpected keyword argument '{name}'")
        setattr(args, name, value)
    with tempfile.TemporaryDirectory() as tmp:
        args.save = save if save is not None else os.path.join(tmp, "model.pt")
        return run(args)['valid_ppl']


if __name__ == '__main__':
    args = build_parser().parse_args()
    if args.data is None:
        args.data = _default_data()
    run(args)
