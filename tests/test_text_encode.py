"""seqlab.data.encode_corpus: the C++ corpus encoder shared by seqlab.lm and seqlab.embed."""
import collections

import numpy as np
import pytest

from seqlab.data import encode_corpus


def reference(sentences):
    """Vocabulary by descending count, ties by first occurrence, as a Python oracle."""
    counts = collections.Counter()
    first = {}
    for s in sentences:
        for t in s:
            counts[t] += 1
            first.setdefault(t, len(first))
    vocab = sorted(counts, key=lambda t: (-counts[t], first[t]))
    return vocab, [counts[t] for t in vocab]


def test_word_level_matches_python_oracle():
    lines = ["the cat sat", "the  dog\tsat\r", "", "a cat ran the end"]
    enc = encode_corpus(lines)
    toks = [l.split() for l in lines]
    vocab, counts = reference(toks)
    assert enc.vocab == vocab
    assert enc.counts.tolist() == counts
    assert enc.counts.dtype == np.int64 and enc.ids.dtype == np.int32 and enc.offsets.dtype == np.int64
    assert enc.offsets.tolist() == [0, 3, 6, 6, 11]
    for s, t in enumerate(toks):
        assert [enc.vocab[i] for i in enc.sentence(s)] == t
    assert enc.n_unknown == 0 and enc.n_sentences == 4


def test_token_lists_are_used_as_given():
    sents = [["new york", "is"], ["big", "new york"]]
    enc = encode_corpus(sents)
    assert enc.vocab == ["new york", "is", "big"]
    assert [enc.vocab[i] for i in enc.sentence(1)] == ["big", "new york"]


def test_char_level_counts_code_points_and_spaces():
    enc = encode_corpus(["ab a", "ñé\n"], level="char")
    assert enc.vocab == ["a", "b", " ", "ñ", "é"]
    assert enc.counts.tolist() == [2, 1, 1, 1, 1]
    assert enc.offsets.tolist() == [0, 4, 6]
    enc2 = encode_corpus([["a", "b", " ", "a"]], level="char")  # a token list is the characters
    assert [enc2.vocab[i] for i in enc2.sentence(0)] == ["a", "b", " ", "a"]


def test_fixed_vocabulary_marks_unknown_tokens():
    enc = encode_corpus(["the cat sat on the mat"], vocab=["the", "cat", "sat"])
    assert enc.vocab == ["the", "cat", "sat"]
    assert enc.ids.tolist() == [0, 1, 2, -1, 0, -1]
    assert enc.counts.tolist() == [2, 1, 1]
    assert enc.n_unknown == 2


def test_file_and_list_agree(tmp_path):
    lines = ["in the beginning god created", "the heaven and the earth", "and the earth was"]
    p = tmp_path / "c.txt"
    p.write_text("\n".join(lines) + "\n")
    a, b = encode_corpus(p), encode_corpus(lines)
    assert a.vocab == b.vocab and np.array_equal(a.ids, b.ids) and np.array_equal(a.offsets, b.offsets)
    assert encode_corpus(str(p)).n_sentences == 3


def test_generators_are_consumed_once():
    enc = encode_corpus(s for s in ["a b", "b c"])
    assert enc.vocab == ["b", "a", "c"]


def test_bad_input_raises_clear_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file"):
        encode_corpus(str(tmp_path / "missing.txt"))
    with pytest.raises(ValueError, match="level must be 'word' or 'char'"):
        encode_corpus(["a"], level="byte")
    with pytest.raises(TypeError, match="sentence 1"):
        encode_corpus(["a b", 3])
    with pytest.raises(TypeError, match="sentence 1"):
        encode_corpus([["a"], ["b", 2]])
    with pytest.raises(TypeError, match="bytes"):
        encode_corpus(b"a b")


def test_kjv_word_counts_match_python():
    import subprocess
    out = subprocess.run(["bible", "-f", "Gen1:1-Gen50:26"], capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    enc = encode_corpus(lines)
    vocab, counts = reference([l.split() for l in lines])
    assert enc.vocab == vocab and enc.counts.tolist() == counts
