"""A Stable-Baselines3 ``VecEnv`` backed by an envpool pool.

>>> from stable_baselines3 import PPO
>>> from stable_baselines3.common.vec_env import VecMonitor
>>> from envpool.integrations.sb3 import SB3VecEnv
>>> venv = VecMonitor(SB3VecEnv("CartPole-v1", num_envs=8, seed=0))
>>> PPO("MlpPolicy", venv).learn(10_000)

SB3 resets a finished env inside the step that ends its episode and expects
the episode's last observation in ``infos[i]["terminal_observation"]``, so the
pool runs with ``autoreset_mode="same_step"`` and the adapter copies
gymnasium's ``info["final_obs"]`` there. Infos are a list of per-env dicts;
``infos[i]["TimeLimit.truncated"]`` is True when env i was cut by the time
limit without terminating (SB3 bootstraps from the terminal observation then).
Episode statistics (``infos[i]["episode"]``) come from SB3's ``VecMonitor``.

stable-baselines3 (>= 2) is an optional dependency: only this module needs it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices
except ImportError as e:  # pragma: no cover - exercised only without SB3
    raise ImportError("envpool.integrations.sb3 needs stable-baselines3>=2: pip install 'stable-baselines3>=2'") from e

from gymnasium.vector import AutoresetMode

from envpool._config import _autoreset_mode
from envpool._make import make

# gymnasium's same-step bookkeeping keys: consumed here, not passed on per env.
_FINAL_KEYS = ("final_obs", "_final_obs", "final_info", "_final_info")


class SB3VecEnv(VecEnv):
    """Stable-Baselines3 view of an envpool gymnasium pool.

    Args:
        task_id: a registered task id (``"CartPole-v1"``, ``"Pong-v5"``, ...), or
            an existing pool made with ``envpool.make(..., env_type="gymnasium",
            autoreset_mode="same_step")`` in sync mode.
        num_envs: number of envs (when ``task_id`` is a string).
        seed: base seed; env i gets ``seed + i``.
        **config: any other ``envpool.make`` option (num_threads, max_episode_steps,
            the task's own options such as ``episodic_life``).
    """

    def __init__(self, task_id: Any, num_envs: int = 1, seed: int | None = None, **config: Any) -> None:
        if isinstance(task_id, str):
            if _autoreset_mode(config.get("autoreset_mode", "same_step")) != "same_step":
                raise ValueError("SB3VecEnv needs autoreset_mode='same_step' (SB3 resets within the step)")
            config["autoreset_mode"] = "same_step"
            if seed is not None:
                config["seed"] = seed
            pool = make(task_id, env_type="gymnasium", num_envs=num_envs, **config)
        else:
            pool = task_id
            if config or seed is not None:
                raise ValueError("pass config and seed to envpool.make when wrapping an existing pool")
        if pool.metadata.get("autoreset_mode") != AutoresetMode.SAME_STEP:
            raise ValueError("SB3VecEnv needs a pool made with autoreset_mode='same_step'")
        if getattr(pool, "is_async", False):
            raise ValueError("SB3VecEnv needs a sync pool (batch_size == num_envs)")
        self.pool = pool
        self._actions: np.ndarray | None = None
        super().__init__(pool.num_envs, pool.single_observation_space, pool.single_action_space)

    # -- the VecEnv protocol ---------------------------------------------------
    def reset(self) -> Any:
        seeds: Any = None
        if any(s is not None for s in self._seeds):
            if any(s is None for s in self._seeds):
                raise ValueError("seed either every env or none")
            seeds = [int(s) for s in self._seeds]  # type: ignore[arg-type]
        obs, info = self.pool.reset(seed=seeds)
        self.reset_infos = _split_info(info, self.num_envs)
        self._reset_seeds()
        self._reset_options()
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> tuple[Any, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async()")
        actions, self._actions = self._actions, None
        obs, reward, terminated, truncated, info = self.pool.step(actions)
        terminated = np.asarray(terminated, dtype=bool)
        truncated = np.asarray(truncated, dtype=bool)
        dones = terminated | truncated
        infos = _split_info(info, self.num_envs)
        if dones.any():
            final_obs = info["final_obs"]
            final_info = info.get("final_info", {})
            for i in np.flatnonzero(dones):
                # The finished episode's last info replaces the fresh episode's.
                for k, v in final_info.items():
                    if not k.startswith("_") and isinstance(v, np.ndarray) and len(v) == self.num_envs:
                        infos[i][k] = v[i]
                term_obs = final_obs[i]
                if isinstance(term_obs, dict):
                    term_obs = {k: np.array(v) for k, v in term_obs.items()}
                else:
                    term_obs = np.array(term_obs)
                infos[i]["terminal_observation"] = term_obs
                infos[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
        return obs, np.asarray(reward, dtype=np.float32), dones, infos

    def close(self) -> None:
        self.pool.close()

    # Every env of a pool of C++ envs is the same C++ env: attributes are the
    # pool's. A pool of Python envs reaches each env in its worker (the pool's
    # call / set_attr), every env at once: SubprocVecEnv's attributes and methods.
    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        ids = self._get_indices(indices)
        if hasattr(self.pool, "call"):
            # The attribute itself, a method uncalled, as SubprocVecEnv's get_attr.
            values = self.pool.call("get_wrapper_attr", attr_name)
            return [values[i] for i in ids]
        if attr_name == "render_mode":
            return [None] * len(ids)
        return [getattr(self.pool, attr_name)] * len(ids)

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        if len(self._get_indices(indices)) != self.num_envs:
            raise NotImplementedError("envpool sets an attribute on every env at once: set it for all envs")
        if hasattr(self.pool, "set_attr"):
            self.pool.set_attr(attr_name, value)
        else:
            setattr(self.pool, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any
    ) -> list[Any]:
        if not hasattr(self.pool, "call"):
            raise NotImplementedError(f"envpool envs run in C++: no per-env method {method_name!r}")
        if len(self._get_indices(indices)) != self.num_envs:
            raise NotImplementedError("envpool calls a method of every env at once: call it for all envs")
        return list(self.pool.call(method_name, *method_args, **method_kwargs))

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        return [False] * len(self._get_indices(indices))

    def _get_indices(self, indices: VecEnvIndices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)


def _split_info(info: dict[str, Any], n: int) -> list[dict[str, Any]]:
    """gymnasium's dict of batched arrays -> SB3's list of per-env dicts."""
    out: list[dict[str, Any]] = [{} for _ in range(n)]
    for k, v in info.items():
        if k in _FINAL_KEYS or k.startswith("_"):
            continue
        if isinstance(v, np.ndarray) and v.shape[:1] == (n,):
            for i in range(n):
                out[i][k] = v[i]
    return out


__all__ = ["SB3VecEnv"]
