"""Grading: a chapter's claims measured over seeds, with margins, controls and tiers.

The chapter hands the ledger *runs*, and the ledger applies each claim's declared measurement
function (:func:`lrlib.ledger.declarations.resolve_measure`) to all of them::

    ledger = Ledger.declared("orthogonal", n_seeds=5, base_seed=seed)
    ledger.measure("fig3.timings", toy, controls={"toy_big": toy_big}, init=toy_init,
                   premises=dict(step_gap=step_gap))
    ...
    ledger.finish(ledger_path, strict=not quick and seed == 0)

so that a notebook cannot hand in a control value by hand. Per seed: a failed premise gives
``premise not met``; otherwise a true ``inconclusive`` condition gives ``inconclusive``; otherwise
the rule gives ``reproduced``, the declared partial tier ``partial``, or ``not reproduced``. Each
seed also gets its **margin** (:meth:`lrlib.ledger.rules.Rule.margin`): the factor by which it
clears (> 1) or misses (< 1) the rule.

The control run goes through the same measurement and rule (premises are not applied: a control
breaks a premise on purpose). A control seed whose measurement is undefined (``nan``, no event) is
``inconclusive``, never a rejection, unless its defined measurements already fail the rule (an event that did not happen within the run is not undefined:
a measurement reports it as ``inf``, beyond every threshold, and the run's horizon should make that
meaningful); a control that passes fails the book's own run
(:class:`ControlPassed`), in the build and in any seed of the published sweep.

The ledger also grades the measurement on the **initial state** (``init=``, zero steps or an
untrained network) and on a run with a step far too large for the flow (``coarse=``; for claims
about the time course of the flow, not for claims about its end point, which a stable coarse GD
may share). A rule that passes there in at least half the seeds does not test the dynamics: the
claim's tier becomes ``consistency``, with that reason.

**Tiers** (:meth:`Result.tier`): ``consistency`` (declared, or as above, or a threshold whose
control does not land clearly on the other side), ``loose bound`` (the paper's own bound met
with a median margin >= 10), ``quantitative`` (everything else that reproduces the paper);
``inconclusive`` (an undefined control), ``not graded`` (a reproduction whose every seed is premise
not met or inconclusive: no evidence either way) and ``legacy`` (a claim still graded on handed-in
values, :meth:`Ledger.grade`) are counted apart.

A claim with ``seeds: sweep`` is too costly to run for five seeds in the build: the build
measures one seed, and the claim's pass rate is read from the published full-size sweep, which
must have been made from the same code, else the book's own run fails with
:class:`~lrlib.ledger.aggregate.StaleSweep`.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

import numpy as np

from ..errors import LrlibError, ParameterError
from .aggregate import PUBLISHED_FULL, SCHEMA, SWEEP_ENV, StaleSweep, load_aggregate, published_control_failures
from ..paths import NOTEBOOKS_DIR, chapter_paths
from .declarations import Control, Declaration, load_declarations, resolve_measure, rule_candidates, rule_constants
from .provenance import code_hash
from .text import fmt, fmt_values
from .rules import Rule
from .view import chapter_tables
from .verdicts import CLEAR_FACTOR, LOOSE_FACTOR, expectation_met, headline, pass_rate


class VerdictMismatch(LrlibError):
    """A claim's pass rate left its declared expectation."""


class ControlPassed(LrlibError):
    """A negative control was accepted by the check that should reject it."""


# ---------------------------------------------------------------------------------
# formatting

def _as_lists(values: Mapping[str, Any]) -> dict[str, list]:
    """Measurements as JSON-safe lists: ``nan`` (undefined) as ``None``, ``±inf`` (an event that did
    not happen within the run, beyond any threshold) as the strings ``"inf"`` / ``"-inf"``."""
    out = {}
    for k, v in values.items():
        a = np.atleast_1d(np.asarray(v.detach().cpu() if hasattr(v, "detach") else v, dtype=float))
        out[k] = [None if math.isnan(x) else ("inf" if x > 0 else "-inf") if math.isinf(x) else float(x)
                  for x in a.ravel()]
    return out


def _nan(values: dict[str, list]) -> dict[str, np.ndarray]:
    return {k: np.array([np.nan if x is None else float(x) for x in v], dtype=float) for k, v in values.items()}


# ---------------------------------------------------------------------------------
# grading

def _names(decl: Declaration, *, premises: bool = True) -> set[str]:
    rules = [decl.rule, decl.partial, decl.inconclusive if premises else ""]
    rules += [p.rule for p in decl.premises] if premises else []
    return set().union(*(Rule(r).names for r in rules if r))


def grade_seeds(decl: Declaration, values: Mapping[str, Any]) -> list[str]:
    """Per-seed verdicts of a declaration (see the module docstring for the order of the tests).

    Parameters
    ----------
    decl : Declaration
        The claim.
    values : mapping of str to array-like
        Measurements by name, each a scalar or an array over seeds; every name the rule,
        partial tier, inconclusive condition and premises read.

    Returns
    -------
    list of str
        One verdict per seed (the broadcast of the measurements, flattened).

    Raises
    ------
    ParameterError
        When a measurement is missing.
    """
    names = _names(decl)
    missing = sorted(names - set(values))
    if missing:
        raise ParameterError(f"claim {decl.id!r} needs measurement(s) {missing} "
                             f"(its rule, partial tier, inconclusive condition and premises read {sorted(names)})")
    shape = _shape(values, names)
    n = int(np.prod(shape)) if shape else 1

    def ev(text):
        return np.broadcast_to(Rule(text)(values), shape).reshape(n) if text else np.zeros(n, bool)

    ok, part, inc = ev(decl.rule), ev(decl.partial), ev(decl.inconclusive)
    good = np.ones(n, bool)
    for p in decl.premises:
        good &= ev(p.rule)
    return ["premise not met" if not good[i] else "inconclusive" if inc[i] else "reproduced" if ok[i]
            else "partial" if part[i] else "not reproduced" for i in range(n)]


def _shape(values: Mapping[str, Any], names) -> tuple:
    return np.broadcast_shapes(*(np.shape(np.asarray(values[k], dtype=float)) for k in names)) if names else ()


def margins(decl: Declaration, values: Mapping[str, Any]) -> list[float]:
    """Per-seed margins of a claim's rule (:meth:`lrlib.ledger.rules.Rule.margin`).

    Parameters
    ----------
    decl : Declaration
        The claim.
    values : mapping of str to array-like
        The measurements, as for :func:`grade_seeds`.

    Returns
    -------
    list of float
        One factor per seed (``nan`` where a measurement the rule reads is undefined).
    """
    rule = Rule(decl.rule)
    shape = _shape(values, _names(decl))
    m = np.broadcast_to(rule.margin(values), shape).reshape(-1) if shape else np.atleast_1d(rule.margin(values))
    return [float(x) for x in m]


def _bare(decl: Declaration) -> Declaration:
    """The claim's rule alone: premises, inconclusive condition, history and sensitivities removed
    (how a control run is graded)."""
    return Declaration(**{**asdict(decl), "premises": (), "inconclusive": "", "history": (),
                          "sensitivity": (), "control": decl.control})


def grade_control(decl: Declaration, values: Mapping[str, Any]) -> list[str]:
    """Verdicts of the rule (and partial tier) alone on a control's measurements.

    Premises and the inconclusive condition are not applied. A seed where a measurement the rule
    reads is undefined (``nan``) is ``inconclusive`` (an undefined control is no rejection) unless
    the rule fails whatever the undefined measurements were: a seed whose defined measurements
    already fail the rule (no value put in place of its ``nan`` makes it pass, see
    :func:`could_pass`) is ``not reproduced``.

    Parameters
    ----------
    decl : Declaration
        The claim.
    values : mapping of str to array-like
        The control's measurements, as in :func:`grade_seeds`.

    Returns
    -------
    list of str
        One verdict per seed.
    """
    bare = _bare(decl)
    out = grade_seeds(bare, values)
    rule = Rule(decl.rule)
    shape = _shape(values, _names(bare))
    n = int(np.prod(shape)) if shape else 1
    flat = {k: np.broadcast_to(np.asarray(values[k], dtype=float), shape).reshape(n) for k in rule.names}
    verdicts = []
    for i, v in enumerate(out):
        seed = {k: a[i] for k, a in flat.items()}
        if any(np.isnan(x) for x in seed.values()):
            v = "inconclusive" if could_pass(rule, seed) else "not reproduced"
        verdicts.append(v)
    return verdicts


def verdicts_by_variant(decls: Mapping[str, Declaration], claims: Iterable[str],
                        variants: Mapping[str, Mapping[str, Any]], *, run: int | None = None,
                        premises: bool = False) -> dict[str, dict[str, Any]]:
    """Each claim's verdict on each variant of a run (another step, a finer grid, more images):
    the one way the chapters ask whether a verdict survives a change of protocol.

    Parameters
    ----------
    decls : mapping of str to Declaration
        Claim id → declaration (``Ledger.decls``).
    claims : iterable of str
        The claims to grade.
    variants : mapping of str to mapping
        Variant label (e.g. the step) → its measurements, name → scalar or array over seeds; every
        name the graded claims read.
    run : int or None
        Grade this seed alone and give its verdict as a str (default: every seed, as a list).
    premises : bool
        Grade the whole declaration (:func:`grade_seeds`: premises and inconclusive condition
        applied) instead of the rule alone (:func:`grade_control`, the default).

    Returns
    -------
    dict
        ``{variant label: {claim id: verdict(s)}}``; compare two labels' entries for "the same
        verdict".
    """
    grade = grade_seeds if premises else grade_control
    claims = tuple(claims)
    out = {}
    for label, m in variants.items():
        verdicts = {c: grade(decls[c], m) for c in claims}
        out[label] = verdicts if run is None else {c: v[run] for c, v in verdicts.items()}
    return out


def could_pass(rule: Rule, seed: Mapping[str, float], n: int = 4000) -> bool:
    """Whether some values in place of a seed's undefined (``nan``) measurements make the rule pass.

    Parameters
    ----------
    rule : Rule
        The claim's rule.
    seed : mapping of str to float
        One seed's measurements; the ``nan`` ones are replaced by candidates (both infinities, zero,
        the rule's constants and values around them, log-uniform magnitudes of both signs).
    n : int
        Candidate combinations tried.

    Returns
    -------
    bool
    """

    rng = np.random.default_rng(0)
    free = [k for k, x in seed.items() if np.isnan(x)]
    consts = rule_constants(rule.text)
    trial = {k: np.full(n, float(x)) for k, x in seed.items()}
    for k in free:
        c = rule_candidates(consts, rng, n)
        c[:4] = [np.inf, -np.inf, 0.0, 1.0]
        trial[k] = c
    return bool(rule(trial).any())


def _rule_only(decl: Declaration, values: Mapping[str, Any]) -> list[str]:
    """The rule alone (no premises, no partial tier), for the initial state and the coarse run."""
    r = np.atleast_1d(Rule(decl.rule)(values))
    return ["reproduced" if x else "not reproduced" for x in r.reshape(-1)]


@dataclass
class Result:
    """A graded claim: the declaration, the measured values, verdicts and margins.

    Parameters
    ----------
    decl : Declaration
        The claim.
    seeds : list of int
        Labels of the seeds measured.
    values : dict of str to list of float
        Measurements by name, one entry per seed (``None`` for a non-finite value).
    verdicts : list of str
        One verdict per seed.
    margins : list of float
        One margin per seed (:func:`margins`).
    control_values : dict of str to list of float
        The measurements of the control run (legacy: handed-in values).
    control_verdicts : list of str
        The rule's verdicts on the control run.
    control_margins : list of float
        The rule's margins on the control run.
    init_verdicts, init_margins : list
        The rule on the initial state (empty: not measured).
    coarse_verdicts, coarse_margins : list
        The rule on a run with a step far too large for the flow (empty: not measured).
    sensitivity : list of dict
        ``{name, factor, verdicts}`` per declared sensitivity.
    note : str
        Shown beside the measured value (context, never graded).
    sweep_verdicts : list of str or None
        For ``seeds: sweep`` claims, the verdicts of the published sweep.
    sweep_source : str
        Where ``sweep_verdicts`` come from.
    """

    decl: Declaration
    seeds: list[int]
    values: dict[str, list[float]]
    verdicts: list[str]
    margins: list[float] = field(default_factory=list)
    control_values: dict[str, list[float]] = field(default_factory=dict)
    control_verdicts: list[str] = field(default_factory=list)
    control_margins: list[float] = field(default_factory=list)
    init_verdicts: list[str] = field(default_factory=list)
    init_margins: list[float] = field(default_factory=list)
    coarse_verdicts: list[str] = field(default_factory=list)
    coarse_margins: list[float] = field(default_factory=list)
    sensitivity: list[dict] = field(default_factory=list)
    note: str = ""
    sweep_verdicts: list[str] | None = None
    sweep_source: str = ""

    def array(self, name: str, control: bool = False) -> np.ndarray:
        """A measurement as floats, one per seed: the stored ``None`` (undefined) back to ``nan`` and
        ``"inf"`` / ``"-inf"`` (did not happen within the run) back to ``±inf``.

        Parameters
        ----------
        name : str
            The measured name.
        control : bool
            The control run's value instead of the main run's.

        Returns
        -------
        np.ndarray
            ``(seeds,)`` float.
        """
        vals = (self.control_values if control else self.values)[name]
        return np.array([np.nan if v is None else float(v) for v in np.ravel(np.asarray(vals, dtype=object))])

    @property
    def rate_verdicts(self) -> list[str]:
        """The verdicts the pass rate is computed from (the sweep's, for ``seeds: sweep``)."""
        return self.sweep_verdicts if self.sweep_verdicts is not None else self.verdicts

    @property
    def expected_ok(self) -> bool:
        return expectation_met(self.decl.expect, self.rate_verdicts)

    @property
    def control_status(self) -> str:
        """``none`` (consistency), ``passed``, ``inconclusive`` (undefined, none passed) or ``rejected``."""
        if self.decl.kind == "consistency":
            return "none"
        cv = self.control_verdicts
        if not cv:
            return "inconclusive"
        if any(v in ("reproduced", "partial") for v in cv):
            return "passed"
        if any(v == "inconclusive" for v in cv):
            return "inconclusive"
        return "rejected"

    @property
    def control_ok(self) -> bool:
        return self.control_status != "passed"

    def tier(self) -> tuple[str, str]:
        """The claim's tier and the reason (see the module docstring).

        Returns
        -------
        tuple of str
            ``(tier, reason)``.
        """
        d = self.decl
        if d.kind == "consistency":
            return "consistency", "declared" + (f": {d.reason}" if d.reason else " a consistency check")
        if d.kind == "reproduction" and not pass_rate(self.rate_verdicts)[1]:
            return "not graded", "premise not met (or inconclusive) in every seed: no evidence either way"
        if _most(self.init_verdicts):
            return "consistency", (f"the rule already holds at initialisation "
                                   f"({self.init_verdicts.count('reproduced')}/{len(self.init_verdicts)} seeds)")
        if _most(self.coarse_verdicts):
            return "consistency", (f"the rule holds for a step far too large for the flow "
                                   f"({self.coarse_verdicts.count('reproduced')}/{len(self.coarse_verdicts)} seeds)")
        if d.legacy:
            return "legacy", "graded on handed-in values: the control is not checked to be a run"
        if self.control_status == "inconclusive":
            return "inconclusive", "the control's measurement is undefined"
        passing = [m for m, v in zip(self.margins, self.verdicts) if v == "reproduced" and math.isfinite(m)]
        if d.rule_kind == "bound" and passing and float(np.median(passing)) >= LOOSE_FACTOR:
            return "loose bound", f"median slack ×{float(np.median(passing)):.3g} inside the paper's bound"
        if d.rule_kind == "threshold":
            cm = [m for m in self.control_margins if not math.isnan(m)]
            if cm and max(cm) > CLEAR_FACTOR:
                return "consistency", (f"the control is not clearly on the other side (margin up to ×{max(cm):.3g}, "
                                       f"clear: ≤ ×{CLEAR_FACTOR})")
        return "quantitative", ""

    def measured(self) -> str:
        return fmt_values(self.values)

    def control_measured(self) -> str:
        return fmt_values(self.control_values) if self.control_values else ""

    def to_json(self) -> dict:
        d = asdict(self.decl)
        d["control"] = self.decl.control_text
        d["control_run"] = self.decl.control.run if isinstance(self.decl.control, Control) else ""
        passes, graded = pass_rate(self.rate_verdicts)
        tier, why = self.tier()
        d.update(
            seeds_run=self.seeds, values=self.values, verdicts=self.verdicts, margins=_finite(self.margins),
            measured=self.measured(), control_values=self.control_values,
            control_measured=self.control_measured(), control_verdicts=self.control_verdicts,
            control_margins=_finite(self.control_margins), control_status=self.control_status,
            init_verdicts=self.init_verdicts, init_margins=_finite(self.init_margins),
            coarse_verdicts=self.coarse_verdicts, coarse_margins=_finite(self.coarse_margins),
            sensitivity=self.sensitivity, tier=tier, tier_reason=why,
            passes=passes, graded=graded, headline=headline(self.rate_verdicts),
            pass_source=self.sweep_source or "build", expected_ok=self.expected_ok,
            control_ok=self.control_ok, note=self.note,
        )
        d["seeds"] = self.decl.seeds
        return d


def _most(verdicts: list[str]) -> bool:
    """At least half the seeds pass (one seed of five passing by chance is no verdict on the rule)."""
    return bool(verdicts) and 2 * verdicts.count("reproduced") >= len(verdicts)


def _finite(xs: list[float]) -> list:
    """JSON-safe margins: ``inf`` as the string ``"inf"``, ``nan`` as ``None``."""
    return [None if math.isnan(x) else ("inf" if x == math.inf else x) for x in xs]


class Ledger:
    """The graded claims of one chapter, in declaration order.

    Parameters
    ----------
    chapter : str
        The chapter key (``orthogonal``, ...).
    declarations : list of Declaration
        Usually from :meth:`declared`.
    seeds : list of int
        Labels of the seeds a ``seeds: build`` claim is measured on (the chapter's batched
        runs ``0..n-1`` of base seed ``s`` are labelled ``s..s+n-1``).
    notebooks_dir : str or Path or None
        The folder of the chapter's notebook, for :func:`~lrlib.ledger.provenance.code_hash`;
        ``None``: ``notebooks/``.
    """

    def __init__(self, chapter: str, declarations: list[Declaration], seeds: list[int],
                 notebooks_dir: str | Path | None = None):
        self.chapter = chapter
        self.notebooks_dir = Path(notebooks_dir) if notebooks_dir is not None else NOTEBOOKS_DIR
        self.decls = {d.id: d for d in declarations}
        self.seeds = list(seeds)
        self.results: dict[str, Result] = {}

    @classmethod
    def declared(cls, chapter: str, *, n_seeds: int = 5, base_seed: int = 0,
                 path: str | Path | None = None) -> "Ledger":
        """The ledger of a chapter with the declarations of its claims file.

        Parameters
        ----------
        chapter : str
            The chapter key.
        n_seeds : int
            Seeds of a ``seeds: build`` claim.
        base_seed : int
            The first seed's label (the seeds are ``base_seed .. base_seed + n_seeds - 1``).
        path : str or Path or None
            The claims file; ``None``: the ``NN_<chapter>.claims.yaml`` in the working directory
            (the notebook's folder for a chapter run by papermill, nbval or the book), else in
            ``notebooks/``.

        Returns
        -------
        Ledger
            With no claim graded yet.

        Raises
        ------
        ParameterError
            When the claims file is not found or invalid.
        """
        if path is None:
            local = sorted(Path.cwd().glob(f"[0-9][0-9]_{chapter}.claims.yaml"))
            path = local[0] if len(local) == 1 else chapter_paths(chapter)[1]
        path = Path(path).resolve()
        return cls(chapter, load_declarations(path), list(range(base_seed, base_seed + n_seeds)),
                   notebooks_dir=path.parent)

    # ---- grading ------------------------------------------------------------
    def _decl(self, id: str) -> Declaration:
        if id not in self.decls:
            raise ParameterError(f"claim {id!r} is not declared in the claims file of {self.chapter!r}")
        if id in self.results:
            raise ParameterError(f"claim {id!r} graded twice")
        return self.decls[id]

    def _result(self, decl: Declaration, values: dict, note: str) -> Result:
        verdicts = grade_seeds(decl, _nan(values))
        expected_n = 1 if decl.seeds == "sweep" else len(self.seeds)
        if decl.kind == "reproduction" and len(verdicts) not in (1, expected_n):
            raise ParameterError(f"claim {decl.id!r}: measured {len(verdicts)} seed(s), expected {expected_n}")
        res = Result(decl, self.seeds[:len(verdicts)], values, verdicts, note=note)
        res.margins = margins(decl, _nan(values))
        for s in decl.sensitivity:
            v = _nan(values)
            v[s.name] = v[s.name] * s.factor
            res.sensitivity.append({"name": s.name, "factor": s.factor, "verdicts": grade_seeds(decl, v)})
        return res

    def _side_runs(self, res: Result, control: Mapping | None, init: Mapping | None, coarse: Mapping | None) -> None:
        decl = res.decl
        if control is not None:
            res.control_values = _as_lists(control)
            res.control_verdicts = grade_control(decl, _nan(res.control_values))
            res.control_margins = margins(_bare(decl), _nan(res.control_values))
        for name, vals in (("init", init), ("coarse", coarse)):
            if vals is not None:
                v = _nan(_as_lists({k: vals[k] for k in Rule(decl.rule).names}))
                setattr(res, f"{name}_verdicts", _rule_only(decl, v))
                setattr(res, f"{name}_margins", [float(x) for x in np.atleast_1d(Rule(decl.rule).margin(v)).reshape(-1)])

    def measure(self, id: str, run: Any, *, controls: Mapping[str, Any] | None = None, init: Any = None,
                coarse: Any = None, premises: Mapping[str, Any] | None = None, note: str = "",
                **context: Any) -> Result:
        """Grade a claim by applying its declared measurement to the runs.

        Parameters
        ----------
        id : str
            The declared claim's id (in the new form: with ``measure``).
        run : object
            The main runs (batched over seeds), passed to the measurement function.
        controls : mapping of str to object, or None
            The control runs by name; the one the declaration names (``control.run``) is measured.
            Required for a reproduction, refused for a consistency check.
        init : object or None
            The same runs at their initial state (zero steps, untrained), where defined.
        coarse : object or None
            The same runs with a step far too large for the flow, where defined.
        premises : mapping of str to array-like, or None
            Premise measurements of the main runs (step convergence, assumptions, ...).
        note : str
            Context shown beside the measured value (never graded).
        **context : object
            Passed to every call of the measurement function.

        Returns
        -------
        Result
            The graded claim (also kept in :attr:`results`).

        Raises
        ------
        ParameterError
            When the claim is undeclared, in the legacy form, graded twice, the control run is
            missing or not allowed, or a measurement is missing.
        """
        decl = self._decl(id)
        if decl.legacy:
            raise ParameterError(f"claim {id!r} declares no measurement function (field `measure`): use grade()")
        f = resolve_measure(decl)
        if decl.kind == "reproduction":
            if not controls or decl.control.run not in controls:
                raise ParameterError(f"claim {id!r}: its control is the run {decl.control.run!r} "
                                     f"({decl.control.removes}); pass controls={{{decl.control.run!r}: ...}}")
        elif controls:
            raise ParameterError(f"claim {id!r} is a consistency check: it takes no control")
        values = _as_lists({**dict(f(run, **context)), **dict(premises or {})})
        res = self._result(decl, values, note)
        ctrl = f(controls[decl.control.run], **context) if decl.kind == "reproduction" else None
        self._side_runs(res, ctrl, None if init is None else f(init, **context),
                        None if coarse is None else f(coarse, **context))
        self.results[id] = res
        return res

    def grade(self, id: str, *, control: Mapping[str, Any] | None = None, init: Mapping[str, Any] | None = None,
              note: str = "", **measurements: Any) -> Result:
        """Grade a claim in the legacy form, on handed-in measurements (see :meth:`measure`).

        Parameters
        ----------
        id : str
            The declared claim's id (without ``measure``).
        control : mapping of str to array-like, or None
            The same names measured on the control (required for a reproduction claim, refused
            for a consistency check).
        init : mapping of str to array-like, or None
            The rule's names measured on the initial state.
        note : str
            Shown beside the measured value (context, never graded).
        **measurements : array-like
            Each a scalar or an array over seeds; the names the rule, partial tier,
            inconclusive condition and premises read.

        Returns
        -------
        Result

        Raises
        ------
        ParameterError
            When the claim is undeclared, in the new form, graded twice, the control is missing or
            not allowed, a measurement is missing, or the number of seeds is wrong.
        """
        decl = self._decl(id)
        if not decl.legacy:
            raise ParameterError(f"claim {id!r} declares its measurement ({decl.measure}): use measure() with its runs")
        if decl.kind == "reproduction" and control is None:
            raise ParameterError(f"claim {id!r}: a reproduction claim is graded with its control ({decl.control})")
        if decl.kind == "consistency" and control is not None:
            raise ParameterError(f"claim {id!r} is a consistency check: it takes no control")
        res = self._result(decl, _as_lists(measurements), note)
        self._side_runs(res, control, init, None)
        self.results[id] = res
        return res

    # ---- output -------------------------------------------------------------
    def missing(self) -> list[str]:
        return [i for i in self.decls if i not in self.results]

    def attach_sweep(self, agg: Mapping | None, *, require_fresh: bool) -> None:
        """Take the verdicts of ``seeds: sweep`` claims from a published sweep aggregate.

        Parameters
        ----------
        agg : mapping or None
            The aggregate (:func:`~lrlib.ledger.aggregate.load_aggregate`), or ``None``.
        require_fresh : bool
            Raise when a claim needs the sweep and the sweep is missing or was made from other code.

        Raises
        ------
        StaleSweep
            With ``require_fresh``, as above.
        """
        need = [r for r in self.results.values() if r.decl.seeds == "sweep"]
        if not need:
            return
        here = code_hash(self.chapter, self.notebooks_dir)
        chap = (agg or {}).get("chapters", {}).get(self.chapter, {}) if agg else {}
        fresh = bool(chap) and chap.get("code_hash") == here
        if require_fresh and not fresh:
            why = ("no published full-size sweep has this chapter" if not chap else
                   f"it was made from code {chap.get('code_hash')} and the chapter now hashes to {here}")
            raise StaleSweep(
                f"{len(need)} claim(s) of {self.chapter!r} take their pass rate from the published sweep, "
                f"but {why}. Run `python -m lrlib.sweep --chapters {self.chapter} --seeds 0 1 2 3 4 --publish` "
                f"and commit book/ledger_data/.")
        for r in need:
            c = (agg or {}).get("claims", {}).get(f"{self.chapter}.{r.decl.id}") if agg else None
            if c:
                r.sweep_verdicts = [v for run in c.get("runs", []) for v in run["verdicts"]]
                r.sweep_source = ("sweep" if fresh else "sweep (stale)") + f" {chap.get('code_hash', '?')}"

    def to_json(self) -> dict:
        return {"schema": SCHEMA, "chapter": self.chapter, "seeds": self.seeds,
                "code_hash": code_hash(self.chapter, self.notebooks_dir),
                "claims": [r.to_json() for r in self.results.values()]}

    def save(self, path: str | Path | None) -> Path | None:
        """Write the graded claims as JSON (skipped for an empty path).

        Parameters
        ----------
        path : str or Path or None
            The file; its folder is created. Empty or ``None``: nothing is written.

        Returns
        -------
        Path or None
            The file written, or ``None``.
        """
        if not path:
            return None
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_json(), indent=1, allow_nan=False, ensure_ascii=False))
        return path

    def problems(self, agg: Mapping | None = None) -> dict[str, list[str]]:
        """What would fail the book's own run.

        Parameters
        ----------
        agg : mapping or None
            The published sweep, whose every seed's control is checked too (``None``: not checked).

        Returns
        -------
        dict of str to list of str
            ``missing`` (declared claims never graded), ``control`` (controls that passed, in this
            run or in any seed of ``agg``), ``expect`` (pass rates outside their expectation).
        """
        out = {"missing": self.missing(), "control": [], "expect": []}
        for r in self.results.values():
            if not r.control_ok:
                out["control"].append(f"  {r.decl.id}: control ({r.decl.control_text}) measured "
                                      f"{r.control_measured()} -> {', '.join(r.control_verdicts)}; rule {r.decl.rule}")
            if not r.expected_ok:
                out["expect"].append(f"  {r.decl.id}: {headline(r.rate_verdicts)} "
                                     f"({', '.join(r.rate_verdicts)}), expected {r.decl.expect!r}; "
                                     f"measured {r.measured()}; rule {r.decl.rule}")
        out["control"] += published_control_failures(agg, self.chapter, {i: d.rule for i, d in self.decls.items()})
        return out

    def finish(self, path: str | Path | None = None, *, strict: bool) -> "Any":
        """End of a chapter: attach sweep pass rates, save the ledger, check it, return its tables.

        Parameters
        ----------
        path : str or Path or None
            Where to save the ledger (see :meth:`save`).
        strict : bool
            The book's own run (full size, base seed 0): problems raise; otherwise they are
            printed and the run finishes. Under ``lrlib.sweep`` the sweep's own freshness is not
            required, nor are its controls checked (the sweep is what refreshes it).

        Returns
        -------
        ChapterTables
            The ledger's tables for display (:func:`lrlib.ledger.view.chapter_tables`).

        Raises
        ------
        ParameterError
            In every run, when a declared claim was never graded.
        ControlPassed, VerdictMismatch, StaleSweep
            With ``strict``: a control that passed, a pass rate outside its expectation, a stale sweep.
        """
        in_sweep = os.environ.get(SWEEP_ENV, "") == "1"
        agg = load_aggregate(PUBLISHED_FULL)
        if not in_sweep:   # a sweep grades its own seeds: the sweep it replaces says nothing about them
            self.attach_sweep(agg, require_fresh=strict)
        self.save(path)
        probs = self.problems(None if in_sweep else agg)
        if probs["missing"]:   # in every mode: a declared claim that a run skips is a bug of the chapter
            raise ParameterError(f"claim(s) declared in the claims file but never graded: {probs['missing']}")
        if strict:
            if probs["control"]:
                raise ControlPassed("a negative control passed the check that must reject it:\n"
                                    + "\n".join(probs["control"]))
            if probs["expect"]:
                raise VerdictMismatch(
                    f"{len(probs['expect'])} claim(s) of {self.chapter!r} left their declared expectation:\n"
                    + "\n".join(probs["expect"])
                    + "\nInvestigate the run; a changed expectation is a commit of its own that says why.")
        else:
            n = sum(len(v) for v in probs.values())
            if n:
                print(f"{n} finding(s) in this run (not enforced: not the book's own run): "
                      + "; ".join(f"{k}: {len(v)}" for k, v in probs.items() if v))
        return chapter_tables(self)


__all__ = ["ControlPassed", "Ledger", "Result", "VerdictMismatch", "could_pass", "grade_control",
           "grade_seeds", "margins", "verdicts_by_variant"]
