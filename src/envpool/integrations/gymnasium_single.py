"""A single-env ``gymnasium.Env`` view of a one-env envpool pool.

>>> import gymnasium, envpool
>>> env = gymnasium.make("envpool/CartPole-v1")   # this class, through the registry
>>> obs, info = env.reset(seed=0)                # obs has shape (4,), not (1, 4)

For tools that need one ``gymnasium.Env`` (env checkers, single-env training
loops, gymnasium's own ``SyncVectorEnv``). The pool runs with next-step autoreset,
so the step that ends an episode returns that episode's last observation and the
caller's ``reset()`` starts the next one, as a gymnasium env does. The time limit
is the engine's: ``truncated`` is True at the task's ``max_episode_steps`` (or the
``max_episode_steps`` option); the registry adds no ``TimeLimit`` wrapper.
``reset(seed=s)`` seeds the env as env 0 of a pool reset with seed s.

``render_mode="rgb_array"`` makes the pool with it: ``render()`` returns the env's
frame (``(height, width, 3)`` uint8), for the tasks that render. A ``Discrete``
observation is a Python ``int``, as gymnasium's toy-text envs return it (the pool's
rows are int32).
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np

# Rows of the pool's info that are bookkeeping of the batch, not of the env.
_BATCH_KEYS = ("env_id", "players")


class GymnasiumSingleEnv(gymnasium.Env):
    """One env of ``task_id`` behind ``gymnasium.Env``'s API.

    Args:
        task_id: a registered envpool task id (``"CartPole-v1"``, ``"Pong-v5"``, ...).
        render_mode: None or ``"rgb_array"``.
        **options: :func:`envpool.make` options (seed, max_episode_steps, num_threads,
            the task's own options); ``num_envs`` / ``batch_size`` must be 1 if given.
    """

    metadata: dict[str, Any] = {"render_modes": ["rgb_array"]}

    def __init__(self, task_id: str, render_mode: str | None = None, **options: Any) -> None:
        from envpool._config import _autoreset_mode
        from envpool._make import make

        if render_mode not in (None, "rgb_array"):
            raise ValueError(f"render_mode must be None or 'rgb_array', got {render_mode!r}")
        num_envs, batch_size = options.pop("num_envs", 1), options.pop("batch_size", 1)
        if num_envs != 1 or batch_size not in (0, 1):
            raise ValueError(f"a single-env view has one env: got num_envs={num_envs!r}, batch_size={batch_size!r}")
        if _autoreset_mode(options.get("autoreset_mode", "next_step")) != "next_step":
            raise ValueError("a single-env view steps its pool with autoreset_mode='next_step'")
        options["autoreset_mode"] = "next_step"
        if render_mode is not None:
            options["render_mode"] = render_mode
        self.pool = make(task_id, env_type="gymnasium", num_envs=1, **options)
        self.task_id = task_id
        self.render_mode = render_mode
        self.metadata = self.pool._render_metadata()
        self.observation_space = self.pool.single_observation_space
        self.action_space = self.pool.single_action_space
        self._int_obs = isinstance(self.observation_space, gymnasium.spaces.Discrete)
        self.max_episode_steps = int(self.pool.config.get("max_episode_steps", 0)) or None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Start an episode; ``seed`` reseeds the env (as env 0 of a pool reset with ``seed``)."""
        super().reset(seed=seed)
        if options:
            raise ValueError(f"envpool envs take no reset options, got {sorted(options)}")
        obs, info = self.pool.reset(seed=seed)
        return self._obs(obs), _info_row(info)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if isinstance(action, dict):
            batched: Any = {k: np.asarray(v)[None] for k, v in action.items()}
        else:
            batched = np.asarray(action)[None]
        obs, reward, terminated, truncated, info = self.pool.step(batched)
        return self._obs(obs), float(reward[0]), bool(terminated[0]), bool(truncated[0]), _info_row(info)

    def render(self) -> np.ndarray | None:
        """The env's frame, with ``render_mode="rgb_array"`` (None without a render mode, with
        gymnasium's envs' warning)."""
        if self.render_mode is None:
            gymnasium.logger.warn(
                "You are calling render method without specifying any render mode. You can specify the "
                f'render_mode at initialization, e.g. gym.make("envpool/{self.task_id}", render_mode="rgb_array")'
            )
            return None
        return np.asarray(self.pool.render([0])[0])

    def _obs(self, obs: Any) -> Any:
        return int(obs[0]) if self._int_obs else _row(obs)

    def close(self) -> None:
        pool = getattr(self, "pool", None)
        if pool is not None:
            pool.close()

    def __repr__(self) -> str:
        return f"GymnasiumSingleEnv({self.task_id!r})"


def _row(obs: Any) -> Any:
    if isinstance(obs, dict):
        return {k: _row(v) for k, v in obs.items()}
    if isinstance(obs, tuple):  # a Tuple space of Discrete ones (Blackjack's tuple_obs): ints, as gymnasium's
        return tuple(int(v[0]) for v in obs)
    return obs[0]


def _info_row(info: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in info.items():
        if k in _BATCH_KEYS:
            continue
        out[k] = _info_row(v) if isinstance(v, dict) else v[0]
    return out


__all__ = ["GymnasiumSingleEnv"]
