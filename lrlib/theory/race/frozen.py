"""Pinson (2026): the frozen-gating model of Props. 4.2–4.3 and its closed form, and the drift of the
incoming directions after the loss drops (Prop. 4.4, App. E).

**Frozen model.** Fix each neuron's gating ``g_α`` (its effective set), its bias at 0 and every error
vector at its value for ``ŷ = (½, ½)``, ``Δy^s = ±(½, −½)`` (so ``‖Δy^s‖ = √2/2``, the zeroth order of
App. D). The mean-loss gradient flow then decouples into one linear system per neuron. With
``μ_α = m¹_α / N`` (``m¹`` of eq. 13 on the fixed gating), ``q = w1_α·μ̂_α``,
``v = w2_α·(1, −1)/√2`` and ``k_α = ‖μ_α‖/√2`` (per unit flow time ``τ = λ t``)::

    dq/dτ = k v,   dv/dτ = k q,   w1 − q μ̂ and w2·(1, 1) constant,
    q(τ) = ½[(q0 + v0) e^{kτ} + (q0 − v0) e^{−kτ}].

So ``w1_α`` turns towards ``m¹_α`` (the direction of ⟨γ_α⟩ while ‖Δy‖ = √2/2, Props. 4.2–4.3), with
``cos∠(w1_α(τ), m¹_α) = q / √(q² + ‖w1⊥‖²)``, in the growing mode (``q0 + v0 > 0``) towards +1.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from ...measure import cosine
from ...models import TwoLayer, forward
from .neuron import gating, target_m1

Tensor = torch.Tensor


def frozen_cos(p0: TwoLayer, X: Tensor, y: Tensor, tau: Tensor | np.ndarray) -> tuple[Tensor, Tensor]:
    """The frozen model's ``cos∠(w1_α(τ), m¹_α)`` from the network at ``τ = 0``.

    Parameters
    ----------
    p0 : TwoLayer
        The network at ``τ = 0``, tensors ``(R..., m, D)`` etc.; its gating fixes ``m¹``.
    X : Tensor
        Inputs ``(N, D)`` or ``(R..., N, D)``.
    y : Tensor
        Labels ``(N,)`` or ``(R..., N)``; label 0 is the paper's class 1.
    tau : array-like
        Flow times ``(T,)``, ``τ = λ t`` (plain GD: learning rate × step).

    Returns
    -------
    cos_pred : Tensor
        ``(T, R..., m)``, the closed form's cosine between ``w1_α(τ)`` and ``m¹_α``.
    growing : Tensor
        ``(R..., m)`` bool, the neurons in the growing mode (``q0 + v0 > 0``).
    """
    m1 = target_m1(p0, X, y)                                            # (R..., m, D)
    mu = torch.linalg.vector_norm(m1, dim=-1) / X.shape[-2]              # ‖μ_α‖
    q0 = (p0.W1 * m1).sum(-1) / torch.linalg.vector_norm(m1, dim=-1).clamp_min(1e-300)
    perp = (torch.linalg.vector_norm(p0.W1, dim=-1) ** 2 - q0 ** 2).clamp_min(0).sqrt()
    v0 = (p0.W2[..., 0, :] - p0.W2[..., 1, :]) / math.sqrt(2)
    k = mu / math.sqrt(2)
    t = torch.as_tensor(np.asarray(tau, dtype=float), dtype=q0.dtype).reshape((-1,) + (1,) * q0.dim())
    q = 0.5 * ((q0 + v0) * torch.exp(k * t) + (q0 - v0) * torch.exp(-k * t))
    return q / (q ** 2 + perp ** 2).sqrt(), (q0 + v0) > 0


def augmented(p: TwoLayer, X: Tensor) -> tuple[TwoLayer, Tensor]:
    """The bias as one more input coordinate: ``w̃1 = [w1, b]``, ``x̃ = [x, 1]``, ``b̃ = 0``.

    Parameters
    ----------
    p : TwoLayer
        Tensors ``(B..., m, D)``, ``b1 (B..., m)``.
    X : Tensor
        ``(..., N, D)``.

    Returns
    -------
    (TwoLayer, Tensor)
        The same network with ``W1 (B..., m, D+1)`` and zero ``b1``, and ``X̃ (..., N, D+1)``.
    """
    W1 = torch.cat([p.W1, p.b1.unsqueeze(-1)], -1)
    q = TwoLayer(W1=W1, b1=torch.zeros_like(p.b1), W2=p.W2, b2=p.b2)
    return q, torch.cat([X, torch.ones_like(X[..., :1])], -1)


def frozen_flow_check(traj, X: Tensor, y: Tensor, tau_scale: float, t_max: int, max_changed: float = 0.01
                      ) -> tuple[dict, dict]:
    """Compare a trained network with the frozen model's closed form over its recorded steps ≤ ``t_max``,
    per run, in the coordinates ``w̃1 = [w1, b]``, ``x̃ = [x, 1]`` (:func:`augmented`).

    Parameters
    ----------
    traj : Trajectory
        A run from a small init; params ``(T, R, m, ...)``.
    X, y : Tensor
        Its data, ``(R, N, D)`` and ``(R, N)``.
    tau_scale : float
        Flow time per step (plain GD: the learning rate; heavy ball: ``lr / (1 − momentum)``).
    t_max : int
        Last step compared (the end of the plateau).
    max_changed : float
        A neuron counts as having a *fixed gating* when, at every compared step, at most this share
        of its gates differs from t = 0.

    Returns
    -------
    measured : dict of ``(R,)`` arrays
        ``err`` — max over the compared steps and the fixed-gating neurons of
        ``|cos∠(w̃1(τ), m̃¹) − cos_pred(τ)|`` (``m̃¹`` of the gating at τ = 0); ``rise`` — median over
        the fixed-gating neurons in the growing mode of the measured ``cos(t_max) − cos(0)``;
        ``fixed`` — share of the neurons with a fixed gating; ``zmax`` — max |output| at ``t_max``;
        ``err_w`` — the same maximum as ``err`` over every neuron, each only inside its own window
        (from t = 0 to the last compared step before more than ``max_changed`` of its gates differ);
        ``n_long`` — neurons whose window reaches ``t_max / 2``. Neurons with an empty effective set
        at t = 0 (``m̃¹ = 0``) are left out.
    control : dict of ``(R,)`` arrays
        ``err``, ``rise`` and ``err_w`` of the no-rotation prediction (``cos_pred(τ) = cos(0)``: w̃1 keeps
        its direction).
    """
    idx = [i for i, s in enumerate(traj.steps) if s <= t_max]
    steps = np.asarray(traj.steps)[idx]
    P = traj.params[idx]
    Pa, Xa = augmented(P, X)
    p0 = Pa[0]
    m1 = target_m1(p0, Xa, y)                                            # (R, m, D+1)
    live = torch.linalg.vector_norm(m1, dim=-1) > 0
    cos_meas = cosine(Pa.W1, m1)                                         # (T, R, m)
    cos_pred, growing = frozen_cos(p0, Xa, y, steps * tau_scale)
    ok = (gating(Pa, Xa) != gating(p0, Xa)).to(cos_meas.dtype).mean(-1) <= max_changed     # (T, R, m)
    window = (ok.cumprod(0) > 0) & live                                  # inside each neuron's own window
    fixed = window.all(0)                                                # (R, m)
    sel = fixed & growing
    j_half = int(np.searchsorted(steps, t_max / 2))

    def score(pred: Tensor) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        dev = (cos_meas - pred).abs()
        err = torch.where(fixed, dev, torch.zeros_like(dev)).amax((0, -1))
        err_w = torch.where(window, dev, torch.zeros_like(dev)).amax((0, -1))
        rise = [(pred[-1, r] - cos_meas[0, r])[sel[r]].median().item() if sel[r].any() else float("nan")
                for r in range(sel.shape[0])]
        return err.numpy(), np.array(rise), err_w.numpy()

    err, _, err_w = score(cos_pred)
    _, rise, _ = score(cos_meas)
    err_c, rise_c, err_wc = score(cos_meas[:1].expand_as(cos_meas))
    zmax = forward(P[-1], X).abs().amax((-1, -2)).numpy()
    measured = dict(err=err, rise=rise, fixed=(fixed.sum(-1) / live.sum(-1)).numpy(), zmax=zmax, err_w=err_w,
                    n_long=window[min(j_half, len(steps) - 1)].sum(-1).numpy())
    return measured, dict(err=err_c, rise=rise_c, err_w=err_wc)


def direction_drift(traj, t_from: int, n_top: int = 20) -> np.ndarray:
    """a-weighted mean angle (degrees) between ``w1_α`` at step ``t_from`` and at the end, over the
    ``n_top`` neurons of largest final ``a``.

    Parameters
    ----------
    traj : Trajectory
        Params ``(T, R, m, ...)``.
    t_from : int or sequence of int
        The step to compare with the end: one for every run, or one per run ``(R,)``; NaN (a loss that
        never left its plateau) gives NaN.
    n_top : int
        Neurons kept per run, by final ``a = ‖w2‖‖w1‖``.

    Returns
    -------
    np.ndarray
        ``(R,)`` angles in degrees (NaN where ``t_from`` is NaN).
    """
    fin = traj.final
    a = torch.linalg.vector_norm(fin.W1, dim=-1) * torch.linalg.vector_norm(fin.W2, dim=-2)     # (R, m)
    R = a.shape[0]
    steps = np.broadcast_to(np.asarray(t_from), (R,))
    out = []
    for r in range(R):
        if not np.isfinite(steps[r]):
            out.append(float("nan"))
            continue
        w_from = traj.at(traj.index_of_step(int(steps[r]))).W1[r]
        top = torch.topk(a[r], n_top).indices
        ang = torch.rad2deg(torch.arccos(cosine(w_from[top], fin.W1[r][top]).clamp(-1, 1)))
        out.append(float((ang * a[r][top]).sum() / a[r][top].sum()))
    return np.array(out)
