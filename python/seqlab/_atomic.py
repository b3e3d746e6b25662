"""Atomic file writes: a temporary file in the same directory, fsync, then os.replace.

A crash or an exception mid-write leaves the previous file (if any) untouched, because the
only step that changes `path` is the rename, which POSIX makes atomic within a file system.
Every file seqlab writes goes through here: checkpoints (serialization.py), ONNX models,
Vocab.save and the corpus cache (data/), KeyedVectors files (embed/), ARPA files (lm/).
A leaf module: it imports nothing from seqlab. Tested in tests/test_data.py,
test_serialization.py, test_keyedvectors.py and test_onnx.py.
"""

import contextlib
import os
import tempfile


@contextlib.contextmanager
def atomic_open(path, mode="wb"):
    """Open a temporary file beside `path` for writing; on a clean exit it replaces `path`.

        with atomic_open("vocab.json", "w") as f:
            json.dump(obj, f)

    On an exception the temporary file is removed and `path` keeps its old contents.
    The new file gets the old file's permissions, or 0o644 when there was none.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_open: mode must be 'w' or 'wb', got {mode!r}")
    with atomic_path(path) as tmp:
        with open(tmp, mode, encoding="utf-8" if mode == "w" else None) as f:
            yield f


@contextlib.contextmanager
def atomic_path(path):
    """A temporary path beside `path` for a writer that opens files itself (C++, atomic_open):
    on a clean exit the file is fsynced and replaces `path`; on an exception it is removed.
    The new file gets the old file's permissions, or 0o644 when there was none: they are set
    once the writer is done, since a writer may replace `tmp` by a file of its own (the
    safetensors library renames its own temporary file over it)."""
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=directory)
    os.close(fd)
    try:
        try:
            permissions = os.stat(path).st_mode & 0o777
        except FileNotFoundError:
            permissions = 0o644
        yield tmp
        os.chmod(tmp, permissions)
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _fsync_directory(directory)


def _fsync_directory(directory):
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return  # some file systems do not allow opening a directory; the rename still happened
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
