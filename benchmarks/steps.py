"""Time per training step of lrlib.train.train on representative shapes, against two
references measured in the same run: a minimal hand-written loop with manual gradients
(the floor for small shapes) and the machine's matrix-multiply rate (the ceiling for
large shapes)."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Callable

import torch

from lrlib.data import cifar_race, mnist_pair
from lrlib.losses import Loss, half_mse
from lrlib.models import TwoLayer, balanced_init, forward, gaussian_init, generator
from lrlib.theory.orthogonal.data import orthonormal_testbed, relu_teacher
from lrlib.train import train


@dataclass
class StepCase:
    key: str
    label: str
    make: Callable[[], tuple]      # () -> (p0, X, y)
    loss: Loss
    lr: float
    steps: int
    momentum: float = 0.0
    batch_size: int | None = None
    runs: int = 1                  # > 1: runs batched along a leading dimension, as a chapter runs its seeds


def _toy():
    from benchmarks.problems import toy_problem

    return toy_problem(seed=0)


def _small():
    X, y = orthonormal_testbed()
    return balanced_init(50, 10, scale=1e-6, gen=generator(0)), X, y


def _medium():
    X, y = relu_teacher(75, 150, 6, gen=generator(4))
    return balanced_init(200, 150, scale=1e-6, gen=generator(5)), X, y


def _cifar():
    X, y = cifar_race(500, 0, dtype=torch.float32)                     # setting 3: N = 2000
    p = gaussian_init(250, 1024, 2, std_in=0.01, std_out=0.01, bias_in=True, bias_out=True,
                      gen=generator(0), dtype=torch.float32)
    return p, X, y


def _cifar_book():
    """Setting 3 with five seeds batched (own images, init, batch order): the race chapter's former way."""
    data = [cifar_race(500, r, dtype=torch.float32) for r in range(5)]
    p = gaussian_init(250, 1024, 2, std_in=0.01, std_out=0.01, bias_in=True, bias_out=True,
                      gen=generator(0), dtype=torch.float32, runs=(5,))
    return p, torch.stack([d[0] for d in data]), torch.stack([d[1] for d in data])


def _mnist():
    X, y = mnist_pair(1, 0, None, dtype=torch.float32)                 # all 2 × 2500 images of the subset
    return gaussian_init(50, 784, std_in=1e-6, std_out=1e-6, gen=generator(0), dtype=torch.float32), X, y


CASES = [
    StepCase("toy", "orthogonal toy n=2, d=2, m=60 (float64, GD, mean MSE)", _toy, Loss("square", "mean"), 1e-3, 6000),
    StepCase("small", "orthonormal test bed n=6, d=10, m=50 (float64, GD)", _small, half_mse(), 1e-2, 4000),
    StepCase("medium", "ReLU teacher n=75, d=150, m=200 (float64, GD)", _medium, Loss("square", "mean"), 1e-2, 1500),
    StepCase("cifar", "CIFAR setting 3 as the chapter runs it (one seed at a time): batch 32 of 2000×1024, "
             "m=250, k=2, CE, SGD μ=0.9 (float32)", _cifar,
             Loss("cross_entropy"), 1e-3, 600, momentum=0.9, batch_size=32),
    StepCase("cifar-book", "CIFAR setting 3, 5 seeds batched (the chapter's former way), batch 32 of 2000×1024 each, "
             "m=250, k=2, CE, SGD μ=0.9 (float32)", _cifar_book, Loss("cross_entropy"), 1e-3, 400, momentum=0.9,
             batch_size=32, runs=5),
    StepCase("mnist", "MNIST 0/1 full batch 5000×784, m=50, exp. loss (float32, GD)", _mnist,
             Loss("exponential"), 2e-3, 60),
]


def flops_per_step(n: int, d: int, m: int, k: int) -> float:
    """Matmul FLOPs of one step: forward ``2ndm + 2nmk``; backward ``2nmk`` (∂W2),
    ``2nmk`` (∂h), ``2nmd`` (∂W1); no gradient with respect to the inputs."""
    return 4.0 * n * d * m + 6.0 * n * m * k


def forward_flops(n: int, d: int, m: int, k: int) -> float:
    """Matmul FLOPs of one forward pass on ``n`` points: ``2ndm + 2nmk``."""
    return 2.0 * n * d * m + 2.0 * n * m * k


def matmul_rate(dtype: torch.dtype, size: int = 1024, repeat: int = 5) -> float:
    """Best GFLOP/s of a ``size × size`` matrix product (the machine's ceiling)."""
    g = generator(0)
    A = torch.randn(size, size, generator=g).to(dtype)
    B = torch.randn(size, size, generator=g).to(dtype)
    A @ B
    best = math.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        A @ B
        best = min(best, time.perf_counter() - t0)
    return 2.0 * size ** 3 / best / 1e9


def dispatch_probe(repeat: int = 5, n: int = 20_000) -> dict:
    """The machine's cost of one tiny operation, the unit that small shapes pay per step:
    µs per ``torch.add(a, b, out=c)`` on one-element float64 tensors, and per ``numpy.add``
    on one-element arrays (best of ``repeat`` loops of ``n`` calls)."""
    import numpy as np

    a, b, c = (torch.ones(1, dtype=torch.float64) for _ in range(3))
    x, y, z = (np.ones(1) for _ in range(3))

    def loop_torch():
        for _ in range(n):
            torch.add(a, b, out=c)

    def loop_numpy():
        for _ in range(n):
            np.add(x, y, out=z)

    return dict(torch_op_us=1e6 * _best(loop_torch, repeat) / n, numpy_op_us=1e6 * _best(loop_numpy, repeat) / n)


def _dpred(loss: Loss, pred: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """∂L/∂pred ``(n, k)`` by hand, for the floor loop (mean reduction)."""
    n = pred.shape[0]
    if loss.name == "square":
        return 2 * loss.scale * (pred - y.unsqueeze(-1)) / n
    if loss.name == "cross_entropy":
        sm = torch.softmax(pred, -1)
        sm[torch.arange(n), y] -= 1
        return loss.scale * sm / n
    if loss.name == "exponential":
        f = pred[:, 0]
        return (-loss.scale * y * torch.exp(-y * f) / n).unsqueeze(-1)
    raise ValueError(loss.name)


def manual_grads(p: dict[str, torch.Tensor], Xb: torch.Tensor, yb: torch.Tensor, loss: Loss) -> dict[str, torch.Tensor]:
    """Hand-written gradients of a ReLU two-layer net (biases optional) for one batch ``(n, d)``."""
    pre = Xb @ p["W1"].T
    if "b1" in p:
        pre += p["b1"]
    h = pre.clamp(min=0)
    out = h @ p["W2"].T
    if "b2" in p:
        out += p["b2"]
    dout = _dpred(loss, out, yb)
    dpre = (dout @ p["W2"]) * (pre > 0)
    g = {"W1": dpre.T @ Xb, "W2": dout.T @ h}
    if "b1" in p:
        g["b1"] = dpre.sum(0)
    if "b2" in p:
        g["b2"] = dout.sum(0)
    return g


def manual_loop(p0: TwoLayer, X: torch.Tensor, y: torch.Tensor, case: StepCase, steps: int, seed: int = 0) -> None:
    """The floor: the same optimiser (GD / SGD+momentum, same batch order) with hand-written
    gradients, no autograd, no recording."""
    p = {k: t.clone() for k, t in p0.tensors().items()}
    bufs = {k: torch.zeros_like(t) for k, t in p.items()}
    n = X.shape[0]
    gen = generator(seed)
    perm, cursor = None, n
    for _ in range(steps):
        Xb, yb = X, y
        if case.batch_size is not None:
            if cursor >= n:
                perm, cursor = torch.randperm(n, generator=gen), 0
            idx = perm[cursor:cursor + case.batch_size]
            cursor += case.batch_size
            Xb, yb = X.index_select(0, idx), y.index_select(0, idx)
        for k, gk in manual_grads(p, Xb, yb, case.loss).items():
            if case.momentum:
                gk = bufs[k].mul_(case.momentum).add_(gk)
            p[k].sub_(case.lr * gk)


def _floor_check(p0: TwoLayer, X: torch.Tensor, y: torch.Tensor, c: StepCase) -> float:
    """Largest relative difference between the floor's gradients and autograd's (float64, 40
    points): the floor computes the same thing, or its timing means nothing."""
    Xb = X[:40].double()
    yb = y[:40].double() if y.is_floating_point() else y[:40]
    p = p0.to(torch.float64)
    leaves = {k: t.clone().requires_grad_(True) for k, t in p.tensors().items()}
    L = c.loss(forward(TwoLayer(act=p.act, **leaves), Xb), yb)
    auto = dict(zip(leaves, torch.autograd.grad(L, list(leaves.values()))))
    hand = manual_grads(p.tensors(), Xb, yb, c.loss)
    diff = max(float((auto[k] - hand[k]).abs().max() / auto[k].abs().max()) for k in auto)
    if not diff < 1e-10:
        raise AssertionError(f"{c.key}: the floor's gradients differ from autograd's by {diff:.2e}")
    return diff


def _best(fn: Callable[[], None], repeat: int) -> float:
    best = math.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def run(scale: float = 1.0, repeat: int = 3, only: set[str] | None = None) -> dict:
    """Per-step timings of every case: µs/step of lrlib and of the floor, GFLOP/s, % of matmul."""
    rates = {str(dt).replace("torch.", ""): matmul_rate(dt) for dt in (torch.float64, torch.float32)}
    probe = dispatch_probe()
    rows = []
    for c in CASES:
        if only and c.key not in only:
            continue
        p0, X, y = c.make()
        steps = max(5, int(c.steps * scale))
        kw = dict(loss=c.loss, lr=c.lr, momentum=c.momentum, batch_size=c.batch_size, progress=False,
                  seed=list(range(c.runs)) if c.runs > 1 else 0)
        train(p0, X, y, steps=3, record=2, **kw)                    # warm-up
        t_lr = _best(lambda: train(p0, X, y, steps=steps, record=2, **kw), repeat)
        nb = c.batch_size or X.shape[-2]
        fl = c.runs * flops_per_step(nb, p0.in_dim, p0.width, p0.out_dim)
        # the timed call also evaluates the loss on all the data at its recorded steps (0 and the
        # last; with full batches the first comes with the step): count those forward passes too
        n_full = 2 if c.batch_size else 1
        fl_extra = n_full * c.runs * forward_flops(X.shape[-2], p0.in_dim, p0.width, p0.out_dim)
        dtype = str(X.dtype).replace("torch.", "")
        gflops = (fl * steps + fl_extra) / t_lr / 1e9
        row = dict(key=c.key, label=c.label, runs=c.runs, n=int(X.shape[-2]), batch=nb, d=p0.in_dim, m=p0.width,
                   k=p0.out_dim, dtype=dtype, steps=steps, us_per_step=1e6 * t_lr / steps, gflop_per_step=fl / 1e9,
                   gflops=gflops, matmul_gflops=rates[dtype], share_of_matmul=gflops / rates[dtype])
        if c.runs == 1:   # the floor and the autograd loop are written for one run
            check = _floor_check(p0, X, y, c)
            manual_loop(p0, X, y, c, 3)
            t_fl = _best(lambda: manual_loop(p0, X, y, c, steps), repeat)
            # the same loop with autograd instead of lrlib.grads' closed forms: what autograd would cost
            t_ag = _best(lambda: train(p0, X, y, steps=steps, record=2, autograd=True, **kw), repeat)
            row.update(floor_grad_rel_diff=check, floor_us_per_step=1e6 * t_fl / steps, ratio_to_floor=t_lr / t_fl,
                       autograd_us_per_step=1e6 * t_ag / steps, autograd_ratio_to_floor=t_ag / t_fl,
                       floor_gflops=fl * steps / t_fl / 1e9)
        rows.append(row)
    return dict(matmul_gflops=rates, dispatch=probe, threads=torch.get_num_threads(), repeat=repeat, scale=scale,
                cases=rows)
