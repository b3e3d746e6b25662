"""torch.utils.tensorboard.SummaryWriter for seqlab: scalars, groups of scalars, histograms,
text, images and matplotlib figures, written as TensorBoard event files by the tensorboard
package (see _summary.py), so `tensorboard --logdir runs` shows a seqlab training run as it shows
a PyTorch one. tensorboard is an optional extra: `pip install seqlab[tensorboard]`."""
import datetime
import io
import operator
import os
import socket
import struct
import time
import weakref

import numpy as np

from ..._optional import require

_summary = None  # the module of the tensorboard protos, imported by the first SummaryWriter

# TensorFlow's default histogram buckets: ±1e-12 · 1.1^k up to 1e20, and 0.
_TF_BUCKETS = None


def _tensorflow_buckets():
    global _TF_BUCKETS
    if _TF_BUCKETS is None:
        pos, v = [], 1e-12
        while v < 1e20:
            pos.append(v)
            v *= 1.1
        _TF_BUCKETS = np.array([-x for x in reversed(pos)] + [0.0] + pos)
    return _TF_BUCKETS


def _numpy(value, what):
    """A tensor (seqlab or torch), array or number as a NumPy array."""
    if hasattr(value, "detach"):
        value = value.detach()
    if hasattr(value, "cpu") and not isinstance(value, np.ndarray):
        value = value.cpu()
    try:
        return np.asarray(value.numpy() if hasattr(value, "numpy") else value)
    except (TypeError, ValueError) as e:
        raise TypeError(f"SummaryWriter.{what}: expected a number, array or tensor, got {type(value).__name__}") from e


def _scalar(value, what):
    arr = _numpy(value, what).squeeze()
    if arr.ndim != 0:
        raise ValueError(f"SummaryWriter.{what}: scalar should be 0D, got shape {list(arr.shape)}")
    try:
        return float(arr)
    except (TypeError, ValueError) as e:
        raise TypeError(f"SummaryWriter.{what}: expected a number or a 0-d tensor, got {type(value).__name__}") from e


def _step(global_step, what):
    """global_step as the int64 TensorBoard stores: an int exactly (int(float) would round
    2**62 + 1), anything else truncated as torch's int(step); torch's ValueError (protobuf's
    "Value out of range") past int64, here naming the method and the argument."""
    try:
        step = operator.index(global_step)
    except TypeError:
        step = int(_scalar(global_step, what))
    if not -2**63 <= step < 2**63:
        raise ValueError(f"SummaryWriter.{what}: global_step={step} is out of range: TensorBoard stores the step "
                         f"as an int64")
    return step


class SummaryWriter:
    """Writes TensorBoard events to `log_dir` (default runs/<Mon DD_HH-MM-SS>_<host><comment>),
    torch's arguments and defaults. Events are queued (up to max_queue) and written by
    tensorboard's writer thread at least every flush_secs seconds, by flush() and by close(),
    which the writer's finalizer calls when it is collected or, at the latest, at interpreter exit.
    Needs the tensorboard package (`pip install seqlab[tensorboard]`)."""

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10, flush_secs=120, filename_suffix=""):
        if log_dir is None:
            stamp = datetime.datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", f"{stamp}_{socket.gethostname()}{comment}")
        global _summary
        _summary = require(f"{__package__}._summary", "tensorboard",
                           "SummaryWriter writes TensorBoard event files with", package="tensorboard")
        self.log_dir = os.fspath(log_dir)
        self.purge_step = purge_step
        self.max_queue, self.flush_secs, self.filename_suffix = max_queue, flush_secs, filename_suffix
        self._writer = _summary.EventFileWriter(self.log_dir, max_queue, flush_secs, filename_suffix)
        self._scalar_writers = {}     # add_scalars: one event file per series, in a subdirectory
        self._closed = False
        # closes the files when the writer is collected, or at exit if it never is (a module global):
        # finalize's atexit hook runs while tensorboard's writer thread can still drain its queue,
        # which a __del__ run during interpreter shutdown could not
        self._finalizer = weakref.finalize(self, _close_all, self._writer, self._scalar_writers)
        if purge_step is not None:    # TensorBoard drops the events at and after purge_step
            self._writer.add_event(_summary.event(time.time(), step=purge_step, session_log=_summary.session_start()))

    def get_logdir(self):
        return self.log_dir

    def _add(self, value, global_step, walltime, what, writer=None):
        if self._closed:
            raise RuntimeError(f"SummaryWriter: the writer of {self.log_dir} is closed")
        wall = time.time() if walltime is None else float(walltime)
        step = None if global_step is None else _step(global_step, what)
        (writer or self._writer).add_event(_summary.event(wall, step=step, value=value))

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                   double_precision=False):
        """One point of the curve `tag` (e.g. 'loss/train') at global_step."""
        self._add(_summary.scalar(tag, _scalar(scalar_value, "add_scalar")), global_step, walltime, "add_scalar")

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """Several curves on one chart: each key of tag_scalar_dict is written, under main_tag, to
        its own run <log_dir>/<main_tag>_<key>, as torch does."""
        for key, value in tag_scalar_dict.items():
            run = os.path.join(self.log_dir, f"{main_tag}_{key}".replace("/", "_"))
            if run not in self._scalar_writers:
                self._scalar_writers[run] = _summary.EventFileWriter(run, self.max_queue, self.flush_secs,
                                                                   self.filename_suffix)
            self._add(_summary.scalar(main_tag, _scalar(value, "add_scalars")), global_step, walltime, "add_scalars",
                      self._scalar_writers[run])

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None, max_bins=None):
        """The distribution of `values` (e.g. a layer's weights) at global_step. bins: 'tensorflow'
        (TensorFlow's exponential buckets) or anything np.histogram takes ('auto', 64, ...)."""
        v = _numpy(values, "add_histogram").astype(np.float64).ravel()
        if v.size == 0:
            raise ValueError("SummaryWriter.add_histogram: the histogram is empty")
        if not np.isfinite(v).all():
            raise ValueError(f"SummaryWriter.add_histogram: {tag!r} has NaN or infinite values")
        counts, edges = np.histogram(v, bins=_tensorflow_buckets() if isinstance(bins, str) and bins == "tensorflow"
                                     else bins)
        if max_bins is not None and len(counts) > max_bins:
            # torch's merge: runs of len(counts) // max_bins neighbours (the last one shorter), so
            # that more than max_bins buckets may remain (13 bins, max_bins=4: 5 buckets of 3)
            starts = np.arange(0, len(counts), len(counts) // max_bins)
            counts, edges = np.add.reduceat(counts, starts), np.append(edges[starts], edges[-1])
        nonzero = np.flatnonzero(counts)
        if nonzero.size == 0:  # torch: "The histogram is empty, please file a bug report."
            raise ValueError(f"SummaryWriter.add_histogram: no value of {tag!r} lies inside the bins "
                             f"[{edges[0]:g}, {edges[-1]:g}] (min {v.min():g}, max {v.max():g})")
        a, b = nonzero[0], nonzero[-1]
        # bucket i covers (limit[i-1], limit[i]]: an empty first bucket carries the left edge
        limits = np.concatenate([[edges[a]], edges[a + 1:b + 2]])
        buckets = np.concatenate([[0], counts[a:b + 1]])
        value = _summary.histogram(tag, v.min(), v.max(), v.size, v.sum(), v.dot(v), limits, buckets)
        self._add(value, global_step, walltime, "add_histogram")

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        """Text (Markdown) shown in TensorBoard's Text tab, e.g. a sample after each epoch."""
        # torch files text under <tag>/text_summary; TensorBoard shows that name
        self._add(_summary.text(f"{tag}/text_summary", str(text_string)), global_step, walltime, "add_text")

    def add_image(self, tag, img_tensor, global_step=None, walltime=None, dataformats="CHW"):
        """An image: floats in [0, 1] (scaled by 255) or uint8, laid out as dataformats says
        ('CHW', 'HWC', 'HW'); 1, 3 or 4 channels."""
        img = _numpy(img_tensor, "add_image")
        fmt = dataformats.upper()
        if sorted(fmt) not in (sorted("CHW"), sorted("HW")) or img.ndim != len(fmt):
            raise ValueError(f"SummaryWriter.add_image: an image of shape {list(img.shape)} does not match "
                             f"dataformats={dataformats!r}")
        img = np.transpose(img, [fmt.index(c) for c in "HWC"]) if fmt != "HW" and len(fmt) == 3 else img
        if img.ndim == 2:
            img = img[:, :, None]
        if img.shape[2] not in (1, 3, 4):
            raise ValueError(f"SummaryWriter.add_image: {img.shape[2]} channels; expected 1, 3 or 4")
        if img.dtype != np.uint8:
            img = (np.clip(img.astype(np.float64), 0, 1) * 255).round().astype(np.uint8)
        self._add(_summary.image(tag, img.shape[0], img.shape[1], img.shape[2], _png(img)), global_step, walltime,
                  "add_image")

    def add_figure(self, tag, figure, global_step=None, close=True, walltime=None):
        """A matplotlib figure (e.g. from seqlab.viz) as an image; closed afterwards if close."""
        buf = io.BytesIO()
        figure.savefig(buf, format="png")
        png = buf.getvalue()
        width, height = _png_size(png)
        self._add(_summary.image(tag, height, width, 4, png), global_step, walltime, "add_figure")
        if close:
            import matplotlib.pyplot as plt
            plt.close(figure)

    def flush(self):
        if self._closed:
            return
        self._writer.flush()
        for w in self._scalar_writers.values():
            w.flush()

    def close(self):
        if self._closed:
            return
        self._closed = True
        self._finalizer()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _close_all(writer, scalar_writers):
    """Close the event files of a SummaryWriter (its finalizer: it holds no reference to the writer)."""
    writer.close()
    for w in scalar_writers.values():
        w.close()


def _png(img):
    """uint8 (H, W, C) as PNG bytes (matplotlib's encoder)."""
    import matplotlib.image
    buf = io.BytesIO()
    matplotlib.image.imsave(buf, img[:, :, 0] if img.shape[2] == 1 else img, format="png",
                            cmap="gray" if img.shape[2] == 1 else None, vmin=0, vmax=255)
    return buf.getvalue()


def _png_size(png):
    """(width, height) from a PNG's IHDR chunk."""
    return struct.unpack(">II", png[16:24])
