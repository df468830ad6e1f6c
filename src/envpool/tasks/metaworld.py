"""Meta-World v3 (metaworld 3.1.1's Sawyer tasks): EnvPool 1.2.5's ids
``MetaWorld/<Task>-v3`` (the CamelCase of metaworld's ``<task>-v3`` names), 500
steps an episode, one C++ family per task.

The models are metaworld's own XML files and meshes, read from the installed
``metaworld`` package (found by path: importing it would import the mujoco
bindings and gymnasium's MuJoCo envs).

Options (besides the MuJoCo family's): ``partially_observable`` (EnvPool's; True,
the default, zeros the goal in the observation: metaworld's goal-hidden envs;
False observes it: goal-observable), ``freeze_rand_vec`` (False, the default,
draws a new task vector every reset, as EnvPool 1.2.5; True keeps the first
reset's, as metaworld's goal-observable/goal-hidden envs keep theirs),
``frame_stack``. ``info["rand_vec"]`` is the episode's task vector (metaworld's
``_last_rand_vec``). See docs/metaworld.md.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Mapping
from typing import Any

from envpool import _envpool
from envpool.registration import PythonSide, register, set_family_python
from envpool.tasks import mujoco as _mujoco


def _assets_dir() -> str:
    spec = importlib.util.find_spec("metaworld")
    if spec is None or not spec.submodule_search_locations:
        return ""
    return os.path.join(list(spec.submodule_search_locations)[0], "assets")


_ASSETS = _assets_dir()

# metaworld's ALL_V3_ENVIRONMENTS names, in EnvPool 1.2.5's order.
METAWORLD_V3 = (
    "assembly-v3", "basketball-v3", "bin-picking-v3", "box-close-v3", "button-press-topdown-v3",
    "button-press-topdown-wall-v3", "button-press-v3", "button-press-wall-v3", "coffee-button-v3",
    "coffee-pull-v3", "coffee-push-v3", "dial-turn-v3", "disassemble-v3", "door-close-v3", "door-lock-v3",
    "door-open-v3", "door-unlock-v3", "hand-insert-v3", "drawer-close-v3", "drawer-open-v3", "faucet-open-v3",
    "faucet-close-v3", "hammer-v3", "handle-press-side-v3", "handle-press-v3", "handle-pull-side-v3",
    "handle-pull-v3", "lever-pull-v3", "pick-place-wall-v3", "pick-out-of-hole-v3", "pick-place-v3",
    "plate-slide-v3", "plate-slide-side-v3", "plate-slide-back-v3", "plate-slide-back-side-v3",
    "peg-insert-side-v3", "peg-unplug-side-v3", "soccer-v3", "stick-push-v3", "stick-pull-v3", "push-v3",
    "push-wall-v3", "push-back-v3", "reach-v3", "reach-wall-v3", "shelf-place-v3", "sweep-into-v3", "sweep-v3",
    "window-open-v3", "window-close-v3",
)  # fmt: skip


def task_id(name: str) -> str:
    """EnvPool's id of a metaworld task name: ``"pick-place-v3"`` -> ``"MetaWorld/PickPlace-v3"``."""
    base, version = name.rsplit("-", 1)
    return "MetaWorld/" + "".join(part[:1].upper() + part[1:] for part in base.split("-")) + "-" + version


def _prepare(merged: dict[str, Any], user: Mapping[str, Any]) -> None:
    _mujoco.prepare_camera_keys(merged, user)
    if not merged.get("assets_dir"):
        raise ModuleNotFoundError(
            "the Meta-World tasks read their models from metaworld: pip install --no-deps metaworld==3.1.1"
        )


PYTHON = PythonSide(
    defaults=_mujoco.PYTHON.defaults,
    check=_mujoco.PYTHON.check,
    prepare=_prepare,
    state_spec=_mujoco.PYTHON.state_spec,
    results=_mujoco.PYTHON.results,
)

_FAMILIES = set(_envpool.families())
# The ids whose C++ family is built (docs/metaworld.md lists them).
TASK_IDS = tuple(task_id(n) for n in METAWORLD_V3 if task_id(n) in _FAMILIES)

for _id in TASK_IDS:
    set_family_python(_id, PYTHON)
    register(_id, _id, python=PYTHON, max_episode_steps=500, assets_dir=_ASSETS)
