"""Tests for lrlib.track: tidy frames (columns, row order, values) against direct
computations with numpy."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import torch

from lrlib.losses import half_mse
from lrlib.measure import active, first_crossing
from lrlib.models import TwoLayer, gaussian_init, generator
from lrlib.track import (
    activation_frame,
    balancedness_drift,
    cosine_similarity_matrix,
    cosines_to,
    loss_frame,
    max_direction_change,
    relative_movement,
    neuron_norms,
    rank_frame,
    stable_rank,
    tidy,
)
from lrlib.train import train

F64 = torch.float64
M, D, N = 4, 3, 5


def _traj(runs=(2,), k=1, bias=True, record=(0, 1, 4, 10)):
    g = generator(0)
    X = torch.randn(N, D, generator=g, dtype=F64)
    y = torch.randn(N, k, generator=g, dtype=F64) if k > 1 else torch.randn(N, generator=g, dtype=F64)
    p = gaussian_init(M, D, k, std_in=1.0, std_out=1.0, gen=generator(1), bias_in=bias, bias_out=bias, runs=runs)
    return train(p, X, y, loss=half_mse(), lr=0.1, steps=10, record=list(record), time_scale=2.0,
                 progress=False), X


def _run_index(runs):
    """Flat run index → tuple index, as the frames number runs (C order)."""
    return list(np.ndindex(*runs)) if runs else [()]


@pytest.mark.parametrize("runs", [(), (2,), (2, 3)])
def test_neuron_norms(runs):
    traj, _ = _traj(runs)
    df = neuron_norms(traj)
    T, R = len(traj), int(np.prod(runs)) if runs else 1
    assert list(df.columns) == ["step", "time", "run", "neuron", "norm_in", "norm_out", "norm_product", "a", "sign"]
    assert len(df) == T * R * M
    W1, b1, W2 = traj.params.W1.numpy(), traj.params.b1.numpy(), traj.params.W2.numpy()
    idx = _run_index(runs)
    for row in df.itertuples(index=False):
        t = int(np.nonzero(traj.steps == row.step)[0][0])
        r = idx[row.run]
        w = np.append(W1[(t, *r, row.neuron)], b1[(t, *r, row.neuron)])
        a = W2[(t, *r, 0, row.neuron)]
        assert row.time == pytest.approx(row.step * 0.1 * 2.0, rel=1e-15)
        assert row.norm_in == pytest.approx(math.sqrt((w ** 2).sum()), rel=1e-14)
        assert row.norm_out == pytest.approx(abs(a), rel=1e-14)
        assert row.norm_product == pytest.approx(abs(a) * math.sqrt((w ** 2).sum()), rel=1e-14)
        assert row.a == a and row.sign == np.sign(a)
    # row order: step-major, then run, then neuron
    assert df["step"].is_monotonic_increasing
    assert df["neuron"].tolist()[: 2 * M] == list(range(M)) * 2


def test_neuron_norms_without_bias_and_vector_output():
    traj, _ = _traj(k=2)
    df = neuron_norms(traj, with_bias=False)
    assert "a" not in df.columns and "sign" not in df.columns
    W1, W2 = traj.params.W1.numpy(), traj.params.W2.numpy()
    np.testing.assert_allclose(df["norm_in"].to_numpy(), np.linalg.norm(W1, axis=-1).reshape(-1), rtol=1e-14)
    np.testing.assert_allclose(df["norm_out"].to_numpy(), np.linalg.norm(W2, axis=-2).reshape(-1), rtol=1e-14)


@pytest.mark.parametrize("runs", [(), (2, 3)])
def test_loss_frame(runs):
    traj, _ = _traj(runs)
    df = loss_frame(traj)
    R = int(np.prod(runs)) if runs else 1
    assert list(df.columns) == ["step", "time", "run", "loss"] and len(df) == len(traj) * R
    np.testing.assert_array_equal(df["loss"].to_numpy(), traj.loss.numpy().reshape(-1))
    np.testing.assert_array_equal(df["step"].to_numpy(), np.repeat(traj.steps, R))


def test_cosines_to():
    runs = (2,)
    traj, _ = _traj(runs)
    u = torch.tensor([1.0, -1.0, 0.5, 2.0], dtype=F64)                # (D+1,) shared
    v = torch.randn(2, D + 1, generator=generator(5), dtype=F64)      # (R, D+1) per run
    df = cosines_to(traj, {"u": u, "v": v})
    assert list(df.columns) == ["step", "time", "run", "neuron", "direction", "cos", "angle"]
    T = len(traj)
    assert len(df) == 2 * T * 2 * M
    w = traj.params.incoming().numpy()  # (T, R, m, D+1)
    for name, vec in (("u", u.numpy()), ("v", v.numpy())):
        sub = df[df["direction"] == name]
        for row in sub.itertuples(index=False):
            t = int(np.nonzero(traj.steps == row.step)[0][0])
            wv = w[t, row.run, row.neuron]
            dv = vec if vec.ndim == 1 else vec[row.run]
            ref = wv @ dv / np.linalg.norm(wv) / np.linalg.norm(dv)
            assert row.cos == pytest.approx(ref, rel=1e-13, abs=1e-15)
            assert row.angle == pytest.approx(math.acos(max(-1, min(1, ref))), rel=1e-12, abs=1e-12)


def test_activation_frame():
    traj, X = _traj((2,))
    act = active(traj.params, X)
    T = len(traj)
    assert act.shape == (T, 2, M, N) and act.dtype == torch.bool
    W1, b1, Xn = traj.params.W1.numpy(), traj.params.b1.numpy(), X.numpy()
    for t in range(T):
        for r in range(2):
            for j in range(M):
                for k in range(N):
                    assert bool(act[t, r, j, k]) == (W1[t, r, j] @ Xn[k] + b1[t, r, j] > 0)
    df = activation_frame(traj, X)
    assert list(df.columns) == ["step", "time", "run", "neuron", "n_active", "pattern"]
    assert len(df) == T * 2 * M
    for row in df.itertuples(index=False):
        t = int(np.nonzero(traj.steps == row.step)[0][0])
        bits = "".join("1" if act[t, row.run, row.neuron, k] else "0" for k in range(N))
        assert row.pattern == bits
        assert row.n_active == bits.count("1")
    assert df["pattern"].nunique() > 1


def test_cosine_similarity_matrix():
    V = torch.randn(2, 6, 4, generator=generator(3), dtype=F64)
    C = cosine_similarity_matrix(V)
    assert C.shape == (2, 6, 6)
    torch.testing.assert_close(torch.diagonal(C, dim1=-2, dim2=-1), torch.ones(2, 6, dtype=F64), rtol=0, atol=1e-15)
    torch.testing.assert_close(C, C.transpose(-1, -2), rtol=0, atol=1e-15)
    Vn = V.numpy()
    for r in range(2):
        for i in range(6):
            for j in range(6):
                ref = Vn[r, i] @ Vn[r, j] / (np.linalg.norm(Vn[r, i]) * np.linalg.norm(Vn[r, j]))
                assert C[r, i, j].item() == pytest.approx(ref, rel=1e-13, abs=1e-15)


def test_stable_rank_against_numpy():
    W = torch.randn(3, 7, 5, generator=generator(4), dtype=F64)
    sr, s2 = stable_rank(W)
    for r in range(3):
        Wn = W[r].numpy()
        fro2, spec2 = np.linalg.norm(Wn, "fro") ** 2, np.linalg.norm(Wn, 2) ** 2
        assert s2[r].item() == pytest.approx(spec2, rel=1e-12)
        assert sr[r].item() == pytest.approx(fro2 / spec2, rel=1e-12)
    # rank one → 1; orthonormal rows → m
    u = torch.randn(6, 1, generator=generator(6), dtype=F64)
    v = torch.randn(1, 4, generator=generator(7), dtype=F64)
    assert stable_rank(u @ v)[0].item() == pytest.approx(1.0, rel=1e-12)
    assert stable_rank(torch.eye(3, 5, dtype=F64))[0].item() == pytest.approx(3.0, rel=1e-14)


@pytest.mark.parametrize("with_bias", [False, True])
def test_rank_frame(with_bias):
    traj, _ = _traj((2,))
    df = rank_frame(traj, with_bias=with_bias)
    assert list(df.columns) == ["step", "time", "run", "loss", "stable_rank", "spectral_sq", "frobenius_sq"]
    assert len(df) == len(traj) * 2
    W = traj.params.incoming(with_bias).numpy()
    for i, row in enumerate(df.itertuples(index=False)):
        t, r = divmod(i, 2)
        fro2 = (W[t, r] ** 2).sum()
        spec2 = np.linalg.norm(W[t, r], 2) ** 2
        assert row.step == traj.steps[t] and row.run == r
        assert row.frobenius_sq == pytest.approx(fro2, rel=1e-12)
        assert row.stable_rank == pytest.approx(fro2 / spec2, rel=1e-12)
        assert row.loss == traj.loss[t, r].item()


def test_tidy_with_extra():
    traj, _ = _traj((2,), record=(0, 4, 10))  # T = 3 ≠ m (T = m: see test_tidy_per_run_extra_when_T_equals_m)
    T = len(traj)
    vals = torch.arange(T * 2 * M, dtype=F64).reshape(T, 2, M)
    per_neuron = torch.tensor([[10.0, 11, 12, 13], [20, 21, 22, 23]], dtype=F64)  # (R, m)
    per_run = torch.arange(T * 2, dtype=F64).reshape(T, 2) * 100                   # (T, R)
    df = tidy(traj, {"v": vals}, extra={"c": per_neuron, "L": per_run})
    assert list(df.columns) == ["step", "time", "run", "neuron", "v", "c", "L"]
    for i, row in enumerate(df.itertuples(index=False)):
        t, rest = divmod(i, 2 * M)
        r, j = divmod(rest, M)
        assert (row.run, row.neuron) == (r, j)
        assert row.v == vals[t, r, j] and row.c == per_neuron[r, j] and row.L == per_run[t, r]


def test_tidy_per_run_extra_when_T_equals_m():
    traj, _ = _traj((2,), record=(0, 1, 4, 10))  # T = 4 = m
    T = len(traj)
    assert T == M
    per_run = torch.arange(T * 2, dtype=F64).reshape(T, 2) * 100
    df = tidy(traj, {"v": torch.zeros(T, 2, M, dtype=F64)}, extra={"L": per_run})
    expected = np.repeat(per_run.numpy().reshape(-1), M)
    np.testing.assert_array_equal(df["L"].to_numpy(), expected)


def test_first_crossing_on_loss_frame():
    traj, _ = _traj((), record=range(11))
    L = traj.loss.numpy()
    level = 0.5 * (L[0] + L[-1])
    tc = first_crossing(traj.time, L, level)
    i = int(np.argmax(L <= level))
    assert traj.time[i - 1] < tc <= traj.time[i]


def test_max_direction_change_known_rotation():
    W = torch.tensor([[1.0, 0.0], [0.0, 3.0], [0.1, 0.0]], dtype=torch.float64)
    c, s = math.cos(math.radians(30)), math.sin(math.radians(30))
    R = torch.tensor([[c, -s], [s, c]], dtype=torch.float64)
    W2 = W.clone()
    W2[0] = R @ W[0]                                   # neuron 0 turns by 30°
    W2[2] = torch.tensor([0.0, -0.1])                  # a small neuron turns by 90° but is not in the top 2
    a = torch.ones(1, 3, dtype=torch.float64)
    p0, p1 = TwoLayer(W1=W, W2=a), TwoLayer(W1=W2, W2=a)
    assert max_direction_change(p0, p1, top=2) == pytest.approx(30.0, abs=1e-9)
    assert max_direction_change(p0, p1, top=3) == pytest.approx(90.0, abs=1e-9)


def test_relative_movement():
    X = torch.eye(3, dtype=torch.float64)
    y = torch.tensor([1.0, -1.0, 0.5], dtype=torch.float64)
    p = gaussian_init(4, 3, std_in=1.0, std_out=1.0, gen=generator(0))
    traj = train(p, X, y, loss=half_mse(), lr=0.1, steps=5, record=[0, 5], progress=False)
    th0 = torch.cat([traj.params.W1[0].reshape(-1), traj.params.W2[0].reshape(-1)])
    th1 = torch.cat([traj.params.W1[1].reshape(-1), traj.params.W2[1].reshape(-1)])
    assert relative_movement(traj) == pytest.approx(((th1 - th0).norm() / th0.norm()).item(), rel=1e-14)
    assert relative_movement(train(p, X, y, loss=half_mse(), lr=0.1, steps=0, record=[0], progress=False)) == 0.0


def test_balancedness_drift_relative_to_current_norms():
    from lrlib.trajectory import Trajectory
    W1 = torch.tensor([[[1.0, 0.0]], [[10.0, 0.0]]], dtype=torch.float64)      # (T=2, m=1, d=2)
    W2 = torch.tensor([[[2.0]], [[10.0]]], dtype=torch.float64)                 # a² − ‖w‖² = 3, then 0
    traj = Trajectory(steps=np.array([0, 1]), time=np.array([0.0, 1.0]), params=TwoLayer(W1=W1, W2=W2),
                      loss=torch.zeros(2, dtype=torch.float64))
    assert balancedness_drift(traj, relative_to="current").item() == pytest.approx(3.0)
    assert balancedness_drift(traj).item() == pytest.approx(3.0 / 100)
    with pytest.raises(ValueError):
        balancedness_drift(traj, relative_to="initial")
