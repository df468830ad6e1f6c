"""MuJoCo tasks: gymnasium's ids, episode lengths, thresholds and model files.

Each id runs the C++ family of the same name (one per task and version). The
family reads its model from gymnasium's assets folder, which we hand it here
as ``assets_dir``; ``xml_file`` accepts a bare file name (looked up there) or
a path starting with ``/``, ``.`` or ``~``, like gymnasium.

Model parameters: ``envs.get_model(field)`` / ``envs.set_model(field, values)`` per env,
and ``model_randomization={field: (operation, low, high)}`` per episode (with
``model_info=True``, ``info["model_<field>"]``); see docs/options.md's MuJoCo section.

Extra option: ``expose_state=True`` adds ``info["qpos0"]``/``info["qvel0"]``,
the episode's initial state after the reset noise (for replaying an episode
in gymnasium with ``env.unwrapped.set_state``).

Rendering (``render_mode="rgb_array"``) takes gymnasium's ``width``, ``height``,
``camera_id``, ``camera_name`` and ``default_camera_config``; ``from_pixels=True``
(with ``img_height``, ``img_width``, ``state_in_info``) makes the observation the
frame. See the README's Rendering section.

``frame_stack`` and gymnasium's spellings of the camera options are done in Python
(:data:`PYTHON`, the tasks' :class:`~envpool.registration.PythonSide`); a task
registered with :func:`envpool.register` on one of these families gets them too
(:func:`~envpool.registration.set_family_python`).
"""

from __future__ import annotations

import collections.abc
import os
from typing import Any

import numpy as np

from envpool.registration import PythonSide, register, set_family_python
from envpool.tasks import _frame_stack, _model_randomization


def _assets_dir() -> str:
    # Found by path, not by importing gymnasium.envs.mujoco: that imports the
    # mujoco Python bindings, which install a global timer callback
    # (mjcb_time) that every mj_step then calls dozens of times (~10% of a
    # HalfCheetah step). A process that never imports mujoco doesn't pay it.
    import gymnasium

    return os.path.join(os.path.dirname(gymnasium.__file__), "envs", "mujoco", "assets")


_ASSETS = _assets_dir()

# task, max_episode_steps, reward_threshold (gymnasium's registrations),
# render_fps (gymnasium's metadata: 1 / dt at the default frame_skip)
_TASKS = (
    ("Ant", 1000, 6000.0, 20),
    ("HalfCheetah", 1000, 4800.0, 20),
    ("Hopper", 1000, 3800.0, 125),
    ("Humanoid", 1000, None, 67),
    ("HumanoidStandup", 1000, None, 67),
    ("InvertedDoublePendulum", 1000, 9100.0, 20),
    ("InvertedPendulum", 1000, 950.0, 25),
    ("Pusher", 100, 0.0, 20),
    ("Reacher", 50, -3.75, 50),
    ("Swimmer", 1000, 360.0, 25),
    ("Walker2d", 1000, None, 125),
)

_CAMERA_INT_KEYS = ("type", "fixedcamid", "trackbodyid", "orthographic")


def prepare_camera_keys(merged: dict[str, Any], user: Any = None) -> None:
    """MuJoCo's render keys in the engine's terms: gymnasium's None for camera_id /
    camera_name / default_camera_config / visual_options is -1 / "" / "" / "", a
    default_camera_config dict (mjvCamera attribute -> value) becomes the engine's text,
    "key=value;...", with lookat's three numbers comma separated, and a visual_options
    dict (mjtVisFlag -> bool) "flag=0|1;...". render_processes: True / False / None are
    "on" / "off" / "auto"."""
    if "camera_id" in merged and merged["camera_id"] is None:
        merged["camera_id"] = -1
    if "camera_name" in merged and merged["camera_name"] is None:
        merged["camera_name"] = ""
    cfg = merged.get("default_camera_config", "")
    if cfg is None:
        merged["default_camera_config"] = ""
    elif isinstance(cfg, collections.abc.Mapping):

        def text(key: str, value: Any) -> str:
            if key == "lookat":
                return ",".join(repr(float(x)) for x in np.ravel(value))
            if key in _CAMERA_INT_KEYS and float(value).is_integer():
                return str(int(value))
            return repr(float(value))

        try:
            merged["default_camera_config"] = ";".join(f"{k}={text(str(k), v)}" for k, v in cfg.items())
        except (TypeError, ValueError) as e:
            raise TypeError(f"default_camera_config values must be numbers (lookat: 3 numbers), got {cfg!r}") from e
    vis = merged.get("visual_options", "")
    if vis is None:
        merged["visual_options"] = ""
    elif isinstance(vis, collections.abc.Mapping):
        try:
            merged["visual_options"] = ";".join(f"{int(k)}={int(bool(v))}" for k, v in vis.items())
        except (TypeError, ValueError) as e:
            raise TypeError(f"visual_options must map mjtVisFlag indices to bools, got {vis!r}") from e
    _model_randomization.prepare(merged)
    procs = merged.get("render_processes", "auto")
    if procs is None or isinstance(procs, (bool, np.bool_)):
        merged["render_processes"] = "auto" if procs is None else ("on" if procs else "off")


# What every MuJoCo task does in Python: EnvPool's frame_stack (observations of shape
# (frame_stack, *obs_shape), oldest first, a reset filling every slot) and the
# render keys' gymnasium spellings (camera_id=None, dict camera configs).
PYTHON = PythonSide(
    defaults=_frame_stack.DEFAULTS,
    check=_frame_stack.check,
    prepare=prepare_camera_keys,
    state_spec=_frame_stack.state_spec,
    results=_frame_stack.results,
)

# EnvPool's older ids (v3, or v2 where gym had no v3; a task added since has no
# row). gymnasium documents v2/v3 -> v4 as a port from mujoco-py to the mujoco
# bindings with the same model, rewards and observations, so these run the v4 family. Ant-v3 and
# Humanoid-v3 include the contact forces in the observation and the contact
# cost in the reward (gym's v3; EnvPool sets use_contact_force for them):
# Ant-v4's use_contact_forces=True; Humanoid-v4 always has them.
_LEGACY: dict[str, tuple[str, dict[str, Any]]] = {
    "Ant": ("v3", {"use_contact_forces": True}),
    "HalfCheetah": ("v3", {}),
    "Hopper": ("v3", {}),
    "Humanoid": ("v3", {}),
    "HumanoidStandup": ("v2", {}),
    "InvertedDoublePendulum": ("v2", {}),
    "InvertedPendulum": ("v2", {}),
    "Pusher": ("v2", {}),
    "Reacher": ("v2", {}),
    "Swimmer": ("v3", {}),
    "Walker2d": ("v3", {}),
}

for _task, _steps, _threshold, _fps in _TASKS:
    _extra: dict[str, Any] = (
        {"render_fps": _fps} if _threshold is None else {"reward_threshold": _threshold, "render_fps": _fps}
    )
    if _task in _LEGACY:
        _old, _old_config = _LEGACY[_task]
        register(
            f"{_task}-{_old}",
            f"{_task}-v4",
            python=PYTHON,
            max_episode_steps=_steps,
            assets_dir=_ASSETS,
            **_extra,
            **_old_config,
        )
    for _version in ("v4", "v5"):
        _id = f"{_task}-{_version}"
        set_family_python(_id, PYTHON)
        register(_id, _id, python=PYTHON, max_episode_steps=_steps, assets_dir=_ASSETS, **_extra)
