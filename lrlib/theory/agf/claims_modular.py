"""Claim measurements of the transformer (Figure 5) and modular-addition (Figure 6) sections: one function
per claim, applied by the ledger to the main runs, the control runs and the initial state alike
(:meth:`lrlib.ledger.grading.Ledger.measure`).

Conventions
-----------
A *heads run* (:class:`HeadsRun`) is gradient descent on the attention-only linear transformer's
population loss, batched over seeds ``S``: the loss at every step ``(n+1, S)``, and at the recorded
steps ``(T,)`` the projections ``v_kᵀΓv_k`` on Σ's eigenvectors ``(T, S, d)`` and the heads' norms
``(T, S, H)``; ``pred`` is its :class:`~lrlib.theory.agf.transformer.TransformerAGF` (``levels``,
``A``, ``gamma``, ``bound_gap``). A *modular flow* (:class:`ModularFlow`) is a run of the quadratic
network on modular addition, batched over seeds: flow times ``(T,)``, loss ``(T, S)`` and output power
per frequency ``(T, S, p//2+1)``; ``pred`` is its :class:`~lrlib.theory.agf.modular.ModularAGF`.

Drops are mid-level crossings (:func:`lrlib.measure.drop_times`); a drop or plateau that does not
happen within the run makes the measurement that needs it ``inf`` (the event did not happen), never
``nan``, so a control run that never leaves a plateau is graded, not inconclusive. Every function returns
arrays of shape ``(S,)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...measure import drop_times, first_crossing, plateau_between, relative_error
from .measure import frequency_order, phase_constraint


@dataclass
class HeadsRun:
    """GD of the linear transformer's heads, batched over seeds (module conventions).

    Parameters
    ----------
    loss : ndarray
        ``(n+1, S)`` the population loss at every step ``0..n``.
    steps : ndarray
        ``(T,)`` the recorded steps.
    proj : ndarray
        ``(T, S, d)`` ``v_kᵀΓv_k`` at the recorded steps.
    head_norm : ndarray
        ``(T, S, H)`` each head's norm ``√(V² + ‖K‖² + ‖Q‖²)`` at the recorded steps.
    gamma_end : ndarray
        ``(S, d, d)`` ``Γ`` at the last step.
    h : float
        the step size.
    """

    loss: np.ndarray
    steps: np.ndarray
    proj: np.ndarray
    head_norm: np.ndarray
    gamma_end: np.ndarray
    h: float

    @property
    def time(self) -> np.ndarray:
        """``(n+1,)`` the steps ``0..n`` of :attr:`loss` (the clock its drops are read on)."""
        return np.arange(self.loss.shape[0], dtype=float)


@dataclass
class ModularFlow:
    """A run of the quadratic modular-addition network, batched over seeds (module conventions).

    Parameters
    ----------
    time : ndarray
        ``(T,)`` flow times.
    loss : ndarray
        ``(T, S)`` the loss.
    power : ndarray
        ``(T, S, p//2+1)`` output power per frequency (:func:`lrlib.theory.agf.modular.output_power`).
    """

    time: np.ndarray
    loss: np.ndarray
    power: np.ndarray


def _inf_if_nan(a) -> np.ndarray:
    """``nan`` (an event that did not happen within the run) as ``inf``."""
    a = np.asarray(a, dtype=float)
    return np.where(np.isnan(a), np.inf, a)


def run_drops(run, pred) -> np.ndarray:
    """The run's mid-level drop times between the predicted levels (a heads run: steps; a modular flow: flow time).

    Parameters
    ----------
    run, pred : HeadsRun
        module conventions (a :class:`HeadsRun` or a :class:`ModularFlow` and its prediction).

    Returns
    -------
    np.ndarray
        ``(S, K)`` drop times (``nan`` where the loss never crosses).
    """
    return np.array([drop_times(run.time, run.loss[:, r], pred.levels) for r in range(run.loss.shape[1])])


def plateau_error(run, pred, *, log_time: bool = False) -> np.ndarray:
    """The largest relative error of the run's plateau values (the median loss over the middle half of the
    interval between consecutive drops, :func:`lrlib.measure.plateau_between`) against the inner predicted
    levels ``ℓ₁..ℓ_{K−1}``; ``inf`` when a drop does not happen.

    Parameters
    ----------
    run, pred : HeadsRun or ModularFlow / TransformerAGF or ModularAGF
        as for :func:`run_drops`.
    log_time : bool, optional
        read the middle half of each interval in ``log t`` (:func:`plateaus`).

    Returns
    -------
    np.ndarray
        ``(S,)``.
    """
    plat = plateaus(run, pred, log_time=log_time)[0]
    return _inf_if_nan(np.max(relative_error(plat, pred.levels[1:-1]), axis=1))


def plateaus(run, pred, *, log_time: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The run's plateaus between its own drops (:func:`lrlib.measure.plateau_between`), per seed.

    With ``log_time`` the window is the middle half of ``[log d_k, log d_{k+1}]`` (times ``t > 0`` only): for
    drops far apart (κ = 3, ×8–9) the linear middle half lies late in the plateau, where the next feature may
    already lower the loss.

    Parameters
    ----------
    run, pred : HeadsRun or ModularFlow / TransformerAGF or ModularAGF
        as for :func:`run_drops`.
    log_time : bool, optional
        read the window in ``log t``.

    Returns
    -------
    (np.ndarray, np.ndarray, np.ndarray)
        ``level``, ``low``, ``high``, each ``(S, K−1)`` (``nan`` where a drop is missing).
    """
    drops = run_drops(run, pred)
    t, L = np.asarray(run.time, float), np.asarray(run.loss, float)
    if log_time:
        keep = t > 0
        t, L, drops = np.log(t[keep]), L[keep], np.log(drops)
    out = [plateau_between(t, L[:, r], drops[r]) for r in range(drops.shape[0])]
    return tuple(np.array([getattr(o, k) for o in out]) for k in ("level", "low", "high"))


def sequential_order(time: np.ndarray, values: np.ndarray, finals: np.ndarray) -> tuple[list[int], float]:
    """The order in which components reach half their final values, and how far the next one had got then.

    Parameters
    ----------
    time : ndarray
        ``(T,)`` times.
    values : ndarray
        ``(T, m)`` the components, in the predicted order.
    finals : ndarray
        ``(m,)`` their targets.

    Returns
    -------
    order : list of int
        Component indices by first crossing of half the target (components that never cross left out).
    overlap : float
        The largest ``|values[t_k, k+1]| / |finals[k+1]|`` over ``k``, ``t_k`` the first time component
        ``k`` reaches half its target: 0 for one-at-a-time learning, about 1 or more when components rise
        together (``nan`` when no component crosses before the last).
    """
    t_half = [first_crossing(time, np.abs(values[:, k]), 0.5 * abs(finals[k]), below=False) for k in range(len(finals))]
    order = [k for _, k in sorted((t, k) for k, t in enumerate(t_half) if np.isfinite(t))]
    lead = [abs(np.interp(t_half[k], time, values[:, k + 1])) / abs(finals[k + 1])
            for k in range(len(finals) - 1) if np.isfinite(t_half[k])]
    return order, (max(lead) if lead else np.nan)


def fig5_levels(run: HeadsRun, *, pred) -> dict[str, np.ndarray]:
    """Plateau values and end point of the heads' GD against Eq. 7 and Lemma E.2 (claim ``fig5.levels``).

    Parameters
    ----------
    run, pred : HeadsRun / TransformerAGF
        module conventions.

    Returns
    -------
    dict of str to np.ndarray
        ``lev`` — the largest relative error over ``ℓ₁..ℓ_{K−1}`` of the plateau values (:func:`plateau_error`;
        ``inf`` when a drop does not happen); ``fin`` — relative error of the
        final loss against ``ℓ_K``; ``gam`` — ``max|Γ_end − Γ*| / max A_k``.
    """
    return {"lev": plateau_error(run, pred),
            "fin": relative_error(run.loss[-1], pred.levels[-1]),
            "gam": np.abs(run.gamma_end - pred.gamma(len(pred.A))).max(axis=(-1, -2)) / pred.A.max()}


def fig5_bound_steps(run: HeadsRun, *, pred) -> np.ndarray:
    """App. E's lower bound on each drop: the previous drop plus ``√3/(N λ_k² μ^{(k−1)})`` (flow time → steps).

    ``μ^{(k−1)}`` is the largest norm of the heads other than the ``k−1`` largest (the dormant ones) at the
    previous drop (step 0 for the first); a missing previous drop keeps the one before.

    Parameters
    ----------
    run, pred : HeadsRun / TransformerAGF
        module conventions.

    Returns
    -------
    np.ndarray
        ``(S, K)`` the bounds in steps.
    """
    drops = run_drops(run, pred)
    out = np.zeros_like(drops)
    for r in range(drops.shape[0]):
        prev = 0.0
        for k in range(1, drops.shape[1] + 1):
            i_prev = min(int(np.searchsorted(run.steps, prev)), len(run.steps) - 1)
            mu = np.sort(run.head_norm[i_prev, r])[::-1][k - 1:].max()
            out[r, k - 1] = prev + pred.bound_gap(k, 1.0, mu) / run.h
            prev = drops[r, k - 1] if np.isfinite(drops[r, k - 1]) else prev
    return out


def fig5_jump_bound(run: HeadsRun, *, pred) -> dict[str, np.ndarray]:
    """The smallest ratio of GD's drop step to App. E's bound (claim ``fig5.jump-bound``).

    Parameters
    ----------
    run, pred : HeadsRun / TransformerAGF
        module conventions.

    Returns
    -------
    dict of str to np.ndarray
        ``margin`` — ``min_k drop_k / bound_k`` (a drop that never happens counts as ``inf``).
    """
    return {"margin": np.min(_inf_if_nan(run_drops(run, pred)) / fig5_bound_steps(run, pred=pred), axis=1)}


def fig5_order(run: HeadsRun, *, pred) -> dict[str, np.ndarray]:
    """Are Σ's eigenvectors learned one at a time, in decreasing order of eigenvalue (claim ``fig5.order``)?

    Parameters
    ----------
    run, pred : HeadsRun / TransformerAGF
        module conventions.

    Returns
    -------
    dict of str to np.ndarray
        ``match`` — 1 if the order in which ``v_kᵀΓv_k`` reaches ``A_k/2`` is ``0, 1, …, d−1``;
        ``overlap`` — :func:`sequential_order`'s overlap (``inf`` if undefined).
    """
    res = [sequential_order(run.steps, run.proj[:, r], pred.A) for r in range(run.proj.shape[1])]
    return {"match": np.array([o == list(range(len(pred.A))) for o, _ in res], dtype=float),
            "overlap": _inf_if_nan([ov for _, ov in res])}


def fig6_order(run: ModularFlow, *, pred) -> dict[str, np.ndarray]:
    """Are the frequencies learned one at a time, in decreasing order of ``|x̂[ξ]|`` (claim ``fig6.order``)?

    Parameters
    ----------
    run, pred : ModularFlow / ModularAGF
        module conventions.

    Returns
    -------
    dict of str to np.ndarray
        ``match`` — 1 if the order in which each frequency's output power reaches half its target is
        ``pred.order``; ``overlap`` — :func:`sequential_order`'s overlap (``inf`` if undefined).
    """
    S = run.loss.shape[1]
    over = [sequential_order(run.time, run.power[:, r][:, pred.order], pred.amps)[1] for r in range(S)]
    return {"match": np.array([frequency_order(run.time, run.power[:, r], pred) == list(pred.order) for r in range(S)],
                              dtype=float),
            "overlap": _inf_if_nan(over)}


def fig6_levels(run: ModularFlow, *, pred) -> dict[str, np.ndarray]:
    """The flow's plateau values against Eq. 9's levels (claim ``fig6.levels``).

    Parameters
    ----------
    run, pred : ModularFlow / ModularAGF
        module conventions.

    Returns
    -------
    dict of str to np.ndarray
        ``lev`` — the largest relative error over ``ℓ₁..ℓ_{K−1}`` of the plateau values, each read over the
        middle half of the interval between its drops in log time (:func:`plateau_error`; ``inf`` when a drop
        does not happen within the run); ``flat`` — the largest ``high/low − 1`` over those windows (how much the
        loss moves inside a window; ``0`` where a drop is missing, which ``lev`` already fails).
    """
    _, low, high = plateaus(run, pred, log_time=True)
    flat = np.nan_to_num(np.max(high / low - 1, axis=1), nan=0.0)
    return {"lev": plateau_error(run, pred, log_time=True), "flat": flat}


def fig6_agf_error(run: ModularFlow, *, pred, agf_drops: np.ndarray) -> dict[str, np.ndarray]:
    """Simulated AGF's drop times against the flow's (claim ``fig6.agf-vs-gd``).

    Parameters
    ----------
    run, pred : ModularFlow / ModularAGF
        module conventions.
    agf_drops : ndarray
        ``(S, K)`` AGF's mid-level crossing times (flow time) from each seed's initialisation
        (:func:`lrlib.theory.agf.measure.staircase_drop_times`).

    Returns
    -------
    dict of str to np.ndarray
        ``err`` — the largest relative error over the drops (``inf`` when either misses a drop).
    """
    return {"err": _inf_if_nan(np.max(relative_error(run_drops(run, pred), agf_drops), axis=1))}


def fig6_phase(net, *, x: np.ndarray, freqs) -> dict[str, np.ndarray]:
    """App. F.2's phase constraint of the cost minimiser, read on networks (claim ``thmF3.phase``).

    Parameters
    ----------
    net : array_like
        square-activation networks ``(S, ...)`` (:class:`lrlib.models.TwoLayer`, ``W1 (S, H, 2p)``,
        ``W2 (S, p, H)``).
    x : ndarray
        ``(p,)`` the template.
    freqs : list of int
        the frequencies read.

    Returns
    -------
    dict of str to np.ndarray
        ``constraint`` — the largest over ``freqs`` of :func:`lrlib.theory.agf.measure.phase_constraint`.
    """
    p = len(x)
    W1, W2 = net.W1.detach().numpy(), net.W2.detach().numpy()
    return {"constraint": np.array([np.nanmax(phase_constraint(W1[r, :, :p], W1[r, :, p:], W2[r].T, x, freqs))
                                    for r in range(W1.shape[0])])}
