"""Tests of diagonal linear networks (lrlib.theory.agf.dln): closed forms against reference numbers
from the authors' data, the ODE (float64)."""

import math

import numpy as np
import pytest

from lrlib.theory.agf import dln


def test_dln_fig3_reference_numbers():
    X, y, _ = dln.fig3_data()
    r = dln.agf(X, y, 1e-100)
    assert r.order == [[1], [2], [3], [0], [4]]
    raw = r.tau[1:] * r.eta            # raw GF time
    np.testing.assert_allclose(raw, [27.659, 138.315, 226.047, 256.113, 971.519], rtol=2e-5)
    np.testing.assert_allclose(r.levels[:5], [82.417, 13.323, 2.267, 0.98805, 0.16556], rtol=2e-4)
    assert r.levels[-1] < 1e-20


def test_dln_fig8_return_to_dormancy_and_reference_times():
    X, y, _ = dln.fig8_data()
    pf = dln.pesme_flammarion(X, y)
    np.testing.assert_allclose(pf.tau[1:], [0.1930, 0.6002, 3.4574], atol=1e-4)
    np.testing.assert_allclose(pf.levels[:3], [2.3111, 1.11465, 0.07], rtol=1e-4)
    for a, ref in [(1e-4, [0.2006, 0.6237, 3.5925]), (1e-8, [0.1967, 0.6117, 3.5237]), (1e-50, [0.1936, 0.6020, 3.4678])]:
        r = dln.agf(X, y, a)
        np.testing.assert_allclose(r.tau[1:], ref, atol=1e-4)
        assert r.order == [[0], [1], [0]]
    # coordinate 0 is active after jump 1, dormant after jump 2, active with the opposite sign after jump 3
    assert list(r.active[:, 0]) == [False, True, False, True]
    assert np.sign(r.betas[1, 0]) == -np.sign(r.betas[3, 0])
    # its accumulated utility passes through 0 halfway between τ2 and τ3 (S decreases linearly in the PF limit)
    S = pf.S_at(np.array([0.5 * (pf.tau[2] + pf.tau[3])]))
    assert abs(S[0, 0]) < 1e-9


def test_agf_converges_to_pf():
    for X, y, _ in (dln.fig8_data(), dln.fig3_data()):
        pf = dln.pesme_flammarion(X, y)
        errs = []
        for a in (1e-4, 1e-8, 1e-16, 1e-50):
            r = dln.agf(X, y, a)
            assert r.order == pf.order
            np.testing.assert_allclose(r.levels, pf.levels, rtol=1e-9, atol=1e-20)
            errs.append(np.abs(r.tau - pf.tau).max())
        assert all(e1 > e2 for e1, e2 in zip(errs, errs[1:]))
        # O(log 2 / η_α): the error times η_α stays bounded
        etas = [dln.eta_alpha(a) for a in (1e-4, 1e-8, 1e-16, 1e-50)]
        scaled = np.array(errs) * np.array(etas)
        assert scaled.max() < 3 * scaled.min()


def test_dln_single_neuron_closed_form_vs_ode():
    """Lemmas C.2–C.3 / Thm C.4: (u, v) under a fixed gradient g: u̇ = −g v, v̇ = −g u."""
    from scipy.integrate import solve_ivp

    g, alpha = -1.7, 1e-3
    t = np.linspace(0, 5, 21)
    sol = solve_ivp(lambda _, z: [-g * z[1], -g * z[0]], (0, 5), [math.sqrt(2) * alpha, 0.0], t_eval=t,
                    rtol=1e-12, atol=1e-20, method="DOP853")
    u, v = sol.y
    cf = dln.utility_flow(g, alpha, t)
    np.testing.assert_allclose(u ** 2 + v ** 2, cf["norm2"], rtol=1e-9)
    np.testing.assert_allclose(u ** 2 - v ** 2, 2 * alpha ** 2, rtol=1e-9, atol=1e-13)
    np.testing.assert_allclose(np.log(np.sqrt(u ** 2 + v ** 2) / (math.sqrt(2) * alpha)), cf["S"], atol=1e-9)
    assert np.all(np.sign(u[1:] * v[1:]) == -np.sign(g))           # Lemma C.1: sgn(uv) = −sgn(g)


def test_dln_pf_s_path_and_loss_at():
    X, y, _ = dln.fig8_data()
    pf = dln.pesme_flammarion(X, y)
    S = pf.S_at(np.array([0.0, pf.tau[1] * 0.5, pf.tau[1] * 1.0001]))
    assert np.all(np.abs(S[0]) == 0) and 0 < np.abs(S[1, 0]) < 1 and abs(S[2, 0]) == 1
    assert pf.loss_at(np.array([0.0]))[0] == pytest.approx(pf.levels[0])
    assert pf.loss_at(np.array([1e9]))[0] == pytest.approx(pf.levels[-1])



def test_utility_flow_check_is_small_and_sees_the_printed_typo():
    """The chapter's ODE check (lemma.C1-C3-C5, erratum.C2-2alpha): DOP853 against the closed forms."""
    r = dln.utility_flow_check(-1.7, 1e-3)
    assert r["e_norm"] < 1e-9 and r["e_cons"] < 1e-6 and r["e_hit"] < 1e-9 and r["u_err"] < 1e-9
    assert r["e_typo"] > 0.99                         # u² − v² = 2α², not the printed 2α
    # another gradient: Cor. C.5's time still holds; the utility reaches |g|/2 only late (not vacuous)
    r2 = dln.utility_flow_check(-0.5, 1e-3, t_end=2.0, n_t=11)
    assert r2["e_hit"] < 1e-9 and r2["e_norm"] < 1e-9 and r2["u_err"] > 1e-3


def test_fig8_draws_paper_first_then_perturbed():
    d0 = dln.fig8_draws(0, 3)
    assert d0[0] == (150.0, (-0.2, 2.0))
    for angle, (b0, b1) in d0[1:]:
        assert 140 <= angle <= 160 and -0.25 <= b0 <= -0.15 and 1.8 <= b1 <= 2.2
    assert d0[1] != d0[2]
    d1 = dln.fig8_draws(1, 2)
    assert d1[0] != (150.0, (-0.2, 2.0)) and dln.fig8_draws(1, 2) == d1      # reproducible
