"""Validation of a chapter's papermill parameters (the ``parameters`` cell).

A wrong parameter stops the notebook at once with a message that names the
parameter, what it got, what it accepts and how to pass it with papermill.
"""

from __future__ import annotations

import os
from pathlib import Path

from .checks import integer
from .errors import ParameterError


def _fail(name: str, got: object, want: str, example: str) -> None:
    raise ParameterError(
        f"papermill parameter `{name}` must be {want}; got {got!r} ({type(got).__name__}). "
        f"Pass it as e.g. `-p {name} {example}`."
    )


def check_int(name: str, value: object, *, low: int = 0, high: int | None = None) -> int:
    """Check that a papermill parameter is a whole number in ``[low, high]``.

    The number test is :func:`lrlib.checks.integer`'s (Python or numpy integers; bools rejected);
    only the message differs: it says how to pass the parameter.

    Parameters
    ----------
    name : str
        The parameter's name, for the error message.
    value : object
        The value passed.
    low : int
        The smallest value accepted.
    high : int or None
        The largest value accepted (``None``: no bound).

    Returns
    -------
    int
        ``value`` as a Python ``int``.

    Raises
    ------
    ParameterError
        When ``value`` is not an integer in ``[low, high]``.
    """
    rng = f"≥ {low}" if high is None else f"in [{low}, {high}]"
    try:
        v = integer(name, value, low=low)
    except ParameterError:
        _fail(name, value, f"an integer {rng}", str(low))
    if high is not None and v > high:
        _fail(name, value, f"an integer {rng}", str(low))
    return v


def check_bool(name: str, value: object) -> bool:
    """Check that a papermill parameter is ``True`` or ``False``.

    Parameters
    ----------
    name, value : str, object
        The parameter's name (for the error message) and the value passed.

    Returns
    -------
    bool
        ``value`` unchanged.

    Raises
    ------
    ParameterError
        When ``value`` is not a ``bool``.
    """
    if not isinstance(value, bool):
        _fail(name, value, "True or False", "True")
    return value


def check_path(name: str, value: object) -> str:
    """Check that a papermill parameter is an output path, and create its folder.

    Parameters
    ----------
    name : str
        The parameter's name, for the error message.
    value : object
        A path (``str`` or ``Path``); empty to skip writing.

    Returns
    -------
    str
        ``str(value)``.

    Raises
    ------
    ParameterError
        When ``value`` is not a ``str`` or ``Path``.
    """
    if not isinstance(value, (str, Path)):
        _fail(name, value, "a file path string (or '' for none)", "runs/ledger.json")
    if str(value):
        Path(value).expanduser().resolve().parent.mkdir(parents=True, exist_ok=True)
    return str(value)


QUICK_ENV = "LRLIB_QUICK"


def check_common(seed: object, quick: object, ledger_path: object) -> bool:
    """Check the parameters every chapter has: ``seed``, ``quick``, ``ledger_path``.

    Use it as ``quick = nbparams.check_common(seed, quick, ledger_path)``.

    Parameters
    ----------
    seed : object
        The base seed, an int in ``[0, 2**31 - 1]``.
    quick : object
        ``True`` to run at reduced size.
    ledger_path : object
        Where to write the claims ledger (``''``: nowhere); its folder is created.

    Returns
    -------
    bool
        The effective ``quick`` flag: ``quick``, or ``True`` when the environment variable
        ``LRLIB_QUICK`` is ``1`` (``make test`` sets it for nbval, so that the chapters run at
        full scale once, in the book build).

    Raises
    ------
    ParameterError
        When a parameter is invalid, or ``LRLIB_QUICK`` is set to other than ``0`` or ``1``.
    """
    check_int("seed", seed, low=0, high=2**31 - 1)
    check_bool("quick", quick)
    check_path("ledger_path", ledger_path)
    env = os.environ.get(QUICK_ENV, "")
    if env not in ("", "0", "1"):
        raise ParameterError(f"environment variable {QUICK_ENV} must be 0 or 1 (or unset); got {env!r}.")
    if env == "1" and not quick:
        print(f"{QUICK_ENV}=1 in the environment: running at reduced size (quick = True).")
        return True
    return quick
