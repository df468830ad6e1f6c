"""BabyAI tasks: minigrid 3.2's 96 BabyAI ids (EnvPool 1.2.5's), run in C++ (cpp/minigrid/babyai/).

Each id is one of minigrid's BabyAI level classes (``level``) with the keyword arguments its
registration and ``__init__`` give it. Env ``i`` of ``make(id, seed=s)`` is minigrid's
``gymnasium.make(id)`` reset with ``seed=s + i`` once, then unseeded: the same levels (drawn by
rejection sampling from numpy's ``Generator(PCG64(SeedSequence(seed)))``, see
cpp/random/numpy_generator.h), missions, observations, rewards and flags. The ``mission`` is its
UTF-8 bytes zero padded to 512 bytes. ``max_steps=None`` (minigrid's default for most levels) is
``max_episode_steps=0`` here: the level sets its limit at each reset from the instruction and the
maze size, as minigrid does.
"""

from __future__ import annotations

from typing import Any

# The options of each level class (minigrid/envs/babyai/*.py __init__ defaults).
_ROOM_GRID = {"room_size": 8, "num_rows": 3, "num_cols": 3}
_ONE_ROOM = {"num_rows": 1, "num_cols": 1}
_LEVEL_GEN = {
    **_ROOM_GRID,
    "num_dists": 18,
    "locked_room_prob": 0.5,
    "locations": True,
    "unblocking": True,
    "implicit_unlock": True,
    "action_kinds": "goto,pickup,open,putnext",
    "instr_kinds": "action,and,seq",
}


def _lv(level: str, base: dict[str, Any], **options: Any) -> dict[str, Any]:
    return {"level": level, **base, **options}


LEVELS: dict[str, dict[str, Any]] = {
    "BabyAI-GoToRedBallGrey-v0": _lv("GoToRedBallGrey", _ONE_ROOM, room_size=8, num_dists=7),
    "BabyAI-GoToRedBall-v0": _lv("GoToRedBall", _ONE_ROOM, room_size=8, num_dists=7),
    "BabyAI-GoToRedBallNoDists-v0": _lv("GoToRedBall", _ONE_ROOM, room_size=8, num_dists=0),
    "BabyAI-GoToObj-v0": _lv("GoToObj", _ONE_ROOM, room_size=8),
    "BabyAI-GoToObjS4-v0": _lv("GoToObj", _ONE_ROOM, room_size=4),
    "BabyAI-GoToObjS6-v1": _lv("GoToObj", _ONE_ROOM, room_size=6),
    "BabyAI-GoToLocal-v0": _lv("GoToLocal", _ONE_ROOM, room_size=8, num_dists=8),
    **{
        f"BabyAI-GoToLocalS{s}N{n}-v0": _lv("GoToLocal", _ONE_ROOM, room_size=s, num_dists=n)
        for s, n in ((5, 2), (6, 2), (6, 3), (6, 4), (7, 4), (7, 5), (8, 2), (8, 3), (8, 4), (8, 5), (8, 6), (8, 7))
    },
    "BabyAI-GoTo-v0": _lv("GoTo", _ROOM_GRID, num_dists=18, doors_open=False),
    "BabyAI-GoToOpen-v0": _lv("GoTo", _ROOM_GRID, num_dists=18, doors_open=True),
    "BabyAI-GoToObjMaze-v0": _lv("GoTo", _ROOM_GRID, num_dists=1, doors_open=False),
    "BabyAI-GoToObjMazeOpen-v0": _lv("GoTo", _ROOM_GRID, num_dists=1, doors_open=True),
    "BabyAI-GoToObjMazeS4R2-v0": _lv("GoTo", _ROOM_GRID, num_dists=1, room_size=4, num_rows=2, num_cols=2),
    **{
        f"BabyAI-GoToObjMazeS{s}-v0": _lv("GoTo", _ROOM_GRID, num_dists=1, room_size=s, doors_open=False)
        for s in (4, 5, 6, 7)
    },
    "BabyAI-GoToImpUnlock-v0": _lv("GoToImpUnlock", _ROOM_GRID),
    "BabyAI-GoToSeq-v0": _lv(
        "LevelGen", _LEVEL_GEN, action_kinds="goto", locked_room_prob=0.0, locations=False, unblocking=False
    ),
    "BabyAI-GoToSeqS5R2-v0": _lv(
        "LevelGen",
        _LEVEL_GEN,
        room_size=5,
        num_rows=2,
        num_cols=2,
        num_dists=4,
        action_kinds="goto",
        locked_room_prob=0.0,
        locations=False,
        unblocking=False,
    ),
    "BabyAI-GoToRedBlueBall-v0": _lv("GoToRedBlueBall", _ONE_ROOM, room_size=8, num_dists=7),
    "BabyAI-GoToDoor-v0": _lv("GoToDoor", _ROOM_GRID, room_size=7),
    "BabyAI-GoToObjDoor-v0": _lv("GoToObjDoor", _ROOM_GRID),
    "BabyAI-Open-v0": _lv("Open", _ROOM_GRID),
    "BabyAI-OpenRedDoor-v0": _lv("OpenRedDoor", _ROOM_GRID, num_rows=1, num_cols=2, room_size=5),
    "BabyAI-OpenDoor-v0": _lv("OpenDoor", _ROOM_GRID),
    "BabyAI-OpenDoorDebug-v0": _lv("OpenDoor", _ROOM_GRID, debug=True),
    "BabyAI-OpenDoorColor-v0": _lv("OpenDoor", _ROOM_GRID, select_by="color"),
    "BabyAI-OpenDoorLoc-v0": _lv("OpenDoor", _ROOM_GRID, select_by="loc"),
    "BabyAI-OpenTwoDoors-v0": _lv("OpenTwoDoors", _ROOM_GRID, room_size=6),
    "BabyAI-OpenRedBlueDoors-v0": _lv("OpenTwoDoors", _ROOM_GRID, room_size=6, first_color="red", second_color="blue"),
    "BabyAI-OpenRedBlueDoorsDebug-v0": _lv(
        "OpenTwoDoors", _ROOM_GRID, room_size=6, first_color="red", second_color="blue", strict=True
    ),
    "BabyAI-OpenDoorsOrderN2-v0": _lv("OpenDoorsOrder", _ROOM_GRID, room_size=6, num_doors=2),
    "BabyAI-OpenDoorsOrderN4-v0": _lv("OpenDoorsOrder", _ROOM_GRID, room_size=6, num_doors=4),
    "BabyAI-OpenDoorsOrderN2Debug-v0": _lv("OpenDoorsOrder", _ROOM_GRID, room_size=6, num_doors=2, debug=True),
    "BabyAI-OpenDoorsOrderN4Debug-v0": _lv("OpenDoorsOrder", _ROOM_GRID, room_size=6, num_doors=4, debug=True),
    "BabyAI-Pickup-v0": _lv("Pickup", _ROOM_GRID),
    "BabyAI-UnblockPickup-v0": _lv("UnblockPickup", _ROOM_GRID),
    "BabyAI-PickupLoc-v0": _lv(
        "LevelGen",
        _LEVEL_GEN,
        action_kinds="pickup",
        instr_kinds="action",
        num_rows=1,
        num_cols=1,
        num_dists=8,
        locked_room_prob=0.0,
        locations=True,
        unblocking=False,
    ),
    "BabyAI-PickupDist-v0": _lv("PickupDist", _ONE_ROOM, room_size=7),
    "BabyAI-PickupDistDebug-v0": _lv("PickupDist", _ONE_ROOM, room_size=7, debug=True),
    "BabyAI-PickupAbove-v0": _lv("PickupAbove", _ROOM_GRID, room_size=6),
    # PutNextLocal's num_objs and PutNext / MoveTwoAcross's objs_per_room are num_dists here.
    "BabyAI-PutNextLocal-v0": _lv("PutNextLocal", _ONE_ROOM, room_size=8, num_dists=8),
    "BabyAI-PutNextLocalS5N3-v0": _lv("PutNextLocal", _ONE_ROOM, room_size=5, num_dists=3),
    "BabyAI-PutNextLocalS6N4-v0": _lv("PutNextLocal", _ONE_ROOM, room_size=6, num_dists=4),
    **{
        f"BabyAI-PutNextS{s}N{n}{'Carrying' if c else ''}-v0": _lv(
            "PutNext", _ROOM_GRID, num_rows=1, num_cols=2, room_size=s, num_dists=n, start_carrying=c
        )
        for s, n, c in (
            (4, 1, False),
            (5, 2, False),
            (5, 1, False),
            (6, 3, False),
            (7, 4, False),
            (5, 2, True),
            (6, 3, True),
            (7, 4, True),
        )
    },
    "BabyAI-Unlock-v0": _lv("Unlock", _ROOM_GRID),
    "BabyAI-UnlockLocal-v0": _lv("UnlockLocal", _ROOM_GRID),
    "BabyAI-UnlockLocalDist-v0": _lv("UnlockLocal", _ROOM_GRID, distractors=True),
    "BabyAI-KeyInBox-v0": _lv("KeyInBox", _ROOM_GRID),
    "BabyAI-UnlockPickup-v0": _lv("UnlockPickup", _ROOM_GRID, num_rows=1, num_cols=2, room_size=6),
    "BabyAI-UnlockPickupDist-v0": _lv(
        "UnlockPickup", _ROOM_GRID, num_rows=1, num_cols=2, room_size=6, distractors=True
    ),
    "BabyAI-BlockedUnlockPickup-v0": _lv("BlockedUnlockPickup", _ROOM_GRID, num_rows=1, num_cols=2, room_size=6),
    "BabyAI-UnlockToUnlock-v0": _lv("UnlockToUnlock", _ROOM_GRID, num_rows=1, num_cols=3, room_size=6),
    "BabyAI-ActionObjDoor-v0": _lv("ActionObjDoor", _ROOM_GRID, room_size=7),
    **{f"BabyAI-FindObjS{s}-v0": _lv("FindObj", _ROOM_GRID, room_size=s) for s in (5, 6, 7)},
    "BabyAI-KeyCorridor-v0": _lv("KeyCorridor", _ROOM_GRID, room_size=6, num_rows=3, obj_type="ball"),
    **{
        f"BabyAI-KeyCorridorS{s}R{r}-v0": _lv("KeyCorridor", _ROOM_GRID, room_size=s, num_rows=r, obj_type="ball")
        for s, r in ((3, 1), (3, 2), (3, 3), (4, 3), (5, 3), (6, 3))
    },
    **{f"BabyAI-OneRoomS{s}-v0": _lv("OneRoom", _ONE_ROOM, room_size=s) for s in (8, 12, 16, 20)},
    "BabyAI-MoveTwoAcrossS5N2-v0": _lv("MoveTwoAcross", _ROOM_GRID, num_rows=1, num_cols=2, room_size=5, num_dists=2),
    "BabyAI-MoveTwoAcrossS8N9-v0": _lv("MoveTwoAcross", _ROOM_GRID, num_rows=1, num_cols=2, room_size=8, num_dists=9),
    "BabyAI-Synth-v0": _lv(
        "LevelGen", _LEVEL_GEN, instr_kinds="action", locations=False, unblocking=True, implicit_unlock=False
    ),
    "BabyAI-SynthS5R2-v0": _lv(
        "LevelGen",
        _LEVEL_GEN,
        room_size=5,
        num_rows=2,
        instr_kinds="action",
        locations=False,
        unblocking=True,
        implicit_unlock=False,
    ),
    "BabyAI-SynthLoc-v0": _lv(
        "LevelGen", _LEVEL_GEN, instr_kinds="action", locations=True, unblocking=True, implicit_unlock=False
    ),
    "BabyAI-SynthSeq-v0": _lv("LevelGen", _LEVEL_GEN, locations=True, unblocking=True, implicit_unlock=False),
    "BabyAI-MiniBossLevel-v0": _lv(
        "LevelGen", _LEVEL_GEN, num_cols=2, num_rows=2, room_size=5, num_dists=7, locked_room_prob=0.25
    ),
    "BabyAI-BossLevel-v0": _lv("LevelGen", _LEVEL_GEN),
    "BabyAI-BossLevelNoUnlock-v0": _lv("LevelGen", _LEVEL_GEN, locked_room_prob=0.0, implicit_unlock=False),
}
