"""The send/recv bookkeeping of a pool whose envs are stepped elsewhere (Ray actors):
which envs are in flight, which must be reset before they step, and which envs a call
that names none means.

It keeps the engine pool's rules (``cpp/core/pool.h``) and leaves every check and
message to the engine's own functions (``_envpool.check_env_ids``, ``check_seeds``,
``in_flight_message``, ``needs_reset_message``, ``would_wait_message``), so a Ray pool
refuses what a local pool refuses, with the same words.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envpool import _envpool


class Ledger:
    """The bookkeeping of one pool of ``num_envs`` envs returning ``batch_size`` rows per
    batch (sync when they are equal)."""

    def __init__(self, num_envs: int, batch_size: int, autoreset_mode: str) -> None:
        self.num_envs = int(num_envs)
        self.batch_size = int(batch_size)
        self.sync = self.batch_size == self.num_envs
        self._in_flight = np.zeros(self.num_envs, dtype=bool)
        self._last_ids = np.arange(self.num_envs, dtype=np.int32)
        # autoreset_mode "disabled": the envs that must be reset before they step.
        self._needs_reset = np.ones(self.num_envs, dtype=bool) if autoreset_mode == "disabled" else None

    @property
    def in_flight(self) -> int:
        return int(self._in_flight.sum())

    def ids(self, env_id: Any, default_last: bool) -> np.ndarray:
        """The env ids a call names (checked); None: the last batch's (an async step)
        or every env."""
        if env_id is None:
            if default_last and not self.sync:
                return self._last_ids.copy()
            return np.arange(self.num_envs, dtype=np.int32)
        return _envpool.check_env_ids(env_id, self.num_envs)

    def check_steppable(self, ids: np.ndarray) -> None:
        """Refuses a step of an env that must be reset first (autoreset_mode="disabled")."""
        if self._needs_reset is not None and self._needs_reset[ids].any():
            raise ValueError(_envpool.needs_reset_message(int(ids[self._needs_reset[ids]][0])))

    def seeds(self, seed: Any, ids: np.ndarray) -> list[int] | None:
        """One seed per env of ids (an int seed s gives env i the seed s + i)."""
        return _envpool.check_seeds(seed, ids.tolist(), self.num_envs)

    def check_free(self, ids: np.ndarray) -> None:
        """Refuses a call on an env already in flight."""
        busy = ids[self._in_flight[ids]]
        if len(busy):
            raise ValueError(_envpool.in_flight_message(int(busy[0])))

    def check_available(self, available: int) -> None:
        """Refuses a wait for a batch that ``available`` rows can never fill."""
        if available < self.batch_size:
            raise RuntimeError(_envpool.would_wait_message(available, self.batch_size))

    def sent(self, ids: np.ndarray) -> None:
        self._in_flight[ids] = True

    def received(self, ids: np.ndarray) -> None:
        self._in_flight[ids] = False

    def returned(self, ids: np.ndarray, terminated: Any, truncated: Any) -> None:
        """A batch of these envs went back to the caller: the envs a call without ids
        means next, and (autoreset disabled) those whose episode ended."""
        self._last_ids = np.asarray(ids, dtype=np.int32)
        if self._needs_reset is not None:
            self._needs_reset[self._last_ids] = np.asarray(terminated) | np.asarray(truncated)

    @property
    def last_ids(self) -> np.ndarray:
        return self._last_ids

    def clear(self) -> None:
        self._in_flight[:] = False
