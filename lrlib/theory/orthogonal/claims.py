"""The chapter's claim measurements in the ledger's form: one function per claim, applied by
:meth:`lrlib.ledger.grading.Ledger.measure` to the main runs, to the control run and to the initial
state alike (so a notebook cannot hand in a control value).

Conventions
-----------
Most functions read a :class:`Sweep`: a λ-sweep trajectory with runs ``(rows, K)`` (one row per
seed, one column per λ), its data ``X (n, d)``, ``y (n,)`` and the scales ``lams (K,)``. Each
function returns a dict of arrays of shape ``(rows,)``, the names its claim's rule reads. ``kv``
(context) is the key vectors (:func:`~lrlib.theory.orthogonal.core.key_vectors`) of the orthonormal
test bed: the theory's prediction, the same for every run measured. ``lam_max`` is the largest λ a
fit or a bound reads (the statements are asymptotic). Times are paper time (gradient flow on ``L``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from ...ledger.trend import trend_stats
from ...measure import first_crossing
from ...track import max_direction_change
from ...trajectory import Trajectory
from .core import KeyVectors, phase_times, plateau_loss
from .measure import (count_saddles, decay_rates, excess_norm, f1_cost, function_gap, half_fit_times, loss_at,
                      mass_times, movement, no_collapse_margin, row_slopes, saddle_distance, saddle_walk, sub_runs,
                      two_clusters)

Tensor = torch.Tensor


def first_snapshots(traj: Trajectory, k: int = 1) -> Trajectory:
    """The trajectory cut to its first ``k`` snapshots (``k = 1``: the initial state as a run).

    Parameters
    ----------
    traj : Trajectory
        Any run.
    k : int
        How many snapshots to keep.

    Returns
    -------
    Trajectory
    """
    return Trajectory(steps=traj.steps[:k], time=traj.time[:k], params=traj.params.map(lambda t: t[:k]),
                      loss=traj.loss[:k], meta=dict(traj.meta),
                      dense_loss=None if traj.dense_loss is None else traj.dense_loss[:k])


@dataclass(frozen=True)
class Sweep:
    """A λ-sweep and what its measurements need (module conventions).

    Parameters
    ----------
    traj : Trajectory
        Runs ``(rows, K)``.
    X : Tensor
        ``(n, d)`` the inputs the runs were trained on.
    y : Tensor
        ``(n,)`` labels.
    lams : Tensor
        ``(K,)`` the scale λ of each column.
    """

    traj: Trajectory
    X: Tensor
    y: Tensor
    lams: Tensor

    def start(self) -> "Sweep":
        """The same sweep at its initial state (its first snapshot only).

        Returns
        -------
        Sweep
        """
        return Sweep(first_snapshots(self.traj), self.X, self.y, self.lams)

    def columns(self, index) -> "Sweep":
        """The sweep restricted to some of its columns.

        Parameters
        ----------
        index : slice or list of int
            The columns (λ) kept.

        Returns
        -------
        Sweep
        """
        return Sweep(sub_runs(self.traj, (slice(None), index)), self.X, self.y, self.lams[index])


def _fit_mask(run: Sweep, lam_max: float) -> np.ndarray:
    return (run.lams <= lam_max * (1 + 1e-9)).numpy()


def final_loss(run: Sweep) -> dict[str, np.ndarray]:
    """Theorem 1 (zero loss): the largest final loss over the sweep's λ.

    Parameters
    ----------
    run : Sweep
        The sweep (module conventions).

    Returns
    -------
    dict
        ``final_max`` ``(rows,)``: the loss ``L`` at the last snapshot, maximised over λ.
    """
    return {"final_max": run.traj.loss[-1].amax(-1).numpy()}


def _trend(run: Sweep, dev: np.ndarray) -> dict[str, np.ndarray]:
    out = trend_stats(run.lams.numpy(), dev)
    out["dev_last"] = np.abs(dev[..., int(np.argmin(run.lams.numpy()))])
    return out


def min_norm_trend(run: Sweep) -> dict[str, np.ndarray]:
    """Theorem 1 (minimal norm) as a trend: the relative excess of the final ``‖θ‖²`` over
    ``2(‖y₊‖ + ‖y₋‖)`` along the sweep (:func:`~lrlib.ledger.trend.trend_stats`).

    Parameters
    ----------
    run : Sweep
        The sweep (module conventions); the formula uses the run's own data.

    Returns
    -------
    dict
        ``mono``, ``slope``, ``shrink``, ``decades``, ``dev_last`` (the excess at the smallest λ) and
        ``excess_min`` (the smallest signed excess over λ: the minimal norm is a lower bound), each ``(rows,)``.
    """
    ex = excess_norm(run.traj.final, run.X, run.y).numpy()
    return {**_trend(run, ex), "excess_min": ex.min(-1)}


def function_limit_trend(run: Sweep, Z: Tensor) -> dict[str, np.ndarray]:
    """Theorem 1 (the limit function) as a trend: ``sup_z |h(z) − h*(z)|`` along the sweep.

    Parameters
    ----------
    run : Sweep
        The sweep (module conventions).
    Z : Tensor
        ``(N, d)`` test inputs.

    Returns
    -------
    dict
        ``mono``, ``slope``, ``shrink``, ``decades``, ``dev_last``, each ``(rows,)``.
    """
    return _trend(run, function_gap(run.traj.final, run.X, run.y, Z).numpy())


def clusters_trend(run: Sweep) -> dict[str, np.ndarray]:
    """Theorem 1 (two clusters) as a trend: the share of the final ``‖θ‖²`` carried by neurons outside
    the two limit directions (cosine ≤ 0.999, :func:`~lrlib.theory.orthogonal.measure.two_clusters`).

    Parameters
    ----------
    run : Sweep
        The sweep (module conventions).

    Returns
    -------
    dict
        ``mono``, ``slope``, ``shrink``, ``decades``, ``dev_last``, each ``(rows,)``.
    """
    return _trend(run, two_clusters(run.traj.final, run.X, run.y)[1].numpy())


def saddle_trend(run: Sweep) -> dict[str, np.ndarray]:
    """Proposition 1 (passage near the strict saddle) as a trend: the smallest distance along the run
    to the saddle set, ``min_t ‖θ(t) − θ_S(t)‖/‖θ_S‖`` (:func:`~lrlib.theory.orthogonal.measure.saddle_distance`).

    Parameters
    ----------
    run : Sweep
        The sweep (module conventions).

    Returns
    -------
    dict
        ``mono``, ``slope``, ``shrink``, ``decades``, ``dev_last``, each ``(rows,)``.
    """
    return _trend(run, saddle_distance(run.traj, run.X, run.y).amin(0).numpy())


def half_fit_slopes(run: Sweep, kv: KeyVectors, lam_max: float = 1e-8) -> dict[str, np.ndarray]:
    """Lemmas 3–4: the slopes of the half-fit times ``t₂½``, ``t₃½`` against ``ln(1/λ)``, in units of
    the theory's ``1/‖D₊‖`` and ``1/‖D₋‖`` (1 when the law holds).

    Parameters
    ----------
    run : Sweep
        The sweep (module conventions).
    kv : KeyVectors
        The prediction's key vectors (module conventions).
    lam_max : float
        Fit over ``λ ≤ lam_max``.

    Returns
    -------
    dict
        ``slope2``, ``slope3`` ``(rows,)``; nan where a time is missing.
    """
    t2, t3 = half_fit_times(run.traj, run.X, run.y)
    fit = _fit_mask(run, lam_max)
    logs = -np.log(run.lams.numpy()[fit])
    return {"slope2": row_slopes(logs, t2[:, fit]) * kv.norm_plus, "slope3": row_slopes(logs, t3[:, fit]) * kv.norm_minus}


def convergence_slope(run: Sweep, kv: KeyVectors, lam_max: float = 1e-8, level: float = 1e-6) -> dict[str, np.ndarray]:
    """Theorem 1 / Lemma 12: the slope of the time to ``L < level`` against ``ln(1/λ)``, times ``‖D₋‖``.

    Parameters
    ----------
    run : Sweep
        The sweep (module conventions).
    kv : KeyVectors
        The prediction's key vectors (module conventions).
    lam_max : float
        Fit over ``λ ≤ lam_max``.
    level : float
        The loss level.

    Returns
    -------
    dict
        ``slope_conv`` ``(rows,)``.
    """
    t = first_crossing(run.traj.time, run.traj.loss, level)
    fit = _fit_mask(run, lam_max)
    return {"slope_conv": row_slopes(-np.log(run.lams.numpy()[fit]), t[:, fit]) * kv.norm_minus}


def phase_end_ratios(run: Sweep, kv: KeyVectors, lam_max: float = 1e-8, eps: float = 0.1) -> dict[str, np.ndarray]:
    """Lemmas 3–4's bounds: the first time the fitted masses reach the lemmas' levels over the lemmas'
    bounds ``(1+3ε) ln(1/λ)/‖D₊‖`` and ``(1+3rε) ln(1/λ)/‖D₋‖``, maximised over ``λ ≤ lam_max``.

    Parameters
    ----------
    run : Sweep
        The sweep (module conventions); its ``lams`` are the λ the bounds are computed at.
    kv : KeyVectors
        The prediction's key vectors (module conventions).
    lam_max, eps : float
        The largest λ read; the lemmas' ε.

    Returns
    -------
    dict
        ``ratio2``, ``ratio3`` ``(rows,)``; nan where a level is never reached.
    """
    t2, t3 = mass_times(run.traj, run.X, run.y, run.lams, eps)
    fit = _fit_mask(run, lam_max)
    pts = [phase_times(kv, v, eps) for v in run.lams[fit].tolist()]
    b2, b3 = np.array([p.t2_bound for p in pts]), np.array([p.t3_bound for p in pts])
    return {"ratio2": (t2[:, fit] / b2).max(-1), "ratio3": (t3[:, fit] / b3).max(-1)}


def no_collapse(run: Sweep, lam_max: float = 1e-8, eps: float = 0.1) -> dict[str, np.ndarray]:
    """App. Lemma 9: the smallest ratio of an aligning neuron's norm to the lemma's lower bound
    (:func:`~lrlib.theory.orthogonal.measure.no_collapse_margin`).

    Parameters
    ----------
    run : Sweep
        The sweep (module conventions).
    lam_max, eps : float
        The largest λ read; the lemma's ε.

    Returns
    -------
    dict
        ``margin`` ``(rows,)``.
    """
    return {"margin": no_collapse_margin(run.traj, run.X, run.y, run.lams, eps=eps, lam_max=lam_max)}


def local_rate_deviation(run: Sweep, kv: KeyVectors, window: tuple[float, float], n_last: int) -> dict[str, np.ndarray]:
    """Lemma 5: the largest relative deviation over λ of the fitted decay rate of ``ln L`` (``L`` in
    ``window``) from the linearised prediction ``2‖D₋‖`` (:func:`~lrlib.theory.orthogonal.core.local_rate`).

    Parameters
    ----------
    run : Sweep
        The sweep (module conventions).
    kv : KeyVectors
        The prediction's key vectors (module conventions).
    window : tuple of float
        The loss window of the fit.
    n_last : int
        The number of labels fitted last (``local_rate``'s argument).

    Returns
    -------
    dict
        ``rate_dev`` ``(rows,)``; nan where the loss never crosses the window.
    """
    from .core import local_rate
    rate = decay_rates(run.traj.time, run.traj.loss, window)
    return {"rate_dev": np.max(np.abs(rate / local_rate(kv, n_last) - 1), axis=-1)}


def plateau_deviation(run: Sweep, lam_max: float = 1e-8) -> dict[str, np.ndarray]:
    """The strict saddle's plateau: the largest relative deviation from ``(1/2n) Σ_{y<0} y²`` of the
    loss midway between ``t₂½`` and ``t₃½``, over ``λ ≤ lam_max``.

    Parameters
    ----------
    run : Sweep
        The sweep (module conventions).
    lam_max : float
        The largest λ read.

    Returns
    -------
    dict
        ``plateau_dev`` ``(rows,)``.
    """
    t2, t3 = half_fit_times(run.traj, run.X, run.y)
    fit = _fit_mask(run, lam_max)
    plateau = loss_at(run.traj, (t2 + t3) / 2)[:, fit]
    return {"plateau_dev": np.max(np.abs(plateau / plateau_loss(run.y) - 1), axis=-1)}


def lazy_regime(run: Trajectory, f1_ref) -> dict[str, np.ndarray]:
    """Figure 5: how far a run moves and how sparse its interpolator is.

    Parameters
    ----------
    run : Trajectory
        Runs ``(R,)`` (one per seed).
    f1_ref : array-like
        ``(R,)`` the reference F1 costs (the small-initialisation runs' final ``Σ|a_j|‖w_j‖``).

    Returns
    -------
    dict
        ``mv`` (``‖θ_T − θ_0‖/‖θ_0‖``), ``f1_ratio`` (the final F1 cost over ``f1_ref``), ``loss`` (the
        final loss), each ``(R,)``.
    """
    return {"mv": movement(run).numpy(), "f1_ratio": (f1_cost(run.final).numpy() / np.asarray(f1_ref, float)),
            "loss": run.loss[-1].numpy()}


def fast_convergence(run: tuple[Trajectory, np.ndarray], it_ref, level: float = 1e-5) -> dict[str, np.ndarray]:
    """Figure 5 / App. A.1: how fast a run converges, and through how many saddles.

    Parameters
    ----------
    run : tuple of (Trajectory, ndarray)
        Runs ``(R,)`` and the snapshots' iterations ``(T,)`` (the paper's units).
    it_ref : array-like
        ``(R,)`` the reference iterations (the small-initialisation runs').
    level : float
        The loss level that counts as converged.

    Returns
    -------
    dict
        ``it_ratio`` (the first iteration with loss ``< level`` over ``it_ref``; the run's length if never)
        and ``saddles`` (:func:`~lrlib.theory.orthogonal.measure.count_saddles`), each ``(R,)``.
    """
    traj, it = run
    first = np.nan_to_num(first_crossing(it, traj.loss, level), nan=float(it[-1]))
    walks = [saddle_walk(traj.run(r), it, above=100) for r in range(traj.loss.shape[1])]
    return {"it_ratio": first / np.asarray(it_ref, float), "saddles": count_saddles(traj.loss, it, walks)}


def realignment(run: tuple[Trajectory, list]) -> dict[str, np.ndarray]:
    """Figure 4(c–d): the largest direction change (degrees) of the 10 largest neurons over a window.

    Parameters
    ----------
    run : tuple of (Trajectory, list of (int, int) or None)
        Runs ``(R,)`` and, per run, the snapshot indices where the window starts and ends (the end of
        alignment and the start of the plateau), or ``None`` where there is no window (turn: nan).

    Returns
    -------
    dict
        ``turn`` ``(R,)`` degrees.
    """
    traj, windows = run
    return {"turn": np.array([float("nan") if w is None else max_direction_change(traj.run(r).at(w[0]), traj.run(r).at(w[1]))
                              for r, w in enumerate(windows)])}


__all__ = ["Sweep", "clusters_trend", "convergence_slope", "fast_convergence", "final_loss", "first_snapshots",
           "function_limit_trend", "half_fit_slopes", "lazy_regime", "local_rate_deviation", "min_norm_trend",
           "no_collapse", "phase_end_ratios", "plateau_deviation", "realignment", "saddle_trend"]
