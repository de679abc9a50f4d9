"""Tests for lrlib.theory.orthogonal.lemmas: the lemma checks (Assumption 3's sets, Lemma 6's activations, Lemma
2, the no-collapse margin, alignment, stuck runs)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from lrlib.errors import ParameterError
from lrlib.losses import half_mse
from lrlib.models import TwoLayer, balanced_init, generator
from lrlib.theory import orthogonal as th
from lrlib.train import train
from orthogonal_helpers import sweep_run

F64 = torch.float64


def test_inactive_violations_zero_on_orthonormal_and_positive_on_correlated(testbed):
    from lrlib.theory.orthogonal.data import correlated_testbed
    X, y = testbed
    Xc, _ = correlated_testbed(rho=0.2)
    p = balanced_init(20, 10, scale=0.3, gen=generator(1), runs=(2,))
    ok = train(p, X, y, loss=half_mse(), lr=0.2, steps=200, record=range(0, 201, 5), progress=False)
    bad = train(p, Xc, y, loss=half_mse(), lr=0.2, steps=200, record=range(0, 201, 5), progress=False)
    assert th.inactive_violations(ok, X).tolist() == [0, 0]
    assert (th.inactive_violations(bad, Xc) > 0).all()


def test_uncovered_floor_and_stuck_measures(testbed):
    X, y = testbed
    # neuron 0: positive, active on x_1..x_3; neuron 1: negative, active on x_4 only
    W1 = torch.zeros(2, 10, dtype=F64)
    W1[0, :3] = 1e-6
    W1[1, 3] = 1e-6
    p = TwoLayer(W1=W1, W2=torch.tensor([[1e-6 * math.sqrt(3), -1e-6]], dtype=F64))
    floor = float(th.uncovered_floor(p, X, y))
    assert floor == pytest.approx((1 + 0.25) / 12, rel=1e-14)            # x_5 (y=-1) and x_6 (y=-0.5) uncovered
    runs = p.map(lambda t: t.expand(4, *t.shape).clone())
    final = torch.tensor([floor, floor * (1 + 1e-4), floor * 1.1, floor], dtype=F64)
    m = th.stuck_measures(runs, final, X, y, groups=2)
    assert m["match"].tolist() == [True, False]
    assert m["n_stuck"].tolist() == [2, 2]            # S₋,₁ = ∅ (no negative neuron active on every negative input): all violate
    with pytest.raises(ParameterError):
        th.stuck_measures(runs, final, X, y, groups=3)


def test_no_collapse_margin_and_mass_times(testbed):
    X, y = testbed
    lams = torch.tensor([1e-8], dtype=torch.float64)
    tr = sweep_run(X, y, lams, steps=16_000)
    m, m_flip = th.no_collapse_margin(tr, X, y, lams), th.no_collapse_margin(tr, X, y, lams, flip=True)
    assert m.shape == (1,) and m[0] > 1 and m_flip[0] < m[0]
    assert np.isinf(th.no_collapse_margin(tr, X, y, lams, lam_max=1e-9)).all()   # no λ in range
    t2, t3 = th.mass_times(tr, X, y, lams)
    t2h, t3h = th.half_fit_times(tr, X, y)
    # u₊ must pass half of n‖D₊‖ first; n‖D₋‖ − λ^{ε/29} = 0.56 is below half of n‖D₋‖ = 0.75
    assert t2.shape == (1, 1) and t2h[0, 0] < t2[0, 0] and t3[0, 0] < t3h[0, 0] < tr.time[-1]
