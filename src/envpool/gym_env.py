"""EnvPool's classic gym interface, for existing training scripts.

Spaces are single-env, built from the ``gym`` package when it is installed
(scripts assert ``isinstance(envs.action_space, gym.spaces.Discrete)``),
else from gymnasium. With gym < 0.26 installed, step returns the legacy
4-tuple ``(obs, reward, done, info)`` with ``info["TimeLimit.truncated"]``
and reset returns only the observation; otherwise the 5-tuple API.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces as gymnasium_spaces
from gymnasium.vector import VectorEnv

from envpool._config import autoreset_member
from envpool._interfaces import Action, EnvIds, GymnasiumEnvPoolMixin, Obs, TaskId
from envpool._pool import Batch, PoolBase, env_ids_from_mask
from envpool._spec import EnvSpec
from envpool._tree import rows_where


def _gym_module() -> Any:
    try:
        import gym  # type: ignore[import-not-found]
    except Exception:  # not installed, or broken against this numpy
        return None
    return gym


def _legacy_api(gym: Any) -> bool:
    if gym is None:
        return False
    try:
        major, minor = (int(x) for x in gym.__version__.split(".")[:2])
    except ValueError:
        return False
    return (major, minor) < (0, 26)


def _convert_space(space: gymnasium_spaces.Space, gym: Any) -> Any:
    """The same space as a ``gym.spaces`` object."""
    if gym is None:
        return space
    s = gym.spaces
    if isinstance(space, gymnasium_spaces.Discrete):
        if int(space.start) != 0:
            return s.Discrete(int(space.n), start=int(space.start))
        return s.Discrete(int(space.n))
    if isinstance(space, gymnasium_spaces.Box):
        return s.Box(low=space.low, high=space.high, shape=space.shape, dtype=space.dtype)
    if isinstance(space, gymnasium_spaces.Dict):
        return s.Dict([(k, _convert_space(v, gym)) for k, v in space.spaces.items()])  # in its order
    if isinstance(space, gymnasium_spaces.Tuple):
        return s.Tuple([_convert_space(v, gym) for v in space.spaces])
    if isinstance(space, gymnasium_spaces.MultiBinary):
        return s.MultiBinary(space.n)
    return space


class GymEnvSpec(EnvSpec):
    """A gym pool's spec: ``observation_space`` / ``action_space`` are the pool's own
    (``gym.spaces`` when gym is installed), as EnvPool's ``env.spec`` gives them."""

    @functools.cached_property
    def observation_space(self) -> Any:  # type: ignore[override]
        return _convert_space(EnvSpec.observation_space.fget(self), _gym_module())  # type: ignore[attr-defined]

    @functools.cached_property
    def action_space(self) -> Any:  # type: ignore[override]
        return _convert_space(EnvSpec.action_space.fget(self), _gym_module())  # type: ignore[attr-defined]


class GymEnvPool(PoolBase, GymnasiumEnvPoolMixin, VectorEnv[Obs, Action, np.ndarray], gymnasium.Env[Obs, Action]):  # type: ignore[misc, override]  # gymnasium's Env and VectorEnv disagree on np_random_seed; EnvPool's spec, render() and read-only render_mode differ from gymnasium's by design (EnvPool 1.2's API)
    """A batch of envs behind EnvPool's gym-style API.

    Like EnvPool 1.2's, the pool is a ``gymnasium.Env`` (so ``gymnasium.Wrapper`` can
    wrap it) and a ``gymnasium.vector.VectorEnv`` with ``single_observation_space`` /
    ``single_action_space`` (the same single-env spaces as ``observation_space`` /
    ``action_space``). ``reset()`` returns ``(obs, info)`` (``gym_reset_return_info=True``,
    EnvPool's default) or only obs (``gym_reset_return_info=False``, and the default
    with gym < 0.26 installed).
    """

    _WITH_DISCOUNT = False

    def __init__(self, task_id: TaskId, **config: Any) -> None:
        explicit_info = "gym_reset_return_info" in config
        super().__init__(task_id, **config)
        gym = _gym_module()
        self._legacy = _legacy_api(gym)
        if self._legacy and not explicit_info:
            self.config["gym_reset_return_info"] = False
        self._return_info = bool(self.config["gym_reset_return_info"])
        fields = {f.name: getattr(self.spec, f.name) for f in dataclasses.fields(EnvSpec)}
        self.spec = GymEnvSpec(**{**fields, "config": self.config})
        self.num_envs = self._num_envs
        self.observation_space = self.spec.observation_space
        self.action_space = self.spec.action_space
        self.single_observation_space = self.observation_space
        self.single_action_space = self.action_space
        self.metadata = {"autoreset_mode": autoreset_member(self.config["autoreset_mode"]), **self._render_metadata()}

    def reset(
        self,
        env_id: Any = None,
        seed: int | list[int] | None = None,
        options: dict[str, Any] | None = None,
    ) -> Any:
        """Reset envs (all by default, or those in ``env_id`` or ``options["reset_mask"]``),
        returning their rows; reseeds when given a seed (or after seed()). ``env_id=[]``
        returns an empty batch."""
        if options and "reset_mask" in options:
            if env_id is not None:
                raise ValueError("pass either env_id or options['reset_mask'], not both")
            env_id = env_ids_from_mask(options["reset_mask"], self._num_envs)
        try:
            result = self._raw_reset(env_id, seed, options=options)
        except Exception as e:
            self._repackage(e, self._reset_result)
            raise
        return self._reset_result(result)

    def step(self, action: Action, env_id: EnvIds = None) -> tuple:  # type: ignore[override]
        """Step the given envs (default: all in sync mode, the last batch in async);
        ``env_id=[]`` returns an empty batch."""
        try:
            if env_id is None and self._direct and type(action) is not dict:
                result = self._pool.step(action, None)
            else:
                result = self._raw_step(action, env_id)
        except Exception as e:
            self._repackage(e, self._package)
            raise
        return self._package(result)

    def recv(self) -> tuple:
        """Wait for the next batch of results."""
        try:
            result = self._raw_recv()
        except Exception as e:
            self._repackage(e, self._package)
            raise
        return self._package(result)

    def close(self) -> None:  # type: ignore[override]  # EnvPool's gym close() takes no options
        """Stop the worker threads (reset() rebuilds the pool)."""
        PoolBase.close(self)

    def _reset_result(self, result: Batch) -> Any:
        obs, info = result.obs, result.info
        return (obs, info) if self._return_info else obs

    def _xla_package(self, result: Batch) -> tuple:
        """_package with JAX arrays. Same-step autoreset: info["final_observation"] holds
        the final observations as an array (zero rows where no episode ended) and
        info["final_info"] a dict of arrays, as JAX arrays hold no Python objects."""
        obs, reward, terminated, truncated, _, info, final = result
        if final is not None:
            done = terminated | truncated
            info["final_observation"], info["_final_observation"] = final[0], done
            info["final_info"], info["_final_info"] = dict(final[1]), done
        return self._tuple(obs, reward, terminated, truncated, info)

    def _package(self, result: Batch) -> tuple:
        info, final = result.info, result.final
        if final is not None:
            _add_final(info, final, result.terminated | result.truncated)
        return self._tuple(result.obs, result.reward, result.terminated, result.truncated, info)

    def _tuple(self, obs: Any, reward: Any, terminated: Any, truncated: Any, info: dict[str, Any]) -> tuple:
        if self._legacy:
            info["TimeLimit.truncated"] = truncated & ~terminated
            return obs, reward, terminated | truncated, info
        return obs, reward, terminated, truncated, info


def _add_final(info: dict[str, Any], final: tuple, done: np.ndarray) -> None:
    """Same-step autoreset: gym 0.26's vector entries. ``final_observation`` and
    ``final_info`` are object arrays holding a done env's last observation and its info
    dict (None elsewhere); ``_final_observation`` / ``_final_info`` are their masks."""
    final_obs, final_info = final
    info["final_observation"], info["_final_observation"] = rows_where(final_obs, done), done.copy()
    info["final_info"], info["_final_info"] = rows_where(final_info, done), done.copy()


__all__ = ["GymEnvPool", "GymEnvSpec"]
