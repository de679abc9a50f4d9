"""benchmarks/: the parts that turn measurements into results.json sections (no timing here)."""

from benchmarks import others, report


def test_book_section_from_an_execution_timings_file():
    doc = {"wall_s": 500.0, "jobs": 2, "failed": [],
           "chapters": {"02_b.ipynb": {"seconds": 300.0, "sections": {"s": 290.0}},
                        "01_a.ipynb": {"seconds": 120.0, "sections": {"t": 100.0}}}}
    book = others.book_from_timings(doc)
    assert [r["chapter"] for r in book["rows"]] == ["01_a", "02_b"]
    assert book["wall_s"] == book["execution_wall_s"] == 500.0 and book["cpu_s"] == 420.0
    assert others.book_from_timings(doc, wall=512.34)["wall_s"] == 512.3


def test_batched_case_rows_render_without_a_floor():
    row = dict(key="cifar-book", label="five runs", runs=5, n=2000, batch=32, d=1024, m=250, k=2, dtype="float32",
               steps=10, us_per_step=1.0, gflop_per_step=0.1, gflops=50.0, matmul_gflops=70.0, share_of_matmul=0.71)
    sec = dict(matmul_gflops={"float64": 30.0, "float32": 70.0}, repeat=1, cases=[row])
    table = report.steps_table(sec)
    assert "5 × 32 × 1024" in table and "– (one run only)" in table and "judged on cifar" in table
    one = dict(row, key="cifar", runs=1, floor_us_per_step=1.0, ratio_to_floor=1.0)
    assert "≥ 60% of matmul: met" in report.steps_table(dict(sec, cases=[one]))
