"""Alternating Gradient Flows (Kunin et al. 2025): the general algorithm (:mod:`.core`) and the
closed forms for diagonal linear networks (:mod:`.dln`), fully connected linear networks
(:mod:`.linear`), the attention-only linear transformer (:mod:`.transformer`) and modular
addition (:mod:`.modular`).  Helpers that adapt these models to :func:`lrlib.train.train` live in
:mod:`.models`."""

from . import core, dln, linear, modular, transformer  # noqa: F401
from .core import AGFRun, agf  # noqa: F401
