"""Tests for lrlib.theory.alignment.lemmas: the dwell time, the initial activation probability, the
alignment time against its bound, Lemma 15's rate."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from lrlib.integrate import flow
from lrlib.losses import Loss
from lrlib.models import TwoLayer, gaussian_init, generator
from lrlib.theory import alignment as al
from lrlib.trajectory import Trajectory


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


def test_lemma15_ratio_holds_and_frozen_first_layer_fails():
    g = generator(5)
    X = torch.randn(12, 4, generator=g, dtype=torch.float64)
    X[:, 0] = X[:, 0].abs() + 0.5
    y = torch.ones(12, dtype=torch.float64)
    y[6:] = -1
    X[6:] *= -1                                               # separable by z = e1, margin ≥ 0.5
    gamma = float((y * X[:, 0]).min())
    p0 = gaussian_init(10, 4, std_in=0.1, std_out=0.1, gen=generator(6), runs=(2,), act="linear")
    kw = dict(loss=Loss("exponential", "sum"), lr=1e-3, steps=20_000, record=120)
    ratio, n_win = al.lemma15_ratio(flow(p0, X, y, **kw), X, y, gamma)
    assert ratio.shape == (2,) and (n_win >= 20).all() and (ratio >= 1).all()
    ratio_c, n_c = al.lemma15_ratio(flow(p0, X, y, trainable=("W2",), **kw), X, y, gamma)
    assert (n_c > 0).all() and (ratio_c < 1).all()
