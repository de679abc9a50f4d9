"""The claims ledger: claims declared before they are measured, graded over seeds.

A chapter declares its claims in one file next to its notebook,
``notebooks/NN_<key>.claims.yaml`` (see :func:`load_declarations` for the fields). The
declaration holds everything that decides a verdict: the rule (a :class:`~lrlib.rules.Rule`
over named measurements), where its tolerance comes from, the theorem's measurable
premises, the negative control, the expected pass rate. The chapter body only supplies
measurements::

    ledger = Ledger.declared("orthogonal", n_seeds=5, base_seed=seed)
    ledger.grade("fig3.timings", exit1=..., exit2=..., control=dict(exit1=..., exit2=...))
    ...
    ledger.finish(ledger_path, strict=not quick and seed == 0)

Grading, per seed: a failed premise gives ``premise not met``; otherwise a true
``inconclusive`` condition gives ``inconclusive``; otherwise the rule gives
``reproduced``, or the declared partial tier ``partial``, or ``not reproduced``. The
control's measurements go through the *same* rule (premises are not applied: a control
usually breaks a premise on purpose) and must come out ``not reproduced``: a check that
accepts its control cannot fail, and :meth:`Ledger.finish` raises :class:`ControlPassed`.

*Consistency checks* (``kind: consistency``: identities, implementation invariants, a closed
form against itself) are graded the same way but need no control, are shown in their own
table and never count as reproductions.

A claim with ``seeds: sweep`` is too costly to run for five seeds in the build: the build
measures one seed, and the claim's pass rate is read from the published full-size sweep
(``book/ledger_data/sweep-full.json``), which must have been made from the same code
(:func:`code_hash`), else the book's own run fails with :class:`StaleSweep`.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from .errors import LrlibError, ParameterError
from .rules import Rule
from .verdicts import GRADED, KINDS, VERDICTS, pass_rate

REPO_ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS_DIR = REPO_ROOT / "notebooks"
PUBLISHED_FULL = REPO_ROOT / "book" / "ledger_data" / "sweep-full.json"
SWEEP_ENV = "LRLIB_SWEEP"   # set by lrlib.sweep in the kernels it starts
SCHEMA = 2
#: lrlib modules that run chapters or render pages; no chapter result depends on them
NOT_RUN_BY_CHAPTERS = ("lrlib/sweep.py", "lrlib/ledger_page.py")


class VerdictMismatch(LrlibError):
    """A claim's pass rate left its declared expectation."""


class ControlPassed(LrlibError):
    """A negative control was accepted by the check that should reject it."""


class StaleSweep(LrlibError):
    """A claim takes its pass rate from a published sweep that is missing or older than the code."""


# ---------------------------------------------------------------------------------
# formatting

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
        v = np.atleast_1d(np.asarray(values[k], dtype=float))
        fin = v[np.isfinite(v)]
        if v.size == 1 or (fin.size and fin.min() == fin.max() and fin.size == v.size):
            s = fmt(v[0])
        elif fin.size == 0:
            s = "nan"
        else:
            s = f"{fmt(fin.min())}–{fmt(fin.max())}" + ("" if fin.size == v.size else f" ({v.size - fin.size} nan)")
        parts.append(f"{k} {s}")
    return "; ".join(parts)


# ---------------------------------------------------------------------------------
# declarations

@dataclass(frozen=True)
class Premise:
    """A measurable hypothesis of the paper's statement.

    Parameters
    ----------
    text : str
        The hypothesis, for the reader.
    rule : str
        A :class:`~lrlib.rules.Rule` over the measurements; a seed where it is false is
        ``premise not met``.
    """

    text: str
    rule: str


@dataclass(frozen=True)
class Declaration:
    """One claim as declared before it is measured (one entry of the chapter's YAML file).

    Made by :func:`declaration_from_dict`, which validates the fields.

    Parameters
    ----------
    id : str
        The claim's id (letters, digits and ``. _ -``).
    ref : str
        The paper's theorem or figure.
    statement : str
        The paper's statement.
    quantity : str
        What is measured, with units.
    rule : str
        The :class:`~lrlib.rules.Rule` that grades a seed ``reproduced``.
    tolerance : str
        Where the rule's tolerance comes from.
    expect : str
        Expected outcome over seeds: a verdict or a pass-rate range ``lo-hi`` (see
        :func:`expectation_met`).
    kind : str
        ``"reproduction"`` or ``"consistency"``.
    control : str
        The counterfactual on which the rule must fail (required for a reproduction).
    premises : tuple of Premise
        Measurable hypotheses of the theorem.
    partial : str
        Rule of a weaker tier of the paper's own statement (``""``: none).
    partial_reason : str
        Why the partial tier is the paper's own (required with ``partial``).
    inconclusive : str
        Rule of the condition under which the measurement cannot decide (``""``: none).
    seeds : str
        ``"build"`` (n seeds in the build) or ``"sweep"`` (pass rate from the published sweep).
    rule_change : str
        When the rule changed after a result was seen: why.
    """

    id: str
    ref: str
    statement: str
    quantity: str
    rule: str
    tolerance: str                    # where the tolerance comes from
    expect: str                       # expected outcome over seeds (see :func:`expectation_met`)
    kind: str = "reproduction"
    control: str = ""                 # the counterfactual on which the rule must fail
    premises: tuple[Premise, ...] = ()
    partial: str = ""                 # rule of a weaker tier of the paper's own statement
    partial_reason: str = ""
    inconclusive: str = ""            # condition under which the measurement cannot decide
    seeds: str = "build"              # "build" (n seeds in the build) or "sweep"
    rule_change: str = ""             # when the rule changed after a result was seen: why


_DECL_FIELDS = {f for f in Declaration.__dataclass_fields__}
_REQUIRED = ("id", "ref", "statement", "quantity", "rule", "tolerance", "expect")
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")
_EXPECT_RANGE = re.compile(r"^\s*(\d*\.?\d+)\s*-\s*(\d*\.?\d+)\s*$")


def _check_expect(e: str, where: str) -> None:
    if e in VERDICTS:
        return
    m = _EXPECT_RANGE.match(e)
    if not m or not (0 <= float(m.group(1)) <= float(m.group(2)) <= 1):
        raise ParameterError(f"{where}: expect must be a verdict of {VERDICTS} or a pass-rate "
                             f"range 'lo-hi' within [0, 1]; got {e!r}")


def declaration_from_dict(d: Mapping[str, Any], where: str = "declaration") -> Declaration:
    """Validate one YAML entry and return its :class:`Declaration` (every rule is parsed).

    Parameters
    ----------
    d : mapping
        The entry: the fields of :class:`Declaration`, premises as ``{text, rule}`` mappings.
    where : str
        Where the entry stands, for error messages.

    Returns
    -------
    Declaration
        With white space in string fields collapsed.

    Raises
    ------
    ParameterError
        When a field is unknown, missing or invalid, or a rule does not parse.
    """
    if not isinstance(d, Mapping):
        raise ParameterError(f"{where}: each claim is a mapping, got {type(d).__name__}")
    unknown = set(d) - _DECL_FIELDS
    if unknown:
        raise ParameterError(f"{where}: unknown field(s) {sorted(unknown)}; allowed: {sorted(_DECL_FIELDS)}")
    missing = [k for k in _REQUIRED if not str(d.get(k, "")).strip()]
    if missing:
        raise ParameterError(f"{where} ({d.get('id', '?')}): missing field(s) {missing}")
    where = f"{where} {d['id']!r}"
    if not _ID.match(str(d["id"])):
        raise ParameterError(f"{where}: ids are letters, digits and . _ -")
    kind = d.get("kind", "reproduction")
    if kind not in KINDS:
        raise ParameterError(f"{where}: kind must be one of {KINDS}, got {kind!r}")
    if kind == "reproduction" and not str(d.get("control", "")).strip():
        raise ParameterError(f"{where}: a reproduction claim needs a negative control (field `control`)")
    if d.get("seeds", "build") not in ("build", "sweep"):
        raise ParameterError(f"{where}: seeds must be 'build' or 'sweep'")
    _check_expect(str(d["expect"]), where)
    prem = []
    for p in d.get("premises") or ():
        if not isinstance(p, Mapping) or set(p) != {"text", "rule"}:
            raise ParameterError(f"{where}: each premise is a mapping with `text` and `rule`")
        Rule(p["rule"])
        prem.append(Premise(str(p["text"]).strip(), " ".join(str(p["rule"]).split())))
    Rule(d["rule"])
    for k in ("partial", "inconclusive"):
        if d.get(k):
            Rule(d[k])
    if d.get("partial") and not str(d.get("partial_reason", "")).strip():
        raise ParameterError(f"{where}: a partial tier needs its reason (field `partial_reason`)")
    clean = {k: (" ".join(str(v).split()) if isinstance(v, str) else v) for k, v in d.items() if k != "premises"}
    clean["expect"] = str(d["expect"])
    return Declaration(**clean, premises=tuple(prem))


def chapter_paths(chapter: str, notebooks_dir: str | Path = NOTEBOOKS_DIR) -> tuple[Path, Path]:
    """The notebook and claims file of a chapter (``notebooks/NN_<key>.*``).

    Parameters
    ----------
    chapter : str
        The chapter key.
    notebooks_dir : str or Path
        The folder of the notebooks.

    Returns
    -------
    tuple of Path
        ``(notebook .py, claims .yaml)``; the claims file need not exist.

    Raises
    ------
    ParameterError
        When there is not exactly one ``NN_<chapter>.py``.
    """
    nbs = sorted(Path(notebooks_dir).glob(f"[0-9][0-9]_{chapter}.py"))
    if len(nbs) != 1:
        raise ParameterError(f"chapter {chapter!r}: expected one notebooks/NN_{chapter}.py, found {len(nbs)}")
    return nbs[0], nbs[0].with_suffix(".claims.yaml")


def load_declarations(path: str | Path) -> list[Declaration]:
    """Read a chapter's claims file.

    The file is YAML: ``chapter: <key>`` and ``claims:``, a list of mappings with the fields
    of :class:`Declaration`. Required: ``id``, ``ref`` (the paper's theorem/figure),
    ``statement`` (the paper's statement), ``quantity`` (what is measured, with units),
    ``rule`` (a :class:`~lrlib.rules.Rule`), ``tolerance`` (where the tolerance comes from),
    ``expect`` (a verdict, meaning every seed has it, or a pass-rate range ``lo-hi``), and for
    a reproduction claim ``control``. Optional: ``kind``, ``premises`` (list of
    ``{text, rule}``), ``partial`` with ``partial_reason``, ``inconclusive``, ``seeds``,
    ``rule_change``.

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
    import yaml

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


#: The fields of a declaration that decide a seed's verdict: a change to any of them changes
#: what a sweep measures; the prose fields (statement, tolerance, expect, ...) do not.
GRADING_FIELDS = ("id", "kind", "rule", "partial", "inconclusive", "seeds")


def grading_digest(path: Path) -> bytes:
    """The grading-relevant content of a claims file, for :func:`code_hash`.

    Parameters
    ----------
    path : Path
        The claims file.

    Returns
    -------
    bytes
        :data:`GRADING_FIELDS` and the premises' rules, in file order, as canonical JSON; the raw
        bytes when the file does not parse (so that any edit of a broken file still counts).
    """
    import yaml

    try:
        decls = load_declarations(path)
    except (ParameterError, yaml.YAMLError):
        return path.read_bytes()
    rows = [[getattr(d, f) for f in GRADING_FIELDS] + [[p.rule for p in d.premises]] for d in decls]
    return json.dumps(rows, ensure_ascii=False).encode()


def _module_file(name: str, root: Path) -> Path | None:
    """The source file of the dotted module ``name`` under ``root`` (module or package), if any."""
    base = root.joinpath(*name.split("."))
    for f in (base.with_suffix(".py"), base / "__init__.py"):
        if f.is_file():
            return f
    return None


def _imported_modules(source: str, module: str, is_package: bool) -> set[str]:
    """Dotted names of the ``lrlib`` modules (and, for ``from m import x``, the candidates
    ``m.x``) that the Python ``source`` of ``module`` imports anywhere in its text."""
    import ast
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    found: set[str] = set()
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1])
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{a.name}" for a in node.names)
    out = set()
    for name in found:
        parts = name.split(".")
        if parts[0] == "lrlib":
            out.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))   # parents run too
    return out


def lrlib_closure(source: str, root: str | Path = REPO_ROOT) -> list[Path]:
    """The ``lrlib`` source files that a chapter's code imports, directly or through other modules.

    Static: every ``import`` statement in a file counts, wherever it stands.

    Parameters
    ----------
    source : str
        Python source (a chapter's code).
    root : str or Path
        The repository root, where the ``lrlib`` package lies.

    Returns
    -------
    list of Path
        Sorted, with the packages around the modules (their ``__init__`` runs on import).
    """
    root = Path(root)
    seen: dict[str, Path] = {}
    todo = sorted(_imported_modules(source, "__chapter__", False))
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        f = _module_file(name, root)
        if f is None:
            continue
        seen[name] = f
        todo += sorted(_imported_modules(f.read_text(encoding="utf-8"), name, f.name == "__init__.py") - set(seen))
    return sorted(set(seen.values()))


def _notebook_source(path: Path) -> str:
    """A chapter's code: the ``.py`` half as is, or the code cells of an ``.ipynb`` (magics dropped)."""
    if path.suffix == ".py":
        return path.read_text(encoding="utf-8")
    try:
        cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
    except ValueError:
        return ""
    code = ("".join(c.get("source", "")) if isinstance(c.get("source"), list) else c.get("source", "")
            for c in cells if c.get("cell_type") == "code")
    return "\n".join(line for cell in code for line in cell.splitlines() if not line.lstrip().startswith(("%", "!")))


def code_hash(chapter: str, notebooks_dir: str | Path | None = None, root: str | Path = REPO_ROOT) -> str:
    """SHA-256 (first 16 hex digits) of what a chapter's results depend on: its notebook
    (``.py`` half, else ``.ipynb``), the grading fields of its claims file
    (:func:`grading_digest`: editing a statement or an expectation does not make a sweep stale,
    editing a rule does; both in ``notebooks_dir``, default ``<root>/notebooks``), the ``lrlib``
    source files the chapter imports (:func:`lrlib_closure`: a change to another paper's module
    does not make this chapter's sweep stale; :data:`NOT_RUN_BY_CHAPTERS` never counts) and
    ``data/SHA256SUMS``.

    Parameters
    ----------
    chapter : str
        The chapter key.
    notebooks_dir : str or Path or None
        The notebooks' folder; ``None``: ``<root>/notebooks``.
    root : str or Path
        The repository root.

    Returns
    -------
    str
        16 hex digits.

    Raises
    ------
    ParameterError
        When the chapter has not exactly one notebook.
    """
    root = Path(root)
    nbdir = Path(notebooks_dir) if notebooks_dir is not None else root / "notebooks"
    found = sorted(nbdir.glob(f"[0-9][0-9]_{chapter}.py")) or sorted(nbdir.glob(f"[0-9][0-9]_{chapter}.ipynb"))
    if len(found) != 1:
        raise ParameterError(f"chapter {chapter!r}: expected one notebook NN_{chapter}.py in {nbdir}")
    claims_file = found[0].with_name(found[0].stem + ".claims.yaml")
    named = [(f"notebooks/{found[0].name}", found[0].read_bytes())]
    if claims_file.is_file():
        named.append((f"notebooks/{claims_file.name}", grading_digest(claims_file)))
    named += [(f.relative_to(root).as_posix(), f.read_bytes()) for f in lrlib_closure(_notebook_source(found[0]), root)
              if f.relative_to(root).as_posix() not in NOT_RUN_BY_CHAPTERS]
    sums = root / "data" / "SHA256SUMS"
    if sums.is_file():
        named.append(("data/SHA256SUMS", sums.read_bytes()))
    h = hashlib.sha256()
    for name, content in named:
        h.update(name.encode() + b"\0")
        h.update(content.replace(b"\r\n", b"\n") + b"\0")
    return h.hexdigest()[:16]


def load_aggregate(path: str | Path = PUBLISHED_FULL) -> dict | None:
    """Read a published sweep aggregate.

    Parameters
    ----------
    path : str or Path
        The aggregate's JSON file (default: the published full-size sweep).

    Returns
    -------
    dict or None
        The aggregate (schema 2), or ``None`` when the file is missing or of another schema.
    """
    path = Path(path)
    if not path.is_file():
        return None
    agg = json.loads(path.read_text(encoding="utf-8"))
    return agg if agg.get("schema") == SCHEMA else None


# ---------------------------------------------------------------------------------
# grading

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
    rules = {"rule": Rule(decl.rule),
             "partial": Rule(decl.partial) if decl.partial else None,
             "inconclusive": Rule(decl.inconclusive) if decl.inconclusive else None}
    prem = [Rule(p.rule) for p in decl.premises]
    names = set().union(*(r.names for r in [*rules.values(), *prem] if r is not None))
    missing = sorted(names - set(values))
    if missing:
        raise ParameterError(f"claim {decl.id!r} needs measurement(s) {missing} "
                             f"(its rule, partial tier, inconclusive condition and premises read {sorted(names)})")
    shape = np.broadcast_shapes(*(np.shape(np.asarray(values[k], dtype=float)) for k in names)) if names else ()
    n = int(np.prod(shape)) if shape else 1

    def ev(r):
        return np.broadcast_to(r(values), shape).reshape(n) if r is not None else np.zeros(n, bool)

    ok, part, inc = ev(rules["rule"]), ev(rules["partial"]), ev(rules["inconclusive"])
    good = np.ones(n, bool)
    for r in prem:
        good &= ev(r)
    out = []
    for i in range(n):
        if not good[i]:
            out.append("premise not met")
        elif inc[i]:
            out.append("inconclusive")
        elif ok[i]:
            out.append("reproduced")
        elif part[i]:
            out.append("partial")
        else:
            out.append("not reproduced")
    return out


def grade_control(decl: Declaration, values: Mapping[str, Any]) -> list[str]:
    """Verdicts of the rule (and partial tier) alone on a control's measurements.

    Premises and the inconclusive condition are not applied.

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
    bare = Declaration(**{**asdict(decl), "premises": (), "inconclusive": ""})
    return grade_seeds(bare, values)


def expectation_met(expect: str, verdicts: list[str]) -> bool:
    """Whether per-seed verdicts meet a declared expectation.

    Parameters
    ----------
    expect : str
        A verdict (every seed has it; for ``reproduced``/``not reproduced``/``partial`` every
        *graded* seed, at least one) or a pass-rate range ``lo-hi``.
    verdicts : list of str
        One verdict per seed.

    Returns
    -------
    bool
    """
    passes, graded = pass_rate(verdicts)
    m = _EXPECT_RANGE.match(expect)
    if m:
        return graded > 0 and float(m.group(1)) - 1e-9 <= passes / graded <= float(m.group(2)) + 1e-9
    if expect in ("reproduced", "not reproduced", "partial"):
        gv = [v for v in verdicts if v in GRADED]
        return bool(gv) and all(v == expect for v in gv)
    return bool(verdicts) and all(v == expect for v in verdicts)


def headline(verdicts: list[str]) -> str:
    """A claim's pass rate in words.

    Parameters
    ----------
    verdicts : list of str
        One verdict per seed.

    Returns
    -------
    str
        ``reproduced 5/5``, ``not reproduced 0/5``, ``3/5``, ``premise not met (5)``, ...
    """
    passes, graded = pass_rate(verdicts)
    if graded == 0:
        kinds = sorted(set(verdicts))
        return f"{kinds[0]} ({len(verdicts)})" if len(kinds) == 1 else "not graded"
    if passes == graded:
        return f"reproduced {passes}/{graded}"
    if passes == 0:
        word = "partial" if "partial" in verdicts else "not reproduced"
        return f"{word} 0/{graded}"
    return f"{passes}/{graded}"


@dataclass
class Result:
    """A graded claim: the declaration, the measured values and the verdicts.

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
    control_values : dict of str to list of float
        The control's measurements.
    control_verdicts : list of str
        The control's verdicts (all must be ``not reproduced``).
    note : str
        Shown beside the measured value (context, never graded).
    sweep_verdicts : list of str or None
        For ``seeds: sweep`` claims, the verdicts of the published sweep.
    sweep_source : str
        Where ``sweep_verdicts`` come from (``sweep <code hash>``, or ``sweep (stale) …``).
    """

    decl: Declaration
    seeds: list[int]
    values: dict[str, list[float]]
    verdicts: list[str]
    control_values: dict[str, list[float]] = field(default_factory=dict)
    control_verdicts: list[str] = field(default_factory=list)
    note: str = ""
    # for seeds: sweep claims, the verdicts of the published sweep (one list per base seed)
    sweep_verdicts: list[str] | None = None
    sweep_source: str = ""

    @property
    def rate_verdicts(self) -> list[str]:
        """The verdicts the pass rate is computed from (the sweep's, for ``seeds: sweep``)."""
        return self.sweep_verdicts if self.sweep_verdicts is not None else self.verdicts

    @property
    def expected_ok(self) -> bool:
        return expectation_met(self.decl.expect, self.rate_verdicts)

    @property
    def control_ok(self) -> bool:
        return self.decl.kind == "consistency" or (
            bool(self.control_verdicts) and all(v == "not reproduced" for v in self.control_verdicts))

    def measured(self) -> str:
        return fmt_values(self.values)

    def control_measured(self) -> str:
        return fmt_values(self.control_values) if self.control_values else ""

    def to_json(self) -> dict:
        d = asdict(self.decl)
        passes, graded = pass_rate(self.rate_verdicts)
        d.update(
            seeds_run=self.seeds, values=self.values, verdicts=self.verdicts,
            measured=self.measured(), control_values=self.control_values,
            control_measured=self.control_measured(), control_verdicts=self.control_verdicts,
            passes=passes, graded=graded, headline=headline(self.rate_verdicts),
            pass_source=self.sweep_source or "build", expected_ok=self.expected_ok,
            control_ok=self.control_ok, note=self.note,
        )
        d["seeds"] = self.decl.seeds
        return d


def _as_lists(values: Mapping[str, Any]) -> dict[str, list[float]]:
    out = {}
    for k, v in values.items():
        a = np.atleast_1d(np.asarray(v.detach().cpu() if hasattr(v, "detach") else v, dtype=float))
        out[k] = [None if not math.isfinite(x) else float(x) for x in a.ravel()]
    return out


def _nan(values: dict[str, list]) -> dict[str, np.ndarray]:
    return {k: np.array([np.nan if x is None else x for x in v], dtype=float) for k, v in values.items()}


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
        The folder of the chapter's notebook, for :func:`code_hash`; ``None``: ``notebooks/``.
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
    def grade(self, id: str, *, control: Mapping[str, Any] | None = None, note: str = "",
              **measurements: Any) -> None:
        """Grade a claim on its measurements and, for a reproduction claim, on its control.

        Parameters
        ----------
        id : str
            The declared claim's id.
        control : mapping of str to array-like, or None
            The same names measured on the control (required for a reproduction claim, refused
            for a consistency check).
        note : str
            Shown beside the measured value (context, never graded).
        **measurements : array-like
            Each a scalar or an array over seeds; the names the rule, partial tier,
            inconclusive condition and premises read.

        Raises
        ------
        ParameterError
            When the claim is undeclared or graded twice, the control is missing or not
            allowed, a measurement is missing, or the number of seeds is wrong.
        """
        if id not in self.decls:
            raise ParameterError(f"claim {id!r} is not declared in the claims file of {self.chapter!r}")
        if id in self.results:
            raise ParameterError(f"claim {id!r} graded twice")
        decl = self.decls[id]
        if decl.kind == "reproduction" and control is None:
            raise ParameterError(f"claim {id!r}: a reproduction claim is graded with its control "
                                 f"({decl.control})")
        if decl.kind == "consistency" and control is not None:
            raise ParameterError(f"claim {id!r} is a consistency check: it takes no control")
        values = _as_lists(measurements)
        verdicts = grade_seeds(decl, _nan(values))
        expected_n = 1 if decl.seeds == "sweep" else len(self.seeds)
        if decl.kind == "reproduction" and len(verdicts) not in (1, expected_n):
            raise ParameterError(f"claim {id!r}: measured {len(verdicts)} seed(s), expected {expected_n}")
        res = Result(decl, self.seeds[:len(verdicts)], values, verdicts, note=note)
        if control is not None:
            res.control_values = _as_lists(control)
            res.control_verdicts = grade_control(decl, _nan(res.control_values))
        self.results[id] = res

    # ---- output -------------------------------------------------------------
    def missing(self) -> list[str]:
        return [i for i in self.decls if i not in self.results]

    def attach_sweep(self, agg: Mapping | None, *, require_fresh: bool) -> None:
        """Take the verdicts of ``seeds: sweep`` claims from a published sweep aggregate.

        Parameters
        ----------
        agg : mapping or None
            The aggregate (``lrlib.sweep`` schema 2, see :func:`load_aggregate`), or ``None``.
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

    def problems(self) -> dict[str, list[str]]:
        """What would fail the book's own run: undeclared-but-missing grades, controls that
        passed, pass rates outside their expectation."""
        out = {"missing": self.missing(), "control": [], "expect": []}
        for r in self.results.values():
            if not r.control_ok:
                out["control"].append(f"  {r.decl.id}: control ({r.decl.control}) measured "
                                      f"{r.control_measured()} -> {', '.join(r.control_verdicts)}; rule {r.decl.rule}")
            if not r.expected_ok:
                out["expect"].append(f"  {r.decl.id}: {headline(r.rate_verdicts)} "
                                     f"({', '.join(r.rate_verdicts)}), expected {r.decl.expect!r}; "
                                     f"measured {r.measured()}; rule {r.decl.rule}")
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
            required (the sweep is what refreshes it).

        Returns
        -------
        ChapterTables
            The ledger's tables for display (:func:`lrlib.ledger_view.chapter_tables`).

        Raises
        ------
        ParameterError
            In every run, when a declared claim was never graded.
        ControlPassed, VerdictMismatch, StaleSweep
            With ``strict``: a control that passed, a pass rate outside its expectation, a stale sweep.
        """
        in_sweep = os.environ.get(SWEEP_ENV, "") == "1"
        self.attach_sweep(load_aggregate(PUBLISHED_FULL), require_fresh=strict and not in_sweep)
        self.save(path)
        probs = self.problems()
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
        from .ledger_view import chapter_tables
        return chapter_tables(self)
