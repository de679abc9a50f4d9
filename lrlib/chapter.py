"""The chapter kit: what every chapter does first and last, as one call each.

A chapter's first code cell after its ``parameters`` cell::

    ch = chapter.start("orthogonal", seed, quick, ledger_path)
    quick, N_SEEDS, ledger = ch.quick, ch.n_seeds, ch.ledger

and its last cell::

    ch.finish()

:func:`start` checks the papermill parameters (clear errors), pins torch to one thread (the
book executes two chapters at a time on two cores), sets the house plot style, and opens the
chapter's declared claims ledger for ``n_seeds`` seeds; :meth:`Chapter.finish` grades nothing
new — it checks every declared claim was graded, writes the ledger and displays its tables,
strictly (a control that passes or a pass rate outside its expectation fails the build) in the
book's own run: full size, base seed 0.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import torch

from . import nbparams
from .checks import positive_int
from .ledger import PUBLISHED_FULL, Ledger, headline, load_aggregate
from .ledger.aggregate import SWEEP_ENV
from .progress import recorded_timings
from .plots import glue, set_style


@dataclass
class Chapter:
    """One execution of a chapter: its parameters and its claims ledger (made by :func:`start`).

    Parameters
    ----------
    key : str
        The chapter key (``orthogonal``, …).
    seed : int
        The base seed.
    quick : bool
        Whether the chapter runs at reduced size.
    ledger_path : str
        Where :meth:`finish` writes the ledger (``''``: nowhere).
    n_seeds : int
        Seeds of every graded experiment.
    ledger : Ledger
        The chapter's claims ledger.
    """

    key: str
    seed: int
    quick: bool
    ledger_path: str
    n_seeds: int
    ledger: Ledger

    @property
    def strict(self) -> bool:
        """The book's own run (full size, base seed 0) is graded strictly."""
        return not self.quick and self.seed == 0

    def rate(self, claim: str) -> str:
        """The pass rate of a graded claim as the ledger states it, for the chapter's text.

        Parameters
        ----------
        claim : str
            The claim's id.

        Returns
        -------
        str
            ``reproduced 5/5``, ``3/5``, … (:func:`lrlib.ledger.verdicts.headline`); for a ``seeds: sweep``
            claim, the published sweep's.
        """
        r = self.ledger.results[claim]
        if r.decl.seeds == "sweep" and r.sweep_verdicts is None and os.environ.get(SWEEP_ENV) != "1":
            self.ledger.attach_sweep(load_aggregate(PUBLISHED_FULL), require_fresh=False)  # the published pass rate
        return headline(r.rate_verdicts)

    def finish(self):
        """Write the ledger to ``ledger_path`` (if given) and return its tables for display."""
        return self.ledger.finish(self.ledger_path, strict=self.strict)


def start(key: str, seed: object, quick: object, ledger_path: object, *, n_seeds: int = 5,
          quick_seeds: int = 2, threads: int = 1) -> Chapter:
    """Check the chapter's parameters and open its ledger.

    Parameters
    ----------
    key : str
        The chapter key (``orthogonal``, …): its claims file is ``notebooks/NN_<key>.claims.yaml``.
    seed, quick, ledger_path : object
        The papermill parameters every chapter has (see :func:`lrlib.nbparams.check_common`;
        ``LRLIB_QUICK=1`` forces ``quick``).
    n_seeds, quick_seeds : int
        Seeds of every graded experiment at full and reduced size.
    threads : int
        Torch intra-op threads (1: the book runs two chapters at a time on two cores).

    Returns
    -------
    Chapter
        The chapter's parameters and its opened ledger.

    Raises
    ------
    ParameterError
        When a parameter is invalid.
    """
    quick = nbparams.check_common(seed, quick, ledger_path)
    n = positive_int("quick_seeds" if quick else "n_seeds", quick_seeds if quick else n_seeds)
    torch.set_num_threads(positive_int("threads", threads))
    set_style()
    ledger = Ledger.declared(key, n_seeds=n, base_seed=seed)
    print(f"{key}: seed = {seed}, quick = {quick}, {n} seeds per graded experiment")
    glue_rerun_costs(key)
    return Chapter(key=key, seed=seed, quick=quick, ledger_path=str(ledger_path), n_seeds=n, ledger=ledger)


def rerun_costs(key: str) -> dict[str, str]:
    """What rerunning a chapter costs on a 2-core machine, from the last recorded timings.

    Parameters
    ----------
    key : str
        The chapter key.

    Returns
    -------
    dict of str to str
        ``quick`` and ``full``: the reduced-size and the full rerun, in words (``about 50 s``,
        ``about 4.1 min``; ``not recorded yet``), from ``benchmarks/results.json``.
    """
    out = {}
    for size, quick in (("quick", True), ("full", False)):
        rec = [v["seconds"] for k, v in recorded_timings(quick=quick).items() if k.split("_", 1)[-1] == key]
        s = rec[0] if rec else None
        out[size] = "not recorded yet" if s is None else (f"about {s:.0f} s" if s < 90 else f"about {s / 60:.1f} min")
    return out


def glue_rerun_costs(key: str) -> None:
    """Glue :func:`rerun_costs` as ``<key>-rerun-quick`` and ``<key>-rerun-full`` (text), for the
    chapter's header.

    Parameters
    ----------
    key : str
        The chapter key.
    """
    for size, text in rerun_costs(key).items():
        glue(f"{key}-rerun-{size}", text, display=False)


__all__ = ["Chapter", "glue_rerun_costs", "rerun_costs", "start"]
