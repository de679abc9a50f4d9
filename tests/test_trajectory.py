"""Tests for lrlib.trajectory: the
Trajectory a run returns (snapshot lookup and its errors, one run of a batch, the .npz round trip)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from lrlib.errors import ParameterError
from lrlib.models import TwoLayer
from lrlib.trajectory import Trajectory

F64 = torch.float64


# the small regression problem shared with test_train.py (tests/small_problem.py)
from small_problem import data as _data, fit as _fit, net as _net  # noqa: E402  (shared with the other module)


def _hand_made(steps=(5, 10, 20), runs=()):
    """A Trajectory built by hand: snapshot t has W1 = t (so the lookup is visible in the values)."""
    T = len(steps)
    W1 = torch.arange(T, dtype=F64).view(T, *[1] * len(runs), 1, 1).expand(T, *runs, 2, 3).clone()
    W2 = torch.ones(T, *runs, 1, 2, dtype=F64)
    loss = torch.linspace(1.0, 0.1, T, dtype=F64).view(T, *[1] * len(runs)).expand(T, *runs).clone()
    return Trajectory(steps=np.array(steps), time=0.1 * np.array(steps, dtype=float),
                      params=TwoLayer(W1=W1, W2=W2), loss=loss, meta={"lr": 0.1})


# ---------------------------------------------------------------------------
# a Trajectory built by hand: length, runs, snapshot lookup and its errors
# ---------------------------------------------------------------------------

def test_hand_made_trajectory_lookup():
    tr = _hand_made(steps=(5, 10, 20))
    assert len(tr) == 3 and tr.runs == ()
    assert [tr.index_of_step(s) for s in (5, 9, 10, 19, 20, 10**6)] == [0, 0, 1, 1, 2, 2]
    assert float(tr.at(1).W1[0, 0]) == 1.0 and float(tr.at(-1).W1[0, 0]) == 2.0
    assert torch.equal(tr.final.W1, tr.at(2).W1)
    with pytest.raises(ParameterError, match="no snapshot at or before step 4"):
        tr.index_of_step(4)                                # the first snapshot is step 5
    with pytest.raises(IndexError):
        tr.at(3)


def test_hand_made_batched_trajectory_run_and_round_trip(tmp_path):
    tr = _hand_made(steps=(0, 3), runs=(2,))
    assert tr.runs == (2,)
    one = tr.run(1)
    assert one.runs == () and one.meta == {"lr": 0.1, "run_index": [1]} and tr.meta == {"lr": 0.1}
    assert torch.equal(one.params.W1, tr.params.W1[:, 1])
    back = Trajectory.load(tr.save(tmp_path / "a" / "b" / "hand.npz"))
    assert back.params.act == "relu" and back.params.b1 is None and back.dense_loss is None
    assert np.array_equal(back.steps, tr.steps) and np.array_equal(back.time, tr.time)
    assert torch.equal(back.params.W1, tr.params.W1) and torch.equal(back.loss, tr.loss)
    assert back.meta["lr"] == 0.1


# ---------------------------------------------------------------------------
# the Trajectory train returns: persistence, run(), index_of_step
# ---------------------------------------------------------------------------

def test_save_load_round_trip(tmp_path):
    X, y = _data()
    p = _net(runs=(2, 3), bias=True, act="square")
    traj = _fit(p, 0.3 * X, y, lr=0.01, steps=20, record=[0, 3, 20], dense_loss=True, time_scale=2.0,
                meta={"chapter": "test", "lam": 1e-3})
    path = traj.save(tmp_path / "sub" / "traj.npz")
    assert path.is_file()
    back = Trajectory.load(path)
    assert np.array_equal(back.steps, traj.steps) and back.steps.dtype == traj.steps.dtype
    assert np.array_equal(back.time, traj.time)
    assert back.params.act == "square"
    assert list(back.params.tensors()) == list(traj.params.tensors())
    for k, t in traj.params.tensors().items():
        assert torch.equal(back.params.tensors()[k], t), k
    assert torch.equal(back.loss, traj.loss) and torch.equal(back.dense_loss, traj.dense_loss)
    for k, v in traj.meta.items():
        assert back.meta[k] == v, k
    assert back.meta["chapter"] == "test" and back.meta["batch_size"] is None


def test_save_load_without_dense_loss(tmp_path):
    X, y = _data()
    traj = _fit(_net(), X, y, lr=0.1, steps=3, record=[0, 3])
    back = Trajectory.load(traj.save(tmp_path / "t.npz"))
    assert back.dense_loss is None and back.params.b1 is None
    assert torch.equal(back.params.W1, traj.params.W1)


def test_run_selects_one_run():
    X, y = _data()
    traj = _fit(_net(runs=(2, 3), bias=True), X, y, lr=0.1, steps=5, record=[0, 2, 5], dense_loss=True)
    sub = traj.run(1, 2)
    assert sub.runs == () and sub.meta["run_index"] == [1, 2]
    for k, t in traj.params.tensors().items():
        assert torch.equal(sub.params.tensors()[k], t[:, 1, 2]), k
    assert torch.equal(sub.loss, traj.loss[:, 1, 2])
    assert torch.equal(sub.dense_loss, traj.dense_loss[:, 1, 2])
    assert np.array_equal(sub.steps, traj.steps)
    row = traj.run(0)
    assert row.runs == (3,) and torch.equal(row.params.W1, traj.params.W1[:, 0])


def test_at_final_and_index_of_step():
    X, y = _data()
    traj = _fit(_net(), X, y, lr=0.1, steps=10, record=[0, 1, 2, 5, 10])
    assert torch.equal(traj.at(3).W1, traj.params.W1[3])
    assert torch.equal(traj.final.W2, traj.params.W2[-1])
    assert [traj.index_of_step(s) for s in (0, 1, 4, 5, 6, 10, 99)] == [0, 1, 2, 3, 3, 4, 4]
    with pytest.raises(ParameterError):
        traj.index_of_step(-1)


def test_head_is_the_start_of_the_run():
    import torch

    from lrlib.losses import half_mse
    from lrlib.models import balanced_init, generator
    from lrlib.train import train

    X, y = torch.eye(3, dtype=torch.float64), torch.tensor([1.0, -1.0, 0.5], dtype=torch.float64)
    run = train(balanced_init(5, 3, scale=1e-2, gen=generator(0), runs=(2,)), X, y, loss=half_mse(), lr=0.1,
                steps=50, record=10, dense_loss=True)
    h = run.head(1)
    assert len(h) == 1 and h.steps[0] == 0 and torch.equal(h.loss[0], run.loss[0])
    assert torch.equal(h.final.W1, run.at(0).W1) and h.dense_loss.shape[0] == 1
    import pytest
    with pytest.raises(Exception, match="head needs"):
        run.head(0)
