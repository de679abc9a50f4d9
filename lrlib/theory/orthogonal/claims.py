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
fit or a bound reads (the statements are asymptotic); ``Z`` ``(N, d)`` are the test inputs of a function
gap. The trend functions return the statistics of :func:`~lrlib.ledger.trend.trend_stats` (``mono``,
``slope``, ``shrink``, ``decades``) and ``dev_last``, the deviation at the smallest λ. Times are paper
time (gradient flow on ``L``).
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass

import numpy as np
import torch

from ...ledger.trend import trend_stats
from ...measure import active, cosine, first_crossing, relative_error, row_slopes
from ...track import max_direction_change
from ...trajectory import Trajectory
from ...models import TwoLayer, forward
from .core import (KeyVectors, alignment_directions, key_vectors, local_rate, min_f1_norm, phase_times, plateau_loss,
                   s_sets)
from .lemmas import inactive_violations, lemma2_holds, min_alignment, no_collapse_margin, stuck_measures
from .limit import excess_norm, f1_cost, function_gap, kink_clusters, movement, ntk_gap, two_clusters
from .phases import decay_rates, dwell_time, half_fit_times, loss_at, mass_times, toy_timings, u_fitted
from .saddles import count_saddles, hd_measures, saddle_distance, saddle_walk

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
    return Trajectory(steps=traj.steps[:k], time=traj.time[:k], params=traj.params.map(operator.itemgetter(slice(0, k))),
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
        return Sweep(self.traj.run(slice(None), index), self.X, self.y, self.lams[index])


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
        The trend statistics (module conventions) and ``excess_min`` (the smallest signed excess over λ:
        the minimal norm is a lower bound), each ``(rows,)``.
    """
    ex = excess_norm(run.traj.final, run.X, run.y).numpy()
    return {**_trend(run, ex), "excess_min": ex.min(-1)}


def function_limit_trend(run: Sweep, Z: Tensor) -> dict[str, np.ndarray]:
    """Theorem 1 (the limit function) as a trend: ``sup_z |h(z) − h*(z)|`` along the sweep.

    Parameters
    ----------
    run : Sweep
        The λ-sweep (module conventions).
    Z : Tensor
        The test inputs (module conventions).

    Returns
    -------
    dict
        The trend statistics (module conventions), each ``(rows,)``.
    """
    return _trend(run, function_gap(run.traj.final, run.X, run.y, Z).numpy())


def clusters_trend(run: Sweep) -> dict[str, np.ndarray]:
    """Theorem 1 (two clusters) as a trend: the share of the final ``‖θ‖²`` carried by neurons outside
    the two limit directions (cosine ≤ 0.999, :func:`~lrlib.theory.orthogonal.limit.two_clusters`).

    Parameters
    ----------
    run : Sweep
        The sweep (module conventions).

    Returns
    -------
    dict
        The trend statistics (module conventions), each ``(rows,)``.
    """
    return _trend(run, two_clusters(run.traj.final, run.X, run.y)[1].numpy())


def saddle_trend(run: Sweep) -> dict[str, np.ndarray]:
    """Proposition 1 (passage near the strict saddle) as a trend: the smallest distance along the run
    to the saddle set, ``min_t ‖θ(t) − θ_S(t)‖/‖θ_S‖`` (:func:`~lrlib.theory.orthogonal.saddles.saddle_distance`).

    Parameters
    ----------
    run : Sweep
        The sweep (module conventions).

    Returns
    -------
    dict
        The trend statistics (module conventions), each ``(rows,)``.
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
    (:func:`~lrlib.theory.orthogonal.lemmas.no_collapse_margin`).

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
    rate = decay_rates(run.traj.time, run.traj.loss, window)
    return {"rate_dev": np.max(relative_error(rate, local_rate(kv, n_last)), axis=-1)}


def plateau_deviation(run: Sweep, lam_max: float = 1e-8) -> dict[str, np.ndarray]:
    """The strict saddle's plateau: the largest relative deviation from ``(1/2n) Σ_{y<0} y²`` of the
    loss midway between ``t₂½`` and ``t₃½``, over ``λ ≤ lam_max``.

    Parameters
    ----------
    run : Sweep
        The sweep (module conventions).
    lam_max : float
        The largest λ read; a sweep with no column at ``λ ≤ lam_max`` (a control at a larger λ) is read
        at all its columns.

    Returns
    -------
    dict
        ``plateau_dev`` ``(rows,)``.
    """
    t2, t3 = half_fit_times(run.traj, run.X, run.y)
    fit = _fit_mask(run, lam_max)
    fit = fit if fit.any() else np.ones_like(fit)
    plateau = loss_at(run.traj, (t2 + t3) / 2)[:, fit]
    return {"plateau_dev": np.max(relative_error(plateau, plateau_loss(run.y)), axis=-1)}


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
        ``mv`` (``‖θ_T − θ_0‖/‖θ_0‖``), ``f1_ratio`` (the final F1 cost over ``f1_ref``), ``clusters``
        (the number of kink clusters of the final function, as :func:`kink_count`: "not sparse"; nan unless
        the inputs are 1-D with a bias coordinate), ``loss``
        (the final loss), each ``(R,)``.
    """
    return {"mv": movement(run).numpy(), "f1_ratio": (f1_cost(run.final).numpy() / np.asarray(f1_ref, float)),
            "clusters": (kink_count(run)["clusters"] if run.final.W1.shape[-1] == 2        # 1-D inputs + bias
                         else np.full(run.loss.shape[1], np.nan)), "loss": run.loss[-1].numpy()}


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
        and ``saddles`` (:func:`~lrlib.theory.orthogonal.saddles.count_saddles`), each ``(R,)``.
    """
    traj, it = run
    first = np.nan_to_num(first_crossing(it, traj.loss, level), nan=float(it[-1]))
    walks = [saddle_walk(traj.run(r), it, above=100) for r in range(traj.loss.shape[1])]
    return {"it_ratio": first / np.asarray(it_ref, float), "saddles": count_saddles(traj.loss, it, walks)}


def realignment(run: tuple[Trajectory, list], rel: float | None = None) -> dict[str, np.ndarray]:
    """Figure 4(c–d): the largest direction change (degrees) of the large neurons over a window.

    Parameters
    ----------
    run : tuple of (Trajectory, list of (int, int) or None)
        Runs ``(R,)`` and, per run, the snapshot indices where the window starts and ends (the end of
        alignment and the start of the plateau), or ``None`` where there is no window (turn: nan).
    rel : float or None
        ``None``: the 10 largest neurons at the window's end
        (:func:`~lrlib.track.max_direction_change`); a number: every neuron whose norm at the window's
        start is at least ``rel`` times the largest norm at its end (nan if none).

    Returns
    -------
    dict
        ``turn`` ``(R,)`` degrees.
    """
    traj, windows = run

    def turn(p0: TwoLayer, p1: TwoLayer) -> float:
        if rel is None:
            return max_direction_change(p0, p1)
        w0, w1 = p0.incoming(), p1.incoming()
        big = w0.norm(dim=-1) >= rel * w1.norm(dim=-1).max()
        if not bool(big.any()):
            return float("nan")
        return float(torch.rad2deg(torch.arccos(cosine(w0[big], w1[big]).clamp(-1, 1))).max())

    return {"turn": np.array([float("nan") if w is None else turn(traj.run(r).at(w[0]), traj.run(r).at(w[1]))
                              for r, w in enumerate(windows)])}


def toy_phase_timings(run: Trajectory) -> dict[str, np.ndarray]:
    """Figure 3: the toy's saddle exits, plateau and final loss from the dense loss
    (:func:`~lrlib.theory.orthogonal.phases.toy_timings`).

    Parameters
    ----------
    run : Trajectory
        Toy runs ``(R,)`` recorded with ``dense_loss`` (mean MSE, step η = 1e-3).

    Returns
    -------
    dict
        ``exit1``, ``plateau``, ``exit2``, ``final``, each ``(R,)``.
    """
    return toy_timings(run.dense_loss)


def toy_limit(run: Trajectory, X: Tensor, y: Tensor, Z: Tensor) -> dict[str, np.ndarray]:
    """Theorem 1 on the toy: the final function against ``h*`` and the F1 cost against the minimal one.

    Parameters
    ----------
    run : Trajectory
        Toy runs ``(R,)``.
    X, y : Tensor
        The toy's data.
    Z : Tensor
        ``(N, d)`` the grid.

    Returns
    -------
    dict
        ``gap`` (``max_z |h − h*|``) and ``f1_err`` (``|Σ|a_j|‖w_j‖ − min F1|``), each ``(R,)``.
    """
    return {"gap": function_gap(run.final, X, y, Z).numpy(),
            "f1_err": (f1_cost(run.final) - min_f1_norm(X, y)).abs().numpy()}


def frozen_inactivity(run: Sweep) -> dict[str, np.ndarray]:
    """Lemma 6: how often an inactive pre-activation changes between snapshots, summed over λ
    (:func:`~lrlib.theory.orthogonal.lemmas.inactive_violations`).

    Parameters
    ----------
    run : Sweep
        The sweep (module conventions).

    Returns
    -------
    dict
        ``violations`` ``(rows,)``.
    """
    return {"violations": inactive_violations(run.traj, run.X).sum(-1).numpy()}


def alignment_end(run: Sweep, dt: float) -> dict[str, np.ndarray]:
    """Lemma 2 (App. Lemmas 7–8) at ``t_{±1}``: the two inequalities and the deactivation, as 0/1
    (:func:`~lrlib.theory.orthogonal.lemmas.lemma2_holds`).

    Parameters
    ----------
    run : Sweep
        The sweep (module conventions).
    dt : float
        The GD step (paper time per step).

    Returns
    -------
    dict
        ``bounds``, ``deactivated`` ``(rows,)`` float.
    """
    return {k: v.astype(float) for k, v in lemma2_holds(run.traj, run.X, run.y, run.lams, dt).items()}


def plateau_dwell(run: Sweep, kv: KeyVectors) -> dict[str, np.ndarray]:
    """§3.1's remark on larger λ: the longest time, over the sweep's columns, that the loss spends within
    ±5 % of the plateau level ``(1/2n) Σ_{y<0} y²``, in units of ``1/‖D₋‖``
    (:func:`~lrlib.theory.orthogonal.phases.dwell_time`).

    Parameters
    ----------
    run : Sweep
        The sweep (module conventions), often one column.
    kv : KeyVectors
        The prediction's key vectors (module conventions).

    Returns
    -------
    dict
        ``dwell`` ``(rows,)``.
    """
    return {"dwell": (dwell_time(run.traj.time, run.traj.loss, plateau_loss(run.y)) * kv.norm_minus).max(-1)}


def stuck_draws(run: tuple[TwoLayer, Tensor], X: Tensor, y: Tensor, groups: int) -> dict[str, np.ndarray]:
    """Assumption 3: whether draws end at the floor of their uncovered labels
    (:func:`~lrlib.theory.orthogonal.lemmas.stuck_measures`).

    Parameters
    ----------
    run : tuple of (TwoLayer, Tensor) or (TwoLayer, Tensor, Tensor)
        The initial networks ``(groups·k,)`` and their final losses ``(groups·k,)``; optionally the
        inputs ``(n, d)`` they were trained on, which then replace ``X``.
    X, y : Tensor
        The data.
    groups : int
        The number of seeds the draws are split into.

    Returns
    -------
    dict
        ``match``, ``n_stuck``, each ``(groups,)``.
    """
    p0, final, *own = run
    X = own[0] if own else X
    return {k: v.numpy().astype(float) for k, v in stuck_measures(p0, final, X, y, groups).items()}


def saddle_steps(run: tuple[Trajectory, np.ndarray]) -> dict[str, np.ndarray]:
    """Figure 4(f): the intermediate plateaus of each run's loss and how fast they are left
    (:func:`~lrlib.theory.orthogonal.saddles.saddle_walk`, plateaus above 100× the final loss).

    Parameters
    ----------
    run : tuple of (Trajectory, ndarray)
        Runs ``(R,)`` and the snapshots' iterations ``(T,)``.

    Returns
    -------
    dict
        ``n_plateaus``, ``speedup`` (the largest over the plateaus; 0 without a plateau: no saddle is
        left, so the measurement is defined on a run without one), ``final`` (the final loss), each ``(R,)``.
    """
    traj, it = run
    walks = [saddle_walk(traj.run(r), it, above=100) for r in range(traj.loss.shape[1])]
    return {"n_plateaus": np.array([len(w["plateaus"]) for w in walks], dtype=float),
            "speedup": np.array([w["speedup"] if w["plateaus"] else 0.0 for w in walks], dtype=float),
            "final": traj.loss[-1].numpy()}


def kink_count(run: Trajectory) -> dict[str, np.ndarray]:
    """Figure 4(e): the number of kink clusters of each final function
    (:func:`~lrlib.theory.orthogonal.limit.kink_clusters`).

    Parameters
    ----------
    run : Trajectory
        Runs ``(R,)``.

    Returns
    -------
    dict
        ``clusters`` ``(R,)``.
    """
    return {"clusters": np.array([kink_clusters(run.run(r).final)[0] for r in range(run.loss.shape[1])], dtype=float)}


def ntk_distance(run: Trajectory, h_ntk: Tensor, Z: Tensor, y: Tensor) -> dict[str, np.ndarray]:
    """Figure 5: the final function's sup distance to each seed's NTK interpolator, over the largest label
    (:func:`~lrlib.theory.orthogonal.limit.ntk_gap`).

    Parameters
    ----------
    run : Trajectory
        Runs ``(R,)``.
    h_ntk : Tensor
        ``(R, N)`` the NTK interpolators on ``Z``.
    Z : Tensor
        ``(N, d)`` the grid.
    y : Tensor
        ``(n,)`` labels.

    Returns
    -------
    dict
        ``gap_ntk`` ``(R,)``.
    """
    return {"gap_ntk": ntk_gap(run.final, h_ntk, Z, y)}


def unbalanced_trends(run: Sweep, Z: Tensor) -> dict[str, np.ndarray]:
    """§3.2 (unbalanced initialisation): Theorem 1's conclusions on one sweep — the zero loss, and the
    minimal norm and the limit function as trends (:func:`~lrlib.ledger.trend.trend_stats`).

    Parameters
    ----------
    run : Sweep
        The λ-sweep (module conventions).
    Z : Tensor
        The test inputs (module conventions).

    Returns
    -------
    dict
        ``final_max`` (the largest final loss over λ), ``excess_min`` (the smallest signed relative excess
        of ``‖θ‖²``), ``norm_mono``, ``norm_shrink`` (the trend of that excess), ``gap_mono``, ``gap_shrink``
        (the trend of ``sup_z |h − h*|``) and ``decades``, each ``(rows,)``.
    """
    ex = excess_norm(run.traj.final, run.X, run.y).numpy()
    tn = trend_stats(run.lams.numpy(), ex)
    tg = trend_stats(run.lams.numpy(), function_gap(run.traj.final, run.X, run.y, Z).numpy())
    return {"final_max": run.traj.loss[-1].amax(-1).numpy(), "excess_min": ex.min(-1), "norm_mono": tn["mono"],
            "norm_shrink": tn["shrink"], "gap_mono": tg["mono"], "gap_shrink": tg["shrink"], "decades": tn["decades"]}


__all__ = ["Sweep", "WHAT_HOLDS", "alignment_end", "clusters_trend", "convergence_slope", "fast_convergence", "final_loss",
           "first_snapshots", "frozen_inactivity", "function_limit_trend", "half_fit_slopes", "kink_count",
           "lazy_regime", "local_rate_deviation", "min_norm_trend", "no_collapse", "ntk_distance",
           "phase_end_ratios", "plateau_deviation", "plateau_dwell", "realignment", "saddle_steps", "saddle_trend",
           "stuck_draws", "toy_limit", "toy_phase_timings",
           "unbalanced_trends", "high_dim_figure", "converged_share", "lemma2_margins", "lemma34_margins",
           "violating_excess"]


def high_dim_figure(run: tuple[Tensor, Tensor, float, int]) -> dict[str, np.ndarray]:
    """Figures 6–7 on the high-dimensional data (:func:`~lrlib.theory.orthogonal.saddles.hd_measures`).

    Parameters
    ----------
    run : tuple of (Tensor, Tensor, float, int)
        The loss at every step ``(steps+1, R)``, the first layer at the horizon ``(R, m, d)``, the run's
        step and the horizon in iterations of the paper's step 1e-3 (the run's own length for a shorter
        control run).

    Returns
    -------
    dict
        ``n_plateaus``, ``ratio``, ``on_saddle``, ``top2``, ``drop``, ``drop_short``, ``exit``, each ``(R,)``.
    """
    dense, W, eta, horizon = run
    m = hd_measures(dense, W, eta, horizon=horizon)
    return {k: np.asarray(m[k], dtype=float) for k in
            ("n_plateaus", "ratio", "on_saddle", "top2", "drop", "drop_short", "exit")}


def converged_share(run: tuple[np.ndarray, np.ndarray], level: float = 1e-10) -> dict[str, np.ndarray]:
    """The share of a selection of draws that reach zero loss (Assumption 3's necessity for zero loss).

    Parameters
    ----------
    run : tuple of (ndarray, ndarray)
        Final losses ``(seeds, draws)`` and a boolean selection of the draws ``(seeds, draws)``.
    level : float
        The loss that stands for zero.

    Returns
    -------
    dict
        ``conv_viol`` (the converged share of the selected draws, nan without one) and ``n_viol`` (how
        many are selected), each ``(seeds,)``.
    """
    L, sel = (np.asarray(v) for v in run)
    conv = L < level
    share = np.array([conv[s][sel[s]].mean() if sel[s].any() else np.nan for s in range(L.shape[0])])
    return {"conv_viol": share, "n_viol": sel.sum(-1).astype(float)}


def _lemma_setting(run: Sweep):
    """Key vectors, the sets ``S_{±,1}`` ``(rows, K, m)`` and ``c = max_j ‖w_j(0)‖/λ`` ``(rows, K)`` of a sweep."""
    p0 = run.traj.at(0)
    Sp, Sm = s_sets(p0, run.X, run.y)
    return key_vectors(run.X, run.y), Sp, Sm, (p0.norms_in() / run.lams.view(1, -1, 1)).amax(-1)


def lemma2_margins(run: Sweep, eps: float = 0.018, lam_max: float = 1e-17) -> dict[str, np.ndarray]:
    """Lemma 2 (App. Lemmas 7–8) at ``t_{±1} = −ε ln λ/‖D_±‖`` as ratios to its bounds (≤ 1 where it holds),
    maximised over both sides and every ``λ ≤ lam_max`` (last snapshot at or before ``t_{±1}``).

    Parameters
    ----------
    run : Sweep
        The sweep (module conventions); ``D_±``, ``r`` and the sets ``S_{±,1}`` are read on its own data.
    eps, lam_max : float
        The lemma's ε; the largest λ read.

    Returns
    -------
    dict
        ``align`` ``(rows,)``: ``(1 − min_{j∈S_{±,1}} cos(w_j, ±D_±)) / (2λ^ε)``; ``small``: ``max_j ‖w_j‖ /
        (2cλ^{1−ε})`` at ``t_{+1}`` and ``/(2cλ^{1−rε})`` at ``t_{−1}``, ``c = max_j ‖w_j(0)‖/λ``;
        ``n_active``: how many (``S_{±,1}`` neuron, other-sign input) pairs are still active there, summed over λ;
        ``n_active_last``: the same at the sweep's smallest λ only (read at every λ, ``lam_max`` aside).
    """
    kv, Sp, Sm, c = _lemma_setting(run)
    up, um = alignment_directions(kv)
    rows = run.traj.runs[0]
    align, small, n_act = np.full(rows, -np.inf), np.full(rows, -np.inf), np.zeros(rows)
    last = int(np.argmin(run.lams.numpy()))
    n_last = np.zeros(rows)
    for li, lam in enumerate(run.lams.tolist()):
        pt = phase_times(kv, lam, eps)
        for t_side, mask, u, expo, other in ((pt.t_plus1, Sp, up, 1 - eps, run.y < 0),
                                             (pt.t_minus1, Sm, um, 1 - kv.r * eps, run.y > 0)):
            p_i = run.traj.at(max(int(np.searchsorted(run.traj.time, t_side * (1 + 1e-12), side="right")) - 1, 0))
            on = (active(p_i.W1[:, li], run.X)[..., other] & mask[:, li, :, None]).sum((-1, -2)).numpy()
            if li == last:
                n_last += on
            if lam > lam_max * (1 + 1e-9):
                continue
            align = np.maximum(align, ((1 - min_alignment(p_i, mask, u)[:, li]) / (2 * lam ** eps)).numpy())
            small = np.maximum(small, (p_i.norms_in()[:, li].amax(-1) / (2 * c[:, li] * lam ** expo)).numpy())
            n_act += on
    return {"align": align, "small": small, "n_active": n_act, "n_active_last": n_last}


def _top(v: Tensor) -> float:
    """The largest entry of ``v`` (``-inf`` when empty)."""
    return float(v.max()) if v.numel() else -math.inf


def _first_index(u: Tensor, level: Tensor) -> np.ndarray:
    """First snapshot index where ``u (T, rows, K) >= level (rows, K)``; ``-1`` where never."""
    hit = (u >= level).numpy()
    return np.where(hit.any(0), hit.argmax(0), -1)


def lemma34_margins(run: Sweep, eps: float = 0.018, lam_max: float = 1e-17) -> dict[str, np.ndarray]:
    """Lemmas 3–4 as ratios to their bounds (≤ 1 where they hold), maximised over ``λ ≤ lam_max``.

    ``t_2`` (``t_3``) is the first snapshot where ``u_+ ≥ n‖D_+‖ − λ^{ε/5}`` (``u_− ≥ n‖D_−‖ − λ^{ε/29}``),
    the lemmas' mass conclusions; the other conclusions are read there. ``c = max_j ‖w_j(0)‖/λ``. Where a
    level is never reached and the run outlasts the lemma's time bound, the lemma fails there: the time
    ratio is the run's end over the bound (a lower bound of the true ratio, > 1) and the other conclusions
    are read at the end; where the run ends before the bound, everything is nan.

    Parameters
    ----------
    run : Sweep
        The sweep (module conventions); ``D_±``, ``r`` and ``S_{±,1}`` are read on its own data.
    eps, lam_max : float
        The lemmas' ε; the largest λ read.

    Returns
    -------
    dict
        Each ``(rows,)`` (nan: see above):
        ``time3`` ``t_2 / ((1+3ε) ln(1/λ)/‖D_+‖)``; ``align3`` ``(‖D_+‖ − min_{S_{+,1}} ⟨w̄_j, D_+⟩)/λ^{ε/2}``;
        ``other3`` ``max_{j∉S_{+,1}} ‖w_j‖/(2cλ^ε)`` at ``t_2``; ``time4`` ``t_3 / ((1+3rε) ln(1/λ)/‖D_−‖)``;
        ``align4`` ``(‖D_−‖ − min_{S_{−,1}} ⟨w̄_j, −D_−⟩)/λ^{ε/14}``; ``moved4``
        ``max_{S_{+,1}} ‖w_j(t_2) − w_j(t_3)‖/λ^{ε/15}``; ``other4`` ``max_{j∉S_{±,1}} ‖w_j‖/(3cλ^ε)`` at ``t_3``;
        ``dplus4`` ``‖D_+^{t_3}‖/λ^{ε/14}`` with ``D_+^t = (1/n) Σ_{y_k>0} (y_k − h(x_k)) x_k``.
    """
    kv, Sp, Sm, c = _lemma_setting(run)
    up, um = alignment_directions(kv)
    traj, X, y, n = run.traj, run.X, run.y, run.X.shape[0]
    i2 = _first_index(u_fitted(traj, Sp), n * kv.norm_plus - run.lams ** (eps / 5))
    i3 = _first_index(u_fitted(traj, Sm), n * kv.norm_minus - run.lams ** (eps / 29))
    names = ("time3", "align3", "other3", "time4", "align4", "moved4", "other4", "dplus4")
    out = {k: np.full(traj.runs[0], -np.inf) for k in names}
    W = traj.params.W1                                                          # (T, rows, K, m, d)
    for r in range(traj.runs[0]):
        for li, lam in enumerate(run.lams.tolist()):
            if lam > lam_max * (1 + 1e-9):
                continue
            ln, end = -math.log(lam), float(traj.time[-1])
            b2, b3 = (1 + 3 * eps) * ln / kv.norm_plus, (1 + 3 * kv.r * eps) * ln / kv.norm_minus
            a, b = int(i2[r, li]), int(i3[r, li])
            if (a < 0 and end < b2) or (b < 0 and end < b3):
                for k in names:
                    out[k][r] = np.nan
                continue
            a, b = (a if a >= 0 else len(traj) - 1), (b if b >= 0 else len(traj) - 1)
            w2, w3 = W[a, r, li], W[b, r, li]                                   # (m, d)
            sp, sm, cc = Sp[r, li], Sm[r, li], float(c[r, li])
            h3 = traj.at(b).map(operator.itemgetter((r, li)))
            res = y - forward(h3, X)[..., 0]
            vals = {"time3": float(traj.time[a]) / b2,
                    "align3": kv.norm_plus * (1 + _top(-(w2[sp] @ up / w2[sp].norm(dim=-1)))) / lam ** (eps / 2),
                    "other3": _top(w2[~sp].norm(dim=-1)) / (2 * cc * lam ** eps),
                    "time4": float(traj.time[b]) / b3,
                    "align4": kv.norm_minus * (1 + _top(-(w3[sm] @ um / w3[sm].norm(dim=-1)))) / lam ** (eps / 14),
                    "moved4": _top((w2[sp] - w3[sp]).norm(dim=-1)) / lam ** (eps / 15),
                    "other4": _top(w3[~(sp | sm)].norm(dim=-1)) / (3 * cc * lam ** eps),
                    "dplus4": float(((res * (y > 0)) @ X / n).norm()) / lam ** (eps / 14)}
            for k, v in vals.items():
                out[k][r] = max(out[k][r], v) if not np.isnan(out[k][r]) else np.nan
    return out


def violating_excess(run: tuple[TwoLayer, Tensor, np.ndarray], X: Tensor, y: Tensor, level: float = 1e-10
                     ) -> dict[str, np.ndarray]:
    """Theorem 1's minimal-norm conclusion on a selection of draws: the smallest relative excess of the final
    ``‖θ‖²`` over the minimal interpolating norm among the selected draws that reach zero loss.

    Parameters
    ----------
    run : tuple of (TwoLayer, Tensor, ndarray)
        Final networks, runs ``(seeds, draws)``; their final losses ``(seeds, draws)``; a boolean selection
        ``(seeds, draws)`` (e.g. the draws that violate Assumption 3).
    X, y : Tensor
        The data (module conventions) of the minimal norm.
    level : float
        The loss that stands for zero.

    Returns
    -------
    dict
        ``excess_min`` (nan where no selected draw converges) and ``n_conv`` (how many do), each ``(seeds,)``.
    """
    p, L, sel = run
    ex = excess_norm(p, X, y).numpy()
    keep = np.asarray(sel) & (np.asarray(L) < level)
    return {"excess_min": np.array([ex[s][keep[s]].min() if keep[s].any() else np.nan for s in range(ex.shape[0])]),
            "n_conv": keep.sum(-1).astype(float)}


#: The chapter's "what holds" summary (:func:`lrlib.ledger.summary.glue_what_holds`): each of the paper's main
#: statements, in a few words, and the claims that grade it.
WHAT_HOLDS = [
    ("Theorem 1: from a small balanced initialisation on orthogonal inputs (Assumption 3 met), gradient flow "
     "reaches zero loss", ["thm1.zero-loss", "fig3.timings"]),
    ("Theorem 1: as λ → 0 the limit is a minimal-norm interpolator h*, two clusters of neurons",
     ["thm1.min-norm", "thm1.function-limit", "thm1.two-clusters", "thm1.toy-limit"]),
    ("Lemma 2: alignment with D₊ and −D₋ while the norms stay small (ε = 0.018; ε = 0.1: illustrations)",
     ["lemma2.admissible-eps", "lemma2.alignment", "lemma2.deactivation"]),
    ("Lemmas 3–4: the growth phases end by (1+3ε) ln(1/λ)/‖D₊‖ and (1+3rε) ln(1/λ)/‖D₋‖, fitted neurons "
     "aligned and still, the others small (ε = 0.018); their ln(1/λ)/‖D±‖ scaling",
     ["lemma3.admissible-eps", "lemma4.admissible-eps", "lemma3.t2-scaling", "lemma4.t3-scaling", "lemma34.time-bounds"]),
    ("Lemmas 1, 6 and App. Lemma 9: balancedness conserved, inactive neurons frozen, aligning neurons not "
     "collapsing", ["lemma1.balancedness", "lemma6.inactive", "lemma9.no-collapse"]),
    ("Between the phases: a plateau at a strict saddle θ_S, passed near as λ → 0",
     ["saddle.plateau", "saddle.passes-near", "saddle.strict"]),
    ("§4: exponential convergence at rate ‖D₋‖, after a time −ln λ/‖D₋‖",
     ["lemma5.local-rate", "lemma12.convergence-time"]),
    ("Assumption 3 is what the width must give: without it the flow can get stuck, and cannot reach the "
     "minimal norm", ["assumption3.stuck", "assumption3.min-norm", "assumption3.necessary"]),
    ("§3: larger λ (no separation), unbalanced and nearly orthogonal starts",
     ["lambda.no-separation", "unbalanced.thm1", "nearly-orthogonal.delta-lambda"]),
    ("Non-orthogonal data (Fig. 4): saddle to saddle, neurons realign while growing and leaving the saddle, "
     "few kinks", ["fig4.saddles", "fig4.realign", "fig4.realign-exit", "fig4.sparse"]),
    ("Large initialisation (Fig. 5): lazy, close to the NTK interpolator, faster",
     ["fig5.lazy", "fig5.ntk", "fig5.faster"]),
    ("High-dimensional data (Figs. 6–7): saddles, low-rank weights, convergence",
     ["fig7.saddle", "fig7.pca", "fig7.saddle-location", "fig7.to-zero"]),
]
