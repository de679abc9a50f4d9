"""Data sets of the alignment chapter beyond those in :mod:`.core` (the two-point family, the
Fig 6 toy family and the synthetic separable family live there)."""

from __future__ import annotations

import math

import torch

from ...errors import ParameterError
from .core import F64, mu

Tensor = torch.Tensor


def two_direction_separable(
    n: int, D: int, angle_deg: float, s: float, gen: torch.Generator, dtype: torch.dtype = F64,
    max_tries: int = 10_000,
) -> tuple[Tensor, Tensor]:
    """Orthogonally separable data whose class sums are *not* antipodal.

    ``n₊ = n − ⌊n/2⌋`` positives ``e₁ + s g`` then ``⌊n/2⌋`` negatives ``b + s g``, with
    ``b = cos(a) e₁ + sin(a) e₂`` at ``angle_deg = a`` from ``e₁`` (``a > 90°`` for Assumption 1) and
    ``g ~ N(0, I_D)``; redrawn from ``gen`` until ``μ > 0``.  With ``a = 180°`` this is the synthetic
    separable family of :func:`.core.synthetic_separable`.

    Parameters
    ----------
    n, D : int
        Points (``≥ 2``) and dimension (``≥ 2``).
    angle_deg : float
        Angle between the class centres, in ``(90, 180]`` degrees.
    s : float
        Noise scale.
    gen : torch.Generator
    dtype : torch.dtype, optional
    max_tries : int, optional

    Returns
    -------
    (Tensor, Tensor)
        ``X (n, D)``, ``y (n,)`` (positives first).

    Raises
    ------
    ParameterError
        Bad arguments, or no draw with ``μ > 0`` in ``max_tries``.
    """
    if n < 2 or D < 2:
        raise ParameterError(f"two_direction_separable: need n ≥ 2 and D ≥ 2, got n={n}, D={D}")
    if not 90.0 < angle_deg <= 180.0:
        raise ParameterError(f"two_direction_separable: need 90° < angle ≤ 180°, got {angle_deg}")
    n_minus = n // 2
    y = torch.cat([torch.ones(n - n_minus, dtype=F64), -torch.ones(n_minus, dtype=F64)])
    a = math.radians(angle_deg)
    centre = torch.zeros(n, D, dtype=F64)
    centre[y > 0, 0] = 1.0
    centre[y < 0, 0], centre[y < 0, 1] = math.cos(a), math.sin(a)
    for _ in range(max_tries):
        X = centre + s * torch.randn((n, D), generator=gen, dtype=F64)
        if mu(X, y) > 0:
            return X.to(dtype), y.to(dtype)
    raise ParameterError(f"two_direction_separable: no draw with μ > 0 in {max_tries} tries; lower s={s}")
