"""The three interfaces (gymnasium, gym, dm) over Ray actors: envpool's pool classes
with a :class:`~envpool.ray._engine.RayEngine` as their engine."""

from __future__ import annotations

from typing import Any

import numpy as np

from envpool.ray._engine import RayEngine


class _RayPool:
    """Mixin: a pool class of envpool whose engine is a :class:`RayEngine`."""

    _ENV_TYPE = ""

    def __init__(
        self,
        task_id: Any,
        num_actors: int = 2,
        placement: Any = None,
        start_timeout: float | None = 300.0,
        **config: Any,
    ) -> None:
        self._ray_args = (task_id, num_actors, placement, start_timeout, dict(config))
        super().__init__(task_id, **config)  # type: ignore[call-arg]

    def _new_pool(self) -> RayEngine:
        task_id, num_actors, placement, start_timeout, config = self._ray_args
        spec = self.spec  # type: ignore[attr-defined]
        # frame_stack: the driver's interface stacks (the actors' engines give plain rows)
        options = {k: v for k, v in config.items() if k not in ("num_envs", "batch_size", "seed", "frame_stack")}
        return RayEngine(
            task_id,
            self._ENV_TYPE,
            num_envs=int(spec.config["num_envs"]),
            batch_size=int(spec.config["batch_size"]) or int(spec.config["num_envs"]),
            seed=spec.config["seed"],
            num_actors=num_actors,
            placement=placement,
            options=options,
            action_specs=spec.action_arrays,
            start_timeout=start_timeout,
            autoreset_mode=spec.config["autoreset_mode"],
        )

    @property
    def num_actors(self) -> int:
        return self._pool.num_actors  # type: ignore[attr-defined]

    @property
    def actors(self) -> list[Any]:
        """The Ray actor handles, actor k holding env ids ``actor_env_ids[k]``."""
        return list(self._pool.actors)  # type: ignore[attr-defined]

    @property
    def actor_env_ids(self) -> list[np.ndarray]:
        o = self._pool.offsets  # type: ignore[attr-defined]
        return [np.arange(o[k], o[k + 1], dtype=np.int32) for k in range(len(o) - 1)]

    @property
    def actor_nodes(self) -> list[str]:
        """The Ray node id of each actor."""
        return [i["node_id"] for i in self._pool.actor_info]  # type: ignore[attr-defined]


def _classes() -> dict[str, type]:
    from envpool.dm_env_pool import DmEnvPool
    from envpool.gym_env import GymEnvPool
    from envpool.gymnasium_env import GymnasiumEnvPool

    class RayGymnasiumEnvPool(_RayPool, GymnasiumEnvPool):  # type: ignore[misc, override]  # the same base-class differences as its envpool pool (see gym_env.py)
        """envpool's gymnasium pool (a ``gymnasium.vector.VectorEnv``) over Ray actors."""

        _ENV_TYPE = "gymnasium"

    class RayGymEnvPool(_RayPool, GymEnvPool):  # type: ignore[misc, override]  # the same base-class differences as its envpool pool (see gym_env.py)
        """envpool's gym pool over Ray actors."""

        _ENV_TYPE = "gym"

    class RayDmEnvPool(_RayPool, DmEnvPool):
        """envpool's dm_env pool over Ray actors."""

        _ENV_TYPE = "dm"

    return {"gymnasium": RayGymnasiumEnvPool, "gym": RayGymEnvPool, "dm": RayDmEnvPool, "dm_env": RayDmEnvPool}
