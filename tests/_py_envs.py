"""gymnasium envs of our own for the Python-env pools' tests (importable in the
worker processes, which unpickle these classes by reference)."""

from __future__ import annotations

import os
import threading
import time
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces


class DictEnv(gymnasium.Env):
    """A Dict observation (nested, with a Tuple and mixed dtypes), a Dict action, and
    numeric reset info: a random walk that ends when |pos| leaves 5."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 10}

    def __init__(self, render_mode: str | None = None) -> None:
        self.render_mode = render_mode
        self.observation_space = spaces.Dict(
            {
                "pos": spaces.Box(-10, 10, (2,), np.float64),
                "grid": spaces.Box(0, 255, (3, 4), np.uint8),
                "meta": spaces.Dict({"count": spaces.Discrete(1000), "flags": spaces.MultiBinary(3)}),
                "pair": spaces.Tuple((spaces.Discrete(5, start=-2), spaces.MultiDiscrete([3, 4]))),
                "small": spaces.Box(-100, 100, (), np.int16),
            }
        )
        self.action_space = spaces.Dict(
            {"move": spaces.Box(-1.0, 1.0, (2,), np.float32), "pick": spaces.Discrete(3, start=1)}
        )

    def _obs(self) -> dict[str, Any]:
        return {
            "pos": self.pos.copy(),
            "grid": self.np_random.integers(0, 256, (3, 4), dtype=np.uint8),
            "meta": {"count": self.count, "flags": (self.np_random.random(3) < 0.5).astype(np.int8)},
            "pair": (int(self.np_random.integers(-2, 3)), self.np_random.integers(0, [3, 4])),
            "small": np.int16(self.np_random.integers(-100, 101)),
        }

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        super().reset(seed=seed)
        self.pos = self.np_random.normal(size=2)
        self.count = 0
        return self._obs(), {
            "draw": float(self.np_random.random()),
            "vec": np.arange(3, dtype=np.int32),
            "text": "dropped",
            "_private": 1,
            "nested": {"a": 1},
        }

    def step(self, action: dict[str, Any]) -> Any:
        assert action["move"].dtype == np.float32 and action["move"].shape == (2,)
        assert isinstance(action["pick"], int) and 1 <= action["pick"] <= 3
        self.pos = self.pos + action["move"] * action["pick"] + self.np_random.normal(size=2) * 0.1
        self.count += 1
        terminated = bool(np.abs(self.pos).max() > 5)
        info = {"draw": float(self.np_random.random())}
        if self.count % 3 == 0:
            info["vec"] = np.full(3, self.count, dtype=np.int32)
        return self._obs(), float(self.pos.sum()), terminated, False, info

    def render(self) -> np.ndarray:
        frame = np.zeros((6, 8, 3), np.uint8)
        frame[..., 0] = self.count % 256
        return frame


def make_dict_env(render_mode: str | None = None) -> DictEnv:
    return DictEnv(render_mode)


class NestedActionEnv(gymnasium.Env):
    """A nested Dict action (a Tuple inside), or with `top_tuple` a Tuple action; each step
    checks the action against its space and adds it into the observation."""

    observation_space = spaces.Box(-1e6, 1e6, (4,), np.float64)

    def __init__(self, top_tuple: bool = False) -> None:
        pair = spaces.Tuple((spaces.Discrete(2), spaces.MultiDiscrete([3, 4])))
        force = spaces.Box(-1.0, 1.0, (2,), np.float32)
        self.top_tuple = top_tuple
        self.action_space = (
            spaces.Tuple((spaces.Discrete(3), force, pair))
            if top_tuple
            else spaces.Dict({"move": spaces.Discrete(3), "force": force, "pair": pair})
        )

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        super().reset(seed=seed)
        self.s = np.zeros(4)
        return self.s.copy(), {}

    def step(self, action: Any) -> Any:
        assert self.action_space.contains(action), action
        move, force, pair = action if self.top_tuple else (action["move"], action["force"], action["pair"])
        self.s += [move, float(force[0]) + 2 * float(force[1]), pair[0], pair[1] @ [1, 10]]
        return self.s.copy(), 0.0, False, False, {}


class BinaryActionEnv(gymnasium.Env):
    """A MultiBinary action, checked against the space in the worker: the observation is the
    last action as a number in base 2."""

    def __init__(self) -> None:
        self.observation_space = spaces.Discrete(8)
        self.action_space = spaces.MultiBinary(3)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        super().reset(seed=seed)
        return 0, {}

    def step(self, action: np.ndarray) -> Any:
        assert self.action_space.contains(action), action
        return int(action @ [4, 2, 1]), 0.0, False, False, {}


class AttrEnv(gymnasium.Env):
    """For call/get_attr/set_attr and reset options: its observation is its `difficulty` (after
    a reset, the reset option `start` if given); action 1 terminates; `scaled` takes
    arguments, `boom` raises a KeyError, `lock` returns what cannot be pickled, `hang`
    sleeps for an hour, `die` ends its worker process."""

    observation_space = spaces.Discrete(1000)
    action_space = spaces.Discrete(2)

    def __init__(self) -> None:
        self.difficulty = 1

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        super().reset(seed=seed)
        self.t = 0
        return (options or {}).get("start", self.difficulty), {}

    def step(self, action: int) -> Any:
        self.t += 1
        return self.difficulty, 0.0, action == 1, False, {}

    def scaled(self, k: int, add: int = 0) -> int:
        return self.difficulty * k + add

    def boom(self) -> None:
        raise KeyError("boom")

    def lock(self) -> Any:
        return threading.Lock()

    def hang(self) -> None:
        time.sleep(3600)

    def die(self) -> None:
        os._exit(4)


class FaultyEnv(gymnasium.Env):
    """CartPole-like spaces; its step misbehaves on command: action 2 raises a custom
    exception, 3 a ValueError, 4 os._exit(3), 5 SIGKILLs itself, 6 segfaults, 7 hangs,
    8 raises an exception that cannot be pickled; it returns gym 0.21's 4-tuple on 9, a None
    reward on 10, an array `terminated` on 11, an observation of 4 values on 12, a reward
    array of shape (1,) on 13, its observation in shape (3, 1) on 14 and (1, 3) on 15 (which
    broadcasts to the space's). obs: steps since reset,
    the worker's pid, a number drawn from the env's generator at reset (which seed it had)."""

    observation_space = spaces.Box(-1e9, 1e9, (3,), np.float64)
    action_space = spaces.Discrete(16)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        super().reset(seed=seed)
        self.t = 0
        self.draw = float(self.np_random.random())
        return np.array([0.0, float(os.getpid()), self.draw]), {}

    def step(self, action: int) -> Any:
        if action == 2:
            raise EnvBoom("boom", 42)
        if action == 3:
            raise ValueError("bad action value")
        if action == 4:
            os._exit(3)
        if action == 5:
            os.kill(os.getpid(), 9)
        if action == 6:
            import ctypes

            ctypes.string_at(0)
        if action == 7:
            time.sleep(3600)
        if action == 8:
            e = EnvBoom("unpicklable", 1)
            e.lock = threading.Lock()
            raise e
        self.t += 1
        obs = np.array([float(self.t), float(os.getpid()), self.draw])
        if action == 9:
            return obs, 1.0, False, {}
        if action == 10:
            return obs, None, False, False, {}
        if action == 11:
            return obs, 1.0, np.array([True, False]), False, {}
        if action == 12:
            return np.append(obs, 0.0), 1.0, False, False, {}
        if action == 13:
            return obs, np.array([1.0]), False, False, {}
        if action == 14:  # its bytes are an observation's: it was copied as one
            return obs.reshape(3, 1), 1.0, False, False, {}
        if action == 15:
            return obs.reshape(1, 3), 1.0, False, False, {}
        return obs, 1.0, False, False, {}


class FaultyDictEnv(FaultyEnv):
    """A FaultyEnv whose observation is a Dict ({"x": FaultyEnv's}), which the workers'
    Python path writes (FaultyEnv's plain one goes through their C++ path)."""

    observation_space = spaces.Dict({"x": FaultyEnv.observation_space})

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        obs, info = super().reset(seed=seed, options=options)
        return {"x": obs}, info

    def step(self, action: int) -> Any:
        result = super().step(action)
        return ({"x": result[0]}, *result[1:])


class RenderingFaultyEnv(FaultyEnv):
    """A FaultyEnv that renders (rgb_array): a 4x4 frame filled with its step count."""

    metadata = {"render_modes": ["rgb_array"]}
    render_mode = "rgb_array"

    def render(self) -> np.ndarray:
        return np.full((4, 4, 3), self.t, np.uint8)


class RenderRaisingEnv(RenderingFaultyEnv):
    """A RenderingFaultyEnv whose render raises a KeyError after its first step."""

    def render(self) -> np.ndarray:
        if self.t == 1:
            raise KeyError("render failed")
        return super().render()


class RenderNoneEnv(RenderingFaultyEnv):
    """A RenderingFaultyEnv whose render returns None after its first step (as an env made
    without render_mode does)."""

    def render(self) -> np.ndarray | None:
        return None if self.t == 1 else super().render()


class EnvBoom(Exception):
    """A custom exception type (picklable, two arguments)."""

    def __init__(self, what: str, code: int) -> None:
        super().__init__(what, code)
        self.code = code


class TextEnv(gymnasium.Env):
    observation_space = spaces.Dict({"x": spaces.Box(0, 1, (2,)), "mission": spaces.Text(10)})
    action_space = spaces.Discrete(2)


def failing_env_fn() -> Any:
    raise OSError("cannot build this env")


def env_dying_at_start(counter: str, how: str = "exit") -> FaultyEnv:
    """A FaultyEnv; but while the file `counter` holds a positive number, the process
    calling this takes one off and exits with code 7 instead (a worker that dies while
    it starts), or with how="raise" raises OSError."""
    if os.path.exists(counter):
        with open(counter) as f:
            n = int(f.read())
        if n > 0:
            with open(counter, "w") as f:
                f.write(str(n - 1))
            if how == "raise":
                raise OSError("env_fn refuses")
            os._exit(7)
    return FaultyEnv()


def env_slow_at_start(marker: str) -> FaultyEnv:
    """A FaultyEnv; but while the file `marker` exists, made after a minute's sleep."""
    if os.path.exists(marker):
        time.sleep(60)
    return FaultyEnv()


_steps_in_this_process = 0


class OrderEnv(gymnasium.Env):
    """Shows when and in which order a worker process steps its envs. obs[0] counts the
    steps of every OrderEnv in the process (so it orders them); action 1 sleeps 0.2 s
    first, 2 waits (up to 10 s) for the file at `path` and says in obs[1] whether it
    came, 3 creates it."""

    observation_space = spaces.Box(-1e9, 1e9, (2,), np.float64)
    action_space = spaces.Discrete(4)

    def __init__(self, path: str = "") -> None:
        self.path = path

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
        super().reset(seed=seed)
        return np.zeros(2), {}

    def step(self, action: int) -> Any:
        global _steps_in_this_process
        came = 0.0
        if action == 1:
            time.sleep(0.2)
        elif action == 2:
            deadline = time.monotonic() + 10
            while not os.path.exists(self.path) and time.monotonic() < deadline:
                time.sleep(0.01)
            came = float(os.path.exists(self.path))
        elif action == 3:
            open(self.path, "w").close()  # noqa: SIM115 - an empty marker
        _steps_in_this_process += 1
        return np.array([float(_steps_in_this_process), came]), 0.0, False, False, {}
