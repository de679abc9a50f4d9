"""Tests for lrlib.measure, the measurement vocabulary, against direct numpy computations."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from lrlib.errors import ParameterError
from lrlib.measure import (active, cosine, decreasing, drop_times, drops, first_crossing, line_fit, plateau_between,
                           plateaus, relative_error, row_slopes)
from lrlib.models import gaussian_init, generator, preactivations

F64 = torch.float64


def test_cosine_function():
    u = torch.tensor([[1.0, 0.0], [1.0, 1.0], [0.0, 0.0], [-2.0, 0.0]], dtype=F64)
    v = torch.tensor([[3.0, 0.0], [1.0, 0.0], [1.0, 0.0], [1.0, 0.0]], dtype=F64)
    torch.testing.assert_close(cosine(u, v), torch.tensor([1.0, 1 / math.sqrt(2), 0.0, -1.0], dtype=F64),
                               rtol=1e-15, atol=0)


def test_first_crossing_interpolates():
    t = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
    v = np.array([1.0, 0.8, 0.6, 0.4, 0.2])  # v = 1 − 0.2 t
    for level in (0.9, 0.7, 0.5, 0.25):
        assert first_crossing(t, v, level) == pytest.approx((1 - level) / 0.2, rel=1e-12)
    assert first_crossing(t, v, 0.6) == pytest.approx(2.0, rel=1e-15)   # exact hit
    assert first_crossing(t, v, 1.5) == 0.0                           # already below at t[0]
    assert math.isnan(first_crossing(t, v, 0.1))                       # never
    # upward crossings, non-uniform time, the first of several
    t2 = np.array([0.0, 0.5, 2.0, 3.0])
    v2 = np.array([0.0, 1.0, -1.0, 3.0])
    assert first_crossing(t2, v2, 0.5, below=False) == pytest.approx(0.25, rel=1e-12)
    assert math.isnan(first_crossing(t2, v2, 5.0, below=False))


def test_plateaus_finds_flat_stretches():
    L = np.concatenate([np.geomspace(1.0, 0.1, 10), np.full(8, 0.1), np.geomspace(0.1, 1e-4, 10), np.full(6, 1e-4)])
    # L[9..18] == 0.1 and L[27..33] == 1e-4: the ends are inclusive
    assert plateaus(L, tol=0.01, min_len=5) == [(9, 18), (27, 33)]
    assert plateaus(L, tol=0.01, min_len=7) == [(9, 18)]
    assert plateaus(np.geomspace(1, 1e-3, 20)) == []


def test_drops_counts_separate_decreases():
    steps = np.arange(0, 400)
    # two logistic-shaped drops of log L, at 100 and 300, with a slow shoulder between them
    logL = -2 / (1 + np.exp(-(steps - 100) / 8)) - 3 / (1 + np.exp(-(steps - 300) / 8)) - 1e-3 * steps
    d = drops(steps, np.exp(logL))
    assert len(d) == 2 and abs(d[0] - 100) <= 2 and abs(d[1] - 300) <= 2
    # one drop only
    assert len(drops(steps, np.exp(-2 / (1 + np.exp(-(steps - 200) / 8))))) == 1
    # two bumps that are not separated by a dip below half the smaller one are one drop
    logL2 = -2 / (1 + np.exp(-(steps - 190) / 15)) - 2 / (1 + np.exp(-(steps - 210) / 15))
    assert len(drops(steps, np.exp(logL2))) == 1


def test_first_crossing_per_run_and_per_level():
    t = np.array([0.0, 1.0, 2.0, 3.0])
    V = np.stack([np.array([1.0, 0.5, 0.2, 0.1]), np.array([1.0, 0.9, 0.8, 0.7]), np.array([0.3, 0.2, 0.1, 0.0])], 1)
    got = first_crossing(t, torch.tensor(V), np.array([0.5, 0.5, 0.35]))
    assert got.shape == (3,)
    assert got[0] == pytest.approx(1.0) and math.isnan(got[1]) and got[2] == 0.0
    for r in range(3):   # the per-run form equals the one-series form run by run
        one = first_crossing(t, V[:, r], [0.5, 0.5, 0.35][r])
        assert (math.isnan(one) and math.isnan(got[r])) or one == got[r]
    snap = first_crossing(t, V.reshape(4, 3, 1), 0.45, interpolate=False)
    assert snap.shape == (3, 1) and snap[0, 0] == 2.0 and math.isnan(snap[1, 0]) and snap[2, 0] == 0.0
    with pytest.raises(ParameterError, match="first axis"):
        first_crossing(t, V.T, 0.5)


def test_drop_times_are_mid_level_crossings():
    t = np.linspace(0, 10, 101)
    loss = np.where(t < 3, 1.0, np.where(t < 7, 0.5, 0.1))
    got = drop_times(t, loss, np.array([1.0, 0.5, 0.1]))
    assert got == pytest.approx([first_crossing(t, loss, 0.75), first_crossing(t, loss, 0.3)])
    assert 2.9 < got[0] <= 3.0 and 6.9 < got[1] <= 7.0
    assert math.isnan(drop_times(t, loss, np.array([1.0, 0.5, 0.1, 0.01]))[-1])
    with pytest.raises(ParameterError):
        drop_times(t, loss, np.array([1.0]))


def test_relative_error_reference_is_the_denominator():
    assert relative_error(3.0, 2.0) == pytest.approx(0.5)
    assert relative_error(2.0, 3.0) == pytest.approx(1 / 3)
    got = relative_error(torch.tensor([1.0, -1.0]), torch.tensor([2.0, -2.0]))
    assert isinstance(got, torch.Tensor) and torch.allclose(got, torch.tensor([0.5, 0.5]))
    assert math.isnan(relative_error(np.nan, 1.0))


def test_line_fit_against_polyfit():
    g = np.random.default_rng(0)
    x = np.linspace(0, 5, 30)
    y = 2.5 * x - 1.0 + 0.1 * g.standard_normal(30)
    fit = line_fit(x, y)
    B, A = np.polyfit(x, y, 1)
    assert fit.slope == pytest.approx(B, rel=1e-12) and fit.intercept == pytest.approx(A, rel=1e-10)
    assert 0.99 < fit.r2 < 1
    assert line_fit(x, 3 * x).r2 == pytest.approx(1.0)
    assert all(math.isnan(v) for v in line_fit([0.0, 1.0, 2.0], [1.0, np.nan, 3.0]))
    assert all(math.isnan(v) for v in line_fit([1.0], [1.0]))


def test_active_from_network_and_from_weights():
    g = generator(1)
    p = gaussian_init(4, 3, std_in=1.0, std_out=1.0, bias_in=True, gen=g, runs=(2,))
    X = torch.randn(5, 3, generator=g, dtype=F64)
    act = active(p, X)
    assert act.shape == (2, 4, 5) and act.dtype == torch.bool
    assert torch.equal(act, (preactivations(p, X) > 0).transpose(-1, -2))
    W = p.W1
    assert torch.equal(active(W, X), (torch.einsum("rmd,nd->rmn", W, X) > 0))
    zero = torch.zeros(1, 3, dtype=F64)
    assert not active(zero, X).any()          # pre-activation 0 is inactive


def test_plateau_between_reads_the_middle_half_of_each_interval():
    """A staircase with a linear decay through each drop: the middle half sees only the flat level."""
    t = np.linspace(0.0, 30.0, 3001)
    L = np.interp(t, [0, 9, 11, 19, 21, 30], [3.0, 3.0, 2.0, 2.0, 1.0, 1.0])
    p = plateau_between(t, L, [10.0, 20.0, np.nan])
    assert p.level[0] == pytest.approx(2.0) and p.low[0] == pytest.approx(2.0) and p.high[0] == pytest.approx(2.0)
    assert np.isnan(p.level[1]) and np.isnan(p.high[1])
    # a smooth decay through the level is not a plateau: the window spans a wide range
    q = plateau_between(t, 3.0 - t / 10.0, [10.0, 20.0])
    assert q.level[0] == pytest.approx(1.5) and q.high[0] - q.low[0] == pytest.approx(0.5)
    with pytest.raises(ParameterError):
        plateau_between(t, L, [10.0])


def test_decreasing_and_row_slopes():
    v = np.array([[3.0, 2.0, 1.0], [3.0, 3.0, 1.0], [1.0, np.nan, 0.0]])
    assert decreasing(v).tolist() == [True, False, False]
    assert decreasing(v, strict=False).tolist() == [True, True, False]
    s = row_slopes(np.array([0.0, 1.0, 2.0]), np.array([[1.0, 3.0, 5.0], [0.0, np.nan, 1.0]]))
    assert s[0] == pytest.approx(2.0) and np.isnan(s[1])
