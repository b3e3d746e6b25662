"""torch.cuda as seqlab has it: no CUDA device, ever. `torch.cuda.is_available()` is False, so
scripts written for both (`device = 'cuda' if torch.cuda.is_available() else 'cpu'`) take their
CPU branch, and the seeding calls are no-ops, as in torch without CUDA.
Tests: tests/test_lm_script_api.py."""

__all__ = ["is_available", "device_count", "manual_seed", "manual_seed_all", "is_bf16_supported", "synchronize"]


def is_available():
    return False


def device_count():
    return 0


def manual_seed(seed):
    """A no-op, as torch.cuda.manual_seed without CUDA."""


def manual_seed_all(seed):
    """A no-op, as torch.cuda.manual_seed_all without CUDA."""


def is_bf16_supported(including_emulation=True):
    return False


def synchronize(device=None):
    """torch.cuda.synchronize: without CUDA torch raises AssertionError; so does seqlab."""
    raise AssertionError("Torch not compiled with CUDA enabled (seqlab runs on the CPU only)")
