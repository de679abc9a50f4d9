"""Grading rules: small boolean expressions over named measurements.

A claim's rule is written in its declaration as text, for example::

    4000 <= exit1 <= 6500 and abs(plateau - 0.5) <= 0.01 and final < 1e-6

and evaluated here, element-wise over seeds, on the measurements a chapter supplies
(``exit1=array([...])``, one entry per seed). The text is what the reader sees and what
a published sweep stores, so the rule that grades is the rule that is shown.

The language is a safe subset of Python expressions: numbers, names of measurements,
``+ - * / **``, unary ``-``, comparisons (chained too), ``and``/``or``/``not``, and the
functions of :data:`FUNCTIONS`. ``and``/``or``/``not`` act element-wise. A comparison
with ``nan`` is false, so a quantity that was never measured (a threshold never
crossed) fails a rule such as ``t < 5``; write the rule so that this is the meaning
you want (``not (t >= 5)`` is true for ``nan``).

Margins
-------
:meth:`Rule.margin` says, per seed, *how far* the measurements lie from the rule's boundary,
as a factor: every comparison ``a < b`` (or ``a > b``) gives the factor by which the passing
side exceeds the other (``b / a`` for positive sides; for sides of opposite sign the comparison
holds or fails by sign and the factor is ``inf`` or ``0``), ``and`` takes the smallest factor,
``or`` the largest, ``not`` the reciprocal, and an equality or a bare boolean is ``inf`` when it
holds and ``0`` when it fails. A seed passes exactly when its margin is ``>= 1`` (``> 1`` for a
strict comparison). For ``abs(x - c) <= tol`` the margin is ``tol / |x - c|``, the reciprocal of
the deviation in units of the tolerance. ``nan`` in, ``nan`` out.
"""

from __future__ import annotations

import ast
import operator
from functools import cached_property
from typing import Mapping

import numpy as np

from ..errors import ParameterError

FUNCTIONS = {
    "abs": np.abs,
    "log": np.log,
    "log10": np.log10,
    "exp": np.exp,
    "sqrt": np.sqrt,
    "min": np.minimum,   # element-wise: min(a, b)
    "max": np.maximum,
    "isnan": np.isnan,
    "isfinite": np.isfinite,
}
_BIN = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
        ast.Div: operator.truediv, ast.Pow: operator.pow}
_CMP = {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge,
        ast.Eq: operator.eq, ast.NotEq: operator.ne}


def _fmin_nan(a, b):
    """Element-wise minimum that keeps ``nan`` (a comparison with ``nan`` has no margin)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return np.where(np.isnan(a) | np.isnan(b), np.nan, np.minimum(a, b))


def _exceeds(big, small, strict: bool = False):
    """The factor by which ``big`` exceeds ``small``: ``big/small`` for sides of one sign,
    ``inf`` when the comparison holds by sign, ``0`` when it fails by sign, 1 for equal sides
    (both zero: a sign comparison, ``0`` if ``strict``, else ``inf``)."""
    big, small = np.asarray(big, dtype=float), np.asarray(small, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        pos = (big > 0) & (small > 0)
        neg = (big < 0) & (small < 0)
        out = np.where(pos, big / np.where(pos, small, 1.0), np.where(neg, small / np.where(neg, big, 1.0), 0.0))
        out = np.where(~pos & ~neg & (big > small), np.inf, out)
        out = np.where(big == small, 1.0, out)
        out = np.where((big == 0) & (small == 0), 0.0 if strict else np.inf, out)
        return np.where(np.isnan(big) | np.isnan(small), np.nan, out)


def _comparison_margin(op, left, right):
    """Margin of one comparison ``left op right`` (see the module docstring)."""
    if op in (ast.Lt, ast.LtE):
        return _exceeds(right, left, strict=op is ast.Lt)
    if op in (ast.Gt, ast.GtE):
        return _exceeds(left, right, strict=op is ast.Gt)
    truth = _CMP[op](np.asarray(left, dtype=float), np.asarray(right, dtype=float))
    nan = np.isnan(np.asarray(left, dtype=float)) | np.isnan(np.asarray(right, dtype=float))
    return np.where(nan, np.nan, np.where(truth, np.inf, 0.0))


class Rule:
    """A parsed rule.

    Parameters
    ----------
    text : str
        The expression (see the module docstring); runs of white space are made one space.

    Raises
    ------
    ParameterError
        When ``text`` is empty, not an expression, or uses a construct outside the rule language.

    Examples
    --------
    >>> Rule("abs(x - 1) < 0.1 and y > 0")({"x": [1.05, 2.0], "y": [1, 1]})
    array([ True, False])
    """

    def __init__(self, text: str):
        if not isinstance(text, str) or not text.strip():
            raise ParameterError(f"a rule is a non-empty string, got {text!r}")
        self.text = " ".join(text.split())
        try:
            self._tree = ast.parse(self.text, mode="eval")
        except SyntaxError as e:
            raise ParameterError(f"rule {self.text!r} is not an expression: {e.msg}") from None
        self._validate(self._tree.body)

    def __repr__(self) -> str:
        return f"Rule({self.text!r})"

    @cached_property
    def names(self) -> frozenset[str]:
        """The measurement names the rule reads."""
        return frozenset(n.id for n in ast.walk(self._tree) if isinstance(n, ast.Name)
                         and n.id not in FUNCTIONS)

    def _validate(self, node) -> None:
        ok = (ast.Expression, ast.BoolOp, ast.And, ast.Or, ast.UnaryOp, ast.Not, ast.USub, ast.UAdd,
              ast.BinOp, ast.Compare, ast.Name, ast.Load, ast.Constant, ast.Call,
              *_BIN, *_CMP)
        for n in ast.walk(node):
            if not isinstance(n, ok):
                raise ParameterError(f"rule {self.text!r}: {type(n).__name__} is not allowed")
            if isinstance(n, ast.Constant) and not isinstance(n.value, (int, float)):
                raise ParameterError(f"rule {self.text!r}: only numbers are allowed as constants")
            if isinstance(n, ast.Call):
                if not (isinstance(n.func, ast.Name) and n.func.id in FUNCTIONS) or n.keywords:
                    raise ParameterError(f"rule {self.text!r}: calls are limited to {sorted(FUNCTIONS)}")

    def __call__(self, values: Mapping[str, object]) -> np.ndarray:
        """Evaluate the rule element-wise.

        Parameters
        ----------
        values : mapping of str to array-like
            Measurements by name, e.g. one entry per seed; every name the rule reads must be given.

        Returns
        -------
        np.ndarray
            Booleans, shape: the broadcast of the inputs.

        Raises
        ------
        ParameterError
            When a measurement the rule reads is missing.
        """
        missing = sorted(self.names - set(values))
        if missing:
            raise ParameterError(f"rule {self.text!r} needs measurement(s) {missing}")
        env = {k: np.asarray(values[k], dtype=float) for k in self.names}
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            out = self._eval(self._tree.body, env)
        return np.asarray(out, dtype=bool)

    def margin(self, values: Mapping[str, object]) -> np.ndarray:
        """The factor by which each seed's measurements clear (> 1) or miss (< 1) the rule.

        Parameters
        ----------
        values : mapping of str to array-like
            Measurements by name, as for :meth:`__call__`.

        Returns
        -------
        np.ndarray
            Float factors, shape: the broadcast of the inputs (see the module docstring).
        """
        missing = sorted(self.names - set(values))
        if missing:
            raise ParameterError(f"rule {self.text!r} needs measurement(s) {missing}")
        env = {k: np.asarray(values[k], dtype=float) for k in self.names}
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            return np.asarray(self._margin(self._tree.body, env), dtype=float)

    def _margin(self, n, env):
        if isinstance(n, ast.BoolOp):
            vals = [self._margin(v, env) for v in n.values]
            f = np.fmin if isinstance(n.op, ast.And) else np.fmax
            out = vals[0]
            for v in vals[1:]:
                out = f(out, v)
            nan = np.zeros(np.shape(out), bool)
            for v in vals:
                nan = nan | np.isnan(v)
            return np.where(nan, np.nan, out)
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not):
            return 1.0 / self._margin(n.operand, env)
        if isinstance(n, ast.Compare):
            left, out = self._eval(n.left, env), np.inf
            for op, comp in zip(n.ops, n.comparators):
                right = self._eval(comp, env)
                out = _fmin_nan(out, _comparison_margin(type(op), left, right))
                left = right
            return out
        truth = np.asarray(self._eval(n, env), dtype=float)
        return np.where(np.isnan(truth), np.nan, np.where(truth != 0, np.inf, 0.0))

    def _eval(self, n, env):
        if isinstance(n, ast.Constant):
            return float(n.value)
        if isinstance(n, ast.Name):
            return env[n.id]
        if isinstance(n, ast.BinOp):
            return _BIN[type(n.op)](self._eval(n.left, env), self._eval(n.right, env))
        if isinstance(n, ast.UnaryOp):
            v = self._eval(n.operand, env)
            if isinstance(n.op, ast.Not):
                return np.logical_not(np.asarray(v, dtype=bool))
            return -v if isinstance(n.op, ast.USub) else +v
        if isinstance(n, ast.BoolOp):
            vals = [np.asarray(self._eval(v, env), dtype=bool) for v in n.values]
            f = np.logical_and if isinstance(n.op, ast.And) else np.logical_or
            out = vals[0]
            for v in vals[1:]:
                out = f(out, v)
            return out
        if isinstance(n, ast.Compare):
            left, out = self._eval(n.left, env), True
            for op, comp in zip(n.ops, n.comparators):
                right = self._eval(comp, env)
                out = np.logical_and(out, _CMP[type(op)](left, right))
                left = right
            return out
        if isinstance(n, ast.Call):
            return FUNCTIONS[n.func.id](*(self._eval(a, env) for a in n.args))
        raise ParameterError(f"rule {self.text!r}: cannot evaluate {type(n).__name__}")  # pragma: no cover
