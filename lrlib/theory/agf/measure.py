"""Measurements that compare gradient descent with AGF's predictions."""

from __future__ import annotations

from typing import Callable

import numpy as np
import torch

from ...track import first_crossing

Tensor = torch.Tensor


def drop_times(time: np.ndarray, loss: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """Drop ``k`` (k = 1..K) = first time the loss ``(T,)`` falls below the mid-level
    ``(ℓ_{k−1} + ℓ_k)/2`` (``nan`` if never).  ``(K,)``."""
    levels = np.asarray(levels, dtype=float)
    mids = 0.5 * (levels[:-1] + levels[1:])
    return np.array([first_crossing(time, loss, m) for m in mids])


def plateau_values(time: np.ndarray, loss: np.ndarray, tau: np.ndarray) -> np.ndarray:
    """GD loss at the geometric middle of each predicted plateau ``[τ_k, τ_{k+1}]`` (k = 1..K−1) ``(K−1,)``."""
    mids = np.sqrt(tau[1:-1] * tau[2:])
    return np.interp(mids, time, loss)


def relative_errors(measured: np.ndarray, predicted: np.ndarray) -> np.ndarray:
    return np.abs(np.asarray(measured) - np.asarray(predicted)) / np.abs(np.asarray(predicted))


def activation_order(time: np.ndarray, values: np.ndarray, finals: np.ndarray, frac: float = 0.5) -> list[int]:
    """Indices sorted by the first time ``|values[:, i]|`` ``(T, m)`` reaches ``frac·|finals[i]|``
    (coordinates that never do are left out)."""
    hits = []
    for i in range(values.shape[1]):
        if abs(finals[i]) > 0:
            t = first_crossing(time, np.abs(values[:, i]), frac * abs(finals[i]), below=False)
            if np.isfinite(t):
                hits.append((t, i))
    return [i for _, i in sorted(hits)]


def maximise_on_sphere(fn: Callable[[Tensor], Tensor], theta0: Tensor, *, lr: float = 0.02,
                       steps: int = 4000) -> tuple[float, Tensor]:
    """Projected gradient ascent of ``fn`` on the unit sphere from ``theta0 (D,)``; returns
    ``(max value, maximiser)``.  (A small step matters: the spec saw 0.5 stall at 0.7·Ū*.)"""
    th = theta0 / theta0.norm()
    for _ in range(steps):
        th = th.detach().requires_grad_(True)
        (g,) = torch.autograd.grad(fn(th), th)
        th = th.detach() + lr * (g - (g @ th.detach()) * th.detach())
        th = th / th.norm()
    return float(fn(th)), th.detach()
