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
  on the machine that runs the command even without a shared file system. A worker process
  runs one chapter at a time whatever its thread count (papermill starts a kernel in the
  notebook's folder by changing the process's working directory): start one worker process
  per kernel wanted.
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
import threading
import time
import traceback
from importlib import metadata
from pathlib import Path
from typing import Any, Iterable

from .ledger.aggregate import SCHEMA, SWEEP_ENV
from .ledger.verdicts import VERDICTS, pass_rate
from . import paths
from .paths import NOTEBOOKS_DIR, PUBLISH_DIR, REPO_ROOT
from .progress import ChapterProgress, plan_line, recorded_timings

SCHEMA = 2
ERROR_TAIL = 2000  # characters of a failed run's error kept in the aggregate
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
# One run at a time per process: papermill starts the kernel in the notebook's folder by changing
# the *process's* working directory (and :func:`run_one` sets the kernel's environment in
# ``os.environ``), so two runs on threads of one Dask worker would race; a worker with several
# threads runs its tasks one after another (start more worker processes for more kernels).
_RUN_LOCK = threading.Lock()


# ---------------------------------------------------------------------------------
# chapters

def select(chapters: dict[str, Path], wanted: Iterable[str] | None) -> dict[str, Path]:
    """The chapters named in ``wanted``.

    Parameters
    ----------
    chapters : dict of str to Path
        All chapters (:func:`lrlib.paths.chapters`).
    wanted : iterable of str or None
        Keys such as ``orthogonal`` or stems such as ``01_orthogonal``; empty or ``None``: all.

    Returns
    -------
    dict of str to Path
        The selected chapters, in the order of ``wanted``.

    Raises
    ------
    SystemExit
        When a name is not a chapter.
    """
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
    """Environment variables for a sweep kernel.

    No progress bars, the repository importable, ``LRLIB_SWEEP=1`` (a chapter then does not
    require the published sweep to be fresh: this run is what refreshes it), and no
    ``LRLIB_QUICK`` override (:func:`run_one` removes it: the sweep passes ``quick`` explicitly,
    and the aggregate records it).

    Parameters
    ----------
    threads : int
        BLAS/OpenMP threads of the kernel (at least 1).

    Returns
    -------
    dict of str to str
        The variables to set.
    """
    path = os.environ.get("PYTHONPATH", "")
    parts = [str(REPO_ROOT)] + [p for p in path.split(os.pathsep) if p and p != str(REPO_ROOT)]
    n = str(max(1, int(threads)))
    return {"TQDM_DISABLE": "1", "OMP_NUM_THREADS": n, "MKL_NUM_THREADS": n,
            "OPENBLAS_NUM_THREADS": n, "PYTHONPATH": os.pathsep.join(parts), SWEEP_ENV: "1"}


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
    """The values a notebook glued (MyST-NB ``glue``) that are not images.

    Parameters
    ----------
    nb : dict
        An executed notebook, as parsed JSON.

    Returns
    -------
    dict of str to str
        ``{name: text}``; glued figures (an image, or HTML holding images such as a seed switcher)
        are listed with the value ``"<figure>"``.
    """
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
            html = data.get("text/html", "")
            html = "".join(html) if isinstance(html, list) else str(html)
            if any(k.startswith("image/") for k in data) or "<img" in html:
                out[name] = "<figure>"     # an image, or HTML around images (a seed switcher)
            elif "text/plain" in data:
                text = data["text/plain"]
                out[name] = "".join(text) if isinstance(text, list) else str(text)
    return out


def run_one(task: dict) -> dict:
    """Execute one (chapter, seed) with papermill; never raises (but on ``KeyboardInterrupt``).

    Parameters
    ----------
    task : dict
        ``chapter`` (key), ``notebook`` (path of the ``.ipynb``), ``seed``, ``quick``,
        ``out_dir`` (where ``seed<N>.ipynb`` and ``seed<N>.json`` go), ``threads``,
        ``timeout`` (seconds per cell).

    Returns
    -------
    dict
        A record: ``chapter``, ``seed``, ``ok``, ``seconds``, ``error`` (tail of the message, or
        ``None``), ``note`` (set when the run ended on ``VerdictMismatch``: its verdicts differ
        from the book's), ``host``, ``claims`` (the graded claims, a list of dicts, see
        :meth:`lrlib.ledger.grading.Result.to_json`), ``code_hash`` and ``glued`` (``{name: text}``).
    """
    rec: dict[str, Any] = {"chapter": task["chapter"], "seed": int(task["seed"]), "ok": False,
                           "seconds": 0.0, "error": None, "note": None, "host": socket.gethostname(),
                           "claims": [], "glued": {}}
    with _RUN_LOCK:                      # one run at a time per process (see _RUN_LOCK)
        return _run_one(task, rec, time.time())


def _run_one(task: dict, rec: dict[str, Any], t0: float) -> dict:
    try:
        import papermill  # imported here: a Dask worker imports this module cheaply

        os.environ.update(kernel_env(task.get("threads", 1)))
        os.environ.pop("LRLIB_QUICK", None)
        nb = Path(task["notebook"])
        out = Path(task["out_dir"])
        out.mkdir(parents=True, exist_ok=True)
        out_nb, ledger = out / f"seed{rec['seed']}.ipynb", out / f"seed{rec['seed']}.json"
        ledger.unlink(missing_ok=True)  # a stale ledger from an earlier sweep must not count
        import nbformat  # with papermill: only a worker that runs a notebook needs it

        prog = ChapterProgress(f"{task['chapter']} seed {rec['seed']}", nb.stem, nbformat.read(str(nb), as_version=4),
                               task.get("recorded") or {}, task.get("t_all") or t0, injected=True)
        prog.start()
        try:
            papermill.execute_notebook(
                str(nb), str(out_nb),
                parameters={"seed": rec["seed"], "quick": bool(task["quick"]), "ledger_path": str(ledger.resolve())},
                cwd=str(nb.parent), kernel_name=task.get("kernel", "python3"), progress_bar=False,
                log_output=False, execution_timeout=task.get("timeout", 1800), on_cell_executed=prog.hook,
            )
        except papermill.PapermillExecutionError as exc:
            # At full size and base seed 0 a chapter ends with ledger.finish(strict=True), which
            # raises (VerdictMismatch, ControlPassed) after saving its ledger: that is the run's
            # result, recorded with a note, not a failed run.
            if exc.ename not in ("VerdictMismatch", "ControlPassed") or not ledger.is_file():
                raise
            rec["note"] = f"{exc.ename}: " + _error_text(exc).splitlines()[0][:300]
        if not ledger.is_file():
            raise RuntimeError(f"the notebook ran but wrote no ledger to {ledger} (does it call ledger.finish(ledger_path)?)")
        doc = json.loads(ledger.read_text())
        if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
            raise RuntimeError(f"{ledger} is not a claims ledger of schema {SCHEMA} (lrlib.ledger)")
        rec["claims"] = doc["claims"]
        rec["code_hash"] = doc.get("code_hash")
        rec["seeds_run"] = doc.get("seeds")
        off = [c["id"] for c in doc["claims"] if not c.get("expected_ok", True)]
        if off and rec["note"] is None:
            rec["note"] = f"{len(off)} pass rate(s) outside the declared expectation: " + ", ".join(off)[:300]
        rec["glued"] = glued_numbers(json.loads(out_nb.read_text()))
        rec["ok"] = True
        prog.end(True)
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
    """Run tasks on local processes (each starts its own kernel).

    Parameters
    ----------
    tasks : list of dict
        The tasks of :func:`run_one`.
    workers : int
        The number of processes (at least 1).
    on_done : callable or None
        Called with each record as it completes.

    Returns
    -------
    list of dict
        The records, in completion order.
    """
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
    """Run tasks on a Dask cluster.

    Parameters
    ----------
    tasks : list of dict
        The tasks of :func:`run_one`.
    scheduler : str or distributed.Client
        The scheduler's address (``tcp://host:port``) or a client (not closed here).
    on_done : callable or None
        Called with each record as it completes.

    Returns
    -------
    list of dict
        The records, in completion order; a task whose worker failed gets a failed record.
    """
    from distributed import Client, as_completed  # Dask only for a sweep on a cluster (optional)

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
    """Where, when and how a sweep ran.

    Parameters
    ----------
    chapters : list of str
        The chapter keys run.
    seeds : list of int
        The base seeds run.
    quick : bool
        Whether at reduced size.
    workers : int or None
        Local processes (``None`` on Dask).
    scheduler : str or None
        The Dask scheduler's address.
    wall_seconds : float
        The sweep's wall time in seconds.

    Returns
    -------
    dict
        Git commit and changes, date, machine, versions, the arguments and the runner.
    """
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


_DECL_KEYS = ("kind", "ref", "statement", "quantity", "rule", "rule_kind", "measure", "tolerance", "premises",
              "control", "control_run", "partial", "partial_reason", "inconclusive", "expect", "expect_basis",
              "history", "limit", "seeds")


#: The order in which a claim's tier over several runs is decided: the most conservative wins.
_TIER_ORDER = ("consistency", "legacy", "inconclusive", "loose bound", "quantitative")


def sweep_tier(runs: list[dict], kind: str | None) -> tuple[str, str]:
    """A claim's tier over the runs of a sweep: the most conservative of the runs' tiers.

    Parameters
    ----------
    runs : list of dict
        The claim's runs in the aggregate (each with ``tier`` and ``tier_reason``).
    kind : str or None
        The claim's kind (a run without a tier, from an older ledger: ``consistency`` for a
        consistency check, else ``legacy``).

    Returns
    -------
    tuple of str
        ``(tier, reason)`` with the base seed whose run decided it.
    """
    best = None
    for run in runs:
        t = run.get("tier") or ("consistency" if kind == "consistency" else "legacy")
        if best is None or _TIER_ORDER.index(t) < _TIER_ORDER.index(best[0]):
            best = (t, run.get("tier_reason") or "", run.get("seed"))
    if best is None:
        return ("consistency" if kind == "consistency" else "legacy"), ""
    t, why, seed = best
    return t, (f"{why} (base seed {seed})" if why and len(runs) > 1 else why)


def aggregate(records: list[dict], prov: dict) -> dict:
    """The sweep's aggregate (schema 2).

    ``chapters``: per chapter, the code hash its runs reported (:func:`lrlib.ledger.provenance.code_hash`)
    and the base seeds that ran. ``claims``: per claim (full id ``<chapter>.<id>``), its
    declaration as the runs graded it (kind, rule text, premises, control, expectation, ...)
    and ``runs``: one entry per run (base seed) with the seeds it measured, their verdicts and
    values, and the control's measured value and verdicts; then ``counts`` of every verdict
    over all runs and seeds and the ``pass_rate`` (reproduced / graded). Failed runs are
    listed in ``failed`` and counted nowhere else.

    Parameters
    ----------
    records : list of dict
        The records of :func:`run_one`.
    prov : dict
        The sweep's :func:`provenance`.

    Returns
    -------
    dict
        The aggregate.
    """
    order = {c: i for i, c in enumerate(prov["chapters"])}
    records = sorted(records, key=lambda r: (order.get(r["chapter"], 99), r["seed"]))
    claims: dict[str, dict] = {}
    chapters: dict[str, dict] = {}
    for r in records:
        if not r["ok"]:
            continue
        ch = chapters.setdefault(r["chapter"], {"code_hash": r.get("code_hash"), "seeds": [],
                                                "commit": prov.get("git_commit"), "date_utc": prov.get("date_utc")})
        ch["seeds"].append(r["seed"])
        if ch["code_hash"] != r.get("code_hash"):
            ch["code_hash"] = "mixed"
        for c in r["claims"]:
            e = claims.setdefault(f"{r['chapter']}.{c['id']}", {
                "chapter": r["chapter"], **{k: c.get(k) for k in _DECL_KEYS}, "runs": []})
            e["runs"].append({
                "seed": r["seed"], "seeds": c.get("seeds_run"), "verdicts": c.get("verdicts", []),
                "measured": c.get("measured"), "values": c.get("values"),
                "control_measured": c.get("control_measured"), "control_verdicts": c.get("control_verdicts", []),
                "margins": c.get("margins", []), "control_margins": c.get("control_margins", []),
                "init_verdicts": c.get("init_verdicts", []), "coarse_verdicts": c.get("coarse_verdicts", []),
                "tier": c.get("tier"), "tier_reason": c.get("tier_reason", ""), "note": c.get("note", "")})
    for e in claims.values():
        e["tier"], e["tier_reason"] = sweep_tier(e["runs"], e.get("kind"))
        v = [x for run in e["runs"] for x in run["verdicts"]]
        e["counts"] = {k: v.count(k) for k in VERDICTS}
        passes, graded = pass_rate(v)
        e["passes"], e["graded"] = passes, graded
        e["pass_rate"] = passes / graded if graded else None
    return {
        "schema": SCHEMA,
        "provenance": prov,
        "runs": [{k: r.get(k) for k in ("chapter", "seed", "ok", "seconds", "host", "error", "note")} for r in records],
        "failed": [{"chapter": r["chapter"], "seed": r["seed"], "error": r["error"]} for r in records if not r["ok"]],
        "chapters": chapters,
        "claims": claims,
        "glued": {ch: {str(r["seed"]): r["glued"] for r in records if r["chapter"] == ch and r["ok"]}
                  for ch in prov["chapters"]},
    }


def sweep(chapters: dict[str, Path], seeds: list[int], out: str | Path, *, quick: bool = False,
          workers: int | None = None, scheduler=None, timeout: int = 1800, log=print) -> dict:
    """Run every (chapter, seed), write the ledgers and the aggregate under ``out``, return the aggregate.

    Parameters
    ----------
    chapters : dict of str to Path
        The chapters to run (:func:`select`).
    seeds : list of int
        Base seeds ≥ 0 (sorted, made unique).
    out : str or Path
        The output folder.
    quick : bool
        Run at reduced size.
    workers : int or None
        Local processes (default: cores); ignored with ``scheduler``.
    scheduler : str or distributed.Client or None
        A Dask address or client: run there.
    timeout : int
        Seconds per notebook cell.
    log : callable
        Prints the progress lines.

    Returns
    -------
    dict
        The aggregate (:func:`aggregate`), with ``_path``, the file written.

    Raises
    ------
    SystemExit
        When there is no chapter or no valid seed.
    """
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
    recorded = recorded_timings(quick=quick)
    t_all = time.time()
    tasks = [{"chapter": key, "notebook": str(Path(nb).resolve()), "seed": s, "quick": quick,
              "out_dir": str((out / key).resolve()), "threads": threads, "timeout": timeout,
              "recorded": recorded, "t_all": t_all}
             for s in seeds for key, nb in chapters.items()]  # seed-major: every chapter progresses
    address = scheduler if scheduler is None or isinstance(scheduler, str) else scheduler.scheduler.address
    where = f"Dask scheduler {address}" if scheduler is not None else f"{workers} local process(es), {threads} thread(s) each"
    log(f"sweep: {n_tasks} run(s) ({', '.join(chapters)} × seeds {seeds}, {'quick' if quick else 'full'}) on {where}")
    if scheduler is None:
        log(plan_line("sweep", [Path(t["notebook"]).stem for t in tasks], workers, recorded, t_all))

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
            p.write_text(json.dumps({"schema": SCHEMA, "chapter": r["chapter"], "code_hash": r.get("code_hash"),
                                     "seeds": r.get("seeds_run"), "claims": r["claims"]}, indent=1, ensure_ascii=False))
    path = out / f"sweep-{prov['mode']}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(agg, indent=1, allow_nan=False, ensure_ascii=False))
    n_bad = len(agg["failed"])
    log(f"sweep: {n_tasks - n_bad}/{n_tasks} run(s) ok in {prov['wall_seconds']:.0f}s; aggregate: {path}")
    for f in agg["failed"]:
        log(f"  failed: {f['chapter']} seed {f['seed']}: {(f['error'] or '').strip().splitlines()[-1][:300]}")
    agg["_path"] = str(path)
    return agg


def merge(old: dict, new: dict) -> dict:
    """Merge an earlier aggregate into a newer one.

    The chapters of ``old`` that ``new`` did not run keep their claims, runs, failures and glued
    values as they were (each chapter records its own commit, date and code hash, so the page
    can say how old each part is).

    Parameters
    ----------
    old : dict
        The earlier aggregate (ignored unless of this schema).
    new : dict
        The newer aggregate, of the same mode (quick or full).

    Returns
    -------
    dict
        A new aggregate (``new`` when ``old`` is of another schema).

    Raises
    ------
    SystemExit
        When the two are of different modes.
    """
    if old.get("schema") != SCHEMA:
        return new
    if old["provenance"]["mode"] != new["provenance"]["mode"]:
        raise SystemExit(f"sweep: cannot merge a {new['provenance']['mode']} sweep into a {old['provenance']['mode']} one")
    ran = set(new["provenance"]["chapters"])
    keep = [c for c in old["provenance"]["chapters"] if c not in ran]
    out = json.loads(json.dumps(new))
    out["provenance"]["merged_from"] = list(old["provenance"].get("merged_from", [])) + [
        {"commit": old["provenance"].get("git_commit"), "date_utc": old["provenance"].get("date_utc"), "chapters": keep}]
    out["provenance"]["chapters"] = keep + new["provenance"]["chapters"]
    out["chapters"] = {**{k: v for k, v in old.get("chapters", {}).items() if k in keep}, **new["chapters"]}
    out["claims"] = {**{k: v for k, v in old["claims"].items() if v["chapter"] in keep}, **new["claims"]}
    out["runs"] = [r for r in old["runs"] if r["chapter"] in keep] + new["runs"]
    out["failed"] = [f for f in old["failed"] if f["chapter"] in keep] + new["failed"]
    out["glued"] = {**{k: v for k, v in old.get("glued", {}).items() if k in keep}, **new["glued"]}
    return out


def publish(aggregate_path: str | Path, dest_dir: str | Path | None = None, *, merge_into: bool = False) -> Path:
    """Copy an aggregate to the folder the ledger page reads.

    Parameters
    ----------
    aggregate_path : str or Path
        The aggregate's file.
    dest_dir : str or Path or None
        The destination folder; ``None``: the book's ``ledger_data/``.
    merge_into : bool
        Keep the chapters of the published aggregate that this one did not run (:func:`merge`).

    Returns
    -------
    Path
        The published file.
    """
    dest = Path(dest_dir if dest_dir is not None else PUBLISH_DIR) / Path(aggregate_path).name
    dest.parent.mkdir(parents=True, exist_ok=True)
    if merge_into and dest.is_file():
        agg = merge(json.loads(dest.read_text(encoding="utf-8")), json.loads(Path(aggregate_path).read_text(encoding="utf-8")))
        dest.write_text(json.dumps(agg, indent=1, allow_nan=False, ensure_ascii=False))
    else:
        shutil.copyfile(aggregate_path, dest)
    return dest


# ---------------------------------------------------------------------------------
# CLI

def main(argv: list[str] | None = None) -> int:
    """The command line (``python -m lrlib.sweep --help``).

    Parameters
    ----------
    argv : list of str or None
        The arguments; ``None``: ``sys.argv[1:]``.

    Returns
    -------
    int
        The exit status: 1 when a run failed, else 0.
    """
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
    ap.add_argument("--merge", action="store_true",
                    help="with --publish: keep the published chapters that this sweep did not run")
    a = ap.parse_args(argv)
    if a.workers is not None and a.workers < 1:
        ap.error("--workers must be ≥ 1")
    chapters = select(paths.chapters(a.notebooks), a.chapters)
    agg = sweep(chapters, a.seeds, a.out, quick=a.quick, workers=a.workers, scheduler=a.scheduler,
                timeout=a.timeout)
    if a.publish:
        print(f"sweep: published {publish(agg['_path'], merge_into=a.merge)}")
    return 1 if agg["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
