"""What the Gymnasium-Robotics tests share: the stand-in for the reference's ``np_random``
that replays our env's reported draws, and the reference's patch for mujoco 3.17."""

from __future__ import annotations

import types

import numpy as np


class Replay:
    """Stands in for the reference's ``np_random``: returns our env's draws, in order, and
    checks each lies in the range the reference asks for."""

    def __init__(self, draws: np.ndarray, n: int) -> None:
        assert n < len(draws), "the draw report is full: raise kDrawCapacity"
        self.draws = [float(d) for d in draws[:n]]
        self.used = 0

    def _next(self, low: float, high: float) -> float:
        assert self.used < len(self.draws), "the reference draws more than our env did"
        v = self.draws[self.used]
        self.used += 1
        assert low <= v <= high, f"draw {self.used - 1}: the reference asks for one in [{low}, {high}), ours is {v}"
        return v

    def uniform(self, low=0.0, high=1.0, size=None):
        if size is None and np.ndim(low) == 0 and np.ndim(high) == 0:
            return self._next(low, high)
        if size is None:  # array bounds (the hand's goal offsets): one draw each
            size = np.broadcast(low, high).shape
        lo, hi = np.broadcast_to(low, size).ravel(), np.broadcast_to(high, size).ravel()
        return np.array([self._next(lo[i], hi[i]) for i in range(lo.size)]).reshape(size)

    def integers(self, low: int, high: int | None = None):
        if high is None:
            low, high = 0, low
        v = self._next(low, high - 1)
        assert v == int(v)
        return np.int64(v)

    def normal(self, loc: float = 0.0, scale: float = 1.0, size=None):
        """Our draws are loc + scale * z already (loc is 0 where the references ask)."""
        assert loc == 0.0
        if size is None:
            return self._next(-np.inf, np.inf)
        n = int(np.prod(size))
        return np.array([self._next(-np.inf, np.inf) for _ in range(n)]).reshape(size)

    def choice(self, a):
        return a[int(self.integers(len(a)))]

    def check_all_used(self) -> None:
        assert self.used == len(self.draws), f"the reference used {self.used} of our env's {len(self.draws)} draws"


def replay(ref, info, fn, row: int = 0):
    """Runs the reference's ``fn`` (its reset or step) on our env's draws of ``row``."""
    rep = Replay(info["draws"][row], int(info["num_draws"][row]))
    ref._np_random = rep
    out = fn()
    rep.check_all_used()
    return out


class _IntJointTypes:
    mjJNT_FREE, mjJNT_BALL, mjJNT_SLIDE, mjJNT_HINGE = 0, 1, 2, 3


def patch_mujoco_utils() -> None:
    """gymnasium-robotics 1.4.2's mujoco_utils tests ``jnt_type in (mjtJoint.mjJNT_HINGE,
    mjtJoint.mjJNT_SLIDE)``, which is False on mujoco 3.17 (a numpy int32 against the enum
    in a tuple), so every slide/hinge joint fails its assertion (Fetch's __init__). The patch
    (docs/differences.md): mujoco_utils sees mjtJoint's four values as plain ints; nothing
    else of the module changes."""
    import mujoco
    from gymnasium_robotics.utils import mujoco_utils

    if isinstance(mujoco_utils.mujoco, types.SimpleNamespace):
        return
    proxy = types.SimpleNamespace(**{k: getattr(mujoco, k) for k in dir(mujoco) if not k.startswith("__")})
    proxy.mjtJoint = _IntJointTypes
    mujoco_utils.mujoco = proxy
