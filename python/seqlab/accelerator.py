"""torch.accelerator: seqlab computes on the CPU only, so a device-agnostic script
(`if torch.accelerator.is_available(): device = torch.accelerator.current_accelerator()`)
takes its CPU branch. Tests: tests/test_lm_script_api.py."""

__all__ = ["is_available", "current_accelerator", "device_count"]


def is_available():
    return False


def current_accelerator(check_available=False):
    """The accelerator's device, None when there is none (always, in seqlab)."""
    return None


def device_count():
    return 0
