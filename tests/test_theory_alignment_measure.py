"""Tests for lrlib.theory.alignment.measure: the measurements on networks and trajectories (settled state,
t₁, t₂, the loss-rate and low-rank checks, the direction deviation, the class alignment, the MNIST summary)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from lrlib.losses import Loss
from lrlib.models import forward, generator, TwoLayer
from lrlib.theory import alignment as al
from lrlib.train import train
from lrlib.trajectory import Trajectory
from test_theory_alignment_core import DATASETS  # the shared Assumption-1 data sets

F64 = torch.float64


def _toy_net():
    X, y = al.toy_2d()
    # neuron 0: v>0 along x₊ (S₊); 1: v>0 pointing down (dead); 2: v<0 along x₋ (S₋);
    # 3: v>0 along x₋ (in S₋: not settled); 4: v<0 along x₊ (in S₊: not settled)
    g = al.geometry(X, y)
    W = torch.stack([g.x_plus, torch.tensor([0.0, -1.0], dtype=F64), g.x_minus, g.x_minus, g.x_plus])
    a = torch.tensor([[1.0, 1.0, -1.0, 1.0, -1.0]], dtype=F64)
    return X, y, TwoLayer(W1=W, W2=a)


def _traj(W1s, W2s, time, loss):
    """A hand-built trajectory: W1s (T, R, m, D), W2s (T, R, 1, m)."""
    params = TwoLayer(W1=W1s, W2=W2s)
    return Trajectory(params=params, steps=np.arange(len(time)), time=np.asarray(time, float),
                      loss=torch.as_tensor(loss, dtype=torch.float64), meta={})


def test_settled_and_live_outside():
    X, y, p = _toy_net()
    assert al.settled(p, X, y).tolist() == [True, True, True, False, False]
    assert int(al.live_outside_s_plus(p, X, y)) == 1          # neuron 3 only (neuron 1 is dead)


def test_alignment_times_first_settled_snapshot():
    X, y, p = _toy_net()
    good = TwoLayer(W1=p.W1.clone(), W2=p.W2.clone())
    good.W2[0, 3], good.W2[0, 4] = -1.0, 1.0                   # now every neuron is settled
    stack = TwoLayer(W1=torch.stack([p.W1, p.W1, good.W1])[:, None], W2=torch.stack([p.W2, p.W2, good.W2])[:, None])
    traj = Trajectory(steps=np.array([0, 10, 20]), time=np.array([0.0, 0.5, 1.0]), params=stack,
                      loss=torch.zeros(3, 1, dtype=F64))
    assert al.alignment_times(traj, X, y).tolist() == [1.0]
    never = Trajectory(steps=np.array([0, 10]), time=np.array([0.0, 0.5]),
                       params=TwoLayer(W1=torch.stack([p.W1, p.W1]), W2=torch.stack([p.W2, p.W2])), loss=torch.zeros(2, dtype=F64))
    assert np.isnan(al.alignment_times(never, X, y))


def test_class_alignment_against_direct_computation():
    X, y, p = _toy_net()
    traj = Trajectory(steps=np.array([0]), time=np.array([0.0]), params=p.map(lambda t: t[None]), loss=torch.zeros(1, dtype=F64))
    out = al.class_alignment(traj, X, y)
    xp = X[y > 0].sum(0)
    Vp = [0, 1, 3]
    cos = [float(p.W1[j] @ xp / (p.W1[j].norm() * xp.norm())) for j in Vp]
    wbar = p.W1[Vp].mean(0)
    assert out["+"][0][0] == pytest.approx(float(wbar @ xp / (wbar.norm() * xp.norm())), rel=1e-12)
    assert out["+"][1][0] == pytest.approx(min(cos), rel=1e-12)
    assert out["+"][2][0] == pytest.approx(max(cos), rel=1e-12)


def test_two_phase_ratio():
    nc = np.array([0.0, 1e-6, 1e-4, 1.0, 0.5])
    dc = np.array([0.0, 2.0, 3.0, 1.0, 0.1])
    assert al.two_phase_ratio(nc, dc) == (2, pytest.approx(1e-4))


def test_lost_neurons_against_loop():
    X, y = DATASETS[1]
    gen = generator(5)
    p0 = al.balanced_theory_init(20, X.shape[1], 1.0, gen, runs=(3,))
    p1 = al.balanced_theory_init(20, X.shape[1], 1.0, gen, runs=(3,))
    got = al.lost_neurons(p0, p1, X, y)
    c = al.cone_membership(p1.W1, X, y)
    for r in range(3):
        n = 0
        for j in range(20):
            act = (X @ p0.W1[r, j] > 0)
            if p0.a[r, j] > 0:
                n += bool(act[y > 0].any()) and not bool(c["S_plus"][r, j])
            else:
                n += bool(act[y < 0].any()) and not bool(c["S_minus"][r, j])
        assert int(got[r]) == n
    assert al.lost_neurons(p0, p0.map(lambda t: t), X, y).shape == (3,)


def test_low_rank_check_rank_one_and_random():
    gen = generator(3)
    u = torch.randn(10, generator=gen, dtype=torch.float64)
    rank1 = torch.outer(torch.rand(50, generator=gen, dtype=torch.float64) + 0.1, u)     # (m, D)
    rand = torch.randn(50, 10, generator=gen, dtype=torch.float64)
    W1 = torch.stack([rank1, rand])[None]                                            # (1, 2, m, D)
    p0 = TwoLayer(W1=W1[0] * 1e-30, W2=torch.ones(2, 1, 50, dtype=torch.float64))
    tr = _traj(W1, torch.ones(1, 2, 1, 50, dtype=torch.float64), [0.0], [[1.0, 1.0]])
    viol, sr = al.low_rank_check(tr, p0, 1e-30, np.array([0.0, 0.0]))
    assert viol.tolist() == [0, 1]
    assert sr[0] == pytest.approx(1.0) and sr[1] > 2


def test_loss_rate_check_on_the_bound_itself():
    X = torch.tensor([[1.0, 0.0], [-1.0, 0.0]], dtype=torch.float64)
    y = torch.tensor([1.0, -1.0], dtype=torch.float64)
    g = al.geometry(X, y)
    t = np.linspace(0, 40, 401)                         # the window starts at t2 + 1/(alpha L(t2)) = 17
    scale = torch.as_tensor(np.where(t < 1, 0.1, 1.0))                             # |f| crosses 1/4 at t = 1
    W1 = scale[:, None, None, None] * torch.tensor([[[1.0, 0.0], [-1.0, 0.0]]], dtype=torch.float64)
    W2 = scale[:, None, None, None] * torch.ones(1, 1, 2, dtype=torch.float64) * torch.tensor([1.0, -1.0])
    L = al.loss_bound(2.0, 1.0, t, al.alpha_rate(g))
    L[t < 1] = 2.0
    out = al.loss_rate_check(_traj(W1, W2, t, L[:, None]), X, y, g)
    assert out["ratio_min"][0] == pytest.approx(1.0)
    assert 0 < out["bound_drop"][0] < 1
    assert out["ratio_ctl"][0] < 1
    assert out["t2"][0] == pytest.approx(1.0, abs=0.1)
    short = al.loss_rate_check(_traj(W1[:101], W2[:101], t[:101], L[:101, None]), X, y, g)
    assert np.isnan(short["ratio_min"][0])                 # t <= 10: no snapshot where the bound has halved


def test_simplified_deviation_matches_autograd_on_balanced_state():
    X, y = al.synthetic_separable(8, 5, 0.3, generator(2))
    p = al.balanced_theory_init(20, 5, 0.05, generator(3), runs=(2,))
    W1s = p.W1[None]
    tr = _traj(W1s, p.W2[None], [0.0], [[1.0, 1.0]])
    dev = al.simplified_deviation(tr, X, y)[0]
    d = al.direction_velocity(p, X, y, Loss("exponential", "sum")) - al.approx_direction_velocity(p, X, y)
    assert np.allclose(dev, torch.linalg.vector_norm(d, dim=-1).amax(-1).numpy(), rtol=1e-8)
    assert (dev > 0).all()


def test_mnist_summary_on_a_small_run():

    X, y = al.two_point_data(0.3)
    p = al.balanced_theory_init(10, X.shape[1], 1e-6, generator(3))
    tr = train(p, X, y, loss=Loss("exponential", "mean"), lr=0.05, steps=3000, record=60, progress=False)
    out = al.mnist_summary(X, y, tr)
    assert set(out) == {"consistent_pairs", "k_align", "k_drop", "align_drop", "final_stable_rank", "final_loss"}
    assert out["consistent_pairs"] == pytest.approx(1.0) and out["final_loss"] < tr.loss[0].item()
    assert 1 <= out["final_stable_rank"] <= 10 and out["align_drop"] >= 0


def test_direction_deviation_matches_autograd_for_unbalanced_weights():
    X, y = al.synthetic_separable(6, 4, 0.3, generator(5))
    p0 = al.balanced_theory_init(7, 4, 0.3, generator(6), runs=(2,))
    p = TwoLayer(W1=p0.W1, W2=p0.W2 * torch.tensor([[[2.0]], [[0.5]]], dtype=p0.W2.dtype))
    W = p.W1.clone().requires_grad_(True)
    loss = torch.exp(-y * forward(TwoLayer(W1=W, W2=p.W2), X)[..., 0]).sum()
    (gW,) = torch.autograd.grad(loss, W)
    Wd = -gW
    nrm = W.detach().norm(dim=-1, keepdim=True)
    u = W.detach() / nrm
    vel = (Wd - (Wd * u).sum(-1, keepdim=True) * u) / nrm
    xa = al.signed_active_sum(W.detach(), X, y)
    simp = torch.sign(p.a).unsqueeze(-1) * al.project(W.detach(), xa)
    want = (vel - simp).norm(dim=-1).amax(-1).numpy()
    traj = Trajectory(steps=np.array([0]), time=np.array([0.0]), params=p.map(lambda t: t[None]),
                      loss=torch.zeros(1, 2, dtype=X.dtype))
    dev, fmax = al.measure.direction_deviation(traj, X, y)
    np.testing.assert_allclose(dev[0], want, rtol=1e-10)
    np.testing.assert_allclose(fmax[0], forward(p, X)[..., 0].abs().amax(-1).numpy(), rtol=1e-12)
