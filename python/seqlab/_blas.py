"""Load the BLAS seqlab links against (PyPI's scipy-openblas32) before the C++ core, so
that the core's dependency resolves to it whatever the install layout (DESIGN.md, "BLAS")."""
import ctypes
import os


# OpenBLAS's idle workers busy-wait ~0.1 s after each call by default, taking a core from
# seqlab's own pool (and from anything else in the process): a 256² matmul followed by a
# 512k-element tanh took 954 µs per pair, 509 µs with this timeout; the small GEMMs of an
# LSTM step (20×200·200×800) are unaffected (69-76 µs). OpenBLAS reads it once, at load.
# A value the user set wins.
THREAD_TIMEOUT = "16"


def load():
    os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", THREAD_TIMEOUT)
    try:
        import scipy_openblas32
    except ImportError as e:  # pragma: no cover - a broken install
        raise ImportError("seqlab needs the scipy-openblas32 package: pip install scipy-openblas32") from e
    path = os.path.join(scipy_openblas32.get_lib_dir(), "libscipy_openblas.so")
    ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
