"""Tests for lrlib.progress: the plan line, sections of a notebook, the progress lines of a chapter."""

import nbformat

from lrlib import progress as pg


def _nb():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("seed = 0", metadata={"tags": ["parameters"]}),
                nbformat.v4.new_code_cell("x = 1"),
                nbformat.v4.new_markdown_cell("## First part\ntext"),
                nbformat.v4.new_code_cell("a = 1"), nbformat.v4.new_code_cell("b = 2"),
                nbformat.v4.new_markdown_cell("## Second part"), nbformat.v4.new_code_cell("c = 3")]
    return nb


def test_planned_wall_is_longest_first_on_free_processes():
    assert pg.planned_wall([400, 300, 250, 150, 80], 2) == 630 and pg.planned_wall([], 2) == 0
    assert pg.fmt_seconds(75) == "1 min 15 s" and pg.fmt_seconds(42) == "42 s"


def test_sections_and_their_last_cells():
    of, last = pg.sections_of(_nb())
    assert of == {0: "setup", 1: "setup", 3: "First part", 4: "First part", 6: "Second part"}
    assert last == {1: "setup", 4: "First part", 6: "Second part"}


def test_progress_lines_with_and_without_an_injected_cell():
    lines = []
    rec = {"01_x": {"seconds": 100.0, "sections": {"First part": 60.0}}}
    p = pg.ChapterProgress("x", "01_x", _nb(), rec, t_all=0.0, out=lines.append)
    p.start()
    for i in (0, 1, 3, 4, 6):
        p.hook(cell=None, cell_index=i)
    p.end(True)
    assert "started (recorded 1 min 40 s" in lines[0] and len(lines) == 5
    assert "section 'First part' done" in lines[2] and "(recorded 1 min 00 s)" in lines[2] and "left" in lines[2]
    assert "done in" in lines[-1] and "\r" not in "".join(lines)
    lines.clear()
    q = pg.ChapterProgress("x", "01_x", _nb(), {}, t_all=0.0, out=lines.append, injected=True)
    for i in (0, 1, 2, 4, 5, 7):            # papermill's injected cell sits at index 1
        q.hook(cell=None, cell_index=i)
    assert [ln.split(": ", 1)[1].split("'")[1] for ln in lines] == ["setup", "First part", "Second part"]


def test_plan_line_uses_the_recorded_timings():
    rec = {"01_x": {"seconds": 100.0}, "02_y": {"seconds": 50.0}}
    line = pg.plan_line("execute_chapters", ["01_x", "02_y", "03_z"], 2, rec, 0.0)
    assert "about 1 min 40 s" in line and "1 run(s) never timed" in line
    assert "no recorded timings" in pg.plan_line("sweep", ["03_z"], 1, rec, 0.0)


def test_recorded_timings_of_both_sizes(tmp_path):
    import json
    f = tmp_path / "r.json"
    f.write_text(json.dumps({"book": {"rows": [{"chapter": "01_x", "seconds": 10, "sections": {"a": 4}}]},
                             "chapters_quick": {"rows": [{"chapter": "01_x", "wall_s": 3.5, "ok": True}]}}))
    assert pg.recorded_timings(f) == {"01_x": {"seconds": 10.0, "sections": {"a": 4}}}
    assert pg.recorded_timings(f, quick=True)["01_x"]["seconds"] == 3.5
    assert pg.recorded_timings(tmp_path / "none.json") == {}
