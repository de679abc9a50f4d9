"""Tests for lrlib.theory.alignment.mnist (the exact reductions of the MNIST runs)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from lrlib.data import mnist_pair
from lrlib.errors import ParameterError
from lrlib.ledger import load_declarations
from lrlib.ledger.grading import grade_seeds, verdicts_by_variant
from lrlib.losses import Loss
from lrlib.models import gaussian_init, generator
from lrlib.paths import chapter_paths
from lrlib.schedules import linear_schedule
from lrlib.theory import alignment as al
from lrlib.train import train

EXP_MEAN = Loss("exponential", "mean")


def _zero_column_data(n=40, d=12, dead=(0, 3, 7), seed=0):
    g = generator(seed)
    X = torch.randn(n, d, generator=g, dtype=torch.float64)
    X[:, list(dead)] = 0.0
    y = torch.where(X[:, 1] + 0.3 * X[:, 2] > 0, 1.0, -1.0).to(torch.float64)
    return X, y


def test_active_columns():
    X, _ = _zero_column_data()
    keep = al.active_columns(X)
    assert keep.shape == (12,) and keep.sum() == 9 and not keep[[0, 3, 7]].any()
    assert al.active_columns(X.expand(2, *X.shape)).equal(keep)
    with pytest.raises(ParameterError):
        al.active_columns(torch.zeros(5))


def test_train_active_equals_full_reference():
    """The speed-up agrees with the reference path (training on every column) to 1e-10."""
    X, y = _zero_column_data()
    p0 = gaussian_init(8, 12, std_in=1e-3, std_out=1e-3, gen=generator(1), runs=(2,), dtype=torch.float64)
    kw = dict(loss=EXP_MEAN, lr=0.05, steps=400, record=linear_schedule(400, 50))
    ref = train(p0, X, y, **kw)
    red = al.train_active(p0, X, y, **kw)
    assert red.meta["active_columns"] == 9
    assert np.array_equal(ref.steps, red.steps)
    assert torch.allclose(red.params.W1, ref.params.W1, rtol=1e-10, atol=1e-16)
    assert torch.allclose(red.params.W2, ref.params.W2, rtol=1e-10, atol=1e-16)
    assert torch.allclose(red.loss, ref.loss, rtol=1e-10)
    assert red.params.W1[..., [0, 3, 7]].eq(p0.W1[..., [0, 3, 7]]).all()     # never moved


def test_train_active_sgd_equals_reference():
    X, y = _zero_column_data()
    p0 = gaussian_init(8, 12, std_in=1e-3, std_out=1e-3, gen=generator(2), dtype=torch.float64)
    kw = dict(loss=EXP_MEAN, lr=0.05, steps=60, batch_size=16, record=[0, 30, 60], seed=3)
    ref, red = train(p0, X, y, **kw), al.train_active(p0, X, y, **kw)
    assert torch.allclose(red.params.W1, ref.params.W1, rtol=1e-10, atol=1e-16)


def test_train_until_stable_equals_one_long_run():
    X, y = _zero_column_data()
    p0 = gaussian_init(8, 12, std_in=1e-3, std_out=1e-3, gen=generator(4), dtype=torch.float64)
    kw = dict(loss=EXP_MEAN, lr=0.05)
    tr, change = al.train_until_stable(p0, X, y, steps=200, block=100, cap=400, tol=0.0,
                                       record=linear_schedule(200, 50), **kw)      # tol 0: never converged
    assert tr.steps[-1] == 400 and change >= 0
    assert np.all(np.diff(tr.steps) > 0) and np.allclose(tr.time, tr.steps * 0.05)
    ref = train(p0, X, y, steps=400, record=[0, 400], **kw)
    assert torch.allclose(tr.final.W1, ref.final.W1, rtol=1e-10, atol=1e-16)
    assert torch.allclose(tr.loss[-1], ref.loss[-1], rtol=1e-10)
    tr2, ch2 = al.train_until_stable(p0, X, y, steps=200, block=100, cap=400, tol=1.0,
                                     record=linear_schedule(200, 50), **kw)       # tol 1: converged at once
    assert tr2.steps[-1] == 200 and ch2 < 1.0
    assert np.isclose(ch2, float(al.stable_rank_change(tr2, 100)))
    with pytest.raises(ParameterError):
        al.stable_rank_change(tr2, 75)
    with pytest.raises(ParameterError):
        al.train_until_stable(p0, X, y, steps=50, block=100, cap=400, tol=0.1, record=10, **kw)


def test_run_pair_is_train_until_stable_on_the_pair():
    X, y, tr, change = al.mnist.run_pair(1, 0, 10, 1e-3, 5, loss=EXP_MEAN, steps=20, block=10, cap=40,
                                         record=linear_schedule(20, 5))
    X0, y0 = mnist_pair(1, 0, 10, dtype=torch.float32)
    assert torch.equal(X, X0) and torch.equal(y, y0)
    p = gaussian_init(50, 784, std_in=1e-3, std_out=1e-3, gen=generator(5), dtype=torch.float32)
    ref, ref_change = al.train_until_stable(p, X0, y0, loss=EXP_MEAN, lr=2e-3, steps=20, block=10, cap=40,
                                            tol=0.01, record=linear_schedule(20, 5))
    assert torch.equal(tr.params.W1, ref.params.W1) and change == ref_change


def test_sgd_schemes_share_the_first_layer_and_freeze_v():
    X, y = _zero_column_data(n=16, d=784)
    rec = linear_schedule(6, 3)
    runs = al.mnist.sgd_schemes(X.float(), y.float(), 2, loss=EXP_MEAN, steps=6, batch_size=8, record=rec)
    both, first = runs["both layers"], runs["first layer only, v = ±1"]
    assert torch.equal(both.params.W1[0], first.params.W1[0])
    assert torch.equal(first.params.W2[0], first.params.W2[-1]) and set(first.params.W2[0].abs().flatten().tolist()) == {1.0}
    assert not torch.equal(both.params.W2[0], both.params.W2[-1])
    p = gaussian_init(50, 784, std_in=1e-6, std_out=1e-6, gen=generator(2 + 3), dtype=torch.float32)
    ref = al.train_active(p, X.float(), y.float(), loss=EXP_MEAN, lr=2e-3, steps=6, batch_size=8, record=rec, seed=2)
    assert torch.equal(ref.params.W1, both.params.W1)


def test_summary_note_formats_each_pair():
    s = [dict(k_align=120.4, k_drop=900.6, final_stable_rank=1.23456, last_iteration=15000),
         dict(k_align=float("inf"), k_drop=10.0, final_stable_rank=2.0, last_iteration=20)]
    assert al.mnist.summary_note(["1 vs 0", "3 vs 8"], s, "timing") == (
        "1 vs 0: aligned at 120, drop at 901; 3 vs 8: aligned at inf, drop at 10")
    assert al.mnist.summary_note(["1 vs 0", "3 vs 8"], s, "rank") == (
        "1 vs 0: stable rank 1.235 at iteration 15000; 3 vs 8: stable rank 2.000 at iteration 20")


def test_image_count_verdicts_grade_each_mnist_claim_on_both_counts():
    decls = {d.id: d for d in load_declarations(chapter_paths("alignment")[1])}
    small = dict(k_align=100.0, k_drop=3000.0, align_drop=0.5, final_stable_rank=1.05, sr_conv=0.001)
    big = dict(small, final_stable_rank=40.0)
    got = verdicts_by_variant(decls, al.RULE_CLAIMS, {"small": al.rule_inputs(small), "big": al.rule_inputs(big)},
                              run=0, premises=True)
    assert set(got["small"]) == set(al.RULE_CLAIMS)
    for label, summary in (("small", small), ("big", big)):
        for c, v in got[label].items():
            assert v == grade_seeds(decls[c], al.rule_inputs(summary))[0]
    assert (got["small"]["mnist.low-rank"], got["big"]["mnist.low-rank"]) == ("reproduced", "not reproduced")
    unconverged = verdicts_by_variant(decls, ["mnist.low-rank"], {"x": al.rule_inputs(dict(small, sr_conv=0.5))},
                                      run=0, premises=True)
    assert unconverged["x"]["mnist.low-rank"] == "premise not met"
