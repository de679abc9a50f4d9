"""Tests of lrlib.theory.race.frozen: the frozen-gating model (the toy's numpy gradient: test_theory_race_toy_step.py;
the Fig. 4 scores: test_theory_race_measure.py)."""

import math

import numpy as np
import pytest
import torch

from lrlib import grads
from lrlib.errors import ParameterError
from lrlib.losses import Loss
from lrlib.models import TwoLayer, forward, generator
from lrlib.measure import cosine
from lrlib.theory import race as rc
from lrlib.train import train
from lrlib.schedules import linear_schedule
from race_helpers import toy_problem

CE = Loss("cross_entropy")
F64 = torch.float64


def test_augmented_is_the_same_network():
    p, X, y = toy_problem()
    q, Xa = rc.augmented(p, X)
    assert q.W1.shape[-1] == 3 and Xa.shape[-1] == 3
    assert torch.allclose(forward(q, Xa), forward(p, X))
    assert torch.equal(rc.gating(q, Xa), rc.gating(p, X))


def test_frozen_cos_solves_the_linear_system():
    """Euler-integrate dq/dτ = k v, dv/dτ = k q for one neuron and compare with the closed form."""
    p, X, y = toy_problem(R=1, m=4, std=0.01)
    p.b1 = torch.zeros_like(p.b1)
    tau = np.array([0.0, 0.5, 1.0])
    cos_pred, growing = rc.frozen_cos(p, X, y, tau)
    assert cos_pred.shape == (3, 1, 4) and growing.shape == (1, 4)
    m1 = rc.target_m1(p, X, y)[0, 0]
    k = float(m1.norm()) / X.shape[-2] / math.sqrt(2)
    mh = m1 / m1.norm()
    w = p.W1[0, 0].clone()
    v = float((p.W2[0, 0, 0] - p.W2[0, 1, 0]) / math.sqrt(2))
    dt, t = 1e-5, 0.0
    while t < 1.0 - 1e-12:
        q = float(w @ mh)
        w, v, t = w + dt * k * v * mh, v + dt * k * q, t + dt
    assert abs(float(torch.nn.functional.cosine_similarity(w, m1, dim=0)) - float(cos_pred[2, 0, 0])) < 1e-4
    assert torch.allclose(cos_pred[0, 0], cosine(p.W1[0], rc.target_m1(p, X, y)[0]))


def test_frozen_flow_check_follows_plain_gd_and_control_fails():
    g = generator(3)
    R, D, N = 2, 64, 200
    X = torch.rand(R, N, D, generator=g, dtype=F64)
    y = torch.randint(0, 2, (R, N), generator=g)
    X = X + 0.3 * (y[..., None] == 0) * torch.linspace(0, 1, D, dtype=F64)
    p = rc.race_init(30, D, 1e-4, generator(1), runs=(R,), dtype=F64)
    tr = train(p, X, y, loss=CE, lr=1e-2, steps=400, record=linear_schedule(400, 20))
    meas, ctl = rc.frozen_flow_check(tr, X, y, 1e-2, 400)
    assert set(meas) == {"err", "rise", "fixed", "zmax", "err_w", "n_long"} and set(ctl) == {"err", "rise", "err_w"}
    assert (meas["err"] < 0.05).all() and (ctl["err"] > 0.2).all()
    assert (meas["err_w"] >= meas["err"] - 1e-12).all()
    assert (meas["zmax"] < 0.05).all() and ((meas["fixed"] > 0) & (meas["fixed"] <= 1)).all()
    assert (ctl["rise"] == 0).all()


def test_direction_drift():
    p, X, y = toy_problem(R=2, m=8, std=0.1)
    tr = train(p, X, y, loss=CE, lr=1e-2, steps=20, record=[0, 10, 20])
    d = rc.direction_drift(tr, 20, n_top=3)
    assert d.shape == (2,) and np.allclose(d, 0, atol=1e-4)
    d2 = rc.direction_drift(tr, [0, float("nan")], n_top=3)
    assert d2[0] >= 0 and np.isnan(d2[1])


