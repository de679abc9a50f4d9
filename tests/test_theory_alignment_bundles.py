"""Tests for lrlib.theory.alignment.bundles: the run bundles handed to the claims' measurement
functions and the helpers that build them."""

from __future__ import annotations

import numpy as np
import torch

from lrlib.losses import Loss
from lrlib.models import TwoLayer, generator
from lrlib.schedules import linear_schedule
from lrlib.theory import alignment as al
from lrlib.train import train
from lrlib.trajectory import Trajectory


def test_t2_n_sweep_small():
    W0 = al.balanced_theory_init(4, 10, 1.0, generator(1), runs=(1,))
    sw = al.bundles.t2_n_sweep(W0, 4, 0, 1)
    t2 = al.fitting_times(sw.traj, sw.X, sw.y)
    assert np.isfinite(t2).all() and (np.diff(t2) > 0).all()     # smaller eps fits later


def test_initial_is_snapshot_zero_without_dense_loss():
    X, y = al.two_point_data(0.3)
    p0 = al.balanced_theory_init(3, 2, 1e-3, generator(0), runs=(2,))
    tr = train(p0, X, y, loss=Loss("exponential", "sum"), lr=1e-2, steps=20, record=linear_schedule(20, 5))
    tr = Trajectory(tr.steps, tr.time, tr.params, tr.loss, dict(tr.meta), dense_loss=torch.ones(21))
    init = al.bundles.initial(tr)
    assert len(init) == 1 and init.steps.tolist() == [0] and init.time.tolist() == [0.0]
    assert torch.equal(init.params.W1, tr.params.W1[:1]) and torch.equal(init.params.W2, tr.params.W2[:1])
    assert torch.equal(init.loss, tr.loss[:1]) and init.dense_loss is None and init.meta == tr.meta
    assert al.claims.initial is al.bundles.initial                   # the claims' name for it


def test_eps_sweep_reads_to_the_horizon_and_window_shares_the_error():
    X, y = al.two_point_data(0.3)
    eps = np.array([1e-2, 1e-4])
    p1 = al.balanced_theory_init(3, 2, 1.0, generator(2), runs=(1,))
    p = TwoLayer(W1=torch.cat([p1.W1 * e for e in eps]), W2=torch.cat([p1.W2 * e for e in eps]))
    tr = train(p, X, y, loss=Loss("exponential", "sum"), lr=1e-2, steps=200, record=linear_schedule(200, 10))
    sw = al.bundles.eps_sweep(tr, X, y, eps, 1, h=3)
    g = al.geometry(X, y)
    np.testing.assert_allclose(sw.t_end[:, 0], [al.horizon(g, 3, e) for e in eps])
    np.testing.assert_array_equal(sw.dev, al.simplified_deviation(tr, X, y))
    cut = sw.window([[0.5], [1.0]])
    assert cut.dev is sw.dev and cut.t_end.tolist() == [[0.5], [1.0]] and sw.t_end[0, 0] != 0.5
    assert al.bundles.eps_sweep(tr, X, y, eps, 1, deviation=False).dev is None
