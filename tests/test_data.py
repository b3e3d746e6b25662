"""seqlab.data: tokenizers, Vocab (save/load, atomic writes), LM batching, padding, DataLoader,
plain-text corpora. PyTorch is the oracle where it has the same thing (word_language_model's
batchify/get_batch, pad_sequence, DataLoader, default_collate)."""

import json
import os
import re

import numpy as np
import pytest
import torch

import seqlab
from seqlab.data import (
    SPECIALS, BPTTBatches, CharTokenizer, DataLoader, PadCollate, TextCorpus, Vocab, WordTokenizer,
    batchify, default_collate, get_batch, pad_collate, pad_sequence, read_corpus, train_valid_test_split,
)
from seqlab.data import vocab as vocab_module


def np_of(t):
    assert isinstance(t, seqlab.Tensor)
    return np.array(t.numpy(), copy=True)


# ----------------------------------------------------------------------------- tokenizers

def test_word_tokenizer_splits_punctuation_and_keeps_apostrophes():
    tok = WordTokenizer(lower=True)
    assert tok("And God said, Let there be light: and there was light.") == [
        "and", "god", "said", ",", "let", "there", "be", "light", ":", "and", "there", "was", "light", "."]
    assert tok("The LORD'S house (thy father's)!") == [
        "the", "lord's", "house", "(", "thy", "father's", ")", "!"]
    assert WordTokenizer()("Don't panic") == ["Don't", "panic"]      # case kept by default


def test_word_tokenizer_without_punctuation_splitting_is_str_split():
    text = "  Jesus wept.\tAnd  the people,\nwondered "
    assert WordTokenizer(split_punctuation=False)(text) == text.split()


@pytest.mark.parametrize("text", [
    "And God said, Let there be light: and there was light.",
    "Who is this? (A man of sorrows.) Behold!",
    "one , two ,, three;four",
])
def test_word_detokenize_then_tokenize_is_identity(text):
    tok = WordTokenizer()
    tokens = tok(text)
    assert tok(tok.detokenize(tokens)) == tokens
    assert tok.detokenize(tok("And God said, Let there be light.")) == "And God said, Let there be light."


def test_char_tokenizer_round_trip():
    tok = CharTokenizer()
    assert tok("In the") == ["I", "n", " ", "t", "h", "e"]
    assert tok.detokenize(tok("Mene, mene\ttekel")) == "Mene, mene\ttekel"
    assert CharTokenizer(lower=True)("AbC") == ["a", "b", "c"]


@pytest.mark.parametrize("tok", [CharTokenizer(), WordTokenizer()])
def test_tokenizers_reject_non_strings(tok):
    with pytest.raises(TypeError, match="expected a str, got list"):
        tok(["a", "b"])


# ----------------------------------------------------------------------------- Vocab

SENTENCES = [["the", "cat", "sat"], ["the", "dog", "sat"], ["the", "cat"], ["a", "bird"]]


def test_vocab_build_puts_specials_first_then_tokens_by_frequency():
    v = Vocab.build(SENTENCES)
    # counts: the 3, cat 2, sat 2, a 1, bird 1, dog 1; ties in string order
    assert v.itos == ["<unk>", "<pad>", "<s>", "</s>", "the", "cat", "sat", "a", "bird", "dog"]
    assert (v.unk_index, v.pad_index, v.bos_index, v.eos_index) == (0, 1, 2, 3)
    assert tuple(v.specials) == SPECIALS
    assert all(v.stoi[t] == i for i, t in enumerate(v.itos))
    assert len(v) == 10 and "cat" in v and "zebra" not in v
    assert v["zebra"] == v.unk_index


def test_vocab_min_freq_and_max_size():
    assert Vocab.build(SENTENCES, min_freq=2).itos[4:] == ["the", "cat", "sat"]
    assert Vocab.build(SENTENCES, max_size=2).itos[4:] == ["the", "cat"]      # specials not counted
    assert len(Vocab.build(SENTENCES, max_size=0)) == len(SPECIALS)
    with pytest.raises(ValueError, match="min_freq must be >= 1, got 0"):
        Vocab.build(SENTENCES, min_freq=0)


def test_vocab_build_over_strings_is_a_character_vocabulary():
    v = Vocab.build(["abba", "cab"], specials=())
    assert v.itos == ["a", "b", "c"]                                      # a:3, b:3, c:1
    assert Vocab(" ab", specials=()).itos == [" ", "a", "b"]


def test_encode_and_decode_round_trip_lists_and_tensors():
    v = Vocab.build(SENTENCES)
    tokens = ["the", "dog", "sat", "zebra"]
    ids = v.encode(tokens)
    assert ids == [4, 9, 6, 0]
    assert v.encode(tokens, bos=True, eos=True) == [2, 4, 9, 6, 0, 3]

    t = v.encode(tokens, eos=True, as_tensor=True)
    assert isinstance(t, seqlab.Tensor) and t.dtype == seqlab.int64 and tuple(t.shape) == (5,)
    assert np_of(t).tolist() == [4, 9, 6, 0, 3]

    assert v.decode(ids) == ["the", "dog", "sat", "<unk>"]
    assert v.decode(t) == ["the", "dog", "sat", "<unk>", "</s>"]
    assert v.decode(np.array(ids)) == v.decode(tuple(ids))
    assert v.decode(t, skip_specials=True) == ["the", "dog", "sat"]
    assert v.decode([]) == []
    known = ["a", "cat", "the", "bird"]
    assert v.decode(v.encode(known, as_tensor=True)) == known


def test_encode_a_string_with_a_character_vocabulary():
    v = Vocab("abcdefghijklmnopqrstuvwxyz")
    assert v.encode("abc", bos=True, eos=True) == [2, 4, 5, 6, 3]
    assert "".join(v.decode(v.encode("zebra"))) == "zebra"


def test_vocab_lookup_errors_are_clear():
    v = Vocab.build(SENTENCES)
    with pytest.raises(IndexError, match="id 10 is out of range for a vocabulary of size 10"):
        v.decode([4, 10])
    with pytest.raises(IndexError, match="id -1 is out of range"):
        v.decode(np.array([-1]))
    with pytest.raises(IndexError, match="id 99 is out of range"):
        v.lookup_token(99)
    with pytest.raises(TypeError, match="expected an int64 tensor, got seqlab.float32"):
        v.decode(seqlab.tensor([1.0, 2.0]))
    with pytest.raises(ValueError, match=r"expected a 1-D sequence of ids, got shape \(1, 2\)"):
        v.decode([[4, 5]])

    bare = Vocab(["x", "y"], specials=())
    with pytest.raises(KeyError, match="'zebra' is not in the vocabulary, which has no '<unk>'"):
        bare.encode(["x", "zebra"])
    with pytest.raises(ValueError, match="eos=True needs the special '</s>'"):
        bare.encode(["x"], eos=True)
    with pytest.raises(TypeError, match="tokens must be str, got int"):
        Vocab(["x", 3])


def test_vocab_save_load_round_trip(tmp_path):
    v = Vocab.build(SENTENCES + [["naïve", "café", "🙂"]], min_freq=1)
    path = tmp_path / "vocab.json"
    v.save(path)
    assert Vocab.load(path) == v
    obj = json.loads(path.read_text(encoding="utf-8"))     # a small, readable JSON file
    assert obj["format"] == "seqlab.data.Vocab" and obj["itos"] == v.itos and obj["specials"] == list(SPECIALS)

    custom = Vocab(["b", "a"], specials=("<pad>",))
    custom.save(str(path))                                  # str paths too; overwrites
    loaded = Vocab.load(str(path))
    assert loaded == custom and loaded.itos == ["<pad>", "b", "a"] and loaded.unk_index is None


@pytest.mark.parametrize("content, why", [
    (b'{"format": "seqlab.data.Vocab", "version": 1, "specials": ["<unk>"], "itos": ["<un', "corrupt JSON"),
    (b"", "corrupt JSON"),
    (b"\xff\xfe\x00garbage", "corrupt JSON"),
    (b'["<unk>", "a"]', "format"),
    (b'{"format": "seqlab.data.Vocab", "version": 7, "specials": [], "itos": []}', "unsupported version 7"),
    (b'{"format": "seqlab.data.Vocab", "version": 1, "specials": ["<unk>"], "itos": ["a"]}',
     "must start with the specials"),
    (b'{"format": "seqlab.data.Vocab", "version": 1, "specials": [], "itos": ["a", "a"]}', "duplicate"),
    (b'{"format": "seqlab.data.Vocab", "version": 1, "specials": [], "itos": ["a", 3]}', "only strings"),
])
def test_vocab_load_of_a_corrupt_file_names_the_file(tmp_path, content, why):
    path = tmp_path / "broken.json"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=re.escape(str(path)) + ".*" + why):
        Vocab.load(path)


def test_vocab_load_of_a_missing_file_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        Vocab.load(tmp_path / "nope.json")


def _failing_dump(obj, f, **kwargs):
    f.write('{"format": "seqlab.data.Vocab", "itos": ["half')   # part of the file is written ...
    raise RuntimeError("disk on fire")                           # ... then the write fails


@pytest.mark.parametrize("failure", ["json.dump", "os.fsync"])
def test_vocab_save_is_atomic_the_old_file_survives_a_failed_write(tmp_path, monkeypatch, failure):
    path = tmp_path / "vocab.json"
    old = Vocab.build(SENTENCES)
    old.save(path)
    before = path.read_bytes()

    if failure == "json.dump":
        monkeypatch.setattr(vocab_module.json, "dump", _failing_dump)
        expected = RuntimeError
    else:
        def failing_fsync(fd):
            raise OSError(28, "No space left on device")
        monkeypatch.setattr(os, "fsync", failing_fsync)
        expected = OSError
    with pytest.raises(expected):
        Vocab.build([["something", "else"]]).save(path)
    monkeypatch.undo()

    assert path.read_bytes() == before
    assert Vocab.load(path) == old
    assert os.listdir(tmp_path) == ["vocab.json"]          # no temporary file left behind

    # a failed first save leaves no file at all
    monkeypatch.setattr(vocab_module.json, "dump", _failing_dump)
    with pytest.raises(RuntimeError):
        old.save(tmp_path / "new.json")
    assert sorted(os.listdir(tmp_path)) == ["vocab.json"]


def test_vocab_save_keeps_the_old_file_permissions(tmp_path):
    path = tmp_path / "vocab.json"
    Vocab.build(SENTENCES).save(path)
    assert path.stat().st_mode & 0o777 == 0o644
    path.chmod(0o600)
    Vocab.build(SENTENCES).save(path)
    assert path.stat().st_mode & 0o777 == 0o600


# ----------------------------------------------------------------------------- LM batching

def torch_batchify(data, bsz):
    """PyTorch examples/word_language_model/main.py, verbatim but for the device."""
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    data = data.view(bsz, -1).t().contiguous()
    return data


def torch_get_batch(source, i, bptt):
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i:i + seq_len]
    target = source[i + 1:i + 1 + seq_len].view(-1)
    return data, target


def test_batchify_small_example():
    b = batchify(list(range(10)), 3)
    assert isinstance(b, seqlab.Tensor) and b.dtype == seqlab.int64
    assert np_of(b).tolist() == [[0, 3, 6], [1, 4, 7], [2, 5, 8]]   # column j = the j-th piece; 9 dropped
    stream = seqlab.tensor([1, 2, 3])
    one = batchify(stream, 1)
    stream[0] = 7                                                     # the result owns its memory
    assert np_of(one).tolist() == [[1], [2], [3]]


@pytest.mark.parametrize("n, batch_size", [(1000, 20), (1001, 7), (35, 35), (100, 1)])
def test_batchify_matches_the_pytorch_example(rng, n, batch_size):
    data = rng.integers(0, 50, size=n)
    expected = torch_batchify(torch.from_numpy(data), batch_size).numpy()
    for form in (data, data.tolist(), seqlab.from_numpy(data)):
        got = batchify(form, batch_size)
        assert tuple(got.shape) == (n // batch_size, batch_size)
        np.testing.assert_array_equal(np_of(got), expected)


def test_batchify_errors():
    with pytest.raises(ValueError, match="a stream of 3 tokens is too short for batch_size=4"):
        batchify([1, 2, 3], 4)
    with pytest.raises(ValueError, match="batch_size must be a positive integer, got 0"):
        batchify([1, 2, 3], 0)
    with pytest.raises(ValueError, match=r"expected a 1-D sequence of token ids, got shape \(2, 2\)"):
        batchify([[1, 2], [3, 4]], 1)
    with pytest.raises(TypeError, match="token ids must be integers, got float64"):
        batchify([1.0, 2.0], 1)


def test_get_batch_shapes_and_the_exact_target_shift(rng):
    data = rng.integers(0, 1000, size=2000)
    source = batchify(data, 20)                       # (100, 20)
    th_source = torch_batchify(torch.from_numpy(data), 20)
    for i in (0, 35, 70, 98):                         # 98: the last window, one row long
        x, y = get_batch(source, i, 35)
        T = min(35, 100 - 1 - i)
        assert tuple(x.shape) == tuple(y.shape) == (T, 20)
        assert x.dtype == y.dtype == seqlab.int64
        xs, ys = np_of(x), np_of(y)
        np.testing.assert_array_equal(xs, np_of(source)[i:i + T])
        np.testing.assert_array_equal(ys, np_of(source)[i + 1:i + 1 + T])
        np.testing.assert_array_equal(xs[1:], ys[:-1])            # target is input shifted by one step
        tx, ty = torch_get_batch(th_source, i, 35)
        np.testing.assert_array_equal(xs, tx.numpy())
        np.testing.assert_array_equal(np_of(y.reshape(-1)), ty.numpy())
    # within each stream, the target of the last input row is the next token of the text
    x, y = get_batch(source, 0, 5)
    stream0 = data[:100]
    np.testing.assert_array_equal(np_of(x)[:, 0], stream0[:5])
    np.testing.assert_array_equal(np_of(y)[:, 0], stream0[1:6])


def test_get_batch_errors():
    source = batchify(list(range(40)), 4)             # (10, 4)
    with pytest.raises(IndexError, match=r"start row 9 is out of range for a source of 10 rows \(valid: 0 <= i < 9"):
        get_batch(source, 9, 5)
    with pytest.raises(IndexError, match="start row -1"):
        get_batch(source, -1, 5)
    with pytest.raises(ValueError, match="bptt must be a positive integer, got 0"):
        get_batch(source, 0, 0)
    with pytest.raises(ValueError, match=r"must be batchified, shape \(N, B\), got \(40,\)"):
        get_batch(seqlab.tensor(list(range(40))), 0, 5)


@pytest.mark.parametrize("rows, bptt", [(100, 35), (36, 35), (2, 35), (71, 35), (10, 1)])
def test_bptt_batches_cover_every_row_once(rows, bptt):
    source = batchify(np.arange(rows * 3), 3)
    windows = list(BPTTBatches(source, bptt))
    assert len(windows) == len(BPTTBatches(source, bptt)) == len(range(0, rows - 1, bptt))
    inputs = np.concatenate([np_of(x) for x, _ in windows])
    targets = np.concatenate([np_of(y) for _, y in windows])
    np.testing.assert_array_equal(inputs, np_of(source)[:-1])
    np.testing.assert_array_equal(targets, np_of(source)[1:])
    assert all(x.shape[0] <= bptt for x, _ in windows)


# ----------------------------------------------------------------------------- padding

@pytest.mark.parametrize("batch_first", [False, True])
def test_pad_sequence_matches_torch(rng, batch_first):
    seqs = [rng.integers(1, 9, size=n) for n in (5, 1, 7, 3)]
    got = pad_sequence([s.tolist() for s in seqs], batch_first=batch_first, padding_value=-1)
    expected = torch.nn.utils.rnn.pad_sequence([torch.from_numpy(s) for s in seqs], batch_first=batch_first,
                                               padding_value=-1)
    assert got.dtype == seqlab.int64
    np.testing.assert_array_equal(np_of(got), expected.numpy())
    floats = [rng.standard_normal(n) for n in (2, 4)]
    got = pad_sequence([seqlab.from_numpy(f) for f in floats], batch_first=batch_first)
    expected = torch.nn.utils.rnn.pad_sequence([torch.from_numpy(f) for f in floats], batch_first=batch_first)
    assert got.dtype == seqlab.float64
    np.testing.assert_array_equal(np_of(got), expected.numpy())
    assert pad_sequence([[0.5], [1.5, 2.5]]).dtype == seqlab.float32   # Python floats: the default dtype


def test_pad_collate_returns_padded_lengths_and_mask():
    batch = [[5, 6, 7], [8], [9, 10]]
    padded, lengths, mask = pad_collate(batch, padding_value=1, batch_first=True)
    assert np_of(padded).tolist() == [[5, 6, 7], [8, 1, 1], [9, 10, 1]]
    assert lengths.dtype == seqlab.int64 and np_of(lengths).tolist() == [3, 1, 2]
    assert mask.dtype == seqlab.bool
    assert np_of(mask).tolist() == [[True, True, True], [True, False, False], [True, True, False]]

    padded_t, lengths_t, mask_t = PadCollate(padding_value=1)(batch)     # time-major, as nn.RNN's default
    assert tuple(padded_t.shape) == tuple(mask_t.shape) == (3, 3)
    np.testing.assert_array_equal(np_of(padded_t), np_of(padded).T)
    np.testing.assert_array_equal(np_of(mask_t), np_of(mask).T)
    np.testing.assert_array_equal(np_of(lengths_t), np_of(lengths))


def test_pad_collate_mask_is_exactly_the_non_padding(rng):
    seqs = [rng.integers(4, 30, size=rng.integers(0, 12)) for _ in range(16)]
    padded, lengths, mask = pad_collate([seqlab.from_numpy(s) for s in seqs], padding_value=1)
    np.testing.assert_array_equal(np_of(mask), np_of(padded) != 1)
    assert np_of(mask).sum(axis=0).tolist() == [len(s) for s in seqs]
    assert np_of(lengths).tolist() == [len(s) for s in seqs]


def test_padding_errors():
    with pytest.raises(ValueError, match="pad_collate: received an empty list of sequences"):
        pad_collate([])
    with pytest.raises(ValueError, match=r"pad_sequence: sequence 1 has shape \(1, 2\); expected 1-D"):
        pad_sequence([[1], [[1, 2]]])


# ----------------------------------------------------------------------------- DataLoader

def test_dataloader_in_order_matches_torch():
    data = list(range(10))
    ours = [np_of(b).tolist() for b in DataLoader(data, batch_size=3)]
    theirs = [b.tolist() for b in torch.utils.data.DataLoader(data, batch_size=3)]
    assert ours == theirs == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    assert len(DataLoader(data, batch_size=3)) == 4
    dropped = DataLoader(data, batch_size=3, drop_last=True)
    assert len(dropped) == 3 and [np_of(b).tolist() for b in dropped][-1] == [6, 7, 8]


def _epoch(loader):
    return [np_of(b).tolist() for b in loader]


def test_dataloader_shuffle_is_a_permutation_and_reproducible_for_a_seed():
    data = list(range(50))
    a = DataLoader(data, batch_size=8, shuffle=True, seed=123)
    b = DataLoader(data, batch_size=8, shuffle=True, seed=123)
    epochs_a = [_epoch(a) for _ in range(3)]
    epochs_b = [_epoch(b) for _ in range(3)]
    assert epochs_a == epochs_b                              # same seed: the same orders, epoch by epoch
    for epoch in epochs_a:
        assert sorted(x for batch in epoch for x in batch) == data
        assert [len(batch) for batch in epoch] == [8] * 6 + [2]
    assert epochs_a[0] != epochs_a[1]                        # a new order each epoch
    assert _epoch(DataLoader(data, batch_size=8, shuffle=True, seed=124)) != epochs_a[0]


def test_dataloader_without_a_seed_follows_seqlab_manual_seed():
    data = list(range(30))
    seqlab.manual_seed(7)
    first = _epoch(DataLoader(data, batch_size=4, shuffle=True))
    seqlab.manual_seed(7)
    again = _epoch(DataLoader(data, batch_size=4, shuffle=True))
    assert first == again and sorted(x for b in first for x in b) == data


def test_dataloader_with_pad_collate_over_token_sequences():
    seqs = [[4, 5, 6], [7], [8, 9], [10, 11, 12, 13]]
    padded, lengths, mask = next(iter(DataLoader(seqs, batch_size=4, collate_fn=PadCollate(1, batch_first=True))))
    assert tuple(padded.shape) == (4, 4) and np_of(lengths).tolist() == [3, 1, 2, 4]
    assert np_of(mask).sum() == 10


def test_default_collate_matches_torch_on_structured_items(rng):
    items = [(rng.standard_normal(3).astype(np.float32), int(rng.integers(5)), {"n": float(i), "s": f"x{i}"})
             for i in range(4)]
    ours = default_collate(items)
    theirs = torch.utils.data.default_collate(items)
    assert type(ours) is type(theirs) is list and len(ours) == 3  # torch collates a tuple into a list
    for got, expected in ((ours[0], theirs[0]), (ours[1], theirs[1]), (ours[2]["n"], theirs[2]["n"])):
        assert tuple(got.shape) == tuple(expected.shape)
        assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
        np.testing.assert_array_equal(np_of(got), expected.numpy())
    assert ours[2]["s"] == theirs[2]["s"] == ["x0", "x1", "x2", "x3"]
    stacked = default_collate([seqlab.tensor([1, 2]), seqlab.tensor([3, 4])])
    assert np_of(stacked).tolist() == [[1, 2], [3, 4]]
    assert np_of(default_collate([True, False])).tolist() == [True, False]


def test_dataloader_and_collate_errors():
    with pytest.raises(ValueError) as theirs:
        torch.utils.data.DataLoader([1, 2], batch_size=0)
    with pytest.raises(ValueError) as ours:
        DataLoader([1, 2], batch_size=0)
    assert str(ours.value) == str(theirs.value) == "batch_size should be a positive integer value, but got batch_size=0"
    with pytest.raises(TypeError, match="dataset must have __len__ and __getitem__, got int"):
        DataLoader(5)
    with pytest.raises(RuntimeError, match="equal size.*PadCollate"):
        default_collate([[1, 2], [3]])
    with pytest.raises(RuntimeError, match=r"equal size, but got \(2,\) and \(1,\).*PadCollate"):
        default_collate([np.array([1, 2]), np.array([3])])


# ----------------------------------------------------------------------------- plain-text corpora

def test_train_valid_test_split_sizes_order_and_seed():
    items = list(range(1000))
    train, valid, test = train_valid_test_split(items, (0.8, 0.1, 0.1), seed=3)
    assert (len(train), len(valid), len(test)) == (800, 100, 100)
    assert sorted(train + valid + test) == items                       # a partition
    assert train == sorted(train) and valid == sorted(valid) and test == sorted(test)   # order kept
    assert train_valid_test_split(items, (0.8, 0.1, 0.1), seed=3) == (train, valid, test)
    assert train_valid_test_split(items, (0.8, 0.1, 0.1), seed=4)[1] != valid
    assert [len(p) for p in train_valid_test_split(range(7), (0.9, 0.05, 0.05))] == [7, 0, 0]
    with pytest.raises(ValueError, match=r"summing to 1, got \(0.9, 0.2, 0.1\)"):
        train_valid_test_split(items, (0.9, 0.2, 0.1))


def _write_ptb_layout(directory):
    directory.mkdir()
    (directory / "train.txt").write_text("The cat sat.\n\nThe dog sat, the cat ran.\n")
    (directory / "valid.txt").write_text("The bird sat.\n")
    (directory / "test.txt").write_text("A cat!\n")
    return directory


def test_read_corpus_from_a_train_valid_test_directory(tmp_path):
    c = read_corpus(_write_ptb_layout(tmp_path / "ptb"), lower=True)
    assert isinstance(c, TextCorpus) and c.name == "ptb" and c.level == "word"
    assert c.train == (("the", "cat", "sat", "."), ("the", "dog", "sat", ",", "the", "cat", "ran", "."))
    assert c.valid == (("the", "bird", "sat", "."),) and c.test == (("a", "cat", "!"),)
    assert "bird" not in c.vocab and c.vocab.itos[4] == "the"        # the vocabulary is built on train only
    ids = c.ids("valid")
    assert ids.dtype == seqlab.int64
    assert c.vocab.decode(ids) == ["the", "<unk>", "sat", ".", "</s>"]
    assert len(c.ids("train")) == c.num_tokens("train") == 12 + 2
    assert c.text("valid") == "the bird sat ."
    # ids() hands out a fresh tensor: writing into it does not change the corpus
    t = c.ids("train")
    t[0] = 99
    assert np_of(c.ids("train"))[0] == c.vocab["the"]
    with pytest.raises(ValueError, match="split must be one of"):
        c.ids("dev")


def test_read_corpus_from_one_file_split_by_line(tmp_path):
    path = tmp_path / "lines.txt"
    path.write_text("".join(f"line number {i}\n" for i in range(200)) + "\n   \n")
    c = read_corpus(path, level="char", seed=1)
    assert (len(c.train), len(c.valid), len(c.test)) == (180, 10, 10)   # 90/5/5, blank lines skipped
    assert all(isinstance(line, str) for line in c.train)
    assert sorted(c.train + c.valid + c.test) == sorted(f"line number {i}" for i in range(200))
    assert read_corpus(path, level="char", seed=1).valid == c.valid
    assert set(c.vocab.itos[4:]) == set("line number 0123456789")
    stream = c.vocab.decode(c.ids("test"))
    assert "".join(stream).split("</s>")[:-1] == list(c.test)
    with_tokenizer = read_corpus(path, tokenizer=str.split, lower=True)
    assert with_tokenizer.train[0] == ("line", "number", "0")


def test_a_corpus_feeds_batchify_and_decodes_back(tmp_path):
    c = read_corpus(_write_ptb_layout(tmp_path / "ptb"))
    source = batchify(c.ids("train"), 2)                            # (7, 2)
    x, y = get_batch(source, 0, 3)
    assert c.vocab.decode(x[:, 0].contiguous()) == ["The", "cat", "sat"]
    assert c.vocab.decode(y[:, 0].contiguous()) == ["cat", "sat", "."]


def test_read_corpus_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file or directory: .*missing"):
        read_corpus(tmp_path / "missing")
    (tmp_path / "half").mkdir()
    (tmp_path / "half" / "train.txt").write_text("x\n")
    with pytest.raises(FileNotFoundError, match=r"lacks .*valid.txt, .*test.txt"):
        read_corpus(tmp_path / "half")
    (tmp_path / "latin1.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    with pytest.raises(ValueError, match=r"latin1.txt is not utf-8 text"):
        read_corpus(tmp_path / "latin1.txt")
    with pytest.raises(ValueError, match="level must be 'word' or 'char', got 'byte'"):
        read_corpus(tmp_path / "latin1.txt", level="byte")
