"""Tests for lrlib.theory.synthesis.xor: the XOR toy in AGF's form, per-cluster losses and AGF's cluster activations against GD's drops."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from lrlib.errors import ParameterError
from lrlib.losses import Loss, half_mse
from lrlib.models import TwoLayer, forward, generator
from lrlib.theory import race as rc
from lrlib.theory import synthesis as sy

F64 = torch.float64


def test_xor_task_shapes_targets_and_constant_input():
    Xa, Y, cl = sy.xor_task(3, generator(0))
    assert Xa.shape == (12, 3) and Y.shape == (12, 2) and cl.tolist() == [0] * 3 + [1] * 3 + [2] * 3 + [3] * 3
    assert bool((Xa[:, 2] == 1).all()) and Xa.dtype == F64
    torch.testing.assert_close(Y[cl == 0], torch.tensor([[0.5, -0.5]] * 3, dtype=F64))   # label 0
    torch.testing.assert_close(Y[cl == 1], torch.tensor([[-0.5, 0.5]] * 3, dtype=F64))   # label 1


def test_homogeneous_race_net_is_the_race_network():
    gen = generator(1)
    p = rc.race_init(6, 2, 0.3, gen, dtype=F64)
    p = TwoLayer(W1=p.W1, W2=p.W2, b1=0.1 * torch.randn(6, generator=gen, dtype=F64), b2=p.b2)
    X, _, _ = rc.xor_clusters(4, gen)
    q = sy.homogeneous_race_net(p)
    assert q.b1 is None and q.b2 is None and q.W1.shape == (6, 3)
    torch.testing.assert_close(forward(q, torch.cat([X, torch.ones(16, 1, dtype=F64)], -1)), forward(p, X))
    with pytest.raises(ParameterError):
        sy.homogeneous_race_net(TwoLayer(W1=p.W1, W2=p.W2, b1=p.b1, b2=p.b2 + 1))
    with pytest.raises(ParameterError):
        sy.homogeneous_race_net(TwoLayer(W1=p.W1, W2=p.W2))


def test_square_loss_on_centred_targets_has_the_cross_entropy_gradient_at_zero():
    Xa, Y, cl = sy.xor_task(5, generator(2))
    y = (Y[:, 1] > 0).long()
    f = torch.zeros(20, 2, dtype=F64, requires_grad=True)
    (g_sq,) = torch.autograd.grad(Loss("square", "mean", 0.5)(f, Y), f)
    (g_ce,) = torch.autograd.grad(Loss("cross_entropy")(f, y), f)
    torch.testing.assert_close(g_sq, g_ce, rtol=0, atol=1e-15)


def test_per_cluster_square_losses_and_neuron_clusters_on_a_hand_built_network():
    Xa, Y, cl = sy.xor_task(4, generator(3), std=0.0)
    # neuron 0 points at cluster 0 (45°) and outputs its target exactly at the centroid; neuron 1 is dead
    c0 = Xa[0, :2]
    w = torch.cat([c0 / c0.norm() ** 2, torch.zeros(1, dtype=F64)])                 # w · x̃ = 1 on cluster 0
    p = TwoLayer(W1=torch.stack([w, -torch.tensor([0, 0, 1.0], dtype=F64)]), W2=torch.tensor([[0.5, 0], [-0.5, 0]], dtype=F64))
    L = rc.cluster_losses(p, Xa, Y, cl, half_mse())
    torch.testing.assert_close(L, torch.tensor([0.0, 0.25, 0.25, 0.25], dtype=F64), rtol=0, atol=1e-15)
    assert sy.neuron_clusters(p.W1, Xa, cl).tolist() == [0, -1]
    batched = TwoLayer(W1=p.W1.expand(3, 2, 2, 3), W2=p.W2.expand(3, 2, 2, 2))           # leading dims pass through
    assert rc.cluster_losses(batched, Xa, Y, cl, half_mse()).shape == (3, 2, 4)
    with pytest.raises(ParameterError):
        rc.cluster_losses(p, Xa, Y, cl[:-1], half_mse())


class _Run:
    """A stand-in for an AGFRun: jump times, activated neurons and the active nets."""

    def __init__(self, tau, order, nets):
        self.tau, self.order, self.nets = np.asarray(tau, dtype=float), order, nets


def _xor_staircase():
    Xa, Y, cl = sy.xor_task(4, generator(5), std=0.0)
    W = torch.stack([torch.cat([Xa[4 * c, :2] / Xa[4 * c, :2].norm() ** 2, torch.zeros(1, dtype=F64)]) for c in range(4)])
    A = torch.stack([Y[4 * c] for c in range(4)]).T                                  # (2, 4): neuron c fits cluster c
    nets = [TwoLayer(W1=W * (torch.arange(4) < k).unsqueeze(-1), W2=A * (torch.arange(4) < k)) for k in range(5)]
    return Xa, Y, cl, nets


def test_xor_agf_vs_gd_known_order_and_errors():
    Xa, Y, cl, nets = _xor_staircase()
    # jumps fit clusters 0, 1, 2, 3 at τ = 1, 2, 3, 4; GD's per-cluster losses (0.25 → 0) cross 0.125 at 1.1, 2.2, 3.3, 4.4
    t = np.linspace(0, 10, 1001)
    closs = np.stack([np.interp(t, [0, 1.1 * (c + 1) - 0.1, 1.1 * (c + 1) + 0.1, 10], [0.25, 0.25, 0.0, 0.0]) for c in range(4)], -1)
    rows, ok = sy.xor_agf_vs_gd(t, closs, _Run([0, 1, 2, 3, 4], [[0], [1], [2], [3]], nets), Xa, Y, cl)
    assert ok
    assert [r["jump"] for r in rows] == [1, 2, 3, 4]
    np.testing.assert_allclose([r["gd"] for r in rows], [1.1, 2.2, 3.3, 4.4], rtol=1e-9)
    np.testing.assert_allclose([r["err"] for r in rows], [0.1 / 1.1] * 4, rtol=1e-9)
    # GD fits clusters 1 and 0 in the other order: the order fails, the times are still read
    rows, ok = sy.xor_agf_vs_gd(t, closs[:, [1, 0, 2, 3]], _Run([0, 1, 2, 3, 4], [[0], [1], [2], [3]], nets), Xa, Y, cl)
    assert not ok and np.isfinite([r["gd"] for r in rows]).all()


def test_xor_agf_vs_gd_multi_cluster_jump_and_invalid_run():
    Xa, Y, cl, nets = _xor_staircase()
    t = np.linspace(0, 10, 101)
    closs = np.tile(np.linspace(0.25, 0.0, 101)[:, None], (1, 4))
    two = [nets[0], nets[2], nets[4]]                                               # two clusters per jump
    rows, ok = sy.xor_agf_vs_gd(t, closs, _Run([0, 1, 2], [[0, 1], [2, 3]], two), Xa, Y, cl)
    assert not ok and [r["jump"] for r in rows] == [1, 1, 2, 2]
    rows, ok = sy.xor_agf_vs_gd(t, closs, _Run([0, -3.0, -3.0], [[0], [1]], nets[:3]), Xa, Y, cl)  # norms ≥ 1 at the start
    assert not ok and all(np.isnan(r["agf"]) for r in rows)
    with pytest.raises(ParameterError):
        sy.xor_agf_vs_gd(t, closs[:, :3], _Run([0, 1], [[0]], nets[:2]), Xa, Y, cl)


def test_swap_first_two_is_a_wrong_prediction_the_rule_sees():
    Xa, Y, cl, nets = _xor_staircase()
    t = np.linspace(0, 10, 1001)
    closs = np.stack([np.interp(t, [0, 1.1 * (c + 1) - 0.1, 1.1 * (c + 1) + 0.1, 10], [0.25, 0.25, 0.0, 0.0]) for c in range(4)], -1)
    rows, ok = sy.xor_agf_vs_gd(t, closs, _Run([0, 1, 2, 3, 4], [[0], [1], [2], [3]], nets), Xa, Y, cl)
    swapped, ok2 = sy.swap_first_two(rows)
    assert ok and not ok2
    assert [r["jump"] for r in swapped] == [2, 1, 3, 4] and [r["agf"] for r in swapped][:2] == [2.0, 1.0]
    np.testing.assert_allclose([r["err"] for r in swapped], [0.9 / 1.1, 1.2 / 2.2, 0.1 / 1.1, 0.1 / 1.1], rtol=1e-9)
    assert [r["jump"] for r in rows] == [1, 2, 3, 4]                       # the input rows are not modified


def test_xor_variant_data_keeps_sizes_and_norms_per_cluster():
    X, Y, cl = sy.xor_variant_data([3, 1, 2, 4], [4.0, 3.0, 2.0, 1.0], [generator(0), generator(1)])
    assert X.shape == (2, 10, 3) and Y.shape == (2, 10, 2) and cl.shape == (10,)
    assert [int((cl == c).sum()) for c in range(4)] == [3, 1, 2, 4]
    assert not torch.equal(X[0], X[1])                                    # a fresh draw per seed
    centre = torch.stack([X[0, cl == c, :2].mean(0).norm() for c in range(4)])
    assert torch.allclose(centre, torch.tensor([4.0, 3.0, 2.0, 1.0], dtype=X.dtype), atol=0.3)


def test_xor_agf_runs_is_xor_agf_per_run(monkeypatch):
    import lrlib.theory.synthesis.xor as xm
    monkeypatch.setattr(xm, "xor_agf", lambda net, X, Y, **kw: (net.W1.clone(), X.shape, kw["tau_max"]))
    p = TwoLayer(W1=torch.randn(3, 4, 3, dtype=torch.float64), W2=torch.randn(3, 2, 4, dtype=torch.float64))
    out = xm.xor_agf_runs(p, torch.zeros(3, 5, 3), torch.zeros(3, 5, 2), tau_max=7.0)
    assert len(out) == 3 and all(torch.equal(o[0], p.W1[r]) and o[2] == 7.0 for r, o in enumerate(out))
