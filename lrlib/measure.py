"""The measurement vocabulary: what every chapter measures on a series or a network, written once.

One function per idea, each with one convention:

- :func:`first_crossing` — the first time a series reaches a level (linear interpolation between
  snapshots, or the snapshot itself); ``nan`` when it never does. One series ``(T,)`` or one per
  run ``(T, R...)``.
- :func:`drop_times` — the first crossing of the mid-level between consecutive loss levels.
- :func:`plateaus`, :func:`drops` — flat stretches and separate sharp decreases of a positive series.
- :func:`plateau_between` — **the** reading of a loss plateau between two known drops: the median,
  lowest and highest loss over the middle half of the interval (every chapter reads plateaus so).
- :func:`relative_error` — ``|value − reference| / |reference|``: the reference (theory, or the
  converged value) is always the second argument and the denominator.
- :func:`line_fit` — least-squares line ``y ≈ slope·x + intercept`` with its R²; ``nan`` when a
  value is not finite; :func:`row_slopes` — the slope of each row of a table on one ``x``.
- :func:`decreasing` — whether a series decreases along its last axis.
- :func:`cosine` — along the last axis; **0 for a zero vector** (a dead neuron points nowhere).
- :func:`active` — the activation mask ``(R..., m, n)``: neuron ``j`` is active on point ``k``
  when its pre-activation is ``> 0`` (ReLU's derivative at 0 is 0, as in :mod:`lrlib.grads`).

Series are numpy arrays or tensors with time first; times are whatever clock the caller uses
(steps, gradient-flow time), and come back in that clock.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import torch

from .errors import ParameterError
from .models import TwoLayer, preactivations

Tensor = torch.Tensor
ArrayLike = np.ndarray | Tensor | float


def _np(x) -> np.ndarray:
    return x.detach().cpu().numpy() if isinstance(x, Tensor) else np.asarray(x)


def _first_crossing_1d(time: np.ndarray, v: np.ndarray, level: float, below: bool, interpolate: bool) -> float:
    hit = v <= level if below else v >= level
    if not hit.any():
        return float("nan")
    i = int(np.argmax(hit))
    if i == 0 or not interpolate:
        return float(time[i])
    t0, t1, v0, v1 = time[i - 1], time[i], v[i - 1], v[i]
    return float(t0 + (level - v0) * (t1 - t0) / (v1 - v0)) if v1 != v0 else float(t1)


def first_crossing(time, values, level, *, below: bool = True, interpolate: bool = True):
    """First time ``values`` reaches ``level``; ``nan`` where it never does.

    Parameters
    ----------
    time : array-like
        ``(T,)`` snapshot times (any clock: steps, flow time τ, …).
    values : array-like
        ``(T,)`` one series, or ``(T, R...)`` one series per run.
    level : float or array-like
        A number, or ``(R...)`` one level per run.
    below : bool
        Look for ``values ≤ level`` (a falling loss); ``False``: ``values ≥ level``.
    interpolate : bool
        Linear interpolation between the two snapshots around the crossing; ``False`` returns
        the first snapshot time at which the level is reached.

    Returns
    -------
    float or np.ndarray
        A float for one series, else a float array ``(R...)``; in the clock of ``time``.

    Raises
    ------
    ParameterError
        When the first axis of ``values`` is not ``time``'s.
    """
    t = _np(time).astype(float)
    v = _np(values).astype(float)
    if v.shape[:1] != t.shape:
        raise ParameterError(f"first_crossing: values {v.shape} must have time {t.shape} as first axis")
    if v.ndim == 1:
        return _first_crossing_1d(t, v, float(_np(level)), below, interpolate)
    flat = v.reshape(v.shape[0], -1)
    lv = np.broadcast_to(_np(level).astype(float), v.shape[1:]).reshape(-1)
    out = np.array([_first_crossing_1d(t, flat[:, r], lv[r], below, interpolate) for r in range(flat.shape[1])])
    return out.reshape(v.shape[1:])


def drop_times(time, loss, levels) -> np.ndarray:
    """The drop times of a loss curve between predicted levels.

    Drop ``k`` (k = 1..K−1) is the first time the loss falls below the mid-level
    ``(ℓ_{k−1} + ℓ_k)/2`` of consecutive levels (:func:`first_crossing`).

    Parameters
    ----------
    time : array-like
        ``(T,)`` snapshot times (any clock).
    loss : array-like
        ``(T,)`` the loss curve.
    levels : array-like
        ``(K,)`` predicted loss levels ``ℓ_0, …, ℓ_{K−1}``, K ≥ 2.

    Returns
    -------
    np.ndarray
        ``(K−1,)`` times in the clock of ``time``, ``nan`` where never.

    Raises
    ------
    ParameterError
        When fewer than two levels are given.
    """
    lv = _np(levels).astype(float)
    if lv.ndim != 1 or lv.size < 2:
        raise ParameterError("drop_times needs at least two levels")
    return np.array([first_crossing(time, loss, 0.5 * (lv[k] + lv[k + 1])) for k in range(lv.size - 1)])


def plateaus(values, tol: float = 0.01, min_len: int = 5) -> list[tuple[int, int]]:
    """The flat stretches of a positive series.

    Parameters
    ----------
    values : array-like
        A positive series ``(T,)`` (e.g. a loss at log-spaced snapshots).
    tol : float
        The largest change of ``log values`` per snapshot that counts as flat.
    min_len : int
        The fewest consecutive flat snapshot intervals that make a plateau.

    Returns
    -------
    list of tuple of int
        Index ranges ``(start, end)`` (both inclusive).
    """
    flat = np.abs(np.diff(np.log(_np(values).astype(float)))) < tol
    out, start = [], None
    for i, f in enumerate(np.append(flat, False)):
        if f and start is None:
            start = i
        elif not f and start is not None:
            if i - start >= min_len:
                out.append((start, i))
            start = None
    return out


def drops(steps, values, rel: float = 0.1) -> list[int]:
    """Indices of the separate sharp decreases of a positive series ``(T,)`` (e.g. a loss).

    The decrease rate ``r = −Δ log values / Δ steps`` is computed between snapshots; a drop is a
    local maximum of ``r`` above ``rel · max r``; two maxima count as separate drops only if
    ``r`` dips below half the smaller one between them.

    Parameters
    ----------
    steps : array-like
        ``(T,)`` snapshot times (any clock; the rate is per unit of it).
    values : array-like
        ``(T,)`` the positive series.
    rel : float
        A peak counts when ``r`` exceeds ``rel · max r``.

    Returns
    -------
    list of int
        The index (into ``r``, i.e. the snapshot interval) of each drop's peak.
    """
    v = np.log(_np(values).astype(float))
    r = -np.diff(v) / np.diff(_np(steps).astype(float))
    cand = [i for i in range(len(r)) if r[i] > rel * r.max()
            and (i == 0 or r[i] > r[i - 1]) and (i == len(r) - 1 or r[i] >= r[i + 1])]
    peaks: list[int] = []
    for i in cand:
        if peaks and r[peaks[-1]:i + 1].min() >= 0.5 * min(r[peaks[-1]], r[i]):
            if r[i] > r[peaks[-1]]:
                peaks[-1] = i          # same drop: keep the higher peak
            continue
        peaks.append(i)
    return peaks


class Plateau(NamedTuple):
    """A loss curve read over the middle half of each interval between consecutive drops.

    Parameters
    ----------
    level : np.ndarray
        ``(K−1,)`` the median loss over the window (``nan`` where a drop is missing).
    low, high : np.ndarray
        ``(K−1,)`` the lowest and highest loss over the window: the largest relative deviation of the
        curve from a predicted level ``ℓ`` there is ``max(|high − ℓ|, |low − ℓ|) / |ℓ|``.
    """

    level: np.ndarray
    low: np.ndarray
    high: np.ndarray


def plateau_between(time, loss, drops) -> Plateau:
    """The plateaus of a loss curve between its consecutive drops, read in one declared way.

    The plateau between drops ``d_k < d_{k+1}`` is the window ``[d_k + Δ/4, d_{k+1} − Δ/4]``,
    ``Δ = d_{k+1} − d_k`` (the middle half, in the clock of ``time``): away from both drops, where a
    plateau is flat and a smooth decay through a level is not. The curve is interpolated linearly at
    both ends of the window and taken at every snapshot inside it.

    Parameters
    ----------
    time : array-like
        ``(T,)`` increasing snapshot times (any clock).
    loss : array-like
        ``(T,)`` one loss curve.
    drops : array-like
        ``(K,)`` drop times in the clock of ``time``, ``K ≥ 2``; ``nan`` for a missing drop.

    Returns
    -------
    Plateau
        ``level``, ``low``, ``high``, each ``(K−1,)``.

    Raises
    ------
    ParameterError
        When fewer than two drop times are given.
    """
    t, L, d = (_np(a).astype(float) for a in (time, loss, drops))
    if d.ndim != 1 or d.size < 2:
        raise ParameterError(f"plateau_between needs at least two drop times, got shape {d.shape}")
    out = np.full((3, d.size - 1), np.nan)
    for k in range(d.size - 1):
        if not (np.isfinite(d[k]) and np.isfinite(d[k + 1]) and d[k + 1] > d[k]):
            continue
        a, b = d[k] + 0.25 * (d[k + 1] - d[k]), d[k + 1] - 0.25 * (d[k + 1] - d[k])
        w = np.r_[np.interp([a, b], t, L), L[(t > a) & (t < b)]]
        out[:, k] = np.median(w), w.min(), w.max()
    return Plateau(*out)


def relative_error(value, reference):
    """``|value − reference| / |reference|`` element-wise (``nan`` propagates).

    Parameters
    ----------
    value : array-like or Tensor
        The measured value(s).
    reference : array-like or Tensor
        The theory's prediction, or the converged/finer run: the denominator. Broadcasts with ``value``.

    Returns
    -------
    np.ndarray or Tensor
        A tensor when either input is one, else a float array (shape: the broadcast).
    """
    if isinstance(value, Tensor) or isinstance(reference, Tensor):
        v, r = torch.as_tensor(value), torch.as_tensor(reference)
        return (v - r).abs() / r.abs()
    v, r = np.asarray(value, dtype=float), np.asarray(reference, dtype=float)
    return np.abs(v - r) / np.abs(r)


class Line(NamedTuple):
    """A least-squares line ``y ≈ slope·x + intercept`` and its coefficient of determination.

    Parameters
    ----------
    slope, intercept : float
        The line.
    r2 : float
        R² of the fit (``nan`` when ``y`` is constant).
    """

    slope: float
    intercept: float
    r2: float


def line_fit(x, y) -> Line:
    """Least-squares line of ``y`` on ``x``.

    Parameters
    ----------
    x, y : array-like
        ``(N,)`` each (flattened).

    Returns
    -------
    Line
        ``(slope, intercept, r2)``; all ``nan`` when a value is not finite (e.g. a crossing time
        a run never reached) or fewer than two points are given.
    """
    x, y = _np(x).astype(float).ravel(), _np(y).astype(float).ravel()
    if x.size < 2 or not (np.isfinite(x).all() and np.isfinite(y).all()):
        return Line(float("nan"), float("nan"), float("nan"))
    A = np.vstack([x, np.ones_like(x)]).T
    (a, b), *_ = np.linalg.lstsq(A, y, rcond=None)
    res = y - (a * x + b)
    var = y.var()
    return Line(float(a), float(b), float(1 - res.var() / var) if var > 0 else float("nan"))


def cosine(u: Tensor, v: Tensor, eps: float = 0.0) -> Tensor:
    """Cosine between two vectors along the last axis (broadcasting).

    Parameters
    ----------
    u, v : Tensor
        ``(..., D)`` each.
    eps : float
        Where ``‖u‖·‖v‖ ≤ eps`` the cosine is ``0`` (a zero vector has no direction).

    Returns
    -------
    Tensor
        ``(...)``, the broadcast of the leading dimensions.
    """
    nu = torch.linalg.vector_norm(u, dim=-1)
    nv = torch.linalg.vector_norm(v, dim=-1)
    den = nu * nv
    return torch.where(den > eps, (u * v).sum(-1) / den.clamp_min(torch.finfo(den.dtype).tiny), torch.zeros_like(den))


def active(net: TwoLayer | Tensor, X: Tensor) -> Tensor:
    """Boolean activation mask: is neuron ``j`` active (pre-activation ``> 0``) on point ``k``.

    Parameters
    ----------
    net : TwoLayer or Tensor
        A :class:`~lrlib.models.TwoLayer` (its bias counts) or a first-layer weight
        ``W (R..., m, d)`` without bias.
    X : Tensor
        Inputs ``(n, d)`` or ``(R..., n, d)``.

    Returns
    -------
    Tensor
        ``(R..., m, n)`` bool.
    """
    if isinstance(net, TwoLayer):
        return (preactivations(net, X) > 0).transpose(-1, -2)
    return ((X.to(net.dtype) @ net.transpose(-1, -2)) > 0).transpose(-1, -2)


def decreasing(values, strict: bool = True) -> np.ndarray:
    """Whether values decrease along their last axis (strictly, or not increasing).

    Parameters
    ----------
    values : array_like
        ``(..., K)``.
    strict : bool
        Strictly decreasing (``True``) or non-increasing.

    Returns
    -------
    ndarray
        ``(...)`` bool; ``False`` where a value is nan.
    """
    d = np.diff(np.asarray(values, dtype=float), axis=-1)
    return np.all(d < 0 if strict else d <= 0, axis=-1)


def row_slopes(x: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """The least-squares slope of each row of ``Y`` on ``x``.

    Parameters
    ----------
    x : ndarray
        ``(K,)``.
    Y : ndarray
        ``(rows, K)``.

    Returns
    -------
    ndarray
        ``(rows,)`` slopes (nan if a value of the row is missing).
    """
    return np.array([line_fit(x, row).slope for row in np.asarray(Y, dtype=float)])


__all__ = ["first_crossing", "drop_times", "plateaus", "drops", "plateau_between", "Plateau", "relative_error",
           "Line", "line_fit", "row_slopes", "decreasing", "cosine", "active"]
