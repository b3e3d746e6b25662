"""The cases of tests/test_fuzz_api.py, run inside the fuzz worker (tests/fuzz_worker.py): seqlab's
data API, NGram and the embedding models, each on arguments hypothesis drew, each checked in the
child against its oracle (torch's data utilities, gensim's vocabulary rules, a direct count) or
against what must hold whatever the arguments (the next-token probabilities sum to 1, a score is
the sum of its tokens' log-probabilities). A case returns a short verdict when seqlab is right or
refuses clearly; it raises Wrong when seqlab returns a wrong answer or refuses unclearly."""
import collections
import math
import os
import re
import tempfile
import warnings

import numpy as np
import torch

import seqlab
from seqlab import data as sd
from seqlab.lm import NGram

# What a clear refusal may be: the Python exceptions of a bad argument, each naming the function.
CLEAR = (TypeError, ValueError, RuntimeError, KeyError, IndexError, NotImplementedError)


class Wrong(AssertionError):
    """seqlab returned a wrong answer, or refused without a clear error."""


def _builtin(exc_type):
    return next(c for c in exc_type.__mro__ if c.__module__ == "builtins")


def attempt(fn):
    """("ok", value) or ("exc", exception)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return "ok", fn()
    except Exception as e:  # every exception is an answer here
        return "exc", e


def attempt_loud(fn):
    """attempt() that leaves the warnings to the caller."""
    try:
        return "ok", fn()
    except Exception as e:  # every exception is an answer here
        return "exc", e


def refused(exc, names, oracle=None):
    """A verdict for seqlab's exception `exc`: clear when it is one of CLEAR and its message names
    one of `names`, or when the oracle raised the same builtin type; else Wrong."""
    if oracle is not None and oracle[0] == "exc" and isinstance(exc, _builtin(type(oracle[1]))):
        return f"both raise {type(exc).__name__}"
    if not isinstance(exc, CLEAR):
        raise Wrong(f"unclear error {type(exc).__name__}: {exc}")
    if not any(n in str(exc) for n in names):
        raise Wrong(f"the error names none of {names}: {type(exc).__name__}: {exc}")
    return f"refused: {type(exc).__name__}"


def expect(cond, what):
    if not cond:
        raise Wrong(what)


# ------------------------------------------------------------------ building inputs from JSON
NP = {"int64": np.int64, "int32": np.int32, "uint8": np.uint8, "float32": np.float32, "float64": np.float64,
      "bool": np.bool_}


def ids_input(spec):
    """A sequence as the user may pass it: {"as": "list"|"numpy"|"tensor", "dtype", "values"}."""
    values = spec["values"]
    if spec["as"] == "list":
        return list(values)
    if spec["as"] == "numpy":
        return np.array(values, dtype=NP[spec["dtype"]])
    dtype = spec["dtype"] if spec["dtype"] in ("int64", "float32", "float64", "bool") else "int64"
    return seqlab.from_numpy(np.array(values, dtype=NP[dtype]))  # the dtypes seqlab has


def to_torch(x):
    if isinstance(x, seqlab.Tensor):
        return torch.from_numpy(np.array(x.numpy()))
    if isinstance(x, np.ndarray):
        return torch.from_numpy(x.copy())
    return torch.tensor(x)


def plain(x):
    """A seqlab or torch result as nested Python values with dtype names, to compare."""
    if isinstance(x, (seqlab.Tensor, torch.Tensor)):
        return ("tensor", str(x.dtype).split(".")[-1], tuple(x.shape), np.asarray(x.tolist()).tolist())
    if isinstance(x, (list, tuple)):  # torch's default_collate makes a list of a tuple
        return ["seq"] + [plain(v) for v in x]
    if isinstance(x, dict):
        return {k: plain(v) for k, v in x.items()}
    return x


def same(a, b):
    """plain() values equal, NaN equal to NaN."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b


# ------------------------------------------------------------------ data: Vocab
def vocab(sequences, min_freq, max_size, specials, probe, ids):
    kwargs = {"min_freq": min_freq, "max_size": max_size}
    if specials != "default":
        kwargs["specials"] = specials
    got = attempt(lambda: sd.Vocab.build(sequences, **kwargs))
    specials = sd.SPECIALS if specials == "default" else specials
    if isinstance(specials, str):  # a str would silently be its characters
        expect(got[0] == "exc", f"specials={specials!r} gave {got}")
        return refused(got[1], ["Vocab"])
    if got[0] == "exc":
        return refused(got[1], ["Vocab"])
    v = got[1]
    expect(all(isinstance(t, str) for seq in sequences for t in seq), "a non-str token was accepted")
    expect(isinstance(min_freq, int) and min_freq >= 1, f"min_freq={min_freq!r} was accepted")
    expect(max_size is None or (isinstance(max_size, int) and max_size >= 0), f"max_size={max_size!r} was accepted")
    counts = collections.Counter(t for seq in sequences for t in seq)
    ranked = sorted((t for t, c in counts.items() if c >= min_freq and t not in specials), key=lambda t: (-counts[t], t))
    expected = list(specials) + ranked[:max_size]
    expect(v.itos == expected, f"itos {v.itos} != {expected}")
    expect(all(v.stoi[t] == i for i, t in enumerate(v.itos)), "stoi is not the inverse of itos")
    unk = v.unk_index
    enc = attempt(lambda: v.encode(probe))
    if unk is None and any(t not in v.stoi for t in probe):
        expect(enc[0] == "exc" and isinstance(enc[1], KeyError), f"an unknown token without <unk> gave {enc}")
    else:
        expect(enc == ("ok", [v.stoi.get(t, unk) for t in probe]), f"encode({probe}) gave {enc}")
    known = [t for t in probe if t in v.stoi]
    expect(v.decode(v.encode(known)) == known, f"decode(encode({known})) != itself")
    for i in ids:
        got = attempt(lambda: v.lookup_token(i))
        if isinstance(i, int) and 0 <= i < len(v):  # (a bool is an int, as for list indices)
            expect(got == ("ok", v.itos[i]), f"lookup_token({i}) gave {got}")
        else:
            expect(got[0] == "exc", f"lookup_token({i!r}) returned {got[1]!r}")
            refused(got[1], ["Vocab"])
    got = attempt(lambda: v.decode(ids))
    if all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < len(v) for i in ids):
        expect(got == ("ok", [v.itos[i] for i in ids]), f"decode({ids}) gave {got}")
    else:
        expect(got[0] == "exc", f"decode({ids!r}) returned {got[1]!r}")
        refused(got[1], ["Vocab"])
    return "ok"


# ------------------------------------------------------------------ data: tokenizers
def tokenize(kind, text, lower, split_punctuation):
    tok = sd.CharTokenizer(lower=lower) if kind == "char" else \
        sd.WordTokenizer(lower=lower, split_punctuation=split_punctuation)
    got = attempt(lambda: tok(text))
    if not isinstance(text, str):
        expect(got[0] == "exc" and isinstance(got[1], TypeError), f"{kind} tokenizer on {text!r} gave {got}")
        return refused(got[1], ["Tokenizer"])
    if got[0] == "exc":
        raise Wrong(f"{type(got[1]).__name__} on a str: {got[1]}")
    tokens, source = got[1], text.lower() if lower else text
    if kind == "char":
        expect(tokens == list(source), f"{tokens} are not the characters of {source!r}")
        expect(tok.detokenize(tokens) == source, "detokenize(tokenize(s)) != s")
        return "ok"
    expect(all(t and not any(c.isspace() for c in t) for t in tokens), f"an empty or spaced token in {tokens}")
    expect("".join(tokens) == "".join(source.split()), f"{tokens} lost or added characters of {source!r}")
    again = tok(tok.detokenize(tokens))
    expect(again == tokens, f"tokenize(detokenize({tokens})) = {again}")
    return "ok"


# ------------------------------------------------------------------ data: LM batching
def batchify(data, batch_size):
    ids = ids_input(data)
    bsz = np.int64(batch_size["value"]) if batch_size["numpy"] else batch_size["value"]

    def oracle():  # PyTorch's examples/word_language_model/main.py
        t = to_torch(ids)
        nbatch = t.size(0) // bsz
        return t.narrow(0, 0, nbatch * bsz).view(bsz, -1).t().contiguous()

    want, got = attempt(oracle), attempt(lambda: sd.batchify(ids, bsz))
    if got[0] == "exc":
        return refused(got[1], ["batchify"], want)
    expect(want[0] == "ok", f"torch raises {want[1]!r}, seqlab returns {plain(got[1])}")
    expect(data["as"] == "list" or data["dtype"] not in ("float32", "float64", "bool") or not data["values"],
           "a stream of non-integers was batchified")
    expect(same(plain(got[1]), plain(want[1].to(torch.int64))), f"{plain(got[1])} != torch {plain(want[1])}")
    expect(got[1].is_contiguous(), "batchify's result is not contiguous")
    return "ok"


def get_batch(rows, cols, i, bptt):
    source = seqlab.arange(rows * cols).reshape(rows, cols) if cols else seqlab.arange(rows)
    i = np.int64(i["value"]) if i["numpy"] else i["value"]

    def oracle():  # PyTorch's example, on a batchified source
        src = torch.arange(rows * cols).reshape(rows, cols) if cols else torch.arange(rows)
        seq_len = min(bptt, len(src) - 1 - i)
        return src[i:i + seq_len], src[i + 1:i + 1 + seq_len]

    want, got = attempt(oracle), attempt(lambda: sd.get_batch(source, i, bptt))
    if got[0] == "exc":
        return refused(got[1], ["get_batch"], want)
    expect(want[0] == "ok", f"torch raises {want[1]!r}, seqlab returns {plain(got[1])}")
    expect(isinstance(bptt, int) and bptt >= 1 and 0 <= i < rows - 1, f"i={i!r}, bptt={bptt!r} were accepted")
    expect(same(plain(got[1]), plain(want[1])), f"{plain(got[1])} != torch {plain(want[1])}")
    windows = attempt(lambda: list(sd.BPTTBatches(source, bptt)))
    expect(windows[0] == "ok", f"BPTTBatches failed: {windows[1]!r}")
    windows = windows[1]
    expect(len(windows) == len(sd.BPTTBatches(source, bptt)), "len(BPTTBatches) != the windows it yields")
    inputs = [r for x, _ in windows for r in x.tolist()]
    targets = [r for _, y in windows for r in y.tolist()]
    expect(inputs == source.tolist()[:-1] and targets == source.tolist()[1:], "BPTT windows do not tile the source")
    return "ok"


def _pad_inputs(seqs):
    return [ids_input(s) for s in seqs]


def pad(seqs, batch_first, padding_value, collate):
    inputs = _pad_inputs(seqs)

    def oracle():
        return torch.nn.utils.rnn.pad_sequence([to_torch(x) for x in inputs], batch_first=batch_first,
                                               padding_value=padding_value)

    want = attempt(oracle)
    if collate:
        got = attempt(lambda: sd.PadCollate(padding_value, batch_first)(inputs))
        name = "pad_collate"
    else:
        got = attempt(lambda: sd.pad_sequence(inputs, batch_first=batch_first, padding_value=padding_value))
        name = "pad_sequence"
    if got[0] == "exc":
        return refused(got[1], [name], want)
    padded = got[1][0] if collate else got[1]
    kinds = {np.asarray(x.numpy() if isinstance(x, seqlab.Tensor) else x).dtype.kind for x in inputs
             if len(x)}
    foreign = any(to_torch(x).dtype not in (torch.int64, torch.float32, torch.float64, torch.bool) for x in inputs)
    if want[0] == "exc":
        # seqlab promotes sequences of different dtypes, which torch refuses, and pads int32 or uint8
        # sequences as int64 (its one integer dtype), where torch's range check is uint8's; nothing else
        expect(len(kinds) > 1 or len({str(to_torch(x).dtype) for x in inputs}) > 1 or foreign,
               f"torch raises {type(want[1]).__name__}: {want[1]} but seqlab returns {plain(padded)}")
        return "promoted"
    if len({str(to_torch(x).dtype) for x in inputs}) == 1 and all(len(x) or not isinstance(x, list) for x in inputs):
        theirs = want[1]
        if not theirs.is_floating_point() and theirs.dtype != torch.bool:
            theirs = theirs.to(torch.int64)  # seqlab's one integer dtype
        expect(same(plain(padded), plain(theirs)), f"{plain(padded)} != torch {plain(want[1])}")
    else:  # torch copies into the first sequence's dtype and calls [] float32; seqlab promotes (its rule)
        dtype = np.dtype(str(padded.dtype).split(".")[-1])
        rows = [np.asarray(x.numpy() if isinstance(x, seqlab.Tensor) else x).astype(dtype) for x in inputs]
        want = np.full((len(rows), max(len(r) for r in rows)), padding_value, dtype=dtype)
        for b, r in enumerate(rows):
            want[b, :len(r)] = r
        want = want if batch_first else want.T
        expect(same(plain(padded)[3], want.tolist()), f"{plain(padded)} != {want.tolist()}")
    if collate:
        _, lengths, mask = got[1]
        expect(lengths.tolist() == [len(x) for x in inputs], f"lengths {lengths.tolist()}")
        m = np.array(mask.tolist(), dtype=bool).reshape(tuple(mask.shape))
        m = m if batch_first else m.T
        expect(all(m[b].sum() == n and m[b][:n].all() for b, n in enumerate(lengths.tolist())), "mask is wrong")
    return "ok"


# ------------------------------------------------------------------ data: DataLoader
def dataset(spec):
    kind, n = spec["kind"], spec["n"]
    rng = np.random.default_rng(n)
    if kind == "ints":
        return [int(v) for v in rng.integers(-5, 5, n)]
    if kind == "floats":
        return [float(v) for v in rng.standard_normal(n)]
    if kind == "ints_then_floats":  # the first item decides nothing: torch infers from them all
        return [1] + [float(v) + 0.5 for v in rng.integers(-5, 5, n - 1)] if n else []
    if kind == "bools":
        return [bool(v) for v in rng.integers(0, 2, n)]
    if kind == "numpy_scalars":
        return [np.float32(v) for v in rng.standard_normal(n)]
    if kind == "numpy_int_scalars":
        return [np.int64(v) for v in rng.integers(-5, 5, n)]
    if kind == "arrays":
        return [rng.standard_normal((2, 3)).astype(np.float32) for _ in range(n)]
    if kind == "pairs":
        return [(int(a), float(b)) for a, b in zip(rng.integers(0, 9, n), rng.standard_normal(n))]
    if kind == "dicts":
        return [{"x": int(a), "y": [float(b), 1.0]} for a, b in zip(rng.integers(0, 9, n), rng.standard_normal(n))]
    if kind == "strings":
        return [f"s{v}" for v in range(n)]
    raise ValueError(kind)


def data_loader(spec, batch_size, drop_last, shuffle, seed):
    items = dataset(spec)
    bsz = np.int64(batch_size["value"]) if batch_size["numpy"] else batch_size["value"]
    # (torch's DataLoader refuses a NumPy integer batch_size, which seqlab takes as the int it is)
    torch_bsz = int(bsz) if isinstance(bsz, np.integer) else bsz
    want = attempt(lambda: list(torch.utils.data.DataLoader(items, batch_size=torch_bsz, drop_last=drop_last)))
    if want[0] == "exc" and isinstance(torch_bsz, int) and torch_bsz > 2**31:
        # torch's accidents, not its rules: its BatchSampler makes [0] * batch_size (MemoryError)
        # and islice()s by it (ValueError past sys.maxsize); one batch holds every item
        want = ("ok", [])
        if isinstance(bsz, (int, np.integer)) and not isinstance(bsz, bool) and bsz > 0:
            want = ("ok", [torch.utils.data.default_collate(items)] if items and not drop_last else [])
    got = attempt(lambda: sd.DataLoader(items, batch_size=bsz, drop_last=drop_last, shuffle=shuffle, seed=seed))
    if got[0] == "exc":
        return refused(got[1], ["DataLoader", "batch_size"], want)
    loader = got[1]
    batches = attempt(lambda: list(loader))
    if batches[0] == "exc":
        return refused(batches[1], ["collate", "DataLoader"], want)
    expect(want[0] == "ok", f"torch raises {want[1]!r}, seqlab returns {[plain(b) for b in batches[1]]}")
    expect(len(batches[1]) == len(loader) == len(want[1]), f"{len(batches[1])} batches, len() {len(loader)}, "
                                                          f"torch {len(want[1])}")
    if not shuffle:
        for b, w in zip(batches[1], want[1]):
            expect(same(plain(b), plain(w)), f"batch {plain(b)} != torch {plain(w)}")
    elif spec["kind"] == "ints" and not drop_last:  # every epoch visits each item once
        for _ in range(2):
            seen = sorted(v for b in loader for v in b.tolist())
            expect(seen == sorted(items), f"a shuffled epoch visited {seen}, not {sorted(items)}")
    return "ok"


# ------------------------------------------------------------------ data: encode_corpus
ASCII_SPACE = "[ \t\n\v\f\r]+"


def encode(corpus, level, vocab_given):
    got = attempt(lambda: sd.encode_corpus(corpus, level=level, vocab=vocab_given))
    if got[0] == "exc":
        return refused(got[1], ["encode_corpus", "level"])
    enc = got[1]
    if corpus and not isinstance(corpus[0], str):
        sentences = [list(s) for s in corpus]
    elif level == "word":
        sentences = [[w for w in re.split(ASCII_SPACE, s) if w] for s in corpus]
    else:  # characters; a sentence's line ending (trailing CR, LF) is not one (corpus.cpp)
        sentences = [list(s.rstrip("\r\n")) for s in corpus]
    tokens = [t for s in sentences for t in s]
    if vocab_given is None:
        counts = collections.Counter(tokens)
        first = {}
        for t in tokens:
            first.setdefault(t, len(first))
        expected_vocab = sorted(counts, key=lambda t: (-counts[t], first[t]))
    else:
        expected_vocab = list(dict.fromkeys(vocab_given)) if len(set(vocab_given)) == len(vocab_given) else None
        if expected_vocab is None:  # a given vocabulary with duplicates: either refused or kept as given
            expected_vocab = list(enc.vocab)
    expect(list(enc.vocab) == expected_vocab, f"vocab {list(enc.vocab)} != {expected_vocab}")
    index = {}
    for i, t in enumerate(expected_vocab):
        index.setdefault(t, i)
    expect(enc.ids.tolist() == [index.get(t, -1) for t in tokens], f"ids {enc.ids.tolist()} for {sentences}")
    expect(enc.offsets.tolist() == list(np.cumsum([0] + [len(s) for s in sentences])), f"offsets {enc.offsets}")
    expect(enc.counts.tolist() == [sum(t == w for t in tokens) for w in expected_vocab], f"counts {enc.counts}")
    expect(enc.n_unknown == sum(t not in index for t in tokens), f"n_unknown {enc.n_unknown}")
    return "ok"


# ------------------------------------------------------------------ n-gram models
def ngram(options, corpus, probes, contexts):
    got = attempt(lambda: NGram(**options))
    if got[0] == "exc":
        return refused(got[1], ["NGram"])
    lm = got[1]
    fitted = attempt(lambda: lm.fit(corpus))
    level = options.get("level", "word")
    if fitted[0] == "exc":
        return refused(fitted[1], ["NGram", "encode_corpus"])
    words = [t for s in corpus for t in (s.split() if isinstance(s, str) and level == "word" else s)]
    expect(words, "fit accepted a corpus without tokens")
    vocab = lm.vocab
    expect(vocab[:3] == ["<unk>", "<s>", "</s>"], f"vocab starts {vocab[:3]}")
    for context in contexts:
        p = attempt(lambda: lm.next_probs(context))
        if p[0] == "exc":
            refused(p[1], ["NGram"])
            continue
        p = p[1]
        expect(p.shape == (len(vocab),) and np.all(np.isfinite(p)) and np.all(p >= 0), f"next_probs({context}) = {p}")
        expect(abs(p.sum() - 1) < 1e-6, f"next_probs({context}) sums to {p.sum()} ({lm!r})")
        expect(p[1] == 0, "p(<s>) != 0")
        if options.get("smoothing") == "mle":
            _check_mle(lm, corpus, context, p, level)
    for sentence in probes:
        s = attempt(lambda: lm.score(sentence))
        if s[0] == "exc":
            refused(s[1], ["NGram"])
            continue
        per_token = lm.full_log10(sentence)
        total = per_token.sum()  # -inf where MLE gives a token probability 0
        expect(s[1] == total or abs(s[1] - total) < 1e-4 * max(1, abs(s[1])), f"score {s[1]} != sum {total}")
        # the chain rule: each token's log10 p is next_probs after the tokens before it
        toks = sentence.split() if (isinstance(sentence, str) and level == "word") else list(sentence)
        ids = [lm._index.get(lm._token(t), 0) for t in toks] + [2]
        for j, (lp, i) in enumerate(zip(per_token, ids)):
            q = lm.next_probs(toks[:j])[i]
            expect(abs(10.0 ** lp - q) < 1e-6 * max(1, q) or (lp <= -98 and q < 1e-90),
                   f"log10 p of token {j} of {sentence!r}: score {lp}, next_probs {math.log10(q) if q else q}")
    text_probes = [p for p in probes if isinstance(p, str)]
    ppl = attempt(lambda: lm.perplexity(text_probes))
    if ppl[0] == "ok":
        n = sum(len(lm._ids(p)) + 1 for p in text_probes)
        total = sum(lm.score(p) for p in text_probes)
        want = 10.0 ** (-total / n)
        expect(ppl[1] == want or abs(ppl[1] - want) <= 1e-6 * want, f"perplexity {ppl[1]} != 10^(-{total}/{n})")
    else:
        expect(not text_probes, f"perplexity of {text_probes} raised {ppl[1]!r}")
        refused(ppl[1], ["NGram"])
    return "ok"


def _check_mle(lm, corpus, context, p, level):
    """Maximum likelihood: after a history seen in training, p(w | h) = c(h w) / c(h)."""
    order = lm.order
    hist_counts, pair_counts = collections.Counter(), collections.Counter()
    for s in corpus:
        toks = ["<s>"] + (s.split() if (isinstance(s, str) and level == "word") else list(s)) + ["</s>"]
        for j in range(1, len(toks)):
            h = tuple(toks[max(0, j - order + 1):j])
            hist_counts[h] += 1
            pair_counts[h, toks[j]] += 1
    ctx = ["<s>"] + (context.split() if (isinstance(context, str) and level == "word") else list(context))
    h = tuple(ctx[max(0, len(ctx) - order + 1):])
    if (len(h) == order - 1 or h[:1] == ("<s>",)) and hist_counts[h]:
        want = np.array([pair_counts[h, w] / hist_counts[h] for w in lm.vocab])
        want[0] = p[0]  # <unk>: the corpus has none, so its mass follows the model's floor
        expect(np.allclose(p, want, atol=1e-9), f"MLE p(. | {h}) = {p} != counts {want}")


# ------------------------------------------------------------------ embeddings
def embed(model, corpus, options):
    """Word2Vec / FastText against gensim's vocabulary; GloVe / PPMI on their own."""
    import seqlab.embed as se
    cls = getattr(se, model)
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        got = attempt_loud(lambda: cls(corpus, **options))
    diverged = any(issubclass(w.category, RuntimeWarning) and model in str(w.message) and "diverged" in str(w.message)
                   for w in warned)
    oracle = None
    if model in ("Word2Vec", "FastText") and _gensim_safe(options):
        import gensim.models
        oracle = attempt(lambda: getattr(gensim.models, model)(corpus, **options))
    if got[0] == "exc":
        return refused(got[1], [model], oracle)
    m = got[1]
    vectors = np.asarray(m.wv.vectors)
    # (PPMI's SVD has at most one dimension per word: it warns and uses fewer)
    width = min(m.vector_size, len(m.wv)) if model == "PPMI" else m.vector_size
    expect(vectors.dtype == np.float32 and vectors.shape == (len(m.wv), width) and m.wv.vector_size == width,
           f"vectors {vectors.dtype} {vectors.shape}, vocab {len(m.wv)}, vector_size {m.vector_size}")
    expect(np.all(np.isfinite(vectors)) or diverged, "vectors not finite, and no warning said so")
    if oracle is not None and oracle[0] == "exc" and options.get("epochs") == 0 and "epochs count" in str(oracle[1]):
        oracle = None  # gensim's `if not epochs` meant a missing count; 0 epochs keep the initial vectors
    if oracle is not None:
        if oracle[0] == "exc":
            raise Wrong(f"gensim raises {type(oracle[1]).__name__}: {oracle[1]} but seqlab trains")
        theirs = oracle[1]
        expect(m.wv.index_to_key == theirs.wv.index_to_key,
               f"vocabulary {m.wv.index_to_key} != gensim {theirs.wv.index_to_key}")
        expect(list(m.wv.expandos["count"]) == list(theirs.wv.expandos["count"]), "counts differ from gensim's")
    if len(m.wv):
        word = m.wv.index_to_key[0]
        expect(np.array_equal(m.wv[word], vectors[0], equal_nan=True), "wv[word] != its row")
    with tempfile.TemporaryDirectory() as tmp:  # what was trained survives its own file
        path = os.path.join(tmp, "m.model")
        m.save(path)
        back = cls.load(path)
        expect(np.array_equal(np.asarray(back.wv.vectors), vectors, equal_nan=True), "save/load changed the vectors")
    return "ok"


def _gensim_safe(options):
    """gensim runs these options in bounded time and memory, without crashing (it hangs on
    window=0, runs `negative` draws per word, allocates vector_size x vocab with no bound, and
    FastText(bucket=0) segfaults in its trainer)."""
    def small(name, low, high):
        v = options.get(name)
        return v is None or (isinstance(v, int) and not isinstance(v, bool) and low <= v <= high)
    return small("window", 1, 10**6) and small("negative", 0, 50) and small("vector_size", 1, 64) and \
        small("epochs", 0, 5) and small("bucket", 1, 5000) and small("min_count", 0, 10**9) and \
        all(isinstance(options.get(k, 0.1), (int, float)) and math.isfinite(options.get(k, 0.1))
            for k in ("alpha", "min_alpha", "sample", "ns_exponent")) and \
        options.get("alpha", 1) > 0 and options.get("min_alpha", 0) >= 0 and options.get("sample", 0) >= 0 and \
        not (options.get("hs", 0) == 0 and options.get("negative", 5) == 0)


CASES = {"data.Vocab": vocab, "data.tokenize": tokenize, "data.batchify": batchify, "data.get_batch": get_batch,
         "data.pad": pad, "data.DataLoader": data_loader, "data.encode_corpus": encode, "lm.NGram": ngram,
         "embed": embed}


def run(name, kwargs):
    return CASES[name](**kwargs)
