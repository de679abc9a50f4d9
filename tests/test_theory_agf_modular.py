"""Tests of modular addition (lrlib.theory.agf.modular) (float64)."""

import math

import numpy as np
import pytest
import torch

from lrlib.models import generator
from lrlib.theory.agf import modular

F64 = torch.float64


def test_modular_fourier_utility_and_reference_numbers():
    x = modular.template(20, {1: 10, 3: 5, 5: 2.5})
    m = modular.predict(x)
    assert m.order == [1, 3, 5]
    np.testing.assert_allclose(m.levels, [6.5625, 1.5625, 0.3125, 0], atol=1e-12)
    np.testing.assert_allclose(m.u_star, [3.0429, 0.38036, 0.047550], rtol=1e-4)
    np.testing.assert_allclose(m.jump_bound(0.01), [7.64, 61.09, 488.73], rtol=1e-3)   # (1/(√2α) − 1)/(3Ū*)
    rs = np.random.RandomState(0)
    for _ in range(3):
        u, v, w = rs.randn(3, 20)
        assert modular.fourier_utility(u, v, w, x) == pytest.approx(modular.direct_utility(u, v, w, x), rel=1e-12)


def test_theorem_f3_max_utility_and_phase():
    p = 11
    x = modular.template(p, {1: 4.0, 2: 6.0, 4: 1.0})
    m = modular.predict(x)
    assert m.order[0] == 2
    X, Y = (torch.tensor(a) for a in modular.dataset(x))
    th = torch.randn(3 * p, generator=torch.Generator().manual_seed(0), dtype=F64)
    for _ in range(4000):
        th = (th / th.norm()).requires_grad_(True)
        f = (X[:, :p] @ th[:p] + X[:, p:] @ th[p:2 * p]) ** 2
        U = (f * (Y @ th[2 * p:])).mean()
        (g,) = torch.autograd.grad(U, th)
        th = (th + 0.02 * (g - (g @ th) * th)).detach()
    th = (th / th.norm()).numpy()
    u, v, w = th[:p], th[p:2 * p], th[2 * p:]
    assert modular.direct_utility(u, v, w, x) == pytest.approx(m.u_star[0], rel=1e-6)
    for t in (u, v, w):
        assert np.linalg.norm(t) == pytest.approx(1 / math.sqrt(3), rel=1e-5)
    ph = [np.angle(np.fft.fft(t)[2]) for t in (u, v, w, x)]
    phase = (ph[0] + ph[1] - ph[2] - ph[3] + np.pi) % (2 * np.pi) - np.pi
    assert abs(phase) < 1e-4


def test_harmonic_basis_orthonormal_and_checked():
    P = modular.harmonic_basis(11, 2)
    np.testing.assert_allclose(P.T @ P, np.eye(2), atol=1e-12)
    assert np.abs(np.fft.fft(P[:, 0]))[[0, 1, 3, 4, 5]].max() < 1e-12
    with pytest.raises(ValueError):
        modular.harmonic_basis(10, 5)


def test_without_frequency_and_residual_utility():
    x = modular.template(11, {1: 6.0, 2: 4.0})
    xr = modular.without_frequency(x, 1)
    np.testing.assert_allclose(xr, modular.template(11, {2: 4.0}), atol=1e-12)
    X, Y = modular.dataset(x)
    rs = np.random.RandomState(0)
    u, v, w = rs.randn(3, 2, 11)
    got = modular.residual_utility(u, v, w, X, Y)
    want = [modular.direct_utility(u[k], v[k], w[k], x) for k in range(2)]
    np.testing.assert_allclose(got, want, rtol=1e-12)

