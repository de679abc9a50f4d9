"""Times and phases of the orthogonal chapter's runs (Boursier et al. 2022): when the fitted mass grows, when
the loss falls (half-fit times, drops, dwell times), the decay rates of the last phase, and the toy's events.

Conventions of the package's measurement modules (as in :mod:`lrlib.theory.orthogonal.core`): ``X`` is ``(n, d)``, the (orthogonal) inputs
(rows), ``y`` is ``(n,)``, the labels; ``X, y : Tensor / The data (module conventions)`` is this pair.
The λ-sweep checks take ``traj, X, y, lams`` (``The λ-sweep and its data``): ``traj`` a
:class:`lrlib.trajectory.Trajectory` with runs ``(rows, K)`` and time in paper time, ``lams`` a
``(K,)`` tensor, the λ of the columns. Times are paper time (½-mean loss L) unless said otherwise.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from ...errors import ParameterError
from ...measure import first_crossing, line_fit, relative_error
from ...trajectory import Trajectory
from .core import alignment_directions, key_vectors, s_sets
from .lemmas import min_alignment

Tensor = torch.Tensor


def u_fitted(traj: Trajectory, mask: Tensor) -> Tensor:
    """The fitted mass ``Σ_{j ∈ mask} ‖w_j‖²`` over time (e.g. ``u_±`` with the sets ``S_{±,1}``).

    Parameters
    ----------
    traj : Trajectory
        Runs ``(R...)``, ``T`` snapshots.
    mask : Tensor
        ``(R..., m)`` boolean neuron mask.

    Returns
    -------
    Tensor
        ``(T, R...)``.
    """
    return ((traj.params.W1 ** 2).sum(-1) * mask.to(traj.params.W1.dtype)).sum(-1)


def mass_times(traj: Trajectory, X: Tensor, y: Tensor, lams: Tensor, eps: float = 0.1) -> tuple[np.ndarray, np.ndarray]:
    """The ends of phases 2 and 3 as Lemmas 3–4 state them.

    The first times ``u_+ ≥ n‖D_+‖ − λ^{ε/5}`` and ``u_− ≥ n‖D_−‖ − λ^{ε/29}`` (``S_{±,1}`` of the first
    snapshot).

    Parameters
    ----------
    traj : Trajectory
        The λ-sweep, on the data ``X, y`` with the scales ``lams`` (module conventions).
    X, y, lams : Tensor
    eps : float
        The lemmas' ε.

    Returns
    -------
    t2, t3 : ndarray
        ``(rows, K)`` paper time; nan if never.
    """
    kv = key_vectors(X, y)
    Sp, Sm = s_sets(traj.at(0), X, y)
    n = X.shape[0]
    rows = traj.runs[0]
    lv2 = (n * kv.norm_plus - lams ** (eps / 5)).expand(rows, -1)
    lv3 = (n * kv.norm_minus - lams ** (eps / 29)).expand(rows, -1)
    return (first_crossing(traj.time, u_fitted(traj, Sp), lv2.numpy(), below=False),
            first_crossing(traj.time, u_fitted(traj, Sm), lv3.numpy(), below=False))


def half_fit_times(traj: Trajectory, X: Tensor, y: Tensor) -> tuple[np.ndarray, np.ndarray]:
    """The half-fit times ``t_2^{1/2}, t_3^{1/2}``: the first times ``u_+`` (``u_−``) reach half of
    ``n‖D_+‖`` (``n‖D_−‖``), with the sets ``S_{±,1}`` of the first snapshot.

    Parameters
    ----------
    traj : Trajectory
        Runs ``(R...)``, time in paper time.
    X, y : Tensor
        The data (module conventions) that fix ``S_{±,1}`` and ``‖D_±‖``.

    Returns
    -------
    t2, t3 : ndarray
        ``(R...)`` paper time (interpolated between snapshots); nan if never.
    """
    kv = key_vectors(X, y)
    Sp, Sm = s_sets(traj.at(0), X, y)
    n = X.shape[0]
    return (first_crossing(traj.time, u_fitted(traj, Sp), 0.5 * n * kv.norm_plus, below=False),
            first_crossing(traj.time, u_fitted(traj, Sm), 0.5 * n * kv.norm_minus, below=False))


def half_fit_gap(gd: Trajectory, flows: list[Trajectory], X: Tensor, y: Tensor) -> float:
    """Largest relative difference of the half-fit times (:func:`half_fit_times`) between GD and the
    integrated gradient flow, for one draw at several λ.

    Parameters
    ----------
    gd : Trajectory
        GD runs ``(K,)`` (one draw, K values of λ), snapshot times in paper time.
    flows : list of Trajectory
        ``K`` single-run flow trajectories (:func:`lrlib.integrate.flow`), recorded at the same steps.
    X, y : Tensor
        Inputs ``(n, d)`` and labels ``(n,)``.

    Returns
    -------
    float
        ``max |t_GD / t_flow − 1|`` over ``t_2^{1/2}``, ``t_3^{1/2}`` and the K runs (dimensionless;
        nan if a time is missing).
    """
    if len(flows) != gd.runs[0]:
        raise ParameterError(f"{gd.runs[0]} GD runs but {len(flows)} flow runs")
    t2, t3 = half_fit_times(gd, X, y)
    tf = np.array([[float(v) for v in half_fit_times(f, X, y)] for f in flows])      # (K, 2)
    return float(np.max(relative_error(np.c_[t2, t3], tf)))


def loss_at(traj: Trajectory, times: np.ndarray) -> np.ndarray:
    """The loss of each run at the last snapshot at or before a given time.

    Parameters
    ----------
    traj : Trajectory
        Runs ``(R...)``.
    times : ndarray
        ``(R...)`` one time per run (paper time; nan allowed).

    Returns
    -------
    ndarray
        ``(R...)`` losses; nan where the time is nan.
    """
    times = np.asarray(times, dtype=float)
    L = traj.loss.reshape(len(traj), -1).numpy()
    out = np.full(L.shape[1], np.nan)
    for r, t in enumerate(times.reshape(-1)):
        if np.isfinite(t):
            out[r] = L[max(int(np.searchsorted(traj.time, t, side="right")) - 1, 0), r]
    return out.reshape(times.shape)


def decay_rates(time: np.ndarray, loss: Tensor, window: tuple[float, float], min_points: int = 6) -> np.ndarray:
    """The fitted decay rate ``−d ln L/dt`` where the loss lies in a window.

    Parameters
    ----------
    time : ndarray
        ``(T,)`` paper time.
    loss : Tensor
        ``(T, R...)``.
    window : tuple of float
        ``(lo, hi)``: snapshots with ``lo < L < hi`` are fitted by least squares.
    min_points : int
        Fewest snapshots in the window for a fit.

    Returns
    -------
    ndarray
        ``(R...)`` rates per unit of paper time; nan with too few points.
    """
    lo, hi = window
    L = loss.reshape(loss.shape[0], -1).numpy()
    out = np.full(L.shape[1], np.nan)
    for r in range(L.shape[1]):
        win = (L[:, r] > lo) & (L[:, r] < hi)
        if win.sum() >= min_points:
            out[r] = -line_fit(time[win], np.log(L[win, r])).slope
    return out.reshape(loss.shape[1:])


def dwell_time(time: np.ndarray, loss: Tensor, level: float, rel: float = 0.05) -> np.ndarray:
    """The time the loss spends within ``±rel`` of a level.

    Parameters
    ----------
    time : ndarray
        ``(T,)`` uniformly spaced snapshot times (the last gap may be shorter), paper time.
    loss : Tensor
        ``(T, R...)``.
    level : float
        The level (e.g. the plateau loss).
    rel : float
        Relative half-width of the band.

    Returns
    -------
    ndarray
        ``(R...)`` the number of snapshots in the band times the spacing (paper time).

    Raises
    ------
    ParameterError
        If the snapshots are not uniformly spaced.
    """
    gaps = np.diff(np.asarray(time, dtype=float))
    if gaps.size == 0 or not np.allclose(gaps[:-1], gaps[0]):
        raise ParameterError("dwell_time needs uniformly spaced snapshots (the last gap may be shorter)")
    inside = ((loss / level - 1).abs() < rel).sum(0).numpy()
    return inside * gaps[0]


def drop_iteration(dense_loss: Tensor, frac: float = 0.5, iteration_scale: float = 1.0) -> np.ndarray:
    """The first iteration where the loss falls below ``frac·L(0)``.

    Parameters
    ----------
    dense_loss : Tensor
        ``(steps+1, R...)`` the loss at every GD step.
    frac : float
        Fraction of the initial loss.
    iteration_scale : float
        Iterations are multiplied by it (to express them in another step's units).

    Returns
    -------
    ndarray
        ``(R...)`` iterations (interpolated); nan if never.
    """
    L = dense_loss.reshape(dense_loss.shape[0], -1).numpy()
    it = np.arange(L.shape[0], dtype=float)
    out = np.array([first_crossing(it, L[:, r], frac * L[0, r]) for r in range(L.shape[1])]) * iteration_scale
    return out.reshape(dense_loss.shape[1:])


def toy_timings(dense_loss: Tensor, iteration_scale: float = 1.0) -> dict[str, np.ndarray]:
    """Figure 3's quantities per run from the loss at every step.

    ``exit1`` (first iteration with ``L < 0.99 L(0)``), ``exit2`` (first with ``L < 0.4``), ``plateau``
    (the loss midway between them; nan if either is missing) and ``final``.

    Parameters
    ----------
    dense_loss : Tensor
        ``(steps+1, R...)`` mean-MSE loss at every GD step.
    iteration_scale : float
        Iterations are multiplied by it (2 for a run with twice the step, in units of the reference step).

    Returns
    -------
    dict
        ``{"exit1", "plateau", "exit2", "final"}``, each ``(R...)``.
    """
    L = dense_loss.reshape(dense_loss.shape[0], -1).numpy()
    it = np.arange(L.shape[0], dtype=float)
    out = {k: np.full(L.shape[1], np.nan) for k in ("exit1", "plateau", "exit2", "final")}
    for r in range(L.shape[1]):
        e1, e2 = first_crossing(it, L[:, r], 0.99 * L[0, r]), first_crossing(it, L[:, r], 0.4)
        out["exit1"][r], out["exit2"][r] = e1 * iteration_scale, e2 * iteration_scale
        if np.isfinite(e1 + e2):
            out["plateau"][r] = L[int((e1 + e2) / 2), r]
        out["final"][r] = L[-1, r]
    return {k: v.reshape(dense_loss.shape[1:]) for k, v in out.items()}


def toy_events(traj: Trajectory, X: Tensor, y: Tensor, plateau_level: float = 0.5,
               aligned: float = 0.99) -> list[int]:
    """The snapshot indices of the toy's panels (Figure 2) for one run.

    Initialisation; the end of alignment (the first snapshot where every ``S_{±,1}`` neuron has cosine
    ``> aligned`` with its target direction); the middle of the plateau (snapshots within 0.01 of
    ``plateau_level``; the middle snapshot if there is none); the end.

    Parameters
    ----------
    traj : Trajectory
        One run.
    X, y : Tensor
        The toy's data (module conventions).
    plateau_level : float
        The plateau's loss (mean-MSE units).
    aligned : float
        Cosine threshold for the end of alignment.

    Returns
    -------
    list of int
        Four snapshot indices.
    """
    Sp, Sm = s_sets(traj.at(0), X, y)
    up, um = alignment_directions(key_vectors(X, y))
    ok = (min_alignment(traj.params, Sp, up) > aligned) & (min_alignment(traj.params, Sm, um) > aligned)
    i_align = int(np.argmax(ok.numpy()))
    L = traj.loss.numpy()
    plateau = np.nonzero(np.abs(L - plateau_level) < 0.01)[0]
    i_mid = int(plateau[len(plateau) // 2]) if plateau.size else len(L) // 2
    return [0, i_align, i_mid, len(L) - 1]




def pl_rates(time: np.ndarray, loss, plateau: float, t2: np.ndarray, t3: np.ndarray,
             floor: float = 1e-24) -> tuple[np.ndarray, np.ndarray]:
    """The smallest local Polyak-Łojasiewicz rate ``μ = −d ln L / dt`` after the fit and on the plateau.

    Parameters
    ----------
    time : ndarray
        ``(T,)`` snapshot times (paper time).
    loss : Tensor or ndarray
        ``(T, rows, K)`` losses (the first ``seeds`` rows are the runs of ``t2``, ``t3``).
    plateau : float
        The plateau loss: "after the fit" is ``floor < L < 1e-2 · plateau``.
    t2, t3 : ndarray
        ``(seeds, K)`` half-fit times (paper time): the plateau is ``t2 < t < t3``.
    floor : float
        Losses at or below it (float64 round-off) are left out.

    Returns
    -------
    (ndarray, ndarray)
        ``(rows, K)`` min μ after the fit and ``(seeds, K)`` min μ on the plateau (1 / paper time;
        ``inf`` where no interval qualifies). μ is read between consecutive snapshots.
    """
    L = np.asarray(loss).clip(1e-300)
    mu = -np.diff(np.log(L), axis=0) / np.diff(time)[:, None, None]                 # (T-1, rows, K)
    t_mid = (time[1:] + time[:-1])[:, None, None] / 2
    late = (L[1:] < 1e-2 * plateau) & (L[1:] > floor)
    mu_after = np.where(late, mu, np.inf).min(0)
    on_plateau = (t_mid > t2[None]) & (t_mid < t3[None])
    return mu_after, np.where(on_plateau, mu[:, :t2.shape[0]], np.inf).min(0)


def gd_flow_table(t2: np.ndarray, t3: np.ndarray, flows: list[Trajectory], X: Tensor, y: Tensor, lams: Tensor,
                  columns) -> tuple[pd.DataFrame, float]:
    """Half-fit times of GD (seed 0) beside those of the integrated gradient flow, and their largest gap.

    Parameters
    ----------
    t2, t3 : ndarray
        ``(seeds, K)`` GD half-fit times (:func:`half_fit_times`, paper time).
    flows : list of Trajectory
        One single-run flow per column in ``columns`` (seed 0's draw), e.g. from
        :func:`lrlib.theory.orthogonal.runs.flow_columns`.
    X, y : Tensor
        ``(n, d)`` inputs and ``(n,)`` labels.
    lams : Tensor
        ``(K,)`` the λ of the columns.
    columns : sequence of int
        The columns the flows stand for.

    Returns
    -------
    (DataFrame, float)
        One row per column (λ, both times for GD and flow, the flow's gradient evaluations) and
        ``max |t_GD / t_flow − 1|`` over both times and the columns (dimensionless; nan if a time is missing).
    """
    rows = []
    for k, gf in zip(columns, flows):
        t2_gf, t3_gf = half_fit_times(gf, X, y)
        rows.append({"λ": f"{lams[k].item():.0e}", "t₂½ GD": t2[0, k], "t₂½ flow": float(t2_gf),
                     "t₃½ GD": t3[0, k], "t₃½ flow": float(t3_gf), "flow gradient evaluations": gf.meta["grad_evals"]})
    table = pd.DataFrame(rows)
    ratios = np.r_[table["t₂½ GD"] / table["t₂½ flow"], table["t₃½ GD"] / table["t₃½ flow"]]
    return table, float(np.max(np.abs(ratios - 1)))

__all__ = ["decay_rates", "drop_iteration", "dwell_time", "gd_flow_table", "half_fit_gap", "half_fit_times", "loss_at", "mass_times", "pl_rates", "toy_events", "toy_timings", "u_fitted"]
