"""Numbers as the ledger writes them: one formatting for the ledger's tables, the chapters' notes
and the theory packages' printed rows (a pure module: no grading, so a theory package may use it)."""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np


def fmt(x: Any, digits: int = 4) -> str:
    """Compact number formatting for the ledger (``nan`` stays ``nan``; strings pass).

    Parameters
    ----------
    x : number, str or None
        The value; ``None`` is shown as ``nan``.
    digits : int
        Significant digits (``g`` format).

    Returns
    -------
    str
    """
    if isinstance(x, str):
        return x
    if x is None:
        return "nan"
    x = float(x)
    if math.isnan(x):
        return "nan"
    return f"{x:.{digits}g}"


def fmt_values(values: Mapping[str, np.ndarray], names=None) -> str:
    """Measurements as text: ``name value`` for one seed, ``name lo–hi`` over several (nan-aware).

    Parameters
    ----------
    values : mapping of str to array-like
        Measurements by name, each a scalar or an array over seeds.
    names : iterable of str or None
        The names to show, in order; ``None``: all of ``values``.

    Returns
    -------
    str
        The entries joined by ``; `` (a count of ``nan`` seeds is appended to a range).
    """
    parts = []
    for k in (names or values):
        v = np.atleast_1d(np.asarray([np.nan if x is None else x for x in np.atleast_1d(values[k]).tolist()],
                                     dtype=float))
        fin = v[np.isfinite(v)]
        extra = ", ".join(f"{n} {w}" for n, w in ((int(np.isnan(v).sum()), "nan"), (int(np.isinf(v).sum()), "inf")) if n)
        if v.size == 1 or (fin.size and fin.min() == fin.max() and fin.size == v.size):
            s = fmt(v[0])
        elif fin.size == 0:
            s = fmt(v[0]) if (v == v[0]).all() else extra
        else:
            s = f"{fmt(fin.min())}–{fmt(fin.max())}" + (f" ({extra})" if extra else "")
        parts.append(f"{k} {s}")
    return "; ".join(parts)


__all__ = ["fmt", "fmt_values"]
