"""Helpers for test_mujoco_render.py, run in subprocesses (one GL backend per process).

``compare(cases)`` renders each case with envpool and with gymnasium's MujocoRenderer from the
same states (our envs expose their initial state; gymnasium's env is put in it with set_state and
stepped with the same actions) and reports, per env of the case, how many pixels differ and by
how much. ``main`` prints the report as one JSON line after ``RESULT``.
"""

from __future__ import annotations

import json
import sys
import warnings

import numpy as np

import envpool

warnings.filterwarnings("ignore")

# gymnasium's MuJoCo rendering keywords (the rest of a case's options are envpool's).
_GYM_KEYS = ("width", "height", "camera_id", "camera_name", "default_camera_config", "max_geom", "visual_options")


def reference_frames(task_id: str, qpos0, qvel0, actions, **kwargs) -> np.ndarray:
    """gymnasium's frames of one episode: at the start state (qpos0, qvel0), then after
    each action. A fresh env per episode: gymnasium's viewer fixes its free camera's lookat
    at its first render, as ours does."""
    import gymnasium as gym

    env = gym.make(task_id, render_mode="rgb_array", **kwargs)
    env.reset(seed=0)
    env.unwrapped.set_state(np.asarray(qpos0).copy(), np.asarray(qvel0).copy())
    frames = [env.render()]
    for a in actions:
        env.step(a)
        frames.append(env.render())
    env.close()
    return np.stack(frames)


def our_frames(task_id: str, steps: int, num_envs: int, num_threads: int, seed: int, **kwargs):
    """Our frames (num_envs, steps + 1, H, W, 3), the actions (steps, num_envs, nu) and the
    initial states, all envs rendered in one render() call per step."""
    envs = envpool.make(
        task_id,
        env_type="gymnasium",
        num_envs=num_envs,
        num_threads=num_threads,
        seed=seed,
        render_mode="rgb_array",
        render_env_ids=list(range(num_envs)),
        expose_state=True,
        **kwargs,
    )
    _, info = envs.reset()
    space = envs.action_space
    rng = np.random.default_rng(seed)
    # Small actions: no episode ends within the few steps compared.
    actions = (rng.uniform(-0.3, 0.3, (steps, num_envs, *space.shape)) * space.high).astype(np.float32)
    frames = [envs.render()]
    for t in range(steps):
        envs.step(actions[t])
        frames.append(envs.render())
    envs.close()
    return np.stack(frames, axis=1), actions, info["qpos0"].copy(), info["qvel0"].copy()


def compare_case(task_id: str, kwargs: dict, num_envs: int = 1, num_threads: int = 1, steps: int = 4, seed: int = 0):
    ours, actions, qpos0, qvel0 = our_frames(task_id, steps, num_envs, num_threads, seed, **kwargs)
    gym_kwargs = {k: v for k, v in kwargs.items() if k in _GYM_KEYS}
    out = []
    for i in range(num_envs):
        ref = reference_frames(task_id, qpos0[i], qvel0[i], actions[:, i], **gym_kwargs)
        diff = np.abs(ours[i].astype(np.int16) - ref.astype(np.int16))
        out.append(
            {
                "shape": list(ours[i].shape),
                "ref_shape": list(ref.shape),
                "max_diff": int(diff.max()) if ours[i].shape == ref.shape else -1,
                "pixels_differing": int(diff.any(-1).sum()) if ours[i].shape == ref.shape else -1,
                "std": float(ours[i].std()),
            }
        )
    return out


def compare_pixels(task_id: str, kwargs: dict, num_envs: int = 2, steps: int = 4, seed: int = 0) -> dict:
    """from_pixels observations against gymnasium's frames at (img_height, img_width) with the
    same camera options (gymnasium's AddRenderObservation renders env.render() after each
    reset and step), the stacked frames' shift, and state_in_info against gymnasium's state
    observation. Counts of mismatches per check."""
    import gymnasium as gym

    k = kwargs.get("frame_stack", 1)
    envs = envpool.make(
        task_id,
        env_type="gymnasium",
        num_envs=num_envs,
        num_threads=2,
        seed=seed,
        from_pixels=True,
        state_in_info=True,
        expose_state=True,
        **kwargs,
    )
    obs, info = envs.reset()
    h, w = envs.config["img_height"], envs.config["img_width"]
    out = {"shape": list(obs.shape), "dtype": str(obs.dtype), "space": [list(envs.observation_space.shape)]}
    out["space"].append(str(envs.observation_space.dtype))
    gym_kwargs = {key: v for key, v in kwargs.items() if key in _GYM_KEYS[2:]}
    refs = []
    for i in range(num_envs):
        ref = gym.make(task_id, render_mode="rgb_array", width=w, height=h, **gym_kwargs)
        ref.reset(seed=0)
        ref.unwrapped.set_state(info["qpos0"][i].copy(), info["qvel0"][i].copy())
        refs.append(ref)
    space = envs.action_space
    rng = np.random.default_rng(seed)
    bad = {"frame": 0, "stack": 0, "state": 0, "frames": 0}
    prev = None
    for t in range(steps + 1):
        if t > 0:
            action = (rng.uniform(-0.3, 0.3, (num_envs, *space.shape)) * space.high).astype(np.float32)
            obs, _, _, _, info = envs.step(action)
        for i, ref in enumerate(refs):
            if t > 0:
                ref.step(action[i])
            frame = ref.render().transpose(2, 0, 1)
            bad["frames"] += 1
            bad["frame"] += int(not np.array_equal(obs[i, -3:], frame))
            bad["state"] += int(not np.array_equal(info["state"][i], ref.unwrapped._get_obs()))
            if k > 1 and t == 0:  # a reset fills every slot
                bad["stack"] += int(not all(np.array_equal(obs[i, 3 * j : 3 * j + 3], frame) for j in range(k)))
            elif k > 1:  # oldest first: the frames move one slot down
                bad["stack"] += int(not np.array_equal(obs[i, :-3], prev[i, 3:]))
        prev = obs
    for ref in refs:
        ref.close()
    envs.close()
    return out | bad


def compare(cases: list) -> list:
    return [compare_case(task_id, kwargs, **extra) for task_id, kwargs, extra in cases]


def main(cases: list, pixels: list = ()) -> None:
    """Prints RESULT and {"render": [compare_case per case], "pixels": [compare_pixels per case]}."""
    result = {"render": compare(cases), "pixels": [compare_pixels(t, kwargs) for t, kwargs in pixels]}
    print("RESULT" + json.dumps(result))
    sys.stdout.flush()
