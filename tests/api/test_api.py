"""The three interfaces, both modes, both autoreset modes, partial steps."""

from __future__ import annotations

import threading

import dm_env
import gymnasium
import numpy as np
import pytest
from _isolated import run_python
from _registry import one_per_family, tasks
from gymnasium.vector import AutoresetMode, VectorEnv

import envpool
import envpool.python.api
import envpool.python.envpool
import envpool.python.protocol
from envpool import _envpool

MUJOCO = "HalfCheetah-v4" in envpool.list_all_envs()


def test_make_requires_known_env_type_and_task() -> None:
    with pytest.raises(ValueError, match="env_type"):
        envpool.make("CartPole-v1", env_type="torch")
    with pytest.raises(ValueError, match="CartPole-v1"):
        envpool.make("CartPole-v2", env_type="gymnasium")
    with pytest.raises(TypeError):
        envpool.make("CartPole-v1")  # type: ignore[call-arg]


def test_list_all_envs_and_register() -> None:
    ids = envpool.list_all_envs()
    for task in [
        "CartPole-v0",
        "CartPole-v1",
        "Pendulum-v1",
        "MountainCar-v0",
        "MountainCarContinuous-v0",
        "Acrobot-v1",
    ]:
        assert task in ids
    envpool.register("ShortCartPole-v0", "CartPole", max_episode_steps=5)
    env = envpool.make("ShortCartPole-v0", env_type="gymnasium", num_envs=2)
    env.reset()
    for _ in range(4):
        *_, trunc, _ = env.step(np.zeros(2, np.int32))
    *_, trunc, info = env.step(np.zeros(2, np.int32))
    assert trunc.all() and (info["elapsed_step"] == 5).all()
    with pytest.raises(ValueError, match="already registered"):
        envpool.register("ShortCartPole-v0", "CartPole")


# ---- gymnasium ----------------------------------------------------------


def test_gymnasium_is_a_vector_env() -> None:
    default = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=4, seed=1)
    assert isinstance(default, VectorEnv)
    assert default.observation_space.shape == (4,)  # EnvPool 1.2's single-env spaces by default
    env = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=4, seed=1, batched_spaces=True)
    assert isinstance(env, VectorEnv)
    assert env.num_envs == 4
    assert env.single_observation_space.shape == (4,)
    assert env.observation_space.shape == (4, 4)
    assert env.single_action_space == gymnasium.spaces.Discrete(2)
    assert env.action_space == gymnasium.spaces.MultiDiscrete([2, 2, 2, 2])
    assert env.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    obs, info = env.reset()
    assert obs.shape == (4, 4) and obs.dtype == np.float32
    assert env.observation_space.contains(obs)
    np.testing.assert_array_equal(info["env_id"], np.arange(4))
    np.testing.assert_array_equal(info["elapsed_step"], 0)
    obs, rew, term, trunc, info = env.step(env.action_space.sample())
    assert rew.dtype == np.float32 and term.dtype == np.bool_ and trunc.dtype == np.bool_
    np.testing.assert_array_equal(rew, 1.0)
    np.testing.assert_array_equal(info["elapsed_step"], 1)
    env.close()
    assert env.closed


def test_gymnasium_next_step_autoreset() -> None:
    env = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=2, max_episode_steps=3)
    env.reset()
    a = np.zeros(2, np.int32)
    for t in range(1, 4):
        obs, rew, term, trunc, info = env.step(a)
        np.testing.assert_array_equal(info["elapsed_step"], t)
    assert trunc.all() and not term.any()
    obs, rew, term, trunc, info = env.step(a)  # the reset step: action ignored, reward 0
    np.testing.assert_array_equal(rew, 0.0)
    np.testing.assert_array_equal(info["elapsed_step"], 0)
    assert not (term | trunc).any()
    assert np.all(np.abs(obs) <= 0.05)  # a fresh initial state


def test_gymnasium_same_step_autoreset() -> None:
    env = envpool.make(
        "CartPole-v1",
        env_type="gymnasium",
        num_envs=3,
        max_episode_steps=3,
        autoreset_mode="same_step",
        expose_state=True,
    )
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    env.reset()
    a = np.zeros(3, np.int32)
    env.step(a)
    _, _, _, _, info = env.step(a)
    assert not info["_final_obs"].any()
    before = info["state"].astype(np.float32)
    obs, rew, term, trunc, info = env.step(a)
    assert trunc.all()
    np.testing.assert_array_equal(rew, 1.0)
    assert info["_final_obs"].all() and info["_final_info"].all()
    final = np.stack(info["final_obs"])
    assert final.shape == (3, 4)
    # The final observation is one step on from the previous one; obs is a new episode.
    assert not np.allclose(final, before)
    assert np.all(np.abs(obs) <= 0.05)
    np.testing.assert_array_equal(info["elapsed_step"], 0)
    np.testing.assert_array_equal(info["final_info"]["elapsed_step"], 3)
    _, rew, _, _, info = env.step(a)  # no reward-0 step in this mode
    np.testing.assert_array_equal(rew, 1.0)
    np.testing.assert_array_equal(info["elapsed_step"], 1)


def test_gym_same_step_autoreset_gives_gym_026_final_entries() -> None:
    """The gym interface in same_step mode: gym 0.26's vector entries (its SyncVectorEnv's
    keys and kinds: object arrays of the final observation and info dict, None elsewhere,
    and their masks); the final observation is next_step mode's done observation."""
    gym = pytest.importorskip("gym")
    config = dict(num_envs=3, seed=4, max_episode_steps=3)
    same = envpool.make("CartPole-v1", env_type="gym", autoreset_mode="same_step", **config)
    nxt = envpool.make("CartPole-v1", env_type="gym", **config)
    same.reset()
    nxt.reset()
    a = np.array([0, 1, 0])
    for _ in range(3):
        obs, _, term, trunc, info = same.step(a)
        want, _, _, _, _ = nxt.step(a)
        done = term | trunc
        np.testing.assert_array_equal(info["_final_observation"], done)
        np.testing.assert_array_equal(info["_final_info"], done)
        assert info["final_observation"].dtype == object and info["final_info"].dtype == object
        for i in range(3):
            if done[i]:
                np.testing.assert_array_equal(info["final_observation"][i], want[i])
                assert info["final_info"][i]["elapsed_step"] == 3
            else:
                assert info["final_observation"][i] is None and info["final_info"][i] is None
    assert done.all() and np.all(np.abs(obs) <= 0.05)  # the rows are new episodes
    np.testing.assert_array_equal(info["elapsed_step"], 0)
    ref = gym.vector.SyncVectorEnv([lambda: gym.wrappers.TimeLimit(gym.make("CartPole-v1").unwrapped, 3)] * 3)
    ref.reset(seed=0)
    for _ in range(3):
        ref_info = ref.step(a)[-1]
    for key in ("final_observation", "_final_observation", "final_info", "_final_info"):
        assert key in ref_info and type(info[key]) is type(ref_info[key]), key
        assert info[key].dtype == ref_info[key].dtype, key
    same.close()
    nxt.close()
    ref.close()


@pytest.mark.parametrize("mode", [AutoresetMode.SAME_STEP, "same_step", "SameStep"])
def test_dm_refuses_same_step_autoreset(mode) -> None:
    """dm_env has no form for same_step (a LAST step followed by a FIRST is next_step's
    sequence): make says so instead of a LAST that carries the next episode's observation."""
    before = threading.active_count()
    with pytest.raises(ValueError, match="same_step.*dm_env"):
        envpool.make("CartPole-v1", env_type="dm", num_envs=2, autoreset_mode=mode)
    assert threading.active_count() == before
    env = envpool.make("CartPole-v1", env_type="dm", num_envs=2, autoreset_mode="disabled")
    assert env.reset().first().all()
    env.close()


def test_envpool_125_make_keywords_under_their_names_here() -> None:
    """EnvPool 1.2.5's env_seed, render_env_id and from_pixels=False work as seed=[...],
    render_env_ids=[id] and the default; render_width/height/camera_id as MuJoCo's
    width/height/camera_id; giving both names, or a render size to a task of fixed frame
    size, is refused, naming the keyword."""
    a = envpool.make("CartPole-v1", "gymnasium", num_envs=2, env_seed=[3, 9])
    b = envpool.make("CartPole-v1", "gymnasium", num_envs=2, seed=[3, 9])
    assert a.config["seed"] == [3, 9]
    np.testing.assert_array_equal(a.reset()[0], b.reset()[0])
    env = envpool.make("CartPole-v1", "gymnasium", num_envs=2, render_mode="rgb_array", render_env_id=1)
    env.reset()
    np.testing.assert_array_equal(env.render(), env.render([1]))
    assert not np.array_equal(env.render(), env.render([0]))
    assert "from_pixels" not in envpool.make("CartPole-v1", "dm", num_envs=1, from_pixels=False).config
    assert envpool.make("CartPole-v1", "gymnasium", num_envs=2, seed=5, env_seed=[3, 9]).config["seed"] == [3, 9]
    with pytest.raises(ValueError, match="either seed=.* or env_seed"):
        envpool.make("CartPole-v1", "gymnasium", num_envs=2, env_seed=[1, 2], seed=[1, 2])
    with pytest.raises(ValueError, match="either render_env_ids or render_env_id"):
        envpool.make("CartPole-v1", "gymnasium", render_env_id=0, render_env_ids=[0])
    with pytest.raises(TypeError, match="'render_camera_id'.*not an option of CartPole: its frames have no camera"):
        envpool.make("CartPole-v1", "gymnasium", render_camera_id=0)
    for e in (a, b, env):
        e.close()


@pytest.mark.parametrize("task", ["CartPole-v1", "FrozenLake-v1", "LunarLander-v3", "Pong-v5"])
def test_envpool_125_render_size_resizes_fixed_size_frames(task: str) -> None:
    """EnvPool 1.2.5's render_width/render_height on a task of fixed frame size (classic control, toy
    text, Box2D, Atari): render() gives the task's own frames resized as OpenCV's INTER_LINEAR
    (EnvPool's cv::resize) does, byte for byte (the engine's OpenCV-exact resize, which Atari uses
    too); 0 or less keeps that side; the config
    round-trips through make; a non-int is refused."""
    cv2 = pytest.importorskip("cv2")
    if task not in envpool.list_all_envs():
        pytest.skip(f"{task}'s family is not built")
    native = envpool.make(task, "gymnasium", num_envs=2, seed=3, render_mode="rgb_array")
    sized = envpool.make(
        task, "gymnasium", num_envs=2, seed=3, render_mode="rgb_array", render_width=64, render_height=48
    )
    tall = envpool.make(
        task, "gymnasium", num_envs=2, seed=3, render_mode="rgb_array", render_height=0, render_width=33
    )
    for e in (native, sized, tall):
        e.reset()
    full = native.render([0, 1])
    small = sized.render([0, 1])
    assert small.shape == (2, 48, 64, 3) and small.dtype == np.uint8
    expected = np.stack([cv2.resize(f, (64, 48)) for f in full])
    assert np.array_equal(small, expected)
    narrow = tall.render([0, 1])  # a side of 0 keeps the task's height
    assert narrow.shape == (2, full.shape[1], 33, 3)
    assert np.array_equal(narrow, np.stack([cv2.resize(f, (33, full.shape[1])) for f in full]))
    big = envpool.make(
        task, "gymnasium", num_envs=1, seed=3, render_mode="rgb_array", render_width=700, render_height=-1
    )
    big.reset()
    assert np.array_equal(big.render()[0], cv2.resize(full[0], (700, full.shape[1])))
    big.close()
    assert sized.config["render_width"] == 64
    again = envpool.make(task, "gymnasium", **sized.config)
    again.reset()
    np.testing.assert_array_equal(again.render([0, 1]), small)
    for bad in (6.5, True, "64"):
        with pytest.raises(TypeError, match="render_width must be an int"):
            envpool.make(task, "gymnasium", render_width=bad)
    with pytest.raises(ValueError, match="option of the whole pool"):
        envpool.make(task, "gymnasium", num_envs=2, env_options=[{"render_width": 8}, {}])
    for e in (native, sized, tall, again):
        e.close()


@pytest.mark.skipif("HalfCheetah-v5" not in _envpool.families(), reason="MuJoCo family not built")
def test_envpool_125_render_size_keywords_on_mujoco() -> None:
    env = envpool.make(
        "HalfCheetah-v5", "gymnasium", num_envs=1, render_mode="rgb_array", render_width=64, render_height=48
    )
    env.reset()
    assert env.render().shape == (1, 48, 64, 3) and env.config["width"] == 64
    env.close()
    # from_pixels=False stays an option of a family that has pixel observations
    assert envpool.make_spec("HalfCheetah-v5", from_pixels=False).config["from_pixels"] is False
    with pytest.raises(ValueError, match="either camera_id or render_camera_id"):
        envpool.make("HalfCheetah-v5", "gymnasium", render_camera_id=0, camera_id=0)


def test_gymnasium_reset_seed_reseeds() -> None:
    env = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=3, seed=5)
    first, _ = env.reset()
    again, _ = env.reset(seed=5)
    np.testing.assert_array_equal(first, again)
    other, _ = env.reset(seed=6)
    assert not np.array_equal(first, other)
    # seed + i per env: env 0 with seed 6 starts where env 1 with seed 5 did.
    np.testing.assert_array_equal(other[0], first[1])
    listed, _ = env.reset(seed=[5, 6, 7])
    np.testing.assert_array_equal(listed, first)


def test_gymnasium_reset_mask() -> None:
    env = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=3, seed=0)
    env.reset()
    for _ in range(3):
        obs, *_ = env.step(np.ones(3, np.int32))
    mask = np.array([False, True, False])
    new, info = env.reset(options={"reset_mask": mask})
    np.testing.assert_array_equal(new[[0, 2]], obs[[0, 2]])
    assert not np.array_equal(new[1], obs[1])
    np.testing.assert_array_equal(info["_elapsed_step"], mask)
    _, _, _, _, info = env.step(np.ones(3, np.int32))
    np.testing.assert_array_equal(info["elapsed_step"], [4, 1, 4])
    # An int seed reseeds each masked env i with seed + i, as a full reset does.
    seeded, _ = env.reset(seed=5, options={"reset_mask": mask})
    fresh, _ = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=3).reset(seed=5)
    np.testing.assert_array_equal(seeded[1], fresh[1])


def test_dict_and_continuous_actions() -> None:
    env = envpool.make("Pendulum-v1", env_type="gymnasium", num_envs=2)
    env.reset()
    obs, rew, *_ = env.step(np.array([[1.0], [-1.0]], np.float32))
    assert obs.shape == (2, 3) and (rew <= 0).all()
    # float64 and integer actions are safely cast to the float32 spec.
    env.step(np.array([[1.0], [-1.0]]))
    env.step(np.array([[1], [0]]))


# ---- async mode ----------------------------------------------------------


def test_async_returns_batches_with_env_ids() -> None:
    env = envpool.make(
        "CartPole-v1", env_type="gymnasium", num_envs=8, batch_size=3, num_threads=2, seed=0, batched_spaces=True
    )
    assert env.observation_space.shape == (3, 4)
    env.async_reset()
    seen = []
    counts = np.zeros(8, int)
    for _ in range(200):
        obs, rew, term, trunc, info = env.recv()
        ids = info["env_id"]
        assert obs.shape == (3, 4) and len(set(ids.tolist())) == 3
        counts[ids] += 1
        seen.append(ids)
        env.send(np.zeros(3, np.int32), ids)
    assert (counts > 0).all()


def test_async_send_without_env_id_uses_last_batch() -> None:
    env = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=4, batch_size=2)
    env.async_reset()
    _, _, _, _, info = env.recv()
    env.send(np.zeros(2, np.int32))
    # The two remaining resets and the two steps finish in no promised
    # order: across the next two batches, the stepped rows are those envs.
    rows = [env.recv()[-1] for _ in range(2)]
    ids = np.concatenate([r["env_id"] for r in rows])
    elapsed = np.concatenate([r["elapsed_step"] for r in rows])
    assert sorted(ids[elapsed == 1].tolist()) == sorted(info["env_id"].tolist())
    assert sorted(ids[elapsed == 0].tolist()) == sorted(set(range(4)) - set(info["env_id"].tolist()))


# ---- partial steps in sync mode ------------------------------------------


def test_partial_step_returns_rows_in_given_order() -> None:
    env = envpool.make("CartPole-v1", env_type="gym", num_envs=5, seed=0)
    env.reset()
    obs, rew, term, trunc, info = env.step(np.zeros(3, np.int32), env_id=np.array([4, 0, 2]))
    np.testing.assert_array_equal(info["env_id"], [4, 0, 2])
    np.testing.assert_array_equal(info["elapsed_step"], 1)
    obs, *_, info = env.step(np.zeros(5, np.int32))
    np.testing.assert_array_equal(info["elapsed_step"], [2, 1, 2, 1, 2])
    obs, *_, info = env.reset(env_id=[3])
    np.testing.assert_array_equal(info["env_id"], [3])


def test_sync_send_recv_pairs() -> None:
    env = envpool.make("CartPole-v1", env_type="gym", num_envs=4)
    env.reset()
    env.send(np.zeros(2, np.int32), [0, 1])
    env.send(np.zeros(2, np.int32), [2, 3])
    a = env.recv()[-1]["env_id"]
    b = env.recv()[-1]["env_id"]
    np.testing.assert_array_equal(a, [0, 1])
    np.testing.assert_array_equal(b, [2, 3])


# ---- gym ------------------------------------------------------------------


def test_gym_interface_without_old_gym() -> None:
    env = envpool.make("CartPole-v1", env_type="gym", num_envs=2)
    assert env.observation_space.shape == (4,)  # single-env spaces
    assert env.action_space.n == 2
    obs, info = env.reset()
    obs, rew, term, trunc, info = env.step(np.zeros(2, np.int32))
    assert obs.shape == (2, 4)
    env.num_envs = 2  # older scripts assign attributes
    env.is_vector_env = True


def test_gym_legacy_four_tuple(monkeypatch: pytest.MonkeyPatch) -> None:
    import envpool.gym_env as gym_env

    monkeypatch.setattr(gym_env, "_legacy_api", lambda gym: True)
    env = envpool.make("CartPole-v1", env_type="gym", num_envs=2, max_episode_steps=2)
    obs = env.reset()
    assert isinstance(obs, np.ndarray) and obs.shape == (2, 4)
    env.step(np.zeros(2, np.int32))
    obs, rew, done, info = env.step(np.zeros(2, np.int32))
    assert done.all() and info["TimeLimit.truncated"].all()


# ---- dm_env ----------------------------------------------------------------


def test_dm_interface() -> None:
    env = envpool.make("CartPole-v1", env_type="dm", num_envs=3, max_episode_steps=2)
    assert isinstance(env, dm_env.Environment)
    ts = env.reset()
    np.testing.assert_array_equal(ts.step_type, dm_env.StepType.FIRST)
    assert ts.observation.obs.shape == (3, 4)
    np.testing.assert_array_equal(ts.observation.env_id, [0, 1, 2])
    spec = env.observation_spec()
    assert spec.obs.shape == (4,) and spec.obs.dtype == np.float32
    assert env.action_spec().num_values == 2
    ts = env.step(np.zeros(3, np.int32))
    np.testing.assert_array_equal(ts.step_type, dm_env.StepType.MID)
    np.testing.assert_array_equal(ts.discount, 1.0)
    ts = env.step(np.zeros(3, np.int32))
    np.testing.assert_array_equal(ts.step_type, dm_env.StepType.LAST)
    np.testing.assert_array_equal(ts.discount, 1.0)  # truncation keeps discount 1
    ts = env.step(np.zeros(3, np.int32))
    np.testing.assert_array_equal(ts.step_type, dm_env.StepType.FIRST)


def test_dm_discount_zero_on_termination() -> None:
    env = envpool.make("CartPole-v1", env_type="dm", num_envs=1, seed=0)
    env.reset()
    for _ in range(500):
        ts = env.step(np.ones(1, np.int32))  # always push right: falls quickly
        if ts.step_type[0] == dm_env.StepType.LAST:
            break
    assert ts.step_type[0] == dm_env.StepType.LAST
    assert ts.discount[0] == 0.0


@pytest.mark.parametrize("env_type", ["gymnasium", "gym", "dm"])
def test_pools_refuse_copy_and_pickle_and_keep_running(env_type: str) -> None:
    """A shallow copy shared the engine, and collecting it closed the original pool."""
    import copy
    import gc
    import pickle

    env = envpool.make("CartPole-v1", env_type=env_type, num_envs=2)
    env.reset()
    for how in (copy.copy, copy.deepcopy, pickle.dumps):
        with pytest.raises(TypeError, match=f"cannot copy or pickle a {type(env).__name__}: it owns its engine"):
            how(env)
    gc.collect()
    assert not env.closed
    env.step(np.zeros(2, np.int32))
    assert pickle.loads(pickle.dumps(env.spec)).config["num_envs"] == 2


def test_dm_states_and_specs_pickle_into_a_fresh_interpreter() -> None:
    """EnvPool's State namedtuple is made at run time; pickle could not find it by name."""
    import pickle

    env = envpool.make("CartPole-v1", env_type="dm", num_envs=2)
    ts = env.reset()
    back = pickle.loads(pickle.dumps((env.observation_spec(), ts)))
    assert type(back[1].observation) is type(ts.observation) is env.State
    np.testing.assert_array_equal(back[1].observation.obs, ts.observation.obs)
    np.testing.assert_array_equal(back[1].observation.players.env_id, [0, 1])
    code = f"""
        import pickle
        spec, ts = pickle.loads({pickle.dumps((env.observation_spec(), ts))!r})
        assert type(spec).__name__ == "State" and spec.obs.shape == (4,), spec
        assert ts.observation.obs.shape == (2, 4) and list(ts.observation.players.env_id) == [0, 1], ts
        assert ts.observation._fields == {ts.observation._fields!r}
    """
    run_python(code)


def test_results_are_views_that_outlive_the_pool() -> None:
    import gc

    env = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=4, expose_state=True)
    env.reset()
    obs, rew, term, trunc, info = env.step(np.zeros(4, np.int32))
    # Zero copy: views into the engine's batch memory, not arrays NumPy owns.
    assert not obs.flags.owndata and not rew.flags.owndata and not info["env_id"].flags.owndata
    assert type(obs.base).__name__ == "PyCapsule"
    assert obs.base is rew.base is info["env_id"].base  # one batch, one owner
    expected = obs.copy(), info["state"].copy()
    later, *_ = env.step(np.zeros(4, np.int32))
    assert not np.shares_memory(obs, later)  # each batch has its own memory
    env.close()
    del env, later
    gc.collect()
    np.testing.assert_array_equal(obs, expected[0])
    np.testing.assert_array_equal(info["state"], expected[1])


def test_dict_observation_and_dict_action_through_the_binding() -> None:
    from envpool import _envpool

    pool = _envpool.Pool("Echo", {"num_envs": 3, "seed": 0})
    obs, rew, term, trunc, _, info, _ = pool.reset()
    assert set(obs) == {"pos", "last_pick"}
    assert obs["pos"].shape == (3, 2) and obs["pos"].dtype == np.float64
    np.testing.assert_array_equal(obs["last_pick"], -1)
    assert info["seed_draw"].dtype == np.float32
    move = np.array([[0.5, -0.5], [1, 1], [0, 0]], np.float32)
    obs, rew, term, *_ = pool.step({"move": move, "pick": np.array([0, 3, 2])})
    np.testing.assert_array_equal(obs["pos"], move)
    np.testing.assert_array_equal(obs["last_pick"], [0, 3, 2])
    np.testing.assert_array_equal(rew, [0, 3, 2])
    np.testing.assert_array_equal(term, [False, True, False])
    with pytest.raises(ValueError, match="missing key 'pick'"):
        pool.step({"move": move, "other": np.zeros(3, np.int32)})
    with pytest.raises(ValueError, match="exactly the keys"):
        pool.step({"move": move})
    with pytest.raises(TypeError, match="dict action"):
        pool.step(move)
    with pytest.raises(ValueError, match=r"action\['pick'\] 4"):
        pool.step({"move": move, "pick": np.array([0, 4, 0])})
    pool.step({"move": move, "pick": np.zeros(3, np.int64)})  # the pool still works


def test_gym_seed_applies_at_next_reset() -> None:
    env = envpool.make("CartPole-v1", env_type="gym", num_envs=2, seed=3)
    first, _ = env.reset()
    env.step(np.zeros(2, np.int32))
    env.seed(3)
    again, _ = env.reset()
    np.testing.assert_array_equal(first, again)


def test_an_env_that_throws_raises_in_recv_and_the_pool_goes_on() -> None:
    from envpool import _envpool

    def action(n: int, nan_row: int | None = None) -> dict:
        move = np.zeros((n, 2), np.float32)
        if nan_row is not None:
            move[nan_row, 0] = np.nan
        return {"move": move, "pick": np.ones(n, np.int32)}

    pool = _envpool.Pool("Echo", {"num_envs": 3, "num_threads": 2})
    pool.reset()
    pool.send(action(3, nan_row=1))
    with pytest.raises(RuntimeError, match="env 1 failed: Echo: move is NaN"):
        pool.recv()
    # The failed env counts as done: its next step is a reset; the others go on.
    *_, info, _ = pool.step(action(3))
    np.testing.assert_array_equal(info["elapsed_step"], [2, 0, 2])

    pool = _envpool.Pool("Echo", {"num_envs": 4, "batch_size": 2, "num_threads": 2})
    pool.send_reset()
    ids = pool.recv()[5]["env_id"]
    pool.send(action(2, nan_row=0), ids)
    with pytest.raises(RuntimeError, match=f"env {ids[0]} failed"):
        # Four envs are in flight (two resets, two steps), in no promised
        # order: the failure is in one of the next two batches.
        for _ in range(2):
            pool.recv()


def test_thread_affinity_pins_workers() -> None:
    import os

    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2 or cpus != list(range(len(cpus))):
        pytest.skip("needs CPUs 0..n-1 available")

    def pinned() -> list[str]:
        lists = []
        for tid in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{tid}/status") as f:
                lists += [line.split()[1] for line in f if line.startswith("Cpus_allowed_list")]
        return [c for c in lists if c.isdigit()]

    def new_pins(**config: int) -> list[str]:
        before = pinned()
        env = envpool.make("CartPole-v1", env_type="gym", num_envs=4, thread_affinity_offset=1, **config)
        now = pinned()
        env.close()
        for c in before:
            now.remove(c)
        return sorted(now)

    # Worker i runs on CPU (offset + i) % cores; num_threads - 1 workers are
    # started in both modes, as recv()'s thread steps too, and one with
    # num_threads=1 (recv()'s thread then only waits).
    n = len(cpus)
    assert new_pins(num_threads=2, batch_size=2) == [str(1 % n)]
    assert new_pins(num_threads=3, batch_size=2) == sorted([str(1 % n), str(2 % n)])
    assert new_pins(num_threads=3) == sorted([str(1 % n), str(2 % n)])
    assert new_pins(num_threads=1) == [str(1 % n)]
    assert new_pins(num_threads=1, batch_size=2) == [str(1 % n)]


def test_engine_results_are_named_batches() -> None:
    """Every engine call returns one Batch: named fields, in the documented order."""
    from envpool import _envpool

    pool = _envpool.Pool("CartPole", {"num_envs": 3, "seed": 0})
    result = pool.reset(None, None)
    assert isinstance(result, _envpool.Batch) and isinstance(result, tuple) and len(result) == 7
    names = ("obs", "reward", "terminated", "truncated", "discount", "info", "final")
    for i, name in enumerate(names):
        assert getattr(result, name) is result[i]
    assert result.obs.shape == (3, 4) and result.reward.dtype == np.float32
    assert list(result.info["env_id"]) == [0, 1, 2] and result.final is None
    step = pool.step(np.zeros(3, np.int32), None)
    assert isinstance(step, _envpool.Batch) and step.discount.dtype == np.float32
    # Interfaces that hand out no discount skip its view.
    lean = _envpool.Pool("CartPole", {"num_envs": 2}, False)
    assert lean.reset(None, None).discount is None


def test_numpy_array_seeds_equal_list_seeds() -> None:
    run_python(
        """
        import numpy as np, envpool
        a = envpool.make("CartPole-v1", env_type="gym", num_envs=4)
        b = envpool.make("CartPole-v1", env_type="gym", num_envs=4)
        oa, _ = a.reset(seed=np.arange(4) * 7)
        ob, _ = b.reset(seed=[0, 7, 14, 21])
        np.testing.assert_array_equal(oa, ob)
        """
    )


@pytest.mark.skipif(not MUJOCO, reason="no MuJoCo in this build")
def test_numpy_array_config_value() -> None:
    run_python(
        """
        import numpy as np, envpool
        e = envpool.make("Ant-v4", env_type="gymnasium", num_envs=2, healthy_z_range=np.array([0.2, 1.0]))
        assert tuple(e.config["healthy_z_range"]) == (0.2, 1.0)
        e.reset()
        """
    )


def test_masked_reset_before_a_full_reset_changes_nothing() -> None:
    env = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=4, seed=3)
    with pytest.raises(RuntimeError, match="full reset"):
        env.reset(options={"reset_mask": np.array([True, False, False, False])})
    ref = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=4, seed=3)
    np.testing.assert_array_equal(env.reset()[0], ref.reset()[0])


def test_masked_reset_after_a_partial_send_returns_the_right_envs() -> None:
    env = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=4, seed=3)
    obs, _ = env.reset()
    env.send(np.zeros(2, np.int64), [1, 0])  # a partial send still in flight
    mask = np.array([False, False, True, True])
    fresh, info = env.reset(seed=[10, 11], options={"reset_mask": mask})
    ref = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=4, seed=0)
    ref_obs, _ = ref.reset(seed=[0, 0, 10, 11])
    np.testing.assert_array_equal(fresh[2:], ref_obs[2:])
    np.testing.assert_array_equal(fresh[:2], obs[:2])
    np.testing.assert_array_equal(info["_env_id"], mask)
    np.testing.assert_array_equal(info["env_id"][2:], [2, 3])
    # The in-flight envs are untouched and still come back.
    _, _, _, _, info = env.recv()
    np.testing.assert_array_equal(info["env_id"], [1, 0])
    # Naming an env in flight is refused before anything is reset.
    env.send(np.zeros(1, np.int64), [3])
    with pytest.raises(ValueError, match="in flight"):
        env.reset(options={"reset_mask": np.array([False, False, True, True])})
    env.recv()


def test_masked_reset_in_async_mode_is_refused_cleanly() -> None:
    env = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=4, batch_size=2)
    env.async_reset()
    env.recv()
    with pytest.raises(ValueError, match="sync"):
        env.reset(options={"reset_mask": np.array([True, False, False, False])})
    env.recv()  # the other two envs are still there


def test_masked_reset_after_partial_batches_merges_every_env() -> None:
    """recv() of a partial send, step(a, env_id) and EnvPool's dict action with env ids
    all update the rows a later masked reset merges into; no copy per step."""
    env = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=4, seed=1)
    obs, _ = env.reset()
    env.send(np.zeros(2, np.int64), [0, 1])
    o01 = env.recv()[0].copy()
    o3 = env.step(np.zeros(1, np.int64), [3])[0].copy()
    o2 = env.step({"action": np.ones(1, np.int64), "env_id": np.array([2])})[0].copy()
    full, info = env.reset(options={"reset_mask": np.array([False, False, False, False])})
    assert full.shape == (4, 4)
    np.testing.assert_array_equal(full[[0, 1]], o01)
    np.testing.assert_array_equal(full[2], o2[0])
    np.testing.assert_array_equal(full[3], o3[0])


def test_masked_reset_after_an_unordered_full_reset_keeps_its_rows() -> None:
    """With no full picture yet (a pool reopened by reset() after close()), a reset of
    every env in another order becomes the picture, and rows of earlier partial batches
    must not be merged over it (found by the call-sequence fuzz: seed 1000, call 288)."""
    env = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=3, seed=1)
    env.reset()
    env.close()
    env.reset(env_id=[1, 0])  # reopens the pool; a partial batch
    env.step(np.array([1, 0]), env_id=[1, 0])
    obs, _ = env.reset(env_id=[0, 2, 1])
    obs = obs.copy()
    full, _ = env.reset(options={"reset_mask": np.array([False, True, True])})
    np.testing.assert_array_equal(full[0], obs[0])
    env.close()


N = 4


def _make(env_type: str, task: str = "CartPole-v1", **config):
    return envpool.make(task, env_type=env_type, num_envs=config.pop("num_envs", N), **config)


def test_gym_reset_return_info() -> None:
    env = _make("gym")  # default True (gym >= 0.26 or no gym installed): (obs, info)
    obs, info = env.reset()
    assert obs.shape == (N, 4) and list(info["env_id"]) == list(range(N))
    env = _make("gym", gym_reset_return_info=False)  # EnvPool's old behaviour: obs only
    obs = env.reset()
    assert isinstance(obs, np.ndarray) and obs.shape == (N, 4)
    with pytest.raises(ValueError, match="gym_reset_return_info"):
        _make("gymnasium", gym_reset_return_info=False)


def test_gymnasium_env_id_reset_and_step_return_those_rows() -> None:
    env = _make("gymnasium", seed=3)
    ref = _make("gymnasium", seed=3)
    ref_obs, _ = ref.reset()
    obs, info = env.reset(np.array([2, 0]))
    assert obs.shape == (2, 4)
    assert list(info["env_id"]) == [2, 0]
    np.testing.assert_array_equal(obs, ref_obs[[2, 0]])
    obs, rew, term, trunc, info = env.step(np.array([1, 0], np.int32), np.array([2, 0]))
    assert obs.shape == (2, 4) and rew.shape == (2,) and list(info["env_id"]) == [2, 0]
    ref_step = ref.step(np.array([0, 0, 1, 0], np.int32))[0]
    np.testing.assert_array_equal(obs, ref_step[[2, 0]])
    obs, info = env.reset(env_id=[1])  # keyword too, as Tianshou calls it
    assert obs.shape == (1, 4) and list(info["env_id"]) == [1]


def test_gymnasium_reset_mask_still_returns_full_batch() -> None:
    env = _make("gymnasium")
    env.reset()
    mask = np.array([True, False, False, True])
    obs, info = env.reset(options={"reset_mask": mask})
    assert obs.shape == (N, 4)
    np.testing.assert_array_equal(info["_env_id"], mask)
    with pytest.raises(ValueError, match="not both"):
        env.reset([0], options={"reset_mask": mask})


def test_gymnasium_spaces_single_by_default_batched_as_option() -> None:
    env = _make("gymnasium")
    assert env.observation_space.shape == (4,)
    assert env.action_space == gymnasium.spaces.Discrete(2)
    assert env.single_action_space == env.action_space
    assert env.single_observation_space == env.observation_space
    assert env.action_space.sample().shape == ()
    batched = _make("gymnasium", batched_spaces=True)
    assert batched.observation_space.shape == (N, 4)
    assert batched.action_space == gymnasium.spaces.MultiDiscrete([2] * N)
    assert batched.single_action_space == gymnasium.spaces.Discrete(2)


def test_gym_pool_is_a_gymnasium_env_and_wraps() -> None:
    env = _make("gym")
    assert isinstance(env, gymnasium.Env)
    wrapped = gymnasium.Wrapper(env)
    obs, info = wrapped.reset()
    assert obs.shape == (N, 4)
    out = wrapped.step(np.zeros(N, np.int32))
    assert out[0].shape == (N, 4)


@pytest.mark.parametrize("env_type", ["gym", "gymnasium", "dm"])
@pytest.mark.parametrize("task", ["CartPole-v1", "Pendulum-v1"])
def test_empty_env_ids_give_an_empty_batch(env_type: str, task: str) -> None:
    env = _make(env_type, task)
    env.reset()
    empty = np.array([], np.int64)
    act_shape = (0,) if task == "CartPole-v1" else (0, 1)
    act = np.zeros(act_shape, np.int32 if task == "CartPole-v1" else np.float32)
    if env_type == "dm":
        for ts in (env.reset(empty), env.step(act, empty)):
            assert ts.reward.shape == (0,) and ts.reward.dtype == np.float32
            assert ts.observation.obs.shape[0] == 0 and ts.step_type.shape == (0,)
        return
    obs, info = env.reset([])
    assert obs.shape == (0, *env.observation_space.shape)
    assert info["env_id"].shape == (0,) and info["env_id"].dtype == np.int32
    obs, rew, term, trunc, info = env.step(act, empty)
    assert obs.shape[0] == 0 and rew.dtype == np.float32 and term.dtype == np.bool_ and trunc.shape == (0,)
    # the pool is unaffected: a full step still works
    assert env.step(np.zeros((N, *act_shape[1:]), act.dtype))[0].shape[0] == N


# One task of each kind from the registry (the engine's test-only and Python-env kinds aside).
ONE_PER_KIND = [
    one_per_family(tasks(k))[0]
    for k in sorted({m["kind"] for m in _envpool.families().values()} - {"testing", "python"})
]


@pytest.mark.parametrize("task", ONE_PER_KIND)
def test_reward_is_float32_everywhere(task: str) -> None:
    spec = envpool.make_spec(task)
    assert spec.state_array_spec["reward"].dtype == np.float32
    for env_type in ("gym", "gymnasium"):
        env = _make(env_type, task, num_envs=2)
        env.reset()
        act = env.action_space.sample()
        assert env.step(np.stack([act, act]))[1].dtype == np.float32
    dm = _make("dm", task, num_envs=2)
    assert dm.reward_spec().dtype == np.float32
    dm.reset()
    act = dm.action_spec().generate_value()
    assert dm.step(np.stack([act, act])).reward.dtype == np.float32


def test_dm_bounded_array_bounds_as_envpool() -> None:
    # EnvPool gives BoundedArray even where a bound is infinite (CartPole's velocities).
    obs = _make("dm").observation_spec().obs
    assert isinstance(obs, dm_env.specs.BoundedArray)
    assert np.isinf(obs.minimum[1]) and obs.minimum[0] == np.float32(-4.8)
    env_id = _make("dm").observation_spec().env_id
    assert env_id.minimum == np.iinfo(np.int32).min and env_id.maximum == np.iinfo(np.int32).max


def test_dm_seed_reseeds_at_next_reset() -> None:
    a = _make("dm", seed=7)
    b = _make("dm", seed=0)
    b.seed(7)
    np.testing.assert_array_equal(a.reset().observation.obs, b.reset().observation.obs)


def test_dm_dict_actions() -> None:
    env = _make("dm")
    ref = _make("dm")
    env.reset(), ref.reset()
    act = np.array([1, 0, 1, 1], np.int32)
    ts = env.step(
        {"action": act, "env_id": np.arange(N, dtype=np.int32), "players.env_id": np.arange(N, dtype=np.int32)}
    )
    np.testing.assert_array_equal(ts.observation.obs, ref.step(act).observation.obs)
    ts = env.step({"action": act[:2], "env_id": np.array([3, 1], np.int32)})
    assert list(ts.observation.env_id) == [3, 1]


@pytest.mark.parametrize("env_type", ["gym", "gymnasium", "dm"])
def test_envpool_mixin_isinstance(env_type: str) -> None:
    env = _make(env_type)
    assert isinstance(env, envpool.python.envpool.EnvPoolMixin)
    assert isinstance(env, envpool.python.protocol.EnvPool)
    assert isinstance(envpool.make_spec("CartPole-v1"), envpool.python.protocol.EnvSpec)
    assert isinstance(envpool.python.api.make("CartPole-v1", env_type, num_envs=1), envpool.python.protocol.EnvPool)
    assert len(env) == N and not env.is_async
    np.testing.assert_array_equal(env.all_env_ids, np.arange(N, dtype=np.int32))


def test_public_typing_interface() -> None:
    """As EnvPool 1.2.5: a typed package (py.typed, shipped in the wheel), its protocol names at the top
    level, and make_*'s return types (make_gym's pool is also a GymnasiumEnvPool, as there)."""
    import importlib.resources
    import typing

    protocol = envpool.python.protocol
    assert importlib.resources.files("envpool").joinpath("py.typed").is_file()
    names = ["EnvSpec", "EnvPool", "DMEnvPool", "GymnasiumEnvPool"]
    assert [n for n in envpool.__all__ if n in names] == names
    for name in names:
        assert getattr(envpool, name) is getattr(protocol, name)
    hints = {
        f: typing.get_type_hints(getattr(envpool, f))["return"]
        for f in ("make_spec", "make_dm", "make_gym", "make_gymnasium")
    }
    assert hints == {
        "make_spec": protocol.EnvSpec,
        "make_dm": protocol.DMEnvPool,
        "make_gym": protocol.GymnasiumEnvPool,
        "make_gymnasium": protocol.GymnasiumEnvPool,
    }
    for f, env_type in [("make_dm", "dm"), ("make_gym", "gym"), ("make_gymnasium", "gymnasium")]:
        env = getattr(envpool, f)("CartPole-v1", num_envs=1)
        assert isinstance(env, hints[f]), (f, env_type)
        env.close()


@pytest.mark.parametrize("env_type", ["gym", "gymnasium", "dm"])
def test_reset_after_close_rebuilds(env_type: str) -> None:
    env = _make(env_type, seed=5)
    first = env.reset()
    env.close()
    assert env.closed
    again = env.reset()
    assert not env.closed
    if env_type == "dm":
        np.testing.assert_array_equal(first.observation.obs, again.observation.obs)
    else:
        np.testing.assert_array_equal(first[0], again[0])
    env.step(np.zeros(N, np.int32))


@pytest.mark.parametrize("env_type", ["gym", "gymnasium"])
def test_gym_and_gymnasium_pools_are_env_and_vector_env(env_type: str) -> None:
    # EnvPool 1.2's gym/gymnasium pool is both a gymnasium.vector.VectorEnv and a gymnasium.Env.
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    env = _make(env_type)
    assert isinstance(env, gymnasium.Env) and isinstance(env, gymnasium.vector.VectorEnv)
    assert env.single_observation_space == env.observation_space
    assert env.single_action_space == env.action_space
    assert env.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    wrapped = gymnasium.Wrapper(env)
    assert wrapped.reset()[0].shape == (N, 4)
    assert wrapped.step(np.zeros(N, np.int32))[0].shape == (N, 4)
    stats = RecordEpisodeStatistics(env)
    stats.reset()
    assert stats.step(np.zeros(N, np.int32))[0].shape == (N, 4)
    assert env.is_vector_env is True  # EnvPool 1.2.5's flag, gym pools included
    # CleanRL's envpool scripts assign these themselves
    env.single_action_space = env.action_space
    env.single_observation_space = env.observation_space


def test_envpool_125_module_paths_import() -> None:
    """EnvPool 1.2's tests and code import envpool.<family>.registration (registering nothing
    here: import envpool registers every task) and envpool.registration's make functions."""
    code = """
        import importlib, sys
        from envpool.registration import make, make_dm, make_gym, make_gymnasium, make_spec
        import envpool
        from envpool import _envpool
        from envpool.python.module_paths import PATHS
        assert (make, make_dm, make_gym, make_gymnasium, make_spec) == (
            envpool.make, envpool.make_dm, envpool.make_gym, envpool.make_gymnasium, envpool.make_spec)
        tables = {meta["task_module"] for meta in _envpool.families().values()}
        assert "envpool.tasks.box2d" in tables and "envpool.tasks.toy_text" in tables
        for path, table in PATHS.items():
            if table and table not in tables:  # a family this build leaves out
                try:
                    importlib.import_module(path)
                except ModuleNotFoundError:
                    continue
                raise AssertionError(path)
            module = importlib.import_module(path)
            assert module is sys.modules[path] and "registers every task" in module.__doc__
        import envpool.box2d.registration as reg
        assert envpool.box2d.registration is reg
        assert make_gym("LunarLander-v3", num_envs=2).reset()[0].shape == (2, 8)
        for missing in ("envpool.procgen.registration", "envpool.box2d.box2d_envpool", "envpool.mujoco.robotics"):
            try:
                importlib.import_module(missing)
            except ModuleNotFoundError:
                pass
            else:
                raise AssertionError(missing)
    """
    run_python(code)


def test_envpool_125_task_lists() -> None:
    """EnvPool 1.2.5's registration modules' task lists, which its own tests iterate (e.g.
    mujoco_gym_deterministic_test.py: ``for task, versions, _ in reg.gym_mujoco_envs``), list the
    tasks registered here, in EnvPool's shapes: ROM names; (task, versions, max_episode_steps);
    (domain, task, max_episode_steps) with dm_control's names."""
    code = """
        import importlib
        import envpool
        from envpool import _envpool
        from envpool.registration import lookup
        tables = {meta["task_module"] for meta in _envpool.families().values()}
        ids = envpool.list_all_envs()
        if "envpool.tasks.atari" in tables:
            games = importlib.import_module("envpool.atari.registration").atari_game_list
            atari = [t for t in ids if lookup(t).family == "Atari"]
            assert "pong" in games and "space_invaders" in games and len(games) == len(set(games)) > 100
            assert {lookup(t).config["task"] for t in atari} == set(games)
        if "envpool.tasks.mujoco" in tables:
            gym = importlib.import_module("envpool.mujoco.gym.registration").gym_mujoco_envs
            assert ("Ant", ("v3", "v4", "v5"), 1000) in gym and ("Reacher", ("v2", "v4", "v5"), 50) in gym
            listed = {f"{task}-{v}" for task, versions, _ in gym for v in versions}
            assert listed == {t for t in ids if t.split("-")[0] in {task for task, _, _ in gym}}
            for task, versions, steps in gym:
                assert all(envpool.make_spec(f"{task}-{v}").config["max_episode_steps"] == steps for v in versions)
        if "envpool.tasks.dmc" in tables:
            dmc = importlib.import_module("envpool.mujoco.dmc.registration").dmc_mujoco_envs
            assert len(dmc) == 51 and ("ball_in_cup", "catch", 1000) in dmc and ("lqr", "lqr_2_1", 0) in dmc
            assert ("humanoid_CMU", "run", 1000) in dmc
            from envpool.tasks.dmc import task_id
            for domain, task, steps in dmc:
                assert envpool.make_spec(task_id(domain, task)).config["max_episode_steps"] == steps
        if "envpool.tasks.metaworld" in tables:
            mw = importlib.import_module("envpool.mujoco.metaworld.registration").metaworld_v3_envs
            assert "reach-v3" in mw and "pick-place-v3" in mw
            from envpool.tasks.metaworld import task_id
            assert {task_id(n) for n in mw} == {t for t in ids if t.startswith("MetaWorld/")}
            assert all(envpool.make_spec(task_id(n)).config["max_episode_steps"] == 500 for n in mw)
        assert not hasattr(importlib.import_module("envpool.box2d.registration"), "box2d_envs")
    """
    run_python(code)


def test_autoreset_mode_accepts_gymnasium_enum() -> None:
    env = _make("gymnasium", autoreset_mode=AutoresetMode.SAME_STEP)
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert env.config["autoreset_mode"] == "same_step"
    assert (
        envpool.make_spec("CartPole-v1", autoreset_mode=AutoresetMode.NEXT_STEP).config["autoreset_mode"] == "next_step"
    )
    assert (
        envpool.make_spec("CartPole-v1", autoreset_mode=AutoresetMode.DISABLED).config["autoreset_mode"] == "disabled"
    )


def test_differences_table_claims() -> None:
    env = _make("gymnasium")
    env.reset()
    with pytest.raises(TypeError):  # float actions on Discrete are refused
        env.step(np.zeros(N, np.float32))
    with pytest.raises(ValueError):  # out-of-range discrete actions too
        env.step(np.full(N, 2, np.int32))
    assert _make("gymnasium", seed=[1, 2, 3, 4]).config["seed"] == [1, 2, 3, 4]  # one seed per env, as EnvPool
    env.close()
    with pytest.raises(RuntimeError):  # step after close raises until reset()
        env.step(np.zeros(N, np.int32))
    env.reset()
    env.step(np.zeros(N, np.int32))
    before = np.array(env.reset()[0])
    obs, _ = env.reset(options={"reset_mask": np.zeros(N, bool)})  # all-False mask: a no-op
    np.testing.assert_array_equal(obs, before)
    assert envpool.make_spec("CartPole-v1").action_array_spec["action"].shape == []
    assert "elapsed_step" in _make("dm").observation_spec()._fields
    pong = _make("gymnasium", "Pong-v5", num_envs=1)
    assert pong.reset()[1]["reward"].dtype == np.float64
    # reset(seed=...) reseeds (EnvPool ignores it): same seed, same first obs
    a = _make("gymnasium", seed=0)
    b = _make("gymnasium", seed=9)
    np.testing.assert_array_equal(a.reset(seed=9)[0], b.reset()[0])


def test_differences_table_claims_from_the_envpool_125_check() -> None:
    # Rows added after a differential run against EnvPool 1.2.5.
    pong = _make("gymnasium", "Pong-v5", num_envs=1)
    assert pong.reset()[1]["terminated"].dtype == np.bool_  # EnvPool: int32
    hc = _make("gymnasium", "HalfCheetah-v4", num_envs=2)
    assert hc.action_space.dtype == np.float32  # EnvPool: float64, accepted here too
    hc.reset()
    assert hc.step(np.zeros((2, 6), np.float64))[0].shape == (2, 17)
    env = _make("gymnasium", seed=1)
    env.reset(options={"no_such_option": 1})  # ignored (EnvPool: ValueError)
    with pytest.raises(RuntimeError):  # recv() with nothing in flight (EnvPool: an empty batch)
        env.recv()
    gym_pool = _make("gym", gym_reset_return_info=False)  # EnvPool 1.2.5: ValueError
    assert isinstance(gym_pool.reset(), np.ndarray)
    async_env = _make("gymnasium", batch_size=2)
    async_env.async_reset()
    with pytest.raises(ValueError, match="in flight"):  # EnvPool: undefined
        async_env.send(np.zeros(1, np.int32), np.array([0]))
    assert envpool.make_spec("Pong-v5", noop_max=0).config["noop_max"] == 0  # EnvPool 1.2.5 crashes
