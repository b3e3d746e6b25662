"""tests/gpt_script.py, a nanoGPT-style training script, runs with seqlab in torch's place
unchanged ("PyTorch-shaped"), and learns as torch's run does."""
import importlib.util
import pathlib

import pytest

SCRIPT = pathlib.Path(__file__).with_name("gpt_script.py")
IMPORTS = "import seqlab as torch\nimport seqlab.nn as nn\nfrom seqlab.nn import functional as F\n"


def load(library):
    source = SCRIPT.read_text()
    assert IMPORTS in source
    if library == "torch":
        source = source.replace(IMPORTS, "import torch\nimport torch.nn as nn\nfrom torch.nn import functional as F\n")
    spec = importlib.util.spec_from_loader(f"gpt_script_{library}", loader=None)
    module = importlib.util.module_from_spec(spec)
    exec(compile(source, str(SCRIPT), "exec"), module.__dict__)
    return module


@pytest.mark.parametrize("library", ["seqlab", "torch"])
def test_the_gpt_script_learns_and_samples(library):
    results = load(library).main(steps=60)
    for flash, r in results.items():
        # from ln(27) ≈ 3.3 to a text of period 45: both attention paths learn it
        assert r["first_loss"] > 2.5 and r["loss"] < 1.0, (library, flash, r)
        assert len(r["sample"]) == 21 and r["sample"][0] == " "


def test_both_attention_paths_build_the_same_parameters():
    import seqlab
    script = load("seqlab")
    seqlab.manual_seed(0)
    a = script.GPT(27, flash=True)
    seqlab.manual_seed(0)
    b = script.GPT(27, flash=False)
    assert [n for n, _ in a.named_parameters()] == [n for n, _ in b.named_parameters()]
    assert a.n_params == b.n_params
    assert "transformer.h.0.attn.bias" in dict(b.named_buffers()) and not list(a.named_buffers())
