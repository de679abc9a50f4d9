"""Pinson (2026): the paper's data and initialisation — the XOR-like toy set (Fig. 9) and the
init of every experiment (all weights N(0, std²), biases 0)."""

from __future__ import annotations

import torch

from ...errors import ParameterError
from ...models import TwoLayer

Tensor = torch.Tensor

def centroid_directions(dtype: torch.dtype = torch.float32) -> Tensor:
    """Unit vectors of the toy's four cluster directions.

    Returns
    -------
    Tensor
        ``(4, 2)``: the directions at 45°, 135°, 225°, 315° (the order of :func:`xor_clusters`'s clusters).

    Parameters
    ----------
    dtype : torch.dtype
        Dtype of the result.
    """
    ang = torch.tensor([45.0, 135.0, 225.0, 315.0], dtype=torch.float64).deg2rad()
    return torch.stack([ang.cos(), ang.sin()], -1).to(dtype)


def xor_clusters(n_per_cluster: int, gen: torch.Generator, *, norms=(4.0, 3.0, 1.0, 2.0), std: float = 0.1,
                 dtype: torch.dtype = torch.float64) -> tuple[Tensor, Tensor]:
    """The XOR-like toy set (paper Fig. 9): four Gaussian clusters at 45°, 135°, 225°, 315° with
    centroid norms ``norms`` and labels 0, 1, 0, 1 (opposite clusters share a label, so the set is
    not linearly separable).  Returns ``X (4n, 2)``, ``y (4n,)`` int64, cluster index ``(4n,)``.

    Parameters
    ----------
    n_per_cluster : int
        Points per cluster (≥ 1).
    gen : torch.Generator
        The draw's generator.
    norms : sequence of float
        Centroid norms of the clusters at 45°, 135°, 225°, 315°.
    std : float
        Standard deviation of each cluster (isotropic).
    dtype : torch.dtype
        Dtype of ``X``.

    Returns
    -------
    X : Tensor
        ``(4n, 2)`` points.
    y : Tensor
        ``(4n,)`` int64 labels 0, 1, 0, 1 by cluster.
    cluster : Tensor
        ``(4n,)`` cluster index 0–3.
    """
    if n_per_cluster < 1 or len(norms) != 4:
        raise ParameterError("xor_clusters needs n_per_cluster ≥ 1 and four norms")
    ang = torch.tensor([45.0, 135.0, 225.0, 315.0], dtype=torch.float64).deg2rad()
    cen = torch.stack([ang.cos(), ang.sin()], -1) * torch.tensor(norms, dtype=torch.float64)[:, None]
    cl = torch.arange(4).repeat_interleave(n_per_cluster)
    X = cen[cl] + std * torch.randn(4 * n_per_cluster, 2, generator=gen, dtype=torch.float64)
    y = torch.tensor([0, 1, 0, 1])[cl]
    return X.to(dtype), y.long(), cl


def race_init(m: int, D: int, std: float | Tensor, gen: torch.Generator, *, runs: tuple[int, ...] = (),
              dtype: torch.dtype = torch.float32) -> TwoLayer:
    """The paper's init: every weight ``N(0, std²)``, both biases 0.  ``std`` may be a tensor
    broadcastable to ``runs`` (one scale per run).

    Parameters
    ----------
    m : int
        Hidden neurons.
    D : int
        Input dimension.
    std : float or Tensor
        Init scale; a tensor broadcastable to ``runs`` gives one scale per run.
    gen : torch.Generator
        The init's generator.
    runs : tuple of int
        Leading run dims ``R...``.
    dtype : torch.dtype
        Dtype of the tensors (drawn in float64, then cast).

    Returns
    -------
    TwoLayer
        ``W1 (R..., m, D)``, ``W2 (R..., 2, m)`` drawn N(0, std²); ``b1 (R..., m)``, ``b2 (R..., 2)`` zero.
    """
    s = torch.as_tensor(std, dtype=torch.float64)
    s = s.reshape(s.shape + (1, 1))
    W1 = s * torch.randn((*runs, m, D), generator=gen, dtype=torch.float64)
    W2 = s * torch.randn((*runs, 2, m), generator=gen, dtype=torch.float64)
    return TwoLayer(W1=W1.to(dtype), W2=W2.to(dtype), b1=torch.zeros((*runs, m), dtype=dtype),
                    b2=torch.zeros((*runs, 2), dtype=dtype))


def rebalanced(p: TwoLayer, factor: float | Tensor = 1.0) -> TwoLayer:
    """The same network with each neuron's norms set to ``‖w̃1‖ = factor · ‖w2‖`` (``w̃1 = [w1, b]``), keeping
    ``a = ‖w̃1‖‖w2‖`` and, by 1-homogeneity of the ReLU, the function: ``w̃1 ← w̃1 s``, ``w2 ← w2 / s`` with
    ``s = (factor ‖w2‖ / ‖w̃1‖)^{1/2}``.  ``factor = 1`` makes the neurons balanced (``c = ‖w2‖² − ‖w̃1‖² = 0``).

    Parameters
    ----------
    p : TwoLayer
        Network(s) ``W1 (R..., m, D)``, ``b1 (R..., m)``, ``W2 (R..., 2, m)`` with no zero neuron.
    factor : float or Tensor
        The ratio ``‖w̃1‖ / ‖w2‖`` wanted (broadcastable to ``(R..., m)``).

    Returns
    -------
    TwoLayer
        A new network; ``b2`` unchanged.
    """
    n1 = torch.sqrt((p.W1 ** 2).sum(-1) + p.b1 ** 2)                       # (R..., m)
    n2 = torch.linalg.vector_norm(p.W2, dim=-2)                           # (R..., m)
    s = torch.sqrt(torch.as_tensor(factor, dtype=n1.dtype) * n2 / n1)
    return TwoLayer(W1=p.W1 * s.unsqueeze(-1), b1=p.b1 * s, W2=p.W2 / s.unsqueeze(-2), b2=p.b2.clone(), act=p.act)
