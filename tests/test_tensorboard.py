"""seqlab.utils.tensorboard.SummaryWriter: the event files TensorBoard's own reader loads, with
the same scalars, histograms, text and images as torch.utils.tensorboard writes for the same
calls; TFRecord framing and CRC-32C checked independently; without the tensorboard package,
SummaryWriter names the extra to install."""
import os
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch
import torch.utils.tensorboard
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

import seqlab
from seqlab.utils.tensorboard import SummaryWriter


def crc32c(data):
    """CRC-32C (Castagnoli's polynomial, reflected: 0x82F63B78), bit by bit: the reference."""
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


def masked_crc32c(data):
    """TFRecord's mask: rotate right by 15 bits and add 0xA282EAD8."""
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def load(path):
    ea = EventAccumulator(str(path), size_guidance={"tensors": 0, "scalars": 0, "histograms": 0, "images": 0})
    ea.Reload()
    return ea


def records(path):
    """The payloads of an event file, each TFRecord's two checksums verified."""
    out, data = [], open(path, "rb").read()
    i = 0
    while i < len(data):
        header = data[i:i + 8]
        (n,) = struct.unpack("<Q", header)
        assert struct.unpack("<I", data[i + 8:i + 12])[0] == masked_crc32c(header)
        payload = data[i + 12:i + 12 + n]
        assert struct.unpack("<I", data[i + 12 + n:i + 16 + n])[0] == masked_crc32c(payload)
        out.append(payload)
        i += 16 + n
    return out


def test_crc32c_known_values():
    assert crc32c(b"123456789") == 0xE3069283          # the CRC-32C check value
    assert crc32c(b"") == 0
    assert crc32c(bytes(32)) == 0x8A9136AA             # RFC 3720 B.4: 32 bytes of zeros


def write_both(tmp_path, calls):
    dirs = {}
    for name, cls in (("seqlab", SummaryWriter), ("torch", torch.utils.tensorboard.SummaryWriter)):
        d = tmp_path / name
        w = cls(str(d))
        calls(w, seqlab if name == "seqlab" else torch)
        w.close()
        dirs[name] = d
    return dirs


def test_scalars_histograms_text_and_images_read_back_as_torchs(tmp_path):
    rng = np.random.default_rng(0)
    weights = rng.standard_normal(2_000).astype(np.float32)
    image = rng.random((3, 6, 9)).astype(np.float32)

    def calls(w, lib):
        for step in range(1, 6):
            w.add_scalar("loss/train", lib.tensor(2.0 / step), step)
            w.add_scalar("lr", 0.1 * step, global_step=step)
        w.add_histogram("layer.weight", lib.tensor(weights), 3)
        w.add_histogram("counts", np.arange(10.0), 4, bins="auto")
        w.add_text("sample", "and god said, let there be light", 2)
        w.add_image("attention", lib.tensor(image), 1)
        w.add_image("map", image[0], 1, dataformats="HW")

    dirs = write_both(tmp_path, calls)
    ours, theirs = load(dirs["seqlab"]), load(dirs["torch"])
    for kind in ("scalars", "histograms", "images", "tensors"):
        assert sorted(ours.Tags()[kind]) == sorted(theirs.Tags()[kind]), kind
    for tag in ("loss/train", "lr"):
        a, b = ours.Scalars(tag), theirs.Scalars(tag)
        assert [e.step for e in a] == [e.step for e in b]
        np.testing.assert_allclose([e.value for e in a], [e.value for e in b], rtol=1e-7)
    for tag in ("layer.weight", "counts"):
        a, b = ours.Histograms(tag)[0], theirs.Histograms(tag)[0]
        assert a.step == b.step
        ha, hb = a.histogram_value, b.histogram_value
        for field in ("min", "max", "num", "sum", "sum_squares"):
            assert getattr(ha, field) == pytest.approx(getattr(hb, field), rel=1e-6), field
        assert sum(ha.bucket) == sum(hb.bucket) == ha.num
        assert list(ha.bucket_limit) == sorted(ha.bucket_limit)
        assert ha.bucket_limit[0] <= ha.min and ha.bucket_limit[-1] >= ha.max
    # TensorFlow's buckets: the same buckets as torch's for the same data
    a, b = ours.Histograms("layer.weight")[0].histogram_value, theirs.Histograms("layer.weight")[0].histogram_value
    assert list(a.bucket) == list(b.bucket)
    np.testing.assert_allclose(a.bucket_limit, b.bucket_limit, rtol=1e-12)
    assert ours.Tensors("sample/text_summary")[0].tensor_proto.string_val == \
        theirs.Tensors("sample/text_summary")[0].tensor_proto.string_val
    for tag in ("attention", "map"):
        a, b = ours.Images(tag)[0], theirs.Images(tag)[0]
        assert (a.width, a.height, a.step) == (b.width, b.height, b.step) == (9, 6, 1)
    # every record of the file is framed and checksummed as TFRecord says
    for f in os.listdir(dirs["seqlab"]):
        assert len(records(dirs["seqlab"] / f)) >= 10


def test_add_scalars_writes_one_run_per_series_as_torch(tmp_path):
    def calls(w, lib):
        for step in range(3):
            w.add_scalars("loss", {"train": 1.0 / (step + 1), "valid": 2.0 / (step + 1)}, step)
    dirs = write_both(tmp_path, calls)
    ours = sorted(p for p in os.listdir(dirs["seqlab"]) if (dirs["seqlab"] / p).is_dir())
    assert ours == sorted(p for p in os.listdir(dirs["torch"]) if (dirs["torch"] / p).is_dir()) == \
        ["loss_train", "loss_valid"]
    a, b = load(dirs["seqlab"] / "loss_valid").Scalars("loss"), load(dirs["torch"] / "loss_valid").Scalars("loss")
    assert [(e.step, e.value) for e in a] == [(e.step, e.value) for e in b]


def test_figure_default_log_dir_context_manager_and_purge_step(tmp_path, monkeypatch):
    import matplotlib
    matplotlib.use("Agg")
    from seqlab import viz
    monkeypatch.chdir(tmp_path)
    with SummaryWriter(comment="_lstm", purge_step=5) as w:
        fig = viz.training_curves({"loss": [3.0, 2.0, 1.5]})
        w.add_figure("curves", fig, 2)
        logdir = w.get_logdir()
    assert logdir.startswith("runs" + os.sep) and logdir.endswith("_lstm")
    ea = load(tmp_path / logdir)
    img = ea.Images("curves")[0]
    assert img.step == 2 and img.width > 100 and img.encoded_image_string[:8] == b"\x89PNG\r\n\x1a\n"


def test_errors(tmp_path):
    w = SummaryWriter(str(tmp_path))
    with pytest.raises(ValueError, match="scalar should be 0D"):
        w.add_scalar("x", seqlab.ones(3), 0)
    with pytest.raises(ValueError, match="dataformats"):
        w.add_image("img", np.zeros((4, 5)), 0)                 # 2-D but 'CHW'
    with pytest.raises(ValueError, match="NaN"):
        w.add_histogram("h", np.array([1.0, np.nan]), 0)
    with pytest.raises(TypeError, match="add_scalar"):
        w.add_scalar("x", object(), 0)
    w.close()
    with pytest.raises(RuntimeError, match="closed"):
        w.add_scalar("x", 1.0, 0)


def test_without_the_tensorboard_package_the_error_names_the_extra(tmp_path):
    child = textwrap.dedent("""
        import sys
        sys.modules["tensorboard"] = None           # as if tensorboard were not installed
        import seqlab                                # importing seqlab does not need it
        from seqlab.utils.tensorboard import SummaryWriter
        try:
            SummaryWriter(sys.argv[1])
        except ImportError as e:
            print(type(e).__name__, e)
    """)
    out = subprocess.run([sys.executable, "-c", child, str(tmp_path / "run")], capture_output=True, text=True,
                         check=True).stdout
    assert out.startswith("ModuleNotFoundError") and "pip install seqlab[tensorboard]" in out, out
    assert not (tmp_path / "run").exists()


def test_when_tensorboards_own_dependency_is_missing_the_error_names_it(tmp_path):
    # tensorboard is installed but protobuf, which its protos import, is not: the error says so
    child = textwrap.dedent("""
        import sys
        sys.modules["google.protobuf"] = None
        from seqlab.utils.tensorboard import SummaryWriter
        try:
            SummaryWriter(sys.argv[1])
        except ImportError as e:
            print(type(e).__name__, e.name, e)
    """)
    out = subprocess.run([sys.executable, "-c", child, str(tmp_path / "run")], capture_output=True, text=True,
                         check=True).stdout
    assert out.startswith("ModuleNotFoundError google.protobuf") and "import 'google.protobuf" in out, out
    assert "tensorboard package, which is installed" in out and "pip install seqlab[tensorboard]" in out, out
    assert not (tmp_path / "run").exists()


def test_events_of_a_writer_never_closed_reach_the_file_at_exit(tmp_path):
    # a writer in a module global lives until the interpreter exits; its finalizer closes it
    # while tensorboard's writer thread still runs (a __del__ at shutdown lost the queued events)
    child = textwrap.dedent("""
        import sys
        from seqlab.utils.tensorboard import SummaryWriter
        WRITER = SummaryWriter(sys.argv[1])
        for i in range(5):
            WRITER.add_scalar("loss", float(i), i)
        WRITER.add_scalars("acc", {"train": 0.5, "val": 0.25}, 0)
    """)
    subprocess.run([sys.executable, "-c", child, str(tmp_path / "run")], check=True, timeout=120)
    assert [(e.step, e.value) for e in load(tmp_path / "run").Scalars("loss")] == [(i, float(i)) for i in range(5)]
    for series, value in (("train", 0.5), ("val", 0.25)):
        assert [(e.step, e.value) for e in load(tmp_path / "run" / f"acc_{series}").Scalars("acc")] == [(0, value)]


def test_close_is_idempotent_and_a_collected_writer_closes_its_files(tmp_path):
    import gc
    w = SummaryWriter(tmp_path / "a")
    w.add_scalar("x", 1.0, 0)
    w.close()
    w.close()
    w = SummaryWriter(tmp_path / "b")
    w.add_scalar("x", 2.0, 0)
    del w
    gc.collect()
    assert [(e.step, e.value) for e in load(tmp_path / "b").Scalars("x")] == [(0, 2.0)]
