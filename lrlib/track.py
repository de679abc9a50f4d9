"""Trackers: pure functions ``Trajectory → tidy pandas.DataFrame``.

Every frame is in long form, one row per (snapshot, run, neuron[, …]), with
columns ``step`` (optimiser step), ``time`` (gradient-flow time) and ``run``
(flat index over the run dimensions), ready for ``seaborn.relplot``.
All quantities are computed vectorised over snapshots, runs and neurons.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd
import torch

from .measure import active, cosine, drops, first_crossing, plateaus  # noqa: F401  (re-exported until the chapters import lrlib.measure)
from .models import TwoLayer
from .trajectory import Trajectory

Tensor = torch.Tensor


def _flat_runs(t: Tensor, T: int, tail: int) -> Tensor:
    """Reshape ``(T, R..., *tail_dims)`` to ``(T, R, *tail_dims)`` with R = ∏R..."""
    shape = t.shape
    lead = shape[1:len(shape) - tail]
    return t.reshape(T, int(np.prod(lead)) if lead else 1, *shape[len(shape) - tail:])


def tidy(traj: Trajectory, values: Mapping[str, Tensor], extra: Mapping[str, Tensor] | None = None) -> pd.DataFrame:
    """Build a long frame from per-neuron arrays ``(T, R..., m)``.

    ``extra`` holds per-run arrays ``(T, R...)`` or per-neuron constants ``(R..., m)``
    broadcast to every row.  Columns: step, time, run, neuron, *values.
    """
    T = len(traj)
    cols = {k: _flat_runs(v, T, 1) for k, v in values.items()}
    first = next(iter(cols.values()))
    _, R, m = first.shape
    out = {
        "step": np.repeat(traj.steps, R * m),
        "time": np.repeat(traj.time, R * m),
        "run": np.tile(np.repeat(np.arange(R), m), T),
        "neuron": np.tile(np.arange(m), T * R),
    }
    for k, v in cols.items():
        out[k] = v.reshape(-1).numpy()
    runs = tuple(traj.loss.shape[1:])
    for k, v in (extra or {}).items():
        if tuple(v.shape) == (T, *runs):          # per run
            v = v.reshape(T, R, 1)
        elif tuple(v.shape) == (*runs, m):        # per neuron, constant in time
            v = v.reshape(1, R, m)
        else:
            raise ValueError(f"extra {k!r} has shape {tuple(v.shape)}; expected (T, R...) = {(T, *runs)} "
                             f"or (R..., m) = {(*runs, m)}")
        out[k] = torch.broadcast_to(v, (T, R, m)).reshape(-1).numpy()
    return pd.DataFrame(out)


def loss_frame(traj: Trajectory) -> pd.DataFrame:
    """Loss at every snapshot: columns step, time, run, loss."""
    T = len(traj)
    L = _flat_runs(traj.loss.unsqueeze(-1), T, 1)[..., 0]  # (T, R)
    R = L.shape[1]
    return pd.DataFrame({
        "step": np.repeat(traj.steps, R), "time": np.repeat(traj.time, R),
        "run": np.tile(np.arange(R), T), "loss": L.reshape(-1).numpy(),
    })


def neuron_norms(traj: Trajectory, with_bias: bool = True) -> pd.DataFrame:
    """Per-neuron norms: ``norm_in`` ‖w_j‖, ``norm_out`` ‖W2[:, j]‖, their product,
    ``sign`` of the output weight (scalar output) and ``a`` (scalar output)."""
    p = traj.params
    vals = {"norm_in": p.norms_in(with_bias), "norm_out": p.norms_out()}
    vals["norm_product"] = vals["norm_in"] * vals["norm_out"]
    if p.out_dim == 1:
        vals["a"] = p.a
        vals["sign"] = torch.sign(p.a)
    return tidy(traj, vals)


def cosines_to(traj: Trajectory, directions: Mapping[str, Tensor], with_bias: bool = True) -> pd.DataFrame:
    """cos(w_j, u) for each named direction ``u`` (``(D,)`` or ``(R..., D)``).

    Columns: step, time, run, neuron, direction, cos, angle (radians).
    """
    w = traj.params.incoming(with_bias)  # (T, R..., m, D)
    frames = []
    for name, u in directions.items():
        u = u.to(w.dtype)
        c = cosine(w, u.unsqueeze(-2) if u.dim() > 1 else u)
        f = tidy(traj, {"cos": c})
        f.insert(4, "direction", name)
        frames.append(f)
    df = pd.concat(frames, ignore_index=True)
    df["angle"] = np.arccos(df["cos"].clip(-1, 1))
    return df


def activation_frame(traj: Trajectory, X: Tensor) -> pd.DataFrame:
    """Per (snapshot, run, neuron): the activation pattern as a bit string over the
    points (``'1'`` = active) and the number of active points."""
    act = active(traj.params, X)  # (T, R..., m, n)
    n = act.shape[-1]
    weights = (2 ** torch.arange(n - 1, -1, -1)) if n <= 62 else None
    vals = {"n_active": act.sum(-1).to(torch.float64)}
    df = tidy(traj, vals)
    flat = _flat_runs(act, len(traj), 2).reshape(-1, n)
    if weights is not None:
        codes = (flat.long() * weights).sum(-1).numpy()
        df["pattern"] = [format(int(c), f"0{n}b") for c in codes]
    return df


def cosine_similarity_matrix(vectors: Tensor) -> Tensor:
    """Pairwise cosines ``(…, m, m)`` of per-neuron vectors ``(…, m, D)``."""
    v = vectors / torch.linalg.vector_norm(vectors, dim=-1, keepdim=True).clamp_min(torch.finfo(vectors.dtype).tiny)
    return v @ v.transpose(-1, -2)


def stable_rank(W: Tensor) -> tuple[Tensor, Tensor]:
    """``(‖W‖_F² / ‖W‖_2², ‖W‖_2²)`` for matrices ``(…, m, d)``."""
    s = torch.linalg.svdvals(W)
    spec2 = s[..., 0] ** 2
    return (s ** 2).sum(-1) / spec2.clamp_min(torch.finfo(W.dtype).tiny), spec2


def rank_frame(traj: Trajectory, with_bias: bool = False) -> pd.DataFrame:
    """Stable rank and squared spectral norm of the first layer at every snapshot
    (columns step, time, run, stable_rank, spectral_sq, frobenius_sq, loss)."""
    W = traj.params.incoming(with_bias)
    sr, s2 = stable_rank(W)
    df = loss_frame(traj)
    T = len(traj)
    df["stable_rank"] = _flat_runs(sr.unsqueeze(-1), T, 1).reshape(-1).numpy()
    df["spectral_sq"] = _flat_runs(s2.unsqueeze(-1), T, 1).reshape(-1).numpy()
    df["frobenius_sq"] = df["stable_rank"] * df["spectral_sq"]
    return df


def max_direction_change(p_from: TwoLayer, p_to: TwoLayer, top: int = 10) -> float:
    """Largest angle (degrees) between the incoming vectors at two times, over the ``top``
    neurons of largest norm at ``p_to`` (one run)."""
    w0, w1 = p_from.incoming(), p_to.incoming()
    big = torch.topk(torch.linalg.vector_norm(w1, dim=-1), min(top, w1.shape[-2])).indices
    return float(torch.rad2deg(torch.arccos(cosine(w0[big], w1[big]).clamp(-1, 1))).max())


def relative_movement(traj: Trajectory) -> float:
    """``‖θ_T − θ_0‖ / ‖θ_0‖`` over all parameters (the lazy-regime diagnostic)."""
    th0 = torch.cat([t[0].reshape(-1) for t in traj.params])
    th1 = torch.cat([t[-1].reshape(-1) for t in traj.params])
    return float(torch.linalg.vector_norm(th1 - th0) / torch.linalg.vector_norm(th0))


def balancedness_drift(traj: Trajectory, relative_to: str = "final") -> Tensor:
    """Drift of the balance ``a_j² − ‖w_j‖²`` (scalar output), per run ``(R...)``.

    ``relative_to="final"``: ``max_t max_j |a_j² − ‖w_j‖²|`` over ``max_j ‖w_j‖²`` at the end of the
    run; ``"current"``: ``max_t`` of ``max_j |a_j² − ‖w_j(t)‖²| / max_j ‖w_j(t)‖²`` (scale-free at every
    time, so it also sees the drift while the norms are tiny).  Gradient flow conserves
    ``a_j² − ‖w_j‖²``; GD with step ``η`` changes it by ``O(η²)`` per step."""
    P = traj.params
    dev = (P.a ** 2 - P.norms_in() ** 2).abs().amax(-1)                      # (T, R...)
    if relative_to == "current":
        return (dev / (P.norms_in() ** 2).amax(-1)).amax(0)
    if relative_to != "final":
        raise ValueError(f"relative_to must be 'final' or 'current', got {relative_to!r}")
    return dev.amax(0) / (traj.final.norms_in() ** 2).amax(-1)
