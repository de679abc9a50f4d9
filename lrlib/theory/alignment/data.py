"""The data sets and the initialisation of the alignment chapter: the two-point family (Figs 7–9),
the 2-D toy and its declared family (Fig 6), the synthetic separable family, orthogonally separable
data with non-antipodal class sums, and the theory init (eq. 3).

Every random draw takes an explicit ``torch.Generator``. Tested in
``tests/test_theory_alignment_data.py``.

Shapes and units: the package's conventions (:mod:`lrlib.theory.alignment`).
"""

from __future__ import annotations

import math
from typing import Sequence

import torch

from ...errors import ParameterError
from ...models import TwoLayer, balanced_init, random_signs
from .core import F64, mu

Tensor = torch.Tensor


def two_point_data(theta: float, dtype: torch.dtype = F64) -> tuple[Tensor, Tensor]:
    """Figs 7–9's data: ``x₁ = [1, 0]``, ``x₂ = [sin θ, cos θ]``, both labelled +1.

    Parameters
    ----------
    theta : float
        Angle in radians; μ = ⟨x₁, x₂⟩ = sin θ for θ ∈ [0, π/2] (θ = 0: orthogonal, Fig 9).
    dtype : torch.dtype, optional

    Returns
    -------
    (Tensor, Tensor)
        ``X (2, 2)``, ``y (2,)``.
    """
    X = torch.tensor([[1.0, 0.0], [math.sin(theta), math.cos(theta)]], dtype=F64).to(dtype)
    return X, torch.ones(2, dtype=dtype)


TOY_POS_DEG = (10.0, 25.0, 40.0)
TOY_NEG_DEG = (140.0, 155.0, 170.0)
TOY_NORMS = (0.8, 1.0, 1.2)


def toy_2d(
    dtype: torch.dtype = F64,
    *,
    pos_deg: Sequence[float] = TOY_POS_DEG,
    neg_deg: Sequence[float] = TOY_NEG_DEG,
    norms: Sequence[float] = TOY_NORMS,
) -> tuple[Tensor, Tensor]:
    """A fixed Fig 6 toy: points ``r(cos a, sin a)``, positives at ``pos_deg``, negatives at ``neg_deg``.

    Default angles 10°, 25°, 40° / 140°, 155°, 170°: μ = cos 80° ≈ 0.174 and S_dead ≠ ∅.  Angles 15°,
    30°, 45° / 135°, 150°, 165° would not do: 45° and 135° are orthogonal, so μ = 0.

    Parameters
    ----------
    dtype : torch.dtype, optional
    pos_deg, neg_deg : sequence of float
        Angles in degrees.
    norms : sequence of float
        Radii per class, in that order.

    Returns
    -------
    (Tensor, Tensor)
        ``X (n, 2)``, ``y (n,)`` (positives first).
    """
    if not (len(pos_deg) == len(neg_deg) == len(norms)):
        raise ParameterError("toy_2d: pos_deg, neg_deg and norms must have equal lengths")
    ang = torch.tensor([*pos_deg, *neg_deg], dtype=F64) * (math.pi / 180)
    r = torch.tensor([*norms, *norms], dtype=F64)
    X = r.unsqueeze(-1) * torch.stack([torch.cos(ang), torch.sin(ang)], -1)
    y = torch.cat([torch.ones(len(pos_deg), dtype=F64), -torch.ones(len(neg_deg), dtype=F64)])
    return X.to(dtype), y.to(dtype)


def toy_family(runs: int, gen: torch.Generator, *, mirror: bool = False,
               dtype: torch.dtype = F64) -> tuple[Tensor, Tensor]:
    """Fig 6's declared toy family, one draw per run.

    Three positives at angles uniform in [5°, 45°] with radii uniform in [0.8, 1.2]; three negatives at
    angles uniform in [135°, 175°] with radii uniform in [0.4, 0.8] (the shorter class is fitted later).
    ``mirror=True`` (the control) replaces each negative by the mirror image ``−x₊ᵢ`` of a positive of
    the same draw; the draw is the same with and without ``mirror`` for the same generator state.

    Parameters
    ----------
    runs : int
    gen : torch.Generator
    mirror : bool, optional
    dtype : torch.dtype, optional

    Returns
    -------
    (Tensor, Tensor)
        ``X (runs, 6, 2)``, ``y (6,)`` (positives first).
    """
    if runs < 1:
        raise ParameterError(f"toy_family: need runs ≥ 1, got {runs}")
    u = torch.rand((runs, 4, 3), generator=gen, dtype=F64)
    ang_p = (5 + 40 * u[:, 0]) * (math.pi / 180)
    ang_n = (135 + 40 * u[:, 1]) * (math.pi / 180)
    r_p, r_n = 0.8 + 0.4 * u[:, 2], 0.4 + 0.4 * u[:, 3]
    pos = r_p.unsqueeze(-1) * torch.stack([ang_p.cos(), ang_p.sin()], -1)
    neg = -pos if mirror else r_n.unsqueeze(-1) * torch.stack([ang_n.cos(), ang_n.sin()], -1)
    y = torch.cat([torch.ones(3, dtype=F64), -torch.ones(3, dtype=F64)])
    return torch.cat([pos, neg], -2).to(dtype), y.to(dtype)


def synthetic_separable(
    n: int, D: int, s: float, gen: torch.Generator, dtype: torch.dtype = F64, max_tries: int = 10_000
) -> tuple[Tensor, Tensor]:
    """The synthetic separable family: positives ``e₁ + s g`` then negatives ``−e₁ + s g``, ``g ~ N(0, I_D)``.

    ``n₊ = n − ⌊n/2⌋``, ``n₋ = ⌊n/2⌋``; the whole set is redrawn from ``gen`` until ``μ > 0``.

    Parameters
    ----------
    n, D : int
        Points and dimension, as in :func:`two_direction_separable`.
    s : float
        Noise scale, as in :func:`two_direction_separable`.
    gen : torch.Generator
        The random generator.
    dtype : torch.dtype
        Floating type of the data.
    max_tries : int
        Redraws allowed, as in :func:`two_direction_separable`.

    Returns
    -------
    (Tensor, Tensor)
        ``X (n, D)``, ``y (n,)``.

    Raises
    ------
    ParameterError
        Bad sizes, or no draw with ``μ > 0`` in ``max_tries`` (lower ``s``).
    """
    if n < 2 or D < 1:
        raise ParameterError(f"synthetic_separable: need n ≥ 2 and D ≥ 1, got n={n}, D={D}")
    n_minus = n // 2
    y = torch.cat([torch.ones(n - n_minus, dtype=F64), -torch.ones(n_minus, dtype=F64)])
    u = torch.zeros(D, dtype=F64)
    u[0] = 1.0
    for _ in range(max_tries):
        X = y.unsqueeze(-1) * u + s * torch.randn((n, D), generator=gen, dtype=F64)
        if mu(X, y) > 0:
            return X.to(dtype), y.to(dtype)
    raise ParameterError(f"synthetic_separable: no draw with μ > 0 in {max_tries} tries; lower s={s}")


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


def balanced_theory_init(
    h: int, D: int, eps: float, gen: torch.Generator, runs: tuple[int, ...] = (), dtype: torch.dtype = F64
) -> TwoLayer:
    """The theory's initialisation (3): ``W = ε W₀``, ``[W₀]_ij ~ N(0, 1/D)``, ``v_j = s_j ‖w_j‖``.

    Signs are equiprobable; a run that misses a sign is redrawn (from ``gen``) until it has both.
    ``W₀ = W/ε`` (so ``W_max = max_j ‖w_j‖/ε``); the sign of ``v_j`` is ``sign(p.a)``.

    Parameters
    ----------
    h, D : int
        Width (``h ≥ 2``) and input dimension.
    eps : float
        Scale ε.
    gen : torch.Generator
    runs : tuple of int, optional
        Leading run dimensions.
    dtype : torch.dtype, optional

    Returns
    -------
    TwoLayer
        ``W1 (R..., h, D)``, ``W2 (R..., 1, h)``.
    """
    if h < 2:
        raise ParameterError(f"balanced_theory_init: need h ≥ 2 for both signs, got {h}")
    s = random_signs((*runs, h), gen)
    while True:  # redraw only the runs that miss a sign
        bad = ~((s > 0).any(-1) & (s < 0).any(-1))
        if not bool(bad.any()):
            break
        s[bad] = random_signs((int(bad.sum()), h), gen)
    return balanced_init(h, D, scale=eps / math.sqrt(D), gen=gen, signs=s, runs=runs, dtype=dtype)
