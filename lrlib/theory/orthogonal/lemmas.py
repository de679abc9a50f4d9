"""The lemma checks of the orthogonal chapter (Boursier et al. 2022) on trajectories: Assumption 3's sets at
initialisation, Lemma 6's shrinking activations, Lemma 2's early phase, the no-collapse margin, the alignment of the
fitted neurons, and the measurements of the runs that stay stuck. Conventions: as in :mod:`.phases`.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from ...errors import ParameterError
from ...models import TwoLayer
from ...measure import active, cosine
from ...trajectory import Trajectory
from .core import alignment_directions, key_vectors, phase_times, s_sets

Tensor = torch.Tensor


def assumption3_counts(p: TwoLayer, X: Tensor, y: Tensor) -> tuple[Tensor, Tensor]:
    """The sizes ``(|S_{+,1}|, |S_{−,1}|)`` of Assumption 3's sets at the network ``p`` (its init).

    Parameters
    ----------
    p : TwoLayer
        Runs ``(R...)``.
    X, y : Tensor
        The data (module conventions) on which the sets are read.

    Returns
    -------
    s_plus, s_minus : Tensor
        ``(R...)`` counts.
    """
    Sp, Sm = s_sets(p, X, y)
    return Sp.sum(-1), Sm.sum(-1)


def inactive_violations(traj: Trajectory, X: Tensor) -> Tensor:
    """Lemma 6 check: the number of (snapshot, neuron, point) where ``⟨w_j, x_k⟩ ≤ 0`` at one snapshot and
    differs (bitwise) at the next.

    Parameters
    ----------
    traj : Trajectory
        Runs ``(R...)``.
    X : Tensor
        ``(n, d)`` inputs (or ``(R..., n, d)``).

    Returns
    -------
    Tensor
        ``(R...)`` counts.
    """
    pre = X @ traj.params.W1.transpose(-1, -2)                     # (T, R..., n, m)
    bad = (pre[:-1] <= 0) & (pre[1:] != pre[:-1])
    return bad.flatten(-2).sum(-1).sum(0)


def lemma2_holds(traj: Trajectory, X: Tensor, y: Tensor, lams: Tensor, dt: float, eps: float = 0.1,
                 lam_max: float = 1e-8) -> dict[str, np.ndarray]:
    """Lemma 2 (App. Lemmas 7–8) on a λ-sweep, per row, at every ``λ ≤ lam_max`` and on both sides, at
    ``t_{±1}`` (last snapshot at or before it).

    * ``bounds``: the ``S_{±,1}`` neurons have ``cos(w_j, ±D_±) ≥ 1 − 2λ^ε`` and every neuron
      ``‖w_j‖ ≤ 2cλ^{1−ε}`` (``+``) or ``2cλ^{1−rε}`` (``−``), with ``c = max_j ‖w_j(0)‖/λ``;
    * ``deactivated``: every ``S_{+,1}`` neuron is inactive (``⟨w_j, x_k⟩ ≤ 0``) on every negative-label
      input at ``t_{+1}``, and every ``S_{−,1}`` neuron on every positive-label input at ``t_{−1}``.

    Parameters
    ----------
    traj : Trajectory
        The λ-sweep, on the data ``X, y`` with the scales ``lams`` (module conventions).
    X, y, lams : Tensor
    dt : float
        The GD step (paper time per step), to find the snapshot of ``t_{±1}``.
    eps, lam_max : float
        The lemma's ε; the largest λ checked (the statement is asymptotic).

    Returns
    -------
    dict
        ``{"bounds": (rows,) bool, "deactivated": (rows,) bool}``.
    """
    kv = key_vectors(X, y)
    up, um = alignment_directions(kv)
    p0 = traj.at(0)
    Sp, Sm = s_sets(p0, X, y)
    c = (p0.norms_in() / lams.view(1, -1, 1)).amax(-1)                   # (rows, lams)
    bounds = np.ones(traj.runs[0], dtype=bool)
    deact = np.ones(traj.runs[0], dtype=bool)
    for li, lam in enumerate(lams.tolist()):
        if lam > lam_max:
            continue
        pt = phase_times(kv, lam, eps)
        for t_side, mask, u, expo, other in ((pt.t_plus1, Sp, up, 1 - eps, y < 0),
                                             (pt.t_minus1, Sm, um, 1 - kv.r * eps, y > 0)):
            p_i = traj.at(traj.index_of_step(int(round(t_side / dt))))
            cos_min = min_alignment(p_i, mask, u)[:, li]
            nmax = p_i.norms_in()[:, li].amax(-1)
            bounds &= ((cos_min >= 1 - 2 * lam ** eps) & (nmax <= 2 * c[:, li] * lam ** expo)).numpy()
            pre = (X @ p_i.W1.transpose(-1, -2))[:, li][:, other, :]        # (rows, points, m)
            deact &= ~((pre > 0) & mask[:, li].unsqueeze(-2)).any(-1).any(-1).numpy()
    return {"bounds": bounds, "deactivated": deact}


def no_collapse_margin(traj: Trajectory, X: Tensor, y: Tensor, lams: Tensor, eps: float = 0.1,
                       lam_max: float = 1e-8, flip: bool = False) -> np.ndarray:
    """App. Lemma 9 on a λ-sweep: the smallest ratio of a neuron's norm to the lemma's lower bound.

    ``‖w_j(t)‖ / (c̲ λ^{1+ε}/2)`` over ``j ∈ S_{+,1}`` and snapshots ``t ≤ t_{+1}``, and
    ``‖w_j(t)‖ / (c̲ λ^{1+rε}/2)`` over ``j ∈ S_{−,1}``, ``t ≤ t_{−1}``, over ``λ ≤ lam_max``, with
    ``c̲ = min_j ‖w_j(0)‖/λ``. The lemma says it is > 1.

    Parameters
    ----------
    traj : Trajectory
        The λ-sweep, on the data ``X, y`` with the scales ``lams`` (module conventions).
    X, y, lams : Tensor
    eps, lam_max : float
        The lemma's ε; the largest λ checked.
    flip : bool
        Use the exponents ``1 − ε`` and ``1 − rε`` instead (a perturbed bound, for a control).

    Returns
    -------
    ndarray
        ``(rows,)``.
    """
    kv = key_vectors(X, y)
    p0 = traj.at(0)
    Sp, Sm = s_sets(p0, X, y)
    c_low = (p0.norms_in() / lams.view(1, -1, 1)).amin(-1)                   # (rows, lams)
    norms = traj.params.norms_in()                                           # (T, rows, lams, m)
    sgn = -1.0 if flip else 1.0
    out = np.full(traj.runs[0], np.inf)
    for li, lam in enumerate(lams.tolist()):
        if lam > lam_max:
            continue
        pt = phase_times(kv, lam, eps)
        for t_side, mask, expo in ((pt.t_plus1, Sp, 1 + sgn * eps), (pt.t_minus1, Sm, 1 + sgn * kv.r * eps)):
            upto = traj.time <= t_side
            nrm = torch.where(mask[:, li], norms[upto][:, :, li], torch.full_like(norms[upto][:, :, li], math.inf))
            bound = c_low[:, li] * lam ** expo / 2
            out = np.minimum(out, (nrm.amin(-1).amin(0) / bound).numpy())
    return out


def min_alignment(p: TwoLayer, mask: Tensor, direction: Tensor) -> Tensor:
    """The worst alignment ``min_{j ∈ mask} cos(w_j, direction)`` per run (``+1`` for an empty mask).

    Parameters
    ----------
    p : TwoLayer
        Networks, runs ``(R...)`` (or ``(T, R...)``).
    mask : Tensor
        ``(R..., m)`` boolean neuron mask.
    direction : Tensor
        ``(d,)`` target direction.

    Returns
    -------
    Tensor
        ``(R...)`` cosines.
    """
    c = cosine(p.W1, direction)
    return torch.where(mask, c, torch.ones_like(c)).min(-1).values


def uncovered_floor(p0: TwoLayer, X: Tensor, y: Tensor) -> Tensor:
    """The loss floor ``(1/2n) Σ_{k uncovered} y_k²`` set by the labels no neuron can fit.

    A label is covered when some neuron of its sign is active on its input at initialisation; on
    orthogonal inputs (Lemma 6) an uncovered label is never fitted.

    Parameters
    ----------
    p0 : TwoLayer
        Initial networks, runs ``(R...)``.
    X, y : Tensor
        The data (module conventions) whose uncovered labels set the floor.

    Returns
    -------
    Tensor
        ``(R...)`` paper units (½-mean loss).
    """
    act = active(p0.W1, X).transpose(-1, -2)                                  # (R..., n, m)
    sgn = torch.sign(p0.a).unsqueeze(-2)                                      # (R..., 1, m)
    covered = torch.where(y.view(-1, 1) > 0, (act & (sgn > 0)).any(-1, keepdim=True),
                          (act & (sgn < 0)).any(-1, keepdim=True))[..., 0]    # (R..., n)
    return ((~covered) * y ** 2).sum(-1) / (2 * X.shape[0])


def stuck_measures(p0: TwoLayer, final: Tensor, X: Tensor, y: Tensor, groups: int) -> dict[str, Tensor]:
    """The Assumption-3 demonstration's measurements, for draws split into consecutive groups (one per seed).

    Parameters
    ----------
    p0 : TwoLayer
        Initial networks, runs ``(groups·k,)``.
    final : Tensor
        ``(groups·k,)`` final losses (paper units).
    X, y : Tensor
        The data (module conventions) of every draw.
    groups : int
        Number of groups.

    Returns
    -------
    dict
        ``match`` ``(groups,)``: whether every final loss lies within 0.1 % of its
        :func:`uncovered_floor` (or below 1e-10 when the floor is 0); ``n_stuck`` ``(groups,)``: how many
        draws that violate Assumption 3 end above 1e-6.

    Raises
    ------
    ParameterError
        If the draws cannot be split into ``groups`` equal groups.
    """
    if final.numel() % groups:
        raise ParameterError(f"{final.numel()} draws cannot be split into {groups} equal groups")
    floor = uncovered_floor(p0, X, y)
    match = torch.where(floor > 0, (final / floor - 1).abs() < 1e-3, final < 1e-10)
    Sp, Sm = s_sets(p0, X, y)
    viol = ~(Sp.any(-1) & Sm.any(-1))
    return dict(match=match.reshape(groups, -1).all(-1), n_stuck=(viol & (final > 1e-6)).reshape(groups, -1).sum(-1))


__all__ = ["assumption3_counts", "inactive_violations", "lemma2_holds", "min_alignment", "no_collapse_margin", "stuck_measures", "uncovered_floor"]
