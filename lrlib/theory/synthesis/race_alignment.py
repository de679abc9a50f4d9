"""The alignment paper's theory on the race paper's network (part 2 of the synthesis chapter).

The race paper's two-output softmax network is the alignment paper's scalar network: the
cross-entropy on the logits ``(z₀, z₁)`` is the logistic loss ``log(1 + e^{−y z})`` of the logit
difference ``z = z₁ − z₀`` with labels ``y = ±1``, and neuron ``α``'s outgoing weight in the
alignment paper's notation is ``v_α = w2_{1α} − w2_{0α}``: :func:`logit_difference`,
:func:`pm_labels`, :func:`race_gamma_from_alignment`.  The alignment paper's predictions measured on
a race network: :func:`alignment_lens` (cones, cosine to ``sign(v) x_a(w)``, stable rank) and
:func:`alignment_lens_rows` (at the start, the end of the plateau and the end of a run).
"""

from __future__ import annotations

import math

import numpy as np

import torch

from ...errors import ParameterError
from ...models import TwoLayer, forward
from ...measure import active, cosine
from ...track import stable_rank
from .. import alignment as al
from ..race import total_norm

Tensor = torch.Tensor


def pm_labels(y: Tensor) -> Tensor:
    """Class labels ``{0, 1}`` → the alignment paper's ``{−1, +1}`` (class 1 is ``+1``).

    Parameters
    ----------
    y : Tensor
        ``(…, N)`` class labels 0 or 1.

    Returns
    -------
    Tensor
        ``(…, N)`` float64 labels ``±1``.
    """
    if not bool(((y == 0) | (y == 1)).all()):
        raise ParameterError("pm_labels expects class labels 0 and 1")
    return 2.0 * y.to(torch.float64) - 1.0


def logit_difference(p: TwoLayer) -> TwoLayer:
    """The scalar network ``z₁ − z₀`` of a two-output network.

    Parameters
    ----------
    p : TwoLayer
        a :class:`~lrlib.models.TwoLayer` with two outputs (``W2 (…, 2, m)``).

    Returns
    -------
    TwoLayer
        Same first layer, outgoing weights ``v = W2[1] − W2[0]`` ``(…, 1, m)`` and bias ``b2[1] − b2[0]``.
    """
    if p.W2.shape[-2] != 2:
        raise ParameterError(f"logit_difference needs two outputs, got {p.W2.shape[-2]}")
    v = (p.W2[..., 1, :] - p.W2[..., 0, :]).unsqueeze(-2)
    b2 = None if p.b2 is None else (p.b2[..., 1] - p.b2[..., 0]).unsqueeze(-1)
    return TwoLayer(W1=p.W1, W2=v, b1=p.b1, b2=b2, act=p.act)


def race_gamma_from_alignment(p: TwoLayer, X: Tensor, y: Tensor) -> Tensor:
    """The race paper's ⟨γ_α⟩ computed in the alignment paper's terms.

    ``⟨γ_α⟩ = (v_α / ‖w2_α‖) · (1/N) Σ_{s: active} (−ℓ'(y_s z_s)) y_s x_s`` with the logistic
    loss ``ℓ(u) = log(1 + e^{−u})`` of the logit difference ``z``, ``y = ±1``.  At a small
    initialisation ``−ℓ' ≈ ½`` and this is ``(v_α / 2N‖w2_α‖) x_a(w_α)``, the alignment paper's
    signed active sum (eq. 5) — its early-alignment field.

    Parameters
    ----------
    p : TwoLayer
        a two-output race network (``W1 (…, m, D)``).
    X : Tensor
        ``(…, N, D)`` inputs.
    y : Tensor
        ``(…, N)`` class labels ``{0, 1}``.

    Returns
    -------
    Tensor
        ``(…, m, D)`` one direction per neuron.
    """
    q = logit_difference(p)
    ypm = pm_labels(y).to(X.dtype)
    z = forward(q, X)[..., 0]                                      # (…, N)
    weight = torch.sigmoid(-ypm * z) * ypm                          # −ℓ'(y z) y  (…, N)
    act = active(p, X).to(X.dtype)                                  # (…, m, N)
    s = (act * weight.unsqueeze(-2)) @ X / X.shape[-2]              # (…, m, D)
    v = q.W2[..., 0, :]                                             # (…, m)
    return (v / torch.linalg.vector_norm(p.W2, dim=-2)).unsqueeze(-1) * s


def alignment_lens(p: TwoLayer, X: Tensor, y: Tensor) -> tuple[dict[str, float], Tensor]:
    """The alignment paper's quantities for one race network, in float64, with ``v = W2[1] − W2[0]``.

    * ``in_cone``: fraction of neurons in their predicted cone, ``S₊ ∪ S_dead`` for ``v > 0`` and
      ``S₋ ∪ S_dead`` for ``v < 0`` (Min et al. Thm. 1; a neuron with ``v = 0`` counts as outside);
    * ``cos_all``: median over neurons of ``cos(w_α, sign(v_α) x_a(w_α))``;
    * ``stable_rank``: ``‖W1‖_F² / ‖W1‖_2²`` (without biases).

    Parameters
    ----------
    p : TwoLayer
        one race network (two outputs, ``W1 (m, D)``, no run dimensions).
    X : Tensor
        ``(N, D)`` inputs.
    y : Tensor
        ``(N,)`` labels ``{0, 1}``.

    Returns
    -------
    (dict, Tensor)
        That dict (floats) and the per-neuron cosines ``(m,)`` (0 where ``x_a = 0``, e.g. a dead neuron).
    """
    if p.W1.ndim != 2 or X.ndim != 2 or y.shape != X.shape[:1] or X.shape[-1] != p.W1.shape[-1]:
        raise ParameterError(f"alignment_lens needs one network W1 (m, D), X (N, D), y (N,); got W1 {tuple(p.W1.shape)}, "
                             f"X {tuple(X.shape)}, y {tuple(y.shape)}")
    ypm = pm_labels(y)
    W, v = p.W1.double(), logit_difference(p).W2[0].double()
    cones = al.cone_membership(W, X.double(), ypm)
    in_cone = ((v > 0) & (cones["S_plus"] | cones["S_dead"])) | ((v < 0) & (cones["S_minus"] | cones["S_dead"]))
    c = cosine(W, torch.sign(v).unsqueeze(-1) * al.signed_active_sum(W, X.double(), ypm))
    return dict(in_cone=float(in_cone.double().mean()), cos_all=float(c.median()),
                stable_rank=float(stable_rank(W)[0])), c


def plateau_end(loss: np.ndarray, level: float) -> int:
    """Index of the end of the plateau.

    Parameters
    ----------
    loss : np.ndarray
        ``(T,)`` a loss curve.
    level : float
        the plateau threshold (loss units).

    Returns
    -------
    int
        Index of the last entry of ``loss`` at or above ``level``.
    """
    hits = np.nonzero(np.asarray(loss) >= level)[0]
    if hits.size == 0:
        raise ParameterError(f"plateau_end: the loss never reaches {level}")
    return int(hits[-1])


def separable_pairs(n_per_class: int, dim: int, gen: torch.Generator, *, offset: float = 3.0,
                    noise: float = 0.3) -> tuple[Tensor, Tensor]:
    """A small two-class data set on which Min et al.'s Assumption 1 holds on the bias-augmented inputs:
    ``x = (2y − 1) · offset · e₁ + noise · N(0, I)``, classes alternating.

    Two points of the same class have ``⟨x̃_i, x̃_j⟩ ≈ offset² + 1 > 0`` and of different classes
    ``≈ 1 − offset² < 0`` (``x̃ = (x, 1)``), so the data are orthogonally separable when ``noise`` is
    small against ``offset`` (μ is measured per draw, :func:`~lrlib.theory.synthesis.claims.data_mu`).

    Parameters
    ----------
    n_per_class : int
        points per class.
    dim : int
        input dimension ``D``.
    gen : torch.Generator
        the random generator (:func:`lrlib.models.generator`).
    offset, noise : float
        the class mean's distance from 0 along ``e₁`` and the noise's std.

    Returns
    -------
    (Tensor, Tensor)
        ``X (2 n_per_class, D)`` float32 and labels ``y`` in ``{0, 1}``.
    """
    y = torch.arange(2 * n_per_class) % 2
    X = noise * torch.randn(2 * n_per_class, dim, generator=gen, dtype=torch.float64)
    X[:, 0] += (2 * y - 1) * offset
    return X.float(), y


def alignment_lens_series(traj, X: Tensor, y: Tensor) -> list[dict]:
    """:func:`alignment_lens` at every snapshot of one race run.

    Parameters
    ----------
    traj : Trajectory
        a single-run :class:`~lrlib.trajectory.Trajectory` of a race network.
    X : Tensor
        ``(N, D)`` inputs.
    y : Tensor
        ``(N,)`` labels ``{0, 1}``.

    Returns
    -------
    list of dict
        One row per snapshot: ``step`` and the quantities of :func:`alignment_lens`.
    """
    return [dict(step=int(s), **alignment_lens(traj.at(i), X, y)[0]) for i, s in enumerate(traj.steps)]


def alignment_lens_rows(traj, X: Tensor, y: Tensor, *, plateau_level: float = 0.99 * math.log(2),
                        winners_quantile: float = 0.9) -> list[dict]:
    """:func:`alignment_lens` of one race run at its start, at the end of its plateau and at its end.

    Parameters
    ----------
    traj : Trajectory
        a single-run :class:`~lrlib.trajectory.Trajectory` of a race network.
    X : Tensor
        ``(N, D)`` inputs.
    y : Tensor
        ``(N,)`` labels ``{0, 1}``.
    plateau_level : float
        the end of the plateau is the last snapshot with loss ``≥ plateau_level`` (nats).
    winners_quantile : float
        the winners are the neurons whose final ``a_α = ‖w1_α‖‖w2_α‖`` is at or above
        this quantile.

    Returns
    -------
    list[dict]
        Three rows (``when`` = ``"init"``, ``"end of plateau"``, ``"final"``), each with ``step``, ``loss``,
        ``cos_winners`` (median cosine over the winners) and the three entries of :func:`alignment_lens`.
    """
    L = traj.loss.numpy()
    i_end = plateau_end(L, plateau_level)
    a_fin = total_norm(traj.final)
    winners = a_fin >= a_fin.quantile(winners_quantile)
    rows = []
    for name, i in [("init", 0), ("end of plateau", i_end), ("final", len(L) - 1)]:
        q, c = alignment_lens(traj.at(i), X, y)
        rows.append(dict(when=name, step=int(traj.steps[i]), loss=float(L[i]), cos_winners=float(c[winners].median()), **q))
    return rows
