"""Tests for lrlib.ledger.trend: a deviation shrinking towards a limit, its rate and monotonicity."""

import numpy as np
import pytest

from lrlib.ledger.trend import trend_stats


def test_a_power_law_has_its_rate():
    lam = 10.0 ** -np.arange(2, 31, 2)
    dev = np.stack([3 * lam ** 0.5, 0.1 * lam])             # two seeds: rates 1/2 and 1
    t = trend_stats(lam, dev)
    assert t["slope"] == pytest.approx([0.5, 1.0]) and (t["mono"] == 1).all()
    assert t["decades"][0] == pytest.approx(28) and t["shrink"][1] == pytest.approx(1e28)


def test_a_plateau_is_not_a_trend():
    lam = 10.0 ** -np.arange(2, 31, 2)
    dev = 0.05 + 0 * lam
    dev[3] += 0.01                                          # one bump: one growing step of 14
    t = trend_stats(lam, dev)
    assert abs(t["slope"]) < 0.02 and t["shrink"] == pytest.approx(1) and t["mono"] == pytest.approx(13 / 14)


def test_order_and_nan_and_bad_input():
    lam = np.array([1e-30, 1e-10, 1e-20])                   # any order
    t = trend_stats(lam, np.array([1e-30, 1e-10, np.nan]))
    assert t["slope"] == pytest.approx(1.0) and t["mono"] == 1
    with pytest.raises(ValueError):
        trend_stats([1.0, -1.0], [1.0, 2.0])


def test_min_points_refuses_a_trend_read_on_too_few_finite_points():
    scale = np.logspace(0, -6, 7)
    dev = np.vstack([scale ** 0.5, np.r_[scale[:2] ** 0.5, [np.nan] * 5]])   # seed 1 reached 2 of 7
    loose = trend_stats(scale, dev)
    assert np.isfinite(loose["slope"]).all()                                 # the default: two points do
    strict = trend_stats(scale, dev, min_points=5)
    np.testing.assert_allclose(strict["slope"][0], 0.5)
    assert np.isnan(strict["slope"][1]) and np.isnan(strict["mono"][1]) and np.isnan(strict["shrink"][1])
    with pytest.raises(ValueError):
        trend_stats(scale, dev, min_points=1)
