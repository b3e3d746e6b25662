"""The instruction set every SIMD dispatcher uses: SEQLAB_ISA caps it, a level the CPU
lacks or an unknown name fails the import with a message naming what the CPU has, show_config()
names the choice, and the transcendental kernels keep their stated error bounds against float64
on every level (this module runs once per level the CPU has: conftest.ISA_MODULES).
cpp/src/simd/isa.hpp, python/seqlab/_config.py."""
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import seqlab
import seqlab.nn.functional as F

LEVELS = ["sse2", "avx2", "avx512"]


def run_seqlab(code, **env):
    """(returncode, stdout + stderr) of `python -c code` with extra environment variables."""
    full = dict(os.environ, **env)
    if "SEQLAB_ISA" not in env:  # the caller's own SEQLAB_ISA must not leak into the child
        full.pop("SEQLAB_ISA", None)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full, timeout=120)
    return p.returncode, p.stdout + p.stderr


# ----------------------------------------------------------------------------------------
# choosing the level
# ----------------------------------------------------------------------------------------

def test_isa_fixture_caps_every_dispatcher(isa):
    assert seqlab._core._simd_isa() == isa
    assert f"SIMD: {isa}" in seqlab.show_config()
    # the panel GEMM's tile follows the level: 6 rows x 2 registers of 4/8 floats for the 16
    # registers of SSE2/AVX2, 12 x 2 registers of 16 floats for AVX-512's 32
    assert seqlab._core._panel_width(False) == {"sse2": 8, "avx2": 16, "avx512": 32}[isa]
    assert seqlab._core._panel_width(True) == {"sse2": 4, "avx2": 8, "avx512": 16}[isa]
    assert seqlab._core._panel_tile() == {"sse2": (6, 2), "avx2": (6, 2), "avx512": (12, 2)}[isa]


def test_available_levels_are_the_cpus():
    cpu = seqlab._core._cpu_isa()
    assert seqlab._core._available_isas() == LEVELS[:LEVELS.index(cpu) + 1]


@pytest.mark.parametrize("level", LEVELS)
def test_seqlab_isa_environment_variable(level):
    """SEQLAB_ISA=<level> at import: taken when the CPU has it, refused with a clear ImportError
    naming the levels the CPU has when it does not."""
    cpu = seqlab._core._cpu_isa()
    code, out = run_seqlab("import seqlab; print(seqlab._core._simd_isa()); print(seqlab.show_config())",
                           SEQLAB_ISA=level)
    if LEVELS.index(level) <= LEVELS.index(cpu):
        assert code == 0, out
        assert out.splitlines()[0] == level
        assert f"SIMD: {level} (capped by SEQLAB_ISA={level}" in out
    else:
        assert code != 0
        assert f"ImportError: SEQLAB_ISA={level}: this CPU does not support {level}" in out, out


@pytest.mark.parametrize("cpu", ["sse2", "avx2"])
def test_level_above_the_cpu_is_refused(cpu):
    """On any machine: as a CPU with only up to `cpu` (SEQLAB_TEST_CPU_ISA), each level above it is
    refused at import, naming what that CPU has; the levels it has are taken."""
    has = LEVELS[:LEVELS.index(cpu) + 1]
    for level in LEVELS:
        code, out = run_seqlab("import seqlab; print(seqlab._core._simd_isa(), seqlab._core._available_isas())",
                               SEQLAB_ISA=level, SEQLAB_TEST_CPU_ISA=cpu)
        if level in has:
            assert code == 0 and out.split()[0] == level, out
        else:
            assert code != 0
            assert (f"SEQLAB_ISA={level}: this CPU does not support {level} (it has {', '.join(has)})"
                    in out), out
    # unset: the (pretended) CPU's best
    code, out = run_seqlab("import seqlab; print(seqlab._core._simd_isa())", SEQLAB_TEST_CPU_ISA=cpu)
    assert code == 0 and out.split()[0] == cpu, out


def test_unknown_level_is_refused():
    code, out = run_seqlab("import seqlab", SEQLAB_ISA="avx1024")
    assert code != 0
    assert "ImportError: SEQLAB_ISA: unknown instruction set 'avx1024' (seqlab has sse2, avx2, avx512; " \
           "this CPU has " in out, out


def test_set_isa_refuses_what_the_cpu_lacks():
    with pytest.raises(ValueError, match="unknown instruction set 'neon'"):
        seqlab._core._set_isa("neon")
    code, out = run_seqlab("import seqlab\ntry:\n    seqlab._core._set_isa('avx512')\nexcept ValueError as e:\n"
                           "    print('refused:', e)", SEQLAB_TEST_CPU_ISA="avx2")
    assert "refused: set_isa: this CPU does not support avx512 (it has sse2, avx2)" in out, out


def test_show_config_names_cpu_blas_threads_and_build():
    text = seqlab.show_config()
    assert isinstance(text, str) and repr(text) == text  # a notebook shows the text, not a repr
    from seqlab._config import cpu_model
    assert f"CPU: {cpu_model()}" in text
    assert f"SIMD: {seqlab._core._simd_isa()}" in text
    for line in ("panel GEMM (recurrent steps, fused attention)", "word2vec/FastText training", "BLAS: OpenBLAS",
                 f"threads: {seqlab.get_num_threads()}", "build: GCC"):
        assert line in text, text


# ----------------------------------------------------------------------------------------
# transcendental kernels against float64, with their bounds, on every level
# ----------------------------------------------------------------------------------------

GRID = np.concatenate([np.linspace(-100, 100, 400001), np.linspace(-5, 5, 100001), [0.0, -0.0, 1e-30, -1e-30]])
# max error in ulp of the result, over results in the normal range (a subnormal result carries
# fewer significant bits, and set_flush_denormal(True) zeroes it)
ULP_BOUND = {
    np.float32: {"exp": 2, "tanh": 2, "sigmoid": 3, "log": 1},
    np.float64: {"exp": 2, "tanh": 3, "sigmoid": 5, "log": 2},
}


def _ulp_errors(ours, ref, dtype):
    finfo = np.finfo(dtype)
    keep = np.isfinite(ref) & (np.abs(ref) < finfo.max / 2) & (np.abs(ref) >= finfo.tiny)
    spacing = np.spacing(np.abs(ref[keep]).astype(dtype)).astype(np.float64)
    return np.abs(ours[keep] - ref[keep]) / spacing


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("op", ["exp", "tanh", "sigmoid", "log"])
def test_transcendental_ulp_bounds(isa, op, dtype):
    x = GRID.astype(dtype)
    if op == "log":
        x = (np.abs(x) + np.asarray(1e-3, dtype)).astype(dtype)
    x64 = x.astype(np.float64)
    ref = {"exp": np.exp, "tanh": np.tanh, "log": np.log,
           "sigmoid": lambda v: torch.sigmoid(torch.from_numpy(v)).numpy()}[op](x64)
    ours = getattr(seqlab.from_numpy(x), op)().numpy().astype(np.float64)
    err = _ulp_errors(ours, ref, dtype)
    assert err.max() <= ULP_BOUND[dtype][op], f"{op} {dtype.__name__} on {isa}: {err.max():.2f} ulp"


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_error_bounds(isa, approximate, dtype):
    """GELU against float64 (x·Φ(x) with Φ from erfc, or the tanh form): absolute error within a few
    eps·max(1, |x|) everywhere, relative error bounded for x >= -3. The tanh form and float64's
    ½(1 + erf) cancel in the negative tail (as torch's do), hence the wider relative bounds."""
    x = GRID.astype(dtype)
    t = torch.from_numpy(x.astype(np.float64))
    if approximate == "none":
        ref = (t * 0.5 * torch.special.erfc(-t / np.sqrt(2.0))).numpy()
    else:
        ref = (0.5 * t * (1 + torch.tanh(np.sqrt(2 / np.pi) * (t + 0.044715 * t ** 3)))).numpy()
    ours = F.gelu(seqlab.from_numpy(x), approximate=approximate).numpy().astype(np.float64)
    eps = float(np.finfo(dtype).eps)
    abs_bound, rel_bound = {(np.float32, "none"): (2, 8), (np.float32, "tanh"): (2, 256),
                            (np.float64, "none"): (32, 256), (np.float64, "tanh"): (2, 512)}[(dtype, approximate)]
    x64 = x.astype(np.float64)
    assert np.max(np.abs(ours - ref) / np.maximum(1.0, np.abs(x64))) <= abs_bound * eps
    m = (x64 >= -3) & (ref != 0)
    assert np.max(np.abs(ours[m] - ref[m]) / np.abs(ref[m])) <= rel_bound * eps
