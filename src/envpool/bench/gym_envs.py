"""Gymnasium envs of envpool-bench's Python-env comparisons, registered in gymnasium's registry on import.

``envpool-bench/Busy-v0`` (:class:`BusyEnv`)
    A step that busy-waits (holding the GIL, as a Python env's own work does)
    for ``step_us`` microseconds (default 1000), then returns a 4-float
    observation; ``truncated`` after ``episode_steps`` steps (default 1000).
    ``spread=10`` draws each step's time from ``{lo, 10 lo}`` with equal
    odds, ``lo = 2 step_us / 11``, so the mean stays ``step_us`` (the same
    10x spread as ``benchmarks/straggler.py`` for the C++ engine); the draws
    come from the env's ``np_random``, so env ``i`` of a pool seeded ``s``
    (reset with ``seed=s + i``) has its own reproducible sequence. The default
    ``spread=1`` is an even spread: every step takes ``step_us``.
``envpool-bench/PongPreprocessed-v0`` (:func:`make_pong_preprocessed`)
    ``ALE/Pong-v5`` with ``frameskip=1, repeat_action_probability=0`` inside
    gymnasium's ``AtariPreprocessing(noop_max=30, frame_skip=4,
    screen_size=84)`` and ``FrameStackObservation(4)`` (the keywords are
    options): the preprocessing runs wherever the env is stepped, i.e. in
    each vectoriser's worker processes. Needs ale-py and OpenCV.

A fresh process (a worker of any vectoriser, whatever its start method)
finds these ids by importing this module; :func:`make` does that, and is
picklable by reference, so ``functools.partial(make, BUSY_ID, step_us=500)``
is a zero-argument env factory for ``envpool.make`` and gymnasium's and SB3's
vector envs alike. gymnasium's own module syntax works too:
``gymnasium.make("envpool.bench.gym_envs:envpool-bench/Busy-v0")``.
"""

from __future__ import annotations

import importlib
import time

import gymnasium
import numpy as np

BUSY_ID = "envpool-bench/Busy-v0"
PONG_ID = "envpool-bench/PongPreprocessed-v0"

# Namespaces whose ids are registered by importing a module that gymnasium itself does not import.
NAMESPACE_MODULES = {"envpool-bench": __name__, "ALE": "ale_py"}


def spin(seconds: float) -> None:
    """Busy-wait ``seconds`` on the wall clock (the CPU stays busy and the GIL held, as in a real step)."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def step_times_us(step_us: float, spread: float) -> tuple[float, ...]:
    """The step times (µs) a step draws from with equal odds: ``(step_us,)``, or ``(lo, spread * lo)``
    with the same mean ``step_us``."""
    if spread == 1:
        return (float(step_us),)
    lo = 2.0 * step_us / (1.0 + spread)
    return (lo, spread * lo)


class BusyEnv(gymnasium.Env):
    """A gymnasium env whose step busy-waits a given time (see the module docstring)."""

    metadata = {"render_modes": []}

    def __init__(self, step_us: float = 1000.0, spread: float = 1.0, episode_steps: int = 1000):
        step_us, spread, episode_steps = float(step_us), float(spread), int(episode_steps)
        if not np.isfinite(step_us) or step_us < 0:
            raise ValueError(f"step_us must be a finite number >= 0, got {step_us}")
        if not np.isfinite(spread) or spread < 1:
            raise ValueError(f"spread must be >= 1 (the ratio of the longest step time to the shortest), got {spread}")
        if episode_steps < 1:
            raise ValueError(f"episode_steps must be >= 1, got {episode_steps}")
        self.step_us, self.spread, self.episode_steps = step_us, spread, episode_steps
        self.times_us = np.asarray(step_times_us(step_us, spread))
        self.observation_space = gymnasium.spaces.Box(-np.inf, np.inf, (4,), np.float32)
        self.action_space = gymnasium.spaces.Discrete(2)
        self._t = 0

    def _obs(self, action: int, us: float) -> np.ndarray:
        return np.array([self._t, action, us, self.step_us], np.float32)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        self._t = 0
        return self._obs(0, 0.0), {}

    def step(self, action):
        if len(self.times_us) == 1:
            us = float(self.times_us[0])
        else:
            us = float(self.times_us[self.np_random.integers(len(self.times_us))])
        spin(us * 1e-6)
        self._t += 1
        return self._obs(int(action), us), 1.0, False, self._t >= self.episode_steps, {}


def make_pong_preprocessed(noop_max: int = 30, frame_skip: int = 4, screen_size: int = 84, stack_num: int = 4, **kw):
    """``ALE/Pong-v5`` (frameskip 1, no sticky actions; ``kw`` to ``gymnasium.make``) + AtariPreprocessing
    + FrameStackObservation: what the ``gymnasium-*`` engines step for our ``Pong-v5``."""
    import ale_py

    gymnasium.register_envs(ale_py)
    env = gymnasium.make("ALE/Pong-v5", **{"frameskip": 1, "repeat_action_probability": 0.0, **kw})
    env = gymnasium.wrappers.AtariPreprocessing(
        env, noop_max=int(noop_max), frame_skip=int(frame_skip), screen_size=int(screen_size)
    )
    return gymnasium.wrappers.FrameStackObservation(env, int(stack_num))


def register() -> None:
    """Put this module's ids in gymnasium's registry (once; done on import)."""
    if BUSY_ID not in gymnasium.registry:
        gymnasium.register(BUSY_ID, entry_point=f"{__name__}:BusyEnv")
    if PONG_ID not in gymnasium.registry:
        gymnasium.register(PONG_ID, entry_point=f"{__name__}:make_pong_preprocessed")


def import_registrations(env_id: str) -> None:
    """Import the module that registers ``env_id`` (``module:id``, or a namespace of ``NAMESPACE_MODULES``)."""
    module, sep, name = env_id.rpartition(":")
    if sep:
        importlib.import_module(module)
        return
    namespace = name.split("/", 1)[0] if "/" in name else None
    if namespace in NAMESPACE_MODULES:
        importlib.import_module(NAMESPACE_MODULES[namespace])


def make(env_id: str, **kwargs) -> gymnasium.Env:
    """``gymnasium.make(env_id, **kwargs)`` in any process: the id's registering module imported first."""
    import_registrations(env_id)
    return gymnasium.make(env_id, **kwargs)


register()
