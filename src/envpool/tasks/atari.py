"""Atari tasks: one ``<Game>-v5`` task per ROM shipped by the installed ale-py.

Task ids follow gymnasium/ale-py's names (``Pong-v5``, ``MontezumaRevenge-v5``,
...). Each task passes the game id (``task``, e.g. ``"montezuma_revenge"``)
and the ROM directory (``rom_dir``) to the C++ "Atari" family; the family
knows nothing of Python. Options and defaults are EnvPool's (see
``envpool._envpool.family_defaults("Atari")``): stack_num=4, frame_skip=4,
noop_max=30, use_fire_reset=True, img_height=img_width=84, gray_scale=True,
max_episode_steps=27000, ...; ``mode``/``difficulty`` of -1 keep the game's
default.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

from envpool.registration import PythonSide, register

# Games differ in their minimal action sets: a multi-task pool's error says how to align them.
_PYTHON = PythonSide(action_mismatch_hint=" (pass full_action_space=True: every game then has the same 18 actions)")


def rom_dir() -> str:
    """The directory ale-py loads its ROMs from (honours ``ALE_ROMS_DIR``)."""
    if env_dir := os.environ.get("ALE_ROMS_DIR"):
        return str(Path(env_dir).absolute())
    import ale_py.roms

    return str(Path(ale_py.roms.__file__).parent)


def game_ids() -> list[str]:
    """Single-player ALE game ids (snake_case) with a ROM present, in ale-py's order.

    ale-py also ships a few multi-player-only ROMs (combat, joust, maze_craze,
    warlords) that ALE's single-agent interface rejects; they are left out.
    """
    import ale_py
    import ale_py.roms

    directory = Path(rom_dir())
    games = []
    for game in ale_py.roms.get_all_rom_ids():
        path = directory / f"{game}.bin"
        if path.is_file() and ale_py.ALEInterface.isSupportedROM(path) is not None:
            games.append(game)
    return games


def task_id(game: str) -> str:
    """ale-py's CamelCase name of a game id: ``space_invaders`` -> ``SpaceInvaders-v5``."""
    return game.title().replace("_", "") + "-v5"


def envpool_task_id(game: str) -> str:
    """EnvPool 1.2.5's name of a game id, each piece capitalized: the same as :func:`task_id`'s
    but for ``tic_tac_toe_3d`` (EnvPool's ``TicTacToe3d-v5``, ale-py's ``TicTacToe3D-v5``)."""
    return "".join(piece.capitalize() for piece in game.split("_")) + "-v5"


def _register_all() -> None:
    try:
        directory, games = rom_dir(), game_ids()
    except ImportError as e:  # ale-py is a dependency, but don't break `import envpool`
        warnings.warn(f"Atari tasks not registered: ale-py is not importable ({e})", stacklevel=2)
        return
    for game in games:
        for name in dict.fromkeys((task_id(game), envpool_task_id(game))):
            register(
                name,
                "Atari",
                python=_PYTHON,
                reference="ALE/" + task_id(game),  # ale-py's name of the game
                task=game,
                rom_dir=directory,
                render_fps=30,  # ale-py's
            )


_register_all()
