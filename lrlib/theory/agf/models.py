"""The chapter's models as :class:`~lrlib.models.TwoLayer` networks, so that ONE loop
(:func:`lrlib.train.train`) trains them all.

* DLN ``β = u ⊙ v``: ``act="linear"``, ``W1 = diag(u)`` ``(R..., d, d)``, ``W2 = vᵀ`` ``(R..., 1, d)``; the
  gradient :func:`dln_grad` keeps ``W1`` diagonal (a masked, closed-form gradient).
* FC linear ``AW``: ``act="linear"``, ``W1 = W``, ``W2 = A``; on the *population design*
  (:func:`lrlib.theory.agf.linear.population_design`) the mean loss is the population loss.
* Modular addition: ``act="square"``, ``W1 = [U, V]`` ``(H, 2p)``, ``W2 = Wᵀ`` ``(p, H)``.
* Attention heads ``V_h (zᵀK_h)(Q_hᵀx_q)``: by polarisation ``4 (zᵀK)(Qᵀx) = (zᵀK + xᵀQ)² − (zᵀK − xᵀQ)²``
  each head is a *tied pair* of square neurons on the input ``(z, x_q)``: rows ``(K_h, Q_h)`` and
  ``(K_h, −Q_h)`` of ``W1`` with output weights ``±V_h/4``.  :func:`heads_grad` is the gradient in
  ``(K, Q, V)`` mapped onto the pair, so GD keeps the tie exactly and is GD on ``(K, Q, V)``.
"""

from __future__ import annotations

import torch

from ...errors import ParameterError
from ...integrate import FlowResult, integrate
from ...losses import Loss, half_mse
from ...models import TwoLayer, forward

Tensor = torch.Tensor


def dln_params(u: Tensor, v: Tensor) -> TwoLayer:
    """The diagonal linear network ``β = u ⊙ v`` as a TwoLayer (``W1 = diag(u)``, ``W2 = vᵀ``).

    Parameters
    ----------
    u, v : Tensor
        ``(R..., d)``.

    Returns
    -------
    TwoLayer
        ``W1 (R..., d, d)``, ``W2 (R..., 1, d)``, linear activation.
    """
    return TwoLayer(W1=torch.diag_embed(u), W2=v.unsqueeze(-2), act="linear")


def dln_beta(p: TwoLayer) -> Tensor:
    """The DLN's coefficients ``β = u ⊙ v``.

    Parameters
    ----------
    p : TwoLayer
        a DLN from :func:`dln_params` (any leading dims).

    Returns
    -------
    Tensor
        ``(..., d)``.
    """
    return torch.diagonal(p.W1, dim1=-2, dim2=-1) * p.W2[..., 0, :]


def dln_grad(p: TwoLayer, X: Tensor, y: Tensor) -> dict[str, Tensor]:
    """Closed-form gradient of ``½ mean (Xβ − y)²`` in ``(u, v)``, keeping ``W1`` diagonal.

    Parameters
    ----------
    p : TwoLayer
        a DLN from :func:`dln_params` (``R...`` runs).
    X : Tensor
        ``(n, d)`` inputs; the runs broadcast.
    y : Tensor
        ``(n,)`` targets.

    Returns
    -------
    dict
        ``{"W1": (R..., d, d) diagonal, "W2": (R..., 1, d)}``.
    """
    u = torch.diagonal(p.W1, dim1=-2, dim2=-1)
    v = p.W2[..., 0, :]
    r = (X * (u * v).unsqueeze(-2)).sum(-1) - y                 # (R..., n)
    g = (r.unsqueeze(-1) * X).mean(-2)                          # ∇_β L (R..., d)
    return {"W1": torch.diag_embed(g * v), "W2": (g * u).unsqueeze(-2)}


def dln_flow(X: Tensor, y: Tensor, u0: Tensor, v0: Tensor, times, *, rtol: float = 1e-10,
             atol: float = 1e-20, max_evals: int = 2_000_000) -> FlowResult:
    """Gradient *flow* of ``½ mean (Xβ − y)²`` in ``(u, v)`` (``β = u ⊙ v``), by
    :func:`lrlib.integrate.integrate` with the closed-form :func:`dln_grad`.

    Parameters
    ----------
    X : Tensor
        ``(n, d)`` inputs.
    y : Tensor
        ``(n,)`` targets.
    u0, v0 : Tensor
        ``(R..., d)`` the initialisation.
    times : array_like
        ``(T,)`` raw flow times to record.
    rtol : float, optional
        relative tolerance of the integrator.
    atol : float, optional
        absolute tolerance; it sits far below the smallest initial scale (``α ≥ 1e-16`` gives
        ``u0 ≈ 1.4e-16``).
    max_evals : int, optional
        most gradient evaluations allowed.

    Returns
    -------
    FlowResult
        States ``u``, ``v`` ``(T, R..., d)``, loss ``(T, R...)``, gradient evaluations.
    """
    loss = half_mse()

    def loss_fn(th: dict[str, Tensor]) -> Tensor:
        return loss(forward(dln_params(th["u"], th["v"]), X), y)

    def value_and_grad(th: dict[str, Tensor]) -> tuple[Tensor, dict[str, Tensor]]:
        p = dln_params(th["u"], th["v"])
        g = dln_grad(p, X, y)
        return loss(forward(p, X), y), {"u": torch.diagonal(g["W1"], dim1=-2, dim2=-1), "v": g["W2"][..., 0, :]}

    return integrate(loss_fn, {"u": u0, "v": v0}, times, rtol=rtol, atol=atol, max_evals=max_evals,
                     value_and_grad=value_and_grad)


def dln_mask(d: int, dtype: torch.dtype = torch.float64) -> Tensor:
    """The ``W1`` mask of a DLN (the identity).

    Parameters
    ----------
    d : int
        the dimension.
    dtype : torch.dtype, optional
        the mask's dtype.

    Returns
    -------
    Tensor
        ``(d, d)``.
    """
    return torch.eye(d, dtype=dtype)


def heads_params(V: Tensor, K: Tensor, Q: Tensor) -> TwoLayer:
    """Attention heads as tied pairs of square neurons (``2H`` neurons on ``2d`` inputs).

    Parameters
    ----------
    V : Tensor
        ``(R..., H)`` value scalars.
    K, Q : Tensor
        ``(R..., H, d)`` key and query vectors.

    Returns
    -------
    TwoLayer
        ``W1 (R..., 2H, 2d)``, ``W2 (R..., 1, 2H)``, square activation.
    """
    W1 = torch.cat([torch.cat([K, Q], -1), torch.cat([K, -Q], -1)], -2)
    W2 = torch.cat([V / 4, -V / 4], -1).unsqueeze(-2)
    return TwoLayer(W1=W1, W2=W2, act="square")


def heads_of(p: TwoLayer) -> tuple[Tensor, Tensor, Tensor]:
    """Inverse of :func:`heads_params`.

    Parameters
    ----------
    p : TwoLayer
        tied heads from :func:`heads_params` (any leading dims).

    Returns
    -------
    (Tensor, Tensor, Tensor)
        ``V (..., H)``, ``K (..., H, d)``, ``Q (..., H, d)``.
    """
    H = p.W1.shape[-2] // 2
    d = p.W1.shape[-1] // 2
    return 4 * p.W2[..., 0, :H], p.W1[..., :H, :d], p.W1[..., :H, d:]


def heads_gamma(p: TwoLayer) -> Tensor:
    """The heads' combined matrix ``Γ = Σ_h V_h K_h Q_hᵀ``.

    Parameters
    ----------
    p : TwoLayer
        tied heads from :func:`heads_params`.

    Returns
    -------
    Tensor
        ``(..., d, d)``.
    """
    V, K, Q = heads_of(p)
    return torch.einsum("...h,...hi,...hj->...ij", V, K, Q)


def heads_grad_fn(loss: Loss):
    """A ``grad_fn`` for :func:`lrlib.train.train`: autograd in ``(V, K, Q)``, mapped onto the tied pairs.

    Parameters
    ----------
    loss : Loss
        the :class:`~lrlib.losses.Loss`.

    Returns
    -------
    callable
        ``grad(p, X, y) -> {"W1", "W2"}`` gradients of the tied network's parameters.
    """

    def grad(p: TwoLayer, X: Tensor, y: Tensor) -> dict[str, Tensor]:
        with torch.enable_grad():                  # train() calls grad_fn under no_grad
            V, K, Q = (t.detach().clone().requires_grad_(True) for t in heads_of(p))
            L = loss(forward(heads_params(V, K, Q), X), y).sum()
            gV, gK, gQ = torch.autograd.grad(L, (V, K, Q))
        W1 = torch.cat([torch.cat([gK, gQ], -1), torch.cat([gK, -gQ], -1)], -2)
        W2 = torch.cat([gV / 4, -gV / 4], -1).unsqueeze(-2)
        return {"W1": W1, "W2": W2}

    return grad


def modular_params(U: Tensor, V: Tensor, W: Tensor) -> TwoLayer:
    """The quadratic network ``Σ_i w_i (⟨u_i, a·x⟩ + ⟨v_i, b·x⟩)²`` as a TwoLayer.

    Parameters
    ----------
    U, V, W : Tensor
        ``(R..., H, p)`` input blocks and output weights.

    Returns
    -------
    TwoLayer
        ``W1 = [U, V] (R..., H, 2p)``, ``W2 = Wᵀ (R..., p, H)``, square activation.
    """
    return TwoLayer(W1=torch.cat([U, V], -1), W2=W.transpose(-1, -2), act="square")


def masked_grad_fn(loss: Loss, mask: Tensor):
    """A ``grad_fn`` for :func:`lrlib.train.train`: autograd, with the ``W1`` gradient multiplied by a mask
    (entries fixed at zero stay zero; e.g. the active neurons of a DLN).

    Parameters
    ----------
    loss : Loss
        the :class:`~lrlib.losses.Loss`.
    mask : Tensor
        ``(m, d)`` or broadcastable to ``W1``.

    Returns
    -------
    callable
        ``grad(p, X, y) -> {"W1", "W2"}``.
    """

    def grad(p: TwoLayer, X: Tensor, y: Tensor) -> dict[str, Tensor]:
        with torch.enable_grad():
            W1, W2 = p.W1.detach().clone().requires_grad_(True), p.W2.detach().clone().requires_grad_(True)
            L = loss(forward(TwoLayer(W1=W1, W2=W2, act=p.act), X), y).sum()
            g1, g2 = torch.autograd.grad(L, (W1, W2))
        return {"W1": g1 * mask, "W2": g2}

    return grad


def square_grad(p: TwoLayer, X: Tensor, y: Tensor) -> dict[str, Tensor]:
    """Closed-form gradient of ``½ mean_j ‖f(x_j) − y_j‖²`` for a bias-free square-activation TwoLayer.

    Parameters
    ----------
    p : TwoLayer
        ``W1 (R..., m, d)``, ``W2 (R..., k, m)``.
    X : Tensor
        ``(n, d)`` inputs.
    y : Tensor
        ``(n, k)`` targets.

    Returns
    -------
    dict
        ``{"W1": (R..., m, d), "W2": (R..., k, m)}``.
    """
    pre = X @ p.W1.transpose(-1, -2)                            # (R..., n, m)
    h = pre * pre
    r = (h @ p.W2.transpose(-1, -2) - y) / X.shape[-2]          # (R..., n, k)
    gW2 = r.transpose(-1, -2) @ h                               # (R..., k, m)
    gpre = 2 * pre * (r @ p.W2)                                 # (R..., n, m)
    return {"W1": gpre.transpose(-1, -2) @ X, "W2": gW2}


def square_hessian(p: TwoLayer, X: Tensor, y: Tensor) -> Tensor:
    """Closed-form Hessian of ``½ mean_j ‖f(x_j) − y_j‖²`` for one bias-free square-activation TwoLayer.

    With ``pre = X W1ᵀ``, ``h = pre²``, ``e = h W2ᵀ − y`` and ``G = W2ᵀW2``, over ``n`` rows:
    ``∂²/∂W1_i∂W1_k = (2/n) δ_ik Σ_j (e_j·W2[:, i]) z_j z_jᵀ + (4/n) G_ik Σ_j pre_ji pre_jk z_j z_jᵀ``,
    ``∂²/∂W1_i∂W2[o, k] = (2/n) Σ_j pre_ji z_j (δ_ik e_jo + h_jk W2[o, i])`` and
    ``∂²/∂W2[o, i]∂W2[o', k] = δ_oo' (1/n) Σ_j h_ji h_jk`` (tested against autograd).

    Parameters
    ----------
    p : TwoLayer
        ``W1 (m, d)``, ``W2 (k, m)`` (no run dimensions).
    X : Tensor
        ``(n, d)`` inputs.
    y : Tensor
        ``(n, k)`` targets.

    Returns
    -------
    Tensor
        ``(P, P)`` with ``P = m·d + k·m``, in the order of ``W1`` then ``W2``, each flattened row-major
        (the order :func:`lrlib.integrate.flow` uses).
    """
    W1, W2 = p.W1, p.W2
    if W1.dim() != 2:
        raise ParameterError(f"square_hessian takes one network without run dimensions, got W1 {tuple(W1.shape)}")
    (n, d), (k, m) = X.shape, W2.shape
    pre = X @ W1.T                                                 # (n, m)
    h = pre * pre
    e = h @ W2.T - y                                               # (n, k)
    zz = (X.unsqueeze(-1) * X.unsqueeze(-2)).reshape(n, d * d)     # (n, d²)
    pp = (pre.unsqueeze(-1) * pre.unsqueeze(-2)).reshape(n, m * m)
    H11 = (4 / n) * ((pp.T @ zz).reshape(m, m, d, d) * (W2.T @ W2)[:, :, None, None])
    diag = (2 / n) * ((e @ W2).T @ zz).reshape(m, d, d)            # Σ_j (e_j·W2[:, i]) z z ᵀ
    H11[torch.arange(m), torch.arange(m)] += diag
    H11 = H11.permute(0, 2, 1, 3).reshape(m * d, m * d)
    pz = pre.unsqueeze(-1) * X.unsqueeze(-2)                       # (n, m, d): pre_ji z_j
    H12 = torch.zeros(m, d, k, m, dtype=X.dtype)
    H12[torch.arange(m), :, :, torch.arange(m)] = (2 / n) * torch.einsum("jia,jo->iao", pz, e)
    H12 += (2 / n) * torch.einsum("jia,jk,oi->iaok", pz, h, W2)
    H22 = torch.kron(torch.eye(k, dtype=X.dtype), (h.T @ h) / n)  # (k·m, k·m)
    H12 = H12.reshape(m * d, k * m)
    return torch.cat([torch.cat([H11, H12], 1), torch.cat([H12.T, H22], 1)], 0)



def max_hessian_eigenvalue(p: TwoLayer, X: Tensor, y: Tensor) -> float:
    """The largest eigenvalue of :func:`square_hessian` over a batch of runs.

    Parameters
    ----------
    p : TwoLayer
        a square-activation TwoLayer with one leading run dimension ``(R, …)``.
    X, y : Tensor
        the data (as :func:`square_hessian`).

    Returns
    -------
    float
        ``max_r λ_max(∇²L(θ_r))`` (loss units per squared parameter).
    """
    return max(float(torch.linalg.eigvalsh(square_hessian(p[r], X, y))[-1])
               for r in range(p.W1.shape[0]))

def modular_grad_fn(p: int):
    """A fast ``grad_fn`` for the modular-addition network on the full dataset of
    :func:`lrlib.theory.agf.modular.dataset` (all ``p²`` pairs ``(a, b)``, row ``a·p + b``).

    The rows of ``X`` are shifts of one template, so ``pre_i(a, b) = A_i[a] + B_i[b]`` with
    ``A = (a·x)ᵀU`` and ``B = (b·x)ᵀV``, and ``∇U_i = Σ_a (Σ_b ∂pre_i) (a·x)`` (likewise ``V``): the
    ``p² × 2p`` products of :func:`square_grad` shrink to ``p × p``.  Equal to :func:`square_grad`
    to rounding (unit test).

    Parameters
    ----------
    p : int
        the modulus; the returned function checks that ``X`` is ``(p², 2p)``.

    Returns
    -------
    callable
        ``grad_fn(net, X, y) -> {"W1": (R..., m, 2p), "W2": (R..., p, m)}`` (gradient of
        ``½ mean_j ‖f(x_j) − y_j‖²``); the shifts are read from ``X[:p, p:]`` (rows ``a = 0``… are
        ``(0·x, b·x)``, so ``X[b, p:]`` is ``b·x``).
    """

    def grad(net: TwoLayer, X: Tensor, y: Tensor) -> dict[str, Tensor]:
        if X.shape != (p * p, 2 * p):
            raise ParameterError(f"modular_grad_fn({p}) needs the full (p², 2p) dataset, got X {tuple(X.shape)}")
        rolls = X[:p, p:]                                            # (p, p): row b is b·x
        U, V = net.W1[..., :p], net.W1[..., p:]                      # (R..., m, p)
        A, B = rolls @ U.transpose(-1, -2), rolls @ V.transpose(-1, -2)   # (R..., p, m)
        pre = (A.unsqueeze(-2) + B.unsqueeze(-3)).flatten(-3, -2)    # (R..., p², m), row a·p + b
        h = pre * pre
        r = (h @ net.W2.transpose(-1, -2) - y) / (p * p)            # (R..., p², p)
        gpre = (2 * pre * (r @ net.W2)).unflatten(-2, (p, p))        # (R..., p, p, m): [a, b, i]
        gU = gpre.sum(-2).transpose(-1, -2) @ rolls                  # (R..., m, p)
        gV = gpre.sum(-3).transpose(-1, -2) @ rolls
        return {"W1": torch.cat([gU, gV], -1), "W2": r.transpose(-1, -2) @ h}

    return grad


def heads_grad_population(Sigma: Tensor, N: int):
    """A ``grad_fn`` for tied heads (:func:`heads_params`) on the *population* loss, from
    ``∇_Γ L = −NΣ² + M_zz Γ Σ`` by the chain rule (the data argument is ignored; the loss that
    :func:`lrlib.train.train` records comes from the population design, which has the same gradient).

    Parameters
    ----------
    Sigma : Tensor
        ``(d, d)`` the input covariance.
    N : int
        the context length.

    Returns
    -------
    callable
        ``grad(p, X, y) -> {"W1", "W2"}``.
    """
    Mzz = N * (N + 1) * Sigma @ Sigma + N * torch.trace(Sigma) * Sigma
    S2 = N * Sigma @ Sigma

    def grad(p: TwoLayer, X: Tensor, y: Tensor) -> dict[str, Tensor]:
        V, K, Q = heads_of(p)
        Gm = torch.einsum("...h,...hi,...hj->...ij", V, K, Q)
        D = -S2 + Mzz @ Gm @ Sigma                              # ∇_Γ L (R..., d, d)
        gV = torch.einsum("...hi,...ij,...hj->...h", K, D, Q)
        gK = V.unsqueeze(-1) * torch.einsum("...ij,...hj->...hi", D, Q)
        gQ = V.unsqueeze(-1) * torch.einsum("...ij,...hi->...hj", D, K)
        W1 = torch.cat([torch.cat([gK, gQ], -1), torch.cat([gK, -gQ], -1)], -2)
        W2 = torch.cat([gV / 4, -gV / 4], -1).unsqueeze(-2)
        return {"W1": W1, "W2": W2}

    return grad


def harmonic_grad_fn(P: Tensor, grad_fn=square_grad):
    """A ``grad_fn`` for :func:`lrlib.train.train` on :func:`modular_params` networks that keeps every
    ``u_i, v_i, w_i`` in the span of the orthonormal columns of ``P`` (the gradient of ``grad_fn``
    projected on it). Started inside the span, GD stays there exactly (GD on the coefficients).

    Parameters
    ----------
    P : Tensor
        ``(p, q)`` orthonormal columns, e.g. :func:`lrlib.theory.agf.modular.harmonic_basis`.
    grad_fn : str, optional
        the unprojected gradient (default :func:`square_grad`).

    Returns
    -------
    callable
        ``grad(p, X, y) -> {"W1": (R..., H, 2p), "W2": (R..., p, H)}``.
    """
    Pr = P @ P.T                                                # (p, p) projector

    def grad(p: TwoLayer, X: Tensor, y: Tensor) -> dict[str, Tensor]:
        g = grad_fn(p, X, y)
        q = Pr.shape[0]
        W1 = torch.cat([g["W1"][..., :q] @ Pr, g["W1"][..., q:] @ Pr], -1)
        return {"W1": W1, "W2": Pr @ g["W2"]}

    return grad
