"""Classic-control frames (render_mode="rgb_array") against gymnasium's own render().

Our renderers (cpp/draw/canvas.h) port the arithmetic of what gymnasium draws
with: pygame.gfxdraw (SDL_gfx's scanline polygon fill, Wu lines, midpoint and anti-aliased
circles, 8-bit alpha blending), pygame.draw.aalines / line, Vector2.rotate_rad, and for
Pendulum's torque arrow pygame.transform.smoothscale (the SSE version x86-64 builds use)
and SDL's alpha blit of gymnasium's own arrow image. So the frames are expected to be
bit-identical, and in practice they are, at every state tried.

The checks allow a margin all the same, for one thing we do not control: our C++ takes
sin/cos from libm, gymnasium from NumPy, whose SIMD versions may differ in the last ulp.
Coordinates are truncated to whole pixels, so such a difference can, rarely, move one
vertex or circle centre by one pixel, which changes at most a one-pixel strip along the
edges that meet there: a few hundred pixels of a 240,000-pixel frame. Hence, per frame:
the non-background pixels of both frames overlap with intersection-over-union >= 0.99,
at most 0.5% of the pixels differ, and the mean absolute difference per channel is below
0.5 (of 255); and over a run at least 90% of the frames are bit-identical (a systematic
error, a wrong colour, shape or offset, fails all three). Gymnasium is put into our exact
float64 state (expose_state=True) before each comparison, as in test_classic_control.py.
The comparisons need pygame (gymnasium's classic-control extra) and are skipped without it.
"""

from __future__ import annotations

import importlib.util
import os

import numpy as np
import pytest
from _registry import family, missing, one_per_family, tasks

import envpool

gymnasium = pytest.importorskip("gymnasium")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
# gymnasium's classic-control renderers (the reference) need pygame, its classic-control extra.
needs_reference = pytest.mark.skipif(importlib.util.find_spec("pygame") is None, reason="pygame is not installed")

# One task per family (a family's tasks draw alike; CartPole-v0 differs from v1 only in its limit).
TASKS = one_per_family(tasks("classic_control"))
SIZES = {  # per family: gymnasium's render size
    "CartPole": (400, 600),
    "Pendulum": (500, 500),
    "MountainCar": (400, 600),
    "MountainCarContinuous": (400, 600),
    "Acrobot": (500, 500),
}


def _size(task: str) -> tuple[int, int]:
    return SIZES[family(task)]


def test_every_family_has_its_render_size() -> None:
    assert not missing(SIZES, [family(t) for t in TASKS]), "classic-control families with no SIZES entry"


def _reference(task: str):
    ref = gymnasium.make(task, render_mode="rgb_array")
    ref.reset(seed=0)
    return ref


def _set_state(ref, task: str, state: np.ndarray, fresh: bool, last_u: np.float32 | None) -> None:
    """Gymnasium's env in our state, with the dtype its own state would have (fresh: just
    reset): float32 for MountainCarContinuous after a step and for Acrobot after a reset,
    where gymnasium (NumPy 2) then draws in float32 too."""
    env = ref.unwrapped
    if (task.startswith("MountainCarContinuous") and not fresh) or (task.startswith("Acrobot") and fresh):
        env.state = state.astype(np.float32)
    else:
        env.state = np.array(state, dtype=np.float64)
    if task.startswith("Pendulum"):
        env.last_u = last_u


def _compare(ours: np.ndarray, ref: np.ndarray, what: str) -> bool:
    """The per-frame tolerance (see the module docstring); returns whether bit-identical."""
    assert ours.shape == ref.shape and ours.dtype == ref.dtype == np.uint8, what
    if np.array_equal(ours, ref):
        return True
    fg_ours, fg_ref = (ours != 255).any(axis=2), (ref != 255).any(axis=2)
    iou = (fg_ours & fg_ref).sum() / max((fg_ours | fg_ref).sum(), 1)
    diff = np.abs(ours.astype(np.int16) - ref.astype(np.int16))
    changed = diff.any(axis=2).mean()
    mad = diff.mean(axis=(0, 1))
    assert iou >= 0.99, f"{what}: foreground IoU {iou:.4f}"
    assert changed <= 0.005, f"{what}: {changed:.2%} of the pixels differ"
    assert (mad < 0.5).all(), f"{what}: mean absolute difference per channel {mad}"
    return False


def _policy(task: str, obs: np.ndarray, space, rng: np.random.Generator) -> np.ndarray:
    """Actions (with 10-20% noise) that reach the edges of each picture: CartPole balances
    the pole leaning right (env 0), left (env 1) or upright, so the cart drives to the edges;
    MountainCar and Acrobot pump energy (push along the velocity), so the car reaches the
    left wall, the right edge and the flag, and the second link swings all the way round;
    Pendulum's torques go beyond the bounds (the arrow shows the clipped torque) and near 0."""
    n = obs.shape[0]
    flip = rng.random(n) < (0.1 if task.startswith("CartPole") else 0.2)
    if task.startswith("CartPole"):
        lean = np.resize([0.05, -0.05, 0.0], n)
        a = (obs[:, 2] - lean + 0.3 * obs[:, 3] > 0).astype(np.int32)
        return np.where(flip, 1 - a, a).astype(np.int32)
    if task.startswith("MountainCar"):
        push = np.where(obs[:, 1] >= 0, 1.0, -1.0) * np.where(flip, -1, 1)
        if task.startswith("MountainCarContinuous"):
            return (push * rng.uniform(0.5, 1.5, n)).astype(np.float32).reshape(n, 1)
        return (push + 1).astype(np.int32)
    if task.startswith("Acrobot"):
        a = np.where(obs[:, 4] > 0, 2, 0)
        return np.where(flip, rng.integers(0, 3, n), a).astype(np.int32)
    u = rng.uniform(-3, 3, size=(n, *space.shape)) * np.where(rng.random((n, 1)) < 0.1, 0.01, 1)
    return u.astype(np.float32)


@needs_reference
@pytest.mark.parametrize("task", TASKS)
def test_frames_match_gymnasium(task: str) -> None:
    """Three envs rendered after the reset and after each of 300 steps (terminal states and
    autoresets included), each frame against gymnasium's render() of the same state."""
    num_envs, steps = 3, 300
    ours = envpool.make(
        task,
        env_type="gymnasium",
        num_envs=num_envs,
        seed=7,
        expose_state=True,
        render_mode="rgb_array",
        render_env_ids=list(range(num_envs)),
    )
    ref = _reference(task)
    rng = np.random.default_rng(1)
    obs, info = ours.reset()
    fresh = np.ones(num_envs, bool)
    last_u: list[np.float32 | None] = [None] * num_envs
    compared = exact = 0
    for t in range(steps + 1):
        frames = ours.render()
        assert frames.shape == (num_envs, *_size(task), 3) and frames.dtype == np.uint8
        for i in range(num_envs):
            _set_state(ref, task, info["state"][i], bool(fresh[i]), last_u[i])
            exact += _compare(frames[i], ref.unwrapped.render(), f"{task} step {t} env {i}")
            compared += 1
        if t == steps:
            break
        action = _policy(task, obs, ours.single_action_space, rng)
        obs, _, _, _, info = ours.step(action)
        fresh = info["elapsed_step"] == 0  # NEXT_STEP autoreset: a fresh episode
        for i in range(num_envs):
            last_u[i] = None if fresh[i] or action.ndim == 1 else np.clip(action[i], -2.0, 2.0)[0]
    assert exact >= 0.9 * compared, f"{exact} of {compared} frames bit-identical"
    ours.close()


@needs_reference
@pytest.mark.parametrize("task", TASKS)
def test_render_size_and_metadata_match_gymnasium(task: str) -> None:
    ours = envpool.make(task, env_type="gymnasium", num_envs=1, render_mode="rgb_array")
    ref = _reference(task)
    ours.reset()
    assert ours.render()[0].shape == ref.render().shape
    assert ours.metadata["render_fps"] == ref.metadata["render_fps"]
    assert "rgb_array" in ours.metadata["render_modes"]


def test_render_env_ids_pick_their_envs() -> None:
    """Each env's frame is its own state's: env_ids in any order, or one at a time."""
    envs = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=4, seed=3, render_mode="rgb_array")
    envs.reset()
    rng = np.random.default_rng(0)
    for _ in range(8):
        envs.step(rng.integers(0, 2, 4).astype(np.int32))
    each = [envs.render(env_ids=i)[0] for i in range(4)]
    assert len({f.tobytes() for f in each}) == 4  # four different states, four pictures
    both = envs.render(env_ids=[3, 1])
    for frame, i in zip(both, [3, 1], strict=True):
        np.testing.assert_array_equal(frame, each[i])
    np.testing.assert_array_equal(envs.render()[0], each[0])  # default: env 0


def test_pendulum_arrow_follows_the_last_action() -> None:
    """No arrow after a reset (gymnasium's last_u is None); after a step its size follows
    |u| and its direction the sign of u; a zero action draws nothing."""
    envs = envpool.make("Pendulum-v1", env_type="gymnasium", num_envs=1, seed=0, render_mode="rgb_array")
    envs.reset()
    no_arrow = envs.render()[0]
    dark = []
    for u in (0.0, 0.5, 2.0, -2.0, 5.0):
        envs.step(np.array([[u]], np.float32))
        frame = envs.render()[0]
        dark.append(int((frame.max(axis=2) < 40).sum()))  # black pixels: the axle and the arrow
    axle = int((no_arrow.max(axis=2) < 40).sum())
    assert dark[0] == axle  # u = 0: no arrow
    assert axle < dark[1] < dark[2]  # a bigger torque, a bigger arrow
    assert dark[4] == pytest.approx(dark[2], rel=0.05)  # u = 5 is clipped to 2


def test_a_short_video(tmp_path) -> None:
    """render() frames make a video (RecordVideo-style use)."""
    imageio = pytest.importorskip("imageio")
    envs = envpool.make("Acrobot-v1", env_type="gymnasium", num_envs=2, render_mode="rgb_array", render_env_ids=[0, 1])
    envs.reset(seed=1)
    frames = []
    for _ in range(6):
        envs.step(np.array([0, 2], np.int32))
        frames.append(np.concatenate(list(envs.render()), axis=1))
    path = tmp_path / "acrobot.gif"
    imageio.mimsave(path, frames)
    back = np.asarray(imageio.mimread(path))
    assert back.shape[0] == 6 and back.shape[1:3] == (500, 1000)
