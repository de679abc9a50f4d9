"""Argument checks, written once: every public function of ``lrlib`` validates its inputs
with these and raises :class:`~lrlib.errors.ParameterError` with a message that names the
argument, what it got and what it accepts."""

from __future__ import annotations

import math
from typing import Iterable

import numpy as np
import torch

from .errors import ParameterError

Tensor = torch.Tensor
PARAM_NAMES = ("W1", "b1", "W2", "b2")


def integer(name: str, value: object, *, low: int | None = None, what: str = "an int") -> int:
    """Check that ``value`` is a whole number, at least ``low``, and return it as an ``int``.

    Numpy integers are accepted, bools rejected.

    Parameters
    ----------
    name : str
        The argument's name, for the error message.
    value : object
        The value to check.
    low : int or None
        The smallest value accepted (``None``: no bound).
    what : str
        What the argument must be, for the error message (``"an int"``).

    Returns
    -------
    int
        ``value`` as a Python ``int``.

    Raises
    ------
    ParameterError
        ``"<name> must be <what>, got ..."`` when ``value`` is not an integer or is below ``low``.
    """
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or (low is not None and value < low):
        raise ParameterError(f"{name} must be {what}, got {value!r}")
    return int(value)


def positive_int(name: str, value: object) -> int:
    """Check that ``value`` is a whole number ≥ 1 (see :func:`integer`).

    Parameters
    ----------
    name, value : str, object
        The argument's name (for the error message) and the value to check.

    Returns
    -------
    int
        ``value`` as an ``int``.

    Raises
    ------
    ParameterError
        When ``value`` is not an integer ≥ 1.
    """
    return integer(name, value, low=1, what="a positive integer")


def nonneg_int(name: str, value: object) -> int:
    """Check that ``value`` is a whole number ≥ 0, as :func:`positive_int` checks ≥ 1.

    Parameters
    ----------
    name, value : str, object
        As in :func:`positive_int`.

    Returns
    -------
    int
        The value, a Python ``int``.

    Raises
    ------
    ParameterError
        If ``value`` is negative, a bool or no integer.
    """
    return integer(name, value, low=0, what="a non-negative integer")


def positive_number(name: str, value: object) -> float:
    """Check that ``value`` is a finite real number > 0 (bools rejected).

    Parameters
    ----------
    name : str
        Named in the error message.
    value : object
        An ``int`` or ``float`` to check.

    Returns
    -------
    float
        ``value`` as a ``float``.

    Raises
    ------
    ParameterError
        When ``value`` is not a finite number > 0.
    """
    if isinstance(value, bool) or not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
        raise ParameterError(f"{name} must be a finite number > 0, got {value!r}")
    return float(value)


def point_axis(y: Tensor, n: int) -> int:
    """The axis of ``y`` that indexes the ``n`` data points.

    Parameters
    ----------
    y : Tensor
        Targets: labels or scalar targets ``(R..., n)``, or vector targets ``(R..., n, k)``.
    n : int
        The number of data points (``X.shape[-2]``).

    Returns
    -------
    int
        ``-1`` for targets ``(R..., n)``, ``-2`` for vector targets ``(R..., n, k)``.

    Raises
    ------
    ParameterError
        When both axes, or neither, have length ``n``.
    """
    last = y.shape[-1] == n
    second = y.dim() >= 2 and y.shape[-2] == n
    if last and second:
        raise ParameterError(f"cannot tell the data axis of y {tuple(y.shape)} (n = {n}); reshape the targets")
    if not (last or second):
        raise ParameterError(f"X has {n} points but y has shape {tuple(y.shape)}")
    return -1 if last else -2


def run_arguments(p0, X: Tensor, y: Tensor, *, lr: float, steps: int, momentum: float = 0.0,
                  batch_size: int | None = None, trainable: Iterable[str] = PARAM_NAMES) -> None:
    """Check the arguments of a training run (:func:`lrlib.train.train`, :func:`lrlib.integrate.flow`).

    Parameters
    ----------
    p0 : TwoLayer
        The initial network, parameters ``(R..., m, d)`` etc.; its dtype must be ``X``'s.
    X : Tensor
        Inputs ``(R..., n, d)``, finite, with ``d = p0.in_dim``.
    y : Tensor
        Targets ``(R..., n)`` or ``(R..., n, k)`` (see :func:`point_axis`).
    lr : float
        The step size, > 0.
    steps : int
        The number of steps, ≥ 0.
    momentum : float
        Heavy-ball momentum, in [0, 1).
    batch_size : int or None
        Points per minibatch, in [1, n]; ``None`` is full batch.
    trainable : iterable of str
        Names of the trained parameters, a subset of ``("W1", "b1", "W2", "b2")``.

    Raises
    ------
    ParameterError
        When any argument is out of range or the data do not match the network.
    """
    positive_number("lr", lr)
    nonneg_int("steps", steps)
    if not 0 <= momentum < 1:
        raise ParameterError(f"momentum must be in [0, 1), got {momentum!r}")
    n = X.shape[-2]
    if batch_size is not None and (isinstance(batch_size, bool) or not (isinstance(batch_size, int) and 1 <= batch_size <= n)):
        raise ParameterError(f"batch_size must be None (full batch) or an int in [1, {n}], got {batch_size!r}")
    if X.shape[-1] != p0.in_dim:
        raise ParameterError(f"X has {X.shape[-1]} features but the network expects {p0.in_dim}")
    point_axis(y, n)
    if not torch.isfinite(X.sum()) and not torch.isfinite(X).all():   # one cheap pass first
        raise ParameterError("X contains NaN or inf")
    unknown = set(trainable) - set(PARAM_NAMES)
    if unknown:
        raise ParameterError(f"unknown trainable parameters {sorted(unknown)}; use {PARAM_NAMES}")
    for name, t in p0.tensors().items():
        if t.dtype != X.dtype:
            raise ParameterError(f"dtype mismatch: {name} is {t.dtype} but X is {X.dtype}")


