"""The book's claims-ledger and errata pages, rendered from the chapters' claim declarations
(``notebooks/NN_<key>.claims.yaml``) and the published seed sweeps (``book/ledger_data/``).

Nothing here grades: verdicts come from the sweeps' runs (:mod:`lrlib.sweep`), declarations
from the claims files (:mod:`lrlib.ledger.declarations`). The page also shows, per claim, the commit that
last changed its declaration (from git) and flags a claim whose rule differs from the rule
that the published sweep graded.
"""

from __future__ import annotations

import html
import json
import os
import subprocess
from pathlib import Path

import matplotlib.pyplot as plt
import yaml

from .ledger import code_hash, headline, load_declarations
from .ledger.verdicts import COLOURS, MARKS
from .ledger.view import legend_html, margin_marks, table_html
from .paths import PUBLISH_DIR, REPO_ROOT, claims_file


def _h(text) -> str:
    return html.escape("" if text is None else str(text))


def _git(*args: str, cwd: Path = REPO_ROOT) -> str | None:
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True,
                              timeout=60).stdout
    except Exception:  # noqa: BLE001 - not a git checkout, or git missing
        return None


def load_published(folder: str | Path = PUBLISH_DIR) -> list[dict]:
    """The published sweep aggregates.

    Parameters
    ----------
    folder : str or Path
        Where the aggregates lie (``sweep-*.json``); default: the book's ``ledger_data/``.

    Returns
    -------
    list of dict
        The aggregates of schema 2, full size first, then by date.
    """
    aggs = []
    for p in sorted(Path(folder).glob("sweep-*.json")):
        a = json.loads(p.read_text(encoding="utf-8"))
        if a.get("schema") == 2:
            aggs.append(a)
    return sorted(aggs, key=lambda a: (a["provenance"]["quick"], a["provenance"]["date_utc"]))


def declaration_history(path: str | Path, root: str | Path = REPO_ROOT) -> dict[str, dict]:
    """When each claim of a claims file last changed its declaration (from git).

    Parameters
    ----------
    path : str or Path
        The claims file.
    root : str or Path
        The repository root (a file outside it has no history).

    Returns
    -------
    dict of str to dict
        Per claim id: the newest commit whose version of the file declares the claim differently
        from the commit before it (``commit``, ``date``, ``subject``); claims changed only in the
        working tree get ``commit = "uncommitted"``. Empty without git.
    """
    path, root = Path(path), Path(root)
    try:
        rel = path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:   # not in the repository (a throwaway chapter): no history
        return {}
    log = _git("log", "--format=%H%x09%cs%x09%s", "--", rel, cwd=root)
    if log is None:
        return {}
    commits = [ln.split("\t", 2) for ln in log.splitlines() if ln.strip()]

    def decls(text: str | None) -> dict[str, dict]:
        if not text:
            return {}
        try:
            doc = yaml.safe_load(text) or {}
            return {d["id"]: d for d in doc.get("claims", []) if isinstance(d, dict) and "id" in d}
        except Exception:  # noqa: BLE001 - an old malformed version counts as "different"
            return {}

    versions = [("uncommitted", "", "working tree", decls(path.read_text(encoding="utf-8")))]
    for h, date, subject in commits:
        versions.append((h, date, subject, decls(_git("show", f"{h}:{rel}", cwd=root))))
    out: dict[str, dict] = {}
    for cid, now in versions[0][3].items():
        for (h, date, subj, d), (_, _, _, older) in zip(versions, versions[1:] + [("", "", "", {})]):
            if d.get(cid) != older.get(cid):
                out[cid] = {"commit": h, "date": date, "subject": subj}
                break
            if d.get(cid) != now:
                break
    return out


def _seed_range(seeds: list[int]) -> str:
    seeds = sorted(seeds)
    if len(seeds) > 2 and seeds == list(range(seeds[0], seeds[-1] + 1)):
        return f"{seeds[0]}–{seeds[-1]}"
    return ", ".join(map(str, seeds))


def stale_chapters(agg: dict) -> dict[str, str]:
    """Chapters of a sweep whose code changed since (:func:`lrlib.ledger.provenance.code_hash`).

    Parameters
    ----------
    agg : dict
        A sweep aggregate.

    Returns
    -------
    dict of str to str
        ``{key: "<old hash> → <new hash>"}`` (``gone`` for a chapter that no longer exists).
    """
    out = {}
    for key, ch in agg.get("chapters", {}).items():
        try:
            now = code_hash(key)
        except Exception:  # noqa: BLE001 - a chapter that no longer exists
            now = "gone"
        if ch.get("code_hash") != now:
            out[key] = f"{ch.get('code_hash')} → {now}"
    return out


def describe_sweep(agg: dict) -> str:
    """A Markdown paragraph saying how a published sweep was obtained, and whether the code of
    each chapter it ran is still the code of the book.

    Parameters
    ----------
    agg : dict
        One of :func:`load_published`'s aggregates.

    Returns
    -------
    str
        The paragraph, with the commands that reproduce the sweep.
    """
    p = agg["provenance"]
    size = ("**reduced size** (`quick = True`; its verdicts are not the published full-size ones)"
            if p["quick"] else "**full size** (the book's own protocol)")
    commit = (p.get("git_commit") or "unknown")[:10]
    v = p.get("versions", {})
    failed = ("no run failed" if not agg["failed"] else "failed runs, left out of the pass rates: "
              + "; ".join(f"`{f['chapter']}` seed {f['seed']}" for f in agg["failed"]))
    chapters = ", ".join(
        f"`{k}` (base seeds {_seed_range(c['seeds'])}"
        + (f"; run {str(c.get('date_utc'))[:10]} at `{str(c.get('commit'))[:10]}`" if c.get("commit") != p.get("git_commit") else "")
        + ")" for k, c in agg.get("chapters", {}).items())
    stale = stale_chapters(agg)
    fresh = ("The code of every chapter it ran is the code of this book (same hash of notebook, claims "
             "file and the `lrlib` modules it imports)." if not stale else
             "**Stale for** " + ", ".join(f"`{k}`" for k in stale)
             + ": their code changed since this sweep, so its numbers for them may have moved.")
    groups: dict[tuple, list[str]] = {}
    for k, c in agg.get("chapters", {}).items():   # one command per set of base seeds
        groups.setdefault(tuple(sorted(c["seeds"])), []).append(k)
    cmds = [f"`python -m lrlib.sweep --chapters {' '.join(ks)} --seeds {' '.join(map(str, s))}"
            f"{' --quick' if p['quick'] else ''} --publish{' --merge' if len(groups) > 1 else ''}`"
            for s, ks in groups.items()]
    cmd = " and ".join(cmds) if cmds else "(none)"
    merged = p.get("merged_from")
    counts = [(c["passes"], c["graded"]) for c in agg["claims"].values()
              if c.get("kind") == "reproduction" and c["graded"]]
    every = sum(k == n for k, n in counts)
    none = sum(k == 0 for k, n in counts)
    return (f"**{p['mode'].capitalize()} sweep**, run on {p['date_utc'][:10]} at commit `{commit}`"
            f"{' with uncommitted changes' if p.get('git_dirty') else ''}: chapters {chapters}, at {size}, "
            f"on {p['runner']} of a {p['machine'].get('cpus', '?')}-core machine (Python {p['python']}, "
            f"torch {v.get('torch')}), {p['wall_seconds'] / 60:.0f} min wall time"
            f"{' for the last of the sweeps merged here' if merged else ''}; {failed}. "
            f"Command{'s' if len(cmds) > 1 else ''}: {cmd}. "
            f"Of its {len(counts)} graded reproduction claims, {every} were reproduced in every graded seed, "
            f"{len(counts) - every - none} in some and {none} in none. {fresh}")


def ledger_rows(chapters: dict[str, Path], aggs: list[dict]) -> list[dict]:
    """One row per declared claim of every chapter (declaration order).

    Parameters
    ----------
    chapters : dict of str to Path
        ``{key: notebook}``; a chapter without a claims file has no rows.
    aggs : list of dict
        The published aggregates (:func:`load_published`).

    Returns
    -------
    list of dict
        Rows with ``chapter``, ``notebook``, ``id`` (``<chapter>.<id>``), ``decl`` (the
        :class:`~lrlib.ledger.declarations.Declaration`), ``history`` (:func:`declaration_history`) and
        ``sweeps`` (``{mode: the claim's entry in that sweep, or None}``).
    """
    rows = []
    for key, nb in chapters.items():
        yml = claims_file(nb)
        if not yml.is_file():   # a chapter without a claims file has no rows
            continue
        decls = load_declarations(yml)
        hist = declaration_history(yml)
        for d in decls:
            fid = f"{key}.{d.id}"
            sweeps = {}
            for a in aggs:
                c = a["claims"].get(fid)
                sweeps[a["provenance"]["mode"]] = c
            rows.append({"chapter": key, "notebook": nb, "id": fid, "decl": d,
                         "history": hist.get(d.id, {}), "sweeps": sweeps})
    return rows


def _chapter_link(r: dict, page_dir: Path, toc_text: str) -> str:
    nb = Path(r["notebook"])
    if f"notebooks/{nb.stem}" in toc_text:
        href = os.path.relpath(nb.with_suffix(".html"), page_dir).replace(os.sep, "/")
        return f'<a href="{_h(href)}">{_h(r["chapter"])}</a>'
    return f'{_h(r["chapter"])} <em>(not in the book yet)</em>'


def outcome(c: dict | None) -> tuple[str, float]:
    """The outcome class and pass rate of a claim in a sweep, for filtering and sorting.

    Parameters
    ----------
    c : dict or None
        The claim's entry in a sweep aggregate; ``None``: not in the sweep.

    Returns
    -------
    tuple of (str, float)
        The class — ``reproduced`` (every graded seed), ``not reproduced`` (none), ``mixed``,
        ``not graded`` (only inconclusive or premise-not-met seeds) or ``not in a sweep`` — and
        the pass rate, -1 when there is none.
    """
    if not c:
        return "not in a sweep", -1.0
    if not c["graded"]:
        return "not graded", -1.0
    rate = c["passes"] / c["graded"]
    return ("reproduced" if rate == 1 else "not reproduced" if rate == 0 else "mixed"), rate


def ledger_html(rows: list[dict], aggs: list[dict], page_dir: str | Path = REPO_ROOT / "book",
                toc_file: str | Path = REPO_ROOT / "_toc.yml", tools: bool = True) -> str:
    """The ledger as an HTML table: one row per claim, with its declaration (rule, tolerance
    source, premises, control), the control's measured value and verdict, the pass rate over
    every seed of the published full-size sweep (the book's own run is base seed 0), and the
    commit that last changed the declaration. With ``tools``, a toolbar above it filters the rows
    by chapter, outcome and kind, searches their text and sorts them by pass rate (static
    JavaScript: no server).

    Parameters
    ----------
    rows : list of dict
        The rows of :func:`ledger_rows`.
    aggs : list of dict
        The published aggregates; the first full-size one (else the first) is shown.
    page_dir : str or Path
        The page's folder, for relative links to the chapters.
    toc_file : str or Path
        The book's table of contents; a chapter not in it is marked *not in the book yet*.
    tools : bool
        Add the toolbar.

    Returns
    -------
    str
        HTML.
    """

    full = next((a for a in aggs if not a["provenance"]["quick"]), aggs[0] if aggs else None)
    mode = full["provenance"]["mode"] if full else None
    toc_text = Path(toc_file).read_text() if Path(toc_file).is_file() else ""
    head = ["claim", "statement", "rule · tolerance from", "premises · control run",
            "declared", "tier", f"pass rate, margins ({mode} sweep)" if mode else "pass rate"]
    body, attrs = [], []
    for r in rows:
        d, c = r["decl"], (r["sweeps"].get(mode) if mode else None)
        kind = "" if d.kind == "reproduction" else "<br><em>consistency check</em>"
        cells = [f'{_chapter_link(r, Path(page_dir), toc_text)} · {_h(d.ref)}<br>'
                 f'<code style="word-break:break-all">{_h(r["id"])}</code>{kind}',
                 _h(d.statement)]
        rule = f"<code>{_h(d.rule)}</code><br><small>{_h(d.tolerance)}</small>"
        for ch in d.history:
            rule += f"<br><small><b>changed after a result</b> ({_h(ch.date or 'undated')}): {_h(ch.change)} — {_h(ch.reason)}</small>"
        if c and " ".join(str(c.get("rule", "")).split()) != " ".join(d.rule.split()):
            rule += ("<br><small><b>⚠ differs from the rule the published sweep graded</b>: "
                     f"<code>{_h(c.get('rule'))}</code></small>")
        cells.append(rule)
        prem = "<br>".join(f"{_h(p.text)} (<code>{_h(p.rule)}</code>)" for p in d.premises) or "—"
        ctrl = "—"
        if d.kind == "reproduction":
            ctrl = _h(d.control_text)
            if c and c["runs"]:
                run0 = c["runs"][0]
                ctrl += (f"<br><small>measured (base seed {run0['seed']}): {_h(run0.get('control_measured'))}</small><br>"
                         + "<br>".join(f"<small>run {run['seed']}:</small> "
                                       + margin_marks(run.get("control_verdicts") or [], run.get("control_margins") or [])
                                       for run in c["runs"]))
        cells.append(f"<small>premises:</small> {prem}<br><small>control:</small> {ctrl}")
        h = r["history"]
        cells.append(f'expect <i>{_h(d.expect)}</i> ({_h(d.expect_basis)})<br><small>declaration last changed: '
                     + (f'<code>{_h(h["commit"][:8])}</code> {_h(h["date"])}' if h.get("date")
                        else _h(h.get("commit", "unknown")))
                     + "</small>")
        tier = claim_tier(r, mode)
        cells.append(f"<b>{_h(tier)}</b>" + (f"<br><small>{_h(c.get('tier_reason'))}</small>" if c and c.get("tier_reason") else ""))
        cls, rate = outcome(c)
        if c:
            verdicts = [v for run in c["runs"] for v in run["verdicts"]]
            run0 = c["runs"][0]
            extra = ", ".join(f"{n} {k}" for k, n in c["counts"].items()
                              if n and k in ("premise not met", "inconclusive"))
            colour = COLOURS.get(cls, COLOURS["partial"])
            cells.append(f'<b class="lr-verdict" style="background:{colour};padding:0 .3em">{_h(headline(verdicts))}</b>'
                         f'{f" ({_h(extra)})" if extra else ""}<br>'
                         + "<br>".join(f"<small>run {run['seed']}:</small> " + margin_marks(run["verdicts"], run.get("margins") or [], run.get("seeds"))
                                       for run in c["runs"])
                         + f'<br><small>base seed {run0["seed"]}: {_h(run0.get("measured"))}</small>')
        else:
            cells.append("<em>not in a published sweep</em>")
        body.append(cells)
        attrs.append(f' data-chapter="{_h(r["chapter"])}" data-kind="{_h(d.kind)}" data-outcome="{_h(cls)}" data-tier="{_h(tier)}"'
                     f' data-rate="{rate:.4f}"')
    table = table_html(body, head, attrs)
    if not tools:
        return legend_html() + table
    chapters = list(dict.fromkeys(r["chapter"] for r in rows))
    opts = lambda xs: "".join(f'<option value="{_h(x)}">{_h(x)}</option>' for x in xs)  # noqa: E731
    toolbar = (
        '<div class="lr-toolbar">'
        f'<label>chapter <select data-filter="chapter"><option value="">all</option>{opts(chapters)}</select></label>'
        '<label>outcome <select data-filter="outcome"><option value="">all</option>'
        f'{opts(["reproduced", "mixed", "not reproduced", "not graded", "not in a sweep"])}</select></label>'
        '<label>kind <select data-filter="kind"><option value="">all</option>'
        f'{opts(["reproduction", "consistency"])}</select></label>'
        '<label>tier <select data-filter="tier"><option value="">all</option>'
        f'{opts(["quantitative", "loose bound", "consistency", "not graded", "inconclusive", "legacy", "not in a sweep"])}</select></label>'
        '<label><input type="search" data-filter="text" placeholder="search claims"></label>'
        '<button type="button" data-sort="rate">sort by pass rate</button>'
        '<span class="lr-count"></span></div>')
    return f'<div class="lr-ledger-tool">{toolbar}{legend_html()}{table}</div>{_SCRIPT}'


_SCRIPT = """<script>
(function () {
  document.querySelectorAll('.lr-ledger-tool').forEach(function (tool) {
    var tbody = tool.querySelector('tbody');
    var rows = Array.prototype.slice.call(tbody.querySelectorAll('tr'));
    var count = tool.querySelector('.lr-count');
    function apply() {
      var f = {};
      tool.querySelectorAll('[data-filter]').forEach(function (el) { f[el.dataset.filter] = el.value.toLowerCase(); });
      var shown = 0;
      rows.forEach(function (tr) {
        var ok = (!f.chapter || tr.dataset.chapter === f.chapter) && (!f.outcome || tr.dataset.outcome === f.outcome)
          && (!f.kind || tr.dataset.kind === f.kind) && (!f.tier || tr.dataset.tier === f.tier) && (!f.text || tr.textContent.toLowerCase().indexOf(f.text) >= 0);
        tr.style.display = ok ? '' : 'none';
        if (ok) { shown += 1; }
      });
      count.textContent = shown + ' of ' + rows.length + ' claims shown';
    }
    tool.querySelectorAll('[data-filter]').forEach(function (el) {
      el.addEventListener('input', apply); el.addEventListener('change', apply);
    });
    var ascending = true;
    tool.querySelector('[data-sort]').addEventListener('click', function () {
      rows.sort(function (a, b) { return (parseFloat(a.dataset.rate) - parseFloat(b.dataset.rate)) * (ascending ? 1 : -1); });
      rows.forEach(function (tr) { tbody.appendChild(tr); });
      ascending = !ascending;
    });
    apply();
  });
})();
</script>"""


def summary_figure(rows: list[dict], aggs: list[dict]):
    """A stacked bar per chapter: its reproduction claims by outcome in the full-size sweep.

    Parameters
    ----------
    rows : list of dict
        The rows of :func:`ledger_rows`.
    aggs : list of dict
        The published aggregates.

    Returns
    -------
    Figure
    """
    full = next((a for a in aggs if not a["provenance"]["quick"]), None)
    mode = full["provenance"]["mode"] if full else None
    order = ["reproduced", "mixed", "not reproduced", "not graded", "not in a sweep"]
    colours = {"reproduced": COLOURS["reproduced"], "mixed": COLOURS["partial"],
               "not reproduced": COLOURS["not reproduced"], "not graded": COLOURS["premise not met"],
               "not in a sweep": "#ffffff"}
    chapters = list(dict.fromkeys(r["chapter"] for r in rows))
    counts = {o: [] for o in order}
    for ch in chapters:
        outs = [outcome(r["sweeps"].get(mode) if mode else None)[0] for r in rows
                if r["chapter"] == ch and r["decl"].kind == "reproduction"]
        for o in order:
            counts[o].append(outs.count(o))
    fig, ax = plt.subplots(figsize=(7, 0.5 + 0.45 * len(chapters)), constrained_layout=True)
    left = [0] * len(chapters)
    for o in order:
        ax.barh(chapters, counts[o], left=left, color=colours[o], edgecolor="0.4", linewidth=0.6, label=o)
        left = [a + b for a, b in zip(left, counts[o])]
    ax.invert_yaxis()
    ax.set(xlabel="reproduction claims", title=f"Claims by outcome over seeds ({mode or 'no'} sweep)")
    ax.legend(ncol=3, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.35 if len(chapters) < 4 else -0.2))
    return fig


def claim_tier(r: dict, mode: str | None) -> str:
    """A row's tier in the sweep ``mode`` (``not in a sweep`` when it has none).

    Parameters
    ----------
    r : dict
        A row of :func:`ledger_rows`.
    mode : str or None
        The sweep's mode (``full``, ``quick``).

    Returns
    -------
    str
        One of :data:`lrlib.ledger.verdicts.TIERS`, ``inconclusive``, ``legacy``, ``not graded`` (a
        reproduction whose every seed is premise not met or inconclusive) or ``not in a sweep``.
    """
    c = r["sweeps"].get(mode) if mode else None
    if not c:
        return "consistency" if r["decl"].kind == "consistency" else "not in a sweep"
    tier = c.get("tier") or ("consistency" if r["decl"].kind == "consistency" else "legacy")
    if tier in ("quantitative", "loose bound") and not c.get("graded"):
        return "not graded"      # premise not met (or inconclusive) in every seed: no evidence either way
    return tier


def chapter_summary(rows: list[dict], aggs: list[dict]) -> str:
    """The headline counts, split three ways, one Markdown line per chapter and one for the book.

    Parameters
    ----------
    rows, aggs : list of dict
        As in :func:`summary_figure`.

    Returns
    -------
    str
        Per chapter: quantitative reproductions (and how many pass in every seed, in some, in
        none of the full-size sweep), loose bounds, consistency checks (declared, or tiered so by
        the ledger), and the claims counted apart (inconclusive control, legacy form).
    """
    full = next((a for a in aggs if not a["provenance"]["quick"]), None)
    mode = full["provenance"]["mode"] if full else None
    lines, total = [], {}

    def line(name, rs):
        tiers = [claim_tier(r, mode) for r in rs]
        quant = [r["sweeps"].get(mode) for r, t in zip(rs, tiers) if t == "quantitative"]
        rates = [(c["passes"], c["graded"]) for c in quant if c and c["graded"]]
        every = sum(k == n for k, n in rates)
        none = sum(k == 0 for k, n in rates)
        apart = ", ".join(f"{tiers.count(t)} {t}" for t in ("not graded", "inconclusive", "legacy", "not in a sweep")
                          if tiers.count(t))
        return (f"- {name}: **{tiers.count('quantitative')} quantitative reproductions** ({every} reproduced in "
                f"every graded seed, {len(rates) - every - none} in some, {none} in none), "
                f"**{tiers.count('loose bound')} loose bounds**, **{tiers.count('consistency')} consistency checks**"
                + (f"; counted apart: {apart}" if apart else "") + ".")
    for key in dict.fromkeys(r["chapter"] for r in rows):
        lines.append(line(f"`{key}`", [r for r in rows if r["chapter"] == key]))
    lines.append(line("the whole book", rows))
    return "\n".join(lines)


def _headline_of(c: dict | None) -> str:
    if not c:
        return "not in the sweep"
    return headline([v for run in c["runs"] for v in run["verdicts"]])


def revision_changes(rows: list[dict], aggs: list[dict], previous: dict | None) -> str:
    """What changed in this revision: before/after counts per chapter and every claim whose verdict changed.

    Parameters
    ----------
    rows, aggs : list of dict
        As in :func:`summary_figure`.
    previous : dict or None
        The full-size aggregate published before this revision (``book/ledger_data/previous/``).

    Returns
    -------
    str
        Markdown: a table per chapter (claims reproduced in every / some / no seed, before and
        after) and a list of the claims whose pass rate changed, with their tier now.
    """
    full = next((a for a in aggs if not a["provenance"]["quick"]), None)
    if not full or not previous:
        return "No earlier published sweep to compare with."
    mode = full["provenance"]["mode"]

    def cls(c):
        return outcome(c)[0]
    out = ["| chapter | before: every / some / no seed / not graded | after: every / some / no seed / not graded "
           "| after: quantitative / loose / consistency / apart |", "| --- | --- | --- | --- |"]
    changed = []
    for key in dict.fromkeys(r["chapter"] for r in rows):
        rs = [r for r in rows if r["chapter"] == key]
        before = [cls(previous["claims"].get(r["id"])) for r in rs]
        after = [cls(r["sweeps"].get(mode)) for r in rs]
        tiers = [claim_tier(r, mode) for r in rs]
        fmt4 = lambda xs: " / ".join(str(xs.count(o)) for o in ("reproduced", "mixed", "not reproduced", "not graded"))  # noqa: E731
        apart = len(tiers) - sum(tiers.count(t) for t in ("quantitative", "loose bound", "consistency"))
        out.append(f"| `{key}` | {fmt4(before)} | {fmt4(after)} | {tiers.count('quantitative')} / "
                   f"{tiers.count('loose bound')} / {tiers.count('consistency')} / {apart} |")
        for r, t in zip(rs, tiers):
            b, a = _headline_of(previous["claims"].get(r["id"])), _headline_of(r["sweeps"].get(mode))
            if b != a:
                changed.append(f"- `{r['id']}`: {b} → {a} (now: {t})")
    return "\n".join(out + ["", f"Claims whose pass rate changed ({len(changed)}):", ""] + (changed or ["- none"]))


def load_previous(folder: str | Path = PUBLISH_DIR / "previous") -> dict | None:
    """The full-size aggregate published before this revision, if kept.

    Parameters
    ----------
    folder : str or Path
        Where it lies (``sweep-full.json``).

    Returns
    -------
    dict or None
    """
    f = Path(folder) / "sweep-full.json"
    return json.loads(f.read_text(encoding="utf-8")) if f.is_file() else None
