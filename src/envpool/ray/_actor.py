"""What runs in each Ray actor: one local pool, driven through its engine."""

from __future__ import annotations

from typing import Any, Protocol, cast

import numpy as np
import ray


class _EnvFailure(Protocol):
    """An engine pool's exception for envs that threw: their ids and the batch's result."""

    failed_env_ids: Any
    result: Any


class PoolActor:
    """One local pool inside a Ray actor; steps and resets named envs and returns their
    rows (the engine's batch with global env ids) for the driver to assemble."""

    def __init__(
        self, task_id: Any, env_type: str, options: dict[str, Any], offset: int, extensions: dict | None = None
    ) -> None:
        from envpool import cpp_extension
        from envpool._make import make

        # The C++ family modules the driver loaded (and its tasks on them): cpp_extension._state().
        cpp_extension._restore(extensions)
        self.offset = offset
        # The interface is made by envpool.make as anywhere; the actor drives its
        # engine directly (the driver's interface shapes the rows, frame stacks...).
        self.interface = make(task_id, env_type, **options)
        self.engine = self.interface._pool

    def info(self) -> dict[str, Any]:
        return {
            "node_id": ray.get_runtime_context().get_node_id(),
            "num_threads": int(self.interface.config["num_threads"]),
        }

    def step(self, action: Any, ids: np.ndarray) -> tuple:
        return self._run(lambda: self.engine.step(action, ids))

    def reset(self, ids: np.ndarray, seeds: list[int] | None) -> tuple:
        return self._run(lambda: self.engine.reset(ids, seeds, True))

    def close(self) -> None:
        self.interface.close()

    def _run(self, call: Any) -> tuple:
        try:
            return ("ok", self._rows(call()))
        except Exception as e:
            if not hasattr(e, "failed_env_ids"):
                raise
            what = str(e).split(" failed: ", 1)[-1]
            error = cast(_EnvFailure, e)
            failed = np.asarray(error.failed_env_ids, dtype=np.int32) + self.offset
            return ("failed", type(e), what, failed, self._rows(error.result))

    def _rows(self, batch: Any) -> tuple:
        obs, reward, terminated, truncated, discount, info, final = batch
        info = {k: v for k, v in info.items() if k != "players"}
        info["env_id"] = info["env_id"] + np.int32(self.offset)
        return (obs, reward, terminated, truncated, discount, info, final)


RemotePoolActor = ray.remote(PoolActor)
