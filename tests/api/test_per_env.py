"""Every env its own: per-env seeds at make (``seed=[...]``), per-env options
(``env_options``) and gymnasium's third autoreset mode (``autoreset_mode="disabled"``).

Seeds and options are checked against one-env pools made with env i's seed and options:
env i must follow that pool's trajectory exactly (same engine, same env code, so bitwise).
The disabled mode is checked against gymnasium's own ``SyncVectorEnv`` in that mode, from
the same CartPole states."""

from __future__ import annotations

from typing import Any

import _py_envs
import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, SyncVectorEnv

import envpool
from envpool import _envpool

atari = pytest.mark.skipif("Atari" not in _envpool.families(), reason="Atari family not built")
mujoco = pytest.mark.skipif("HalfCheetah" not in str(envpool.list_all_envs()), reason="MuJoCo family not built")


def _run(env: Any, acts: np.ndarray, env_ids: list[int] | None = None) -> list[tuple]:
    """(obs, reward, terminated, truncated) after reset and each step, for env_ids' rows."""
    rows = slice(None) if env_ids is None else env_ids
    obs, _ = env.reset()
    out = [(np.array(obs)[rows], None, None, None)]
    for a in acts:
        obs, rew, term, trunc, _ = env.step(a)
        out.append((np.array(obs)[rows], rew[rows].copy(), term[rows].copy(), trunc[rows].copy()))
    return out


def _assert_env_follows(pool_run: list[tuple], i: int, one_run: list[tuple], what: str) -> None:
    for t, (p, o) in enumerate(zip(pool_run, one_run, strict=True)):
        np.testing.assert_array_equal(p[0][i], o[0][0], err_msg=f"{what}: env {i} step {t}")
        if t:
            assert (p[1][i], p[2][i], p[3][i]) == (o[1][0], o[2][0], o[3][0]), f"{what}: env {i} step {t}"


def _actions(space: gymnasium.Space, n: int, steps: int, seed: int = 0) -> np.ndarray:
    space.seed(seed)
    return np.stack([np.stack([space.sample() for _ in range(n)]) for _ in range(steps)])


# -- seed=[...] -------------------------------------------------------------------


FAMILIES = [
    pytest.param("CartPole-v1", {}, 60, id="classic"),
    pytest.param("Pong-v5", {}, 30, id="atari", marks=atari),
    pytest.param("HalfCheetah-v5", {}, 20, id="mujoco", marks=mujoco),
    # ~4 s: four pools of worker processes
    pytest.param("gymnasium:CartPole-v1", {"num_workers": 1}, 40, id="python-env", marks=pytest.mark.slow),
]


@pytest.mark.parametrize(("task", "opts", "steps"), FAMILIES)
def test_seed_list_env_i_follows_a_one_env_pool_seeded_seed_i(task: str, opts: dict, steps: int) -> None:
    seeds = [11, 3, 2**40 + 5]
    env = envpool.make(task, "gymnasium", num_envs=3, seed=seeds, **opts)
    assert env.config["seed"] == seeds
    acts = _actions(env.single_action_space, 3, steps)
    pool = _run(env, acts)
    env.close()
    for i, s in enumerate(seeds):
        one = envpool.make(task, "gymnasium", num_envs=1, seed=s, **opts)
        _assert_env_follows(pool, i, _run(one, acts[:, i : i + 1]), task)
        one.close()


def test_seed_list_on_gym_and_dm_and_numpy_seeds() -> None:
    seeds = np.array([9, 4], dtype=np.uint32)
    one = envpool.make("CartPole-v1", "gym", num_envs=1, seed=4).reset()[0][0]
    gym_obs, _ = envpool.make("CartPole-v1", "gym", num_envs=2, seed=seeds).reset()
    dm_obs = envpool.make("CartPole-v1", "dm", num_envs=2, seed=(9, 4)).reset().observation.obs
    np.testing.assert_array_equal(gym_obs[1], one)
    np.testing.assert_array_equal(dm_obs, gym_obs)
    assert not np.array_equal(gym_obs[0], gym_obs[1])


def test_seed_list_in_a_multi_task_pool() -> None:
    tasks, seeds = ["CartPole-v1", "CartPole-v0"], [8, 1, 5]
    env = envpool.make(tasks, "gymnasium", num_envs=3, seed=seeds)
    acts = _actions(env.single_action_space, 3, 30)
    pool = _run(env, acts)
    for i, s in enumerate(seeds):
        one = envpool.make(tasks[i % 2], "gymnasium", num_envs=1, seed=s)
        _assert_env_follows(pool, i, _run(one, acts[:, i : i + 1]), tasks[i % 2])


def test_seed_list_keeps_reset_seeds_working() -> None:
    env = envpool.make("CartPole-v1", "gymnasium", num_envs=2, seed=[1, 2])
    first, _ = env.reset()
    again, _ = env.reset(seed=[1, 2])  # the make seeds, given again
    np.testing.assert_array_equal(first, again)
    plain, _ = env.reset(seed=1)  # env i: 1 + i
    np.testing.assert_array_equal(plain[0], first[0])


@pytest.mark.parametrize(
    ("seed", "error", "match"),
    [
        ([1, 2], ValueError, "seed list has 2 entries for 3 envs"),
        ([1, 2, 3, 4], ValueError, "seed list has 4 entries for 3 envs"),
        ([1, -1, 2], ValueError, r"seed must be in \[0, 2\*\*63 - 1\]"),
        ([1, 2**63, 2], ValueError, r"seed must be in \[0, 2\*\*63 - 1\]"),
        ([1, 2.0, 3], TypeError, "seed must be an int or a list of ints"),
        ([1, "2", 3], TypeError, "seed must be an int or a list of ints"),
    ],
)
def test_seed_list_errors(seed: list, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        envpool.make("CartPole-v1", "gymnasium", num_envs=3, seed=seed)
    with pytest.raises(error, match=match):
        envpool.make("gymnasium:CartPole-v1", "gymnasium", num_envs=3, seed=seed, num_workers=1)


# -- env_options ------------------------------------------------------------------


def test_env_options_max_episode_steps_per_env() -> None:
    env = envpool.make("CartPole-v1", "gymnasium", num_envs=3, env_options=[{}, {"max_episode_steps": 3}, {}])
    assert len(env.spec.task_configs) == 2  # envs 0 and 2 share the pool's config
    assert "task_id" not in env.reset()[1]  # one task: no task_id
    for _ in range(3):
        *_, trunc, info = env.step(np.array([0, 1, 0]))
    assert list(trunc) == [False, True, False]
    # next_step autoreset of env 1 only
    *_, info = env.step(np.array([0, 1, 0]))
    assert list(info["elapsed_step"]) == [4, 0, 4]


def test_env_options_in_a_multi_task_pool_report_the_task() -> None:
    env = envpool.make(
        ["CartPole-v1", "CartPole-v0"],
        "gymnasium",
        num_envs=4,
        env_options={3: {"max_episode_steps": 2}},
        autoreset_mode="disabled",
    )
    _, info = env.reset()
    assert list(info["task_id"]) == [0, 1, 0, 1]
    for _ in range(2):
        *_, trunc, info = env.step(np.zeros(4, np.int64))
    assert list(trunc) == [False, False, False, True]
    assert list(info["task_id"]) == [0, 1, 0, 1]
    with pytest.raises(ValueError, match="env 3 is done"):
        env.step(np.zeros(4, np.int64))


@atari
def test_atari_env_options_follow_one_env_pools() -> None:
    per_env = [{"repeat_action_probability": 0.25, "noop_max": 0}, {"noop_max": 7, "mode": 1, "difficulty": 1}]
    seeds = [5, 9]
    env = envpool.make("Pong-v5", "gymnasium", num_envs=2, seed=seeds, env_options=per_env)
    acts = _actions(env.single_action_space, 2, 40)
    pool = _run(env, acts)
    for i in range(2):
        one = envpool.make("Pong-v5", "gymnasium", num_envs=1, seed=seeds[i], **per_env[i])
        _assert_env_follows(pool, i, _run(one, acts[:, i : i + 1]), str(per_env[i]))
    # and the options take effect: the same seed without them starts elsewhere or steps otherwise
    plain = _run(envpool.make("Pong-v5", "gymnasium", num_envs=2, seed=seeds), acts)
    assert any(not np.array_equal(p[0], q[0]) for p, q in zip(pool, plain, strict=True))


@mujoco
def test_mujoco_reset_noise_scale_per_env() -> None:
    env = envpool.make("HalfCheetah-v5", "gymnasium", num_envs=3, seed=4, env_options={1: {"reset_noise_scale": 0.0}})
    acts = _actions(env.single_action_space, 3, 10)
    pool = _run(env, acts)
    obs = pool[0][0]
    noiseless = envpool.make("HalfCheetah-v5", "gymnasium", num_envs=1, reset_noise_scale=0.0).reset()[0][0]
    np.testing.assert_array_equal(obs[1], noiseless)  # no noise: the model's initial state
    assert not np.array_equal(obs[0], noiseless) and not np.array_equal(obs[2], noiseless)
    for i in range(3):
        opts = {"reset_noise_scale": 0.0} if i == 1 else {}
        one = envpool.make("HalfCheetah-v5", "gymnasium", num_envs=1, seed=4 + i, **opts)
        _assert_env_follows(pool, i, _run(one, acts[:, i : i + 1]), "HalfCheetah-v5")


@mujoco
def test_dm_control_time_limit_per_env_truncates_at_its_own_step() -> None:
    env = envpool.make(
        "CartpoleBalance-v1", "gymnasium", num_envs=2, env_options=[{"time_limit": 0.1}, {"time_limit": 0.2}]
    )
    env.reset()
    act = np.zeros((2, *env.single_action_space.shape), np.float32)
    ends = [None, None]
    for t in range(1, 30):
        _, _, term, trunc, _ = env.step(act)
        for i in range(2):
            if ends[i] is None and (term[i] or trunc[i]):
                ends[i] = t
    assert ends[0] is not None and ends[1] is not None and ends[1] == 2 * ends[0], ends


def test_env_options_that_change_the_spaces_are_refused_naming_them() -> None:
    with pytest.raises(ValueError, match=r"envs \[1\] with env_options \['expose_state'\].*must agree across envs"):
        envpool.make("CartPole-v1", "gymnasium", num_envs=3, env_options={1: {"expose_state": True}})
    # The values come in the order the groups are named: env 0's, then the pool's.
    with pytest.raises(
        ValueError,
        match=r"envs \[0\] with env_options \['continuous'\] and envs \[1\] with the "
        r"pool's options differ in 'action': dtype 'float32' vs 'int32'",
    ):
        envpool.make("LunarLander-v3", "gymnasium", num_envs=2, env_options=[{"continuous": True}, {}])
    with pytest.raises(ValueError, match=r"differ in 'obs': high \[63.0\] vs \[15.0\]"):
        envpool.make("FrozenLake-v1", "gymnasium", num_envs=2, env_options=[{"map_name": "8x8"}, {}])


def test_space_changing_env_options_that_every_env_gives_alike_are_the_tasks() -> None:
    """Every env with map_name="8x8" is the 8x8 task: no env runs the pool's 4x4 config,
    so there is nothing to disagree with; each env steps as in a pool made with the option."""
    n, acts = 3, np.random.default_rng(0).integers(0, 4, size=(30, 3))
    per_env = [{"map_name": "8x8"}, {"map_name": "8x8"}, {"map_name": "8x8", "is_slippery": False}]
    env = envpool.make("FrozenLake-v1", "gymnasium", num_envs=n, seed=2, env_options=per_env)
    assert env.single_observation_space.n == 64 and env.config["map_name"] == "8x8"
    pool = _run(env, acts)
    for i in range(n):
        one = envpool.make("FrozenLake-v1", "gymnasium", num_envs=1, seed=2 + i, **per_env[i])
        _assert_env_follows(pool, i, _run(one, acts[:, i : i + 1]), str(per_env[i]))
    with pytest.raises(ValueError, match=r"envs \[0, 1\]: map_name must be"):
        envpool.make("FrozenLake-v1", "gymnasium", num_envs=2, env_options=[{"map_name": "9x9"}] * 2)


@mujoco
def test_mujoco_xml_file_that_changes_the_obs_is_refused() -> None:
    ant = envpool.make_spec("Ant-v5").config["xml_file"]
    with pytest.raises(ValueError, match=r"envs \[0, 2\] with env_options \['xml_file'\] and envs \[1\]"):
        envpool.make(
            "HalfCheetah-v5", "gymnasium", num_envs=3, env_options={0: {"xml_file": ant}, 2: {"xml_file": ant}}
        )


@pytest.mark.parametrize(
    ("env_options", "error", "match"),
    [
        ({0: {"num_threads": 2}}, ValueError, "'num_threads' is an option of the whole pool"),
        ({1: {"seed": 3}}, ValueError, "'seed' is an option of the whole pool"),
        ({1: {"autoreset_mode": "same_step"}}, ValueError, "'autoreset_mode' is an option of the whole pool"),
        ({1: {"render_mode": "rgb_array"}}, ValueError, "'render_mode' is an option of the whole pool"),
        ({1: {"no_such_option": 3}}, TypeError, "env_options of env 1: unknown config key 'no_such_option'"),
        ({2: {"max_episode_steps": "x"}}, TypeError, "env_options of env 2: config 'max_episode_steps' must be an int"),
        ({2: {"max_episode_steps": -1}}, ValueError, "env_options of env 2: max_episode_steps must be >= 0"),
        ({3: {}}, ValueError, r"names env 3, not an env id in \[0, 3\)"),
        ({"1": {}}, ValueError, "names env '1'"),
        ([{}, {}], ValueError, "env_options has 2 entries for 3 envs"),
        ([{}, 5, {}], TypeError, "env_options of env 1 must be a dict"),
        ("max_episode_steps=3", TypeError, "env_options must be a list"),
    ],
)
def test_env_options_errors(env_options: Any, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        envpool.make("CartPole-v1", "gymnasium", num_envs=3, env_options=env_options)


def test_env_options_refused_for_python_env_pools() -> None:
    with pytest.raises(ValueError, match="pool of Python envs"):
        envpool.make("gymnasium:CartPole-v1", "gymnasium", num_envs=2, env_options=[{}, {}])


# -- autoreset_mode="disabled" ------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "ours", "member"),
    [
        (AutoresetMode.NEXT_STEP, "next_step", AutoresetMode.NEXT_STEP),
        ("NextStep", "next_step", AutoresetMode.NEXT_STEP),
        ("next_step", "next_step", AutoresetMode.NEXT_STEP),
        (AutoresetMode.SAME_STEP, "same_step", AutoresetMode.SAME_STEP),
        ("SameStep", "same_step", AutoresetMode.SAME_STEP),
        (AutoresetMode.DISABLED, "disabled", AutoresetMode.DISABLED),
        ("Disabled", "disabled", AutoresetMode.DISABLED),
        ("disabled", "disabled", AutoresetMode.DISABLED),
    ],
)
@pytest.mark.parametrize("env_type", ["gymnasium", "gym"])
def test_autoreset_mode_spellings(given: Any, ours: str, member: AutoresetMode, env_type: str) -> None:
    env = envpool.make("CartPole-v1", env_type, num_envs=1, autoreset_mode=given)
    assert env.config["autoreset_mode"] == ours
    assert env.metadata["autoreset_mode"] is member


def test_autoreset_mode_unknown_is_refused() -> None:
    with pytest.raises(ValueError, match="'next_step', 'same_step' or 'disabled'"):
        envpool.make("CartPole-v1", "gymnasium", autoreset_mode="Never")


def _put(ref: SyncVectorEnv, i: int, state: np.ndarray) -> None:
    """gymnasium's env i into our env's exact float64 state (as gymnasium's reset leaves it)."""
    env = ref.envs[i].unwrapped
    env.state = np.array(state, dtype=np.float64)
    env.steps_beyond_terminated = None


def _ref(n: int) -> SyncVectorEnv:
    return SyncVectorEnv(
        [lambda: gymnasium.make("CartPole-v1") for _ in range(n)], autoreset_mode=AutoresetMode.DISABLED
    )


def _check_rows(ours: tuple, ref: tuple, what: str) -> None:
    np.testing.assert_allclose(ours[0], ref[0], rtol=0, atol=1e-6, err_msg=what)  # float32 observations
    for k in (1, 2, 3):
        np.testing.assert_array_equal(ours[k], ref[k], err_msg=what)


def test_disabled_matches_gymnasium_sync_vector_env() -> None:
    """Same states, same actions: which envs are done, the refusal, a reset_mask reset and
    the steps after it agree with SyncVectorEnv(autoreset_mode=DISABLED)."""
    n = 3
    ours = envpool.make("CartPole-v1", "gymnasium", num_envs=n, seed=1, autoreset_mode="disabled", expose_state=True)
    ref = _ref(n)
    _, info = ours.reset()
    ref.reset(seed=0)
    for i in range(n):
        _put(ref, i, info["state"][i])
    rng = np.random.default_rng(0)
    done = np.zeros(n, bool)
    # Env i pushes one way with probability 0.9: they fall at different steps.
    while not done.any():
        act = (rng.random(n) < [0.9, 0.5, 0.1]).astype(np.int64)
        o = ours.step(act)
        r = ref.step(act)
        _check_rows(o[:4], r[:4], "before the first done")
        done = o[2] | o[3]
    first = int(np.flatnonzero(done)[0])
    # gymnasium only asserts there, after stepping the envs before it: ours refuses
    # before any env steps (the rows below still match the untouched reference).
    with pytest.raises(ValueError, match=f"env {first} is done"):
        ours.step(np.zeros(n, np.int64))
    # The reset_mask reset: the done envs' new first observation, the others' last.
    last = o[0].copy()
    obs, info = ours.reset(options={"reset_mask": done})
    ref_obs, ref_info = ref.reset(options={"reset_mask": done})
    np.testing.assert_array_equal(obs[~done], last[~done])
    np.testing.assert_array_equal(ref_obs[~done], r[0][~done])
    state = info["state"]
    for i in np.flatnonzero(done):
        np.testing.assert_array_equal(obs[i], state[i].astype(np.float32))
        _put(ref, int(i), state[i])
    # Every env steps again, the reset ones from their new state.
    for _ in range(5):
        act = rng.integers(0, 2, n)
        o, r = ours.step(act), ref.step(act)
        _check_rows(o[:4], r[:4], "after the masked reset")
        if (o[2] | o[3]).any():
            break


def test_disabled_others_step_while_a_done_env_waits_for_its_reset() -> None:
    ours = envpool.make("CartPole-v1", "gymnasium", num_envs=2, seed=3, autoreset_mode="disabled", expose_state=True)
    ref = [gymnasium.make("CartPole-v1") for _ in range(2)]
    _, info = ours.reset()
    for i in range(2):
        ref[i].reset(seed=0)
        ref[i].unwrapped.state = np.array(info["state"][i])
    # Env 0 falls (always left); env 1 balances by alternating.
    t = 0
    while True:
        act = np.array([0, t % 2])
        obs, rew, term, trunc, info = ours.step(act)
        for i in range(2):
            r = ref[i].step(int(act[i]))
            np.testing.assert_allclose(obs[i], r[0], rtol=0, atol=1e-6)
            assert (rew[i], term[i], trunc[i]) == (r[1], r[2], r[3])
        t += 1
        if term[0]:
            break
    assert not term[1]
    for _ in range(3):  # env 0 stays done; env 1 steps on
        with pytest.raises(ValueError, match="env 0 is done"):
            ours.step(np.array([0, t % 2]))
        obs, rew, term, trunc, info = ours.step(np.array([t % 2]), env_id=[1])
        r = ref[1].step(t % 2)
        np.testing.assert_allclose(obs[0], r[0], rtol=0, atol=1e-6)
        assert (rew[0], term[0], trunc[0], info["env_id"][0]) == (r[1], r[2], r[3], 1)
        t += 1
    obs, info = ours.reset(env_id=[0])  # reset(env_id=...) ends it
    assert info["elapsed_step"][0] == 0
    ours.step(np.array([0, 0]))


@pytest.mark.parametrize("task", ["CartPole-v1", "gymnasium:CartPole-v1"])
def test_disabled_async_refuses_a_done_env_before_sending_any(task: str) -> None:
    opts = {"num_workers": 1} if task.startswith("gymnasium:") else {}
    env = envpool.make(task, "gymnasium", num_envs=4, batch_size=2, seed=0, autoreset_mode="disabled", **opts)
    env.async_reset()
    done: set[int] = set()
    ready: set[int] = set()
    for _ in range(400):
        _, _, term, trunc, info = env.recv()
        ids = info["env_id"]
        done |= {int(i) for i, d in zip(ids, term | trunc, strict=True) if d}
        ready |= {int(i) for i in ids}
        if done:
            break
        env.send(np.zeros(len(ids), np.int64), ids)  # always left: they fall
        ready -= {int(i) for i in ids}
    victim = min(done)
    others = sorted(ready - done)
    in_flight = env._pool.in_flight
    with pytest.raises(ValueError, match=f"env {victim} is done"):
        env.send(np.zeros(len(others) + 1, np.int64), [*others, victim])
    assert env._pool.in_flight == in_flight  # nothing was sent, not even the others
    if others:
        env.send(np.zeros(len(others), np.int64), others)


def test_disabled_refuses_an_env_never_reset_or_failed_until_its_reset() -> None:
    env = envpool.make(_py_envs.FaultyEnv, "gymnasium", num_envs=2, num_workers=1, autoreset_mode="disabled")
    with pytest.raises(ValueError, match=r"env 0 is done \(or not yet reset\)"):
        env.step(np.zeros(2, np.int64))
    env.reset()
    with pytest.raises(ValueError, match="bad action value") as failed:
        env.step(np.array([0, 3]))  # env 1's step raises: its episode ends
    assert list(failed.value.failed_env_ids) == [1]
    with pytest.raises(ValueError, match="env 1 is done"):
        env.step(np.zeros(2, np.int64))
    obs, *_ = env.step(np.zeros(1, np.int64), env_id=[0])
    assert obs[0][0] == 2.0  # env 0 stepped on: its second step
    env.reset(env_id=[1])
    obs, *_ = env.step(np.zeros(2, np.int64))
    assert list(obs[:, 0]) == [3.0, 1.0]
