"""Procgen tasks: EnvPool 1.2.5's 50 ids (16 games in their easy, hard, extreme, memory
and exploration modes) with its options, on procgen 0.10.7's own engine.

The C++ family (cpp/procgen/) drives the ``libenv.so`` of procgen 0.10.7's wheel, which
the build installs with its assets in ``envpool/_procgen/`` (third_party/procgen). An env
seeded ``s`` plays procgen's level sequence for ``rand_seed = s mod 2**32``; the step that
ends a level shows the next level's first frame, as procgen's engine does. See
docs/procgen.md.
"""

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from envpool.registration import PythonSide, register, set_family_python

# Where the build installs procgen's engine, its assets and version.txt (the family's
# default library_dir: _procgen/ beside the extension module).
LIBRARY_DIR = str(Path(__file__).resolve().parent.parent / "_procgen")

# (game, the game's own episode length, its modes): procgen 0.10.7's games (the
# timeouts its games set; jumper's memory mode runs 2000 steps).
GAMES = [
    ("bigfish", 6000, [0, 1]),
    ("bossfight", 4000, [0, 1]),
    ("caveflyer", 1000, [0, 1, 10, 20]),
    ("chaser", 1000, [0, 1, 2]),
    ("climber", 1000, [0, 1, 20]),
    ("coinrun", 1000, [0, 1, 20]),
    ("dodgeball", 1000, [0, 1, 2, 10]),
    ("fruitbot", 1000, [0, 1]),
    ("heist", 1000, [0, 1, 10, 20]),
    ("jumper", 1000, [0, 1, 10, 20]),
    ("leaper", 500, [0, 1, 2, 20]),
    ("maze", 500, [0, 1, 10, 20]),
    ("miner", 1000, [0, 1, 10]),
    ("ninja", 1000, [0, 1, 20]),
    ("plunder", 4000, [0, 1]),
    ("starpilot", 1000, [0, 1, 2]),
]

MODES = {0: "Easy", 1: "Hard", 2: "Extreme", 10: "Memory", 20: "Exploration"}
# procgen's names for distribution_mode, accepted as well as EnvPool's integers.
MODE_NAMES = {"easy": 0, "hard": 1, "extreme": 2, "memory": 10, "exploration": 20}


def _prepare(merged: dict[str, Any], user: Mapping[str, Any]) -> None:
    """The 512x512 frame buffer only with a render_mode, procgen's mode names, and no engine
    time limit with use_sequential_levels (an episode then spans levels; each level still
    ends at the game's own timeout, as in procgen)."""
    merged["render_frames"] = user.get("render_mode") is not None
    if merged.get("use_sequential_levels") and "max_episode_steps" not in user:
        merged["max_episode_steps"] = 0
    mode = merged.get("distribution_mode")
    if isinstance(mode, str):
        if mode not in MODE_NAMES:
            raise ValueError(f"distribution_mode must be one of {sorted(MODE_NAMES)} or {sorted(MODES)}, got {mode!r}")
        merged["distribution_mode"] = MODE_NAMES[mode]


set_family_python("Procgen", PythonSide(prepare=_prepare))


def task_id(game: str, mode: int) -> str:
    return f"{game.capitalize()}{MODES[mode]}-v0"


def timeout(game: str, mode: int) -> int:
    steps = dict((g, t) for g, t, _ in GAMES)[game]
    return 2000 if (game, mode) == ("jumper", 10) else steps


for _game, _, _modes in GAMES:
    for _mode in _modes:
        register(
            task_id(_game, _mode),
            "Procgen",
            env_name=_game,
            distribution_mode=_mode,
            max_episode_steps=timeout(_game, _mode),
            render_fps=15,  # procgen's gym metadata
        )
