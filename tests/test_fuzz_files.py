"""Fuzzing of seqlab's file readers: a valid file of each format is written by
seqlab itself, then hypothesis damages it (truncation, flipped and overwritten bytes, inserted
garbage, a line replaced) and the reader runs on the damaged copy in a child process
(tests/fuzz_worker.py). It must not crash or hang, and a file it refuses must be refused with
a ValueError whose message names the file (DESIGN.md: corrupt files give clear errors naming
the file); loading a damaged file that is still well formed is allowed."""
import os
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import seqlab
from seqlab.data import Vocab
from seqlab.embed import KeyedVectors, PPMI, Word2Vec
from seqlab.lm import NGram

from conftest import FUZZ_EXAMPLES

SENTENCES = [s.split() for s in ["the cat sat on the mat", "the dog sat on the log", "a cat and a dog",
                                 "the mat and the log"]] * 3


def write_files(folder):
    """One valid file per reader: {reader name: (path, kwargs)}."""
    files = {}
    path = os.path.join(folder, "model.safetensors")
    seqlab.save({"weight": seqlab.randn(3, 4), "step": 3, "nested": {"bias": seqlab.zeros(2)}}, path)
    files["load"] = (path, {})
    path = os.path.join(folder, "lm.arpa")
    with warnings.catch_warnings():  # the tiny corpus's Kneser-Ney discounts fall back, with a warning
        warnings.simplefilter("ignore", RuntimeWarning)
        NGram(order=3).fit(SENTENCES).save_arpa(path)
    files["lm.NGram.load_arpa"] = (path, {})
    path = os.path.join(folder, "vocab.json")
    Vocab.build(SENTENCES).save(path)
    files["data.Vocab.load"] = (path, {})
    w2v = Word2Vec(SENTENCES, vector_size=8, min_count=1, epochs=1, workers=1, seed=1)
    for binary in (False, True):
        path = os.path.join(folder, f"vectors.{'bin' if binary else 'txt'}")
        w2v.wv.save_word2vec_format(path, binary=binary)
        files[f"embed.KeyedVectors.load_word2vec_format:{binary}"] = (path, {"binary": binary})
    path = os.path.join(folder, "w2v.model")
    w2v.save(path)
    files["embed.Word2Vec.load"] = (path, {})
    path = os.path.join(folder, "kv.model")
    w2v.wv.save(path)
    files["embed.KeyedVectors.load"] = (path, {})
    path = os.path.join(folder, "ppmi.model")
    PPMI(SENTENCES, vector_size=3, min_count=1).save(path)
    files["embed.PPMI.load"] = (path, {})
    return files


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return write_files(str(tmp_path_factory.mktemp("valid")))


@st.composite
def damage(draw, size):
    """A list of edits of a file of `size` bytes."""
    edits = []
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["truncate", "flip", "overwrite", "insert", "delete"]))
        at = draw(st.integers(0, max(size - 1, 0)))
        if kind == "truncate":
            edits.append(("truncate", at, b""))
        elif kind == "flip":
            edits.append(("flip", at, bytes([1 << draw(st.integers(0, 7))])))
        elif kind == "overwrite":
            edits.append(("overwrite", at, draw(st.binary(min_size=1, max_size=8))))
        elif kind == "insert":
            edits.append(("insert", at, draw(st.sampled_from([b"\x00", b"\xff\xfe", b"\n", b" ", b"nan", b"-1",
                                                               b"99999999999999999999", b"{", b"\"", b"\\"]))))
        else:
            edits.append(("delete", at, b""))
    return edits


def apply(data, edits):
    data = bytearray(data)
    for kind, at, payload in edits:
        at = min(at, len(data))
        if kind == "truncate":
            del data[at:]
        elif kind == "flip" and at < len(data):
            data[at] ^= payload[0]
        elif kind == "overwrite":
            data[at:at + len(payload)] = payload
        elif kind == "insert":
            data[at:at] = payload
        elif kind == "delete" and at < len(data):
            del data[at]
    return bytes(data)


READERS = ["load", "lm.NGram.load_arpa", "data.Vocab.load", "embed.KeyedVectors.load_word2vec_format:False",
           "embed.KeyedVectors.load_word2vec_format:True", "embed.Word2Vec.load", "embed.KeyedVectors.load",
           "embed.PPMI.load"]


def test_every_reader_reads_its_own_valid_file(files, fuzz_worker):
    for reader in READERS:
        path, kwargs = files[reader]
        result = fuzz_worker.run({"call": "reader", "name": reader.split(":")[0], "path": path, "kwargs": kwargs})
        assert result["seqlab"]["ok"], (reader, result)


@pytest.mark.parametrize("reader", READERS)
def test_damaged_files_are_read_or_refused_clearly(reader, files, fuzz_worker, tmp_path):
    path, kwargs = files[reader]
    with open(path, "rb") as f:
        valid = f.read()
    damaged_path = str(tmp_path / ("damaged" + os.path.splitext(path)[1]))

    @settings(max_examples=FUZZ_EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                     HealthCheck.data_too_large])
    @given(edits=damage(len(valid)))
    def run(edits):
        with open(damaged_path, "wb") as f:
            f.write(apply(valid, edits))
        case = {"call": "reader", "name": reader.split(":")[0], "path": damaged_path, "kwargs": kwargs}
        answer = fuzz_worker.run(case)["seqlab"]
        if answer["ok"]:
            return
        where = f"{reader} on {edits!r}: {answer['exc']}: {answer['msg']}"
        assert answer["exc"] in ("ValueError", "UnicodeDecodeError"), f"unclear error from {where}"
        assert os.path.basename(damaged_path) in answer["msg"], f"the error does not name the file: {where}"

    run()
