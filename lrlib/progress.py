"""Progress of long executions: plain lines when a chapter starts, as each of its sections ends,
and when it ends, with the elapsed time and an ETA from the recorded timings.

Used by ``scripts/execute_chapters.py`` (``make book``, ``make test``) and :mod:`lrlib.sweep`
(``make rerun``, ``python -m lrlib.sweep``, the chapter reruns of ``make test``). The recorded
timings are the book's last recorded execution in ``benchmarks/results.json`` (seconds per chapter
and per ``##`` section). Lines only, flushed at once: no carriage-return bars in CI logs.

Conventions: ``recorded`` is ``{chapter: {"seconds": float, "sections": {title: float}}}`` keyed by
the notebook's stem (``01_orthogonal``); times are wall-clock seconds.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Callable

from .paths import REPO_ROOT

RESULTS = REPO_ROOT / "benchmarks" / "results.json"


def recorded_timings(path: str | Path = RESULTS, quick: bool = False) -> dict[str, dict]:
    """The seconds per chapter (and per section) of the last recorded execution.

    Parameters
    ----------
    path : str or Path
        ``benchmarks/results.json``: its ``book.rows`` (full size, with sections) or, with
        ``quick``, its ``chapters_quick.rows`` (the reduced-size reruns, no sections).
    quick : bool
        The reduced size.

    Returns
    -------
    dict
        ``{stem: {"seconds": s, "sections": {title: s}}}``; empty when nothing is recorded.
    """
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
        if quick:
            return {r["chapter"]: {"seconds": float(r["wall_s"]), "sections": {}}
                    for r in doc["chapters_quick"]["rows"] if r.get("ok", True)}
        return {r["chapter"]: {"seconds": float(r["seconds"]), "sections": dict(r.get("sections") or {})}
                for r in doc["book"]["rows"]}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def planned_wall(seconds: list[float], jobs: int) -> float:
    """Wall time of running jobs of the given lengths on ``jobs`` processes, longest first.

    Parameters
    ----------
    seconds : list of float
        Each job's expected seconds.
    jobs : int
        Processes (>= 1).

    Returns
    -------
    float
        The finish time of the last job (greedy: each job starts on the first free process).
    """
    free = [0.0] * max(1, int(jobs))
    for s in sorted(seconds, reverse=True):
        i = free.index(min(free))
        free[i] += s
    return max(free) if seconds else 0.0


def fmt_seconds(s: float) -> str:
    """``75`` -> ``1 min 15 s``; ``42`` -> ``42 s``.

    Parameters
    ----------
    s : float
        Seconds.

    Returns
    -------
    str
    """
    s = int(round(max(0.0, s)))
    return f"{s // 60} min {s % 60:02d} s" if s >= 60 else f"{s} s"


def clock(t: float) -> str:
    """A wall-clock time as ``HH:MM UTC``.

    Parameters
    ----------
    t : float
        Seconds since the epoch.

    Returns
    -------
    str
    """
    return time.strftime("%H:%M UTC", time.gmtime(t))


def plan_line(what: str, stems: list[str], jobs: int, recorded: dict[str, dict], t0: float) -> str:
    """The first line of a long execution: how many chapters, and how long the recorded timings say.

    Parameters
    ----------
    what : str
        The prefix (``execute_chapters``, ``sweep``).
    stems : list of str
        The chapters to run (notebook stems; a chapter may appear once per seed).
    jobs : int
        Processes.
    recorded : dict
        :func:`recorded_timings`.
    t0 : float
        The start (seconds since the epoch).

    Returns
    -------
    str
    """
    known = [recorded[s]["seconds"] for s in stems if s in recorded]
    if not known:
        return f"{what}: {len(stems)} run(s) on {jobs} process(es); no recorded timings to estimate from"
    wall = planned_wall(known, jobs)
    miss = len(stems) - len(known)
    return (f"{what}: {len(stems)} run(s) on {jobs} process(es); the recorded timings say about {fmt_seconds(wall)}"
            f" (done near {clock(t0 + wall)})" + (f", plus {miss} run(s) never timed" if miss else ""))


def sections_of(nb) -> tuple[dict[int, str], dict[int, str]]:
    """Each code cell's ``##`` section, and the last code cell of each section.

    Parameters
    ----------
    nb : NotebookNode
        The notebook (cells before the first ``##`` heading are in ``setup``).

    Returns
    -------
    tuple of dict
        ``{cell index: section}`` for code cells, and ``{cell index: section}`` for the last code
        cell of each section.
    """
    section, of, last = "setup", {}, {}
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            for line in str(cell.source).splitlines():
                if line.startswith("## "):
                    section = line[3:].strip()
                    break
        elif cell.cell_type == "code":
            of[i] = section
    for i, s in of.items():
        last = {k: v for k, v in last.items() if v != s}
        last[i] = s
    return of, last


class ChapterProgress:
    """Prints a chapter's progress lines; its :meth:`hook` is nbclient's ``on_cell_executed``.

    Parameters
    ----------
    name : str
        The chapter's label in the lines (``02_alignment``, ``alignment seed 3``).
    stem : str
        The notebook's stem, to look up its recorded timings.
    nb : NotebookNode
        The notebook about to run.
    recorded : dict
        :func:`recorded_timings`.
    t_all : float
        When the whole execution started (for the elapsed time in every line).
    out : callable
        Where lines go (default: print to stdout, flushed).
    injected : bool
        The executor inserts one cell after the cell tagged ``parameters`` (papermill does): the
        executed cells' indices are shifted back by one after it.
    """

    def __init__(self, name: str, stem: str, nb, recorded: dict[str, dict], t_all: float,
                 out: Callable[[str], None] | None = None, injected: bool = False):
        self.name, self.t_all = name, t_all
        tagged = [i for i, c in enumerate(nb.cells) if "parameters" in c.get("metadata", {}).get("tags", [])]
        self.params_at = tagged[0] if injected and tagged else None
        self.rec = recorded.get(stem, {})
        self.of, self.last = sections_of(nb)
        self.out = out or (lambda s: print(s, file=sys.stdout, flush=True))
        self.t0 = time.time()

    def _line(self, text: str) -> None:
        self.out(f"[{fmt_seconds(time.time() - self.t_all):>12}] {self.name}: {text}")

    def start(self) -> None:
        """The chapter starts: its recorded length and expected end."""
        s = self.rec.get("seconds")
        self._line("started" + (f" (recorded {fmt_seconds(s)}: done near {clock(self.t0 + s)})" if s else
                                " (no recorded timing)"))

    def hook(self, cell=None, cell_index: int = -1, **_) -> None:
        """After each code cell: a line when the cell ends a ``##`` section.

        Parameters
        ----------
        cell : NotebookNode or None
            The cell executed (unused: the index decides).
        cell_index : int
            Its index in the executed notebook.
        **_ : object
            nbclient's other hook arguments (``execute_reply``).
        """
        if self.params_at is not None and cell_index > self.params_at:
            cell_index -= 1            # the injected parameters cell
        sec = self.last.get(cell_index)
        if sec is None:
            return
        el = time.time() - self.t0
        s = self.rec.get("seconds")
        eta = f"; about {fmt_seconds(s - el)} left by the recorded {fmt_seconds(s)}" if s and s > el else ""
        rs = self.rec.get("sections", {}).get(sec)
        self._line(f"section '{sec[:60]}' done at {fmt_seconds(el)}" + (f" (recorded {fmt_seconds(rs)})" if rs else "")
                   + eta)

    def end(self, ok: bool = True) -> None:
        """The chapter ends.

        Parameters
        ----------
        ok : bool
            Whether it ran to the end.
        """
        self._line(("done" if ok else "FAILED") + f" in {fmt_seconds(time.time() - self.t0)}"
                   + (f" (recorded {fmt_seconds(self.rec['seconds'])})" if self.rec.get("seconds") else ""))


__all__ = ["ChapterProgress", "clock", "fmt_seconds", "plan_line", "planned_wall", "recorded_timings", "sections_of"]
