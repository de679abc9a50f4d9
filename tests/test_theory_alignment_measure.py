"""Tests for lrlib.theory.alignment.data and .measure (the Theorem 1 part 2 measurements)."""

import math

import numpy as np
import pytest
import torch

from lrlib.errors import ParameterError
from lrlib.measure import cosine
from lrlib.models import TwoLayer, generator
from lrlib.theory import alignment as al
from lrlib.trajectory import Trajectory


def test_two_direction_separable_geometry():
    X, y = al.two_direction_separable(16, 10, 120.0, 0.1, generator(1))
    assert X.shape == (16, 10) and X.dtype == torch.float64
    assert (y[:8] == 1).all() and (y[8:] == -1).all()
    g = al.geometry(X, y)
    assert g.mu > 0
    assert float(cosine(g.x_plus, -g.x_minus)) < 0.8          # not antipodal, unlike synthetic_separable


def test_two_direction_separable_errors():
    with pytest.raises(ParameterError):
        al.two_direction_separable(16, 10, 80.0, 0.1, generator(1))
    with pytest.raises(ParameterError):
        al.two_direction_separable(1, 10, 120.0, 0.1, generator(1))


def _traj(W1s, W2s, time, loss):
    """A hand-built trajectory: W1s (T, R, m, D), W2s (T, R, 1, m)."""
    params = TwoLayer(W1=W1s, W2=W2s)
    return Trajectory(params=params, steps=np.arange(len(time)), time=np.asarray(time, float),
                      loss=torch.as_tensor(loss, dtype=torch.float64), meta={})


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
    from lrlib.losses import Loss
    X, y = al.synthetic_separable(8, 5, 0.3, generator(2))
    p = al.balanced_theory_init(20, 5, 0.05, generator(3), runs=(2,))
    W1s = p.W1[None]
    tr = _traj(W1s, p.W2[None], [0.0], [[1.0, 1.0]])
    dev = al.simplified_deviation(tr, X, y)[0]
    d = al.direction_velocity(p, X, y, Loss("exponential", "sum")) - al.approx_direction_velocity(p, X, y)
    assert np.allclose(dev, torch.linalg.vector_norm(d, dim=-1).amax(-1).numpy(), rtol=1e-8)
    assert (dev > 0).all()


def test_lemma1_bound_is_linear_in_eps():
    X, y = al.synthetic_separable(8, 5, 0.3, generator(2))
    g = al.geometry(X, y)
    assert al.lemma1_bound(g, 50, 2e-6, 1.5) == pytest.approx(2 * al.lemma1_bound(g, 50, 1e-6, 1.5))


def test_dwell_ratio_counts_only_unsettled_intervals():
    T, n, m = 6, 2, 1
    act = torch.zeros(T, 1, n, m, dtype=torch.bool)
    act[:3, 0, 0, 0] = True                # pattern (1, 0) on t = 0, 1, 2, then (1, 1)
    act[:, 0, 0, 0] = True
    act[3:, 0, 1, 0] = True
    settled = torch.zeros(T, 1, m, dtype=torch.bool)
    settled[4:] = True                     # settled from t = 4
    r = al.dwell_ratio(np.arange(T, dtype=float), act, settled, lambda n_a: 2.0 * n_a)
    assert r[0] == pytest.approx(3 / 2)    # interval [0, 3) with n_a = 1; [3, 4) with n_a = 2 gives 1/4


def test_init_activation_mc_gaussian_and_biased():
    X, y = al.synthetic_separable(8, 5, 0.3, generator(2))
    z1, z0 = al.init_activation_mc(X, y, generator(4), 4000, 3)
    assert z1 > 0 and z0 < 0
    away = -X[y > 0].sum(0) / X[y > 0].sum(0).norm()
    z1b, z0b = al.init_activation_mc(X, y, generator(4), 4000, 3, bias=away)
    assert z1b < -3 and z0b > 3


def test_alignment_time_and_bound_and_growth_outside_s_plus():
    X, y = al.two_point_data(0.5)
    g, t1, bounds = al.alignment_time_and_bound(X, y, 2, 1e-12, 0, t_max=30.0)
    assert t1.shape == bounds.shape == (2,) and np.all(bounds > 0) and g.mu == pytest.approx(al.mu(X, y))
    assert np.all(np.isfinite(t1)) and np.all(t1 <= bounds)                  # Theorem 1 on an easy case
    # growth outside S+: one live V+ neuron inside S+ (norm 2, along x1 + x2: active on both points), one
    # outside (norm 1, along x1 − x2: active on x1 only): share 1/2, ratio 1/2
    u, v = X[0] + X[1], X[0] - X[1]
    W = torch.stack([2 * u / u.norm(), v / v.norm()]).unsqueeze(0).to(torch.float64)
    p = TwoLayer(W1=W, W2=torch.tensor([[[1.0, 1.0]]], dtype=torch.float64))
    cm = al.cone_membership(p.W1, X, y)
    assert bool(cm["S_plus"][0, 0]) and not bool(cm["S_plus"][0, 1])
    tr = Trajectory(steps=np.array([0]), time=np.array([0.0]), params=p.map(lambda t: t.unsqueeze(0)),
                    loss=torch.zeros(1, 1, dtype=torch.float64))
    share, ratio = al.growth_outside_s_plus(X, y, tr)
    assert share.tolist() == [0.5] and ratio.tolist() == pytest.approx([0.5])



def test_mnist_summary_on_a_small_run():
    from lrlib.losses import Loss
    from lrlib.train import train

    X, y = al.two_point_data(0.3)
    p = al.balanced_theory_init(10, X.shape[1], 1e-6, generator(3))
    tr = train(p, X, y, loss=Loss("exponential", "mean"), lr=0.05, steps=3000, record=60, progress=False)
    out = al.mnist_summary(X, y, tr)
    assert set(out) == {"consistent_pairs", "k_align", "k_drop", "align_drop", "final_stable_rank", "final_loss"}
    assert out["consistent_pairs"] == pytest.approx(1.0) and out["final_loss"] < tr.loss[0].item()
    assert 1 <= out["final_stable_rank"] <= 10 and out["align_drop"] >= 0


def test_direction_deviation_matches_autograd_for_unbalanced_weights():
    from lrlib.models import TwoLayer, forward, generator
    from lrlib.theory import alignment as al
    from lrlib.trajectory import Trajectory
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
    simp = torch.sign(p.a).unsqueeze(-1) * al._project(W.detach(), xa)
    want = (vel - simp).norm(dim=-1).amax(-1).numpy()
    traj = Trajectory(steps=np.array([0]), time=np.array([0.0]), params=p.map(lambda t: t[None]),
                      loss=torch.zeros(1, 2, dtype=X.dtype))
    dev, fmax = al.measure.direction_deviation(traj, X, y)
    np.testing.assert_allclose(dev[0], want, rtol=1e-10)
    np.testing.assert_allclose(fmax[0], forward(p, X)[..., 0].abs().amax(-1).numpy(), rtol=1e-12)


def test_eps_t2_n_takes_the_worst_n():
    import lrlib.theory.alignment.claims as cl
    fake = {4: {"slope_ratio": np.array([1.1, 0.9]), "r2": np.array([0.999, 1.0])},
            16: {"slope_ratio": np.array([1.0, 0.7]), "r2": np.array([1.0, 0.98])}}
    orig = cl.eps_t2_log
    cl.eps_t2_log = lambda s: fake[s]
    try:
        out = cl.eps_t2_n({4: 4, 16: 16})
    finally:
        cl.eps_t2_log = orig
    assert np.allclose(out["dev"], [0.1, 0.3]) and np.allclose(out["r2_gap"], [0.001, 0.02])
    assert np.allclose(out["ratio_16"], [1.0, 0.7])


def test_t2_n_sweep_small():
    W0 = al.balanced_theory_init(4, 10, 1.0, generator(1), runs=(1,))
    sw = al.claims.t2_n_sweep(W0, 4, 0, 1)
    t2 = al.fitting_times(sw.traj, sw.X, sw.y)
    assert np.isfinite(t2).all() and (np.diff(t2) > 0).all()     # smaller eps fits later
