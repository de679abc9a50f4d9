"""The one training loop: full-batch GD and mini-batch SGD with momentum.

``train`` runs gradient descent on ``loss(forward(params, X), y)`` for every run
of a batched :class:`~lrlib.models.TwoLayer` at once (the per-run losses are
summed, so the runs do not interact) and records a :class:`Trajectory` at a
schedule.  Gradients come from the closed forms of :mod:`lrlib.grads` (equal to
autograd's to rounding; ReLU's derivative at 0 is 0), from a caller's ``grad_fn``, or
from autograd (``autograd=True``, or a model/loss the closed forms do not cover).

Divergence: the loss is checked for NaN/inf and for values above ``max_loss`` every
``check_every`` steps and at every recorded step (full-batch GD: the full loss; SGD: the
mini-batch loss, and the full loss at the recorded steps, the only steps where SGD computes
it).

Time: step ``s`` is gradient-flow time ``t = s · lr · time_scale``.  Use
``time_scale = 2`` when you minimise ``mean (f − y)²`` but the paper's flow is on
``½ mean (f − y)²``.

Momentum follows PyTorch's SGD: ``v ← μ v + g``, ``θ ← θ − lr v``.
Mini-batches: a fresh permutation of the data each epoch from ``seed``; the last,
smaller batch of an epoch is kept.  With one ``seed`` every run sees the same indices;
with one seed per run (``seed`` a sequence as long as the runs) each run draws its own
order, as independent reruns would (run ``r`` then sees exactly the batches that a
single-run call with ``seed[r]`` sees).
"""

from __future__ import annotations

import os
from typing import Callable, Iterable, Sequence

import numpy as np
import torch

from . import grads, small_step
from .errors import DivergenceError, ParameterError
from .losses import Loss
from .checks import PARAM_NAMES, point_axis, run_arguments
from .models import TwoLayer, forward, generator
from .schedules import record_steps
from .trajectory import Trajectory

Tensor = torch.Tensor


def progress_enabled(steps: int, progress: bool | None) -> bool:
    """Whether a run shows a progress bar: on for long runs, off under CI or ``TQDM_DISABLE``.

    Parameters
    ----------
    steps : int
        The run's number of steps (≥ 20 000 counts as long).
    progress : bool or None
        The caller's choice; ``None``: decide from ``steps`` and the environment.

    Returns
    -------
    bool
    """
    if progress is not None:
        return progress
    if os.environ.get("CI") or os.environ.get("TQDM_DISABLE"):
        return False
    return steps >= 20_000


def _diverged(L: Tensor, max_loss: float) -> bool:
    return bool((~torch.isfinite(L)).any() or (L > max_loss).any())


class _BatchOrders:
    """The mini-batch indices: one permutation per epoch, shared by all runs (one seed)
    or drawn per run (one seed per run)."""

    def __init__(self, seeds: list[int], runs: tuple[int, ...], n: int, batch_size: int):
        self.gens = [generator(s) for s in seeds]
        self.runs, self.n, self.b = runs, n, batch_size
        self.perm, self.cursor = None, n

    def next_indices(self) -> Tensor:
        """``(b,)`` shared indices, or ``(R, b)`` per-run indices (runs flattened)."""
        if self.cursor >= self.n:
            perms = [torch.randperm(self.n, generator=g) for g in self.gens]
            self.perm = perms[0] if len(perms) == 1 else torch.stack(perms)
            self.cursor = 0
        idx = self.perm[..., self.cursor:self.cursor + self.b]
        self.cursor += self.b
        return idx

    def batch(self, X: Tensor, y: Tensor, y_axis: int) -> tuple[Tensor, Tensor]:
        idx = self.next_indices()
        if idx.dim() == 1:
            return X.index_select(X.dim() - 2, idx), y.index_select(y.dim() + y_axis, idx)
        R, k = len(self.runs), idx.shape[-1]
        idx = idx.reshape(*self.runs, k)
        Xr = X.expand(*self.runs, *X.shape[-2:])
        Xb = Xr.gather(R, idx[..., None].expand(*self.runs, k, X.shape[-1]))
        tail = y.shape[y.dim() + y_axis:]                  # (n,) or (n, c)
        yr = y.expand(*self.runs, *tail)
        yi = idx if len(tail) == 1 else idx[..., None].expand(*self.runs, k, tail[1])
        return Xb, yr.gather(R, yi)


def _batch_orders(seed, runs: tuple[int, ...], n: int, batch_size: int | None) -> _BatchOrders | None:
    if batch_size is None:
        return None
    if np.isscalar(seed):
        return _BatchOrders([int(seed)], runs, n, batch_size)
    seeds = [int(v) for v in seed]
    if len(seeds) != int(np.prod(runs)):
        raise ParameterError(f"seed: give one int, or one per run ({int(np.prod(runs))} runs {tuple(runs)}); "
                             f"got {len(seeds)}")
    return _BatchOrders(seeds, runs, n, batch_size)


def train(
    p0: TwoLayer,
    X: Tensor,
    y: Tensor,
    *,
    loss: Loss,
    lr: float,
    steps: int,
    momentum: float = 0.0,
    batch_size: int | None = None,
    record: int | Sequence[int] | np.ndarray = 200,
    seed: int | Sequence[int] = 0,
    time_scale: float = 1.0,
    trainable: Iterable[str] = PARAM_NAMES,
    dense_loss: bool = False,
    progress: bool | None = None,
    check_every: int = 100,
    max_loss: float = 1e30,
    grad_fn: Callable[[TwoLayer, Tensor, Tensor], dict[str, Tensor]] | None = None,
    meta: dict | None = None,
    autograd: bool = False,
    kernel: str = "auto",
) -> Trajectory:
    """Train ``p0`` on ``(X, y)`` and return the recorded :class:`Trajectory`.

    Parameters
    ----------
    p0 : TwoLayer
        Initial network (not modified); tensors ``(R..., …)``, e.g. ``W1 (R..., m, d)``.
    X : Tensor
        Inputs ``(n, d)`` or ``(R..., n, d)``.
    y : Tensor
        Targets matching ``loss``: ``(R..., n)`` or ``(R..., n, k)``, leading dims optional.
    loss : Loss
        The :class:`~lrlib.losses.Loss` (its convention is stored in ``meta``).
    lr : float
        The step size > 0.
    steps : int
        The number of optimiser steps ≥ 0.
    momentum : float
        Heavy-ball momentum μ in [0, 1) (PyTorch's convention, see the module docstring).
    batch_size : int or None
        Points per mini-batch; ``None``: full batch.
    record : int or sequence of int
        Number of log-spaced snapshots, or explicit step indices in ``[0, steps]``.
    seed : int or sequence of int
        Seeds the mini-batch order (the init has its own generator): one int (all runs
        share the order) or one int per run, in the runs' flattened order (each run its own).
    time_scale : float
        Gradient-flow time per unit of ``lr`` (see the module docstring).
    trainable : iterable of str
        Which of ``W1, b1, W2, b2`` move (others stay at init).
    dense_loss : bool
        Also keep the loss at every step (full batch only).
    progress : bool or None
        Show a progress bar; ``None``: :func:`progress_enabled` decides.
    check_every : int
        Steps between NaN/inf/divergence checks.
    max_loss : float
        A loss above this counts as divergence.
    grad_fn : callable or None
        Optional closed-form gradient ``(params, X, y) -> {name: grad}``; must agree with
        autograd (tested). ``None``: :mod:`lrlib.grads` or autograd.
    meta : dict or None
        Extra entries for the trajectory's ``meta`` (they override the run's own).
    autograd : bool
        Use autograd even where :mod:`lrlib.grads` has the closed form.
    kernel : str
        ``"auto"``: small full-batch runs take the numpy step of :mod:`lrlib.small_step`
        (the same closed-form gradients with fewer dispatches; equal to rounding); ``"torch"``:
        always the torch step.

    Returns
    -------
    Trajectory
        ``T`` snapshots: ``steps (T,)``, flow time ``time = steps · lr · time_scale`` ``(T,)``,
        parameters ``(T, R..., …)``, full-data loss ``(T, R...)``, ``meta`` (the run's conventions)
        and, with ``dense_loss``, the loss at every step ``(steps + 1, R...)``.

    Raises
    ------
    ParameterError
        When an argument is invalid (see :func:`lrlib.checks.run_arguments`).
    DivergenceError
        When the loss becomes NaN/inf or exceeds ``max_loss``.
    """
    trainable = tuple(trainable)
    run_arguments(p0, X, y, lr=lr, steps=steps, momentum=momentum, batch_size=batch_size, trainable=trainable)
    trainable = tuple(n for n in trainable if getattr(p0, n) is not None)
    sched = record_steps(record, steps)
    if dense_loss and batch_size is not None:
        raise ParameterError("dense_loss is only available for full-batch GD")

    p = p0.clone()
    leaves = {n: getattr(p, n) for n in trainable}
    bufs = {n: torch.zeros_like(t) for n, t in leaves.items()} if momentum else {}
    n = X.shape[-2]
    y_axis = point_axis(y, n)
    orders = _batch_orders(seed, p.runs, n, batch_size)
    closed_form = grad_fn is None and not autograd and grads.supported(p, loss)
    if kernel not in ("auto", "torch"):
        raise ParameterError(f"kernel must be 'auto' or 'torch', got {kernel!r}")
    fast = (small_step.SmallGD(p, X, y, loss, trainable, momentum)
            if kernel == "auto" and small_step.eligible(p, X, loss, batch_size=batch_size, closed_form=closed_form)
            else None)

    rec_set = set(int(s) for s in sched)
    snaps: dict[str, list[Tensor]] = {k: [] for k in p.tensors()}
    losses: list[Tensor] = []
    dense = torch.empty((steps + 1, *p.runs), dtype=X.dtype) if dense_loss else None

    def full_loss() -> Tensor:
        return loss(forward(p, X), y)

    def gradients(Xb: Tensor, yb: Tensor, need_loss: bool) -> tuple[Tensor | None, dict[str, Tensor]]:
        """Loss of the batch per run (``None`` unless ``need_loss``) and the gradients."""
        if closed_form:   # momentum: the gradient is accumulated straight into the buffers
            return grads.backprop(p, Xb, yb, loss, need_loss=need_loss, trainable=leaves,
                                  into=bufs or None, beta=momentum)
        if grad_fn is not None:
            return (loss(forward(p, Xb), yb) if need_loss else None), grad_fn(p, Xb, yb)
        with torch.enable_grad():
            for t in leaves.values():
                t.requires_grad_(True)
            Lb = loss(forward(p, Xb), yb)
            gs = torch.autograd.grad(Lb.sum(), list(leaves.values()))
            for t in leaves.values():
                t.requires_grad_(False)
        return Lb.detach(), dict(zip(leaves, gs))

    def check(s: int, L: Tensor, what: str) -> None:
        if _diverged(L, max_loss):
            raise DivergenceError(
                f"training diverged at step {s}: {what} loss = {L.max().item():.3g} (NaN/inf or > {max_loss:g}). "
                f"Lower the learning rate (lr = {lr:g}), use float64, or check the data scale."
            )

    bar = None
    if progress_enabled(steps, progress):
        from tqdm import tqdm  # only when a progress bar is shown (never in the book's runs)

        bar = tqdm(total=steps, mininterval=1.0, desc="train")

    # the steps at which the loop must look (record, check, dense loss): between two of them a
    # small full-batch run takes its numpy steps in one call (SmallGD.run)
    events = (np.arange(steps + 1) if dense is not None else
              np.union1d(np.union1d(sched, np.arange(0, steps + 1, check_every)), [steps])) if fast is not None else None
    with torch.no_grad():
        s = 0
        while s <= steps:
            if fast is not None and bar is None:
                nxt = int(events[np.searchsorted(events, s)])
                if nxt > s:
                    fast.run(nxt - s, lr)
                    s = nxt
            last = s == steps
            recorded = s in rec_set
            checked = s % check_every == 0 or last
            if batch_size is None:
                need = recorded or checked or dense is not None
                if last:
                    L_full = full_loss()
                elif fast is not None:
                    L_full, g = fast.gradients(need)
                else:
                    L_full, g = gradients(X, y, need)
                if dense is not None:
                    dense[s] = L_full
                if checked or recorded:
                    check(s, L_full, "the")
            else:
                L_full = full_loss() if recorded or last else None
                if L_full is not None:
                    check(s, L_full, "the full-data")
                if not last:
                    Xb, yb = orders.batch(X, y, y_axis)
                    L_batch, g = gradients(Xb, yb, checked)
                    if checked:
                        check(s, L_batch, "the mini-batch")
            if recorded:
                for k, t in p.tensors().items():
                    snaps[k].append(t.clone())
                losses.append(L_full.clone())
            if last:
                break
            if fast is not None:
                fast.apply(g, lr)
            for name, gk in (g.items() if fast is None else ()):
                if momentum and not closed_form:
                    gk = bufs[name].mul_(momentum).add_(gk)
                leaves[name].sub_(gk, alpha=lr)
            if bar is not None and s % 1000 == 0:
                bar.update(min(1000, steps - bar.n))
            s += 1
    if bar is not None:
        bar.close()

    info = dict(
        loss=loss.describe(), loss_name=loss.name, reduction=loss.reduction, loss_scale=loss.scale,
        lr=lr, momentum=momentum, batch_size=batch_size, steps=int(steps),
        seed=seed if np.isscalar(seed) else [int(v) for v in seed],
        dtype=str(X.dtype).replace("torch.", ""), time_scale=time_scale, trainable=list(trainable),
    )
    info.update(meta or {})
    return Trajectory(
        steps=sched, time=sched * lr * time_scale,
        params=TwoLayer(act=p.act, **{k: torch.stack(v) for k, v in snaps.items()}),
        loss=torch.stack(losses), meta=info, dense_loss=dense,
    )
