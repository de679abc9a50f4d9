"""Tests for lrlib.integrate: the adaptive gradient flow against closed forms (through a
kink), against fine-step GD (orthogonal toy, diagonal linear network), and its
Trajectory conventions against lrlib.train.train."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/ is not installed
from benchmarks import problems as pb  # noqa: E402  (shared with the integrator benchmark)
from lrlib.errors import DivergenceError, ParameterError
from lrlib.integrate import flow, integrate
from lrlib.losses import Loss, half_mse
from lrlib.models import forward, gaussian_init, generator
from lrlib.train import train

F64 = torch.float64


def test_linear_flow_matches_exponential_decay():
    """L = ½ Σ c_i θ_i²: θ_i(τ) = θ_i(0) e^{−c_i τ}."""
    c = torch.tensor([0.5, 1.0, 3.0], dtype=F64)
    th0 = {"a": torch.tensor([1.0, -2.0, 0.5], dtype=F64)}
    tau = np.array([0.0, 0.3, 1.0, 4.0])
    res = integrate(lambda th: 0.5 * (c * th["a"] ** 2).sum(), th0, tau, method="DOP853", rtol=1e-9, atol=1e-13)
    exact = th0["a"] * torch.exp(-c * torch.from_numpy(tau).unsqueeze(1))
    torch.testing.assert_close(res.states["a"], exact, rtol=1e-8, atol=1e-12)
    torch.testing.assert_close(res.loss, 0.5 * (c * exact ** 2).sum(-1), rtol=1e-7, atol=1e-14)
    assert 0 < res.grad_evals < 2000


def test_flow_through_a_relu_kink_matches_the_piecewise_solution():
    """L = 2·relu(θ) + ½(θ + 1)² from θ₀ = 1: dθ/dτ = −(θ + 3) until θ hits the kink at
    τ* = ln(4/3), then −(θ + 1).  The solver must resolve the kink (by rejecting steps)."""
    tau = np.linspace(0.0, 3.0, 61)
    res = integrate(lambda th: 2 * torch.relu(th["x"]) + 0.5 * (th["x"] + 1) ** 2,
                    {"x": torch.tensor(1.0, dtype=F64)}, tau, rtol=1e-9, atol=1e-12)
    t_star = math.log(4 / 3)
    exact = np.where(tau < t_star, 4 * np.exp(-tau) - 3, np.exp(-(tau - t_star)) - 1)
    np.testing.assert_allclose(res.states["x"].numpy(), exact, rtol=0, atol=1e-7)


def test_toy_phase_times_match_fine_step_gd_with_ten_times_fewer_gradients():
    """Orthogonal toy (chapter 01): both saddle exits within 1 % of GD at η/2 = 5e-4."""
    tau_end = 12.5                                   # past the second exit (τ ≈ 11.8)
    ref, _ = pb.toy_gd(pb.TOY_ETA / 2, tau_end)
    got, evals = pb.toy_flow(tau_end, rtol=pb.FLOW_RTOL, atol=pb.FLOW_ATOL, records=1250)
    assert np.all(np.isfinite(ref)) and ref[1] > 2 * ref[0]
    np.testing.assert_allclose(got, ref, rtol=0.01)
    assert evals * 10 <= round(tau_end / pb.TOY_ETA), f"{evals} gradient evaluations"


def test_diagonal_network_jump_times_match_fine_step_gd():
    """Diagonal linear network u ⊙ v (d = 5, n = 20, α = 1e-4): jump times within 1 % of GD
    at η = 2.5e-4 (closed-form gradient), and the autograd closure has that gradient."""
    prob = pb.diag_problem()
    th = {k: (t + 0.3).requires_grad_(True) for k, t in prob.theta0().items()}
    gu, gv = torch.autograd.grad(prob.loss(th), [th["u"], th["v"]])
    cu, cv = prob.grad(th["u"].detach(), th["v"].detach())
    torch.testing.assert_close(gu, cu, rtol=1e-12, atol=1e-14)
    torch.testing.assert_close(gv, cv, rtol=1e-12, atol=1e-14)

    tau_end = 10.0
    ref, _ = pb.diag_gd(prob, 2.5e-4, tau_end)
    got, evals = pb.diag_flow(prob, tau_end, rtol=pb.FLOW_RTOL, atol=pb.FLOW_ATOL, records=2000)
    seen = np.isfinite(ref)
    assert seen.sum() >= 4, ref                     # at least four jumps before τ = 10
    assert np.array_equal(np.isfinite(got), seen)
    np.testing.assert_allclose(got[seen], ref[seen], rtol=0.01)
    assert len(np.unique(np.round(ref[seen], 1))) == seen.sum()   # distinct jumps, not one event
    assert evals * 10 <= round(tau_end / pb.DIAG_ETA), f"{evals} gradient evaluations"


def test_dop853_agrees_with_rk45_on_the_toy():
    p0, X, y = pb.toy_problem(seed=1)
    kw = dict(loss=pb.MEAN_MSE, lr=1e-3, steps=800, record=[0, 400, 800], time_scale=2.0)
    a = flow(p0, X, y, method="DOP853", rtol=1e-7, atol=1e-14, **kw)
    b = flow(p0, X, y, method="RK45", rtol=1e-8, atol=1e-15, **kw)
    torch.testing.assert_close(a.params.W1, b.params.W1, rtol=1e-4, atol=1e-11)   # |W1| ~ 1e-7 .. 1e-6
    assert a.meta["integrator"].endswith("DOP853") and a.meta["grad_evals"] != b.meta["grad_evals"]
    assert not torch.allclose(a.params.W1[-1], p0.W1, rtol=0.1, atol=0)   # it moved


def test_trajectory_has_the_conventions_of_train():
    _, X, y = pb.toy_problem()          # kinks are crossed, never slid along (see the sliding test)
    p0 = gaussian_init(5, 2, std_in=0.5, std_out=0.5, gen=generator(0), bias_out=True, runs=(2,))
    kw = dict(loss=half_mse(), lr=0.01, steps=300, record=20, time_scale=2.0)
    fl = flow(p0, X, y, rtol=1e-8, atol=1e-12, **kw)
    gd = train(p0, X, y, progress=False, **kw)
    assert np.array_equal(fl.steps, gd.steps) and np.allclose(fl.time, gd.time)
    assert set(gd.meta) <= set(fl.meta) and fl.meta["grad_evals"] > 0
    for k in ("loss", "lr", "steps", "time_scale", "trainable", "batch_size", "momentum"):
        assert fl.meta[k] == gd.meta[k], k
    assert fl.runs == gd.runs == (2,) and fl.loss.shape == gd.loss.shape
    for k, t in gd.params.tensors().items():
        assert fl.params.tensors()[k].shape == t.shape, k
    # the loss recorded is the loss of the recorded parameters
    torch.testing.assert_close(fl.loss[-1], half_mse()(forward(fl.final, X), y), rtol=1e-14, atol=0)
    # GD with lr = 0.01 is an O(lr) approximation of the same flow
    torch.testing.assert_close(fl.params.W1[-1], gd.params.W1[-1], rtol=0, atol=0.02)
    assert not torch.allclose(fl.params.W1[-1], p0.W1)


def test_batched_runs_integrate_like_separate_runs_and_frozen_tensors_stay():
    p0, X, y = pb.toy_problem(seed=2, runs=(2,))
    kw = dict(loss=pb.MEAN_MSE, lr=1e-3, steps=400, record=[0, 400], rtol=1e-7, atol=1e-15)
    both = flow(p0, X, y, **kw)
    for r in range(2):
        one = flow(p0.map(lambda t: t[r]), X, y, **kw)
        scale = one.params.W1.abs().max()
        torch.testing.assert_close(both.run(r).params.W1, one.params.W1, rtol=0, atol=1e-4 * scale)  # joint error control
    frozen = flow(p0, X, y, trainable=("W1",), **kw)
    assert torch.equal(frozen.params.W2[-1], p0.W2) and frozen.meta["trainable"] == ["W1"]
    assert not torch.equal(frozen.params.W1[-1], p0.W1)


def test_float32_inputs_are_integrated_in_float64():
    p0, X, y = pb.toy_problem()
    tr = flow(p0.to(torch.float32), X.float(), y.float(), loss=Loss("square", "mean"), lr=1e-3, steps=10, record=[0, 10])
    assert tr.params.W1.dtype == F64 and tr.loss.dtype == F64 and tr.meta["dtype"] == "float64"


def test_sliding_along_a_kink_raises_instead_of_hanging():
    """L = relu(θ) + relu(−θ) = |θ|: the flow reaches 0 and would slide there; the solver's
    steps shrink without end, and max_evals stops it with a clear error."""
    with pytest.raises(DivergenceError, match="max_evals"):
        integrate(lambda th: torch.relu(th["x"]) + torch.relu(-th["x"]), {"x": torch.tensor(0.3, dtype=F64)},
                  [0.0, 1.0], max_evals=3000)


def _square_problem(runs=(2,), scale=0.3):
    """A smooth (square-activation) net on rank-deficient inputs: d = 6, rank 4."""
    g = torch.Generator().manual_seed(5)
    X = torch.randn(30, 4, generator=g, dtype=F64) @ torch.randn(4, 6, generator=g, dtype=F64) / 2
    y = torch.randn(30, 2, generator=g, dtype=F64)
    p0 = gaussian_init(3, 6, 2, runs=runs, std_in=scale, std_out=scale, act="square", gen=g).to(F64)
    return p0, X, y


def test_bdf_flow_matches_the_explicit_flow_run_by_run():
    """The implicit method (BDF, one run after another, in the inputs' row-space coordinates)
    follows the same flow as RK45 on the whole batch, and the part of W1 orthogonal to the
    inputs stays where it started."""
    p0, X, y = _square_problem()
    kw = dict(loss=half_mse(), lr=0.01, steps=300, record=[0, 100, 300])
    ref = flow(p0, X, y, method="RK45", rtol=1e-10, atol=1e-14, **kw)
    got = flow(p0, X, y, method="BDF", rtol=1e-8, atol=1e-13, **kw)
    torch.testing.assert_close(got.params.W1, ref.params.W1, rtol=0, atol=1e-6)
    torch.testing.assert_close(got.params.W2, ref.params.W2, rtol=0, atol=1e-6)
    torch.testing.assert_close(got.loss, ref.loss, rtol=1e-6, atol=0)
    assert got.loss.shape == (3, 2) and got.meta["hessian_evals"] > 0 and ref.meta["hessian_evals"] == 0
    _, sv, Vh = torch.linalg.svd(X)
    null = Vh[4:].T                                                 # (6, 2) orthogonal to the inputs
    torch.testing.assert_close(got.params.W1[-1] @ null, p0.W1 @ null, rtol=0, atol=1e-13)
    assert not torch.allclose(got.params.W1[-1], p0.W1)


def test_input_basis_spans_the_rows():
    from lrlib.integrate import input_basis
    _, X, _ = _square_problem()
    Q = input_basis(X)
    assert Q.shape == (6, 4)
    torch.testing.assert_close(Q.T @ Q, torch.eye(4, dtype=F64), rtol=0, atol=1e-12)
    torch.testing.assert_close(X @ Q @ Q.T, X, rtol=0, atol=1e-12)


def test_hessian_needs_the_implicit_method():
    p0, X, y = _square_problem()
    with pytest.raises(ParameterError, match="BDF"):
        flow(p0, X, y, loss=half_mse(), lr=0.01, steps=10, method="RK45", hessian_fn=lambda *a: None)
    with pytest.raises(ParameterError, match="BDF"):
        integrate(lambda th: (th["a"] ** 2).sum(), {"a": torch.ones(2, dtype=F64)}, [0, 1], hessian=lambda th: None)


@pytest.mark.parametrize("kw", [dict(method="Radau"), dict(method="LSODA"), dict(rtol=0.0), dict(atol=float("nan")), dict(rtol=True),
                                dict(lr=-1.0), dict(steps=-3), dict(record=[0, 99])])
def test_bad_arguments_raise(kw):
    p0, X, y = pb.toy_problem()
    args = dict(loss=pb.MEAN_MSE, lr=1e-3, steps=10, record=[0, 10])
    args.update(kw)
    with pytest.raises(ParameterError):
        flow(p0, X, y, **args)


@pytest.mark.parametrize("times", [[], [1.0, 0.5], [-1.0, 1.0], [[0.0, 1.0]]])
def test_bad_times_raise(times):
    with pytest.raises(ParameterError):
        integrate(lambda th: (th["a"] ** 2).sum(), {"a": torch.ones(2, dtype=F64)}, times)
