"""Tests for lrlib.losses: every loss against a direct formula, target shapes,
the conventions in words, and the errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from lrlib.errors import ParameterError
from lrlib.losses import Loss, half_mse

F64 = torch.float64


def _rand(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=F64)


# ---------------------------------------------------------------------------
# square loss
# ---------------------------------------------------------------------------

def _square_ref(pred: np.ndarray, target: np.ndarray, reduction: str, scale: float) -> float:
    """scale · (mean|sum)_i Σ_c (pred_ic − target_ic)² with an explicit loop (pred (n, k), target (n, k))."""
    n, k = pred.shape
    per = [sum((pred[i, c] - target[i, c]) ** 2 for c in range(k)) for i in range(n)]
    return scale * (sum(per) / n if reduction == "mean" else sum(per))


@pytest.mark.parametrize("reduction,scale", [("mean", 0.5), ("mean", 1.0), ("sum", 1.0), ("sum", 0.5), ("mean", 3.0)])
@pytest.mark.parametrize("target_shape", ["(n,)", "(n,1)"])
def test_square_scalar_output(reduction, scale, target_shape):
    n = 7
    pred, y = _rand(n, 1, seed=1), _rand(n, seed=2)
    target = y if target_shape == "(n,)" else y.unsqueeze(-1)
    L = Loss("square", reduction, scale)(pred, target)
    assert L.shape == ()
    assert L.item() == pytest.approx(_square_ref(pred.numpy(), y.numpy()[:, None], reduction, scale), rel=1e-13)


def test_half_mse_is_half_mean():
    pred, y = _rand(5, 1, seed=3), _rand(5, seed=4)
    direct = 0.5 * ((pred[:, 0] - y) ** 2).mean()
    assert half_mse()(pred, y).item() == pytest.approx(direct.item(), rel=1e-14)
    assert half_mse() == Loss("square", "mean", 0.5)


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_square_vector_output(reduction):
    n, k = 6, 3
    pred, target = _rand(n, k, seed=5), _rand(n, k, seed=6)
    L = Loss("square", reduction, 0.5)(pred, target)
    assert L.item() == pytest.approx(_square_ref(pred.numpy(), target.numpy(), reduction, 0.5), rel=1e-13)


@pytest.mark.parametrize("case", ["per-run (R,n)", "shared (n,)", "shared (n,1)", "per-run (R,n,1)"])
def test_square_batched_runs(case):
    R, n = 4, 5
    pred = _rand(R, n, 1, seed=7)
    y_run = _rand(R, n, seed=8)
    y_shared = _rand(n, seed=9)
    target, ref_y = {
        "per-run (R,n)": (y_run, y_run),
        "shared (n,)": (y_shared, y_shared.expand(R, n)),
        "shared (n,1)": (y_shared.unsqueeze(-1), y_shared.expand(R, n)),
        "per-run (R,n,1)": (y_run.unsqueeze(-1), y_run),
    }[case]
    L = half_mse()(pred, target)
    assert L.shape == (R,)
    for r in range(R):
        ref = _square_ref(pred[r].numpy(), ref_y[r].numpy()[:, None], "mean", 0.5)
        assert L[r].item() == pytest.approx(ref, rel=1e-13)


def test_square_batched_vector_output_shared_targets():
    R, n, k = 3, 4, 2
    pred, target = _rand(R, n, k, seed=10), _rand(n, k, seed=11)
    L = Loss("square", "sum")(pred, target)
    for r in range(R):
        assert L[r].item() == pytest.approx(_square_ref(pred[r].numpy(), target.numpy(), "sum", 1.0), rel=1e-13)


def test_square_zero_at_target():
    y = _rand(2, 6, seed=12)
    assert torch.equal(half_mse()(y.unsqueeze(-1), y), torch.zeros(2, dtype=F64))


def test_square_batched_runs_single_point():
    R = 3
    y = _rand(R, 1, seed=13)          # per-run targets (R, n) with n = 1
    pred = y.unsqueeze(-1).clone()     # (R, n, 1): a perfect fit in every run
    L = half_mse()(pred, y)
    assert L.shape == (R,)
    assert torch.equal(L, torch.zeros(R, dtype=F64))


# ---------------------------------------------------------------------------
# classification losses
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_cross_entropy_matches_torch(reduction):
    n, k = 9, 4
    pred = 3 * _rand(n, k, seed=20)
    target = torch.randint(0, k, (n,), generator=torch.Generator().manual_seed(21))
    L = Loss("cross_entropy", reduction)(pred, target)
    ref = F.cross_entropy(pred, target, reduction=reduction)
    assert L.item() == pytest.approx(ref.item(), rel=1e-13)
    # and by hand: −log(e^{f_y} / Σ_c e^{f_c})
    by_hand = [-(pred[i, target[i]] - torch.logsumexp(pred[i], 0)).item() for i in range(n)]
    assert L.item() == pytest.approx(np.mean(by_hand) if reduction == "mean" else np.sum(by_hand), rel=1e-13)


@pytest.mark.parametrize("per_run_labels", [False, True])
def test_cross_entropy_batched(per_run_labels):
    R, n, k = 3, 6, 5
    pred = _rand(R, n, k, seed=22)
    g = torch.Generator().manual_seed(23)
    target = torch.randint(0, k, (R, n) if per_run_labels else (n,), generator=g)
    L = Loss("cross_entropy")(pred, target)
    assert L.shape == (R,)
    for r in range(R):
        t = target[r] if per_run_labels else target
        assert L[r].item() == pytest.approx(F.cross_entropy(pred[r], t).item(), rel=1e-13)


def _pm1(n, seed):
    return torch.where(_rand(n, seed=seed) > 0, 1.0, -1.0).to(F64)


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_exponential(reduction):
    n = 8
    f, y = _rand(n, 1, seed=30), _pm1(n, 31)
    per = [math.exp(-y[i].item() * f[i, 0].item()) for i in range(n)]
    L = Loss("exponential", reduction)(f, y)
    assert L.item() == pytest.approx(np.mean(per) if reduction == "mean" else np.sum(per), rel=1e-13)


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_logistic(reduction):
    n = 8
    f, y = 2 * _rand(n, 1, seed=32), _pm1(n, 33)
    per = [math.log1p(math.exp(-y[i].item() * f[i, 0].item())) for i in range(n)]
    L = Loss("logistic", reduction, 0.5)(f, y)
    assert L.item() == pytest.approx(0.5 * (np.mean(per) if reduction == "mean" else np.sum(per)), rel=1e-13)


def test_logistic_is_stable_for_large_margins():
    f = torch.tensor([[1000.0], [-1000.0]], dtype=F64)
    y = torch.tensor([-1.0, -1.0], dtype=F64)
    L = Loss("logistic", "sum")(f, y)
    assert math.isfinite(L.item())
    assert L.item() == pytest.approx(1000.0, rel=1e-12)  # log(1+e^1000) + log(1+e^-1000) ≈ 1000


def test_margin_losses_batched():
    R, n = 2, 5
    f, y = _rand(R, n, 1, seed=34), _pm1(n, 35)
    L = Loss("exponential")(f, y)
    assert L.shape == (R,)
    for r in range(R):
        assert L[r].item() == pytest.approx(torch.exp(-y * f[r, :, 0]).mean().item(), rel=1e-14)


@pytest.mark.parametrize("name", ["exponential", "logistic"])
def test_margin_losses_need_scalar_output(name):
    with pytest.raises(ParameterError, match="scalar output"):
        Loss(name)(_rand(4, 2, seed=36), _pm1(4, 37))


# ---------------------------------------------------------------------------
# conventions in words, errors
# ---------------------------------------------------------------------------

def test_describe():
    d = half_mse().describe()
    assert "½" in d and "mean" in d and "Σ" not in d
    d = Loss("square", "sum").describe()
    assert "Σ" in d and "½" not in d and "mean" not in d
    assert Loss("square", "mean", 2.0).describe().startswith("L = 2 · mean_i")
    assert "softmax" in Loss("cross_entropy").describe()
    assert "exp(−y_i f(x_i))" in Loss("exponential").describe()
    assert "log(1 + exp" in Loss("logistic", "sum", 0.5).describe()


def test_unknown_name_or_reduction():
    with pytest.raises(ParameterError, match="unknown loss 'hinge'"):
        Loss("hinge")
    with pytest.raises(ParameterError, match="reduction must be one of"):
        Loss("square", "median")
