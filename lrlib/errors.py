"""Errors that stop a run with a message that says what to do."""

from __future__ import annotations


class LrlibError(RuntimeError):
    """Base class of the library's own errors."""


class DivergenceError(LrlibError):
    """Training produced NaN/inf or a loss above the divergence threshold."""


class ParameterError(LrlibError, ValueError):
    """A notebook (papermill) parameter or a function argument is invalid."""
