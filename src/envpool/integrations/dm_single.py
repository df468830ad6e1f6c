"""A single-env ``dm_env.Environment`` view of a one-env envpool dm pool.

>>> import envpool
>>> from envpool.integrations.dm_single import DmSingleEnv
>>> env = DmSingleEnv(envpool.make("CartPole-v1", env_type="dm", num_envs=1))
>>> ts = env.reset()          # ts.observation.obs has shape (4,), not (1, 4)

The pool batches every TimeStep field over envs; this view takes row 0, so
code written for one ``dm_env.Environment`` (an acme actor, dm_env's own
``test_utils.EnvironmentTestMixin``) runs on it unchanged. Following dm_env's
contract, FIRST steps carry ``reward=None`` and ``discount=None``, and
``step_type`` is a ``dm_env.StepType``. After a LAST step the next ``step()``
starts a new episode (the pool's next-step autoreset), as dm_env expects.
"""

from __future__ import annotations

from typing import Any

import dm_env
import numpy as np
import tree


class DmSingleEnv(dm_env.Environment):
    """Unbatched view of a dm pool made with ``num_envs=1``.

    Args:
        pool: an ``envpool.make(task_id, env_type="dm", num_envs=1, ...)`` pool,
            or a task id (then ``**config`` goes to ``envpool.make``).
    """

    def __init__(self, pool: Any, **config: Any) -> None:
        if isinstance(pool, str):
            from envpool._make import make

            pool = make(pool, env_type="dm", num_envs=1, **config)
        elif config:
            raise ValueError("config is for envpool.make: pass it there when wrapping a pool")
        if not isinstance(pool, dm_env.Environment) or not hasattr(pool, "num_envs"):
            raise TypeError(
                f"DmSingleEnv views an envpool dm pool (envpool.make(..., env_type='dm', num_envs=1)) "
                f"or a task id, got {type(pool).__name__}"
            )
        if pool.num_envs != 1:
            raise ValueError(f"DmSingleEnv views a pool of one env, got num_envs={pool.num_envs}")
        if pool.config.get("autoreset_mode", "next_step") != "next_step":
            raise ValueError("DmSingleEnv needs the dm pool's next_step autoreset")
        self.pool = pool
        self._reward_spec = pool.reward_spec()
        self._discount_spec = pool.discount_spec()
        self._started = False

    def reset(self) -> dm_env.TimeStep:
        self._started = True
        return self._unbatch(self.pool.reset())

    def step(self, action: Any) -> dm_env.TimeStep:
        if not self._started:  # dm_env: step() on a fresh env acts as reset()
            return self.reset()
        batched = tree.map_structure(lambda a: np.asarray(a)[None], action)
        return self._unbatch(self.pool.step(batched))

    def _unbatch(self, ts: dm_env.TimeStep) -> dm_env.TimeStep:
        step_type = dm_env.StepType(int(ts.step_type[0]))
        observation = tree.map_structure(lambda a: a[0], ts.observation)
        if step_type is dm_env.StepType.FIRST:
            return dm_env.TimeStep(step_type, None, None, observation)
        reward = np.asarray(ts.reward[0], dtype=self._reward_spec.dtype)
        discount = np.asarray(ts.discount[0], dtype=self._discount_spec.dtype)
        return dm_env.TimeStep(step_type, reward, discount, observation)

    def observation_spec(self) -> Any:
        return self.pool.observation_spec()

    def action_spec(self) -> Any:
        return self.pool.action_spec()

    def reward_spec(self) -> Any:
        return self._reward_spec

    def discount_spec(self) -> Any:
        return self._discount_spec

    def close(self) -> None:
        self.pool.close()


__all__ = ["DmSingleEnv"]
