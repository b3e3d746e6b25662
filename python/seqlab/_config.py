"""What seqlab chose on this machine (numpy.show_config, torch.__config__.show): the CPU, the
instruction set of every SIMD dispatcher (SEQLAB_ISA caps it), the BLAS and the threads, and how
the core was built. The benchmarks print it in their headers. Tests: tests/test_isa.py."""
import os
import platform

from . import _core
from ._version import __version__

# The kernel families that dispatch on the instruction set; all read the one level simd::active_isa().
DISPATCHERS = ("elementwise and transcendental kernels", "softmax, log_softmax, cross_entropy rows",
               "reductions", "panel GEMM (recurrent steps, fused attention)", "word2vec/FastText training")


def cpu_model():
    """The CPU's model name (/proc/cpuinfo), e.g. 'AMD EPYC 7B13 64-Core Processor'."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


class _Text(str):
    """A str that shows as its text (a notebook cell or the REPL prints it, not its repr)."""

    def __repr__(self):
        return str(self)


def isa_summary():
    """One line for benchmark headers: the CPU model and the instruction set the kernels use."""
    return (f"{cpu_model()}; seqlab SIMD {_core._simd_isa()} (CPU has {', '.join(_core._available_isas())}); "
            f"threads {_core.get_num_threads()}")


def show_config():
    """What seqlab chose on this machine, as text: CPU, instruction set per dispatcher, BLAS,
    threads, build. `print(seqlab.show_config())`, or the bare call in a notebook."""
    isa, cpu = _core._simd_isa(), _core._cpu_isa()
    env = os.environ.get("SEQLAB_ISA")
    why = f"capped by SEQLAB_ISA={env}" if env else "the CPU's best; SEQLAB_ISA=sse2|avx2|avx512 caps it"
    build = _core._build_info()
    rows, regs = _core._panel_tile()
    lines = [
        f"seqlab {__version__}",
        f"  CPU: {cpu_model()} ({platform.machine()}, {os.cpu_count()} logical CPUs; "
        f"instruction sets: {', '.join(_core._available_isas())})",
        f"  SIMD: {isa} ({why})",
        *(f"    {name}: {isa}" for name in DISPATCHERS),
        f"    panel GEMM tile: {rows} rows x {regs} registers ({_core._panel_width(False)} float32 / "
        f"{_core._panel_width(True)} float64 columns per panel)",
        f"  BLAS: {_core._blas_info()}; one thread per call, large products split in blocks over seqlab's pool",
        f"  threads: {_core.get_num_threads()} (seqlab's pool: its loops and the GEMMs' blocks; seqlab.set_num_threads)",
        f"  build: {build['compiler']}, {build['build_type'] or 'no build type'}, C++ {build['cxx_standard']}",
    ]
    if cpu != isa:
        lines[3] = lines[3].replace(")", f"; the CPU has {cpu})", 1)
    return _Text("\n".join(lines))
