"""Alternating Gradient Flows (Kunin et al. 2025, Algorithm 1) for two-layer networks of
κ-homogeneous neurons, numerically (the paper's §2 and App. B).

A network is a single (no run dims) :class:`~lrlib.models.TwoLayer` ``f(x) = Σ_i a_i σ(w_iᵀx)``;
neuron ``i`` is ``θ_i = (w_i, a_i)`` (row ``i`` of ``W1`` ⊕ column ``i`` of ``W2``).  An optional
``mask`` ``(m, d)`` fixes entries of ``W1`` at zero (e.g. a diagonal linear network: ``w_i ∝ e_i``).

Conventions.  The loss is any :class:`~lrlib.losses.Loss` on the data ``(X, y)``; the *utility* of a
dormant neuron is the directional derivative ``U_i(θ_i) = −⟨∇_f L(f_A), f_i(·; θ_i)⟩``, which for
``L = ½ mean ‖f − y‖²`` is the paper's ``E⟨f_i(x), r_A(x)⟩``.  Time is accelerated time ``τ = t/η``:

* directional flow  ``dθ̄_i/dτ = η ‖θ_i‖^{κ−2} P⊥ ∇U_i(θ̄_i)``;
* accumulated utility ``dS_i/dτ = κ Ū_i(θ̄_i)``;
* norm ``κ = 2: ‖θ_i‖ = ‖θ_i(τ_k)‖ e^{η ΔS_i}``; ``κ > 2: ‖θ_i‖^{2−κ} = ‖θ_i(τ_k)‖^{2−κ} − (κ−2) η ΔS_i``;
* jump: the first dormant neuron(s) to reach norm 1 (ties: every neuron that crosses in the same
  integration step) join the active set; cost minimisation (``cost_fn``, instantaneous in ``τ``)
  moves only the active neurons; active neurons whose norm falls below ``dormant_tol`` return to
  dormancy (with their direction and norm; their ``S`` continues from where it is);
* limitation: after a return to dormancy the time to reactivate is set by the direction's offset
  from the unstable point of the new utility, which for κ = 2 is ``O(α⁴)`` (e.g. DLN), below float64
  resolution on the unit sphere: the order and the levels are right, that jump time is not
  (use the closed forms of :mod:`.dln` there);
* termination: no dormant neuron, ``τ > tau_max`` or ``max_iter`` iterations.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import torch
from scipy.integrate import solve_ivp

from ...errors import ParameterError
from ...losses import Loss
from ...models import TwoLayer, activation, forward
from ...trajectory import Trajectory

Tensor = torch.Tensor


def step_at(tau: np.ndarray, values: np.ndarray, times: np.ndarray) -> np.ndarray:
    """A staircase (AGF's loss levels, or anything else held between jumps) read at given times.

    Parameters
    ----------
    tau : ndarray
        ``(K+1,)`` the jump times, ascending (``tau[0]`` the start).
    values : ndarray
        ``(K+1, ...)`` the value in force from each jump on.
    times : ndarray
        ``(T,)`` where to read it; times before ``tau[0]`` get ``values[0]``.

    Returns
    -------
    np.ndarray
        ``(T, ...)``.
    """
    k = np.searchsorted(tau, np.asarray(times, dtype=float), side="right") - 1
    return values[np.clip(k, 0, len(values) - 1)]


@dataclass
class AGFRun:
    """Output of :func:`agf`.

    Parameters
    ----------
    tau : ndarray
        ``(K+1,)`` jump times in accelerated time ``τ = t/η`` (``tau[0] = 0``).
    levels : ndarray
        ``(K+1,)`` the loss of the active network after each jump (``levels[0]`` at init with every
        neuron removed).
    nets : list[TwoLayer]
        ``K+1`` TwoLayer, the active network after each jump (dormant neurons zeroed).
    order : list[list[int]]
        the neurons activated at each jump.
    returned : list[list[int]]
        the neurons that went back to dormancy at each jump.
    hist : dict[str, ndarray], optional
        utility-phase samples ``t (T,)``, ``S (T, m)`` accumulated utility, ``norm (T, m)``,
        ``U (T, m)`` normalised utility, ``dormant (T, m)``.
    """

    tau: np.ndarray
    levels: np.ndarray
    nets: list[TwoLayer]
    order: list[list[int]]
    returned: list[list[int]]
    hist: dict[str, np.ndarray] = field(default_factory=dict)

    def loss_at(self, times: np.ndarray) -> np.ndarray:
        """AGF's staircase evaluated at given accelerated times.

        Parameters
        ----------
        times : ndarray
            ``(T,)`` accelerated times ``τ = t/η`` (before ``tau[0]``: the level at init).

        Returns
        -------
        np.ndarray
            ``(T,)`` the level in force at each time.
        """
        return step_at(self.tau, self.levels, times)


def split(p: TwoLayer) -> Tensor:
    """Neuron vectors of a single bias-free network.

    Parameters
    ----------
    p : TwoLayer
        a TwoLayer without run dimensions or biases, ``W1 (m, d)``, ``W2 (k, m)``.

    Returns
    -------
    Tensor
        ``θ (m, d + k)``, row ``i`` = ``(w_i, a_i)``.
    """
    if p.b1 is not None or p.b2 is not None or p.runs:
        raise ParameterError("agf: a single bias-free TwoLayer is needed")
    return torch.cat([p.W1, p.W2.T], -1)


def join(theta: Tensor, d: int, act: str) -> TwoLayer:
    """Inverse of :func:`split`.

    Parameters
    ----------
    theta : Tensor
        ``(m, d + k)`` neuron vectors.
    d : int
        the input dimension.
    act : str
        the activation name.

    Returns
    -------
    TwoLayer
    """
    return TwoLayer(W1=theta[:, :d].clone(), W2=theta[:, d:].T.clone(), act=act)


def neuron_outputs(theta: Tensor, X: Tensor, d: int, act: str) -> Tensor:
    """Each neuron's output ``a_i σ(w_iᵀx)``.

    Parameters
    ----------
    theta : Tensor
        ``(m, d + k)`` neuron vectors.
    X : Tensor
        ``(n, d)`` inputs.
    d : int
        the input dimension.
    act : str
        the activation name.

    Returns
    -------
    Tensor
        ``(n, m, k)``.
    """
    return activation(act)(X @ theta[:, :d].T).unsqueeze(-1) * theta[:, d:].unsqueeze(0)


def utilities(theta: Tensor, X: Tensor, G: Tensor, d: int, act: str) -> Tensor:
    """Utilities ``U_i = −⟨G, f_i⟩`` of the neurons.

    Parameters
    ----------
    theta : Tensor
        ``(m, d + k)`` neuron vectors.
    X : Tensor
        ``(n, d)`` inputs.
    G : Tensor
        ``(n, k)`` ``∇_f L(f_A)``, the loss gradient at the active network's outputs.
    d : int
        the input dimension.
    act : str
        the activation name.

    Returns
    -------
    Tensor
        ``(m,)``.
    """
    return -torch.einsum("nk,nmk->m", G, neuron_outputs(theta, X, d, act))


def loss_gradient(net: TwoLayer, X: Tensor, y: Tensor, loss: Loss) -> tuple[Tensor, Tensor]:
    """Loss of the active network and its gradient in the outputs.

    Parameters
    ----------
    net : TwoLayer
        the active network (TwoLayer).
    X : Tensor
        ``(n, d)`` inputs; the active network's outputs are ``(n, k)``.
    y : Tensor
        ``(n, k)`` targets.
    loss : Loss
        the :class:`~lrlib.losses.Loss`.

    Returns
    -------
    (Tensor, Tensor)
        ``L(f_A)`` (scalar) and ``∇_f L(f_A)`` ``(n, k)``.
    """
    pred = forward(net, X).detach().requires_grad_(True)
    L = loss(pred, y)
    (G,) = torch.autograd.grad(L, pred)
    return L.detach(), G


def agf(
    p0: TwoLayer,
    X: Tensor,
    y: Tensor,
    *,
    loss: Loss,
    kappa: float,
    eta: float,
    cost_fn: Callable[[TwoLayer], Trajectory],
    mask: Tensor | None = None,
    max_iter: int = 50,
    tau_max: float = math.inf,
    dtau_max: float = 1e-2,
    dir_step: float = 0.02,
    dormant_tol: float | None = None,
    record_every: int = 1,
    max_returns: int = 5,
) -> AGFRun:
    """Run AGF (Algorithm 1) from ``p0`` (see the module docstring).

    Integration: Heun's method in ``τ`` with step ``min(dtau_max, dir_step / max angular speed)``,
    shortened to land exactly on the first threshold.  Active neurons whose norm falls below
    ``dormant_tol`` during a cost phase return to dormancy (with the norm and direction they had when
    the cost phase began, i.e. ``S_i = c_i/η``) and the cost phase restarts without them.

    Parameters
    ----------
    p0 : TwoLayer
        the initial network, a single bias-free TwoLayer ``W1 (m, d)``, ``W2 (k, m)``; every neuron must
        have norm ``‖θ_i(0)‖ < 1`` (else :class:`~lrlib.errors.ParameterError`: its jump condition would
        already hold and the jump times come out negative).
    X : Tensor
        ``(n, d)`` inputs.
    y : Tensor
        ``(n, k)`` targets.
    loss : Loss
        the :class:`~lrlib.losses.Loss`.
    kappa : float
        the neurons' homogeneity degree ``κ ≥ 2``.
    eta : float
        the acceleration ``η_α`` (accelerated time ``τ = t/η``).
    cost_fn : callable
        ``cost_fn(active_net) -> Trajectory`` minimising the loss over the active neurons (a
        TwoLayer holding only them), e.g. with :func:`lrlib.train.train`.
    mask : Tensor or None, optional
        optional ``(m, d)`` mask fixing entries of ``W1`` at zero.
    max_iter : int, optional
        most jumps.
    tau_max : float, optional
        stop after this accelerated time.
    dtau_max : float, optional
        largest integration step in ``τ``.
    dir_step : float, optional
        largest angle (radians) a direction turns in one step.
    dormant_tol : float or None, optional
        norm below which an active neuron returns to dormancy (default ``10 × max ‖θ(0)‖``).
    record_every : int, optional
        record the utility phase every this many steps.
    max_returns : int, optional
        most restarts of one cost phase after returns to dormancy.

    Returns
    -------
    AGFRun
    """
    if kappa < 2:
        raise ParameterError(f"agf needs κ ≥ 2 (homogeneous neurons), got {kappa}")
    d = p0.in_dim
    theta0 = split(p0).clone()
    m = theta0.shape[0]
    Mfull = torch.ones_like(theta0)
    if mask is not None:
        Mfull[:, :d] = mask.to(theta0.dtype)
        theta0 = theta0 * Mfull
    norm = torch.linalg.vector_norm(theta0, dim=-1)
    if bool((norm >= 1).any()):
        i = int(norm.argmax())
        raise ParameterError(
            f"agf needs a small initialisation: every neuron must start with norm ‖θ_i(0)‖ < 1 (its jump threshold), "
            f"but neuron {i} has norm {float(norm[i]):.4g}; at norm ≥ 1 the jump condition already holds at τ = 0 "
            f"and the jump times would come out negative")
    tbar = theta0 / norm.unsqueeze(-1)
    dormant_tol = float(10 * norm.max()) if dormant_tol is None else dormant_tol
    active = torch.zeros(m, dtype=torch.bool)
    theta_A = torch.zeros_like(theta0)
    S = torch.zeros(m, dtype=theta0.dtype)
    t = 0.0
    act = p0.act
    L0, G = loss_gradient(join(theta_A, d, act), X, y, loss)
    tau, levels, nets, order, returned = [0.0], [float(L0)], [join(theta_A, d, act)], [], []
    H = {k: [] for k in ("t", "S", "norm", "U", "dormant")}
    step = 0

    def field(tb: Tensor, dorm: Tensor) -> tuple[Tensor, Tensor]:
        """Normalised utilities ``(m,)`` and their tangential gradients ``(m, D)`` at directions ``tb``."""
        tb = tb.clone().requires_grad_(True)
        U = utilities(tb, X, G, d, act)
        (gU,) = torch.autograd.grad(U[dorm].sum(), tb)
        gU = gU * Mfull
        tb = tb.detach()
        return U.detach(), gU - (gU * tb).sum(-1, keepdim=True) * tb

    def record(U: Tensor) -> None:
        H["t"].append(t)
        H["S"].append(S.clone())
        H["norm"].append(torch.where(active, torch.linalg.vector_norm(theta_A, dim=-1), norm))
        H["U"].append(U.detach().clone())
        H["dormant"].append(~active)

    for _ in range(max_iter):
        if active.all() or t > tau_max:
            break
        # ---- utility maximisation --------------------------------------------------
        jumped = None
        while t <= tau_max:
            dorm = ~active
            U, tang = field(tbar, dorm)
            speed = eta * norm ** (kappa - 2) * torch.linalg.vector_norm(tang, dim=-1)
            growth = kappa * U                                   # dS/dτ
            if kappa == 2:
                left = torch.where(growth > 0, -torch.log(norm) / (eta * growth), math.inf)
            else:
                left = torch.where(growth > 0, (norm ** (2 - kappa) - 1) / ((kappa - 2) * eta * growth), math.inf)
            left = torch.where(dorm, left, math.inf)
            sp = float(speed[dorm].max())
            dt = min(dtau_max, dir_step / sp if sp > 0 else math.inf)
            lmin = float(left.min())
            if lmin <= dt:
                dt = lmin * (1 + 1e-12)                          # land on the threshold
            if step % record_every == 0:
                record(torch.where(dorm, U, 0.0))
            step += 1
            # Heun step (dormant neurons only): predictor, then the average of both slopes
            rate = eta * (norm ** (kappa - 2)).unsqueeze(-1)
            pred = tbar + dt * rate * tang
            pred = pred / torch.linalg.vector_norm(pred, dim=-1, keepdim=True)
            U2, tang2 = field(pred, dorm)
            new_tbar = tbar + dt * rate * 0.5 * (tang + tang2)
            new_tbar = new_tbar / torch.linalg.vector_norm(new_tbar, dim=-1, keepdim=True)
            dS = dt * kappa * 0.5 * (U + U2)
            if kappa == 2:
                new_norm = norm * torch.exp(eta * dS)
            else:
                base = norm ** (2 - kappa) - (kappa - 2) * eta * dS
                new_norm = torch.where(base > 0, base.clamp_min(1e-300) ** (1 / (2 - kappa)), math.inf)
            tbar = torch.where(dorm.unsqueeze(-1), new_tbar, tbar)
            norm = torch.where(dorm, new_norm, norm)
            S = torch.where(dorm, S + dS, S)
            t += dt
            cross = dorm & (norm >= 1 - 1e-9)
            if cross.any():
                jumped = torch.nonzero(cross).flatten()
                break
        if jumped is None:
            break
        # ---- activation and cost minimisation ----------------------------------------
        for i in jumped.tolist():
            theta_A[i] = tbar[i] * norm[i].clamp(max=1.0)
        active[jumped] = True
        back_all: list[int] = []
        start = theta_A.clone()
        for _round in range(max_returns + 1):
            idx = torch.nonzero(active).flatten()
            if idx.numel() == 0:
                break
            traj = cost_fn(join(theta_A[idx], d, act))
            th = torch.cat([traj.params.W1, traj.params.W2.transpose(-1, -2)], -1) * Mfull[idx]   # (T, |A|, D)
            nrm = torch.linalg.vector_norm(th, dim=-1)
            low = (nrm < dormant_tol).any(-1)
            if not low.any():
                theta_A[idx] = th[-1]
                break
            j = int(torch.nonzero(low)[0])                       # first snapshot with a collapsing neuron
            theta_A[idx] = th[j]
            back = idx[nrm[j] < dormant_tol]
            for i in back.tolist():                              # return to dormancy (S_i = c_i/η: back at its
                n0 = float(torch.linalg.vector_norm(start[i]))    # pre-collapse norm and direction)
                norm[i] = min(n0, 1.0)
                tbar[i] = start[i] / n0
                theta_A[i] = 0
            active[back] = False
            back_all += back.tolist()
        L, G = loss_gradient(join(theta_A, d, act), X, y, loss)
        tau.append(t)
        levels.append(float(L))
        nets.append(join(theta_A, d, act))
        order.append(jumped.tolist())
        returned.append(back_all)
    record(torch.zeros(m, dtype=theta0.dtype))
    hist = {k: torch.stack(v).numpy() if k != "t" else np.array(v) for k, v in H.items()}
    return AGFRun(np.array(tau), np.array(levels), nets, order, returned, hist)


def conserved(p: TwoLayer, kappa: float) -> Tensor:
    """The per-neuron conserved quantity of gradient flow ``(κ−1)‖a_i‖² − ‖w_i‖²``.

    Parameters
    ----------
    p : TwoLayer
        a TwoLayer (any leading dims).
    kappa : float
        the homogeneity degree.

    Returns
    -------
    Tensor
        ``(..., m)``.
    """
    return (kappa - 1) * p.norms_out() ** 2 - p.norms_in() ** 2


def conserved_drift(p: TwoLayer, kappa: float, ref: int = -1) -> float:
    """The largest drift of :func:`conserved` along a trajectory, relative to the largest squared
    neuron norm at snapshot ``ref``.

    Parameters
    ----------
    p : TwoLayer
        a TwoLayer with a leading snapshot dimension ``(T, R..., …)``.
    kappa : float
        the homogeneity degree.
    ref : int, optional
        the snapshot whose largest ``‖θ_i‖²`` sets the scale.

    Returns
    -------
    float
        ``max |c_i(t) − c_i(0)| / max_i ‖θ_i(t_ref)‖²`` over snapshots, runs and neurons (0 for the flow).
    """
    c = conserved(p, kappa)
    return float((c - c[0]).abs().max() / (p.neuron_vectors()[ref] ** 2).sum(-1).max())


def utility_flow(theta0: Tensor, X: Tensor, G: Tensor, d: int, act: str, t_eval: np.ndarray,
                 mask: Tensor | None = None, rtol: float = 1e-10, stop_norm: float | None = None) -> np.ndarray:
    """Gradient flow of one neuron's utility, ``dθ/dt = ∇_θ U(θ)`` (Eq. 2 with η = 1 and a frozen residual),
    by ``scipy.integrate.solve_ivp`` (DOP853, absolute tolerance ``1e-12 ‖θ0‖``).

    Parameters
    ----------
    theta0 : Tensor
        ``(D,)`` the initial neuron, ``D = d + k``.
    X : Tensor
        ``(n, d)`` inputs.
    G : Tensor
        ``(n, k)`` the frozen ``∇_f L(f_A)``.
    d : int
        the input dimension.
    act : str
        the activation name.
    t_eval : ndarray
        ``(T,)`` raw times to record.
    mask : Tensor or None, optional
        optional ``(D,)`` mask on ``θ``.
    rtol : float, optional
        relative tolerance.
    stop_norm : float or None, optional
        stop where ``‖θ‖`` first reaches it (the last row is then the state at that moment).

    Returns
    -------
    np.ndarray
        ``θ(t)`` ``(T', D)``, ``T' ≤ T`` (+1 with ``stop_norm``).
    """
    M = torch.ones_like(theta0) if mask is None else mask

    def rhs(_, th):
        tb = torch.tensor(th, dtype=theta0.dtype).unsqueeze(0).requires_grad_(True)
        (g,) = torch.autograd.grad(utilities(tb, X, G, d, act).sum(), tb)
        return (g[0] * M).numpy()

    events = None
    if stop_norm is not None:
        def hit(_, th):
            return float(np.linalg.norm(th)) - stop_norm
        hit.terminal = True
        events = hit
    sol = solve_ivp(rhs, (0.0, float(t_eval[-1])), theta0.numpy(), method="DOP853", t_eval=t_eval,
                    rtol=rtol, atol=1e-12 * float(theta0.norm()), events=events)
    out = sol.y.T
    if stop_norm is not None and sol.status == 1:
        out = np.concatenate([out, sol.y_events[0][:1]])
    return out


def norm_bound_slack(p: TwoLayer, kappa: float) -> float:
    """App. B.3's bound ``‖θ_i‖² ≥ |c_i| / max(1, κ−1)`` (``c_i`` of :func:`conserved`) checked over every
    neuron, snapshot and run.

    Parameters
    ----------
    p : TwoLayer
        a TwoLayer (any leading dims, e.g. a trajectory's snapshots and runs).
    kappa : float
        the homogeneity degree.

    Returns
    -------
    float
        The largest ``(|c_i|/max(1, κ−1) − ‖θ_i‖²) / ‖θ_i‖²`` (≤ 0 when the bound holds).
    """
    n2 = p.norms_out() ** 2 + p.norms_in() ** 2
    return float(((conserved(p, kappa).abs() / max(1.0, kappa - 1) - n2) / n2).max())
