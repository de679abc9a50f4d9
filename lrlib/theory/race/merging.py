"""Pinson (2026), §4.5 and §5: merging mutually aligned neurons.  By 2-homogeneity, neurons with
parallel total vectors θ_α = [w1_α, b_α, w2_α] are one neuron of norm √(Σ‖θ‖²).

Conventions: ``p``, ``X``, ``y`` as in :mod:`.neuron`; every function but :func:`theta` takes a
single network (no run dims, ``W1 (m, D)``, ``b1 (m,)``, ``W2 (2, m)``, ``b2 (2,)``; float64 for the
identities)."""

from __future__ import annotations

import math

import torch

from ...errors import ParameterError
from ...losses import Loss
from ...models import TwoLayer, forward
from ...track import cosine_similarity_matrix

Tensor = torch.Tensor

def theta(p: TwoLayer) -> Tensor:
    """Total parameter vectors θ_α = [w1_α, b_α, w2_α], ``(B..., m, D+3)``.

    Parameters
    ----------
    p : TwoLayer
        Network(s) (conventions of :mod:`.neuron`); ``b2`` is not part of θ.

    Returns
    -------
    Tensor
        ``(B..., m, D+3)``.
    """
    return p.neuron_vectors()


def _from_theta(p: TwoLayer, new: Tensor) -> TwoLayer:
    """The single network with total vectors ``new (m', D+3)`` (rows as in :func:`theta`), ``b2`` and
    activation of ``p``."""
    D = p.in_dim
    return TwoLayer(W1=new[:, :D], b1=new[:, D], W2=new[:, D + 1:].T.contiguous(), b2=p.b2, act=p.act)


def merge_groups(p: TwoLayer, threshold: float = 0.999) -> Tensor:
    """Greedy grouping of one network's neurons (§4.5): in decreasing ‖θ‖, each unassigned neuron
    leads a group with every unassigned neuron whose θ has cosine ≥ ``threshold`` with its own.
    Returns the group label of each neuron ``(m,)`` (label = index of the leader).

    Parameters
    ----------
    p : TwoLayer
        A single network (conventions of :mod:`.neuron`); θ is compared in float64.
    threshold : float
        Cosine at or above which two θ join a group.

    Returns
    -------
    Tensor
        ``(m,)`` int64 group labels.
    """
    if p.runs:
        raise ParameterError("merge_groups takes a single network (no run dimensions)")
    th = theta(p).to(torch.float64)
    C = cosine_similarity_matrix(th)                                      # (m, m), by one matmul
    order = torch.argsort(torch.linalg.vector_norm(th, dim=-1), descending=True)
    label = torch.full((th.shape[0],), -1, dtype=torch.long)
    for i in order.tolist():
        if label[i] >= 0:
            continue
        label[(label < 0) & (C[i] >= threshold)] = i
        label[i] = i
    return label


MERGE_DIRECTIONS = ("weighted", "leader")


def merge(p: TwoLayer, threshold: float = 0.999, direction: str = "weighted") -> tuple[TwoLayer, int]:
    """Merge each group of :func:`merge_groups` into one neuron of norm √(Σ‖θ‖²) (the paper's
    effective norm, §4.5).  Its direction (the paper defines the merge only for exactly parallel
    θ, where every choice agrees):

    ``"weighted"`` — the ‖θ‖²-weighted mean of the members' unit vectors, i.e. the direction of
    Σ ‖θ_β‖ θ_β.  A neuron θ = n u computes n² f_u (2-homogeneity), so the group computes
    Σ n_β² f_{u_β} = (Σ n_β²) f_ū + O(spread²): this direction keeps the group's function to
    first order in the members' angular spread.
    ``"leader"`` — the direction of the group's largest member (first order off by the
    members' mean deviation from it).

    Exact for parallel θ (2-homogeneity).  Returns the merged network and its number of neurons.

    Parameters
    ----------
    p : TwoLayer
        A single network (conventions of :mod:`.neuron`); ``b2`` and the activation carry over.
    threshold : float
        Cosine threshold of :func:`merge_groups`.
    direction : str
        ``"weighted"`` or ``"leader"``.

    Returns
    -------
    merged : TwoLayer
        One network with one neuron per group.
    groups : int
        Its number of neurons.
    """
    if direction not in MERGE_DIRECTIONS:
        raise ParameterError(f"merge: direction must be one of {MERGE_DIRECTIONS}, got {direction!r}")
    label = merge_groups(p, threshold)
    leaders = torch.unique(label)
    th = theta(p)
    nrm = torch.linalg.vector_norm(th, dim=-1)
    sq = torch.zeros(th.shape[0], dtype=th.dtype).index_add_(0, label, nrm ** 2)
    if direction == "leader":
        dirs = th[leaders]
    else:
        dirs = torch.zeros_like(th).index_add_(0, label, nrm.unsqueeze(-1) * th)[leaders]
    new = dirs / torch.linalg.vector_norm(dirs, dim=-1, keepdim=True) * sq[leaders].sqrt().unsqueeze(-1)
    q = _from_theta(p, new)
    return q, int(leaders.numel())


def split_neuron(p: TwoLayer, alpha: int, c: float) -> TwoLayer:
    """Replace neuron ``alpha`` by two parallel copies ``c θ`` and ``√(1−c²) θ`` (same function).

    Parameters
    ----------
    p : TwoLayer
        A single network (conventions of :mod:`.neuron`); the copies keep ``b2`` and the activation.
    alpha : int
        Index of the neuron.
    c : float
        Share of the first copy, in (0, 1).

    Returns
    -------
    TwoLayer
        ``m + 1`` neurons, the same function.
    """
    th = theta(p)
    new = torch.cat([th, th[alpha:alpha + 1] * math.sqrt(1 - c * c)], 0)
    new[alpha] = th[alpha] * c
    return _from_theta(p, new)


def split_all(p: TwoLayer, c: float = 0.6) -> TwoLayer:
    """Every neuron of a single network replaced by two parallel copies ``c θ`` and ``√(1−c²) θ``
    (the same function, with 2m neurons that merge back exactly).

    Parameters
    ----------
    p : TwoLayer
        A single network (conventions of :mod:`.neuron`); run dims raise
        :class:`~lrlib.errors.ParameterError`.
    c : float
        Share of the first copy of each neuron, in (0, 1).

    Returns
    -------
    TwoLayer
        ``2m`` neurons, the same function.
    """
    if p.runs or not 0 < c < 1:
        raise ParameterError("split_all takes a single network and 0 < c < 1")
    th = theta(p)
    new = torch.cat([th * c, th * math.sqrt(1 - c * c)], 0)
    return _from_theta(p, new)


def merge_rows(p: TwoLayer, X: Tensor, y: Tensor, loss: Loss,
               thresholds: tuple[float, ...] = (0.99, 0.999, 0.9999), direction: str = "weighted",
               **tags) -> list[dict]:
    """Merge one network ``p`` (no run dims) at each cosine threshold (:func:`merge`) and measure it on
    ``X (N, D)``, ``y (N,)``: one row per threshold with ``tags`` first, then ``threshold``, ``groups``
    (neurons left) and ``rel_loss_change`` ``(L_merged − L) / L`` of the mean ``loss``; ``direction`` as
    in :func:`merge`.

    Parameters
    ----------
    p : TwoLayer
        One network, measured before and after each merge.
    X, y : Tensor
        Its inputs ``(N, D)`` and labels ``(N,)`` (conventions of :mod:`.neuron`).
    loss : Loss
        The loss measured before and after merging.
    thresholds : sequence of float
        Cosine thresholds.
    direction : str
        As in :func:`merge`.
    tags : keyword arguments
        Columns put first in every row (e.g. ``setting=1, seed=0``).

    Returns
    -------
    list of dict
        One row per threshold.
    """
    L0 = loss(forward(p, X), y).item()
    return [dict(**tags, threshold=thr, groups=n_g, rel_loss_change=(loss(forward(q, X), y).item() - L0) / L0)
            for thr in thresholds for q, n_g in [merge(p, thr, direction)]]
