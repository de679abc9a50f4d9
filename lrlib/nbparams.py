"""Validation of a chapter's papermill parameters (the ``parameters`` cell).

A wrong parameter stops the notebook at once with a message that names the
parameter, what it got, what it accepts and how to pass it with papermill.
"""

from __future__ import annotations

import os
from pathlib import Path

from .errors import ParameterError


def _fail(name: str, got: object, want: str, example: str) -> None:
    raise ParameterError(
        f"papermill parameter `{name}` must be {want}; got {got!r} ({type(got).__name__}). "
        f"Pass it as e.g. `-p {name} {example}`."
    )


def check_int(name: str, value: object, *, low: int = 0, high: int | None = None) -> int:
    """A whole number in ``[low, high]`` (bools are rejected)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < low or (high is not None and value > high):
        rng = f"≥ {low}" if high is None else f"in [{low}, {high}]"
        _fail(name, value, f"an integer {rng}", str(low))
    return value


def check_bool(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        _fail(name, value, "True or False", "True")
    return value


def check_path(name: str, value: object) -> str:
    """An output path (may be empty to skip writing); its folder is created."""
    if not isinstance(value, (str, Path)):
        _fail(name, value, "a file path string (or '' for none)", "runs/ledger.json")
    if str(value):
        Path(value).expanduser().resolve().parent.mkdir(parents=True, exist_ok=True)
    return str(value)


QUICK_ENV = "LRLIB_QUICK"


def check_common(seed: object, quick: object, ledger_path: object) -> bool:
    """Check the parameters every chapter has: ``seed``, ``quick``, ``ledger_path``.

    Returns the effective ``quick`` flag: ``quick``, or ``True`` when the environment
    variable ``LRLIB_QUICK`` is ``1`` (``make test`` sets it for nbval, so that the
    chapters run at full scale once, in the book build). Use it as
    ``quick = nbparams.check_common(seed, quick, ledger_path)``.
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
