"""The orthogonal-input paper's data sets, generated in code (no files).

Every function returns ``(X, y)`` tensors: ``X (n, d)``, ``y (n,)``; random
ones take an explicit ``torch.Generator``.  Where a paper appends a constant
coordinate to emulate a bias, the returned ``X`` already has it (last column).
``dtype`` is the dtype of the returned tensors.
"""

from __future__ import annotations

import math
from typing import Sequence

import torch

from ...errors import ParameterError

Tensor = torch.Tensor


def with_bias_coordinate(x: Sequence[float] | Tensor, dtype: torch.dtype = torch.float64) -> Tensor:
    """Append the constant bias coordinate to 1-D points.

    Parameters
    ----------
    x : sequence of float or Tensor
        ``(n,)`` points.
    dtype : torch.dtype
        Output dtype.

    Returns
    -------
    Tensor
        ``(n, 2)`` rows ``(x_k, 1)``.
    """
    x = torch.as_tensor(x, dtype=dtype)
    return torch.stack([x, torch.ones_like(x)], dim=-1)


def orthogonal_toy(dtype: torch.dtype = torch.float64) -> tuple[Tensor, Tensor]:
    """The orthogonal toy of Boursier et al. (2022), Fig. 2.

    ``x₁ = (−0.5, 1), y₁ = −1``; ``x₂ = (2, 1), y₂ = +1`` (second coordinate = bias). Orthogonal, not
    unit norm.

    Parameters
    ----------
    dtype : torch.dtype
        Output dtype (module conventions); the toy's values are exact in any float dtype.

    Returns
    -------
    X : Tensor
        ``(2, 2)`` inputs.
    y : Tensor
        ``(2,)`` labels.
    """
    return with_bias_coordinate([-0.5, 2.0], dtype), torch.tensor([-1.0, 1.0], dtype=dtype)


def orthonormal_testbed(
    y: Sequence[float] = (1.0, 1.5, 2.0, -1.0, -1.0, -0.5), d: int = 10, dtype: torch.dtype = torch.float64
) -> tuple[Tensor, Tensor]:
    """Orthonormal inputs ``x_k = e_k`` in ``ℝ^d`` with the given labels (the chapter's test bed).

    Parameters
    ----------
    y : sequence of float
        The ``n ≤ d`` labels.
    d : int
        Input dimension.
    dtype : torch.dtype
        Output dtype.

    Returns
    -------
    X : Tensor
        ``(n, d)`` inputs, the first ``n`` unit vectors.
    y : Tensor
        ``(n,)`` labels.

    Raises
    ------
    ParameterError
        If ``n > d``.
    """
    n = len(y)
    if n > d:
        raise ParameterError(f"orthonormal inputs need n ≤ d (got n = {n}, d = {d})")
    return torch.eye(n, d, dtype=dtype), torch.tensor(list(y), dtype=dtype)


def nonorthogonal_1d(dtype: torch.dtype = torch.float64) -> tuple[Tensor, Tensor]:
    """The non-orthogonal 1-D data of Boursier et al. (2022), App. A.1 (values from the authors'
    camera-ready code).

    ``x = (−1.5, −1, 0, 0.25, 2)``, ``y = (0.7, −0.3, −0.3, 0.4, 0.2)``, with a bias coordinate.

    Parameters
    ----------
    dtype : torch.dtype
        Output dtype.

    Returns
    -------
    X : Tensor
        ``(5, 2)`` inputs ``(x_k, 1)``.
    y : Tensor
        ``(5,)`` labels.
    """
    return (with_bias_coordinate([-1.5, -1.0, 0.0, 0.25, 2.0], dtype),
            torch.tensor([0.7, -0.3, -0.3, 0.4, 0.2], dtype=dtype))


def relu_teacher(
    n: int, d: int, k: int, *, gen: torch.Generator, dtype: torch.dtype = torch.float64
) -> tuple[Tensor, Tensor]:
    """Gaussian inputs labelled by a random bias-free ReLU teacher (Boursier et al. App. A.2, as in the
    authors' code).

    ``x ~ N(0, I_d)``; teacher hidden weights ``W ~ N(0, 1/(k d))``, output weights ``a ~ N(0, 1/k)``;
    ``y = Σ_i a_i σ(⟨W_i, x⟩)``.

    Parameters
    ----------
    n : int
        Number of points.
    d : int
        Input dimension.
    k : int
        Teacher width.
    gen : torch.Generator
        Source of randomness (inputs first, then the teacher).
    dtype : torch.dtype
        Output dtype (drawn in float64).

    Returns
    -------
    X : Tensor
        ``(n, d)`` inputs.
    y : Tensor
        ``(n,)`` labels.
    """
    X = torch.randn(n, d, generator=gen, dtype=torch.float64)
    W = torch.randn(k, d, generator=gen, dtype=torch.float64) / math.sqrt(k * d)
    a = torch.randn(k, generator=gen, dtype=torch.float64) / math.sqrt(k)
    y = torch.relu(X @ W.T) @ a
    return X.to(dtype), y.to(dtype)


def correlated_testbed(
    y: Sequence[float] = (1.0, 1.5, 2.0, -1.0, -1.0, -0.5), d: int = 10, rho: float = 0.2,
    dtype: torch.dtype = torch.float64,
) -> tuple[Tensor, Tensor]:
    """Unit inputs with the same pairwise inner product ``rho``: :func:`orthonormal_testbed` made
    non-orthogonal along a shared direction.

    ``x_k = (e_k + c e_d)/√(1 + c²)`` with ``c² = rho/(1 − rho)``.

    Parameters
    ----------
    y : sequence of float
        The ``n < d`` labels.
    d : int
        Input dimension (the last coordinate is the shared direction).
    rho : float
        Pairwise inner product, in ``[0, 1)``.
    dtype : torch.dtype
        Output dtype.

    Returns
    -------
    X : Tensor
        ``(n, d)`` unit inputs.
    y : Tensor
        ``(n,)`` labels.

    Raises
    ------
    ParameterError
        If ``n ≥ d`` or ``rho`` is outside ``[0, 1)``.
    """
    n = len(y)
    if n >= d:
        raise ParameterError(f"correlated inputs need n < d (got n = {n}, d = {d})")
    if not 0 <= rho < 1:
        raise ParameterError(f"rho must lie in [0, 1), got {rho}")
    c = math.sqrt(rho / (1 - rho))
    X = torch.eye(n, d, dtype=dtype)
    X[:, d - 1] = c
    return X / math.sqrt(1 + c * c), torch.tensor(list(y), dtype=dtype)
