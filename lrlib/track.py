"""Measurements of a network's first layer and of a trajectory's parameters: the stable rank,
pairwise cosines of the neurons, how far the largest neurons turned, and the drift of the
balancedness ``|a_j|² − ‖w_j‖²``. Series and vector measurements (first crossings, drop times,
cosines, activation masks, line fits) are :mod:`lrlib.measure`'s."""

from __future__ import annotations

import numpy as np
import torch

from .measure import cosine
from .models import TwoLayer
from .trajectory import Trajectory

Tensor = torch.Tensor


def cosine_similarity_matrix(vectors: Tensor) -> Tensor:
    """Pairwise cosines of per-neuron vectors.

    Parameters
    ----------
    vectors : Tensor
        ``(…, m, D)``, one vector per neuron (a zero vector gives cosine 0).

    Returns
    -------
    Tensor
        ``(…, m, m)``.
    """
    v = vectors / torch.linalg.vector_norm(vectors, dim=-1, keepdim=True).clamp_min(torch.finfo(vectors.dtype).tiny)
    return v @ v.transpose(-1, -2)


def stable_rank(W: Tensor) -> tuple[Tensor, Tensor]:
    """The stable rank ``‖W‖_F² / ‖W‖_2²`` and the squared spectral norm.

    Parameters
    ----------
    W : Tensor
        Matrices ``(…, m, d)``.

    Returns
    -------
    stable_rank : Tensor
        ``‖W‖_F² / ‖W‖_2²`` ``(…)``.
    spectral2 : Tensor
        ``‖W‖_2²`` ``(…)``.
    """
    s = torch.linalg.svdvals(W)
    spec2 = s[..., 0] ** 2
    return (s ** 2).sum(-1) / spec2.clamp_min(torch.finfo(W.dtype).tiny), spec2


def max_direction_change(p_from: TwoLayer, p_to: TwoLayer, top: int = 10) -> float:
    """Largest angle between the incoming vectors at two times, over the largest neurons (one run).

    Parameters
    ----------
    p_from, p_to : TwoLayer
        The network of one run at the earlier and the later time.
    top : int
        How many neurons of largest incoming norm at ``p_to`` count.

    Returns
    -------
    float
        The angle in degrees.
    """
    w0, w1 = p_from.incoming(), p_to.incoming()
    big = torch.topk(torch.linalg.vector_norm(w1, dim=-1), min(top, w1.shape[-2])).indices
    return float(torch.rad2deg(torch.arccos(cosine(w0[big], w1[big]).clamp(-1, 1))).max())


def balancedness_drift(traj: Trajectory, relative_to: str = "final") -> Tensor:
    """Drift of the balance ``a_j² − ‖w_j‖²`` (scalar output), per run ``(R...)``.

    ``relative_to="final"``: ``max_t max_j |a_j² − ‖w_j‖²|`` over ``max_j ‖w_j‖²`` at the end of the
    run; ``"current"``: ``max_t`` of ``max_j |a_j² − ‖w_j(t)‖²| / max_j ‖w_j(t)‖²`` (scale-free at every
    time, so it also sees the drift while the norms are tiny).  Gradient flow conserves
    ``a_j² − ‖w_j‖²``; GD with step ``η`` changes it by ``O(η²)`` per step.

    Parameters
    ----------
    traj : Trajectory
        A scalar-output run, parameters ``(T, R..., …)``.
    relative_to : str
        ``"final"`` or ``"current"``, the normalisation above.

    Returns
    -------
    Tensor
        ``(R...)``, dimensionless.

    Raises
    ------
    ValueError
        When ``relative_to`` is neither.
    """
    P = traj.params
    dev = (P.a ** 2 - P.norms_in() ** 2).abs().amax(-1)                      # (T, R...)
    if relative_to == "current":
        return (dev / (P.norms_in() ** 2).amax(-1)).amax(0)
    if relative_to != "final":
        raise ValueError(f"relative_to must be 'final' or 'current', got {relative_to!r}")
    return dev.amax(0) / (traj.final.norms_in() ** 2).amax(-1)
