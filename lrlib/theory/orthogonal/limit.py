"""Where the orthogonal chapter's runs end (Boursier et al. 2022): the F1 cost and its excess over the minimal
norm, the distance to the limit function, the two clusters and the kinks (Theorem 1), and the lazy regime's
movement and kernel (NTK) interpolator. Conventions: as in :mod:`.phases`.
"""

from __future__ import annotations

import numpy as np
import torch

from ...errors import ParameterError
from ...models import TwoLayer, forward
from ...measure import cosine, decreasing
from ...trajectory import Trajectory
from .core import limit_directions, limit_function, min_norm_squared

Tensor = torch.Tensor


def f1_cost(p: TwoLayer) -> Tensor:
    """The F1 (path) cost ``Σ_j |a_j| ‖w_j‖`` per run (scalar output).

    Parameters
    ----------
    p : TwoLayer
        Networks, runs ``(R...)``.

    Returns
    -------
    Tensor
        ``(R...)``.
    """
    return (p.a.abs() * p.norms_in()).sum(-1)


def excess_norm(p: TwoLayer, X: Tensor, y: Tensor) -> Tensor:
    """The relative excess of ``‖θ‖² = Σ_j a_j² + ‖w_j‖²`` over :func:`min_norm_squared`.

    Parameters
    ----------
    p : TwoLayer
        Networks, runs ``(R...)``.
    X, y : Tensor
        The data (module conventions) of the formula's minimal norm.

    Returns
    -------
    Tensor
        ``(R...)`` dimensionless.
    """
    target = min_norm_squared(X, y)
    return ((p.W1 ** 2).sum((-1, -2)) + (p.W2 ** 2).sum((-1, -2)) - target) / target


def function_gap(p: TwoLayer, X: Tensor, y: Tensor, Z: Tensor) -> Tensor:
    """The sup distance ``max_z |h_θ(z) − h*(z)|`` to the limit function (:func:`limit_function`).

    Parameters
    ----------
    p : TwoLayer
        Networks, runs ``(R...)``.
    X, y : Tensor
        The data (module conventions) of the limit ``h*``.
    Z : Tensor
        ``(N, d)`` test inputs.

    Returns
    -------
    Tensor
        ``(R...)``.
    """
    return (forward(p, Z)[..., 0] - limit_function(X, y, Z)).abs().amax(-1)


def two_clusters(p: TwoLayer, X: Tensor, y: Tensor, rel: float = 1e-3, cos_min: float = 0.999
                 ) -> tuple[Tensor, Tensor]:
    """Whether the network has the two clusters of Theorem 1's limit.

    Every neuron with ``‖w_j‖ > rel·max_j ‖w_j‖`` must have cosine ``> cos_min`` with one of the two
    limit directions (:func:`limit_directions`).

    Parameters
    ----------
    p : TwoLayer
        Networks, runs ``(R...)``.
    X, y : Tensor
        The data (module conventions) that fix the two limit directions.
    rel : float
        Norm threshold, relative to the largest neuron.
    cos_min : float
        Cosine threshold.

    Returns
    -------
    clustered : Tensor
        ``(R...)`` bool.
    outside : Tensor
        ``(R...)`` the share of ``‖θ‖²`` carried by the neurons outside the clusters.
    """
    u_plus, u_minus = limit_directions(X, y)
    norms = p.norms_in()
    big = norms > rel * norms.amax(-1, keepdim=True)
    best = torch.maximum(cosine(p.W1, u_plus), cosine(p.W1, u_minus))
    clustered = torch.where(big, best > cos_min, torch.ones_like(big)).all(-1)
    mass = (p.W1 ** 2).sum(-1) + p.a ** 2
    outside = torch.where(best > cos_min, torch.zeros_like(mass), mass).sum(-1) / mass.sum(-1)
    return clustered, outside


def kink_clusters(p: TwoLayer, rel: float = 1e-2, merge: float = 0.05) -> tuple[int, np.ndarray]:
    """The number of kink clusters of a 1-D network with a bias coordinate.

    Kinks ``−w_{j,2}/w_{j,1}`` of the neurons with ``‖w_j‖ > rel·max‖w_j‖``, closer than ``merge``
    merged.

    Parameters
    ----------
    p : TwoLayer
        One run, ``W1 (m, 2)``.
    rel : float
        Norm threshold, relative to the largest neuron.
    merge : float
        Kinks closer than this are one cluster.

    Returns
    -------
    count : int
    kinks : ndarray
        The sorted kinks.
    """
    if p.W1.dim() != 2 or p.W1.shape[-1] != 2:
        raise ParameterError("kink_clusters expects one run of 1-D inputs with a bias coordinate (W1 of shape (m, 2))")
    norms = p.norms_in()
    big = norms > rel * norms.max()
    kinks = np.sort((-p.W1[:, 1] / p.W1[:, 0])[big].numpy())
    return (1 + int((np.diff(kinks) > merge).sum()) if kinks.size else 0), kinks


def thm1_measures(p: TwoLayer, X: Tensor, y: Tensor, Z: Tensor, final_loss: Tensor) -> dict[str, np.ndarray]:
    """Theorem 1's measurements on a λ-sweep's final networks (the quantities of ``thm1.zero-loss``,
    ``thm1.min-norm`` and ``thm1.function-limit``).

    Parameters
    ----------
    p : TwoLayer
        Final networks, runs ``(rows, K)`` with λ decreasing along the K axis.
    X, y : Tensor
        Orthogonal inputs ``(n, d)`` and labels ``(n,)`` (the formulas' data).
    Z : Tensor
        ``(N, d)`` test inputs for the function gap.
    final_loss : Tensor
        ``(rows, K)`` final losses (½-mean, paper units).

    Returns
    -------
    dict
        Arrays ``(rows,)``: ``final_max`` (largest final loss over λ), ``excess_min``, ``excess_mono``,
        ``excess_last`` (:func:`excess_norm`: its minimum over λ, 1 if it decreases strictly as λ
        decreases, its value at the smallest λ) and ``gap_mono``, ``gap_last`` (:func:`function_gap`:
        1 if it does not increase as λ decreases, its value at the smallest λ).
    """
    ex = excess_norm(p, X, y).numpy()
    gap = function_gap(p, X, y, Z).numpy()
    return dict(final_max=final_loss.amax(-1).numpy(), excess_min=ex.min(-1), excess_mono=decreasing(ex).astype(float),
                excess_last=ex[:, -1], gap_mono=decreasing(gap, strict=False).astype(float), gap_last=gap[:, -1])


def movement(traj: Trajectory) -> Tensor:
    """The relative movement ``‖θ_T − θ_0‖ / ‖θ_0‖`` over all parameters (the lazy-regime diagnostic).

    Parameters
    ----------
    traj : Trajectory
        Runs ``(R...)``.

    Returns
    -------
    Tensor
        ``(R...)``.
    """
    runs = traj.runs
    d0 = torch.cat([t[0].reshape(*runs, -1) for t in traj.params], -1)
    d1 = torch.cat([t[-1].reshape(*runs, -1) for t in traj.params], -1)
    return torch.linalg.vector_norm(d1 - d0, dim=-1) / torch.linalg.vector_norm(d0, dim=-1)


def tangent_features(p: TwoLayer, inp: Tensor) -> Tensor:
    """The Jacobian of a scalar-output network's outputs in its parameters ``(W1, W2)``: one row of
    tangent features per input (the tangent kernel is ``J Jᵀ``).

    Parameters
    ----------
    p : TwoLayer
        One run (no run axes), scalar output, no biases.
    inp : Tensor
        ``(n, d)`` inputs.

    Returns
    -------
    Tensor
        ``(n, P)``, ``P`` the number of entries of ``W1`` and ``W2`` (in that order, row-major).
    """
    def f(W1: Tensor, W2: Tensor) -> Tensor:
        return forward(TwoLayer(W1=W1, W2=W2, act=p.act), inp)[:, 0]

    return torch.cat([j.reshape(inp.shape[0], -1) for j in torch.func.jacrev(f, argnums=(0, 1))(p.W1, p.W2)], 1)


def ntk_interpolator(p0: TwoLayer, X: Tensor, y: Tensor, Z: Tensor) -> Tensor:
    """The neural-tangent-kernel interpolator at an initialisation.

    The network linearised at ``p0`` and moved by the minimum-norm parameter change that interpolates
    ``(X, y)``: ``h0(z) + J(z) J(X)ᵀ (J(X) J(X)ᵀ)⁻¹ (y − h0(X))``, where gradient descent on the linearised
    model converges from ``p0``.

    Parameters
    ----------
    p0 : TwoLayer
        One run (no run axes), scalar output.
    X, y : Tensor
        The data (module conventions) to interpolate.
    Z : Tensor
        ``(N, d)`` where to evaluate it.

    Returns
    -------
    Tensor
        ``(N,)``.

    Raises
    ------
    ParameterError
        If ``p0`` has run axes.
    """
    if p0.runs:
        raise ParameterError("ntk_interpolator takes one run (no run axes)")

    JX, JZ = tangent_features(p0, X), tangent_features(p0, Z)
    coef = torch.linalg.solve(JX @ JX.T, y - forward(p0, X)[:, 0])
    return forward(p0, Z)[:, 0] + JZ @ (JX.T @ coef)


def ntk_gap(p: TwoLayer, h_ntk: Tensor, Z: Tensor, y: Tensor) -> np.ndarray:
    """The sup distance of the final function to the NTK interpolator, over the largest label.

    Parameters
    ----------
    p : TwoLayer
        Final networks, runs ``(R,)``.
    h_ntk : Tensor
        ``(R, N)`` each run's NTK interpolator on ``Z`` (:func:`ntk_interpolator`).
    Z : Tensor
        ``(N, d)`` the grid.
    y : Tensor
        ``(n,)`` the labels (for the scale ``max_k |y_k|``).

    Returns
    -------
    ndarray
        ``(R,)`` ``max_z |h_θ(z) − h_NTK(z)| / max_k |y_k|`` (dimensionless).
    """
    return ((forward(p, Z)[..., 0] - h_ntk).abs().amax(-1) / y.abs().max()).numpy()


__all__ = ["excess_norm", "f1_cost", "function_gap", "kink_clusters", "movement", "ntk_gap", "ntk_interpolator",
           "tangent_features", "thm1_measures", "two_clusters"]
