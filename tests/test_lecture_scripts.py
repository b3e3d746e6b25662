"""Three lecture-style scripts written for this project run unchanged with `import seqlab as
torch` and reach the losses stated here, as the same scripts do with torch:
tests/bigram_script.py (bigram counts, sampling from a seeded Generator, a one-layer net with
W.data += -lr * W.grad), tests/mlp_script.py (a makemore-style MLP with manual updates) and
tests/small_gpt_script.py (a small GPT with `device = 'cuda' if torch.cuda.is_available() else
'cpu'`). torch runs on one thread here, so that the two CPUs shared by the suite are not
oversubscribed."""
import importlib.util
import pathlib

import pytest
import torch

HERE = pathlib.Path(__file__).parent
SEQLAB_IMPORTS = {
    "import seqlab as torch\n": "import torch\n",
    "import seqlab.nn.functional as F\n": "import torch.nn.functional as F\n",
    "import seqlab.nn as nn\n": "import torch.nn as nn\n",
    "from seqlab.nn import functional as F\n": "from torch.nn import functional as F\n",
}


def load(name, library):
    path = HERE / name
    source = path.read_text()
    assert "import seqlab as torch\n" in source
    if library == "torch":
        for ours, theirs in SEQLAB_IMPORTS.items():
            source = source.replace(ours, theirs)
        assert "seqlab" not in source.split('"""', 2)[2], f"{name} still names seqlab after its imports"
    spec = importlib.util.spec_from_loader(f"{path.stem}_{library}", loader=None)
    module = importlib.util.module_from_spec(spec)
    exec(compile(source, str(path), "exec"), module.__dict__)
    return module


@pytest.fixture
def one_torch_thread():
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


def test_bigram_counts_equal_torch_and_the_net_learns(one_torch_thread):
    r = {lib: load("bigram_script.py", lib).main() for lib in ("seqlab", "torch")}
    assert r["seqlab"]["N"] == r["torch"]["N"]  # counting is exact
    assert r["seqlab"]["count_nll"] == pytest.approx(r["torch"]["count_nll"], abs=1e-5)
    assert 2.4 < r["seqlab"]["count_nll"] < 2.55
    for lib, out in r.items():
        # from about ln(27) + the random W's spread to near the counts' nll in 50 steps
        assert out["first_loss"] > 3.0 and out["loss"] < 2.6, (lib, out["first_loss"], out["loss"])
        assert len(out["samples"]) == 5 and all(s.endswith(".") for s in out["samples"])


def test_mlp_reaches_the_stated_dev_loss(one_torch_thread):
    for lib in ("seqlab", "torch"):
        out = load("mlp_script.py", lib).main()
        assert out["first_loss"] > 3.0, (lib, out)
        assert out["train_loss"] < 2.35 and out["dev_loss"] < 2.4, (lib, out)
        assert all(s.endswith(".") for s in out["samples"])


def test_small_gpt_learns_the_rhyme(one_torch_thread):
    for lib in ("seqlab", "torch"):
        out = load("small_gpt_script.py", lib).main(max_iters=150, eval_interval=100)
        (step0, train0, val0), (last, train, val) = out["history"][0], out["history"][-1]
        assert step0 == 0 and last == 149
        assert train0 > 3.0 and train < 0.5 and val < 0.5, (lib, out["history"])
        assert len(out["sample"]) == 61 and out["sample"][0] == "\n"
