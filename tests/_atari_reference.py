"""ale-py's env with gymnasium's Atari wrappers: the reference the Atari family is checked against
(tests/families/atari/test_atari.py, tests/api/test_render.py)."""

from __future__ import annotations

import ale_py
import gymnasium as gym
from gymnasium.wrappers import AtariPreprocessing, FrameStackObservation

gym.register_envs(ale_py)


def reference_env(
    game: str,
    gray: bool = True,
    sticky: float = 0.0,
    frame_skip: int = 4,
    stack_num: int = 4,
    size: tuple[int, int] = (84, 84),
    **ale_kwargs,
) -> gym.Env:
    env = gym.make(f"ALE/{game}-v5", frameskip=1, repeat_action_probability=sticky, **ale_kwargs)
    env = AtariPreprocessing(env, noop_max=0, frame_skip=frame_skip, screen_size=(size[1], size[0]), grayscale_obs=gray)
    return FrameStackObservation(env, stack_num)
