"""Seed sweeps: run chapters over many seeds through papermill and aggregate their ledgers.

One command runs the chosen chapters (``notebooks/NN_<key>.ipynb``) once per seed, the
way the README tells a reader to rerun a chapter (papermill, the notebook's folder as
working directory, ``seed``/``quick``/``ledger_path`` parameters), collects the claims
ledger each run writes and the numbers it glued, and writes one aggregate JSON: per
claim, the verdict of every seed and the pass rate, with the provenance of the sweep.
The claims-ledger page of the book (``book/ledger.md``) reads the published aggregate.

Usage (from the repository root)::

    .venv/bin/python -m lrlib.sweep --chapters orthogonal alignment --seeds 0 1 2 3 4 --quick \\
        --out runs/sweep --publish

* Runs go in parallel on local processes (``--workers``, default: the number of cores;
  each kernel then gets ``cores // workers`` threads), or on a Dask cluster given by
  ``--scheduler tcp://host:port``. A Dask worker must see the repository at the same
  path (a shared file system or the same checkout) and have the same environment;
  ledgers and glued numbers travel back with the results, so the aggregate is written
  on the machine that runs the command even without a shared file system.
* A run that fails (an exception in the notebook, a timeout, a kernel crash) is listed
  by chapter and seed with the tail of its error in the aggregate, and is left out of
  the pass rates: it does not poison the other runs. The command exits 1 if any run
  failed, after writing the aggregate. A run whose verdicts differ from the book's (seed 0,
  full size) counts, with a note; at seed 0 and full size the chapter's ``ledger.check()``
  raises ``VerdictMismatch`` after saving its ledger, and that run counts too: it is not a
  failed run.
* Outputs: ``<out>/<key>/seed<N>.ipynb`` (the executed notebook), ``<out>/<key>/seed<N>.json``
  (its ledger), ``<out>/sweep-quick.json`` or ``<out>/sweep-full.json`` (the aggregate).
  ``--publish`` copies the aggregate to ``book/ledger_data/`` (the book's ledger page).
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import datetime as _dt
import json
import os
import platform
import re
import shutil
import socket
import subprocess
import sys
import time
import traceback
from importlib import metadata
from pathlib import Path
from typing import Any, Iterable

REPO_ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS_DIR = REPO_ROOT / "notebooks"
PUBLISH_DIR = REPO_ROOT / "book" / "ledger_data"
CHAPTER_RE = re.compile(r"^(\d\d)_([A-Za-z0-9_]+)\.ipynb$")
VERDICTS = ("reproduced", "partial", "not reproduced")
SCHEMA = 1
ERROR_TAIL = 2000  # characters of a failed run's error kept in the aggregate
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


# ---------------------------------------------------------------------------------
# chapters

def discover(notebooks_dir: str | Path = NOTEBOOKS_DIR) -> dict[str, Path]:
    """The chapters in ``notebooks_dir``: ``{key: path}`` for every ``NN_<key>.ipynb``,
    in reading order (NN)."""
    found = []
    for p in Path(notebooks_dir).glob("*.ipynb"):
        m = CHAPTER_RE.match(p.name)
        if m:
            found.append((m.group(1), m.group(2), p))
    return {key: p for _, key, p in sorted(found)}


def select(chapters: dict[str, Path], wanted: Iterable[str] | None) -> dict[str, Path]:
    """The chapters named in ``wanted`` (keys such as ``orthogonal`` or stems such as
    ``01_orthogonal``); all of them when ``wanted`` is empty."""
    wanted = list(wanted or [])
    if not wanted:
        return dict(chapters)
    out = {}
    for w in wanted:
        key = w.split("_", 1)[1] if re.match(r"^\d\d_", w) else w
        if key not in chapters:
            raise SystemExit(f"sweep: no chapter {w!r}; the chapters are: {', '.join(chapters) or '(none)'}")
        out[key] = chapters[key]
    return out


# ---------------------------------------------------------------------------------
# one run (executes in a worker process, local or on a Dask worker)

def kernel_env(threads: int) -> dict[str, str]:
    """Environment variables for a sweep kernel: no progress bars, ``threads`` BLAS/torch
    threads, the repository importable, and no ``LRLIB_QUICK`` override (the sweep
    passes ``quick`` explicitly, and the aggregate records it)."""
    path = os.environ.get("PYTHONPATH", "")
    parts = [str(REPO_ROOT)] + [p for p in path.split(os.pathsep) if p and p != str(REPO_ROOT)]
    n = str(max(1, int(threads)))
    return {"TQDM_DISABLE": "1", "OMP_NUM_THREADS": n, "MKL_NUM_THREADS": n,
            "OPENBLAS_NUM_THREADS": n, "PYTHONPATH": os.pathsep.join(parts)}


def _error_text(exc: BaseException) -> str:
    ename, evalue = getattr(exc, "ename", None), getattr(exc, "evalue", None)
    if ename:  # papermill.PapermillExecutionError: the notebook's own exception
        tb = "\n".join(getattr(exc, "traceback", []) or [])
        text = f"{ename}: {evalue}\n{tb}"
    else:
        text = "".join(traceback.format_exception_only(type(exc), exc))
    text = _ANSI.sub("", text).strip()
    return text[-ERROR_TAIL:]


def glued_numbers(nb: dict) -> dict[str, str]:
    """The values a notebook glued (MyST-NB ``glue``) that are not images: ``{name: text}``.

    Glued figures are listed with the value ``"<figure>"``."""
    out: dict[str, str] = {}
    for cell in nb.get("cells", []):
        for o in cell.get("outputs", []) or []:
            book = (o.get("metadata") or {}).get("scrapbook", {})
            name = book.get("name")
            if not name:
                continue
            prefix = book.get("mime_prefix", "")  # glue(display=False) prefixes the mime types
            data = {k[len(prefix):] if prefix and k.startswith(prefix) else k: v
                    for k, v in (o.get("data") or {}).items()}
            if any(k.startswith("image/") for k in data):
                out[name] = "<figure>"
            elif "text/plain" in data:
                text = data["text/plain"]
                out[name] = "".join(text) if isinstance(text, list) else str(text)
    return out


def run_one(task: dict) -> dict:
    """Execute one (chapter, seed) with papermill; never raises.

    ``task``: ``chapter`` (key), ``notebook`` (path of the ``.ipynb``), ``seed``, ``quick``,
    ``out_dir`` (where ``seed<N>.ipynb`` and ``seed<N>.json`` go), ``threads``,
    ``timeout`` (seconds per cell).  Returns a record: ``chapter``, ``seed``, ``ok``,
    ``seconds``, ``error`` (tail of the message, or ``None``), ``note`` (set when the run ended
    on ``VerdictMismatch``: its verdicts differ from the book's), ``host``, ``claims``
    (the ledger, a list of dicts) and ``glued`` (``{name: text}``)."""
    t0 = time.time()
    rec: dict[str, Any] = {"chapter": task["chapter"], "seed": int(task["seed"]), "ok": False,
                           "seconds": 0.0, "error": None, "note": None, "host": socket.gethostname(),
                           "claims": [], "glued": {}}
    try:
        import papermill  # imported here: a Dask worker imports this module cheaply

        os.environ.update(kernel_env(task.get("threads", 1)))
        os.environ.pop("LRLIB_QUICK", None)
        nb = Path(task["notebook"])
        out = Path(task["out_dir"])
        out.mkdir(parents=True, exist_ok=True)
        out_nb, ledger = out / f"seed{rec['seed']}.ipynb", out / f"seed{rec['seed']}.json"
        ledger.unlink(missing_ok=True)  # a stale ledger from an earlier sweep must not count
        try:
            papermill.execute_notebook(
                str(nb), str(out_nb),
                parameters={"seed": rec["seed"], "quick": bool(task["quick"]), "ledger_path": str(ledger.resolve())},
                cwd=str(nb.parent), kernel_name=task.get("kernel", "python3"), progress_bar=False,
                log_output=False, execution_timeout=task.get("timeout", 1800),
            )
        except papermill.PapermillExecutionError as exc:
            # At full size a chapter ends with ledger.check(), which raises VerdictMismatch when
            # this seed's verdicts differ from the book's (seed 0) ones, after saving the ledger:
            # that is the seed's result, not a failed run.
            if exc.ename != "VerdictMismatch" or not ledger.is_file():
                raise
            rec["note"] = "verdicts differ from the book's: " + _error_text(exc).splitlines()[0][:300]
        if not ledger.is_file():
            raise RuntimeError(f"the notebook ran but wrote no ledger to {ledger} (does it save to ledger_path?)")
        claims = json.loads(ledger.read_text())
        if not isinstance(claims, list):
            raise RuntimeError(f"{ledger} is not a JSON list of claims")
        rec["claims"] = claims
        differ = [c.get("id") for c in claims if isinstance(c, dict) and c.get("verdict") != c.get("expected")]
        if differ and not task["quick"] and rec["note"] is None:
            rec["note"] = f"verdicts differ from the book's in {len(differ)} claim(s): " + ", ".join(map(str, differ))[:300]
        rec["glued"] = glued_numbers(json.loads(out_nb.read_text()))
        rec["ok"] = True
    except BaseException as exc:  # noqa: BLE001 - a failed run is a record, not a crash of the sweep
        if isinstance(exc, KeyboardInterrupt):
            raise
        rec["error"] = _error_text(exc)
    rec["seconds"] = round(time.time() - t0, 1)
    return rec


# ---------------------------------------------------------------------------------
# running many

def _init_worker(threads: int) -> None:
    os.environ.update(kernel_env(threads))


def run_local(tasks: list[dict], workers: int, on_done=None) -> list[dict]:
    """Run ``tasks`` on ``workers`` local processes (each starts its own kernel)."""
    records = []
    threads = tasks[0]["threads"] if tasks else 1
    with cf.ProcessPoolExecutor(max_workers=max(1, workers), initializer=_init_worker,
                                initargs=(threads,)) as pool:
        futures = [pool.submit(run_one, t) for t in tasks]
        for fut in cf.as_completed(futures):
            rec = fut.result()
            records.append(rec)
            if on_done:
                on_done(rec)
    return records


def run_dask(tasks: list[dict], scheduler, on_done=None) -> list[dict]:
    """Run ``tasks`` on a Dask cluster: ``scheduler`` is its address (``tcp://host:port``)
    or a ``distributed.Client``."""
    from distributed import Client, as_completed

    client = scheduler if isinstance(scheduler, Client) else Client(scheduler)
    try:
        futures = client.map(run_one, tasks, pure=False, key=[f"sweep-{t['chapter']}-seed{t['seed']}" for t in tasks])
        records = []
        for fut in as_completed(futures):
            try:
                rec = fut.result()
            except Exception as exc:  # noqa: BLE001 - e.g. the worker died: report it by seed
                t = tasks[futures.index(fut)]
                rec = {"chapter": t["chapter"], "seed": int(t["seed"]), "ok": False, "seconds": 0.0,
                       "error": _error_text(exc), "host": None, "claims": [], "glued": {}}
            records.append(rec)
            if on_done:
                on_done(rec)
        return records
    finally:
        if client is not scheduler:
            client.close()


# ---------------------------------------------------------------------------------
# the aggregate

def _git(*args: str) -> str | None:
    try:
        return subprocess.run(["git", *args], cwd=REPO_ROOT, capture_output=True, text=True,
                              check=True, timeout=30).stdout.strip()
    except Exception:  # noqa: BLE001 - not a git checkout, or git missing
        return None


def _version(pkg: str) -> str | None:
    try:
        return metadata.version(pkg)
    except metadata.PackageNotFoundError:
        return None


def provenance(*, chapters: list[str], seeds: list[int], quick: bool, workers: int | None,
               scheduler: str | None, wall_seconds: float) -> dict:
    """Where, when and how a sweep ran."""
    status = _git("status", "--porcelain", "--untracked-files=no")
    return {
        "git_commit": _git("rev-parse", "HEAD"),
        "git_dirty": None if status is None else bool(status),
        "git_changed": None if status is None else [ln.split(None, 1)[1] for ln in status.splitlines()],
        "date_utc": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": {"host": socket.gethostname(), "platform": platform.platform(),
                    "cpus": os.cpu_count()},
        "python": platform.python_version(),
        "versions": {p: _version(p) for p in ("torch", "numpy", "papermill", "dask", "distributed")},
        "chapters": chapters, "seeds": seeds, "quick": quick,
        "mode": "quick" if quick else "full",
        "runner": f"dask scheduler {scheduler}" if scheduler else f"{workers} local process(es)",
        "wall_seconds": round(wall_seconds, 1),
    }


def aggregate(records: list[dict], prov: dict) -> dict:
    """The sweep's aggregate: runs (ok or failed, by chapter and seed) and, per claim id,
    the verdict and measured value of every seed and the pass rate.

    The pass rate of a claim is (runs whose verdict is ``reproduced``) / (runs that ran to
    the end and have the claim); failed runs are listed in ``failed`` and counted nowhere else."""
    records = sorted(records, key=lambda r: (prov["chapters"].index(r["chapter"])
                                             if r["chapter"] in prov["chapters"] else 99, r["seed"]))
    claims: dict[str, dict] = {}
    for r in records:
        if not r["ok"]:
            continue
        for c in r["claims"]:
            s = str(r["seed"])
            e = claims.setdefault(c["id"], {
                "chapter": r["chapter"], "ref": c.get("ref", ""), "statement": c.get("statement", ""),
                "tolerance": c.get("tolerance", ""), "expected": c.get("expected"),
                "verdicts": {}, "measured": {}, "values": {}})
            e["verdicts"][s] = c.get("verdict")
            e["measured"][s] = c.get("measured")
            e["values"][s] = c.get("value")
    for e in claims.values():
        v = list(e["verdicts"].values())
        e["runs"] = len(v)
        e["counts"] = {k: v.count(k) for k in VERDICTS}
        e["pass_rate"] = e["counts"]["reproduced"] / len(v) if v else None
    return {
        "schema": SCHEMA,
        "provenance": prov,
        "runs": [{k: r.get(k) for k in ("chapter", "seed", "ok", "seconds", "host", "error", "note")} for r in records],
        "failed": [{"chapter": r["chapter"], "seed": r["seed"], "error": r["error"]} for r in records if not r["ok"]],
        "claims": claims,
        "glued": {ch: {str(r["seed"]): r["glued"] for r in records if r["chapter"] == ch and r["ok"]}
                  for ch in prov["chapters"]},
    }


def sweep(chapters: dict[str, Path], seeds: list[int], out: str | Path, *, quick: bool = False,
          workers: int | None = None, scheduler=None, timeout: int = 1800, log=print) -> dict:
    """Run every (chapter, seed), write the ledgers and the aggregate under ``out``, and
    return the aggregate.  ``scheduler``: a Dask address or ``distributed.Client``
    (then ``workers`` is ignored); otherwise ``workers`` local processes (default: cores)."""
    if not chapters:
        raise SystemExit("sweep: no chapters to run")
    seeds = sorted(dict.fromkeys(int(s) for s in seeds))
    if not seeds or min(seeds) < 0:
        raise SystemExit("sweep: give one or more seeds ≥ 0")
    out = Path(out)
    cores = os.cpu_count() or 1
    n_tasks = len(chapters) * len(seeds)
    if scheduler is None:
        workers = max(1, min(workers or cores, n_tasks))
        threads = max(1, cores // workers)
    else:
        threads = 1
    tasks = [{"chapter": key, "notebook": str(Path(nb).resolve()), "seed": s, "quick": quick,
              "out_dir": str((out / key).resolve()), "threads": threads, "timeout": timeout}
             for s in seeds for key, nb in chapters.items()]  # seed-major: every chapter progresses
    address = scheduler if scheduler is None or isinstance(scheduler, str) else scheduler.scheduler.address
    where = f"Dask scheduler {address}" if scheduler is not None else f"{workers} local process(es), {threads} thread(s) each"
    log(f"sweep: {n_tasks} run(s) ({', '.join(chapters)} × seeds {seeds}, {'quick' if quick else 'full'}) on {where}")

    def done(rec):
        status = "ok" if rec["ok"] else "FAILED: " + (rec["error"] or "").strip().splitlines()[0][:200]
        log(f"  {rec['chapter']} seed {rec['seed']}: {status} ({rec['seconds']:.0f}s)")

    # the code state is recorded before the runs start: what ran, even if the tree changes meanwhile
    prov = provenance(chapters=list(chapters), seeds=seeds, quick=quick,
                      workers=None if scheduler is not None else workers,
                      scheduler=address, wall_seconds=0.0)
    t0 = time.time()
    records = run_dask(tasks, scheduler, done) if scheduler is not None else run_local(tasks, workers, done)
    prov["wall_seconds"] = round(time.time() - t0, 1)
    agg = aggregate(records, prov)
    for r in records:  # the ledgers, also when the runs happened on machines without a shared disk
        if r["ok"]:
            p = out / r["chapter"] / f"seed{r['seed']}.json"
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(json.dumps(r["claims"], indent=1))
    path = out / f"sweep-{prov['mode']}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(agg, indent=1, allow_nan=False))
    n_bad = len(agg["failed"])
    log(f"sweep: {n_tasks - n_bad}/{n_tasks} run(s) ok in {prov['wall_seconds']:.0f}s; aggregate: {path}")
    for f in agg["failed"]:
        log(f"  failed: {f['chapter']} seed {f['seed']}: {(f['error'] or '').strip().splitlines()[-1][:300]}")
    agg["_path"] = str(path)
    return agg


def publish(aggregate_path: str | Path, dest_dir: str | Path | None = None) -> Path:
    """Copy an aggregate to ``dest_dir`` (default: the book's ``ledger_data/``, which the
    ledger page reads)."""
    dest = Path(dest_dir if dest_dir is not None else PUBLISH_DIR) / Path(aggregate_path).name
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(aggregate_path, dest)
    return dest


# ---------------------------------------------------------------------------------
# the book's claims-ledger page (book/ledger.md reads the published aggregates)

_ADD_RE = re.compile(r"""ledger\.add\(\s*([rfbuRFBU]*)(["'])(.+?)\2""", re.S)
_DECLARED = ("ref", "statement", "tolerance", "expected")


def _chapter_source(nb: Path) -> list[str]:
    """A chapter's code: its ``.py`` half when there is one, else its ``.ipynb`` code cells."""
    if nb.with_suffix(".py").is_file():
        return [nb.with_suffix(".py").read_text()]
    cells = json.loads(nb.read_text()).get("cells", [])
    return ["".join(c.get("source", "")) for c in cells if c.get("cell_type") == "code"]


def _literal(node) -> str | None:
    import ast
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def chapter_claims(notebook: str | Path) -> tuple[dict[str, dict], int]:
    """The claims a chapter declares in its source: its ``ledger.add("<id>", "<ref>",
    "<statement>", tolerance="...", expected="...")`` calls, read statically (nothing runs).

    Returns ``{full id: {"ref", "statement", "tolerance", "expected"}}`` in source order
    (a value the source computes at run time is ``None``), and the number of calls whose
    id is computed at run time (an f-string), which a static read cannot name."""
    import ast

    nb = Path(notebook)
    key = CHAPTER_RE.match(nb.name).group(2)
    claims: dict[str, dict] = {}
    dynamic = 0
    for src in _chapter_source(nb):
        try:
            tree = ast.parse(src)
        except SyntaxError:  # e.g. a cell with an IPython magic: ids only, by pattern
            for prefix, _, cid in _ADD_RE.findall(src):
                if "f" in prefix.lower() and "{" in cid:
                    dynamic += 1
                else:
                    claims.setdefault(cid if cid.startswith(key + ".") else f"{key}.{cid}", dict.fromkeys(_DECLARED))
            continue
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                 and n.func.attr == "add" and isinstance(n.func.value, ast.Name) and n.func.value.id == "ledger"]
        for call in sorted(calls, key=lambda n: (n.lineno, n.col_offset)):
            cid = _literal(call.args[0]) if call.args else None
            if cid is None:
                dynamic += 1
                continue
            info = dict(zip(("ref", "statement"), (_literal(a) for a in call.args[1:3])))
            info.update({k.arg: _literal(k.value) for k in call.keywords if k.arg in _DECLARED})
            claims.setdefault(cid if cid.startswith(key + ".") else f"{key}.{cid}",
                              {k: info.get(k) for k in _DECLARED})
    return claims, dynamic


def chapter_title(notebook: str | Path) -> str:
    """The first ``# `` heading of a chapter notebook (its title), or its file stem."""
    for c in json.loads(Path(notebook).read_text()).get("cells", []):
        if c.get("cell_type") == "markdown":
            for line in "".join(c.get("source", "")).splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return Path(notebook).stem


def load_published(folder: str | Path = PUBLISH_DIR) -> list[dict]:
    """The published aggregates in ``folder`` (``sweep-*.json``), full size first."""
    aggs = [json.loads(p.read_text()) for p in sorted(Path(folder).glob("sweep-*.json"))]
    return sorted(aggs, key=lambda a: (a["provenance"]["quick"], a["provenance"]["date_utc"]))


def _seed_range(seeds: list[int]) -> str:
    if len(seeds) > 2 and seeds == list(range(seeds[0], seeds[-1] + 1)):
        return f"{seeds[0]}–{seeds[-1]}"
    return ", ".join(map(str, seeds))


#: what the chapters run: a change here since a sweep may move its numbers (lrlib/sweep.py is not
#: run by any chapter: it runs them)
CHAPTER_INPUTS = ("notebooks", "lrlib", "data", "requirements.txt")


def changed_since(commit: str | None, paths: Iterable[str] = CHAPTER_INPUTS) -> list[str] | None:
    """Files under ``paths`` that differ between ``commit`` and the working tree (``None``: no git
    or unknown commit).  ``lrlib/sweep.py`` and the jupytext ``.py`` halves are left out (the
    chapters run the ``.ipynb`` halves, which ``scripts/check_notebooks.py`` keeps in sync)."""
    if not commit:
        return None
    out = _git("diff", "--name-only", commit, "--", *paths)
    if out is None:
        return None
    return [f for f in out.splitlines() if f and f != "lrlib/sweep.py"
            and not (f.startswith("notebooks/") and f.endswith(".py"))]


def pass_summary(agg: dict) -> str:
    """One sentence: of the sweep's claims, how many were reproduced in every run that wrote them,
    in some, and in none."""
    counts = [(c["counts"]["reproduced"], c["runs"]) for c in agg["claims"].values() if c["runs"]]
    every = sum(k == n for k, n in counts)
    none = sum(k == 0 for k, n in counts)
    return (f"Of its {len(counts)} claims, {every} were reproduced in every run, {len(counts) - every - none} "
            f"in some runs only and {none} in none.")


def describe_sweep(agg: dict, book_commit: str | None = None, since: list[str] | None = None) -> str:
    """A Markdown paragraph saying exactly how a published sweep was obtained.  ``since``: the
    files the chapters run that changed between the sweep's commit and the book's
    (:func:`changed_since`); ``None`` when unknown."""
    p = agg["provenance"]
    size = ("**reduced size** (`quick = True`: fewer seeds, steps and samples inside each chapter; "
            "its verdicts are not the published full-scale ones)" if p["quick"]
            else "**full size** (the paper's scale, as in the book)")
    commit = (p.get("git_commit") or "unknown")[:10]
    changed = p.get("git_changed") or []
    dirty = (f" with uncommitted changes to {', '.join(f'`{c}`' for c in changed[:6])}{' …' if len(changed) > 6 else ''}"
             if changed else (" with uncommitted changes" if p.get("git_dirty") else ""))
    v = p.get("versions", {})
    n_runs = len(agg["runs"])
    failed = ("no run failed" if not agg["failed"] else "failed runs, left out of the pass rates: "
              + "; ".join(f"`{f['chapter']}` seed {f['seed']}" for f in agg["failed"]))
    differ = [r for r in agg["runs"] if r.get("note")]
    if differ:
        failed += ("; runs whose verdicts differ from the book's (they ran to the end and count): "
                   + "; ".join(f"`{r['chapter']}` seed {r['seed']}" for r in differ))
    cmd = (f"`python -m lrlib.sweep --chapters {' '.join(p['chapters'])} --seeds {' '.join(map(str, p['seeds']))}"
           f"{' --quick' if p['quick'] else ''} --publish`")
    text = (f"**{p['mode'].capitalize()} sweep.** {n_runs} runs: chapters {', '.join(f'`{c}`' for c in p['chapters'])} "
            f"× seeds {_seed_range(p['seeds'])}, at {size}; run on {p['date_utc'][:10]} at commit `{commit}`{dirty}, "
            f"on {p['runner']} of a {p['machine'].get('cpus', '?')}-core machine (Python {p['python']}, "
            f"torch {v.get('torch')}, papermill {v.get('papermill')}), {p['wall_seconds'] / 60:.0f} min wall time; "
            f"{failed}. Command: {cmd}. {pass_summary(agg)}")
    if book_commit and p.get("git_commit") and book_commit != p["git_commit"]:
        if since == []:
            text += (f" This book was built at the later commit `{book_commit[:10]}`; none of the files the "
                     f"chapters run ({', '.join(CHAPTER_INPUTS)}) changed since the sweep.")
        elif since:
            text += (f" This book was built at commit `{book_commit[:10]}`; files the chapters run changed since "
                     f"the sweep ({', '.join(f'`{c}`' for c in since[:6])}{' …' if len(since) > 6 else ''}) "
                     "and may have moved its numbers.")
        else:
            text += (f" This book was built at commit `{book_commit[:10]}`: chapters changed since the sweep "
                     "may have moved its numbers.")
    return text


def ledger_rows(chapters: dict[str, Path], aggs: list[dict]) -> list[dict]:
    """One row per claim of every chapter: from the chapters' sources (ids) and the published
    sweeps (statement, tolerance, verdicts, measured values, pass rates).  A claim that a
    chapter declares but no sweep ran is kept, marked "not in the sweep"."""
    rows = []
    for key, nb in chapters.items():
        declared, dynamic = chapter_claims(nb)
        swept = [cid for a in aggs for cid, c in a["claims"].items() if c["chapter"] == key]
        if dynamic and not swept:  # ids computed at run time: only a run can name them
            declared[f"{key}.*"] = {"ref": "", "statement": f"{dynamic} more claim(s) whose ids the chapter computes "
                                    "at run time (listed once a sweep runs the chapter)", "tolerance": None, "expected": None}
        for cid in list(declared) + [c for c in dict.fromkeys(swept) if c not in declared]:
            ran = [a["claims"][cid] for a in aggs if cid in a["claims"]]
            # what the chapter declares now, completed by what its runs wrote
            info = {k: (declared.get(cid) or {}).get(k) or (ran[0].get(k) if ran else None) for k in _DECLARED}
            row = {"chapter": key, "notebook": nb, "id": cid, **{k: info[k] or "" for k in _DECLARED},
                   "in_chapter": cid in declared, "sweeps": {}}
            for a in aggs:
                mode, c = a["provenance"]["mode"], a["claims"].get(cid)
                ran = key in a["provenance"]["chapters"]
                row["sweeps"][mode] = c if c else ({"missing": "not in the sweep"} if not ran
                                                   else {"missing": "no run wrote it"})
            rows.append(row)
    return rows


_COLOURS = {"reproduced": "#d9f2d9", "partial": "#fff2cc", "not reproduced": "#f8d7da"}
_MARK = {"reproduced": "✓", "partial": "◐", "not reproduced": "✗"}


def _h(text) -> str:
    import html
    return html.escape("" if text is None else str(text))


def ledger_html(rows: list[dict], aggs: list[dict], page_dir: str | Path = REPO_ROOT / "book",
                toc_file: str | Path = REPO_ROOT / "_toc.yml") -> str:
    """The claims-ledger table as HTML: paper (chapter and reference), claim, the book's verdict,
    per published sweep the pass rate with every seed's verdict, the measured value and the
    tolerance.  Chapters listed in ``toc_file`` link to their page (``page_dir`` is where this
    page is).  The table fits the page's width (fixed layout): no horizontal scrolling."""
    modes = [a["provenance"]["mode"] for a in aggs]
    shown = _shown_seed(aggs[0]) if aggs else None
    measured_head = "measured" + (f" ({modes[0]}, seed {shown})" if aggs else "")
    head = ["chapter · paper ref.", "claim", "verdict in the book"] + [f"pass rate, {m} sweep" for m in modes] \
        + [measured_head, "tolerance"]
    rest = 100 - 15 - 13 - 12 * len(modes)
    widths = [15, 0.42 * rest, 13] + [12] * len(modes) + [0.33 * rest, 0.25 * rest]
    out = ['<table class="ledger-table" style="table-layout:fixed;width:100%;font-size:0.8em;border-collapse:collapse">',
           "<colgroup>" + "".join(f'<col style="width:{w:.1f}%">' for w in widths) + "</colgroup>",
           "<thead><tr>" + "".join(f'<th style="text-align:left;vertical-align:bottom">{_h(h)}</th>' for h in head)
           + "</tr></thead><tbody>"]
    toc_text = Path(toc_file).read_text() if Path(toc_file).is_file() else ""
    for r in rows:
        nb = Path(r["notebook"])
        if f"notebooks/{nb.stem}" in toc_text:  # a chapter of the book: link to its page
            href = os.path.relpath(nb.with_suffix(".html"), page_dir).replace(os.sep, "/")
            chapter = f'<a href="{_h(href)}">{_h(r["chapter"])}</a>'
        else:  # a chapter not (yet) in the table of contents has no page to link to
            chapter = f'{_h(r["chapter"])} <em>(not in the book yet)</em>'
        note = "" if r["in_chapter"] else " <em>(no longer in the chapter)</em>"
        exp = r["expected"]
        cells = [f'{chapter}<br>{_h(r["ref"])}<br><code style="word-break:break-all">{_h(r["id"])}</code>',
                 _h(r["statement"]) + note,
                 f'<span style="background-color:{_COLOURS.get(exp, "")}">{_h(exp or "(computed)")}</span>']
        for m in modes:
            c = r["sweeps"][m]
            if "missing" in c:
                cells.append(f"<em>{_h(c['missing'])}</em>")
                continue
            k, n = c["counts"]["reproduced"], c["runs"]
            marks = " ".join(f'<span title="seed {s}: {_h(v)}">{_MARK.get(v, "?")}</span>' for s, v in c["verdicts"].items())
            part = f", {c['counts']['partial']} partial" if c["counts"]["partial"] else ""
            cells.append(f"<strong>{k}/{n}</strong> ({100 * k / n:.0f}%{part})<br>{marks}")
        first = r["sweeps"].get(modes[0]) if modes else None
        if first and "missing" not in first:
            cells.append(_h(first["measured"].get(str(shown), "(seed did not run)")))
        else:
            cells.append("—")
        cells.append(_h(r["tolerance"]) or "—")
        out.append("<tr>" + "".join(f'<td style="text-align:left;vertical-align:top;overflow-wrap:anywhere;border-bottom:1px solid #ddd;padding:4px">{c}</td>'
                                    for c in cells) + "</tr>")
    out.append("</tbody></table>")
    return "\n".join(out)


def _shown_seed(agg: dict) -> int:
    """The seed whose measured values the ledger shows: the book's own seed 0 when the sweep ran
    it (at full size that is the book's own run), else the sweep's first seed."""
    seeds = agg["provenance"]["seeds"]
    return 0 if 0 in seeds else seeds[0]


def measured_per_seed_html(aggs: list[dict]) -> str:
    """Every measured value of every seed of every published sweep, as collapsible tables."""
    parts = []
    for a in aggs:
        mode = a["provenance"]["mode"]
        body = []
        for cid, c in a["claims"].items():
            for s, v in c["verdicts"].items():
                body.append(f'<tr><td><code>{_h(cid)}</code></td><td>{_h(s)}</td>'
                            f'<td style="background-color:{_COLOURS.get(v, "")}">{_h(v)}</td>'
                            f'<td style="text-align:left">{_h(c["measured"].get(s))}</td></tr>')
        parts.append(f"<details><summary>Measured value of every claim and seed, {_h(mode)} sweep "
                     f"({len(body)} rows)</summary><table class=\"table\"><thead><tr><th>claim</th><th>seed</th>"
                     f"<th>verdict</th><th>measured</th></tr></thead><tbody>{''.join(body)}</tbody></table></details>")
    return "\n".join(parts)


# ---------------------------------------------------------------------------------
# CLI

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m lrlib.sweep", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--chapters", nargs="*", default=[],
                    help="chapter keys (orthogonal) or stems (01_orthogonal); default: every notebooks/NN_<key>.ipynb")
    ap.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2, 3, 4], help="seeds (default: 0 1 2 3 4)")
    ap.add_argument("--quick", action="store_true", help="run at reduced size (papermill -p quick True)")
    ap.add_argument("--workers", type=int, default=None, help="local processes (default: number of cores)")
    ap.add_argument("--scheduler", default=None, help="address of a Dask scheduler (tcp://host:port): run there")
    ap.add_argument("--out", default="runs/sweep", help="output folder (default: runs/sweep)")
    ap.add_argument("--timeout", type=int, default=1800, help="seconds per notebook cell (default: 1800)")
    ap.add_argument("--notebooks", default=str(NOTEBOOKS_DIR), help=argparse.SUPPRESS)
    ap.add_argument("--publish", action="store_true",
                    help="copy the aggregate to book/ledger_data/ (read by the book's claims-ledger page)")
    a = ap.parse_args(argv)
    if a.workers is not None and a.workers < 1:
        ap.error("--workers must be ≥ 1")
    chapters = select(discover(a.notebooks), a.chapters)
    agg = sweep(chapters, a.seeds, a.out, quick=a.quick, workers=a.workers, scheduler=a.scheduler,
                timeout=a.timeout)
    if a.publish:
        print(f"sweep: published {publish(agg['_path'])}")
    return 1 if agg["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
