"""MiniGrid tasks: minigrid 3.2's ids (EnvPool 1.2.5's MiniGrid ids and
``MiniGrid-MultiRoom-N4-S5-v1``), with minigrid's keyword options and per-id defaults.

The envs run in C++ (cpp/minigrid/), one family per minigrid env class, drawing from numpy's
``Generator(PCG64(SeedSequence(seed)))`` in minigrid's order: env ``i`` of
``make(id, seed=s)`` is minigrid's ``gymnasium.make(id)`` reset with ``seed=s + i``.
Observations are EnvPool 1.2.5's: ``image`` (agent_view_size x agent_view_size x 3 uint8),
``direction`` and ``mission`` (the mission's UTF-8 bytes, zero padded to ``mission_bytes``, 96);
:func:`decode_mission` turns them back into minigrid's string. ``max_steps`` (minigrid's name) is
the pool's ``max_episode_steps``: it ends the episode (truncated) and scales the reward
``1 - 0.9 * step_count / max_steps``. See docs/minigrid.md.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from envpool.registration import PythonSide, refuse, register

# minigrid's camelCase keywords -> ours (EnvPool 1.2.5's names).
_ALIASES = {
    "numObjs": "num_objs",
    "minNumRooms": "min_num_rooms",
    "maxNumRooms": "max_num_rooms",
    "maxRoomSize": "max_room_size",
}
# Keys whose value is a pair or None (minigrid's tuples), passed to the engine as a list
# ([] for None).
_PAIRS = ("agent_start_pos", "agent_room")


def decode_mission(mission: Any) -> str | list[str]:
    """minigrid's mission string from an observation's ``mission`` bytes.

    Args:
        mission: one env's row (``obs["mission"][i]``: uint8, zero padded) or a batch of rows.

    Returns:
        The string (a list of strings for a batch). A mission longer than ``mission_bytes``
        was cut to that many bytes.
    """
    arr = np.asarray(mission, dtype=np.uint8)
    if arr.ndim == 1:
        return arr.tobytes().rstrip(b"\0").decode("utf-8", errors="replace")
    rows: list[Any] = [decode_mission(row) for row in arr]
    return rows


def _is_envpool_random_start(pos: Any) -> bool:
    try:
        return pos is not None and len(pos) == 2 and all(int(x) == -1 for x in pos)
    except TypeError:
        return False


def _int(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"config {name!r} must be an int, got {value!r}")
    return int(value)


def _prepare(default_max_steps: Callable[[dict[str, Any]], int]) -> Callable[[dict[str, Any], Mapping[str, Any]], None]:
    """minigrid's keywords as the engine's config: ``max_steps`` (None: the env's default for the
    resolved options) becomes ``max_episode_steps``, camelCase aliases their snake_case names, and
    None / pairs of ``agent_start_pos`` / ``agent_room`` lists."""

    def prepare(merged: dict[str, Any], user: Mapping[str, Any]) -> None:
        for old, new in _ALIASES.items():
            if old in merged:
                if new in user and old in user:
                    raise ValueError(f"pass either {new} or {old} (minigrid's name), not both")
                merged[new] = merged.pop(old)
        # EnvPool 1.2.5's random start: agent_start_pos=(-1, -1), agent_start_dir=-1.
        if "agent_start_pos" in merged and _is_envpool_random_start(merged["agent_start_pos"]):
            merged["agent_start_pos"] = None
            if merged.get("agent_start_dir") == -1:
                merged["agent_start_dir"] = 0
        for key in _PAIRS:
            if key in merged:
                v = merged[key]
                if v is None:
                    merged[key] = []
                else:
                    try:
                        pair = [_int(key, x) for x in v]
                    except TypeError:
                        raise
                    except Exception:  # noqa: BLE001
                        raise TypeError(f"config {key!r} must be None or a pair of ints, got {v!r}") from None
                    if len(pair) != 2:
                        raise ValueError(f"config {key!r} must be None or a pair of ints, got {v!r}")
                    merged[key] = [float(x) for x in pair]
        for key in ("size", "num_objs", "room_size", "num_rows", "num_cols", "width", "height"):
            if key in merged:
                value = _int(key, merged[key])
                if value < 0:
                    raise ValueError(f"{key} must not be negative, got {value}")
        visited = merged.pop("num_rooms_visited", None)
        max_steps = merged.pop("max_steps", None)
        if max_steps is None:
            if "max_episode_steps" not in user:
                merged["max_episode_steps"] = default_max_steps({**merged, "num_rooms_visited": visited})
        else:
            max_steps = _int("max_steps", max_steps)
            if "max_episode_steps" in user and user["max_episode_steps"] != max_steps:
                raise ValueError("pass either max_steps (minigrid's name) or max_episode_steps, not both")
            merged["max_episode_steps"] = max_steps
        if _int("max_episode_steps", merged["max_episode_steps"]) < 1:
            raise ValueError(f"max_steps must be >= 1, got {merged['max_episode_steps']}")

    return prepare


def _side(default_max_steps: Callable[[dict[str, Any]], int]) -> PythonSide:
    return PythonSide(prepare=_prepare(default_max_steps))


# The family of each minigrid env class, with minigrid's max_steps default (max_steps=None).
_FAMILIES: dict[str, Callable[[dict[str, Any]], int]] = {
    "MiniGridEmpty": lambda c: 4 * c["size"] ** 2,
    "MiniGridDoorKey": lambda c: 10 * c["size"] ** 2,
    "MiniGridFourRooms": lambda c: 100,
    "MiniGridMultiRoom": lambda c: c["max_num_rooms"] * 20,
    "MiniGridLavaGap": lambda c: 4 * c["size"] ** 2,
    "MiniGridCrossing": lambda c: 4 * c["size"] ** 2,
    "MiniGridDistShift": lambda c: 4 * c["width"] * c["height"],
    "MiniGridDynamicObstacles": lambda c: 4 * c["size"] ** 2,
    "MiniGridFetch": lambda c: 5 * c["size"] ** 2,
    "MiniGridGoToDoor": lambda c: 4 * c["size"] ** 2,
    "MiniGridGoToObject": lambda c: 5 * c["size"] ** 2,
    "MiniGridPutNear": lambda c: 5 * c["size"],
    "MiniGridRedBlueDoors": lambda c: 20 * c["size"] ** 2,
    "MiniGridMemory": lambda c: 5 * c["size"] ** 2,
    "MiniGridLockedRoom": lambda c: 10 * c["size"],
    "MiniGridPlayground": lambda c: 100,
    "MiniGridKeyCorridor": lambda c: 30 * c["room_size"] ** 2,
    "MiniGridUnlock": lambda c: 8 * 6**2,
    "MiniGridUnlockPickup": lambda c: 8 * 6**2,
    "MiniGridBlockedUnlockPickup": lambda c: 16 * 6**2,
    "MiniGridObstructedMaze": lambda c: 4 * c["num_rooms_visited"] * 6**2,
}
_SIDES = {family: _side(fn) for family, fn in _FAMILIES.items()}


def _register(task_id: str, family: str, **config: Any) -> None:
    register(task_id, family, python=_SIDES[family], render_fps=10, **config)


for size in (5, 6, 8, 16):
    _register(f"MiniGrid-Empty-{size}x{size}-v0", "MiniGridEmpty", size=size)
for size in (5, 6):
    _register(f"MiniGrid-Empty-Random-{size}x{size}-v0", "MiniGridEmpty", size=size, agent_start_pos=None)
for size in (5, 6, 8, 16):
    _register(f"MiniGrid-DoorKey-{size}x{size}-v0", "MiniGridDoorKey", size=size)
_register("MiniGrid-DistShift1-v0", "MiniGridDistShift", width=9, height=7, strip2_row=2)
_register("MiniGrid-DistShift2-v0", "MiniGridDistShift", width=9, height=7, strip2_row=5)
for obstacle, name in (("lava", "Lava"), ("wall", "Simple")):
    for size, n in ((9, 1), (9, 2), (9, 3), (11, 5)):
        _register(
            f"MiniGrid-{name}CrossingS{size}N{n}-v0",
            "MiniGridCrossing",
            size=size,
            num_crossings=n,
            obstacle_type=obstacle,
        )
for size in (5, 6, 7):
    _register(f"MiniGrid-LavaGapS{size}-v0", "MiniGridLavaGap", size=size, obstacle_type="lava")
for task_id, size, n, random_start in (
    ("MiniGrid-Dynamic-Obstacles-5x5-v0", 5, 2, False),
    ("MiniGrid-Dynamic-Obstacles-Random-5x5-v0", 5, 2, True),
    ("MiniGrid-Dynamic-Obstacles-6x6-v0", 6, 3, False),
    ("MiniGrid-Dynamic-Obstacles-Random-6x6-v0", 6, 3, True),
    ("MiniGrid-Dynamic-Obstacles-8x8-v0", 8, 4, False),
    ("MiniGrid-Dynamic-Obstacles-16x16-v0", 16, 8, False),
):
    extra = {"agent_start_pos": None} if random_start else {}
    _register(task_id, "MiniGridDynamicObstacles", size=size, n_obstacles=n, **extra)
for task_id, size, n in (
    ("MiniGrid-Fetch-5x5-N2-v0", 5, 2),
    ("MiniGrid-Fetch-6x6-N2-v0", 6, 2),
    ("MiniGrid-Fetch-8x8-N3-v0", 8, 3),
):
    _register(task_id, "MiniGridFetch", size=size, num_objs=n)
_register("MiniGrid-FourRooms-v0", "MiniGridFourRooms")
for size in (5, 6, 8):
    _register(f"MiniGrid-GoToDoor-{size}x{size}-v0", "MiniGridGoToDoor", size=size)
for size in (6, 8):
    _register(f"MiniGrid-GoToObject-{size}x{size}-N2-v0", "MiniGridGoToObject", size=size, num_objs=2)
for room_size, rows in ((3, 1), (3, 2), (3, 3), (4, 3), (5, 3), (6, 3)):
    _register(
        f"MiniGrid-KeyCorridorS{room_size}R{rows}-v0",
        "MiniGridKeyCorridor",
        room_size=room_size,
        num_rows=rows,
        obj_type="ball",
    )
_register("MiniGrid-LockedRoom-v0", "MiniGridLockedRoom", size=19)
for task_id, size, random_length in (
    ("MiniGrid-MemoryS17Random-v0", 17, True),
    ("MiniGrid-MemoryS13Random-v0", 13, True),
    ("MiniGrid-MemoryS13-v0", 13, False),
    ("MiniGrid-MemoryS11-v0", 11, False),
    ("MiniGrid-MemoryS9-v0", 9, False),
    ("MiniGrid-MemoryS7-v0", 7, False),
):
    _register(task_id, "MiniGridMemory", size=size, random_length=random_length)
for task_id, lo, hi, room in (
    ("MiniGrid-MultiRoom-N2-S4-v0", 2, 2, 4),
    ("MiniGrid-MultiRoom-N4-S5-v0", 6, 6, 5),  # sic: minigrid's N4-S5-v0 has six rooms
    ("MiniGrid-MultiRoom-N4-S5-v1", 4, 4, 5),
    ("MiniGrid-MultiRoom-N6-v0", 6, 6, 10),
):
    _register(task_id, "MiniGridMultiRoom", min_num_rooms=lo, max_num_rooms=hi, max_room_size=room)
for task_id, variant, key_in_box, blocked, agent_room, quarters, visited in (
    ("MiniGrid-ObstructedMaze-1Dl-v0", 0, False, False, (1, 1), 4, 2),
    ("MiniGrid-ObstructedMaze-1Dlh-v0", 0, True, False, (1, 1), 4, 2),
    ("MiniGrid-ObstructedMaze-1Dlhb-v0", 0, True, True, (1, 1), 4, 2),
    ("MiniGrid-ObstructedMaze-2Dl-v0", 1, False, False, (2, 1), 1, 4),
    ("MiniGrid-ObstructedMaze-2Dlh-v0", 1, True, False, (2, 1), 1, 4),
    ("MiniGrid-ObstructedMaze-2Dlhb-v0", 1, True, True, (2, 1), 1, 4),
    ("MiniGrid-ObstructedMaze-1Q-v0", 1, True, True, (1, 1), 1, 5),
    ("MiniGrid-ObstructedMaze-2Q-v0", 1, True, True, (2, 1), 2, 11),
    ("MiniGrid-ObstructedMaze-Full-v0", 1, True, True, (1, 1), 4, 25),
    ("MiniGrid-ObstructedMaze-2Dlhb-v1", 2, True, True, (2, 1), 1, 4),
    ("MiniGrid-ObstructedMaze-1Q-v1", 2, True, True, (1, 1), 1, 5),
    ("MiniGrid-ObstructedMaze-2Q-v1", 2, True, True, (2, 1), 2, 11),
    ("MiniGrid-ObstructedMaze-Full-v1", 2, True, True, (1, 1), 4, 25),
):
    _register(
        task_id,
        "MiniGridObstructedMaze",
        variant=variant,
        num_rows=1 if variant == 0 else 3,
        num_cols=2 if variant == 0 else 3,
        key_in_box=key_in_box,
        blocked=blocked,
        agent_room=agent_room,
        num_quarters=quarters,
        num_rooms_visited=visited,
    )
_register("MiniGrid-Playground-v0", "MiniGridPlayground")
_register("MiniGrid-PutNear-6x6-N2-v0", "MiniGridPutNear", size=6, num_objs=2)
_register("MiniGrid-PutNear-8x8-N3-v0", "MiniGridPutNear", size=8, num_objs=3)
for size in (6, 8):
    _register(f"MiniGrid-RedBlueDoors-{size}x{size}-v0", "MiniGridRedBlueDoors", size=size)
_register("MiniGrid-Unlock-v0", "MiniGridUnlock")
_register("MiniGrid-UnlockPickup-v0", "MiniGridUnlockPickup")
_register("MiniGrid-BlockedUnlockPickup-v0", "MiniGridBlockedUnlockPickup")

# minigrid's wave-function-collapse levels draw their layouts through a pattern solver (numpy
# array heuristics and networkx graph edits) whose every draw and tie-break would have to be
# reproduced; they are not run here (docs/minigrid.md).
for _preset in (
    "MazeSimple",
    "DungeonMazeScaled",
    "RoomsFabric",
    "ObstaclesBlackdots",
    "ObstaclesAngular",
    "ObstaclesHogs3",
):
    refuse(
        f"MiniGrid-WFC-{_preset}-v0",
        f"MiniGrid-WFC-{_preset}-v0 is not available: minigrid's WFC levels are generated by its "
        "wave-function-collapse solver (numpy and networkx), which envpool does not reproduce draw "
        "for draw; use gymnasium.make with minigrid, or envpool's Python-env pools (docs/minigrid.md)",
    )
