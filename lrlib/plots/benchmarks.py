"""The performance page's picture: where the book's execution time goes."""

from __future__ import annotations

import matplotlib.pyplot as plt

from . import PALETTE


def book_time_figure(book: dict, target_s: float = 720.0, top: int = 4):
    """Horizontal stacked bars, one per chapter: seconds per section.

    Parameters
    ----------
    book : dict or None
        ``benchmarks/results.json``'s ``book`` entry (``rows``: ``chapter``, ``seconds``,
        ``sections``; ``wall_s``, the book's wall time in seconds); empty or ``None``: an empty
        frame that says the book's execution has not been measured.
    target_s : float
        The target wall time in seconds, drawn as a dotted line.
    top : int
        The largest sections of each chapter that are named; the rest are "other".

    Returns
    -------
    Figure
    """
    if not book:
        fig, ax = plt.subplots(figsize=(8, 1.2))
        ax.axis("off")
        ax.text(0.5, 0.5, "not measured yet: benchmarks/run.py --only book", ha="center", va="center")
        return fig
    rows = book["rows"]
    fig, ax = plt.subplots(figsize=(8, 0.9 + 0.75 * len(rows)), constrained_layout=True)
    for i, r in enumerate(rows):
        parts = sorted(r["sections"].items(), key=lambda kv: -kv[1])
        named, rest = parts[:top], sum(v for _, v in parts[top:])
        left = 0.0
        for j, (name, v) in enumerate(named + [("other", rest)]):
            if v <= 0:
                continue
            ax.barh(i, v, left=left, color=PALETTE[j % len(PALETTE)] if name != "other" else "0.85",
                    edgecolor="white", height=0.7)
            if v >= 0.08 * max(rr["seconds"] for rr in rows):
                ax.text(left + v / 2, i, name[:22], ha="center", va="center", fontsize=7, color="k")
            left += v
    ax.set_yticks(range(len(rows)), [r["chapter"] for r in rows])
    ax.invert_yaxis()
    ax.axvline(book["wall_s"], color="k", ls="--", lw=1)
    ax.text(book["wall_s"], -0.6, f" book wall {book['wall_s']:.0f} s", fontsize=8, va="bottom")
    ax.axvline(target_s, color="0.4", ls=":", lw=1)
    ax.set(xlabel="seconds (one thread per chapter)", title="Execution time of each chapter, by section")
    return fig


__all__ = ["book_time_figure"]
