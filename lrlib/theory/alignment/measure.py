"""Theorem 1 part 2 measurements on trajectories: the fitting time ``t₂``, the O(1/t) loss bound
checked after it, and the low-rank inequality after ``t₁``."""

from __future__ import annotations

import math

import numpy as np
import torch

from ...models import TwoLayer, forward
from ...track import first_crossing, stable_rank
from ...trajectory import Trajectory
from .core import DataGeometry, alpha_rate, loss_bound

Tensor = torch.Tensor


def fitting_times(traj: Trajectory, X: Tensor, y: Tensor) -> np.ndarray:
    """``t₂ = max(t₂⁺, t₂⁻)`` per run ``(R,)``, ``t₂^±`` the first time ``max_{i∈I±}|f(x_i)| > 1/4``
    (linear interpolation between snapshots; NaN when never reached)."""
    f = forward(traj.params, X)[..., 0]                                      # (T, R, n)
    return np.array([max(first_crossing(traj.time, -f[:, r, y * s > 0].abs().amax(-1).numpy(), -0.25)
                         for s in (1, -1)) for r in range(f.shape[1])])


def loss_rate_check(traj: Trajectory, X: Tensor, y: Tensor, g: DataGeometry) -> dict[str, np.ndarray]:
    """Per run: ``ratio_min`` = min over snapshots at or after ``t₂`` of bound/L, ``bound_drop`` =
    1 − bound(t_end)/L(t₂), and ``ratio_ctl`` = the same min for a curve decaying at half the rate
    (the control). ``t₂`` is taken at the first snapshot at or after it."""
    alpha = alpha_rate(g)
    t2s = fitting_times(traj, X, y)
    out = {k: np.full(len(t2s), np.nan) for k in ("ratio_min", "bound_drop", "ratio_ctl", "t2")}
    time = np.asarray(traj.time)
    for r, t2 in enumerate(t2s):
        if not np.isfinite(t2):
            continue
        i2 = int(np.searchsorted(time, t2))
        L = traj.loss[i2:, r].numpy()
        bound = loss_bound(float(L[0]), time[i2], time[i2:], alpha)
        out["ratio_min"][r] = np.min(bound / L)
        out["bound_drop"][r] = 1 - bound[-1] / L[0]
        out["ratio_ctl"][r] = np.min(bound / loss_bound(float(L[0]), time[i2], time[i2:], alpha / 2))
        out["t2"][r] = t2
    return out


def low_rank_check(traj: Trajectory, p0: TwoLayer, eps: float, t1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per run: snapshots at or after ``t₁`` (the whole run where ``t₁`` is NaN) violating
    ``‖W‖_F² ≤ 2‖W‖₂² + 4√h ε W_max²`` (``W_max = max_j ‖w_j(0)‖/ε``), and the final stable rank."""
    sr, s2 = stable_rank(traj.params.W1)                                     # (T, R)
    W_max = (p0.norms_in() / eps).amax(-1)
    after = torch.as_tensor(traj.time)[:, None] >= torch.as_tensor(np.nan_to_num(t1, nan=0.0))[None, :]
    viol = ((sr * s2 > 2 * s2 + 4 * math.sqrt(p0.W1.shape[-2]) * eps * W_max ** 2) & after).sum(0)
    return viol.numpy(), sr[-1].numpy()
