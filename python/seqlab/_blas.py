"""Load the BLAS seqlab links against (PyPI's scipy-openblas32) before the C++ core, so
that the core's dependency resolves to it whatever the install layout (DESIGN.md, "BLAS"). The
core keeps OpenBLAS on one thread and splits large products over its own pool."""
import ctypes
import os


def load():
    try:
        import scipy_openblas32
    except ImportError as e:  # pragma: no cover - a broken install
        raise ImportError("seqlab needs the scipy-openblas32 package: pip install scipy-openblas32") from e
    path = os.path.join(scipy_openblas32.get_lib_dir(), "libscipy_openblas.so")
    ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
