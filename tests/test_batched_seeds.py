"""K independent seeds trained in one batched lrlib.train call give the same trajectories
as K separate calls (up to rounding): full-batch GD, momentum, and mini-batch SGD.

lrlib.train draws ONE mini-batch order per call (from ``seed``) and every run of a batch
sees it; per-run sampling is not supported, so the SGD comparison uses the same
``seed`` for the K separate runs (each seed still has its own initialisation)."""

from __future__ import annotations

import math

import pytest
import torch

from lrlib.losses import Loss, half_mse
from lrlib.models import TwoLayer, balanced_init, gaussian_init, generator
from lrlib.synthetic import orthogonal_toy, orthonormal_testbed
from lrlib.train import train

K = 8


def _seeds_batched(make, K):
    """The K separate inits ``make(0..K-1)`` and the same inits stacked along a leading run axis."""
    singles = [make(s) for s in range(K)]
    stacked = TwoLayer(act=singles[0].act, **{k: torch.stack([p.tensors()[k] for p in singles])
                                               for k in singles[0].tensors()})
    return stacked, singles


@pytest.mark.parametrize("case", ["toy-gd", "testbed-gd-momentum", "sgd-bias-momentum", "sgd-cross-entropy"])
def test_k_seeds_batched_equal_k_separate_runs(case):
    if case == "toy-gd":
        X, y = orthogonal_toy()
        make = lambda s: balanced_init(60, 2, scale=1e-6 / math.sqrt(60), gen=generator(s))
        kw = dict(loss=Loss("square", "mean"), lr=1e-3, steps=800, record=30, time_scale=2.0, dense_loss=True)
    elif case == "testbed-gd-momentum":
        X, y = orthonormal_testbed()
        make = lambda s: balanced_init(50, 10, scale=1e-4, gen=generator(s))
        kw = dict(loss=half_mse(), lr=1e-2, momentum=0.5, steps=400, record=20)
    elif case == "sgd-bias-momentum":
        g = generator(99)
        X, y = torch.randn(23, 4, generator=g, dtype=torch.float64), torch.randn(23, generator=g, dtype=torch.float64)
        make = lambda s: gaussian_init(16, 4, std_in=0.3, std_out=0.3, bias_in=True, bias_out=True, gen=generator(s))
        kw = dict(loss=half_mse(), lr=0.05, momentum=0.9, steps=200, batch_size=5, seed=7, record=15)
    else:
        g = generator(98)
        X, y = torch.randn(40, 6, generator=g, dtype=torch.float64), torch.randint(0, 2, (40,), generator=g)
        make = lambda s: gaussian_init(12, 6, 2, std_in=0.1, std_out=0.1, bias_in=True, gen=generator(s))
        kw = dict(loss=Loss("cross_entropy"), lr=0.1, momentum=0.9, steps=150, batch_size=8, seed=3, record=10)
    p_all, singles = _seeds_batched(make, K)
    batched = train(p_all, X, y, progress=False, **kw)
    assert batched.runs == (K,)
    finals = []
    for r, p in enumerate(singles):
        one = train(p, X, y, progress=False, **kw)
        sub = batched.run(r)
        for k, t in one.params.tensors().items():
            torch.testing.assert_close(sub.params.tensors()[k], t, rtol=1e-10, atol=1e-13, msg=lambda m: f"run {r}, {k}: {m}")
        torch.testing.assert_close(sub.loss, one.loss, rtol=1e-10, atol=1e-15)
        if one.dense_loss is not None:
            torch.testing.assert_close(sub.dense_loss, one.dense_loss, rtol=1e-10, atol=1e-15)
        finals.append(one.params.W1[-1])
    # the seeds are really different runs (a broadcast of one run would also "agree")
    assert not torch.allclose(finals[0], finals[1])
    assert not torch.allclose(batched.params.W1[-1], batched.params.W1[0])
