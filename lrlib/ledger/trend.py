"""Limits graded as trends: how a deviation shrinks deep into a regime.

A statement "as λ → 0" (α, ε → 0, t → ∞) is not graded by a threshold at one finite value but by
a sweep of the parameter that reaches deep into the regime: the deviation from the limit must
shrink monotonically along the sweep and, where the theory gives a rate, at that rate.
:func:`trend_stats` turns one sweep per seed into the named quantities a ``rule_kind: trend``
claim reads:

``mono``
    the fraction of successive steps (towards the limit, between measured points) along which the
    deviation does not grow;
``slope``
    the least-squares slope of ``log|deviation|`` against ``log(scale)`` over the deepest
    ``fit_last`` points, where ``scale`` is the parameter mapped so that the limit is ``scale → 0``
    (``λ`` itself, or ``1/t``, or ``1/log(1/α)``): a deviation ``∝ scale^p`` has slope ``p``;
``shrink``
    the deviation at the shallowest measured point over the one at the deepest (> 1 when it shrinks);
``decades``
    how many decades of ``scale`` the sweep spans.
"""

from __future__ import annotations

import numpy as np


def trend_stats(scale, deviation, *, fit_last: int | None = None, tiny: float = 0.0,
                min_points: int = 2) -> dict[str, np.ndarray]:
    """Per-seed trend of a deviation along a sweep towards a limit.

    Parameters
    ----------
    scale : array-like, shape (k,)
        The sweep's parameter mapped so that the limit is ``scale → 0`` (positive), in any order.
    deviation : array-like, shape (S..., k)
        The deviation from the limit at each point (absolute values are used), one row per seed.
    fit_last : int or None
        How many of the deepest points (smallest ``scale``) the slope is fitted on; ``None``: all.
    tiny : float
        Deviations at or below ``tiny`` count as having reached the limit (they end the
        monotone check as "not growing" and are left out of the slope fit).
    min_points : int
        Non-finite deviations (a run that did not reach the event measured) are left out; a seed
        with fewer than ``min_points`` finite points (``>= 2``) gets ``nan`` everywhere, so that a
        trend read on two surviving points of a long sweep cannot pass unnoticed.

    Returns
    -------
    dict of str to np.ndarray
        ``mono``, ``slope``, ``shrink``, ``decades``, each of shape ``S...`` (``nan`` where fewer
        than ``min_points`` finite points remain; ``decades`` is the sweep's span).
    """
    scale = np.asarray(scale, dtype=float)
    dev = np.abs(np.asarray(deviation, dtype=float))
    if scale.ndim != 1 or dev.shape[-1] != scale.size or scale.size < 2 or (scale <= 0).any():
        raise ValueError("trend_stats: scale is a positive 1-d sweep of k >= 2 points and deviation (..., k)")
    if int(min_points) < 2:
        raise ValueError("trend_stats: min_points >= 2 (a slope needs two points)")
    order = np.argsort(-scale)                     # shallow -> deep
    s, d = scale[order], dev[..., order]
    mono = np.full(d.shape[:-1], np.nan)
    shrink = np.full(d.shape[:-1], np.nan)
    for idx in np.ndindex(*d.shape[:-1]):
        f = d[idx][np.isfinite(d[idx])]                  # the measured points, shallow -> deep
        if f.size >= min_points:
            mono[idx] = np.mean((np.diff(f) <= 0) | (f[1:] <= tiny))
            with np.errstate(divide="ignore"):
                shrink[idx] = f[0] / f[-1]
    k = s.size if fit_last is None else max(2, min(int(fit_last), s.size))
    ls, ld = np.log(s[-k:]), d[..., -k:]
    slope = np.full(d.shape[:-1], np.nan)
    for idx in np.ndindex(*d.shape[:-1]):
        ok = np.isfinite(ld[idx]) & (ld[idx] > tiny)
        if ok.sum() >= 2 and np.isfinite(d[idx]).sum() >= min_points:
            slope[idx] = np.polyfit(ls[ok], np.log(ld[idx][ok]), 1)[0]
    decades = np.full(d.shape[:-1], np.log10(s.max() / s.min()))
    return {"mono": mono, "slope": slope, "shrink": shrink, "decades": decades}


__all__ = ["trend_stats"]
