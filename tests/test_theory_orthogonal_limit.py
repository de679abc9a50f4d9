"""Tests for lrlib.theory.orthogonal.limit: the end of the runs (F1 cost and excess norm, the limit function,
clusters and kinks, the lazy regime)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from lrlib.errors import ParameterError
from lrlib.losses import half_mse
from lrlib.measure import decreasing
from lrlib.models import TwoLayer, balanced_init, forward, generator, sweep_init
from lrlib.theory import orthogonal as th
from lrlib.train import train
from orthogonal_helpers import limit_network

F64 = torch.float64


def test_f1_cost_of_the_limit_network_is_half_min_norm(testbed):
    X, y = testbed
    p = limit_network(X, y)
    assert th.f1_cost(p).item() == pytest.approx(th.min_f1_norm(X, y), rel=1e-14)
    q = TwoLayer(W1=torch.tensor([[3.0, 4.0]], dtype=F64), W2=torch.tensor([[-2.0]], dtype=F64))
    assert th.f1_cost(q).item() == 10.0


def test_excess_gap_and_clusters_at_thelimit_network(testbed):
    X, y = testbed
    vp, vm = th.fit_vectors(X, y)
    W1 = torch.stack([vp / vp.norm().sqrt(), vm / vm.norm().sqrt()])
    a = torch.stack([vp.norm().sqrt(), -vm.norm().sqrt()])
    p = TwoLayer(W1=W1, W2=a.view(1, 2))
    assert abs(float(th.excess_norm(p, X, y))) < 1e-14
    Z = torch.randn(50, 10, generator=generator(2), dtype=F64)
    assert float(th.function_gap(p, X, y, Z)) < 1e-13
    clustered, outside = th.two_clusters(p, X, y)
    assert bool(clustered) and float(outside) == 0.0
    q = TwoLayer(W1=torch.cat([W1, torch.eye(1, 10, dtype=F64)]), W2=torch.cat([a, torch.ones(1, dtype=F64)]).view(1, 3))
    clustered, outside = th.two_clusters(q, X, y)
    assert not bool(clustered) and float(outside) > 0


def test_movement_and_top2(testbed):
    X, y = testbed
    p = balanced_init(5, 10, scale=1.0, gen=generator(0), runs=(2,))
    traj = train(p, X, y, loss=half_mse(), lr=0.01, steps=5, record=[0, 5], progress=False)
    mv = th.movement(traj)
    for r in range(2):
        d0 = torch.cat([traj.params.W1[0, r].reshape(-1), traj.params.W2[0, r].reshape(-1)])
        d1 = torch.cat([traj.params.W1[-1, r].reshape(-1), traj.params.W2[-1, r].reshape(-1)])
        assert float(mv[r]) == pytest.approx(float((d1 - d0).norm() / d0.norm()), rel=1e-12)
    W = torch.zeros(2, 4, 3, dtype=F64)
    W[0, :, 0] = 1.0
    W[1] = torch.eye(4, 3, dtype=F64)
    torch.testing.assert_close(th.top2_explained(W), torch.tensor([1.0, 2 / 3], dtype=F64))


def test_ntk_interpolator_interpolates_with_the_min_norm_change(toy):
    X, y = toy
    p0 = balanced_init(30, 2, scale=1.0, gen=generator(1))
    Z = torch.linspace(-1.0, 2.5, 15, dtype=torch.float64)
    Z = torch.stack([Z, torch.ones_like(Z)], -1)
    torch.testing.assert_close(th.ntk_interpolator(p0, X, y, X), y, rtol=0, atol=1e-10)
    # the same by a pseudo-inverse and finite differences of the network along the change
    f = lambda W1, W2, inp: forward(TwoLayer(W1=W1, W2=W2), inp)[:, 0]          # noqa: E731
    jac = lambda inp: torch.cat([j.reshape(inp.shape[0], -1) for j in torch.func.jacrev(f, argnums=(0, 1))(p0.W1, p0.W2, inp)], 1)  # noqa: E731
    dtheta = torch.linalg.pinv(jac(X)) @ (y - f(p0.W1, p0.W2, X))
    torch.testing.assert_close(th.ntk_interpolator(p0, X, y, Z), f(p0.W1, p0.W2, Z) + jac(Z) @ dtheta, rtol=1e-8, atol=1e-10)
    with pytest.raises(ParameterError):
        th.ntk_interpolator(p0.map(lambda t: t.unsqueeze(0)), X, y, Z)


def test_thm1_measures_match_the_single_formulas(testbed):
    X, y = testbed
    lams = torch.tensor([1e-2, 1e-3], dtype=F64)
    p = sweep_init(6, X.shape[1], lams, seeds=2, seed=1)
    Z = torch.eye(X.shape[1], dtype=F64)
    loss = torch.tensor([[1e-3, 2e-3], [5e-4, 1e-4]], dtype=F64)
    m = th.thm1_measures(p, X, y, Z, loss)
    ex, gap = th.excess_norm(p, X, y).numpy(), th.function_gap(p, X, y, Z).numpy()
    np.testing.assert_allclose(m["final_max"], [2e-3, 5e-4])
    np.testing.assert_allclose(m["excess_min"], ex.min(-1))
    np.testing.assert_allclose(m["excess_last"], ex[:, -1])
    np.testing.assert_allclose(m["gap_last"], gap[:, -1])
    np.testing.assert_array_equal(m["excess_mono"], decreasing(ex).astype(float))
    assert set(m) == {"final_max", "excess_min", "excess_mono", "excess_last", "gap_mono", "gap_last"}


def test_ntk_gap_is_the_scaled_sup_distance():
    p = balanced_init(4, 3, scale=0.7, gen=generator(2), runs=(2,))
    Z = torch.randn(9, 3, generator=generator(3), dtype=F64)
    h = forward(p, Z)[..., 0]
    y = torch.tensor([1.0, -2.0], dtype=F64)
    np.testing.assert_allclose(th.ntk_gap(p, h, Z, y), [0.0, 0.0], atol=1e-15)
    shifted = h.clone()
    shifted[1, 4] += 0.5
    np.testing.assert_allclose(th.ntk_gap(p, shifted, Z, y), [0.0, 0.25], atol=1e-15)


def test_tangent_features_match_autograd_row_by_row():
    from lrlib.models import balanced_init, forward, generator

    p = balanced_init(4, 3, scale=0.7, gen=generator(5))
    X = torch.randn(5, 3, generator=generator(6), dtype=torch.float64)
    J = th.tangent_features(p, X)
    assert J.shape == (5, 4 * 3 + 4)
    for i in range(5):
        W1, W2 = p.W1.clone().requires_grad_(), p.W2.clone().requires_grad_()
        g1, g2 = torch.autograd.grad(forward(type(p)(W1=W1, W2=W2), X[i:i + 1])[0, 0], (W1, W2))
        torch.testing.assert_close(J[i], torch.cat([g1.reshape(-1), g2.reshape(-1)]), rtol=1e-12, atol=1e-14)
