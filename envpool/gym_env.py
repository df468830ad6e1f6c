"""EnvPool's classic gym interface, for existing training scripts.

Spaces are single-env, built from the ``gym`` package when it is installed
(scripts assert ``isinstance(envs.action_space, gym.spaces.Discrete)``),
else from gymnasium. With gym < 0.26 installed, step returns the legacy
4-tuple ``(obs, reward, done, info)`` with ``info["TimeLimit.truncated"]``
and reset returns only the observation; otherwise the 5-tuple API.
"""

from __future__ import annotations

from typing import Any

from gymnasium import spaces as gymnasium_spaces

from envpool._pool import PoolBase


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
        return s.Dict({k: _convert_space(v, gym) for k, v in space.spaces.items()})
    if isinstance(space, gymnasium_spaces.MultiBinary):
        return s.MultiBinary(space.n)
    return space


class GymEnvPool(PoolBase):
    """A batch of envs behind EnvPool's gym-style API."""

    def __init__(self, task_id: str, **config: Any) -> None:
        super().__init__(task_id, **config)
        gym = _gym_module()
        self._legacy = _legacy_api(gym)
        self.num_envs = self._num_envs
        self.observation_space = _convert_space(self.spec.observation_space, gym)
        self.action_space = _convert_space(self.spec.action_space, gym)
        self._next_seed: int | list[int] | None = None

    def reset(self, env_id: Any = None, seed: int | list[int] | None = None) -> Any:
        """Reset envs (all by default); reseeds when given a seed (or after seed())."""
        if seed is None:
            seed, self._next_seed = self._next_seed, None
        obs, _, _, _, _, info, _ = self._pool.reset(env_id, seed)
        return obs if self._legacy else (obs, info)

    def step(self, action: Any, env_id: Any = None) -> tuple:
        """Step the given envs (default: all in sync mode, the last batch in async)."""
        return self._package(self._pool.step(action, env_id))

    def recv(self) -> tuple:
        """Wait for the next batch of results."""
        return self._package(self._pool.recv())

    def _package(self, result: tuple) -> tuple:
        obs, reward, terminated, truncated, _, info, _ = result
        if self._legacy:
            info["TimeLimit.truncated"] = truncated & ~terminated
            return obs, reward, terminated | truncated, info
        return obs, reward, terminated, truncated, info

    def seed(self, seed: int | list[int] | None = None) -> None:
        """Reseed every env at the next reset() (gym's old seeding call)."""
        self._next_seed = seed


__all__ = ["GymEnvPool"]
