"""MuJoCo tasks: gymnasium's ids, episode lengths, thresholds and model files.

Each id runs the C++ family of the same name (one per task and version). The
family reads its model from gymnasium's assets folder, which we hand it here
as ``assets_dir``; ``xml_file`` accepts a bare file name (looked up there) or
a path starting with ``/``, ``.`` or ``~``, like gymnasium.

Extra option: ``expose_state=True`` adds ``info["qpos0"]``/``info["qvel0"]``,
the episode's initial state after the reset noise (for replaying an episode
in gymnasium with ``env.unwrapped.set_state``).
"""

from __future__ import annotations

import os

from envpool.registration import register


def _assets_dir() -> str:
    # Found by path, not by importing gymnasium.envs.mujoco: that imports the
    # mujoco Python bindings, which install a global timer callback
    # (mjcb_time) that every mj_step then calls dozens of times (~10% of a
    # HalfCheetah step). A process that never imports mujoco doesn't pay it.
    import gymnasium

    return os.path.join(os.path.dirname(gymnasium.__file__), "envs", "mujoco", "assets")


_ASSETS = _assets_dir()

# task, max_episode_steps, reward_threshold (gymnasium's registrations)
_TASKS = (
    ("Ant", 1000, 6000.0),
    ("HalfCheetah", 1000, 4800.0),
    ("Hopper", 1000, 3800.0),
    ("Humanoid", 1000, None),
    ("HumanoidStandup", 1000, None),
    ("InvertedDoublePendulum", 1000, 9100.0),
    ("InvertedPendulum", 1000, 950.0),
    ("Pusher", 100, 0.0),
    ("Reacher", 50, -3.75),
    ("Swimmer", 1000, 360.0),
    ("Walker2d", 1000, None),
)

for _task, _steps, _threshold in _TASKS:
    for _version in ("v4", "v5"):
        _id = f"{_task}-{_version}"
        _extra = {} if _threshold is None else {"reward_threshold": _threshold}
        register(_id, _id, max_episode_steps=_steps, assets_dir=_ASSETS, **_extra)
