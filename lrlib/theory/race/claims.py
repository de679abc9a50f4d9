"""Pinson (2026): the chapter's claim measurements, one function per claim (the ``measure:`` of
``notebooks/03_race.claims.yaml``).

The ledger (:meth:`lrlib.ledger.grading.Ledger.measure`) applies each function to the main runs, to
the control run and, where given, to the initial state and to a run with a coarse step, so that the
same code measures all of them.

Conventions: a ``traj`` is a recorded (batched) :class:`~lrlib.trajectory.Trajectory`, params
``(T, R, ...)``, steps ``(T,)`` in optimiser steps, loss ``(T, R)``; ``X (R, N, D)`` and ``y (R, N)``
are the runs' data; a network ``p`` is a :class:`~lrlib.models.TwoLayer` with run dims ``(R, ...)``
(conventions of :mod:`.neuron`); a *per-seed list* is a sequence of ``(p, X, y)``, one single network
(no run dims, float64) with its data ``X (N, D)``, ``y (N,)`` per seed. Every function returns a dict of numpy arrays ``(R,)``, one entry
per run (seed), keyed by the names the claim's rule reads.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from scipy.stats import beta as beta_dist
from scipy.stats import spearmanr

from ...ledger.verdicts import headline, pass_rate
from ...losses import Loss
from ...measure import cosine, drops, first_crossing, line_fit, relative_error
from ...models import activation, forward, preactivations
from ...train import train
from .frozen import augmented, direction_drift, frozen_flow_check
from .measure import (
    appendix_g_stats, cluster_losses, conservation_drifts, gate_change, growth_form_fits, lazy_scores, masked_share, median_at,
    n_parameters,
    rising_share, rule_agreement, spearman, top_alignment, top_cos_delta_path, top_share,
)
from .merging import merge
from .neuron import (
    PHI1, PHI2, angle_gap, error_vectors, gamma, gating, growth_rates, identity_error, phi, phi_ratio, phi_star_predicted,
    polar_gradients, target_gap, target_m1, total_norm,
)
from .runs import run_block, run_net, stack_nets

Tensor = torch.Tensor
CE = Loss("cross_entropy")


def loss_drops(run) -> dict[str, np.ndarray]:
    """Fig. 2a: the number of drops of the full training loss (:func:`lrlib.measure.drops`, rel 0.05).

    Parameters
    ----------
    run : Trajectory
        A recorded (batched) toy run (module conventions).

    Returns
    -------
    dict
        ``n_drops`` ``(R,)``.
    """
    L = run.loss.numpy().reshape(len(run.steps), -1)
    return dict(n_drops=np.array([len(drops(run.steps, L[:, r], rel=0.05)) for r in range(L.shape[1])], dtype=float))


def cluster_times(run, clusters: Tensor, order=(0, 1, 3, 2)) -> dict[str, np.ndarray]:
    """Fig. 2b: first recorded step at which the mean loss on each cluster falls below ½ ln 2.

    Parameters
    ----------
    run : tuple
        ``(traj, X, y)``: a toy run and its data (module conventions).
    clusters : Tensor
        ``(N,)`` cluster index of each point (the same layout in every run).
    order : sequence of int
        The clusters of centroid norm 4, 3, 2, 1 (the toy's norms are 4, 3, 1, 2).

    Returns
    -------
    dict
        ``t4, t3, t2, t1`` ``(R,)`` steps (``nan`` if never).
    """
    traj, X, y = run
    Lk = cluster_losses(traj.params, X, y, clusters, CE)[..., list(order)]                                  # (T, R, 4)
    below = (Lk < 0.5 * math.log(2)).numpy()
    t = np.where(below.any(0), np.asarray(traj.steps)[below.argmax(0)], np.nan)                             # (R, 4)
    return dict(t4=t[:, 0], t3=t[:, 1], t2=t[:, 2], t1=t[:, 3])


def lazy_alignment(run, centroids: Tensor) -> dict[str, np.ndarray]:
    """Fig. 4: the alignment scores of groups of four runs (init std from small to large).

    Parameters
    ----------
    run : TwoLayer
        Networks ``(4 G, m, ...)``: ``G`` groups (seeds) of four runs each, run 0 of a group the one
        whose incoming directions define the targets (:func:`~.measure.lazy_scores`).
    centroids : Tensor
        ``(4, 2)`` unit vectors of the cluster directions.

    Returns
    -------
    dict
        ``s1, s2, s3, s4`` ``(G,)``.
    """
    G = run.W1.shape[0] // 4
    sc = torch.stack([lazy_scores(run_block(run, 4 * g, 4 * g + 4), centroids)[0] for g in range(G)]).numpy()
    return dict(s1=sc[:, 0], s2=sc[:, 1], s3=sc[:, 2], s4=sc[:, 3])


def merge_effect(run, threshold: float = 0.999) -> dict[str, np.ndarray]:
    """§5: neurons left after merging at ``threshold`` (:func:`~.merging.merge`, weighted direction),
    neurons before, and the relative change of the full training loss, per run (float64).

    Parameters
    ----------
    run : tuple
        ``(p, X, y)``: networks ``(R, m, ...)`` and their data (module conventions).
    threshold : float
        Cosine threshold.

    Returns
    -------
    dict
        ``groups``, ``m``, ``dl`` ``(R,)``.
    """
    p, X, y = run
    out = dict(groups=[], m=[], dl=[])
    for r in range(p.W1.shape[0]):
        q, Xr = run_net(p, r, torch.float64), X[r].to(torch.float64)
        L0 = CE(forward(q, Xr), y[r]).item()
        merged, n_g = merge(q, threshold)
        out["groups"].append(n_g)
        out["m"].append(q.W1.shape[0])
        out["dl"].append((CE(forward(merged, Xr), y[r]).item() - L0) / L0)
    return {k: np.array(v, dtype=float) for k, v in out.items()}


def rank_prediction(run) -> dict[str, np.ndarray]:
    """§4.6, Figs. 1c, 8: Spearman ρ between the early cos δ and the final a, per run.

    Parameters
    ----------
    run : tuple
        ``(cd0, cd500, a_final)`` or ``(cd0, cd500, a_final, live)``, each ``(R, m)``: cos δ at t = 0 and
        t = 500, the final a and, optionally, which neurons are alive at t = 0 (only those are ranked).

    Returns
    -------
    dict
        ``rho0``, ``rho500`` ``(R,)``; with ``live`` also ``n_dead`` ``(R,)``.
    """
    cd0, cd500, a = (torch.as_tensor(v).to(torch.float64) for v in run[:3])
    if len(run) < 4:
        return dict(rho0=spearman(cd0, a).numpy(), rho500=spearman(cd500, a).numpy())
    live = torch.as_tensor(run[3]).bool()
    out = {n: np.array([float(spearman(c[r][live[r]], a[r][live[r]])) for r in range(a.shape[0])])
           for n, c in (("rho0", cd0), ("rho500", cd500))}
    return dict(out, n_dead=(~live).sum(-1).numpy().astype(float))


def sharper_prediction(run) -> dict[str, np.ndarray]:
    """§5: Spearman ρ of cos δ(500) with the final a in settings 1, 2, 3.

    Parameters
    ----------
    run : tuple
        Three pairs ``(cd500, a_final)`` or triples ``(cd500, a_final, live)``, each ``(R, m)``, for settings
        1, 2, 3 (with ``live``, only the neurons alive at t = 0 are ranked, as in :func:`rank_prediction`).

    Returns
    -------
    dict
        ``rho1``, ``rho2``, ``rho3`` ``(R,)``.
    """
    return {f"rho{k + 1}": rank_prediction((v[0],) + tuple(v))["rho0"] for k, v in enumerate(run)}


def growth_form(run) -> dict[str, np.ndarray]:
    """Eq. 19: R² of the exponential and of the power-law fit of log a against cos δ
    (:func:`~.measure.growth_form_fits`), per run.

    Parameters
    ----------
    run : tuple
        ``(cd, a)``, each ``(R, m)``: cos δ and a at one time.

    Returns
    -------
    dict
        ``r2_exp``, ``r2_pow``, ``r2_frozen`` ``(R,)``.
    """
    cd, a = (np.asarray(v, dtype=float) for v in run)
    fits = [growth_form_fits(cd[r], a[r]) for r in range(cd.shape[0])]
    return {k: np.array([f[k] for f in fits]) for k in ("r2_exp", "r2_pow", "r2_frozen")}


def half_final_times(run) -> dict[str, np.ndarray]:
    """Fig. 5: first recorded step at which the summed a of each supergroup (final φ nearer 7π/4,
    nearer 3π/4) reaches half its final value.

    Parameters
    ----------
    run : Trajectory
        A recorded (batched) CIFAR run (module conventions).

    Returns
    -------
    dict
        ``th1``, ``th2`` ``(R,)`` steps; ``t10_1``, ``t10_2``: the steps at ten times the initial sum.
    """
    grp1 = angle_gap(phi(run.final), PHI1).abs() < math.pi / 2                # (R, m)
    aT = total_norm(run.params)                                                # (T, R, m)
    out = {}
    for name, mask in (("1", grp1), ("2", ~grp1)):
        tot = (aT * mask).sum(-1)
        out[f"th{name}"] = first_crossing(run.steps, tot, 0.5 * tot[-1], below=False, interpolate=False)
        out[f"t10_{name}"] = first_crossing(run.steps, tot, 10 * tot[0], below=False, interpolate=False)
    return {k: np.asarray(v, dtype=float) for k, v in out.items()}


def phi_targets(run, t_pred: int, tol: float = math.radians(1), stride: int = 1) -> dict[str, np.ndarray]:
    """Thm. 4.1: which target (7π/4 or 3π/4) each settled neuron reaches, against the theorem's rule
    evaluated at ``t_pred``, and how much the gating changes after ``t_pred`` (the premise).

    Parameters
    ----------
    run : tuple
        ``(traj, X, y)``: a recorded (batched) run and its data (module conventions), float64 used.
    t_pred : int
        The step at which the rule is evaluated (must be recorded).
    tol : float
        Radians from a target that count as settled.
    stride : int
        Read the gating at every ``stride``-th recorded step after ``t_pred`` (and at the last).

    Returns
    -------
    dict
        ``share`` (a-weighted share of the final neurons within ``tol`` of a target), ``agree_n``,
        ``agree_a`` (:func:`~.measure.rule_agreement` at ``t_pred``), ``changed`` (per neuron, the largest
        fraction of its gates that differ from those at ``t_pred`` at any recorded step from ``t_pred``
        to its own ``t_set``, :func:`window_gate_change`, averaged over the neurons that settle),
        ``changed_all`` (the largest fraction of all the network's gates that differ from those at
        ``t_pred`` at any recorded step after it, to the end), ``(R,)`` each.
    """
    traj, X, y = run
    X = X.to(torch.float64)
    fin = traj.final.to(torch.float64)
    a = total_norm(fin)
    near = target_gap(phi(fin)) < tol
    i0 = traj.index_of_step(t_pred)
    P = traj.at(i0).to(torch.float64)
    agree_n, agree_a = rule_agreement(P, fin, X, y, tol)
    later = sorted(set(range(i0, len(traj), stride)) | {len(traj) - 1})
    changed_all = np.max([gate_change(P, traj.at(i).to(torch.float64), X).numpy() for i in later], axis=0)
    own, settled = window_gate_change(traj, X, t_pred, tol)
    n_set = settled.sum(-1).to(torch.float64)
    changed = torch.where(n_set > 0, (own * settled).sum(-1) / n_set.clamp_min(1), math.nan).numpy()
    return dict(share=((a * near).sum(-1) / a.sum(-1)).numpy(), agree_n=agree_n, agree_a=agree_a,
                changed=changed, changed_all=changed_all)


def window_gate_change(traj, X: Tensor, t_pred: int, tol: float = math.radians(1)) -> tuple[Tensor, Tensor]:
    """Per neuron, the gating change inside its own window of Thm. 4.1: from ``t_pred`` to the first
    recorded step ``t_set ≥ t_pred`` at which its φ is within ``tol`` of a target (as in
    :func:`settle_targets`).

    Parameters
    ----------
    traj : Trajectory
        A recorded (batched) run (module conventions), params ``(T, R, m, ...)``.
    X : Tensor
        Its inputs ``(R, N, D)``, float64 used.
    t_pred : int
        The recorded step the window starts at.
    tol : float
        Radians from a target that count as settled.

    Returns
    -------
    changed : Tensor
        ``(R, m)`` float64: the largest fraction of the neuron's ``N`` gates that differ from those at
        ``t_pred`` at any recorded step up to its ``t_set`` (up to the end if it never settles).
    settled : Tensor
        ``(R, m)`` bool: the neuron comes within ``tol`` of a target at some recorded step ``≥ t_pred``.
    """
    X = X.to(torch.float64)
    i0 = traj.index_of_step(t_pred)
    idx = list(range(i0, len(traj)))
    near = target_gap(phi(traj.params[idx])) < tol                                 # (T', R, m)
    settled = near.any(0)
    i_set = torch.where(settled, near.to(torch.int8).argmax(0), torch.full_like(settled, len(idx) - 1,
                                                                                 dtype=torch.int64))
    g0 = gating(traj.at(i0).to(torch.float64), X)
    worst = torch.zeros(settled.shape, dtype=torch.float64)
    changed = torch.zeros(settled.shape, dtype=torch.float64)
    for j, i in enumerate(idx):
        frac = (gating(traj.at(i).to(torch.float64), X) != g0).to(torch.float64).mean(-1)
        worst = torch.maximum(worst, frac)
        changed = torch.where(i_set == j, worst, changed)
    return changed, settled


def gamma_m_alignment(run) -> dict[str, np.ndarray]:
    """Props. 4.2–4.3: min over the neurons with a non-empty effective set of |cos(⟨γ⟩, m¹)|.

    Parameters
    ----------
    run : tuple
        ``(p, X, y)``: networks ``(R, m, ...)`` and their data (module conventions), float64 used.

    Returns
    -------
    dict
        ``cgm0`` ``(R,)``.
    """
    p, X, y = run
    p, X = p.to(torch.float64), X.to(torch.float64)
    c = cosine(gamma(p, X, y), target_m1(p, X, y)).abs()
    live = gating(p, X).sum(-1) > 0
    return dict(cgm0=torch.where(live, c, torch.full_like(c, math.inf)).amin(-1).numpy())


def winner_rotation(run, t_max: int = 500, n_top: int = 25) -> dict[str, np.ndarray]:
    """Prop. 4.2 over time: the mean cos δ of the ``n_top`` neurons of largest final a at every
    recorded step up to ``t_max`` (:func:`~.measure.top_cos_delta_path`).

    Parameters
    ----------
    run : tuple
        ``(traj, X, y)`` (module conventions).
    t_max : int
        Last step.
    n_top : int
        Neurons followed.

    Returns
    -------
    dict
        ``up`` (share of rising steps, context), ``rho`` (Spearman's rank correlation of the recorded
        step with the mean, over the recorded steps in [0, ``t_max``]), ``c0``, ``c500`` (the mean at
        t = 0 and at ``t_max``) ``(R,)``.
    """
    traj, X, y = run
    _, path = top_cos_delta_path(traj, X, y, t_max, n_top)
    return dict(up=rising_share(path), rho=time_rank_correlation(path), c0=path[0], c500=path[-1])


def time_rank_correlation(path) -> np.ndarray:
    """Spearman's rank correlation of the record index (time) with a path, per run.

    Parameters
    ----------
    path : array_like
        ``(T, R)`` values at ``T`` recorded steps in time order.

    Returns
    -------
    np.ndarray
        ``(R,)`` rank correlations in [-1, 1] (``nan`` for a constant path).
    """
    path = np.asarray(path, dtype=float)
    t = np.arange(path.shape[0])
    return np.array([spearmanr(t, path[:, r])[0] for r in range(path.shape[1])], dtype=float)


def frozen_flow(run, tau_scale: float, t_max: int = 500) -> dict[str, np.ndarray]:
    """Props. 4.2–4.3: the frozen-gating closed form against the run (:func:`~.frozen.frozen_flow_check`).

    Parameters
    ----------
    run : tuple
        ``(traj, X, y)`` (module conventions).
    tau_scale : float
        Flow time per step.
    t_max : int
        Last step compared.

    Returns
    -------
    dict
        ``err``, ``rise``, ``fixed``, ``zmax``, ``err_w``, ``n_long`` ``(R,)``.
    """
    traj, X, y = run
    return frozen_flow_check(traj, X, y, tau_scale, t_max)[0]


def winner_drift(run, level: float = 0.95, n_top: int = 20) -> dict[str, np.ndarray]:
    """Prop. 4.4: a-weighted mean angle (degrees) by which the ``n_top`` winners' w1 turn from the first
    recorded step with full loss below ``level`` ln 2 to the end (:func:`~.frozen.direction_drift`).

    Parameters
    ----------
    run : Trajectory
        A recorded (batched) run (module conventions).
    level : float
        Fraction of ln 2 at which the loss has left its plateau.
    n_top : int
        Neurons kept, by final a.

    Returns
    -------
    dict
        ``drift`` ``(R,)`` degrees; ``t_off`` ``(R,)`` the step it starts from (``nan``: never left).
    """
    t_off = first_crossing(run.steps, run.loss.numpy(), level * math.log(2), interpolate=False)
    return dict(drift=direction_drift(run, t_off, n_top), t_off=np.asarray(t_off, dtype=float))


def plateau_levels(run, t: int = 500) -> dict[str, np.ndarray]:
    """§5: the full training loss at step ``t`` divided by ln 2, of a small-init and a larger-init run.

    Parameters
    ----------
    run : tuple
        ``(small, larger)``: two recorded (batched) runs; the first ``R`` runs of each are paired,
        ``R`` the smaller of their run counts.
    t : int
        The step read.

    Returns
    -------
    dict
        ``l1`` (small init), ``l2`` (larger init) ``(R,)``.
    """
    small, larger = run
    R = min(small.loss.shape[1], larger.loss.shape[1])
    lv = [tr.loss[tr.index_of_step(t), :R].numpy() / math.log(2) for tr in (small, larger)]
    return dict(l1=lv[0], l2=lv[1])


def setting_alignment(run, n_top: int = 25) -> dict[str, np.ndarray]:
    """§5, Fig. 6: mean |cos| between the θ of the ``n_top`` largest neurons (:func:`~.measure.top_alignment`)
    in settings 2 and 3.

    Parameters
    ----------
    run : tuple
        ``(p2, p3)``: networks ``(R, m, ...)`` of settings 2 and 3.
    n_top : int
        Neurons kept, by a.

    Returns
    -------
    dict
        ``al2``, ``al3`` ``(R,)``.
    """
    return {f"al{k}": top_alignment(p, n_top).numpy() for k, p in zip((2, 3), run)}


def norm_concentration(run) -> dict[str, np.ndarray]:
    """§4.4: share of Σa held by the top 10 % of the neurons (:func:`~.measure.top_share`) in settings 1, 2, 3.

    Parameters
    ----------
    run : tuple
        ``(p1, p2, p3)``: networks ``(R, m, ...)`` of settings 1, 2, 3.

    Returns
    -------
    dict
        ``share1``, ``share2``, ``share3`` ``(R,)``.
    """
    return {f"share{k + 1}": top_share(total_norm(p).to(torch.float64)).numpy() for k, p in enumerate(run)}


def conservation(run) -> dict[str, np.ndarray]:
    """Erratum E8: max drift of ‖w2‖² − ‖w1‖² − b² (``d_ok``) and of the paper's ‖w2‖² − ‖w1‖²
    (``d_paper``) over a run, relative to the largest a (:func:`~.measure.conservation_drifts`).

    Parameters
    ----------
    run : Trajectory
        A recorded (batched) run (module conventions).

    Returns
    -------
    dict
        ``d_ok``, ``d_paper`` ``(R,)``.
    """
    d_ok, d_paper = conservation_drifts(run.params)
    return dict(d_ok=d_ok, d_paper=d_paper)


def one_step_growth(run, lr: float = 1e-7, n_top: int = 20) -> dict[str, np.ndarray]:
    """Erratum E11 (toy): one plain GD step of each network; median over its ``n_top`` largest neurons of
    Δa/λ divided by eq. 90 (``r90``) and by eq. 18 (``r18``); ``fd_gap`` the relative change of ``r90``
    at half the step; ``c_fac`` the median exact factor (‖w1‖² + ‖w2‖²)/a.

    Parameters
    ----------
    run : tuple
        ``(p, X, y)``: networks ``(R, m, ...)`` and their data (module conventions), float64 used.
    lr : float
        The step.
    n_top : int
        Neurons kept, by a.

    Returns
    -------
    dict
        ``r90``, ``r18``, ``fd_gap``, ``c_fac`` ``(R,)``.
    """
    p, X, y = run
    out = dict(r90=[], r18=[], fd_gap=[], c_fac=[])
    for r in range(p.W1.shape[0]):
        pe, Xr = run_net(p, r, torch.float64), X[r].to(torch.float64)
        gr = growth_rates(pe, Xr, y[r])
        top = torch.topk(total_norm(pe), n_top).indices
        q = []
        for h in (lr, lr / 2):
            st = train(pe, Xr, y[r], loss=CE, lr=h, steps=1, record=[0, 1], trainable=("W1", "W2", "b1"))
            da = (total_norm(st.at(1)) - total_norm(st.at(0))) / h
            q.append(((da / gr["eq90"])[top].median().item(), (da / gr["eq18"])[top].median().item()))
        out["r90"].append(q[0][0])
        out["r18"].append(q[0][1])
        out["fd_gap"].append(float(relative_error(q[1][0], q[0][0])))
        out["c_fac"].append((gr["eq90"] / gr["eq18"])[top].median().item())
    return {k: np.array(v) for k, v in out.items()}


def cifar_growth(run, lam_eff: float, t0: int = 250, t1: int = 500, n_top: int = 10,
                 live_only: bool = False) -> dict[str, np.ndarray]:
    """Erratum E11 (CIFAR): the measured d log a/dt between ``t0`` and ``t1`` of the ``n_top`` largest
    neurons against ``lam_eff`` times eq. 18 and eq. 90 divided by a (mean of the two ends), and the
    exact factor (‖w1‖² + ‖w2‖²)/a (median over the same neurons).

    Parameters
    ----------
    run : tuple
        ``(traj, X, y)`` (module conventions); ``t0`` and ``t1`` must be recorded.
    lam_eff : float
        Flow time per step.
    t0, t1 : int
        The window (steps).
    n_top : int
        Neurons kept, by a at ``t1``.
    live_only : bool
        Keep only neurons with a nonzero eq. 18 rate at both ends (a dead neuron has rate and slope 0,
        so its ratio is 0/0); needed where the window ends before the winners outgrow the init.

    Returns
    -------
    dict
        ``c18``, ``c90``, ``c_fac`` ``(R,)``.
    """
    traj, X, y = run
    P0, P1 = traj.at(traj.index_of_step(t0)), traj.at(traj.index_of_step(t1))
    a0, a1 = total_norm(P0), total_norm(P1)
    slope = (a1.log() - a0.log()) / (t1 - t0)
    g0, g1 = growth_rates(P0, X, y), growth_rates(P1, X, y)
    rank = torch.where((g0["eq18"] != 0) & (g1["eq18"] != 0), a1, torch.full_like(a1, -math.inf)) if live_only else a1
    top = torch.topk(rank, n_top, -1).indices
    return dict(c18=median_at(slope / (lam_eff * 0.5 * (g0["eq18"] / a0 + g1["eq18"] / a1)), top).numpy(),
                c90=median_at(slope / (lam_eff * 0.5 * (g0["eq90"] / a0 + g1["eq90"] / a1)), top).numpy(),
                c_fac=median_at(0.5 * (g0["eq90"] / g0["eq18"] + g1["eq90"] / g1["eq18"]), top).numpy())


def identity_errors(run) -> dict[str, np.ndarray]:
    """Eqs. 4–8, 66: the largest relative deviation of the per-neuron formulas from autograd
    (:func:`~.neuron.identity_error`), one network per seed.

    Parameters
    ----------
    run : sequence of tuple
        A per-seed list (module conventions).

    Returns
    -------
    dict
        ``err`` ``(R,)``.
    """
    return dict(err=np.array([identity_error(p, X, y) for p, X, y in run]))


def eq15_errors(run, min_cos: float = 0.05) -> dict[str, np.ndarray]:
    """Eq. 15: max relative error of the measured ratio ∂L/∂φ ÷ ∂L/∂‖w2‖ against ‖w2‖ tan(3π/4 − φ)
    (:func:`~.neuron.phi_ratio`) over the neurons with ``|cos(3π/4 − φ)| > min_cos``, one network per seed.

    Parameters
    ----------
    run : sequence of tuple
        A per-seed list (module conventions).
    min_cos : float
        Neurons nearer the poles of tan are left out.

    Returns
    -------
    dict
        ``err15`` ``(R,)``.
    """
    out = []
    for p, X, y in run:
        ratio, exact = phi_ratio(p, X, y)
        keep = torch.cos(PHI2 - phi(p)).abs() > min_cos
        out.append(float((ratio / exact - 1)[keep].abs().max()))
    return dict(err15=np.array(out))


def appendix_g_sign(run) -> dict[str, np.ndarray]:
    """App. G: on each seed's neurons of :func:`~.measure.aligned_neurons` (or a counterfactual copy),
    the share of negative ∂⟨‖Δy‖⟩/∂a, the largest deviation from eq. 102, the smallest cos(w1, m¹) and the
    number of neurons (:func:`~.measure.appendix_g_stats`).

    Parameters
    ----------
    run : sequence of tuple
        ``(nets, X, y)`` per seed: the ``(network, alpha, cos)`` list and the network's data.

    Returns
    -------
    dict
        ``neg``, ``dev``, ``cos_min``, ``n`` ``(R,)``.
    """
    rows = [appendix_g_stats(nets, X, y) for nets, X, y in run]
    return {k: np.array([r[k] for r in rows], dtype=float) for k in ("neg", "dev", "cos_min", "n")}


def parameter_counts(run) -> dict[str, np.ndarray]:
    """Erratum E15: the parameters and hidden neurons of a network and the samples of its data set.

    Parameters
    ----------
    run : tuple
        ``(p, X)``: one network (no run dims) and its inputs ``(N, D)``.

    Returns
    -------
    dict
        ``n_par``, ``m``, ``n_samples`` (scalars as arrays of shape ``(1,)``).
    """
    p, X = run
    return dict(n_par=np.array([n_parameters(p)], dtype=float), m=np.array([p.W1.shape[-2]], dtype=float),
                n_samples=np.array([X.shape[-2]], dtype=float))


def fixed_point_errata(run) -> dict[str, np.ndarray]:
    """Errata E6–E7: max |∂L/∂φ| with every φ set to 7π/4 and to 7π/3, relative to the max at the network
    as given, and max |‖Δy^s‖ − √2/2| (:func:`~.neuron.polar_gradients`, :func:`~.neuron.error_vectors`).

    Parameters
    ----------
    run : sequence of tuple
        A per-seed list (module conventions).

    Returns
    -------
    dict
        ``dphi74``, ``dphi73``, ``dy_dev`` ``(R,)``.
    """
    out = dict(dphi74=[], dphi73=[], dy_dev=[])
    for p, X, y in run:
        ref = polar_gradients(p, X, y)["dphi"].abs().max()
        for ang, key in ((PHI1, "dphi74"), (7 * math.pi / 3, "dphi73")):
            q = p.clone()
            nrm = q.W2.norm(dim=0)
            q.W2 = torch.stack([nrm * math.cos(ang), nrm * math.sin(ang)])
            out[key].append(float(polar_gradients(q, X, y)["dphi"].abs().max() / ref))
        out["dy_dev"].append(float((error_vectors(p, X, y).norm(dim=-1) - math.sqrt(0.5)).abs().max()))
    return {k: np.array(v) for k, v in out.items()}


def settle_targets(run, t_pred: int = 0, tol: float = math.radians(1), max_changed: float = 0.01
                   ) -> dict[str, np.ndarray]:
    """Thm. 4.1 neuron by neuron, inside each neuron's own window of fixed gating: the target (7π/4 or
    3π/4) a neuron first comes within ``tol`` of, against the theorem's rule and against the sign that
    the fixed-gating linear flow (:mod:`.frozen`) says decides it, both read at ``t_pred``.

    A neuron counts (``ok``) when it settles (comes within ``tol`` of a target at some recorded step
    ``t_set ≥ t_pred``), its effective set at ``t_pred`` is not empty, and at every recorded step from
    ``t_pred`` to ``t_set`` at most ``max_changed`` of its gates differ from those at ``t_pred`` (the
    theorem's premise, after the prediction time). The linear flow's sign is that of ``q0 + v0``
    (``q = w̃1·m̂̃¹``, ``v = w2·(1, −1)/√2``, bias as an input coordinate): its growing mode has
    ``v ∝ (q0 + v0) e^{kτ}``, so that sign, not the theorem's ``sign q0``, fixes where φ goes when
    ``|v0|`` is comparable to ``|q0|``.

    Parameters
    ----------
    run : tuple
        ``(traj, X, y)``: a recorded (batched) run and its data (module conventions), float64 used.
    t_pred : int
        The recorded step at which both rules are read.
    tol : float
        Radians from a target that count as settled.
    max_changed : float
        Largest share of a neuron's gates that may differ from ``t_pred`` inside its window.

    Returns
    -------
    dict
        ``n_ok`` (neurons that count), ``agree_thm``, ``agree_lin`` (their share whose target is the
        theorem's rule, the linear flow's sign; ``nan`` if none counts), ``fixed`` (share of the settled
        neurons whose gating stays fixed up to ``t_set``), ``settled`` (share of neurons that settle),
        ``(R,)`` each.
    """
    traj, X, y = run
    X = X.to(torch.float64)
    i0 = traj.index_of_step(t_pred)
    idx = list(range(i0, len(traj)))
    ph = phi(traj.params[idx])                                                     # (T', R, m)
    near = target_gap(ph) < tol
    settled = near.any(0)
    i_set = near.to(torch.int8).argmax(0)                                          # first settled index, (R, m)
    to_phi1 = angle_gap(ph.gather(0, i_set[None])[0], PHI1).abs() < tol
    P0 = traj.at(i0).to(torch.float64)
    g0 = gating(P0, X)
    worst = torch.zeros(settled.shape, dtype=torch.float64)
    worst_at = torch.zeros((len(idx),) + tuple(settled.shape), dtype=torch.float64)
    for j, i in enumerate(idx):
        worst = torch.maximum(worst, (gating(traj.at(i).to(torch.float64), X) != g0).to(torch.float64).mean(-1))
        worst_at[j] = worst
    changed = worst_at.gather(0, i_set[None])[0]
    Pa, Xa = augmented(P0, X)
    m1 = target_m1(Pa, Xa, y)
    nm = torch.linalg.vector_norm(m1, dim=-1)
    q0 = (Pa.W1 * m1).sum(-1) / nm.clamp_min(1e-300)
    v0 = (P0.W2[..., 0, :] - P0.W2[..., 1, :]) / math.sqrt(2)
    thm1 = angle_gap(phi_star_predicted(P0, X, y), PHI1).abs() < 1e-9
    fix = settled & (changed <= max_changed)
    ok = fix & (nm > 0)
    n_ok = ok.sum(-1).to(torch.float64)
    return dict(n_ok=n_ok.numpy(), agree_thm=masked_share(thm1 == to_phi1, ok).numpy(),
                agree_lin=masked_share(((q0 + v0) > 0) == to_phi1, ok).numpy(),
                fixed=(fix.sum(-1) / settled.sum(-1).clamp_min(1)).to(torch.float64).numpy(),
                settled=settled.to(torch.float64).mean(-1).numpy())


def _pruned_losses(p, X: Tensor, y: Tensor, score: Tensor) -> tuple[np.ndarray, float]:
    """Full-loss relative changes ``(m + 1,)`` after removing the ``k = 0..m`` neurons of lowest ``score``
    from one network ``p`` (no run dims) on its data ``X (N, D)``, ``y (N,)``, float64, and the loss."""
    pre = preactivations(p, X)                                                     # (N, m)
    contrib = activation(p.act)(pre).unsqueeze(-1) * p.W2.transpose(-1, -2).unsqueeze(0)   # (N, m, k)
    z = contrib.sum(1) + (p.b2 if p.b2 is not None else 0)
    cum = torch.cat([torch.zeros_like(contrib[:, :1]), contrib[:, torch.argsort(score)].cumsum(1)], 1)
    L = torch.stack([CE(z - cum[:, k], y) for k in range(cum.shape[1])])
    return ((L - L[0]) / L[0]).numpy(), float(L[0])


def prune_loss(run, at: float = 0.5, tol: float = 0.01) -> dict[str, np.ndarray]:
    """Pruning: the relative change of the full training loss after removing the neurons of lowest
    ``score`` (the main run: the total norm a; the control: a random order), per run, float64.

    Parameters
    ----------
    run : tuple
        ``(p, X, y, score)``: networks ``(R, m, ...)``, their data (module conventions) and ``score
        (R, m)``, the order of removal (lowest first).
    at : float
        The fraction of the neurons removed for ``dl``.
    tol : float
        The relative loss change that counts as free for ``frac``.

    Returns
    -------
    dict
        ``dl`` (relative loss change after removing ``round(at m)`` neurons), ``frac`` (the largest
        fraction ``k/m`` such that removing any ``k' ≤ k`` first neurons changes the loss by at most
        ``tol``), ``(R,)`` each.
    """
    p, X, y, score = run
    out = dict(dl=[], frac=[])
    for r in range(p.W1.shape[0]):
        q = run_net(p, r, torch.float64)
        d, _ = _pruned_losses(q, X[r].to(torch.float64), y[r], torch.as_tensor(score[r]))
        m = len(d) - 1
        bad = np.nonzero(np.abs(d) > tol)[0]
        out["dl"].append(d[int(round(at * m))])
        out["frac"].append(((bad[0] if len(bad) else m + 1) - 1) / m)
    return {k: np.array(v, dtype=float) for k, v in out.items()}


def prune_compare(run, at: float = 0.5) -> dict[str, np.ndarray]:
    """§5's comparison of the settings: the scale-free loss cost of removing the neurons of lowest a
    from each setting's final network, ``(L_pruned − L) / (ln 2 − L)`` (the share of what training
    removed from the plateau's loss that the cut gives back), per run, float64.

    Parameters
    ----------
    run : tuple
        ``((p1, X1, y1), (p2, X2, y2), (p3, X3, y3))``: settings 1–3, final networks ``(R, m, ...)`` and
        their data (module conventions), the same number of runs ``R`` each.
    at : float
        The fraction of the neurons removed (lowest total norm a first).

    Returns
    -------
    dict
        ``g1, g2, g3`` (the scale-free costs, dimensionless) and ``L1, L2, L3`` (the full training
        losses before the cut, nats), ``(R,)`` each.
    """
    out = {}
    for s, (p, X, y) in enumerate(run, 1):
        g, L = [], []
        for r in range(p.W1.shape[0]):
            q = run_net(p, r, torch.float64)
            d, L0 = _pruned_losses(q, X[r].to(torch.float64), y[r], total_norm(q))
            g.append(d[int(round(at * (len(d) - 1)))] * L0 / (math.log(2) - L0))
            L.append(L0)
        out[f"g{s}"], out[f"L{s}"] = np.array(g, dtype=float), np.array(L, dtype=float)
    return out


def prune_sensitivity(run, levels=(0.15, 0.2, 0.3), cuts=(0.4, 0.5, 0.6), level: float = 0.2,
                      at: float = 0.5) -> dict[str, np.ndarray]:
    """How the matched-loss pruning depends on the chapter's two choices: the loss level (at the cut
    ``at``) and the fraction removed (at the level ``level``), :func:`prune_at_level` each.

    Parameters
    ----------
    run : tuple
        ``(traj, X, y)``: a recorded run and its data (module conventions).
    levels : sequence of float
        Matched loss levels (nats).
    cuts : sequence of float
        Fractions of the neurons removed (lowest a first).
    level, at : float
        The level used with ``cuts`` and the cut used with ``levels``.

    Returns
    -------
    dict
        ``"L=<level>"`` and ``"cut=<cut>"``: the relative loss change ``dl`` ``(R,)`` of each reading.
    """
    traj, X, y = run
    out = {f"L={lv:g}": prune_at_level((traj, X, y, None), level=lv, at=at)["dl"] for lv in levels}
    out.update({f"cut={c:g}": prune_at_level((traj, X, y, None), level=level, at=c)["dl"] for c in cuts})
    return out


def abs_t0(run) -> tuple:
    """A rank-prediction run with its first entry, cos δ at t = 0, replaced by its absolute value
    (``predict.setting1.t0`` grades |cos δ(0)|, as its declaration says).

    Parameters
    ----------
    run : tuple
        ``(cd0, cd500, a_final, ...)`` as :func:`rank_prediction` takes it; ``cd0 (R, m)``.

    Returns
    -------
    tuple
        ``(|cd0|, cd500, a_final, ...)``.
    """
    return (run[0].abs(),) + tuple(run[1:])


def level_snapshots(traj, level: float) -> tuple[np.ndarray, np.ndarray]:
    """Per run: the first recorded snapshot whose full training loss is at most ``level``.

    Parameters
    ----------
    traj : Trajectory
        A recorded run (module conventions), loss ``(T, R)``.
    level : float
        The loss level (the loss's units: nats for the cross-entropy).

    Returns
    -------
    idx : np.ndarray
        ``(R,)`` int: the snapshot index; the last snapshot for a run that never reaches ``level``.
    reached : np.ndarray
        ``(R,)`` float, 1.0 where the run reaches ``level``, else 0.0.
    """
    below = traj.loss.numpy() <= level                                              # (T, R)
    reached = below.any(0)
    idx = np.where(reached, below.argmax(0), len(traj.steps) - 1)
    return idx.astype(int), reached.astype(float)


def prune_at_level(run, level: float = 0.2, at: float = 0.5, tol: float = 0.01) -> dict[str, np.ndarray]:
    """Pruning at a matched training loss: :func:`prune_loss` on each run's network at the first
    snapshot whose full training loss is at most ``level`` (:func:`level_snapshots`).

    Parameters
    ----------
    run : tuple
        ``(traj, X, y, order)``: a recorded run and its data (module conventions); ``order`` is
        ``None`` (remove the neurons of lowest total norm a at that snapshot first: the race's
        losers) or a score ``(R, m)`` (lowest first; the control's random order).
    level : float
        The matched loss level (nats).
    at, tol : float
        As in :func:`prune_loss`.

    Returns
    -------
    dict
        ``dl``, ``frac`` as in :func:`prune_loss`; ``step`` (the snapshot's step, in steps),
        ``loss`` (its recorded loss, nats) and ``reached`` (1.0 where the run reaches ``level``),
        ``(R,)`` each.
    """
    traj, X, y, order = run
    idx, reached = level_snapshots(traj, level)
    p = stack_nets([traj.params[i, r] for r, i in enumerate(idx)])
    score = total_norm(p) if order is None else torch.as_tensor(order)
    out = prune_loss((p, X, y, score), at=at, tol=tol)
    R = np.arange(len(idx))
    return dict(out, step=np.asarray(traj.steps)[idx].astype(float),
                loss=traj.loss.numpy()[idx, R].astype(float), reached=reached)


def _merge_to(q, X: Tensor, y: Tensor, n_groups: int, iters: int = 30) -> tuple[float, float, int]:
    """Merge one network (float64, no run dims) at the largest cosine threshold that leaves at most
    ``n_groups`` neurons (bisection); returns (relative loss change, threshold, neurons left)."""
    lo, hi = -1.0, 1.0 - 1e-12
    merged, n = merge(q, hi)
    if n > n_groups:
        for _ in range(iters):
            mid = 0.5 * (lo + hi)
            if merge(q, mid)[1] <= n_groups:
                lo = mid
            else:
                hi = mid
        hi = lo
        merged, n = merge(q, lo)
    L0 = CE(forward(q, X), y).item()
    return (CE(forward(merged, X), y).item() - L0) / L0, hi, n


def matched_merge(run, n_groups: int = 150) -> dict[str, np.ndarray]:
    """§5 at matched group counts: each setting's final networks merged (:func:`~.merging.merge`,
    weighted direction) at the largest cosine threshold that leaves at most ``n_groups`` neurons, and
    the relative change of the full training loss, per run.

    Parameters
    ----------
    run : tuple
        ``((p1, X1, y1), (p2, X2, y2), (p3, X3, y3))``: settings 1–3, networks ``(R, m, ...)`` and their
        data (module conventions); the number of runs is that of ``p1`` (the later settings' first runs).
    n_groups : int
        The group count every setting is merged to (the paper's 150 of setting 1).

    Returns
    -------
    dict
        ``dl1, dl2, dl3`` (relative loss changes), ``thr1, thr2, thr3`` (the thresholds), ``n1, n2, n3``
        (neurons left), ``(R,)`` each.
    """
    R = run[0][0].W1.shape[0]
    out = {}
    for s, (p, X, y) in enumerate(run, 1):
        rows = [_merge_to(run_net(p, r, torch.float64), X[r].to(torch.float64), y[r], n_groups) for r in range(R)]
        for j, name in enumerate(("dl", "thr", "n")):
            out[f"{name}{s}"] = np.array([row[j] for row in rows], dtype=float)
    return out


def growth_law(run, tau_scale: float, t_max: int | None = None) -> dict[str, np.ndarray]:
    """Eq. 19 neuron by neuron: the measured d log ã/dτ regressed on 2‖γ̃‖ cos δ̃, per run.

    ``ã = ‖w̃1‖‖w2‖`` and ``γ̃``, ``δ̃`` are read with the bias as one more input coordinate
    (:func:`~.frozen.augmented`), so that for a balanced neuron (``‖w̃1‖ = ‖w2‖``) under gradient flow
    ``d log ã/dτ = 2‖γ̃‖ cos δ̃`` (eq. 90 with ``c = 0``; twice the paper's eq. 19). The measured rate is the
    finite difference of ``log ã`` between consecutive records; the predicted one the mean of its two ends.
    Every (neuron, interval) pair of a run is one point of a least-squares line.

    Parameters
    ----------
    run : tuple
        ``(traj, X, y)``: a recorded (batched) run and its data (module conventions).
    tau_scale : float
        Flow time per step (the step size of plain GD).
    t_max : int or None
        Last recorded step used (``None``: all).

    Returns
    -------
    dict
        ``slope``, ``intercept``, ``r2`` of the line, and ``c`` (the largest
        ``|‖w̃1‖² − ‖w2‖²| / (‖w̃1‖² + ‖w2‖²)`` over the neurons at the first record), ``(R,)`` each.
    """
    traj, X, y = run
    idx = [i for i, s in enumerate(traj.steps) if t_max is None or s <= t_max]
    pred, loga = [], []
    for i in idx:
        q, Xa = augmented(traj.at(i).to(torch.float64), X.to(torch.float64))
        g = gamma(q, Xa, y)
        pred.append(2 * torch.linalg.vector_norm(g, dim=-1) * cosine(q.W1, g))
        loga.append(total_norm(q).log())
    P, La = torch.stack(pred), torch.stack(loga)                                    # (T, R, m)
    dtau = torch.as_tensor(np.diff(np.asarray(traj.steps)[idx]) * tau_scale, dtype=La.dtype)
    meas = (La[1:] - La[:-1]) / dtau[:, None, None]
    mid = 0.5 * (P[1:] + P[:-1])
    q0 = augmented(traj.at(idx[0]).to(torch.float64), X.to(torch.float64))[0]
    n1, n2 = q0.norms_in(with_bias=False) ** 2, q0.norms_out() ** 2
    out = {k: [] for k in ("slope", "intercept", "r2")}
    for r in range(La.shape[1]):
        fit = line_fit(mid[:, r], meas[:, r])
        out["slope"].append(fit.slope)
        out["intercept"].append(fit.intercept)
        out["r2"].append(fit.r2)
    out = {k: np.array(v, dtype=float) for k, v in out.items()}
    out["c"] = ((n1 - n2).abs() / (n1 + n2)).amax(-1).numpy()
    return out


WHAT_HOLDS = [
    ("Racing (§4.6, Fig. 1c, Fig. 8): the early alignment cos δ predicts which neurons win (the final a), "
     "sharper in setting 1 than in settings 2 and 3",
     ["predict.setting1.t0", "predict.setting1.t500", "predict.setting2", "predict.setting3", "predict.sharper"]),
    ("Theorem 4.1: with fixed gating each outgoing vector settles on 7π/4 or 3π/4, chosen by the sign of "
     "w¹·(ξ₁ − ξ₂) (thm4.1.targets is the row, read on the plateau with each neuron's gating fixed until it "
     "settles; thm4.1.window reads the rule at t = 0, outside the theorem)",
     ["thm4.1.targets", "thm4.1.window", "thm4.1.linear-sign"]),
    ("App. G: a neuron whose outgoing vector sits at its target and whose incoming vector lies on its m¹ lowers "
     "the loss (hand-built neurons)", ["appG.sign"]),
    ("Props. 4.2–4.3: early on, the incoming vector turns towards ⟨γ⟩, the difference of the class sums of "
     "its effective data (the paper states the fixed points; the fixed-gating closed form is this chapter's extension)",
     ["prop4.2-4.3.gamma-m", "prop4.2.w1-to-gamma", "prop4.3.frozen-flow", "prop4.3.frozen-window",
      "prop4.3.frozen-window-gd"]),
    ("Prop. 4.4: on a simple data set the initial alignment of the winners remains", ["prop4.4.xor-stays"]),
    ("Unlocking (eq. 19): a grows exponentially in cos δ (eq. 19's growth law itself is an identity of the flow; "
     "with c ≈ 0 the rate is twice the paper's, an erratum)",
     ["unlock.exp-fit", "eq19.growth-law", "erratum.E11-factor2", "erratum.E11-balanced", "erratum.E11-balanced-gd",
      "erratum.E11-cifar"]),
    ("The XOR-like toy (Figs. 2, 9): four clusters fitted at four speeds, in the order of their norms",
     ["fig2.speeds", "fig2.four-drops"]),
    ("Initialisation scale (Fig. 4, §5): rich to lazy; with std 0.01 no plateau, a two-speed race in setting 1",
     ["fig4.lazy", "plateau.setting2", "fig5.two-speeds", "align.s3-vs-s2", "top-share"]),
    ("Merging (§5), setting 1: with a small init 250 neurons merge into about 150 at a loss cost of 0.1 % "
     "(merge.matched tests setting 1 only)", ["merge.setting1", "merge.matched"]),
    ("Merging (§5), settings 2 and 3: their neurons cannot be merged without affecting the loss",
     ["merge.setting2", "merge.setting3"]),
    ("Pruning (§4.6, §5): the neurons that lose the race can be pruned, and setting 3 is harder to prune "
     "than setting 2 (the paper's comparison; prune.compare, at the end of the run)",
     ["prune.setting1", "prune.setting2", "prune.setting3", "prune.compare"]),
    ("The per-neuron equations (eqs. 4–8, 15) and the errata", ["eqs4-8.identities", "eq15.ratio", "eqs4-8.cifar",
                                                               "erratum.E8-conservation", "erratum.E15-params",
                                                               "erratum.E6-E7"]),
]
"""The paper's main statements and the claims that grade them (the chapter's "The paper's statements, graded")."""

EXTENSIONS = frozenset({"prop4.3.frozen-flow", "prop4.3.frozen-window", "prop4.3.frozen-window-gd"})
"""Rows that grade this chapter's extension of a statement (a closed form the paper does not give), not the paper."""

REPRODUCTION_TIERS = ("quantitative", "loose bound")
"""The ledger's tiers that count as evidence for or against a statement."""

_IDENTITY_WORDS = ("identity", "identities", "exact", "algebra", "a count of")


def is_identity(result) -> bool:
    """Whether a graded claim is an identity, an exact invariant, algebra or a count (by its declared reason).

    Parameters
    ----------
    result : Result
        One claim of the ledger.

    Returns
    -------
    bool
        True for a consistency check whose reason names an identity, algebra, an exact relation or a count.
    """
    d = result.decl
    return d.kind == "consistency" and any(w in d.reason for w in _IDENTITY_WORDS)


def pooled_agreement(values, names) -> str:
    """Per-neuron agreement rates pooled over the seeds, each with a one-sided 95 % Clopper–Pearson lower bound.

    Parameters
    ----------
    values : dict
        A measurement with ``n_ok`` (neurons per seed) and, per name, the agreeing fraction per seed.
    names : sequence of str
        The fractions to pool.

    Returns
    -------
    str
        ``name k/n (lower bound)`` per name (NaN seeds count as 0 neurons).
    """
    n_ok = np.nan_to_num(np.asarray(values["n_ok"], dtype=float))
    out = []
    for name in names:
        k = int(np.round(np.nansum(np.asarray(values[name], dtype=float) * n_ok)))
        n = int(n_ok.sum())
        lo = float(beta_dist.ppf(0.05, k, n - k + 1)) if k else 0.0
        out.append(f"{name} {k}/{n} (95 % lower bound {lo:.3f})")
    return "; ".join(out)


def statement_verdict(ledger, ids) -> str:
    """One statement's verdict, read from its rows of the reproduction tier only.

    Parameters
    ----------
    ledger : Ledger
        The chapter's graded claims.
    ids : sequence of str
        The claims that grade the statement.

    Returns
    -------
    str
        ``reproduced``, ``not reproduced``, ``mixed`` (with the rows' rates) or ``not tested as a
        reproduction``, followed by the identities among ``ids`` and the extension rows.
    """
    res = {i: ledger.results[i] for i in ids}
    rows = [(i, r) for i, r in res.items() if i not in EXTENSIONS and r.tier()[0] in REPRODUCTION_TIERS]
    if not rows:
        out = "not tested as a reproduction (no row of the reproduction tier)"
    else:
        rates = [pass_rate(r.rate_verdicts) for _, r in rows]
        word = ("reproduced" if all(p == g for p, g in rates) else
                "not reproduced" if all(p == 0 for p, _ in rates) else "mixed")
        out = word + " (" + "; ".join(f"{i} {headline(r.rate_verdicts)}" for i, r in rows) + ")"
    ident = [i for i, r in res.items() if is_identity(r)]
    if ident:
        out += "; identities, not evidence: " + ", ".join(ident)
    ext = [i for i in ids if i in EXTENSIONS]
    if ext:
        out += "; this chapter's extension, not the paper's statement: " + ", ".join(ext)
    return out


def graded_statements(ledger, statements=None) -> list[tuple[str, list[str]]]:
    """The statements of :data:`WHAT_HOLDS` with their verdict appended, for ``glue_what_holds``.

    Parameters
    ----------
    ledger : Ledger
        The chapter's graded claims.
    statements : sequence of (str, sequence of str), optional
        Default :data:`WHAT_HOLDS`.

    Returns
    -------
    list of (str, list of str)
        ``(statement + " — verdict: ...", ids)`` per statement.
    """
    return [(f"{text} — verdict from reproduction-tier rows: {statement_verdict(ledger, ids)}", list(ids))
            for text, ids in (WHAT_HOLDS if statements is None else statements)]


__all__ = ["WHAT_HOLDS", "EXTENSIONS", "REPRODUCTION_TIERS", "graded_statements", "is_identity", "pooled_agreement", "statement_verdict", "appendix_g_sign", "growth_law", "cifar_growth", "eq15_errors", "fixed_point_errata", "identity_errors", "parameter_counts", "cluster_times", "conservation", "frozen_flow", "gamma_m_alignment", "growth_form",
           "half_final_times", "lazy_alignment", "loss_drops", "merge_effect", "norm_concentration", "one_step_growth",
           "phi_targets", "plateau_levels", "rank_prediction", "setting_alignment", "sharper_prediction",
           "winner_drift", "winner_rotation", "settle_targets", "prune_loss", "matched_merge",
           "abs_t0", "level_snapshots", "prune_at_level",
           "prune_compare", "prune_sensitivity", "window_gate_change", "time_rank_correlation"]
