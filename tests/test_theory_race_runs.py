"""Tests for lrlib.theory.race.runs: seeds trained one after another equal the batched run."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from lrlib.errors import ParameterError
from lrlib.losses import Loss
from lrlib.models import TwoLayer, forward, generator
from lrlib.theory import race as rc
from lrlib.train import train
from race_helpers import setup_net

CE = Loss("cross_entropy")


def _problem(R=3, N=24, D=6, m=10):
    g = generator(5)
    X = torch.rand(R, N, D, generator=g)
    y = torch.randint(0, 2, (R, N), generator=g)
    return rc.race_init(m, D, 0.3, g, runs=(R,)), X, y


def test_train_each_matches_the_batched_run():
    p0, X, y = _problem()
    kw = dict(loss=CE, lr=0.05, momentum=0.9, batch_size=4, steps=40, record=[0, 7, 20, 40])
    batched = train(p0, X, y, seed=[11, 12, 13], **kw)
    each = rc.train_each(p0, X, y, seed=[11, 12, 13], **kw)
    assert each.params.W1.shape == batched.params.W1.shape and each.loss.shape == batched.loss.shape
    for k, t in batched.params.tensors().items():
        torch.testing.assert_close(getattr(each.params, k), t, rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(each.loss, batched.loss, rtol=1e-5, atol=1e-6)
    assert each.meta["seed"] == [11, 12, 13]
    assert (each.steps == batched.steps).all()


def test_stack_runs_and_train_each_reject_bad_input():
    p0, X, y = _problem()
    kw = dict(loss=CE, lr=0.05, steps=4, record=[0, 4])
    with pytest.raises(ParameterError):
        rc.train_each(p0, X, y, seed=[1, 2], **kw)
    with pytest.raises(ParameterError):
        rc.stack_runs([])
    a = train(p0.map(lambda t: t[0]), X[0], y[0], **kw)
    b = train(p0.map(lambda t: t[1]), X[1], y[1], loss=CE, lr=0.05, steps=4, record=[0, 2, 4])
    with pytest.raises(ParameterError):
        rc.stack_runs([a, b])
    with pytest.raises(ParameterError):
        rc.stack_runs([train(p0, X, y, **kw)])


def test_stack_nets_joins_runs():
    p0, _, _ = _problem()
    nets = [p0.map(lambda t: t[r]) for r in range(3)]
    st = rc.stack_nets(nets)
    for k, t in p0.tensors().items():
        assert torch.equal(getattr(st, k), t), k
    with pytest.raises(ParameterError):
        rc.stack_nets([])


def test_run_net_head_and_block_select_runs():
    p0, _, _ = _problem(R=3)
    q = rc.run_net(p0, 1, torch.float64)
    assert q.W1.dtype == torch.float64 and torch.equal(q.W1.float(), p0.W1[1])
    assert rc.run_net(p0, 2).W1.dtype == p0.W1.dtype
    assert torch.equal(rc.head_runs(p0, 2).W2, p0.W2[:2])
    assert torch.equal(rc.run_block(p0, 1, 3).b1, p0.b1[1:3])


def test_batch_seeds_differ_per_setting_and_run():
    assert rc.batch_seeds(1, 3, 0) == [20_000, 20_001, 20_002]
    assert set(rc.batch_seeds(2, 5, 0)).isdisjoint(rc.batch_seeds(1, 5, 0))


def test_setting_record_holds_the_snapshots_and_the_e11_window():
    rec = rc.setting_record(1, 20_000, [0, 250, 500, 1000, 30_000])
    assert rec[0] == 0 and rec[-1] == 20_000 and np.all(np.diff(rec) > 0)
    assert set(range(250, 501, 50)) <= set(rec.tolist()) and 30_000 not in rec
    assert 3900 in rec and 4100 not in rec and 4250 in rec
    rec3 = rc.setting_record(3, 5000, [0, 250])
    assert 250 in rec3 and 1000 in rec3 and 500 not in rc.setting_record(3, 5000, []).tolist()[10:]


def test_converged_needs_a_low_and_flat_end():
    p0, X, y = _problem(R=2)
    tr = train(p0, X, y, loss=CE, lr=0.05, steps=40, record=[0, 10, 20, 30, 40])
    tr.loss = torch.tensor([[1.0, 1.0], [0.5, 0.5], [0.04, 0.5], [0.03, 0.1], [0.03, 0.03]])
    assert rc.converged(tr, 0.05, 20).tolist() == [True, False]
    assert rc.converged(tr, 0.01, 20).tolist() == [False, False]


def test_final_heads_and_at_steps():
    p0, X, y = _problem(R=3)
    tr = train(p0, X, y, loss=CE, lr=0.05, steps=20, record=[0, 10, 20])
    (p, Xh, yh), = rc.final_heads([(X, y, tr)], 2)
    assert torch.equal(p.W1, tr.final.W1[:2]) and Xh.shape[0] == 2 and yh.shape[0] == 2
    P = rc.at_steps(tr, [0, 20])
    assert P.W1.shape == (2,) + tr.final.W1.shape and torch.equal(P.W1[1], tr.final.W1)


def test_drop_snapshots_are_sorted_and_capped():
    p0, X, y = _problem(R=1)
    tr = train(rc.run_net(p0, 0), X[0], y[0], loss=CE, lr=0.05, steps=40, record=list(range(0, 41, 5)))
    snaps = rc.drop_snapshots(tr, [20, 30], 40)
    assert [s for s, _, _ in snaps] == [0, 10, 20, 30, 40]
    assert torch.equal(snaps[2][1], tr.at(tr.index_of_step(20)).W1)
    assert [s for s, _, _ in rc.drop_snapshots(tr, [], 40, n=2)] == [0, 20]

def test_train_is_pytorch_sgd_momentum_with_epoch_batches():
    """lrlib.train = torch.optim.SGD(lr, momentum) on mini-batches that walk a fresh permutation
    each epoch (without replacement, last partial batch kept), with the same generator stream."""
    p, X, y = setup_net(14, N=10, bias=0.0)
    steps, bs, lr, mom = 7, 4, 0.05, 0.9
    tr = train(p, X, y, loss=CE, lr=lr, momentum=mom, batch_size=bs, steps=steps, record=[steps], seed=3,
               progress=False)
    ps = [t.detach().clone().requires_grad_(True) for t in (p.W1, p.b1, p.W2, p.b2)]
    opt = torch.optim.SGD(ps, lr=lr, momentum=mom)
    gen = generator(3)
    batches, seen = [], []
    while len(batches) < steps:
        perm = torch.randperm(10, generator=gen)
        for i in range(0, 10, bs):
            batches.append(perm[i:i + bs])
    for idx in batches[:steps]:
        seen.append(len(idx))
        opt.zero_grad()
        q = TwoLayer(W1=ps[0], b1=ps[1], W2=ps[2], b2=ps[3])
        CE(forward(q, X[idx]), y[idx]).backward()
        opt.step()
    assert seen[:3] == [4, 4, 2]                      # the partial batch of each epoch is kept
    assert torch.allclose(tr.final.W1, ps[0].detach(), atol=1e-13)
    assert torch.allclose(tr.final.W2, ps[2].detach(), atol=1e-13)


def test_batched_runs_with_per_run_data_equal_separate_runs():
    p, X, y = setup_net(15, runs=(2,), N=12)
    tr = train(p, X, y, loss=CE, lr=0.05, momentum=0.9, batch_size=4, steps=9, record=[9], progress=False)
    for r in range(2):
        one = train(p.map(lambda t: t[r]), X[r], y[r], loss=CE, lr=0.05, momentum=0.9, batch_size=4, steps=9,
                    record=[9], progress=False)
        assert torch.allclose(tr.final.W1[r], one.final.W1, atol=1e-13)
