"""Boursier, Pillaud-Vivien & Flammarion (NeurIPS 2022), gradient flow of shallow ReLU networks on
orthogonal inputs: the paper's data sets (:mod:`.data`), its closed forms (:mod:`.core`: key vectors,
neuron sets, the limit, the saddle, phase times) and the measurements behind the chapter's claims
(:mod:`.measure`). ``from lrlib.theory import orthogonal as th`` gives the closed forms and the
measurements; the data sets are ``th.data``."""

from . import claims, core, data, measure  # noqa: F401
from .core import *  # noqa: F401,F403
from .measure import *  # noqa: F401,F403
