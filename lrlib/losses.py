"""Losses with explicit conventions.

A :class:`Loss` maps predictions ``(R..., n, k)`` and targets to one loss per
run ``(R...)``.  Its ``describe()`` says the convention in words, so that every
chapter can print exactly what it minimises.

Targets: for ``square`` a tensor ``(n, k)``, ``(n,)`` (scalar output) or with
leading run dims; for ``cross_entropy`` integer class labels ``(R..., n)``; for
``exponential``/``logistic`` labels ``±1`` of shape ``(R..., n)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import torch
import torch.nn.functional as F

from .errors import ParameterError

Tensor = torch.Tensor
REDUCTIONS = ("mean", "sum")


def _reduce(per_point: Tensor, reduction: str) -> Tensor:
    return per_point.mean(-1) if reduction == "mean" else per_point.sum(-1)


def _scalar_output(pred: Tensor) -> Tensor:
    if pred.shape[-1] != 1:
        raise ParameterError(f"this loss needs scalar output (k = 1), got k = {pred.shape[-1]}")
    return pred[..., 0]


@dataclass(frozen=True)
class Loss:
    """A loss ``L(pred, target) -> (R...)`` with its convention.

    Calling it with predictions ``(R..., n, k)`` and targets (see the module docstring) gives
    ``scale · reduce_i ℓ(pred_i, target_i)``, one value per run ``(R...)``.

    Parameters
    ----------
    name : str
        ``"square"``, ``"cross_entropy"``, ``"exponential"`` or ``"logistic"``.
    reduction : str
        ``"mean"`` or ``"sum"`` over the ``n`` points.
    scale : float
        Multiplies the reduced loss (``½`` for the usual square loss).

    Raises
    ------
    ParameterError
        When ``name`` or ``reduction`` is unknown; when called, for a scalar-output loss
        (exponential, logistic) on ``k > 1`` outputs.
    """

    name: str
    reduction: str = "mean"
    scale: float = 1.0

    def __post_init__(self) -> None:
        if self.name not in _KERNELS:
            raise ParameterError(f"unknown loss {self.name!r}; choose one of {sorted(_KERNELS)}")
        if self.reduction not in REDUCTIONS:
            raise ParameterError(f"reduction must be one of {REDUCTIONS}, got {self.reduction!r}")

    def __call__(self, pred: Tensor, target: Tensor) -> Tensor:
        return self.scale * _reduce(_KERNELS[self.name](pred, target), self.reduction)

    def describe(self) -> str:
        """The convention in words, e.g. ``L = ½ · mean_i ‖f(x_i) − y_i‖²``."""
        red = "mean_i" if self.reduction == "mean" else "Σ_i"
        s = "" if self.scale == 1 else ("½ · " if self.scale == 0.5 else f"{self.scale:g} · ")
        body = {
            "square": "‖f(x_i) − y_i‖²",
            "cross_entropy": "−log softmax(f(x_i))_{y_i}",
            "exponential": "exp(−y_i f(x_i))",
            "logistic": "log(1 + exp(−y_i f(x_i)))",
        }[self.name]
        return f"L = {s}{red} {body}"


def residual(pred: Tensor, target: Tensor) -> Tensor:
    """The residual ``pred − target`` of the square loss.

    Parameters
    ----------
    pred : Tensor
        Predictions ``(R..., n, k)``.
    target : Tensor
        Targets ``(…, n, k)``; for scalar output also ``(…, n)``, which gets its ``k = 1`` axis.

    Returns
    -------
    Tensor
        ``(R..., n, k)`` (broadcast of the two).
    """
    n = pred.shape[-2]
    has_k_axis = target.dim() >= 2 and target.shape[-2] == n and target.shape[-1] == pred.shape[-1]
    if pred.shape[-1] == 1 and not has_k_axis:
        target = target.unsqueeze(-1)  # scalar output: (…, n) → (…, n, 1)
    return pred - target


def _square(pred: Tensor, target: Tensor) -> Tensor:
    return (residual(pred, target) ** 2).sum(-1)


def _cross_entropy(pred: Tensor, target: Tensor) -> Tensor:
    logp = F.log_softmax(pred, dim=-1)
    idx = target.long().expand(pred.shape[:-1]).unsqueeze(-1)
    return -logp.gather(-1, idx).squeeze(-1)


def _exponential(pred: Tensor, target: Tensor) -> Tensor:
    return torch.exp(-target * _scalar_output(pred))


def _logistic(pred: Tensor, target: Tensor) -> Tensor:
    return F.softplus(-target * _scalar_output(pred))


_KERNELS: dict[str, Callable[[Tensor, Tensor], Tensor]] = {
    "square": _square,
    "cross_entropy": _cross_entropy,
    "exponential": _exponential,
    "logistic": _logistic,
}


def half_mse() -> Loss:
    """The default square loss ``½ · mean_i ‖f(x_i) − y_i‖²``."""
    return Loss("square", "mean", 0.5)
