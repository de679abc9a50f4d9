"""Measurements on networks and trajectories: the settled state and the alignment time ``t₁``
(Theorem 1 part 1), the fitting time ``t₂``, the O(1/t) loss bound checked after it and the
low-rank inequality after ``t₁`` (part 2), neurons outside S₊, the class alignment and the
MNIST summary.

Shapes and units: the package's conventions (:mod:`lrlib.theory.alignment`). Tested in
``tests/test_theory_alignment_measure.py``.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from ...measure import active, cosine, first_crossing
from ...models import TwoLayer, forward
from ...track import stable_rank
from ...trajectory import Trajectory
from .cones import cone_membership, project
from .core import DataGeometry, alpha_rate, loss_bound

Tensor = torch.Tensor


def settled(p: TwoLayer, X: Tensor, y: Tensor) -> Tensor:
    """Theorem 1 part 1's end state, per neuron.

    ``w_j ∈ S₊ ∪ S_dead`` when ``v_j > 0``, ``w_j ∈ S₋ ∪ S_dead`` when ``v_j < 0`` (``V±`` read from the
    current sign of ``v_j``).

    Parameters
    ----------
    p : TwoLayer
        ``W1`` of shape ``(..., m, D)``.
    X, y : Tensor
        Data ``(n, D)`` and labels ``(n,)``.

    Returns
    -------
    Tensor
        ``(..., m)``, bool.
    """
    c = cone_membership(p.W1, X, y)
    return torch.where(p.a > 0, c["S_plus"] | c["S_dead"], c["S_minus"] | c["S_dead"])


def alignment_times(traj: Trajectory, X: Tensor, y: Tensor) -> np.ndarray:
    """Measured ``t₁`` per run: the first snapshot time at which every neuron is :func:`settled`.

    Parameters
    ----------
    traj : Trajectory
        ``T`` snapshots of ``R...`` runs.
    X, y : Tensor
        Data ``(n, D)`` and labels ``(n,)``.

    Returns
    -------
    ndarray
        ``(R...)``, flow time; NaN where never.
    """
    ok = settled(traj.params, X, y).all(-1)                                    # (T, R...)
    flat = ok.reshape(ok.shape[0], -1).numpy()
    out = np.array([traj.time[int(np.argmax(flat[:, r]))] if flat[:, r].any() else np.nan
                    for r in range(flat.shape[1])])
    return out.reshape(ok.shape[1:])


def live_outside_s_plus(p: TwoLayer, X: Tensor, y: Tensor) -> Tensor:
    """Figs 7–9's count: neurons with ``v_j > 0``, not dead and not in ``S₊``.

    Parameters
    ----------
    p : TwoLayer
        The network, ``W1 (..., m, D)``, signs of ``v_j = p.a``.
    X, y : Tensor
        The data, as in :func:`settled`.

    Returns
    -------
    Tensor
        ``(...)``, int.
    """
    c = cone_membership(p.W1, X, y)
    return ((p.a > 0) & ~c["S_dead"] & ~c["S_plus"]).sum(-1)


def lost_neurons(p0: TwoLayer, p: TwoLayer, X: Tensor, y: Tensor) -> Tensor:
    """Theorem 1 part 1's "moreover" clause, per run.

    Counts neurons with ``v_j(0) > 0`` that initially activated a positive point but are not in ``S₊``
    under ``p`` (mirror for ``v_j < 0`` and ``S₋``).

    Parameters
    ----------
    p0, p : TwoLayer
        Initial and current networks, same run shape, ``W1 (R..., m, D)``.
    X, y : Tensor
        Data ``(n, D)`` and labels ``(n,)``.

    Returns
    -------
    Tensor
        ``(R...)``, int.
    """
    act0 = active(p0.W1, X).transpose(-1, -2)                                                  # (R..., n, m)
    init_pos, init_neg = act0[..., y > 0, :].any(-2), act0[..., y < 0, :].any(-2)
    c = cone_membership(p.W1, X, y)
    pos = p0.a > 0
    lost = (pos & init_pos & ~c["S_plus"]) | (~pos & init_neg & ~c["S_minus"])
    return lost.sum(-1)


def fitting_times(traj: Trajectory, X: Tensor, y: Tensor, *, per_class: bool = False) -> np.ndarray:
    """The fitting time ``t₂ = max(t₂⁺, t₂⁻)`` per run.

    ``t₂^±`` is the first time ``max_{i∈I±}|f(x_i)| > 1/4`` (linear interpolation between snapshots).

    Parameters
    ----------
    traj : Trajectory
        ``T`` snapshots of ``R`` runs; the network's outputs on ``X`` are evaluated at each.
    X, y : Tensor
        Data ``(n, D)`` and labels ``(n,)`` (the classes I±).
    per_class : bool, optional
        Return ``[t₂⁺, t₂⁻]`` instead of their max.

    Returns
    -------
    ndarray
        ``(R,)`` or ``(R, 2)``, flow time; NaN where never reached.
    """
    f = forward(traj.params, X)[..., 0]                                      # (T, R, n)
    t2 = np.array([[first_crossing(traj.time, -f[:, r, y * s > 0].abs().amax(-1).numpy(), -0.25)
                    for s in (1, -1)] for r in range(f.shape[1])])
    return t2 if per_class else t2.max(-1)


def loss_rate_check(traj: Trajectory, X: Tensor, y: Tensor, g: DataGeometry) -> dict[str, np.ndarray]:
    """Theorem 1's O(1/t) loss bound checked after ``t₂``, per run.

    Parameters
    ----------
    traj : Trajectory
        ``T`` snapshots of ``R`` runs (summed loss, flow time).
    X, y : Tensor
        Data ``(n, D)`` and labels ``(n,)``.
    g : DataGeometry

    Returns
    -------
    dict of str to ndarray
        ``ratio_min`` — min over the snapshots at ``t ≥ t₂ + 1/(α L(t₂))`` (where the bound has halved;
        at ``t₂`` itself bound = L by construction) of bound/L, NaN where none; ``bound_drop`` —
        ``1 − bound(t_end)/L(t₂)``; ``ratio_ctl`` — the same min for a curve decaying at half the rate
        (the control); ``t2``; each ``(R,)``.  ``t₂`` is taken at the first snapshot at or after it.
    """
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
        late = time[i2:] >= time[i2] + 1 / (alpha * float(L[0]))
        out["ratio_min"][r] = np.min(bound[late] / L[late]) if late.any() else np.nan
        out["bound_drop"][r] = 1 - bound[-1] / L[0]
        out["ratio_ctl"][r] = np.min(bound / loss_bound(float(L[0]), time[i2], time[i2:], alpha / 2))
        out["t2"][r] = t2
    return out


def low_rank_check(traj: Trajectory, p0: TwoLayer, eps: float, t1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Theorem 1's low-rank inequality after ``t₁``, per run.

    Parameters
    ----------
    traj : Trajectory
        ``T`` snapshots of ``R`` runs.
    p0 : TwoLayer
        The initialisation, ``W1 (R, m, D)``.
    eps : float
        Its scale ε.
    t1 : ndarray
        ``(R,)`` alignment times (NaN: the whole run is checked).

    Returns
    -------
    (ndarray, ndarray)
        The number of snapshots at or after ``t₁`` violating ``‖W‖_F² ≤ 2‖W‖₂² + 4√h ε W_max²``
        (``W_max = max_j ‖w_j(0)‖/ε``) and the final stable rank, ``(R,)`` each.
    """
    sr, s2 = stable_rank(traj.params.W1)                                     # (T, R)
    W_max = (p0.norms_in() / eps).amax(-1)
    after = torch.as_tensor(traj.time)[:, None] >= torch.as_tensor(np.nan_to_num(t1, nan=0.0))[None, :]
    viol = ((sr * s2 > 2 * s2 + 4 * math.sqrt(p0.W1.shape[-2]) * eps * W_max ** 2) & after).sum(0)
    return viol.numpy(), sr[-1].numpy()


def simplified_deviation(traj: Trajectory, X: Tensor, y: Tensor) -> np.ndarray:
    """Lemma 1's left-hand side at each snapshot, for the summed exponential loss on the balanced state.

    The max over neurons of ``‖d/dt(w_j/‖w_j‖) − sign(v_j) P_{w_j} x_a(w_j)‖ = ‖P_{w_j} Σ_i y_i
    expm1(−y_i f_i) 1[⟨x_i, w_j⟩ > 0] x_i‖``.  Under the flow from a balanced init ``|v_j| = ‖w_j‖``
    exactly, so this closed form avoids two artefacts of differentiating the integrated state: the
    integrator's O(rtol) loss of balance and the cancellation in ``e^{−yf} − 1`` at tiny ``f``.

    Parameters
    ----------
    traj : Trajectory
        ``T`` snapshots of ``R`` runs from a balanced initialisation.
    X, y : Tensor
        Data ``(n, D)`` and labels ``(n,)``.

    Returns
    -------
    ndarray
        ``(T, R)`` (1/time).
    """
    out = []
    for i in range(len(traj)):
        p = traj.at(i)
        f = forward(p, X)[..., 0]                                             # (R, n)
        c = y * torch.expm1(-y * f)                                           # −ℓ′ − y, (R, n)
        act = active(p.W1, X).transpose(-1, -2).to(X.dtype)                   # (R, n, m)
        e = torch.einsum("rn,rnm,nd->rmd", c, act, X)                         # (R, m, D)
        d = project(p.W1, e)
        out.append(torch.linalg.vector_norm(d, dim=-1).amax(-1).numpy())
    return np.array(out)


def direction_deviation(traj: Trajectory, X: Tensor, y: Tensor) -> tuple[np.ndarray, np.ndarray]:
    """Lemma 4's left-hand side for any ``|v_j|/‖w_j‖``, and ``max_i |f(x_i)|``, at each snapshot.

    For the summed exponential loss ``d/dt w_j = v_j Σ_i y_i e^{−y_i f_i} 1[⟨x_i, w_j⟩ > 0] x_i``, so
    ``d/dt(w_j/‖w_j‖) − sign(v_j) P x_a = sign(v_j) P[(r_j − 1) g_j + Σ_i y_i expm1(−y_i f_i) 1[·] x_i]`` with
    ``r_j = |v_j|/‖w_j‖`` and ``g_j = Σ_i y_i e^{−y_i f_i} 1[·] x_i`` (``r_j = 1``: :func:`simplified_deviation`).
    ``r_j`` is read from the flow's invariant ``v_j² − ‖w_j‖² = c_j`` of the first snapshot,
    ``r_j = √(‖w_j‖² + c_j)/‖w_j‖``, not from the integrated ``v_j``, whose O(rtol) drift would otherwise
    dominate the error of a balanced run (``c_j = 0``); ``|c_j| ≤ 10⁻¹² ‖w_j(0)‖²`` is the rounding of
    ``v_j = ‖w_j‖`` and counts as 0 (at ``ε = 10⁻²⁴`` the lemma's error is ``∝ |f| ≈ 10⁻⁴⁸``, far below it).

    Parameters
    ----------
    traj : Trajectory
        ``T`` snapshots of ``R`` runs.
    X, y : Tensor
        Data ``(n, D)`` and labels ``(n,)``.

    Returns
    -------
    (ndarray, ndarray)
        The max over neurons of the deviation ``(T, R)`` (1/time) and ``max_i |f(x_i)|`` ``(T, R)``.
    """
    dev, fmax = [], []
    p0 = traj.at(0)
    sq0 = (p0.W1 ** 2).sum(-1)
    c = p0.a ** 2 - sq0                                                        # (R, m), conserved by the flow
    c = torch.where(c.abs() <= 1e-12 * sq0, torch.zeros_like(c), c)            # v_j = ‖w_j‖ up to rounding
    for i in range(len(traj)):
        p = traj.at(i)
        f = forward(p, X)[..., 0]                                             # (R, n)
        act = active(p.W1, X).transpose(-1, -2).to(X.dtype)                   # (R, n, m)
        em1 = torch.einsum("rn,rnm,nd->rmd", y * torch.expm1(-y * f), act, X)
        g = torch.einsum("rn,rnm,nd->rmd", y * torch.exp(-y * f), act, X)
        sq = (p.W1 ** 2).sum(-1)
        r = torch.where(sq > 0, ((sq + c).clamp_min(0) / sq.clamp_min(torch.finfo(X.dtype).tiny)).sqrt(),
                        torch.ones_like(sq))
        d = project(p.W1, (r - 1).unsqueeze(-1) * g + em1)
        dev.append(torch.linalg.vector_norm(d, dim=-1).amax(-1).numpy())
        fmax.append(f.abs().amax(-1).numpy())
    return np.array(dev), np.array(fmax)


def growth_outside_s_plus(X: Tensor, y: Tensor, traj: Trajectory) -> tuple[np.ndarray, np.ndarray]:
    """Figs 7–9 at the end of a run: stragglers outside ``S₊`` and how large they grew.

    Parameters
    ----------
    X, y : Tensor
        Data ``(n, 2)`` and labels ``(n,)``.
    traj : Trajectory
        ``T`` snapshots of ``R`` runs.

    Returns
    -------
    (ndarray, ndarray)
        Among the live ``V₊`` neurons (``a_j > 0``, not dead): the share outside ``S₊`` and the largest
        norm outside ``S₊`` over the largest inside, ``(R,)`` each; the ratio is ``NaN`` where no live
        neuron is outside ``S₊`` (nothing to compare: undefined, not 0).
    """
    fin = traj.final
    c = cone_membership(fin.W1, X, y)
    live = (fin.a > 0) & ~c["S_dead"]
    nrm = fin.norms_in()
    big_in = torch.where(live & c["S_plus"], nrm, torch.zeros_like(nrm)).amax(-1)
    big_out = torch.where(live & ~c["S_plus"], nrm, torch.zeros_like(nrm)).amax(-1)
    share = ((live & ~c["S_plus"]).sum(-1) / live.sum(-1).clamp_min(1)).numpy()
    ratio = torch.where((live & ~c["S_plus"]).any(-1), big_out / big_in, torch.full_like(big_in, torch.nan))
    return share, ratio.numpy()


def class_alignment(traj: Trajectory, X: Tensor, y: Tensor) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Fig 5's alignment panels for one run.

    For ``side`` in ``"+"``, ``"-"``: the cosine of the mean neuron ``w̄± = mean_{j∈V±(t)} w_j`` with
    ``x± = Σ_{y_i=±1} x_i``, and the min and max of ``cos(w_j, x±)`` over ``V±(t)`` (``V±(t)`` from
    ``sign v_j(t)``).

    Parameters
    ----------
    traj : Trajectory
        One run, ``W1`` of shape ``(T, m, D)``.
    X, y : Tensor
        Data ``(n, D)`` and labels ``(n,)``.

    Returns
    -------
    dict
        ``{"+": (mean, lo, hi), "-": (mean, lo, hi)}``, each ``(T,)``.
    """
    out = {}
    W, a = traj.params.W1, traj.params.a                                      # (T, m, D), (T, m)
    for side, sgn in (("+", 1), ("-", -1)):
        xs = X[y == sgn].sum(0)
        c = cosine(W, xs)
        mask = torch.sign(a) == sgn
        mean_w = (W * mask.unsqueeze(-1)).sum(-2) / mask.sum(-1, keepdim=True).clamp_min(1)
        out[side] = (cosine(mean_w, xs).numpy(), torch.where(mask, c, torch.inf).amin(-1).numpy(),
                     torch.where(mask, c, -torch.inf).amax(-1).numpy())
    return out


def two_phase_ratio(norm_change: np.ndarray, direction_change: np.ndarray) -> tuple[int, float]:
    """Figs 12/13: where the direction change peaks, and the norm change there.

    Parameters
    ----------
    norm_change, direction_change : ndarray
        Per snapshot, ``(T,)`` (from :func:`norm_and_direction_change`).

    Returns
    -------
    (int, float)
        The snapshot ``i ≥ 1`` of the peak direction change and ``|norm_change[i]|`` over the largest
        ``|norm_change|`` of the run.
    """
    i = int(np.argmax(direction_change[1:])) + 1
    return i, float(np.abs(norm_change[i]) / np.abs(norm_change[1:]).max())


def mnist_summary(X: Tensor, y: Tensor, traj: Trajectory) -> dict[str, float]:
    """The MNIST measurements of one run (one network).

    Parameters
    ----------
    X, y : Tensor
        Centred images ``(n, 784)`` and labels ``(n,)``.
    traj : Trajectory
        One run; ``steps`` are GD iterations.

    Returns
    -------
    dict of str to float
        ``consistent_pairs`` — share of pairs with ``y_i y_j ⟨x_i, x_j⟩ > 0``; ``k_align`` — first
        iteration where both mean neurons have cosine > 0.95 with their class sum; ``k_drop`` — first
        iteration where the loss < 0.9·L(0); ``align_drop`` — peak minus final mean cosine (the larger of
        the two classes); ``final_stable_rank``; ``final_loss``.
    """
    bands = class_alignment(traj, X, y)
    both = np.minimum(bands["+"][0], bands["-"][0])
    L = traj.loss.numpy()
    G = X @ X.T
    return dict(consistent_pairs=float(((G * (y[:, None] * y[None, :])) > 0).float().mean()),
                k_align=first_crossing(traj.steps, -both, -0.95), k_drop=first_crossing(traj.steps, L, 0.9 * L[0]),
                align_drop=max(bands[s][0].max() - bands[s][0][-1] for s in "+-"),
                final_stable_rank=stable_rank(traj.final.W1)[0].item(), final_loss=L[-1])
