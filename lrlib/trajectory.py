"""Trajectory: what a run records (the record schedules are in :mod:`lrlib.schedules`).

A :class:`Trajectory` holds ``T`` snapshots of a :class:`~lrlib.models.TwoLayer`
stacked along a leading time axis (so ``params.W1`` is ``(T, R..., m, d)``), the
raw step numbers, the gradient-flow time of each snapshot, the full-data loss
``(T, R...)`` and the run's conventions in ``meta``.  Save/load as ``.npz``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from .errors import ParameterError
from .models import TwoLayer

Tensor = torch.Tensor


@dataclass
class Trajectory:
    """Snapshots of one (possibly batched) training run.

    Parameters
    ----------
    steps : np.ndarray
        ``(T,)`` int, optimiser step of each snapshot (0 = initialisation).
    time : np.ndarray
        ``(T,)`` float, gradient-flow time ``τ = steps · lr · meta["time_scale"]``.
    params : TwoLayer
        Tensors with a leading ``T`` axis, e.g. ``W1 (T, R..., m, d)``.
    loss : Tensor
        ``(T, R...)`` full-data training loss at each snapshot.
    meta : dict
        Run conventions (loss, lr, momentum, batch size, dtype, seed, …).
    dense_loss : Tensor or None
        Optional ``(steps+1, R...)`` loss at every step (GD only).
    """

    steps: np.ndarray
    time: np.ndarray
    params: TwoLayer
    loss: Tensor
    meta: dict = field(default_factory=dict)
    dense_loss: Tensor | None = None

    def __len__(self) -> int:
        return len(self.steps)

    @property
    def runs(self) -> tuple[int, ...]:
        """Leading run dimensions ``R...`` (empty for a single run)."""
        return tuple(self.loss.shape[1:])

    def at(self, i: int) -> TwoLayer:
        """The network at a snapshot.

        Parameters
        ----------
        i : int
            The snapshot's index in ``[0, T)`` (negative indices allowed).

        Returns
        -------
        TwoLayer
            Tensors ``(R..., …)``.
        """
        return self.params[i]

    def head(self, n: int = 1) -> "Trajectory":
        """The first ``n`` snapshots: ``head(1)`` is the run at its initial state, which a claim's
        measurement can be applied to (:meth:`lrlib.ledger.grading.Ledger.measure`, ``init=``).

        Parameters
        ----------
        n : int
            How many snapshots, ``1 ≤ n ≤ T``.

        Returns
        -------
        Trajectory
            The same runs; ``dense_loss`` is cut at the last kept step.
        """
        if not 1 <= n <= len(self):
            raise ParameterError(f"head needs 1 ≤ n ≤ {len(self)}, got {n}")
        dense = None if self.dense_loss is None else self.dense_loss[: int(self.steps[n - 1]) + 1]
        return Trajectory(self.steps[:n].copy(), self.time[:n].copy(), self.params[:n],
                          self.loss[:n], dict(self.meta), dense)

    def index_of_step(self, step: int) -> int:
        """Index of the last snapshot at or before a step.

        Parameters
        ----------
        step : int
            An optimiser step.

        Returns
        -------
        int
            The snapshot index.

        Raises
        ------
        ParameterError
            When no snapshot is at or before ``step``.
        """
        i = int(np.searchsorted(self.steps, step, side="right")) - 1
        if i < 0:
            raise ParameterError(f"no snapshot at or before step {step}")
        return i

    @property
    def final(self) -> TwoLayer:
        """The network at the last snapshot."""
        return self.at(-1)

    def run(self, *idx: int | slice) -> "Trajectory":
        """The trajectory of one run, or of a slice of runs, of a batched trajectory.

        Parameters
        ----------
        *idx : int or slice
            Indices into the run dimensions ``R...``: ints pick one run (``meta["run_index"]`` records
            them), slices keep a run axis (e.g. ``run(slice(0, 5))``: the first five runs).

        Returns
        -------
        Trajectory
            The same snapshots, tensors ``(T, …)`` of the selected run(s).
        """
        sl = (slice(None), *idx)
        ints = all(isinstance(i, (int, np.integer)) for i in idx)
        return Trajectory(
            steps=self.steps, time=self.time, params=self.params[sl],
            loss=self.loss[sl], meta=dict(self.meta, run_index=[int(i) for i in idx]) if ints else dict(self.meta),
            dense_loss=None if self.dense_loss is None else self.dense_loss[sl],
        )

    # ---- persistence --------------------------------------------------
    def save(self, path: str | Path) -> Path:
        """Write an ``.npz`` (tensors as numpy, meta as JSON); its folder is created.

        Parameters
        ----------
        path : str or Path
            The file to write.

        Returns
        -------
        Path
            ``path``.
        """
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        arrays = {f"param_{k}": v.numpy() for k, v in self.params.tensors().items()}
        if self.dense_loss is not None:
            arrays["dense_loss"] = self.dense_loss.numpy()
        np.savez_compressed(
            path, steps=self.steps, time=self.time, loss=self.loss.numpy(),
            meta=np.array(json.dumps(dict(self.meta, act=self.params.act))), **arrays,
        )
        return path

    @classmethod
    def load(cls, path: str | Path) -> "Trajectory":
        """Read a trajectory written by :meth:`save`.

        Parameters
        ----------
        path : str or Path
            The ``.npz`` file.

        Returns
        -------
        Trajectory
        """
        with np.load(Path(path), allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            tensors = {k[6:]: torch.from_numpy(z[k]) for k in z.files if k.startswith("param_")}
            return cls(
                steps=z["steps"], time=z["time"], loss=torch.from_numpy(z["loss"]),
                params=TwoLayer(act=meta.get("act", "relu"), **tensors), meta=meta,
                dense_loss=torch.from_numpy(z["dense_loss"]) if "dense_loss" in z.files else None,
            )
