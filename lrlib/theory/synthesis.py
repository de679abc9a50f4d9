"""Cross-paper bridges for the synthesis chapter: one paper's theory applied to another's experiment.

* Drop times of a loss curve against a staircase of predicted levels (AGF on the orthogonal-input
  data of Boursier et al.): :func:`mid_level_drop_times`, :func:`relative_errors`.
* The race paper's two-output softmax network seen as the alignment paper's scalar network: the
  cross-entropy on the logits ``(z₀, z₁)`` is the logistic loss ``log(1 + e^{−y z})`` of the logit
  difference ``z = z₁ − z₀`` with labels ``y = ±1``, and neuron ``α``'s outgoing weight in the
  alignment paper's notation is ``v_α = w2_{1α} − w2_{0α}``: :func:`logit_difference`,
  :func:`pm_labels`, :func:`race_gamma_from_alignment`.
"""

from __future__ import annotations

import numpy as np
import torch

from ..errors import ParameterError
from ..models import TwoLayer, forward, preactivations
from ..track import first_crossing

Tensor = torch.Tensor


def mid_level_drop_times(time: np.ndarray, loss: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """Drop ``k`` of a loss curve: the first time ``loss (T,)`` falls below the mid-level
    ``(levels[k] + levels[k+1]) / 2`` of consecutive predicted levels; ``(K−1,)``, ``nan`` if never."""
    lv = np.asarray(levels, dtype=float)
    if lv.ndim != 1 or lv.size < 2:
        raise ParameterError("mid_level_drop_times needs at least two levels")
    return np.array([first_crossing(time, loss, 0.5 * (lv[k] + lv[k + 1])) for k in range(lv.size - 1)])


def relative_errors(predicted: np.ndarray, measured: np.ndarray) -> np.ndarray:
    """``|predicted − measured| / measured`` elementwise (``nan`` where ``measured`` is nan)."""
    p, m = np.asarray(predicted, dtype=float), np.asarray(measured, dtype=float)
    return np.abs(p - m) / np.abs(m)


def pm_labels(y: Tensor) -> Tensor:
    """Class labels ``{0, 1}`` → the alignment paper's ``{−1, +1}`` (class 1 is ``+1``), float."""
    if not bool(((y == 0) | (y == 1)).all()):
        raise ParameterError("pm_labels expects class labels 0 and 1")
    return 2.0 * y.to(torch.float64) - 1.0


def logit_difference(p: TwoLayer) -> TwoLayer:
    """The scalar network ``z₁ − z₀`` of a two-output network ``p``: same first layer, outgoing
    weights ``v = W2[1] − W2[0]`` ``(…, 1, m)`` and bias ``b2[1] − b2[0]``."""
    if p.W2.shape[-2] != 2:
        raise ParameterError(f"logit_difference needs two outputs, got {p.W2.shape[-2]}")
    v = (p.W2[..., 1, :] - p.W2[..., 0, :]).unsqueeze(-2)
    b2 = None if p.b2 is None else (p.b2[..., 1] - p.b2[..., 0]).unsqueeze(-1)
    return TwoLayer(W1=p.W1, W2=v, b1=p.b1, b2=b2, act=p.act)


def race_gamma_from_alignment(p: TwoLayer, X: Tensor, y: Tensor) -> Tensor:
    """The race paper's ⟨γ_α⟩ computed in the alignment paper's terms, ``(…, m, D)``:

    ``⟨γ_α⟩ = (v_α / ‖w2_α‖) · (1/N) Σ_{s: active} (−ℓ'(y_s z_s)) y_s x_s`` with the logistic
    loss ``ℓ(u) = log(1 + e^{−u})`` of the logit difference ``z``, ``y = ±1``.  At a small
    initialisation ``−ℓ' ≈ ½`` and this is ``(v_α / 2N‖w2_α‖) x_a(w_α)``, the alignment paper's
    signed active sum (eq. 5) — its early-alignment field.
    """
    q = logit_difference(p)
    ypm = pm_labels(y).to(X.dtype)
    z = forward(q, X)[..., 0]                                      # (…, N)
    weight = torch.sigmoid(-ypm * z) * ypm                          # −ℓ'(y z) y  (…, N)
    active = (preactivations(p, X) > 0).to(X.dtype)                 # (…, N, m)
    s = (active * weight.unsqueeze(-1)).transpose(-1, -2) @ X / X.shape[-2]   # (…, m, D)
    v = q.W2[..., 0, :]                                             # (…, m)
    return (v / torch.linalg.vector_norm(p.W2, dim=-2)).unsqueeze(-1) * s
