"""render_mode="rgb_array": frames of chosen envs, rendered on the stepping threads.
Atari frames are bit-equal to ale-py's getScreenRGB() of the reference in the same state."""

from __future__ import annotations

import collections.abc

import numpy as np
import pytest

import envpool
from envpool import _envpool

atari = pytest.mark.skipif("Atari" not in _envpool.families(), reason="Atari family not built")


@atari
def test_atari_frames_equal_ale_py_screens() -> None:
    pytest.importorskip("cv2")  # AtariPreprocessing's resize
    from _atari_reference import reference_env

    seed = 4
    ref = reference_env("Breakout", frame_skip=4)
    ref.reset(seed=seed)
    ours = envpool.make(
        "Breakout-v5",
        env_type="gymnasium",
        num_envs=1,
        seed=seed,
        noop_max=0,
        use_fire_reset=False,
        render_mode="rgb_array",
    )
    ours.reset()
    frames = ours.render()
    assert frames.shape == (1, 210, 160, 3) and frames.dtype == np.uint8
    np.testing.assert_array_equal(frames[0], ref.unwrapped.ale.getScreenRGB())
    actions = np.random.default_rng(0).integers(0, 4, 60)
    for t, a in enumerate(actions):
        ours.step(np.array([a]))
        ref.step(a)
        np.testing.assert_array_equal(ours.render()[0], ref.unwrapped.ale.getScreenRGB(), err_msg=f"step {t}")


@atari
def test_atari_tall_screen_frames_are_the_whole_screen() -> None:
    """Adventure's screen is 250 rows: frames are all of it, as ale-py's (EnvPool 1.2.5's are its
    top 210 rows)."""
    pytest.importorskip("cv2")
    from _atari_reference import reference_env

    ref = reference_env("Adventure", frame_skip=4)
    ref.reset(seed=4)
    ours = envpool.make(
        "Adventure-v5",
        env_type="gymnasium",
        num_envs=1,
        seed=4,
        noop_max=0,
        use_fire_reset=False,
        render_mode="rgb_array",
    )
    ours.reset()
    below_210 = False
    for t, a in enumerate(np.random.default_rng(0).integers(0, 18, 30)):
        frame = ours.render()
        assert frame.shape == (1, 250, 160, 3), frame.shape
        np.testing.assert_array_equal(frame[0], ref.unwrapped.ale.getScreenRGB(), err_msg=f"step {t}")
        below_210 |= bool(frame[0, 210:].any())
        ours.step(np.array([a]))
        ref.step(a)
    assert below_210  # the rows EnvPool 1.2.5 leaves out hold part of the picture


@atari
def test_render_env_ids_and_metadata() -> None:
    envs = envpool.make("Pong-v5", env_type="gymnasium", num_envs=4, render_mode="rgb_array", render_env_ids=[3, 1])
    assert envs.metadata["render_modes"] == ["rgb_array"] and envs.metadata["render_fps"] == 30
    assert envs.render_mode == "rgb_array"
    envs.reset(seed=0)
    frames = envs.render()
    assert frames.shape == (2, 210, 160, 3)
    np.testing.assert_array_equal(envs.render(env_ids=[3, 1]), frames)
    np.testing.assert_array_equal(envs.render(env_ids=1)[0], frames[1])
    assert isinstance(frames, collections.abc.Sequence) and isinstance(frames, np.ndarray)


@atari
def test_render_errors_leave_the_pool_usable() -> None:
    envs = envpool.make("Pong-v5", env_type="gymnasium", num_envs=2, batch_size=1, render_mode="rgb_array")
    envs.async_reset()
    _, _, _, _, info = envs.recv()
    busy = 1 - int(info["env_id"][0])  # still in flight
    with pytest.raises(ValueError, match="in flight"):
        envs.render(env_ids=[busy])
    with pytest.raises(ValueError, match="out of range"):
        envs.render(env_ids=[5])
    assert envs.render(env_ids=[int(info["env_id"][0])]).shape == (1, 210, 160, 3)
    envs.close()
    with pytest.raises(RuntimeError, match="closed"):
        envs.render(env_ids=[0])


_RENDER_BEFORE_RESET = """
import json, warnings, envpool
warnings.filterwarnings("ignore")
out = {}
for task in envpool.list_all_envs():
    try:
        envs = envpool.make(task, env_type="gymnasium", num_envs=1, render_mode="rgb_array")
    except Exception as e:  # a task that needs what this machine lacks
        out[task] = "make: " + type(e).__name__
        continue
    try:
        frame = envs.render()
        out[task] = "frame" if frame.dtype == "uint8" and frame.ndim == 4 else "bad frame"
    except RuntimeError as e:
        out[task] = "RuntimeError: " + str(e)
    envs.close()
print(json.dumps(out))
"""


@pytest.mark.slow  # ~40 s: every registered task
def test_every_task_renders_or_raises_before_its_first_reset() -> None:
    """render() before any reset: a frame (of the state the env was made in) or a RuntimeError
    saying what is missing, never a crash (LunarLander and BipedalWalker had no terrain to draw
    and read past their empty arrays)."""
    import json

    from _isolated import run_python

    out = json.loads(run_python(_RENDER_BEFORE_RESET, timeout=600).stdout.strip().splitlines()[-1])
    raised = {t: r for t, r in out.items() if r != "frame"}
    box2d = ("LunarLander", "LunarLanderContinuous", "BipedalWalker", "BipedalWalkerHardcore")
    for task in [t for t in out if t.split("-v")[0] in box2d]:
        assert raised.pop(task).endswith("(reset the env first)"), task
    for task in ("Blackjack-v1", "tabular/Blackjack-v0"):
        assert "no hand dealt yet" in raised.pop(task)
    for task in ("NChain-v0", "Catch-v0"):
        assert "cannot render" in raised.pop(task)
    assert not {t: r for t, r in raised.items() if not r.startswith("make: ")}, raised
    assert sum(r == "frame" for r in out.values()) > 150


def test_render_needs_render_mode_and_a_renderer() -> None:
    plain = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=2)
    with pytest.raises(RuntimeError, match="render_mode='rgb_array'"):
        plain.render()
    with pytest.raises(ValueError, match="render_mode must be"):
        envpool.make("CartPole-v1", env_type="gymnasium", render_mode="human")
    with pytest.raises(TypeError, match="render_env_ids"):
        envpool.make("CartPole-v1", env_type="gymnasium", render_mode="rgb_array", render_env_ids="0")
    with pytest.raises(ValueError, match="render_env_ids"):
        envpool.make("CartPole-v1", env_type="gymnasium", num_envs=2, render_mode="rgb_array", render_env_ids=[2])


@atari
@pytest.mark.parametrize("env_type", ["gym", "dm"])
def test_every_interface_renders(env_type: str) -> None:
    envs = envpool.make("Pong-v5", env_type=env_type, num_envs=2, render_mode="rgb_array")
    envs.reset()
    assert envs.render().shape == (1, 210, 160, 3)


@atari
def test_a_short_video(tmp_path) -> None:
    imageio = pytest.importorskip("imageio")
    envs = envpool.make("Breakout-v5", env_type="gymnasium", num_envs=2, render_mode="rgb_array", render_env_ids=[0, 1])
    envs.reset(seed=1)
    frames = []
    for t in range(10):
        envs.step(np.full(2, 2 if t < 5 else 3))  # RIGHT, then LEFT: the paddle moves in every frame
        frames.append(np.concatenate(list(envs.render()), axis=1))  # the two envs side by side
    path = tmp_path / "breakout.gif"
    imageio.mimsave(path, frames)
    back = np.asarray(imageio.mimread(path))
    assert back.shape[0] == 10 and back.shape[1:3] == (210, 320)


def test_gymnasium_vector_record_video(tmp_path) -> None:
    """gymnasium's own vector RecordVideo wraps a pool that renders every env."""
    pytest.importorskip("moviepy")
    from gymnasium.wrappers.vector import RecordVideo

    envs = envpool.make(
        "CartPole-v1", env_type="gymnasium", num_envs=2, render_mode="rgb_array", render_env_ids=range(2)
    )
    envs = RecordVideo(envs, str(tmp_path), episode_trigger=lambda e: True, video_length=5)
    envs.reset(seed=0)
    for _ in range(6):
        envs.step(np.zeros(2, np.int64))
    envs.close()
    videos = list(tmp_path.glob("*.mp4"))
    assert videos and videos[0].stat().st_size > 0
