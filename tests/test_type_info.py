"""seqlab.finfo and seqlab.iinfo (seqlab/_type_info.py) against torch.finfo / torch.iinfo: every
attribute, the repr, equality and the errors."""
import pytest
import torch

import seqlab


@pytest.mark.parametrize("name", ["float32", "float64"])
def test_finfo_equals_torchs(name):
    ours, theirs = seqlab.finfo(getattr(seqlab, name)), torch.finfo(getattr(torch, name))
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(ours, attr) == getattr(theirs, attr), attr
        assert type(getattr(ours, attr)) is type(getattr(theirs, attr)), attr
    assert repr(ours) == repr(theirs)
    assert ours == seqlab.finfo(getattr(seqlab, name))


def test_finfo_defaults_to_the_default_dtype():
    assert seqlab.finfo() == seqlab.finfo(seqlab.float32)
    assert seqlab.finfo().eps == torch.finfo().eps


@pytest.mark.parametrize("name", ["int8", "uint8", "int16", "int32", "int64"])
def test_iinfo_equals_torchs(name):
    ours, theirs = seqlab.iinfo(getattr(seqlab, name)), torch.iinfo(getattr(torch, name))
    for attr in ("bits", "max", "min", "dtype"):
        assert getattr(ours, attr) == getattr(theirs, attr), attr
        assert type(getattr(ours, attr)) is type(getattr(theirs, attr)), attr
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("call", [
    lambda m: m.finfo(m.int32), lambda m: m.iinfo(m.float32), lambda m: m.iinfo(m.bool), lambda m: hash(m.finfo()),
])
def test_errors_are_torchs(call):
    with pytest.raises(TypeError) as theirs:
        call(torch)
    with pytest.raises(TypeError) as ours:
        call(seqlab)
    if "unhashable" not in str(theirs.value):
        assert str(ours.value) == str(theirs.value)
