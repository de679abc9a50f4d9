"""Tests for lrlib.theory.orthogonal.saddles: the saddles (intermediate plateaus, the walk past a saddle, its
distance and escape rate, the high-dimensional runs)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from lrlib.errors import ParameterError
from lrlib.models import TwoLayer, balanced_init, generator
from lrlib.theory import orthogonal as th
from lrlib.trajectory import Trajectory

F64 = torch.float64


def test_linearised_loss_rate_against_explicit_kernel(testbed):
    """K_kl = Σ_j a_j² 1{⟨w_j,x_k⟩>0}1{⟨w_j,x_l⟩>0}⟨x_k,x_l⟩ + σ(⟨w_j,x_k⟩)σ(⟨w_j,x_l⟩)."""
    X, y = testbed
    p = balanced_init(7, 10, scale=0.5, gen=generator(4))
    pre = X @ p.W1.T                                   # (n, m)
    act = (pre > 0).to(F64)
    a2 = p.a ** 2
    K = (act * a2) @ act.T * (X @ X.T) + torch.relu(pre) @ torch.relu(pre).T
    expected = 2 * torch.linalg.eigvalsh(K)[0].item() / X.shape[0]
    assert th.linearised_loss_rate(p, X) == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_intermediate_plateaus_and_kinks():
    L = np.r_[np.ones(3), np.geomspace(1, 1e-2, 5)[1:], np.full(8, 1e-2), np.geomspace(1e-2, 1e-8, 6)[1:]]
    pls = th.intermediate_plateaus(L, above=100)
    assert len(pls) == 1 and L[pls[0][0]] == pytest.approx(1e-2)
    assert th.intermediate_plateaus(L, above=1e7) == []
    W1 = torch.tensor([[1.0, 0.5], [2.0, 1.0], [1.0, -2.0], [1e-4, 3e-4]], dtype=F64)   # kinks −0.5, −0.5, 2; the last neuron is tiny
    n, kinks = th.kink_clusters(TwoLayer(W1=W1, W2=torch.ones(1, 4, dtype=F64)))
    assert n == 2 and kinks.tolist() == pytest.approx([-0.5, -0.5, 2.0])
    with pytest.raises(ParameterError):
        th.kink_clusters(TwoLayer(W1=torch.ones(2, 3, dtype=F64), W2=torch.ones(1, 2, dtype=F64)))


def test_plateau_speedup_tells_a_saddle_from_a_slow_decay():
    it = np.arange(60, dtype=float)
    saddle = np.r_[np.geomspace(1, 1e-2, 10), np.full(20, 1e-2) * np.geomspace(1, 0.99, 20), np.geomspace(1e-2, 1e-9, 30)]
    pls = th.intermediate_plateaus(saddle, above=100)
    assert pls and th.plateau_speedup(saddle, it, pls[0]) > 10
    slow = np.exp(-0.005 * it)                                    # constant-rate decay: no speedup
    assert th.plateau_speedup(slow, it, (10, 20)) == pytest.approx(1.0, rel=1e-9)
    assert np.isnan(th.plateau_speedup(slow, it, (50, 59)))


def test_saddle_distance_zero_on_the_saddle_and_positive_off_it(testbed):
    X, y = testbed
    p = th.saddle_point(X, y, m_plus=2)
    params = p.map(lambda t: torch.stack([t, 1.1 * t]))
    traj = Trajectory(steps=np.array([0, 1]), time=np.array([0.0, 1.0]), params=params, loss=torch.zeros(2))
    d = th.saddle_distance(traj, X, y)
    assert d.shape == (2,) and d[0].item() < 1e-14
    # scaling every weight by 1.1 leaves the direction, so the nearest point is θ_S: distance 0.1 exactly
    assert d[1].item() == pytest.approx(0.1, rel=1e-12)


def test_hd_measures():
    eta, steps = 2e-2, 20_000
    t = np.arange(steps + 1) * eta / 1e-3
    L = np.where(t < 50_000, 1.0, np.where(t < 100_000, 1e-2, 1e-2 * np.exp(-(t - 100_000) / 5_000)))
    L = torch.tensor(np.stack([L, np.exp(-t / 20_000)], 1))                  # a saddle, and a plain decay
    W = torch.zeros(2, 4, 3)
    W[:, :, 0] = 1.0
    m = th.hd_measures(L, W, eta)
    assert m["exit"][0] == pytest.approx(50_000, abs=100) and m["n_plateaus"][0] >= 1 and m["n_plateaus"][1] == 0
    assert m["on_saddle"].tolist() == [1.0, 0.0] and m["top2"] == pytest.approx([1.0, 1.0])
    assert m["drop"][0] < 1e-10 and m["drop_short"][0] == 1.0
    start = L[m["grid"][m["plateaus"][0][0][0]], 0].item()                   # the run (400 000) outlasts the horizon
    assert m["ratio"][0] == pytest.approx(start / L[-1, 0].item())            # over the run's final loss
    with pytest.raises(ParameterError):
        th.hd_measures(L[:5000], W, eta)


def test_count_saddles_counts_plateaus_left_fast():
    slow = 0.5 * 0.999 ** np.arange(10)
    L = np.r_[1.0, slow, slow[-1] * 10.0 ** -np.arange(1, 4)]                 # plateau, then a fast drop
    loss = torch.tensor(np.c_[L, L], dtype=F64)
    its = np.arange(len(L), dtype=float)
    walks = [dict(plateaus=[(1, 10)]), dict(plateaus=[])]
    np.testing.assert_array_equal(th.count_saddles(loss, its, walks), [1, 0])
    np.testing.assert_array_equal(th.count_saddles(loss, its, walks, speedup=1e9), [0, 0])
    with pytest.raises(ParameterError):
        th.count_saddles(loss, its, walks[:1])


def test_step_table_reads_one_run_and_grades_each_rule():
    from lrlib.ledger import Declaration
    from lrlib.ledger.grading import verdicts_by_variant

    def decl(id_, rule):
        return Declaration(id=id_, kind="reproduction", ref="r", statement="s", quantity="q", rule=rule,
                           tolerance="t", expect="reproduced")

    decls = {"a": decl("a", "top2 > 0.5"), "b": decl("b", "n_plateaus >= 1")}
    runs = {"η=1": dict(exit=np.array([100.0, 5.0]), top2=np.array([0.8, 0.1]), n_plateaus=np.array([0, 3])),
            "η=2": dict(exit=np.array([102.0, 5.0]), top2=np.array([0.4, 0.9]), n_plateaus=np.array([1, 3]))}
    tab = th.step_table(runs, verdicts_by_variant(decls, ["a", "b"], runs, run=0))
    assert list(tab.index) == ["η=1", "η=2"]
    assert tab.loc["η=1", "exit (paper time t)"] == pytest.approx(0.2)
    assert list(tab["a"]) == ["reproduced", "not reproduced"] and list(tab["b"]) == ["not reproduced", "reproduced"]


def test_saddle_snapshots_picks_five_ordered_panels():
    L = np.r_[np.full(5, 1.0), np.linspace(1.0, 0.3, 5), np.full(10, 0.3), np.geomspace(0.3, 1e-6, 10)]
    walk = {"main": (10, 19), "i_b": 3}
    idx, pl = th.saddle_snapshots(L, walk)
    assert pl == (10, 19) and idx[0] == 0 and idx[1] == 3 and idx[-1] == len(L) - 1
    assert idx[1] <= idx[2] <= idx[3] <= idx[4] and idx[3] > 19
    assert L[idx[2]] < (1.0 + 0.3) / 2 <= L[idx[2] - 1]
    idx0, pl0 = th.saddle_snapshots(L, {"main": None, "i_b": 1})
    assert pl0 == (15, 15)


def test_loss_gradient_norm_vanishes_at_the_saddle_and_not_elsewhere(testbed):
    X, y = testbed
    assert th.loss_gradient_norm(th.saddle_point(X, y), X, y) < 1e-10
    p = balanced_init(5, 10, scale=0.5, gen=generator(1))
    W1 = p.W1.clone().requires_grad_(True)
    W2 = p.W2.clone().requires_grad_(True)
    loss = 0.5 * ((torch.relu(X @ W1.T) @ W2[0] - y) ** 2).mean()
    loss.backward()
    expected = float((W1.grad.norm() ** 2 + W2.grad.norm() ** 2) ** 0.5)
    assert th.loss_gradient_norm(p, X, y) == pytest.approx(expected, rel=1e-10)


def test_linearised_rates_is_the_rate_of_every_run(testbed):
    X, _ = testbed
    p = balanced_init(4, 10, scale=0.5, gen=generator(2), runs=(2, 3))
    r = th.linearised_rates(p, X)
    assert r.shape == (2, 3)
    one = TwoLayer(W1=p.W1[1, 2], W2=p.W2[1, 2])
    assert r[1, 2] == th.linearised_loss_rate(one, X)
