"""BabyAI tasks: minigrid 3.2's 96 BabyAI ids (EnvPool 1.2.5's), run in C++ (cpp/minigrid/babyai/).

Each id is one of minigrid's BabyAI level classes (the ``level`` option) with the keyword
arguments its registration and ``__init__`` give it (``_babyai_levels.LEVELS``). Env ``i`` of
``make(id, seed=s)`` is minigrid's ``gymnasium.make(id)`` reset with ``seed=s + i`` once, then
unseeded: the same levels (drawn by rejection sampling from numpy's
``Generator(PCG64(SeedSequence(seed)))``, cpp/random/numpy_generator.h), missions, observations,
rewards and flags. ``mission`` is the mission's UTF-8 bytes zero padded to 512 bytes (EnvPool
1.2.5's length). ``max_steps`` (minigrid's keyword) fixes the episode limit; left at None, the
level sets it at each reset from the instruction and the maze size as minigrid does
(``max_episode_steps`` 0: no engine limit on top). PutNextLocal's ``num_objs`` and PutNext /
MoveTwoAcross's ``objs_per_room`` are ``num_dists`` here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from envpool.registration import PythonSide, register
from envpool.tasks._babyai_levels import LEVELS

_ALIASES = {"num_objs": "num_dists", "objs_per_room": "num_dists"}
_NONE_IS_EMPTY = ("first_color", "second_color", "select_by")


def _prepare(engine: dict[str, Any], user: Mapping[str, Any]) -> None:
    """minigrid's keywords as the engine's: ``max_steps`` -> ``max_episode_steps``, None colors
    and ``select_by`` -> "", ``num_objs`` / ``objs_per_room`` -> ``num_dists``."""
    for old, new in _ALIASES.items():
        if old in engine:
            engine[new] = engine.pop(old)
    for key in _NONE_IS_EMPTY:
        if key in engine and engine[key] is None:
            engine[key] = ""
    max_steps = engine.pop("max_steps", None)
    if max_steps is not None:
        if isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1:
            raise ValueError(f"max_steps must be None or an int >= 1, got {max_steps!r}")
        if "max_episode_steps" in user and user["max_episode_steps"] != max_steps:
            raise ValueError("pass either max_steps (minigrid's name) or max_episode_steps, not both")
        engine["max_episode_steps"] = max_steps


_SIDE = PythonSide(prepare=_prepare)

for _task_id, _options in LEVELS.items():
    register(_task_id, "BabyAI", python=_SIDE, render_fps=10, **_options)
