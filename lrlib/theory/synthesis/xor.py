"""AGF on the race paper's XOR toy (part 3 of the synthesis chapter).

The race paper's network (two outputs, hidden biases, every weight ``N(0, std²)``, biases 0) on its
XOR toy (:func:`lrlib.theory.race.xor_clusters`), written the way AGF needs it:

* the hidden bias is the weight on a constant input coordinate ``x̃ = (x, 1)``, so a neuron
  ``θ = (w, b, a)`` is 2-homogeneous (:func:`xor_task`, :func:`homogeneous_race_net`);
* no output bias (it belongs to no neuron; the race init sets it to 0);
* the square loss ``½ mean ‖f − y‖²`` on centred one-hot targets ``y = e_label − ½``: AGF is derived
  for the square loss, and these targets give, at ``f = 0``, the cross-entropy's output gradient
  ``−∇_f L = (e_label − ½)/N``, so the utilities that decide which cluster activates first are the
  race paper's.

AGF's run on these data: :func:`xor_agf` (the settings of part 3). Measurements: per-cluster losses
(:func:`lrlib.theory.race.cluster_losses` with the half square loss), the cluster a neuron serves
(:func:`neuron_clusters`) and the table of AGF's cluster activations against GD's per-cluster drops (:func:`xor_agf_vs_gd`).
"""

from __future__ import annotations

from functools import partial

import numpy as np
import torch

from ...errors import ParameterError
from ...losses import half_mse
from ...models import TwoLayer
from ...measure import first_crossing, relative_error
from ..agf import agf
from ..race import cluster_losses, xor_clusters
from .agf_gd import cost_phase

Tensor = torch.Tensor


def xor_task(n_per_cluster: int, gen: torch.Generator, *, dtype: torch.dtype = torch.float64,
             **kwargs) -> tuple[Tensor, Tensor, Tensor]:
    """The race paper's XOR toy in the form AGF needs.

    Parameters
    ----------
    n_per_cluster : int
        points per cluster.
    gen : torch.Generator
        the random generator (:func:`lrlib.models.generator`).
    dtype : torch.dtype
        the floating dtype.
    **kwargs : dict
        passed to :func:`~lrlib.theory.race.xor_clusters` (``norms``, ``std``).

    Returns
    -------
    (Tensor, Tensor, Tensor)
        Inputs with a constant coordinate ``X̃ (N, 3)``, centred one-hot targets ``Y (N, 2)`` (``±½``) and
        the cluster index ``(N,)``.
    """
    X, y, cl = xor_clusters(n_per_cluster, gen, dtype=dtype, **kwargs)
    Xa = torch.cat([X, torch.ones(X.shape[0], 1, dtype=dtype)], -1)
    Y = torch.nn.functional.one_hot(y, 2).to(dtype) - 0.5
    return Xa, Y, cl


def homogeneous_race_net(p: TwoLayer) -> TwoLayer:
    """A race network as a bias-free network on ``X̃ = (x, 1)``: ``W1 ← [W1, b1]``.

    Parameters
    ----------
    p : TwoLayer
        a race network with hidden and output biases; the output bias must be zero (it is dropped).

    Returns
    -------
    TwoLayer
        ``W1 (…, m, D+1)``, ``W2`` unchanged, no biases.
    """
    if p.b1 is None or p.b2 is None:
        raise ParameterError("homogeneous_race_net needs a race network with both biases")
    if bool((p.b2 != 0).any()):
        raise ParameterError("homogeneous_race_net drops the output bias, which must be zero")
    return TwoLayer(W1=torch.cat([p.W1, p.b1.unsqueeze(-1)], -1), W2=p.W2, act=p.act)


def xor_variant_data(sizes, norms, gens) -> tuple[Tensor, Tensor, Tensor]:
    """An XOR variant over seeds: cluster ``c`` keeps its first ``sizes[c]`` points, centroid norm ``norms[c]``.

    Parameters
    ----------
    sizes : sequence of int
        points per cluster (clusters at 45°, 135°, 225°, 315°).
    norms : sequence of float
        centroid norms per cluster.
    gens : list of torch.Generator
        one random generator per seed (a fresh draw each).

    Returns
    -------
    (Tensor, Tensor, Tensor)
        ``X̃ (S, N, 3)``, ``Y (S, N, 2)`` as :func:`xor_task`, and the cluster index ``(N,)`` (the same in
        every seed).
    """
    dr = [xor_task(max(sizes), g, norms=tuple(norms)) for g in gens]
    keep = torch.cat([torch.nonzero(dr[0][2] == c)[:k, 0] for c, k in enumerate(sizes)])
    X, Y = (torch.stack([d[i][keep] for d in dr]) for i in (0, 1))
    return X, Y, dr[0][2][keep]


def xor_agf_runs(p: TwoLayer, X: Tensor, Y: Tensor, **kwargs) -> list:
    """:func:`xor_agf` from each run of a batch of networks ``p`` (one run dimension) on its data ``X[r], Y[r]``.

    Parameters
    ----------
    p : TwoLayer
        bias-free networks with one run dimension, ``W1 (S, m, 3)``.
    X, Y : Tensor
        ``(S, N, 3)`` and ``(S, N, 2)``.
    **kwargs : dict
        passed to :func:`xor_agf` (``tau_max``, ``loss``, ...).

    Returns
    -------
    list of AGFRun
        One per run.
    """
    return [xor_agf(TwoLayer(W1=p.W1[r], W2=p.W2[r]), X[r], Y[r], **kwargs) for r in range(p.W1.shape[0])]


def xor_agf(net: TwoLayer, X: Tensor, Y: Tensor, *, tau_max: float, loss, cost_lr: float = 0.1,
            cost_steps: int = 2000):
    """AGF (:func:`lrlib.theory.agf.agf`, ``κ = 2``, ``η = 1``) from one network on the XOR toy, its cost
    phase plain GD on the active neurons.

    Parameters
    ----------
    net : TwoLayer
        one bias-free network on ``X̃`` (:func:`homogeneous_race_net`), no run dimension.
    X, Y : Tensor
        ``(N, 3)`` inputs with the constant coordinate and ``(N, 2)`` targets (:func:`xor_task`).
    tau_max : float
        AGF's horizon (its time is gradient-flow time here, ``η = 1``).
    loss : Loss
        the :class:`~lrlib.losses.Loss` (the square loss ``½ mean ‖f − y‖²``).
    cost_lr, cost_steps : float, int
        the cost phase's GD step and number of steps.

    Returns
    -------
    AGFRun
        The run (:class:`~lrlib.theory.agf.AGFRun`), at most 6 jumps.
    """
    cost = partial(cost_phase, X=X, y=Y, loss=loss, lr=cost_lr, steps=cost_steps)
    return agf(net, X, Y, loss=loss, kappa=2, eta=1.0, dtau_max=0.5, tau_max=tau_max, max_iter=6,
               cost_fn=cost)


def neuron_clusters(W1: Tensor, X: Tensor, cl: Tensor) -> Tensor:
    """The cluster each neuron serves: ``argmax_c mean_{s ∈ c} relu(w_i · x_s)``.

    Parameters
    ----------
    W1 : Tensor
        ``(k, D)`` first-layer weights of ``k`` neurons.
    X : Tensor
        ``(N, D)`` inputs.
    cl : Tensor
        ``(N,)`` cluster index.

    Returns
    -------
    Tensor
        ``(k,)`` cluster index per neuron; ``−1`` for a neuron active on no point (e.g. zeroed).
    """
    act = torch.relu(X @ W1.T)                                                  # (N, k)
    onehot = torch.nn.functional.one_hot(cl.long()).to(act.dtype)               # (N, C)
    per = (onehot.T @ act) / onehot.sum(0).unsqueeze(-1)                        # (C, k)
    best = per.argmax(0)
    return torch.where(per.max(0).values > 0, best, torch.full_like(best, -1))


def xor_agf_vs_gd(time: np.ndarray, closs: np.ndarray, run, X: Tensor, Y: Tensor, cl: Tensor
                  ) -> tuple[list[dict], bool]:
    """AGF's cluster activations against GD's per-cluster drops, for one run.

    Jump ``k`` activates the neurons ``run.order[k−1]``, whose clusters are read from ``run.nets[k]``
    (:func:`neuron_clusters`).  ``order_ok``: AGF made exactly ``C`` jumps, each activating neurons of one
    cluster not fitted before, and GD's per-cluster drops come in the same order.  A run whose jump times
    are not increasing from 0 makes no prediction: every row ``nan``, ``order_ok`` false.

    Parameters
    ----------
    time : np.ndarray
        ``(T,)`` gradient-flow times of GD's per-cluster losses.
    closs : np.ndarray
        ``(T, C)`` GD's per-cluster losses (:func:`lrlib.theory.race.cluster_losses`, half square
        loss).
    run : AGFRun
        the :class:`~lrlib.theory.agf.AGFRun` from the same initial network on ``X``, ``Y``.
    X, Y : Tensor
        ``(N, D)`` inputs and ``(N, k)`` targets.
    cl : Tensor
        ``(N,)`` cluster index.

    Returns
    -------
    (list[dict], bool)
        One row per cluster ``c``: ``jump`` (the first jump that activates it, ``nan`` if none), ``agf``
        (that jump's time), ``gd`` (the first time GD's ``closs[:, c]`` falls below the midpoint of AGF's
        loss of ``c`` before and after that jump), ``err = |agf − gd|/gd``; and ``order_ok``.
    """
    closs = np.asarray(closs, dtype=float)
    C = closs.shape[1]
    if closs.ndim != 2 or closs.shape[0] != len(time) or int(cl.max()) + 1 != C:
        raise ParameterError(f"xor_agf_vs_gd: closs {closs.shape} must be (T, C) for {len(time)} times and {int(cl.max()) + 1} clusters")
    rows = {c: dict(cluster=c, jump=np.nan, agf=np.nan, gd=np.nan, err=np.nan) for c in range(C)}
    if not bool((np.diff(np.asarray(run.tau, dtype=float)) > 0).all()):
        return [rows[c] for c in range(C)], False
    seq, single = [], True
    for k, neurons in enumerate(run.order, start=1):
        cs = set(neuron_clusters(run.nets[k].W1[neurons], X, cl).tolist())
        single &= len(cs) == 1 and -1 not in cs and not (cs & set(seq))
        seq += sorted(cs - set(seq) - {-1})
        before = cluster_losses(run.nets[k - 1], X, Y, cl, half_mse())
        after = cluster_losses(run.nets[k], X, Y, cl, half_mse())
        for c in cs - {-1}:
            if np.isnan(rows[c]["jump"]):
                mid = 0.5 * float(before[c] + after[c])
                gd = first_crossing(time, closs[:, c], mid)
                rows[c].update(jump=k, agf=float(run.tau[k]), gd=gd, err=float(relative_error(float(run.tau[k]), gd)))
    gd_t = np.array([rows[c]["gd"] for c in range(C)])
    order_ok = (single and len(run.order) == C and len(seq) == C and bool(np.isfinite(gd_t).all())
                and list(np.argsort(gd_t, kind="stable")) == seq)
    return [rows[c] for c in range(C)], bool(order_ok)


def swap_first_two(rows: list[dict]) -> tuple[list[dict], bool]:
    """A perturbed AGF prediction (the negative control of the XOR claim): the clusters of AGF's jumps 1
    and 2 exchange their jump index and jump time; GD's drop times stay.

    Parameters
    ----------
    rows : list[dict]
        the per-cluster rows of :func:`xor_agf_vs_gd` (``cluster``, ``jump``, ``agf``, ``gd``, ``err``;
        times in gradient-flow time).

    Returns
    -------
    (rows, order_ok)
        The perturbed rows, ``err = |agf − gd|/gd`` recomputed, and whether the perturbed sequence of
        clusters is GD's order of per-cluster drops (``False`` when a cluster has no jump or no drop).
    """
    out = [dict(r) for r in rows]
    by_jump = {int(r["jump"]): r for r in out if np.isfinite(r["jump"])}
    if 1 in by_jump and 2 in by_jump:
        a, b = by_jump[1], by_jump[2]
        a["jump"], b["jump"], a["agf"], b["agf"] = b["jump"], a["jump"], b["agf"], a["agf"]
    for r in out:
        r["err"] = float(relative_error(r["agf"], r["gd"]))
    jumps = np.array([r["jump"] for r in out], dtype=float)
    gd_t = np.array([r["gd"] for r in out], dtype=float)
    ok = bool(np.isfinite(jumps).all() and np.isfinite(gd_t).all()
              and list(np.argsort(jumps, kind="stable")) == list(np.argsort(gd_t, kind="stable")))
    return out, ok
