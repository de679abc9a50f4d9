"""The integrator, batched-seeds and chapter benchmarks (see run.py)."""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from benchmarks import problems as pb
from lrlib.models import TwoLayer
from lrlib.paths import REPO_ROOT as ROOT
from lrlib.paths import chapters
from lrlib.train import train



# --------------------------------------------------------------------------- integrator

def _row(problem: str, method: str, times: np.ndarray, ref: np.ndarray, grad_evals: int, wall: float,
         gd_steps: int) -> dict:
    ok = np.isfinite(ref)
    err = float(np.max(np.abs(times[ok] - ref[ok]) / np.abs(ref[ok])))
    return dict(problem=problem, method=method, times=[round(float(t), 5) for t in times], grad_evals=int(grad_evals),
                wall_s=wall, max_rel_err=err, evals_ratio=gd_steps / grad_evals)


def integrator(fine: int = 10) -> dict:
    """Phase/jump times and gradient evaluations: fine-step GD (reference, η/``fine``), GD at the
    paper's step, and the adaptive flow (RK45 at the tests' tolerances and at rtol 1e-6)."""
    rows = []
    # orthogonal toy: τ_end = 20 (the paper's 20 000 iterations)
    tau = pb.TOY_ETA * pb.TOY_STEPS
    t0 = time.perf_counter(); ref, n_ref = pb.toy_gd(pb.TOY_ETA / fine, tau); w_ref = time.perf_counter() - t0
    t0 = time.perf_counter(); gd, n_gd = pb.toy_gd(pb.TOY_ETA, tau); w_gd = time.perf_counter() - t0
    rows += [_row("orthogonal toy", f"GD η/{fine} (reference)", ref, ref, n_ref, w_ref, n_gd),
             _row("orthogonal toy", "GD, paper's step η = 1e-3", gd, ref, n_gd, w_gd, n_gd)]
    for rtol, atol in ((pb.FLOW_RTOL, pb.FLOW_ATOL), (1e-6, 1e-12)):
        t0 = time.perf_counter(); fl, ev = pb.toy_flow(tau, rtol=rtol, atol=atol); w = time.perf_counter() - t0
        rows.append(_row("orthogonal toy", f"flow RK45 rtol {rtol:g}, atol {atol:g}", fl, ref, ev, w, n_gd))
    # diagonal linear network
    prob = pb.diag_problem()
    t0 = time.perf_counter(); ref, n_ref = pb.diag_gd(prob, pb.DIAG_ETA / fine, pb.DIAG_TAU); w_ref = time.perf_counter() - t0
    t0 = time.perf_counter(); gd, n_gd = pb.diag_gd(prob, pb.DIAG_ETA, pb.DIAG_TAU); w_gd = time.perf_counter() - t0
    rows += [_row("diagonal linear net", f"GD η/{fine} (reference)", ref, ref, n_ref, w_ref, n_gd),
             _row("diagonal linear net", "GD, paper's step η = 1e-3", gd, ref, n_gd, w_gd, n_gd)]
    for rtol, atol in ((pb.FLOW_RTOL, pb.FLOW_ATOL), (1e-6, 1e-12)):
        t0 = time.perf_counter(); fl, ev = pb.diag_flow(prob, pb.DIAG_TAU, rtol=rtol, atol=atol); w = time.perf_counter() - t0
        rows.append(_row("diagonal linear net", f"flow RK45 rtol {rtol:g}, atol {atol:g}", fl, ref, ev, w, n_gd))
    return dict(rows=rows, notes=dict(
        toy="times = [first saddle exit (L < 0.99 L0), second exit (L < 0.4)] in τ = steps·η (paper time 2τ); τ_end = 20",
        diag=f"times = per coordinate, first τ with β_i/β*_i ≥ ½ (nan: not before τ_end = {pb.DIAG_TAU:g}); "
             f"d = {pb.DIAG_D}, n = {pb.DIAG_N}, α = {pb.DIAG_ALPHA:g}",
        evals_ratio="GD steps at the paper's step / gradient evaluations of the row",
    ))


# --------------------------------------------------------------------------- batched seeds

def seeds(K: int = 8, steps: int = 2000, repeat: int = 3) -> dict:
    """Throughput (run-steps per second) of K seeds of the orthogonal toy trained in one batched
    call against K sequential calls (chapter 01's toy: m = 60, GD η = 1e-3, dense loss)."""
    p_all, X, y = pb.toy_problem(seed=0, runs=(K,))
    singles = [p_all.map(lambda t, r=r: t[r]) for r in range(K)]
    kw = dict(loss=pb.MEAN_MSE, lr=pb.TOY_ETA, steps=steps, record=50, time_scale=2.0, dense_loss=True, progress=False)

    def best(fn):
        b = math.inf
        for _ in range(repeat):
            t0 = time.perf_counter(); fn(); b = min(b, time.perf_counter() - t0)
        return b

    train(p_all, X, y, **dict(kw, steps=10))
    t_batch = best(lambda: train(p_all, X, y, **kw))
    t_seq = best(lambda: [train(p, X, y, **kw) for p in singles])
    return dict(K=K, steps=steps, model="orthogonal toy, n=2, d=2, m=60, GD, float64",
                batched_s=t_batch, sequential_s=t_seq, speedup=t_seq / t_batch,
                batched_run_steps_per_s=K * steps / t_batch, sequential_run_steps_per_s=K * steps / t_seq)


# --------------------------------------------------------------------------- chapters

def chapter_notebooks(select: list[str] | None = None) -> list[Path]:
    """``notebooks/NN_*.ipynb``, optionally only those whose NN or key is in ``select``."""
    nbs = list(chapters().values())
    if select:
        nbs = [p for p in nbs if p.stem[:2] in select or p.stem[3:] in select or p.stem in select]
    return nbs


def chapters(select: list[str] | None = None, quick: bool = False) -> dict:
    """Wall time of each chapter run through papermill at its published settings (``quick``: reduced size)."""
    out_dir = ROOT / "runs" / "bench"
    out_dir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, TQDM_DISABLE="1", PYTHONPATH=f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    papermill = Path(sys.executable).parent / "papermill"
    rows = []
    for nb in chapter_notebooks(select):
        cmd = [str(papermill), str(nb), str(out_dir / nb.name), "--cwd", str(ROOT / "notebooks"),
               "-p", "ledger_path", str(out_dir / f"{nb.stem}.json"), "--no-progress-bar"]
        if quick:
            cmd += ["-p", "quick", "True"]
        load0 = os.getloadavg()
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        tail = re.sub(r"\s+", " ", proc.stderr[-400:]) if proc.returncode else ""
        rows.append(dict(chapter=nb.stem, wall_s=wall, ok=proc.returncode == 0, load_before=list(load0),
                         load_after=list(os.getloadavg()), error_tail=tail))
        print(f"  chapter {nb.stem}: {wall:.0f} s ({'ok' if proc.returncode == 0 else 'FAILED'})", flush=True)
    return dict(quick=quick, rows=rows, total_s=sum(r["wall_s"] for r in rows))


def book(jobs: int = 2) -> dict:
    """The book's execution as ``make book`` does it from an empty ``_build/``: every chapter at
    full size through ``scripts/execute_chapters.py`` (``jobs`` at once, one thread each), into a
    fresh execution cache; per chapter its seconds and the seconds under each of its sections."""
    nbs = [str(p) for p in chapter_notebooks()]
    env = dict(os.environ, TQDM_DISABLE="1", PYTHONPATH=f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    env.pop("LRLIB_QUICK", None)
    with tempfile.TemporaryDirectory() as tmp:
        timings = Path(tmp) / "timings.json"
        cmd = [sys.executable, str(ROOT / "scripts" / "execute_chapters.py"), "--cache", str(Path(tmp) / "cache"),
               "--jobs", str(jobs), "--timings", str(timings), *nbs]
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        if not timings.is_file():
            raise RuntimeError(f"execute_chapters failed: {proc.stderr[-2000:]}")
        doc = json.loads(timings.read_text())
    return book_from_timings(doc, wall)


def book_from_timings(doc: dict, wall: float | None = None) -> dict:
    """The ``book`` section from the ``--timings`` file of ``scripts/execute_chapters.py`` (``wall``:
    the seconds of the whole command, when it was timed from outside)."""
    rows = [dict(chapter=Path(name).stem, seconds=v["seconds"], sections=v["sections"])
            for name, v in sorted(doc["chapters"].items())]
    return dict(jobs=doc["jobs"], wall_s=round(wall if wall is not None else doc["wall_s"], 1),
                execution_wall_s=doc["wall_s"], failed=doc["failed"], rows=rows,
                cpu_s=round(sum(r["seconds"] for r in rows), 1))
