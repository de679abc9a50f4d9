"""Tests of fully connected linear networks (lrlib.theory.agf.linear) (float64)."""

import numpy as np
import pytest

from lrlib.theory.agf import linear


def test_linear_commuting_case_and_rrr():
    Sxx, B = linear.fig4_setup(commuting=True)
    r = linear.conjecture(Sxx, B)
    np.testing.assert_allclose(r.tau[1:], linear.commuting_times(Sxx, B), rtol=1e-9)
    Syx = B @ Sxx
    mu = np.sort(np.linalg.eigvalsh(Syx @ np.linalg.inv(Sxx) @ Syx.T))[::-1]
    np.testing.assert_allclose(r.levels, [0.5 * mu[k:].sum() for k in range(11)], rtol=1e-8, atol=1e-12)
    for k in (1, 3):
        beta, U = linear.reduced_rank(Syx, Sxx, k)
        grad = (beta - B) @ Sxx
        Pp = np.eye(10) - U[:, :k] @ U[:, :k].T
        np.testing.assert_allclose(-grad, Pp @ Syx, atol=1e-9)
    Sxx2, B2 = linear.fig4_setup(commuting=False)
    r2 = linear.conjecture(Sxx2, B2)
    assert np.all(np.diff(r2.tau) > 0)


def test_lemma_d1_utility_is_half_singular_value():
    """A normalised neuron (a, w), ‖a‖² + ‖w‖² = 1, maximising aᵀMw reaches σ₁(M)/2."""
    rs = np.random.RandomState(3)
    M = rs.randn(4, 5)
    th = rs.randn(9)
    for _ in range(4000):
        th /= np.linalg.norm(th)
        a, w = th[:4], th[4:]
        g = np.concatenate([M @ w, M.T @ a])
        th = th + 0.05 * (g - (g @ th) * th)
    th /= np.linalg.norm(th)
    assert th[:4] @ M @ th[4:] == pytest.approx(np.linalg.svd(M, compute_uv=False)[0] / 2, rel=1e-8)


def test_population_design_is_exact():
    Sxx, B = linear.fig4_setup(commuting=False)
    X = linear.population_design(Sxx)
    np.testing.assert_allclose(X.T @ X / len(X), Sxx, atol=1e-12)
    beta = np.random.RandomState(0).randn(10, 10)
    emp = 0.5 * np.mean(np.sum((X @ (beta - B).T) ** 2, 1))
    assert emp == pytest.approx(float(linear.population_loss(beta, B, Sxx)), rel=1e-10)

