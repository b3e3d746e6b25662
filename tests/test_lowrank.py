"""torch.svd_lowrank and torch.pca_lowrank (python/seqlab/_lowrank.py) against torch. Their test
matrices are random draws, which cannot be torch's bits; on matrices whose rank is at most q the
result does not depend on the draw (up to the signs of singular vectors), so values, the
reconstruction and the gradients of the singular values are compared with torch's."""
import numpy as np
import pytest
import torch

import seqlab


def low_rank(rng, *shape, rank):
    *batch, m, n = shape
    return rng.standard_normal((*batch, m, rank)) @ rng.standard_normal((*batch, rank, n))


@pytest.mark.parametrize("shape", [(8, 5), (5, 8), (3, 7, 6)])
@pytest.mark.parametrize("niter", [0, 2])
def test_svd_lowrank_matches_torch_on_low_rank_matrices(rng, shape, niter):
    a = low_rank(rng, *shape, rank=3)
    seqlab.manual_seed(0)
    U, S, V = seqlab.svd_lowrank(seqlab.tensor(a), q=4, niter=niter)
    tU, tS, tV = torch.svd_lowrank(torch.tensor(a), q=4, niter=niter)
    assert tuple(U.shape) == tuple(tU.shape) and tuple(S.shape) == tuple(tS.shape) and tuple(V.shape) == tuple(tV.shape)
    np.testing.assert_allclose(S.numpy()[..., :3], tS.numpy()[..., :3], rtol=1e-9)
    recon = U.numpy() @ (S.numpy()[..., :, None] * np.swapaxes(V.numpy(), -1, -2))
    np.testing.assert_allclose(recon, a, atol=1e-9)
    # the singular vectors of the nonzero singular values are torch's up to sign
    for k in range(3):
        u, tu = U.numpy()[..., :, k], tU.numpy()[..., :, k]
        sign = np.sign(np.sum(u * tu, axis=-1, keepdims=True))
        np.testing.assert_allclose(u * sign, tu, atol=1e-8)


def test_svd_lowrank_with_a_mean_and_gradients(rng):
    a = low_rank(rng, 7, 5, rank=2)
    mean = rng.standard_normal((1, 5))
    got = seqlab.svd_lowrank(seqlab.tensor(a + mean), q=3, M=seqlab.tensor(mean))[1].numpy()
    want = torch.svd_lowrank(torch.tensor(a + mean), q=3, M=torch.tensor(mean))[1].numpy()
    np.testing.assert_allclose(got[:2], want[:2], rtol=1e-9)
    # d(σ_1 + σ_2)/dA = u_1 v_1ᵀ + u_2 v_2ᵀ: independent of the draw
    xs, xt = seqlab.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    seqlab.svd_lowrank(xs, q=2)[1].sum().backward()
    torch.svd_lowrank(xt, q=2)[1].sum().backward()
    np.testing.assert_allclose(xs.grad.numpy(), xt.grad.numpy(), atol=1e-8)


def test_pca_lowrank_matches_torch(rng):
    a = low_rank(rng, 20, 6, rank=3) + rng.standard_normal(6)   # rank 3 once centered
    for center in (True, False):
        q = 4 if center else 5
        S = seqlab.pca_lowrank(seqlab.tensor(a), q=q, center=center)[1].numpy()
        tS = torch.pca_lowrank(torch.tensor(a), q=q, center=center)[1].numpy()
        np.testing.assert_allclose(S[:3], tS[:3], rtol=1e-9)
    assert seqlab.pca_lowrank(seqlab.tensor(a))[0].shape == (20, 6)   # q = min(6, m, n)
    for kwargs, match in [({"q": 7}, r"q\(=7\) must be non-negative integer and not greater than min\(m, n\)=6"),
                          ({"niter": -1}, r"niter\(=-1\) must be non-negative integer")]:
        with pytest.raises(ValueError, match=match):
            seqlab.pca_lowrank(seqlab.tensor(a), **kwargs)
        with pytest.raises(ValueError, match=match):
            torch.pca_lowrank(torch.tensor(a), **kwargs)
