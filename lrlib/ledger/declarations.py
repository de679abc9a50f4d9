"""Claim declarations: what a chapter grades, written before it is measured.

A chapter declares its claims in ``notebooks/NN_<key>.claims.yaml`` (``chapter: <key>``,
``claims: [...]``). Each entry holds everything that decides a verdict, and is checked here when
the file is loaded:

- the rule (:class:`~lrlib.ledger.rules.Rule`) over named measurements, and ``rule_kind``: what
  the rule is (:data:`~lrlib.ledger.verdicts.RULE_KINDS`: the paper's own bound, a prediction
  within a tolerance, a threshold for a qualitative statement, a limit graded as a trend);
- ``measure``: the claim's measurement, one function (dotted name under ``lrlib.theory``) that the
  ledger applies to the main runs, to the control runs and to the initial state alike;
- ``control``: the counterfactual *run* ``{run: <name>, removes: <one sentence>}`` that removes the
  mechanism the claim is about; a scaled, negated or swapped prediction is not a control (it may
  be declared as a ``sensitivity``, shown apart);
- ``premises`` (``{text, rule}``), ``expect`` and ``expect_basis`` (``predicted`` before any run,
  ``observed`` for a regression guard), and ``history``: every change to a rule, premise, control
  or expectation made after a result was seen (``{date, change, reason}``).

A claim without ``measure`` is in the *legacy* form: the notebook hands in values, and its control
is a text and values (:meth:`lrlib.ledger.grading.Ledger.grade`). The ledger shows such rows
apart; they are being migrated.

The **lint** (:func:`lint`) runs at load: every rule and premise is tried on random values of
the names it reads; a rule that no input satisfies (a claim, or a control going through it, that
cannot pass) and a rule that every input satisfies (a claim that cannot fail) are load errors.
"""

from __future__ import annotations

import ast
import importlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import numpy as np
import yaml

from ..errors import ParameterError
from .rules import Rule
from .verdicts import EXPECT_BASES, KINDS, RULE_KINDS, VERDICTS, expect_range


@dataclass(frozen=True)
class Premise:
    """A measurable hypothesis of the paper's statement.

    Parameters
    ----------
    text : str
        The hypothesis, for the reader (what it measures and over which interval).
    rule : str
        A rule over the measurements; a seed where it is false is ``premise not met``.
    """

    text: str
    rule: str


@dataclass(frozen=True)
class Control:
    """A claim's control: a counterfactual run that removes the mechanism.

    Parameters
    ----------
    run : str
        The run's name: the key under which the chapter hands the run to
        :meth:`lrlib.ledger.grading.Ledger.measure` (``controls={run: ...}``).
    removes : str
        One sentence: what the run removes (large initialisation, non-orthogonal data, shuffled
        labels, a violated assumption, a model without the feature, ...).
    """

    run: str
    removes: str


@dataclass(frozen=True)
class Change:
    """One entry of a claim's history: a change made after a result was seen.

    Parameters
    ----------
    date : str
        ISO date (``2026-12-02``).
    change : str
        What changed (rule, premise, control, expectation).
    reason : str
        Why.
    """

    date: str
    change: str
    reason: str


@dataclass(frozen=True)
class Sensitivity:
    """A perturbation of one measurement, regraded by the claim's rule and shown apart.

    Parameters
    ----------
    name : str
        The measurement.
    factor : float
        What it is multiplied by.
    """

    name: str
    factor: float


@dataclass(frozen=True)
class Declaration:
    """One claim as declared before it is measured (one entry of the chapter's YAML file).

    Made by :func:`declaration_from_dict`, which validates the fields (see the module docstring).

    Parameters
    ----------
    id, ref, statement, quantity, rule, tolerance, expect : str
        The claim's id, the paper's theorem or figure, the paper's statement, what is measured
        (with units), the rule, where its tolerance comes from, the expected outcome over seeds
        (a verdict or a pass-rate range ``lo-hi``).
    kind : str
        ``"reproduction"`` or ``"consistency"``.
    rule_kind : str
        One of :data:`~lrlib.ledger.verdicts.RULE_KINDS` (``""`` for a consistency check).
    measure : str
        Dotted name, under ``lrlib.theory``, of the measurement function (``""``: legacy form).
    control : Control or str
        The control run (a text in the legacy form; ``""`` for a consistency check).
    expect_basis : str
        ``"predicted"`` or ``"observed"``.
    premises : tuple of Premise
    history : tuple of Change
    sensitivity : tuple of Sensitivity
    limit : str
        For a trend: the limit graded (``"λ → 0"``).
    reason : str
        For a declared consistency check: why it is one (an identity, an invariant, an empirical
        ordering with no cheap counterfactual run, ...), shown as its tier's reason.
    partial, partial_reason, inconclusive : str
        A weaker tier of the paper's own statement and why; the condition under which the
        measurement cannot decide.
    seeds : str
        ``"build"`` or ``"sweep"`` (pass rate from the published sweep).
    """

    id: str
    ref: str
    statement: str
    quantity: str
    rule: str
    tolerance: str
    expect: str
    kind: str = "reproduction"
    rule_kind: str = ""
    measure: str = ""
    control: Any = ""
    expect_basis: str = "observed"
    premises: tuple[Premise, ...] = ()
    history: tuple[Change, ...] = ()
    sensitivity: tuple[Sensitivity, ...] = ()
    limit: str = ""
    reason: str = ""
    partial: str = ""
    partial_reason: str = ""
    inconclusive: str = ""
    seeds: str = "build"

    @property
    def legacy(self) -> bool:
        """A claim graded on handed-in values (no declared measurement function)."""
        return not self.measure

    @property
    def control_text(self) -> str:
        """The control for the reader: ``run — what it removes`` (legacy: the text)."""
        c = self.control
        return f"{c.run} — {c.removes}" if isinstance(c, Control) else str(c)


_FIELDS = set(Declaration.__dataclass_fields__) | {"rule_change"}
_REQUIRED = ("id", "ref", "statement", "quantity", "rule", "tolerance", "expect")
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_DOTTED = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$")


def _one_line(v: Any) -> str:
    return " ".join(str(v).split())


def _check_expect(e: str, where: str) -> None:
    if e in VERDICTS:
        return
    rng = expect_range(e)
    if not rng or not (0 <= rng[0] <= rng[1] <= 1):
        raise ParameterError(f"{where}: expect must be a verdict of {VERDICTS} or a pass-rate "
                             f"range 'lo-hi' within [0, 1]; got {e!r}")


def _control(d: Mapping, kind: str, legacy: bool, where: str):
    c = d.get("control", "")
    if kind == "consistency":
        if c:
            raise ParameterError(f"{where}: a consistency check takes no control")
        return ""
    if legacy:
        if not _one_line(c):
            raise ParameterError(f"{where}: a reproduction claim needs a negative control (field `control`)")
        return _one_line(c)
    if not isinstance(c, Mapping) or set(c) != {"run", "removes"}:
        raise ParameterError(f"{where}: a reproduction's control is a run: a mapping "
                             "{run: <name of the run>, removes: <what it removes, one sentence>}")
    if not _NAME.match(str(c["run"])) or not _one_line(c["removes"]):
        raise ParameterError(f"{where}: control.run is a name (letters, digits, _) and control.removes a sentence")
    return Control(str(c["run"]), _one_line(c["removes"]))


def _history(d: Mapping, where: str) -> tuple[Change, ...]:
    out = []
    for h in d.get("history") or ():
        if not isinstance(h, Mapping) or set(h) != {"date", "change", "reason"}:
            raise ParameterError(f"{where}: each history entry is a mapping {{date, change, reason}}")
        out.append(Change(str(h["date"]), _one_line(h["change"]), _one_line(h["reason"])))
    if d.get("rule_change"):   # the legacy single-sentence form
        out.append(Change("", "rule changed after a result was seen", _one_line(d["rule_change"])))
    return tuple(out)


def _sensitivity(d: Mapping, rule: Rule, where: str) -> tuple[Sensitivity, ...]:
    out = []
    for s in d.get("sensitivity") or ():
        if not isinstance(s, Mapping) or set(s) != {"name", "factor"} or s["name"] not in rule.names:
            raise ParameterError(f"{where}: each sensitivity is {{name: <a name the rule reads>, factor: <number>}}")
        out.append(Sensitivity(str(s["name"]), float(s["factor"])))
    return tuple(out)


def declaration_from_dict(d: Mapping[str, Any], where: str = "declaration", *, lint_rules: bool = True) -> Declaration:
    """Validate one YAML entry and return its :class:`Declaration` (every rule is parsed and linted).

    Parameters
    ----------
    d : mapping
        The entry (see the module docstring).
    where : str
        Where the entry stands, for error messages.
    lint_rules : bool
        Run :func:`lint` on the rule and the premises.

    Returns
    -------
    Declaration
        With white space in string fields collapsed.

    Raises
    ------
    ParameterError
        When a field is unknown, missing or invalid, a rule does not parse, or the lint fails.
    """
    if not isinstance(d, Mapping):
        raise ParameterError(f"{where}: each claim is a mapping, got {type(d).__name__}")
    unknown = set(d) - _FIELDS
    if unknown:
        raise ParameterError(f"{where}: unknown field(s) {sorted(unknown)}; allowed: {sorted(_FIELDS)}")
    missing = [k for k in _REQUIRED if not _one_line(d.get(k, ""))]
    if missing:
        raise ParameterError(f"{where} ({d.get('id', '?')}): missing field(s) {missing}")
    where = f"{where} {d['id']!r}"
    if not _ID.match(str(d["id"])):
        raise ParameterError(f"{where}: ids are letters, digits and . _ -")
    kind = d.get("kind", "reproduction")
    if kind not in KINDS:
        raise ParameterError(f"{where}: kind must be one of {KINDS}, got {kind!r}")
    measure = _one_line(d.get("measure", ""))
    if measure and not _DOTTED.match(measure):
        raise ParameterError(f"{where}: measure is a dotted name under lrlib.theory (e.g. orthogonal.claims.toy_timings)")
    legacy = not measure
    rule_kind = d.get("rule_kind", "")
    if kind == "reproduction" and not legacy and rule_kind not in RULE_KINDS:
        raise ParameterError(f"{where}: rule_kind must be one of {RULE_KINDS}, got {rule_kind!r}")
    if rule_kind and rule_kind not in RULE_KINDS:
        raise ParameterError(f"{where}: rule_kind must be one of {RULE_KINDS}, got {rule_kind!r}")
    basis = d.get("expect_basis", "observed" if legacy else "")
    if basis not in EXPECT_BASES:
        raise ParameterError(f"{where}: expect_basis must be one of {EXPECT_BASES} "
                             "(predicted: written before any run; observed: copied from a result)")
    if rule_kind == "trend" and not _one_line(d.get("limit", "")):
        raise ParameterError(f"{where}: a trend names its limit (field `limit`, e.g. 'λ → 0')")
    if d.get("seeds", "build") not in ("build", "sweep"):
        raise ParameterError(f"{where}: seeds must be 'build' or 'sweep'")
    _check_expect(str(d["expect"]), where)
    prem = []
    for p in d.get("premises") or ():
        if not isinstance(p, Mapping) or set(p) != {"text", "rule"}:
            raise ParameterError(f"{where}: each premise is a mapping with `text` and `rule`")
        prem.append(Premise(_one_line(p["text"]), _one_line(p["rule"])))
    rule = Rule(d["rule"])
    for k in ("partial", "inconclusive"):
        if d.get(k):
            Rule(d[k])
    if d.get("partial") and not _one_line(d.get("partial_reason", "")):
        raise ParameterError(f"{where}: a partial tier needs its reason (field `partial_reason`)")
    if lint_rules:
        lint(d["rule"], where=f"{where} rule", tautology=True)
        for p in prem:
            lint(p.rule, where=f"{where} premise", tautology=False)
    return Declaration(
        id=str(d["id"]), ref=_one_line(d["ref"]), statement=_one_line(d["statement"]),
        quantity=_one_line(d["quantity"]), rule=_one_line(d["rule"]), tolerance=_one_line(d["tolerance"]),
        expect=str(d["expect"]), kind=kind, rule_kind=rule_kind, measure=measure,
        control=_control(d, kind, legacy, where), expect_basis=basis, premises=tuple(prem),
        history=_history(d, where), sensitivity=_sensitivity(d, rule, where), limit=_one_line(d.get("limit", "")),
        reason=_one_line(d.get("reason", "")),
        partial=_one_line(d.get("partial", "")), partial_reason=_one_line(d.get("partial_reason", "")),
        inconclusive=_one_line(d.get("inconclusive", "")), seeds=d.get("seeds", "build"))


# ---------------------------------------------------------------------------------
# the lint

def rule_constants(text: str) -> list[float]:
    """The numeric constants a rule's text contains, sorted and unique (where its boundaries lie).

    Parameters
    ----------
    text : str
        A rule, e.g. ``"ratio <= 1 and n >= 3"``.

    Returns
    -------
    list of float
        E.g. ``[1.0, 3.0]``.
    """
    tree = ast.parse(" ".join(text.split()), mode="eval")
    return sorted({float(n.value) for n in ast.walk(tree) if isinstance(n, ast.Constant)
                   and isinstance(n.value, (int, float))})


def rule_candidates(consts: list[float], rng: np.random.Generator, n: int) -> np.ndarray:
    """Random values for one name of a rule: log-uniform magnitudes of both signs, small integers,
    and values at and around each constant of the rule (the boundaries it draws).

    Parameters
    ----------
    consts : list of float
        The rule's constants (:func:`rule_constants`).
    rng : numpy.random.Generator
        The draws' generator.
    n : int
        How many values.

    Returns
    -------
    np.ndarray
        ``(n,)`` values.
    """
    pool = [0.0, 1.0, -1.0, 2.0, 0.5]
    for c in consts:
        for c2 in (c, -c):
            pool += [c2, c2 * (1 + 1e-3), c2 * (1 - 1e-3), c2 + 1e-3, c2 - 1e-3, c2 + 1, c2 - 1, c2 * 2, c2 / 2]
    pool = np.array(pool)
    mags = 10.0 ** rng.uniform(-40, 40, n) * rng.choice([-1.0, 1.0], n)
    pick = rng.random(n) < 0.6
    return np.where(pick, rng.choice(pool, n), mags)


def _conjuncts(rule: Rule) -> list[Rule]:
    """The top-level conditions of a conjunction (the rule itself otherwise)."""
    body = rule._tree.body
    if isinstance(body, ast.BoolOp) and isinstance(body.op, ast.And):
        return [Rule(ast.unparse(v)) for v in body.values]
    return [rule]


def _climb_score(rule: Rule, parts: list[Rule], vals: dict) -> np.ndarray:
    """How close inputs come to passing: the conditions met, plus the rule's margin squashed
    into ``[0, 1)`` (so that an equality, whose margin is 0 or ∞, still counts when it is met)."""
    met = sum(np.asarray(c(vals), dtype=float) for c in parts)
    m = np.nan_to_num(rule.margin(vals), nan=0.0, posinf=1e300)
    return met + m / (1.0 + m)


def _climb(rule: Rule, vals: dict, consts: list[float], rng: np.random.Generator, keep: int = 256,
           rounds: int = 4) -> np.ndarray:
    """Coordinate ascent from the best random inputs on the number of the rule's conditions met
    (then its margin): a conjunction of many conditions is rarely met by independent draws, but
    each name can be set to meet its own."""
    parts = _conjuncts(rule)
    idx = np.argsort(-_climb_score(rule, parts, vals))[:keep]
    cur = {k: v[idx].copy() for k, v in vals.items()}
    pool = rule_candidates(consts, rng, 400)
    for _ in range(rounds):
        for k in cur:
            trial = {j: np.repeat(v[:, None], pool.size, 1) for j, v in cur.items()}
            trial[k] = np.broadcast_to(pool, trial[k].shape)
            cur[k] = pool[np.argmax(_climb_score(rule, parts, trial), axis=1)]
    return rule(cur)


def lint(text: str, *, where: str = "rule", tautology: bool = True, n: int = 40_000, seed: int = 0) -> None:
    """Try a rule on random values of its names; raise when no input passes it (or every input does).

    Parameters
    ----------
    text : str
        The rule.
    where : str
        For the error message.
    tautology : bool
        Also raise when every input passes (a claim that cannot fail).
    n : int
        Random inputs tried.
    seed : int
        Seed of the draw (the lint is deterministic).

    Raises
    ------
    ParameterError
        As above. A control goes through its claim's rule, so a control that no input can pass
        is a rule that no input satisfies.
    """
    rule = Rule(text)
    if not rule.names:
        raise ParameterError(f"{where} {rule.text!r} reads no measurement: it is a constant")
    rng = np.random.default_rng(seed)
    consts = rule_constants(text)
    vals = {k: rule_candidates(consts, rng, n) for k in sorted(rule.names)}
    ok = rule(vals)
    if not ok.any() and not _climb(rule, vals, consts, rng).any():
        raise ParameterError(f"{where} {rule.text!r}: no input satisfies it ({n} random inputs tried), "
                             "so neither the claim nor its control can pass")
    if tautology and ok.all():
        raise ParameterError(f"{where} {rule.text!r}: every input satisfies it ({n} random inputs tried): "
                             "the claim cannot fail")


def load_declarations(path: str | Path) -> list[Declaration]:
    """Read and validate a chapter's claims file.

    Parameters
    ----------
    path : str or Path
        The claims file (``notebooks/NN_<key>.claims.yaml``).

    Returns
    -------
    list of Declaration
        In file order.

    Raises
    ------
    ParameterError
        When the file is missing or malformed, an entry is invalid, or an id repeats.
    """
    path = Path(path)
    if not path.is_file():
        raise ParameterError(f"claims file {path} not found")
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(doc, Mapping) or not isinstance(doc.get("claims"), list):
        raise ParameterError(f"{path}: expected a mapping with a `claims` list")
    decls, seen = [], set()
    for i, d in enumerate(doc["claims"]):
        decl = declaration_from_dict(d, f"{path.name} claim {i}")
        if decl.id in seen:
            raise ParameterError(f"{path.name}: duplicate claim id {decl.id!r}")
        seen.add(decl.id)
        decls.append(decl)
    return decls


def resolve_measure(decl: Declaration):
    """The measurement function of a claim (``lrlib.theory.<decl.measure>``).

    Parameters
    ----------
    decl : Declaration
        A claim in the new form.

    Returns
    -------
    callable
        ``f(run, **context) -> {name: array over seeds}``.

    Raises
    ------
    ParameterError
        When the name does not resolve to a callable.
    """
    mod, _, name = f"lrlib.theory.{decl.measure}".rpartition(".")
    try:
        f = getattr(importlib.import_module(mod), name)
    except (ImportError, AttributeError) as e:
        raise ParameterError(f"claim {decl.id!r}: measure {decl.measure!r} does not resolve ({e})") from None
    if not callable(f):
        raise ParameterError(f"claim {decl.id!r}: measure {decl.measure!r} is not a function")
    return f


#: The fields of a declaration that decide a seed's verdict: a change to any of them changes what
#: a sweep measures; the prose fields (statement, tolerance, expect, history, ...) do not.
GRADING_FIELDS = ("id", "kind", "rule", "measure", "partial", "inconclusive", "seeds")


__all__ = ["Change", "Control", "Declaration", "GRADING_FIELDS", "Premise", "Sensitivity",
           "declaration_from_dict", "lint", "load_declarations", "resolve_measure", "rule_candidates",
           "rule_constants"]
