"""Tests for lrlib.theory.synthesis.agf_gd: the AGF-vs-GD jump table and the plateau deviation on hand-built staircases, AGF's cost phase."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest
import torch

from lrlib.errors import ParameterError
from lrlib.losses import Loss
from lrlib.models import balanced_init, generator
from lrlib.schedules import log_schedule
from lrlib.theory.orthogonal.data import orthonormal_testbed
from lrlib.train import train
from lrlib.theory import synthesis as sy

F64 = torch.float64


def _staircase():
    t = np.linspace(0.0, 10.0, 21)                               # knots on the grid: interpolation is exact
    loss = np.interp(t, [0, 2, 4, 6, 8, 10], [1.0, 1.0, 0.4, 0.4, 0.0, 0.0])
    return t, loss                                               # crosses 0.7 at t = 3 and 0.2 at t = 7


def test_agf_vs_gd_jumps_known_relative_errors():
    t, loss = _staircase()
    rows = sy.agf_vs_gd_jumps(t, loss, np.array([0.0, 2.5, 7.7]), np.array([1.0, 0.4, 0.0]), (3.3, 6.3), tol=0.2)
    assert [r["jump"] for r in rows] == [1, 2]
    assert list(rows[0]) == ["jump", "gd", "agf", "leading", "err_agf", "err_leading", "tol", "n_jumps", "level", "gd_level"]
    np.testing.assert_allclose([r["gd"] for r in rows], [3.0, 7.0], rtol=1e-12)
    np.testing.assert_allclose([r["err_agf"] for r in rows], [0.5 / 3, 0.7 / 7], rtol=1e-12)
    np.testing.assert_allclose([r["err_leading"] for r in rows], [0.3 / 3, 0.7 / 7], rtol=1e-12)
    assert [r["level"] for r in rows] == [0.4, 0.0]
    assert [r["n_jumps"] for r in rows] == [2, 2] and [r["tol"] for r in rows] == [0.2, 0.2]
    assert rows[0]["gd_level"] == pytest.approx(0.4)             # GD loss at t = (3 + 7)/2
    assert np.isnan(rows[1]["gd_level"])


def test_agf_vs_gd_jumps_row_count_and_errors():
    t, loss = _staircase()
    tau3, lv3 = np.array([0.0, 2.5, 7.7, 9.0]), np.array([1.0, 0.4, 0.0, 0.0])
    assert len(sy.agf_vs_gd_jumps(t, loss, tau3, lv3, (3.0, 7.0), tol=0.1)) == 2      # rows: min(K, len(reference))
    assert len(sy.agf_vs_gd_jumps(t, loss, tau3, lv3, (3.0,), tol=0.1)) == 1
    with pytest.raises(ParameterError):          # one jump: no level between two drops
        sy.agf_vs_gd_jumps(t, loss, np.array([0.0, 2.5]), np.array([1.0, 0.4]), (3.0, 7.0), tol=0.1)
    with pytest.raises(ParameterError):
        sy.agf_vs_gd_jumps(t, loss, np.array([0.0, 2.5, 7.7]), np.array([1.0, 0.4]), (3.0, 7.0), tol=0.1)


def test_level_deviation_reads_the_plateau_between_s_extremes():
    from lrlib.measure import plateau_between
    t = np.linspace(0, 10, 1001)
    p = plateau_between(t, 10.0 - t, np.array([2.0, 6.0, np.nan]))      # window [3, 5]: level 6, low 5, high 7
    np.testing.assert_allclose(p.level[0], 6.0)
    dev = sy.level_deviation(p, [6.0, 1.0])
    np.testing.assert_allclose(dev[0], 1 / 6)
    assert np.isnan(dev[1])


def test_cost_phase_is_partial_friendly():
    X, y = orthonormal_testbed()
    p = balanced_init(3, X.shape[1], scale=0.1, gen=generator(5))
    g = partial(sy.cost_phase, X=X, y=y, loss=Loss("square", reduction="mean", scale=0.5), lr=0.1, steps=50)(p)
    ref = train(p, X, y, loss=Loss("square", reduction="mean", scale=0.5), lr=0.1, steps=50, record=log_schedule(50, 30))
    assert list(g.steps) == list(ref.steps)
    torch.testing.assert_close(g.loss, ref.loss)
