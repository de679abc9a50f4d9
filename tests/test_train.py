"""Tests for lrlib.train: gradients against the paper's per-neuron formulas, the exact GD
balancedness identity, the optimiser against torch.optim.SGD, determinism, batched runs
(K seeds in one call equal K separate calls), the record schedule, errors.  The Trajectory
it returns and the schedules themselves are tested in test_trajectory.py."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from lrlib.errors import DivergenceError, ParameterError
from lrlib.losses import Loss, half_mse
from lrlib.models import TwoLayer, balanced_init, forward, gaussian_init, generator
from lrlib.train import train
from lrlib.theory.orthogonal.data import orthogonal_toy, orthonormal_testbed
from lrlib.schedules import log_schedule

F64 = torch.float64


from small_problem import data as _data, fit as _fit, net as _net  # noqa: E402  (shared with the other module)


def _D(p: TwoLayer, X: torch.Tensor, y: torch.Tensor) -> np.ndarray:
    """D_j = (1/n) Σ_k 1{⟨w_j, x_k⟩ > 0} (y_k − h(x_k)) x_k, by loops (numpy)."""
    W, a, Xn, yn = p.W1.numpy(), p.a.numpy(), X.numpy(), y.numpy()
    n, m = Xn.shape[0], W.shape[0]
    h = [sum(a[j] * max(W[j] @ Xn[k], 0.0) for j in range(m)) for k in range(n)]
    D = np.zeros_like(W)
    for j in range(m):
        for k in range(n):
            if W[j] @ Xn[k] > 0:
                D[j] += (yn[k] - h[k]) * Xn[k] / n
    return D


# ---------------------------------------------------------------------------
# gradients and the exact balancedness identity
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [0, 1, 2])
def test_per_neuron_gradients_match_autograd(seed):
    X, y = _data(n=7, d=4, seed=seed + 10)
    p = _net(m=6, d=4, seed=seed)
    W1 = p.W1.clone().requires_grad_(True)
    W2 = p.W2.clone().requires_grad_(True)
    L = 0.5 * ((forward(TwoLayer(W1=W1, W2=W2), X)[:, 0] - y) ** 2).mean()  # 1/(2n) Σ (h − y)²
    gW1, gW2 = torch.autograd.grad(L, [W1, W2])
    D = _D(p, X, y)
    a, W = p.a.numpy(), p.W1.numpy()
    assert np.abs(D).sum() > 0
    np.testing.assert_allclose(gW1.numpy(), -a[:, None] * D, rtol=0, atol=1e-12)   # ∂L/∂w_j = −a_j D_j
    np.testing.assert_allclose(gW2.numpy()[0], -(W * D).sum(-1), rtol=0, atol=1e-12)  # ∂L/∂a_j = −⟨w_j, D_j⟩
    # the loss lrlib minimises is the same function
    assert half_mse()(forward(p, X), y).item() == pytest.approx(L.item(), rel=1e-15)


@pytest.mark.parametrize("init", ["gaussian", "balanced"])
def test_gd_step_changes_balancedness_by_exact_formula(init):
    X, y = _data(n=6, d=4, seed=20)
    m, eta = 8, 0.3
    p = _net(m=m, d=4, seed=3) if init == "gaussian" else balanced_init(m, 4, scale=0.7, gen=generator(3))
    traj = _fit(p, X, y, lr=eta, steps=1, record=[0, 1])
    p0, p1 = traj.at(0), traj.at(1)
    D = _D(p0, X, y)
    a, W = p0.a.numpy(), p0.W1.numpy()
    predicted = eta ** 2 * ((W * D).sum(-1) ** 2 - a ** 2 * (D ** 2).sum(-1))
    delta = (p1.a.numpy() ** 2 - (p1.W1.numpy() ** 2).sum(-1)) - (a ** 2 - (W ** 2).sum(-1))
    live = np.abs(D).sum(-1) > 0
    assert live.sum() >= m // 2
    np.testing.assert_allclose(delta[live], predicted[live], rtol=1e-12, atol=0)
    assert np.all(delta[~live] == 0) and np.all(predicted[~live] == 0)
    assert np.all(np.abs(predicted[live]) > 1e-6)  # the identity is not trivially 0 = 0


def test_closed_form_grad_fn_gives_same_trajectory():
    X, y = _data()
    p = _net()

    def grad_fn(q, Xb, yb):
        D = torch.from_numpy(_D(q, Xb, yb))
        return {"W1": -q.a.unsqueeze(-1) * D, "W2": -(q.W1 * D).sum(-1).unsqueeze(0)}

    auto = _fit(p, X, y, lr=0.1, steps=20, record=range(21))
    closed = _fit(p, X, y, lr=0.1, steps=20, record=range(21), grad_fn=grad_fn)
    torch.testing.assert_close(closed.params.W1, auto.params.W1, rtol=0, atol=1e-12)
    torch.testing.assert_close(closed.params.W2, auto.params.W2, rtol=0, atol=1e-12)
    torch.testing.assert_close(closed.loss, auto.loss, rtol=1e-12, atol=0)


# ---------------------------------------------------------------------------
# the optimiser
# ---------------------------------------------------------------------------

def test_one_step_is_theta_minus_lr_grad():
    X, y = _data()
    p = _net(bias=True)
    lr = 0.05
    traj = _fit(p, X, y, lr=lr, steps=1, record=[0, 1])
    leaves = {k: t.clone().requires_grad_(True) for k, t in p.tensors().items()}
    L = half_mse()(forward(TwoLayer(**leaves), X), y)
    grads = dict(zip(leaves, torch.autograd.grad(L, list(leaves.values()))))
    for k, t in p.tensors().items():
        expected = t - lr * grads[k]
        assert not torch.equal(expected, t)
        torch.testing.assert_close(traj.params.tensors()[k][1], expected, rtol=0, atol=1e-15)
        assert torch.equal(traj.params.tensors()[k][0], t)
    assert traj.loss[0].item() == pytest.approx(L.item(), rel=1e-15)


def _torch_sgd(p0, X, y, *, lr, momentum, steps, batch_size, seed):
    """torch.optim.SGD with lrlib's documented mini-batch order."""
    params = {k: t.clone().requires_grad_(True) for k, t in p0.tensors().items()}
    opt = torch.optim.SGD(list(params.values()), lr=lr, momentum=momentum)
    n = X.shape[0]
    gen = torch.Generator().manual_seed(seed)
    perm, cursor = None, n
    snaps = [{k: t.detach().clone() for k, t in params.items()}]
    for _ in range(steps):
        Xb, yb = X, y
        if batch_size is not None:
            if cursor >= n:
                perm, cursor = torch.randperm(n, generator=gen), 0
            idx = perm[cursor:cursor + batch_size]
            cursor += batch_size
            Xb, yb = X[idx], y[idx]
        opt.zero_grad()
        half_mse()(forward(TwoLayer(act=p0.act, **params), Xb), yb).backward()
        opt.step()
        snaps.append({k: t.detach().clone() for k, t in params.items()})
    return snaps


@pytest.mark.parametrize("momentum", [0.0, 0.9])
@pytest.mark.parametrize("batch_size", [None, 2, 5])
def test_matches_torch_optim_sgd(momentum, batch_size):
    X, y = _data(n=5)
    p = _net(bias=True)
    steps, lr, seed = 5, 0.05, 7
    traj = _fit(p, X, y, lr=lr, steps=steps, momentum=momentum, batch_size=batch_size, seed=seed,
                record=range(steps + 1))
    ref = _torch_sgd(p, X, y, lr=lr, momentum=momentum, steps=steps, batch_size=batch_size, seed=seed)
    for s in range(steps + 1):
        for k in p.tensors():
            torch.testing.assert_close(traj.params.tensors()[k][s], ref[s][k], rtol=0, atol=1e-12,
                                       msg=lambda m: f"step {s}, {k}: {m}")


def test_sgd_batch_order_matters():
    """The mini-batch replica above is not vacuous: another seed gives another path."""
    X, y = _data(n=5)
    p = _net()
    a = _fit(p, X, y, lr=0.05, steps=5, batch_size=2, seed=7, record=[5])
    b = _fit(p, X, y, lr=0.05, steps=5, batch_size=2, seed=8, record=[5])
    assert not torch.equal(a.params.W1, b.params.W1)


def test_momentum_differs_from_plain_gd():
    X, y = _data()
    p = _net()
    a = _fit(p, X, y, lr=0.05, steps=3, record=[3])
    b = _fit(p, X, y, lr=0.05, steps=3, momentum=0.9, record=[3])
    assert not torch.allclose(a.params.W1, b.params.W1)


# ---------------------------------------------------------------------------
# determinism, batched runs, trainable subsets
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("batch_size,momentum", [(None, 0.0), (None, 0.9), (2, 0.0), (3, 0.5)])
def test_same_seed_bitwise_identical(batch_size, momentum):
    X, y = _data(n=6)
    p = _net(bias=True, runs=(2,))
    kw = dict(lr=0.05, steps=30, momentum=momentum, batch_size=batch_size, seed=3, record=10)
    a, b = _fit(p, X, y, **kw), _fit(p, X, y, **kw)
    assert np.array_equal(a.steps, b.steps) and np.array_equal(a.time, b.time)
    for k in p.tensors():
        assert torch.equal(a.params.tensors()[k], b.params.tensors()[k]), k
    assert torch.equal(a.loss, b.loss)


def test_p0_not_modified():
    X, y = _data()
    p = _net()
    W1 = p.W1.clone()
    _fit(p, X, y, lr=0.1, steps=5, record=[5])
    assert torch.equal(p.W1, W1) and not p.W1.requires_grad


# n = 5: batch 3 leaves a last batch of 2; batch 2 (last batch of 1) with per-run targets is the xfail below
@pytest.mark.parametrize("batch_size,per_run_data", [(None, False), (None, True), (2, False), (3, False), (3, True)])
def test_batched_runs_equal_separate_runs(batch_size, per_run_data):
    R = 3
    X, y = _data(n=5)
    p = _net(m=6, runs=(R,), bias=True)
    if per_run_data:
        X = X + 0.1 * torch.arange(R, dtype=F64).view(R, 1, 1)
        y = y + 0.2 * torch.arange(R, dtype=F64).view(R, 1)
    kw = dict(lr=0.1, steps=40, batch_size=batch_size, seed=4, record=[0, 7, 40], momentum=0.5)
    batched = _fit(p, X, y, **kw)
    assert batched.runs == (R,)
    for r in range(R):
        single = _fit(p.map(lambda t: t[r]), X[r] if per_run_data else X, y[r] if per_run_data else y, **kw)
        sub = batched.run(r)
        for k in p.tensors():
            torch.testing.assert_close(sub.params.tensors()[k], single.params.tensors()[k], rtol=0, atol=1e-12)
        torch.testing.assert_close(sub.loss, single.loss, rtol=1e-12, atol=0)


def test_batched_sgd_per_run_targets_with_one_point_batch():
    R = 3
    X, y = _data(n=5)
    p = _net(m=6, runs=(R,))
    y = y + 0.2 * torch.arange(R, dtype=F64).view(R, 1)
    kw = dict(lr=0.1, steps=3, batch_size=2, seed=4, record=[3])  # batches of 2, 2, 1
    batched = _fit(p, X, y, **kw)
    for r in range(R):
        single = _fit(p.map(lambda t: t[r]), X, y[r], **kw)
        torch.testing.assert_close(batched.run(r).params.W1, single.params.W1, rtol=0, atol=1e-12)


@pytest.mark.parametrize("trainable", [("W2",), ("W1",), ("W1", "b1"), ("W2", "b2")])
def test_trainable_subset_keeps_frozen_tensors(trainable):
    X, y = _data()
    p = _net(bias=True)
    traj = _fit(p, X, y, lr=0.1, steps=15, record=[0, 5, 15], trainable=trainable)
    for k, t in p.tensors().items():
        snaps = traj.params.tensors()[k]
        if k in trainable:
            assert not torch.equal(snaps[-1], t), k
        else:
            for s in range(len(traj)):
                assert torch.equal(snaps[s], t), k
    assert traj.meta["trainable"] == list(trainable)


def test_trainable_absent_bias_is_skipped():
    X, y = _data()
    p = _net(bias=False)
    traj = _fit(p, X, y, lr=0.1, steps=2, record=[2], trainable=("W1", "b1", "b2"))
    assert traj.meta["trainable"] == ["W1"]
    assert torch.equal(traj.params.W2[0], p.W2)


# ---------------------------------------------------------------------------
# the record schedule, time, dense loss
# ---------------------------------------------------------------------------

def test_record_steps_time_and_dense_loss():
    X, y = _data()
    p = _net(runs=(2,))
    record = [0, 1, 2, 7, 30, 31, 50]
    lr, ts = 0.05, 2.0
    traj = _fit(p, X, y, lr=lr, steps=50, record=record, time_scale=ts, dense_loss=True)
    assert traj.steps.tolist() == record and len(traj) == len(record)
    np.testing.assert_allclose(traj.time, np.array(record) * lr * ts, rtol=1e-15)
    assert traj.dense_loss.shape == (51, 2)
    assert torch.equal(traj.dense_loss[record], traj.loss)
    # the recorded loss is the full-data loss of the recorded parameters
    for i, s in enumerate(record):
        torch.testing.assert_close(traj.loss[i], half_mse()(forward(traj.at(i), X), y), rtol=1e-14, atol=0)
    assert traj.loss.shape == (len(record), 2)
    assert traj.meta["time_scale"] == ts and traj.meta["lr"] == lr and traj.meta["steps"] == 50
    assert traj.meta["loss"] == half_mse().describe()


def test_record_as_count_uses_log_schedule_and_unsorted_list_is_sorted():
    X, y = _data()
    p = _net()
    assert np.array_equal(_fit(p, X, y, lr=0.01, steps=300, record=25).steps, log_schedule(300, 25))
    assert _fit(p, X, y, lr=0.01, steps=10, record=[10, 3, 3, 0]).steps.tolist() == [0, 3, 10]


def test_sgd_recorded_loss_is_full_data_loss():
    X, y = _data(n=6)
    p = _net()
    traj = _fit(p, X, y, lr=0.05, steps=12, batch_size=4, record=[0, 5, 12])
    for i in range(3):
        torch.testing.assert_close(traj.loss[i], half_mse()(forward(traj.at(i), X), y), rtol=1e-14, atol=0)


def test_steps_zero_records_init():
    X, y = _data()
    p = _net()
    traj = _fit(p, X, y, lr=0.1, steps=0, record=[0])
    assert torch.equal(traj.final.W1, p.W1)


# ---------------------------------------------------------------------------
# errors
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("batch_size", [None, 2])
def test_huge_lr_diverges_with_advice(batch_size):
    X, y = _data()
    p = _net(act="linear")
    with pytest.raises(DivergenceError, match="(?i)lower the learning rate"):
        _fit(p, X, y, lr=1e3, steps=300, batch_size=batch_size, record=[0, 300])


def test_max_loss_threshold():
    X, y = _data()
    with pytest.raises(DivergenceError, match="step 0"):
        _fit(_net(), X, y, lr=0.01, steps=5, record=[5], max_loss=1e-6)


def test_nan_in_X_raises():
    X, y = _data()
    X[2, 1] = float("nan")
    with pytest.raises(ParameterError, match="NaN"):
        _fit(_net(), X, y, lr=0.1, steps=2)
    X[2, 1] = float("inf")
    with pytest.raises(ParameterError):
        _fit(_net(), X, y, lr=0.1, steps=2)


BAD = {
    "lr=0": dict(lr=0.0),
    "lr=-1": dict(lr=-1.0),
    "lr=nan": dict(lr=float("nan")),
    "lr=inf": dict(lr=float("inf")),
    "lr=str": dict(lr="0.1"),
    "steps=-1": dict(steps=-1),
    "steps=float": dict(steps=2.5),
    "momentum=1": dict(momentum=1.0),
    "momentum=-0.1": dict(momentum=-0.1),
    "batch_size=0": dict(batch_size=0),
    "batch_size>n": dict(batch_size=6),
    "batch_size=float": dict(batch_size=2.0),
    "record>steps": dict(record=[0, 11]),
    "record<0": dict(record=[-1, 5]),
    "record=[]": dict(record=[]),
    "dense_loss+batch": dict(dense_loss=True, batch_size=2),
    "trainable=act": dict(trainable=("W1", "act")),
    "lr=True": dict(lr=True),
    "steps=True": dict(steps=True),
    "batch_size=True": dict(batch_size=True),
}


@pytest.mark.parametrize("bad", list(BAD), ids=list(BAD))
def test_bad_arguments_raise_parameter_error(bad):
    X, y = _data(n=5)
    kw = dict(lr=0.1, steps=10, record=[0, 10])
    kw.update(BAD[bad])
    with pytest.raises(ParameterError):
        _fit(_net(), X, y, **kw)


def test_unknown_trainable_name_raises_parameter_error():
    X, y = _data()
    with pytest.raises(ParameterError, match="unknown trainable"):
        _fit(_net(), X, y, lr=0.1, steps=2, trainable=("W1", "W3"))


def test_dtype_and_shape_mismatch():
    X, y = _data()
    with pytest.raises(ParameterError, match="dtype mismatch"):
        _fit(_net().to(torch.float32), X, y, lr=0.1, steps=2)
    with pytest.raises(ParameterError, match="features"):
        _fit(_net(d=4), X, y, lr=0.1, steps=2)
    with pytest.raises(ParameterError, match="points"):
        _fit(_net(), X, y[:4], lr=0.1, steps=2)


def test_float32_runs():
    X, y = _data()
    traj = _fit(_net().to(torch.float32), X.float(), y.float(), lr=0.1, steps=3, record=[3])
    assert traj.params.W1.dtype == torch.float32 and traj.meta["dtype"] == "float32"


def test_vector_output_and_cross_entropy_train():
    X, _ = _data(n=6)
    labels = torch.tensor([0, 1, 2, 0, 1, 2])
    p = gaussian_init(8, 3, 3, std_in=1.0, std_out=1.0, gen=generator(0))
    traj = _fit(p, X, labels, loss=Loss("cross_entropy"), lr=0.5, steps=50, record=[0, 50])
    assert traj.loss[-1] < traj.loss[0]
    assert traj.meta["loss_name"] == "cross_entropy"


# ---------------------------------------------------------------------------
# K seeds in one batched call (benchmarks/run.py times the same comparison)
# ---------------------------------------------------------------------------
# K independent seeds trained in one batched lrlib.train call give the same trajectories
# as K separate calls (up to rounding): full-batch GD, momentum, and mini-batch SGD.
#
# With one ``seed`` every run of a batch sees the same mini-batch order, so the SGD
# comparison uses that ``seed`` for the K separate runs (each still has its own
# initialisation); with one seed per run (test below) each run has its own order.

K = 8


def _seeds_batched(make, K):
    """The K separate inits ``make(0..K-1)`` and the same inits stacked along a leading run axis."""
    singles = [make(s) for s in range(K)]
    stacked = TwoLayer(act=singles[0].act, **{k: torch.stack([p.tensors()[k] for p in singles])
                                               for k in singles[0].tensors()})
    return stacked, singles


@pytest.mark.parametrize("case", ["toy-gd", "testbed-gd-momentum", "sgd-bias-momentum", "sgd-cross-entropy"])
def test_k_seeds_batched_equal_k_separate_runs(case):
    if case == "toy-gd":
        X, y = orthogonal_toy()
        make = lambda s: balanced_init(60, 2, scale=1e-6 / math.sqrt(60), gen=generator(s))
        kw = dict(loss=Loss("square", "mean"), lr=1e-3, steps=800, record=30, time_scale=2.0, dense_loss=True)
    elif case == "testbed-gd-momentum":
        X, y = orthonormal_testbed()
        make = lambda s: balanced_init(50, 10, scale=1e-4, gen=generator(s))
        kw = dict(loss=half_mse(), lr=1e-2, momentum=0.5, steps=400, record=20)
    elif case == "sgd-bias-momentum":
        g = generator(99)
        X, y = torch.randn(23, 4, generator=g, dtype=torch.float64), torch.randn(23, generator=g, dtype=torch.float64)
        make = lambda s: gaussian_init(16, 4, std_in=0.3, std_out=0.3, bias_in=True, bias_out=True, gen=generator(s))
        kw = dict(loss=half_mse(), lr=0.05, momentum=0.9, steps=200, batch_size=5, seed=7, record=15)
    else:
        g = generator(98)
        X, y = torch.randn(40, 6, generator=g, dtype=torch.float64), torch.randint(0, 2, (40,), generator=g)
        make = lambda s: gaussian_init(12, 6, 2, std_in=0.1, std_out=0.1, bias_in=True, gen=generator(s))
        kw = dict(loss=Loss("cross_entropy"), lr=0.1, momentum=0.9, steps=150, batch_size=8, seed=3, record=10)
    p_all, singles = _seeds_batched(make, K)
    batched = train(p_all, X, y, progress=False, **kw)
    assert batched.runs == (K,)
    finals = []
    for r, p in enumerate(singles):
        one = train(p, X, y, progress=False, **kw)
        sub = batched.run(r)
        for k, t in one.params.tensors().items():
            torch.testing.assert_close(sub.params.tensors()[k], t, rtol=1e-10, atol=1e-13, msg=lambda m: f"run {r}, {k}: {m}")
        torch.testing.assert_close(sub.loss, one.loss, rtol=1e-10, atol=1e-15)
        if one.dense_loss is not None:
            torch.testing.assert_close(sub.dense_loss, one.dense_loss, rtol=1e-10, atol=1e-15)
        finals.append(one.params.W1[-1])
    # the seeds are really different runs (a broadcast of one run would also "agree")
    assert not torch.allclose(finals[0], finals[1])
    assert not torch.allclose(batched.params.W1[-1], batched.params.W1[0])


@pytest.mark.parametrize("targets", ["labels", "vectors"])
def test_per_run_batch_seeds_equal_separate_runs(targets):
    """``seed`` = one int per run: run ``r`` of the batched call is the single run with ``seed[r]``
    (its own mini-batch order), and the orders really differ between runs."""
    g = generator(97)
    X = torch.randn(11, 5, generator=g, dtype=torch.float64)
    if targets == "labels":
        y = torch.randint(0, 3, (11,), generator=g)
        make = lambda s: gaussian_init(7, 5, 3, std_in=0.2, std_out=0.2, bias_in=True, gen=generator(s))
        loss = Loss("cross_entropy")
    else:
        y = torch.randn(11, 2, generator=g, dtype=torch.float64)
        make = lambda s: gaussian_init(7, 5, 2, std_in=0.2, std_out=0.2, gen=generator(s))
        loss = half_mse()
    kw = dict(loss=loss, lr=0.1, momentum=0.9, steps=25, batch_size=4, record=[0, 9, 25], progress=False)
    p_all, singles = _seeds_batched(make, 3)
    seeds = [5, 6, 7]
    batched = train(p_all, X, y, seed=seeds, **kw)
    assert batched.meta["seed"] == seeds
    for r, p in enumerate(singles):
        one = train(p, X, y, seed=seeds[r], **kw)
        torch.testing.assert_close(batched.run(r).params.W1, one.params.W1, rtol=1e-10, atol=1e-13)
        torch.testing.assert_close(batched.run(r).loss, one.loss, rtol=1e-10, atol=1e-15)
    shared = train(p_all, X, y, seed=5, **kw)
    assert torch.equal(shared.run(0).params.W1, batched.run(0).params.W1)
    assert not torch.allclose(shared.run(1).params.W1[-1], batched.run(1).params.W1[-1])


def test_per_run_batch_seeds_must_match_runs():
    p_all, _ = _seeds_batched(lambda s: gaussian_init(4, 3, std_in=0.1, std_out=0.1, gen=generator(s)), 3)
    X, y = torch.randn(6, 3, dtype=torch.float64), torch.randn(6, dtype=torch.float64)
    with pytest.raises(ParameterError, match="one per run"):
        train(p_all, X, y, loss=half_mse(), lr=0.1, steps=2, batch_size=2, seed=[1, 2], progress=False)
