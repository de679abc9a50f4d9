"""The layering of ``lrlib``, read from its source: every ``import`` statement, at module level or
inside a function, is an edge between two ``lrlib`` modules.

* no cycle: a module never imports, directly or through others, a module that imports it;
* the engine (the top-level modules that train, integrate and measure) imports no theory package,
  no plot and no ledger code;
* no theory package imports the grading code (``lrlib.ledger.grading`` and the modules that read,
  publish or show graded ledgers); theory packages may use the ledger's pure helpers
  (``lrlib.ledger.trend``, ``lrlib.ledger.verdicts``).

``from pkg import name`` is an edge to ``pkg.name`` when that is a module, else to ``pkg``; the
parent packages that Python initialises on the way are not counted (as import-linter does).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from lrlib.paths import REPO_ROOT

LRLIB = REPO_ROOT / "lrlib"
#: What reads, grades, publishes or shows a ledger; a theory package calls none of it.
GRADING = ("lrlib.ledger.grading", "lrlib.ledger.declarations", "lrlib.ledger.aggregate",
           "lrlib.ledger.provenance", "lrlib.ledger.summary", "lrlib.ledger.view", "lrlib.ledger",
           "lrlib.chapter", "lrlib.sweep", "lrlib.ledger_page")
#: The engine: models, losses, training, integration, measurement. It knows no paper.
ENGINE = ("lrlib.errors", "lrlib.paths", "lrlib.schedules", "lrlib.checks", "lrlib.models", "lrlib.losses",
          "lrlib.grads", "lrlib.small_step", "lrlib.train", "lrlib.trajectory", "lrlib.integrate",
          "lrlib.measure", "lrlib.track", "lrlib.data", "lrlib.nbparams", "lrlib.progress")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO_ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(LRLIB.rglob("*.py"))}


def resolve(importer: str, is_package: bool, level: int, target: str | None) -> str:
    """The absolute name of a (possibly relative) import target."""
    if level == 0:
        return target or ""
    base = importer.split(".")
    base = base if is_package else base[:-1]
    base = base[:len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def import_edges(mods: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the lrlib modules its import statements name."""
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for name, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        is_package = path.name == "__init__.py"
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = resolve(name, is_package, node.level, node.module)
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
            for t in targets:
                if t in mods and t != name:
                    edges[name].add(t)
    return edges


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a list of modules, or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for n in sorted(edges[m]):
            if state.get(n) == 1:
                return stack[stack.index(n):] + [n]
            if n not in state and (c := visit(n)):
                return c
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(edges):
        if m not in state and (c := visit(m)):
            return c
    return None


@pytest.fixture(scope="module")
def edges() -> dict[str, set[str]]:
    return import_edges(modules())


def test_the_walk_sees_the_imports_it_should(edges):
    assert "lrlib.models" in edges["lrlib.trajectory"]
    assert "lrlib.ledger.grading" in edges["lrlib.ledger"]
    assert "lrlib.ledger.trend" in edges["lrlib.theory.orthogonal.claims"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_lrlib_has_no_import_cycle(edges):
    assert find_cycle(edges) is None


def test_no_theory_package_imports_the_grading_code(edges):
    bad = {m: sorted(edges[m] & set(GRADING)) for m in edges if m.startswith("lrlib.theory")}
    assert {m: b for m, b in bad.items() if b} == {}


def test_the_engine_knows_no_paper_plot_or_ledger(edges):
    above = ("lrlib.theory", "lrlib.plots", "lrlib.ledger", "lrlib.chapter", "lrlib.sweep")
    bad = {m: sorted(t for t in edges[m] if t.startswith(above)) for m in ENGINE if m in edges}
    assert {m: b for m, b in bad.items() if b} == {}
    assert set(ENGINE) <= set(edges), "a module of the engine was renamed: update ENGINE"
