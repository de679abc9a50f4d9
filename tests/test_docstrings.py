"""Every public function, method and class of every ``lrlib`` module documents its arguments in a
numpy-style ``Parameters`` section (read from the source with :mod:`ast`; nothing is imported)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "lrlib"

# every lrlib module: a new one is checked from its first commit
MODULES = sorted(f.relative_to(ROOT).as_posix() for f in ROOT.rglob("*.py"))


def _parameter_entries(doc: str | None) -> list[tuple[list[str], str | None]]:
    """The entries of the ``Parameters`` section of a numpy-style docstring: each entry's names and
    its type (``None`` when the entry line has no ``name : type`` form)."""
    if not doc:
        return []
    lines = doc.splitlines()
    entries: list[tuple[list[str], str | None]] = []
    for i, line in enumerate(lines[:-1]):
        if line.strip() == "Parameters" and re.fullmatch(r"\s*-{3,}\s*", lines[i + 1]):
            indent = len(line) - len(line.lstrip())
            body = lines[i + 2:]
            for j, entry in enumerate(body):
                if not entry.strip():
                    continue
                ind = len(entry) - len(entry.lstrip())
                if ind < indent:
                    break
                if ind > indent:
                    continue                                    # description of an entry
                if j + 1 < len(body) and re.fullmatch(r"\s*-{3,}\s*", body[j + 1]):
                    break                                       # the next section
                head, sep, kind = entry.strip().partition(" : ")
                names = [n.strip() for n in head.split(",")]
                entries.append((names, kind.strip() if sep and kind.strip() else None))
            break
    return entries


def _parameter_names(doc: str | None) -> set[str]:
    """Names listed in the ``Parameters`` section of a numpy-style docstring."""
    return {n.lstrip("*") for names, _ in _parameter_entries(doc) for n in names}


def _untyped(doc: str | None) -> list[str]:
    """Entries of the ``Parameters`` section without the ``name : type`` form (``*args`` and
    ``**kwargs`` may go without a type, as numpydoc allows)."""
    return [", ".join(names) for names, kind in _parameter_entries(doc)
            if kind is None and not all(n.startswith("*") for n in names)]


def _arguments(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    a = fn.args
    names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
    if a.vararg:
        names.append(a.vararg.arg)
    if a.kwarg:
        names.append(a.kwarg.arg)
    return [n for n in names if n not in ("self", "cls")]


def _is_dataclass_like(cls: ast.ClassDef) -> bool:
    decos = [d.func if isinstance(d, ast.Call) else d for d in cls.decorator_list]
    if any((isinstance(d, ast.Name) and d.id == "dataclass") or (isinstance(d, ast.Attribute) and d.attr == "dataclass")
           for d in decos):
        return True
    return any(isinstance(b, ast.Name) and b.id == "NamedTuple" for b in cls.bases)


def _fields(cls: ast.ClassDef) -> list[str]:
    out = []
    for node in cls.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            if "ClassVar" in ast.unparse(node.annotation):
                continue
            if node.value is not None and "init=False" in ast.unparse(node.value).replace(" ", ""):
                continue
            out.append(node.target.id)
    return out


def _undocumented(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    bad = []

    def check(where: str, args: list[str], *docs: str | None) -> None:
        if not args:
            return
        listed = set().union(*(_parameter_names(d) for d in docs))
        missing = [a for a in args if a not in listed]
        if missing:
            bad.append(f"{path.name}:{where} does not document {missing}")
        untyped = [e for d in docs for e in _untyped(d)]
        if untyped:
            bad.append(f"{path.name}:{where} gives no type for {untyped} (write `name : type`)")

    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_"):
            check(node.name, _arguments(node), ast.get_docstring(node))
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            cdoc = ast.get_docstring(node)
            init = next((n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
            if init is not None:
                check(node.name, _arguments(init), cdoc, ast.get_docstring(init))
            elif _is_dataclass_like(node):
                check(node.name, _fields(node), cdoc)
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and not item.name.startswith("_"):
                    check(f"{node.name}.{item.name}", _arguments(item), ast.get_docstring(item))
    return bad


def test_the_module_list_is_the_package():
    assert {"train.py", "ledger/grading.py", "theory/agf/core.py", "plots/race.py"} <= set(MODULES)


@pytest.mark.parametrize("module", MODULES)
def test_numpy_parameters_sections(module):
    assert _undocumented(ROOT / module) == []


def test_parser_reads_numpy_sections():
    doc = "Summary.\n\nParameters\n----------\nx, y : Tensor\n    Points.\n*args\n    More.\n\nReturns\n-------\nz\n"
    assert _parameter_names(doc) == {"x", "y", "args"}


def test_missing_argument_is_reported(tmp_path):
    src = tmp_path / "m.py"
    src.write_text('def f(a, *, b=1):\n    """Sum.\n\n    Parameters\n    ----------\n    a : int\n        A.\n    """\n\n\n'
                   'class C:\n    """A class."""\n\n    def __init__(self, x):\n        pass\n\n'
                   '    def g(self):\n        """No arguments: nothing to document."""\n\n\n'
                   'def _private(z):\n    pass\n')
    assert _undocumented(src) == ["m.py:f does not document ['b']", "m.py:C does not document ['x']"]


def test_an_entry_without_a_type_is_reported(tmp_path):
    src = tmp_path / "m.py"
    src.write_text('def f(a, b, **kw):\n    """Sum.\n\n    Parameters\n    ----------\n    a : int\n        A.\n'
                   '    b\n        B, untyped.\n    **kw\n        Passed on.\n    """\n')
    assert _undocumented(src) == ["m.py:f gives no type for ['b'] (write `name : type`)"]
    assert _untyped("Parameters\n----------\nx, y : Tensor\n    Points.\n*args\n    More.\n") == []
