"""Alternating Gradient Flows (Kunin et al. 2025): the general algorithm (:mod:`.core`) and the
closed forms for diagonal linear networks (:mod:`.dln`), fully connected linear networks
(:mod:`.linear`), the attention-only linear transformer (:mod:`.transformer`) and modular
addition (:mod:`.modular`).  Helpers that adapt these models to :func:`lrlib.train.train` live in
:mod:`.models`; the chapter's measurements in :mod:`.measure`, the claims' measurement functions in
:mod:`.claims` and :mod:`.claims_modular`.  ``from lrlib.theory import agf`` gives the submodules and
the general algorithm (``agf.agf``, ``agf.AGFRun``)."""

from . import claims, claims_modular, core, dln, linear, measure, models, modular, report, runs, transformer
from .core import AGFRun, agf

__all__ = ["claims", "claims_modular", "core", "dln", "linear", "measure", "models", "modular", "report", "runs",
           "transformer", "AGFRun", "agf"]
