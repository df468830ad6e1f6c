"""MuJoCo family: alignment with gymnasium, reset noise, determinism, errors.

Alignment: our env exposes its initial state (``expose_state=True`` ->
``info["qpos0"]``/``info["qvel0"]``); we put gymnasium's env in that state
with ``set_state`` and step both with the same float32 actions. Both run the
same libmujoco with the same arithmetic (including gymnasium's float32
control costs and numpy's summation order), so observations, rewards and
info terms agree to 1e-9 (in practice bit for bit). Rewards are float32 (as
EnvPool's), computed in double and rounded once: they are compared with
gymnasium's reward rounded to float32.
"""

from __future__ import annotations

import collections

import numpy as np
import pytest

pytest.importorskip("mujoco")
gym = pytest.importorskip("gymnasium")

pytest.importorskip("imageio")  # gymnasium's MuJoCo envs (the reference) import it; in the test extra

from _isolated import run_python  # noqa: E402
from _registry import family, tasks  # noqa: E402

import envpool  # noqa: E402
from envpool import _envpool  # noqa: E402

if "Ant-v4" not in _envpool.families():
    pytest.skip("envpool was built without MuJoCo", allow_module_level=True)

# Every registered gymnasium MuJoCo task; the v2/v3 ids are aliases of a v4
# family with its options (test_legacy_mujoco_ids_run_the_v4_dynamics).
IDS = [t for t in tasks("mujoco") if family(t) == t]
ATOL = 1e-9
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
X = "exclude_current_positions_from_observation"
T = "terminate_when_unhealthy"


def make_gym(task_id: str, **kwargs):
    """gymnasium's unwrapped env (Pusher-v4 refuses mujoco>=3 in its ctor)."""
    if task_id == "Pusher-v4":
        import mujoco

        old = mujoco.__version__
        mujoco.__version__ = "2.3.7"
        try:
            return gym.make(task_id, **kwargs).unwrapped
        finally:
            mujoco.__version__ = old
    return gym.make(task_id, **kwargs).unwrapped


def assert_close(a, b, what):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    assert a.shape == b.shape, (what, a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=0, atol=ATOL, err_msg=what)


def sync_gym(g, task_id, obs_i, info, i):
    """Put gymnasium's env into our env i's fresh episode and compare the reset."""
    g.set_state(info["qpos0"][i].copy(), info["qvel0"][i].copy())
    assert_close(obs_i, g._get_obs(), f"{task_id} env {i} reset obs")
    if hasattr(g, "_get_reset_info"):
        for k, v in g._get_reset_info().items():
            assert_close(info[k][i], v, f"{task_id} env {i} reset info {k}")


def align(task_id: str, steps: int = 1000, seed: int = 0, num_envs: int = 2, episodes: int = 1, **kwargs):
    """Step envpool and gymnasium side by side from the same initial states.

    Each env runs ``episodes`` episodes (through the engine's autoreset) or
    until ``steps`` steps have passed.
    """
    env = envpool.make(task_id, env_type="gymnasium", num_envs=num_envs, seed=seed, expose_state=True, **kwargs)
    assert env.metadata["autoreset_mode"].name == "NEXT_STEP"
    obs, info = env.reset()
    gyms = []
    for i in range(num_envs):
        g = make_gym(task_id, **kwargs)
        g.reset(seed=seed + i)
        sync_gym(g, task_id, obs[i], info, i)
        gyms.append(g)
    assert env.single_observation_space.shape == gyms[0].observation_space.shape
    assert env.single_observation_space.dtype == np.float64
    assert env.single_action_space.dtype == gyms[0].action_space.dtype == np.float32
    np.testing.assert_array_equal(env.single_action_space.low, gyms[0].action_space.low)
    np.testing.assert_array_equal(env.single_action_space.high, gyms[0].action_space.high)
    max_steps = env.spec.max_episode_steps
    space = gyms[0].action_space
    rng = np.random.default_rng(seed)
    done_episodes = np.zeros(num_envs, dtype=int)
    resetting = np.zeros(num_envs, dtype=bool)
    elapsed = np.zeros(num_envs, dtype=int)
    for t in range(steps):
        actions = rng.uniform(space.low, space.high, size=(num_envs, *space.shape)).astype(np.float32)
        obs, rew, term, trunc, info = env.step(actions)
        for i in range(num_envs):
            if done_episodes[i] >= episodes:
                continue
            if resetting[i]:  # next-step autoreset: this row is a new episode
                assert info["elapsed_step"][i] == 0 and rew[i] == 0 and not term[i] and not trunc[i]
                gyms[i].reset()
                sync_gym(gyms[i], task_id, obs[i], info, i)
                resetting[i] = False
                elapsed[i] = 0
                continue
            og, rg, tg, _, ig = gyms[i].step(actions[i])
            elapsed[i] += 1
            tag = f"{task_id} env {i} step {t}"
            assert_close(obs[i], og, f"{tag} obs")
            assert abs(float(rew[i]) - float(np.float32(rg))) <= ATOL, (tag, rew[i], rg)
            assert bool(term[i]) == bool(tg), (tag, term[i], tg)
            assert bool(trunc[i]) == (not tg and elapsed[i] == max_steps), (tag, trunc[i])
            for k, v in ig.items():
                assert k in info, (tag, k)
                assert_close(info[k][i], v, f"{tag} info {k}")
            if term[i] or trunc[i]:
                done_episodes[i] += 1
                resetting[i] = True
        if (done_episodes >= episodes).all():
            break
    env.close()
    return done_episodes


@pytest.mark.parametrize("task_id", IDS)
def test_alignment_default(task_id):
    # 300 steps in the fast suite; whole episodes to their end or truncation
    # (1000 steps for most tasks) in test_alignment_many_seeds (slow).
    align(task_id, steps=300)


OPTION_CASES = [
    ("Ant-v4", {X: False, T: False, "ctrl_cost_weight": 0.3, "use_contact_forces": True, "contact_cost_weight": 1e-3}),
    ("Ant-v4", {"use_contact_forces": True, "contact_force_range": (-0.5, 0.7), "healthy_z_range": (0.3, 0.9)}),
    ("Ant-v5", {X: False, T: False, "include_cfrc_ext_in_observation": False, "main_body": 2, "frame_skip": 3}),
    ("Ant-v5", {"contact_cost_weight": 1e-2, "forward_reward_weight": 1.7, "healthy_reward": 0.3}),
    ("Ant-v5", {"main_body": "torso", "ctrl_cost_weight": 0.2}),  # a body name, as gymnasium allows
    ("HalfCheetah-v4", {X: False, "forward_reward_weight": 2.0, "ctrl_cost_weight": 0.37}),
    ("HalfCheetah-v5", {X: False, "ctrl_cost_weight": 0.37, "frame_skip": 2, "reset_noise_scale": 0.3}),
    ("Hopper-v4", {X: False, T: False, "healthy_reward": 0.5, "healthy_angle_range": (-0.5, 0.5)}),
    ("Hopper-v5", {X: False, T: False, "ctrl_cost_weight": 0.2, "healthy_state_range": (-50.0, 50.0)}),
    ("Walker2d-v4", {X: False, T: False, "ctrl_cost_weight": 0.01}),
    ("Walker2d-v5", {X: False, T: False, "xml_file": "walker2d.xml", "healthy_z_range": (0.5, 2.5)}),
    ("Swimmer-v4", {X: False, "ctrl_cost_weight": 0.3}),
    ("Swimmer-v5", {X: False, "forward_reward_weight": 0.5, "frame_skip": 2}),
    ("Humanoid-v4", {X: False, T: False, "ctrl_cost_weight": 0.2}),
    (
        "Humanoid-v5",
        {
            X: False,
            T: False,
            "contact_cost_weight": 1e-5,
            "contact_cost_range": (-1.0, 0.5),
            "include_cinert_in_observation": False,
            "include_qfrc_actuator_in_observation": False,
        },
    ),
    ("HumanoidStandup-v5", {X: False, "impact_cost_weight": 1e-5, "include_cvel_in_observation": False}),
    ("InvertedDoublePendulum-v5", {"healthy_reward": 3.0, "reset_noise_scale": 0.2}),
    ("InvertedPendulum-v5", {"reset_noise_scale": 0.1, "frame_skip": 1}),
    ("Pusher-v5", {"reward_near_weight": 0.3, "reward_dist_weight": 2.0, "reward_control_weight": 0.7}),
    ("Reacher-v5", {"reward_dist_weight": 2.0, "reward_control_weight": 0.3, "frame_skip": 3}),
]


@pytest.mark.parametrize("task_id,kwargs", OPTION_CASES, ids=[f"{t}-{i}" for i, (t, _) in enumerate(OPTION_CASES)])
def test_alignment_options(task_id, kwargs):
    align(task_id, steps=300, seed=3, num_envs=1, **kwargs)


@pytest.mark.slow
@pytest.mark.parametrize("task_id", IDS)
def test_alignment_many_seeds(task_id):
    for seed in (11, 12, 13):
        align(task_id, steps=2000, seed=seed, num_envs=3, episodes=3)


@pytest.mark.parametrize("task_id", ["Hopper-v5", "InvertedPendulum-v4", "Reacher-v5", "Ant-v5"])
def test_alignment_across_autoreset(task_id):
    """Episodes after the engine's autoreset align too (Reset clears all state)."""
    done = align(task_id, steps=400, seed=5, num_envs=2, episodes=3)
    assert (done >= 2).all(), done


# ---------------------------------------------------------------------------
# Reset noise: our initial states vs gymnasium's, over many resets.

# (qpos noise, qvel noise) distributions in gymnasium's reset_model.
NOISE = {
    "Ant": ("uniform", "normal"),
    "HalfCheetah": ("uniform", "normal"),
    "InvertedDoublePendulum": ("uniform", "normal"),
}


def gym_initial_states(task_id, n, **kwargs):
    g = make_gym(task_id, **kwargs)
    g.reset(seed=1234)
    qpos, qvel = [], []
    for _ in range(n):
        g.reset()
        qpos.append(g.data.qpos.copy())
        qvel.append(g.data.qvel.copy())
    return np.array(qpos), np.array(qvel), g.init_qpos.copy()


def our_initial_states(task_id, n, **kwargs):
    num_envs = 64
    env = envpool.make(task_id, env_type="gymnasium", num_envs=num_envs, seed=99, expose_state=True, **kwargs)
    qpos, qvel = [], []
    for _ in range(n // num_envs):
        _, info = env.reset()
        qpos.append(info["qpos0"])
        qvel.append(info["qvel0"])
    env.close()
    return np.concatenate(qpos), np.concatenate(qvel)


def ks_pvalue(a, b):
    from scipy import stats

    return stats.ks_2samp(a, b).pvalue


@pytest.mark.parametrize("task_id", IDS)
def test_reset_noise_distribution(task_id):
    n = 1024
    task = task_id.split("-")[0]
    ours_q, ours_v = our_initial_states(task_id, n)
    gym_q, gym_v, init_qpos = gym_initial_states(task_id, n)
    assert ours_q.shape == gym_q.shape and ours_v.shape == gym_v.shape
    for name, a, b, base in (("qpos", ours_q, gym_q, init_qpos), ("qvel", ours_v, gym_v, 0.0)):
        da, db = a - base, b - base
        # Coordinates that gymnasium sets deterministically are equal.
        fixed = np.all(db == db[0], axis=0)
        np.testing.assert_array_equal(da[:, fixed], db[:, fixed], err_msg=f"{task_id} fixed {name}")
        if not (~fixed).any():
            continue
        # Noise range: within gymnasium's observed range (uniform) and the
        # first two moments close (standard errors ~ scale / sqrt(n)).
        scale = np.abs(db[:, ~fixed]).max()
        np.testing.assert_allclose(da[:, ~fixed].mean(0), db[:, ~fixed].mean(0), atol=0.25 * scale)
        np.testing.assert_allclose(da[:, ~fixed].std(0), db[:, ~fixed].std(0), rtol=0.2)
        kind = NOISE.get(task, ("uniform", "uniform"))[0 if name == "qpos" else 1]
        if kind == "uniform" and task not in ("Reacher", "Pusher"):
            lo, hi = db[:, ~fixed].min(0), db[:, ~fixed].max(0)
            margin = 0.01 * (hi - lo)
            assert np.all(da[:, ~fixed] >= lo - margin) and np.all(da[:, ~fixed] <= hi + margin), (task_id, name)
        # Pooled two-sample KS test over the iid coordinates (deterministic
        # seeds: this is not flaky). Reacher's goal / Pusher's cylinder are
        # tested per coordinate.
        if task in ("Reacher", "Pusher") and name == "qpos":
            for j in np.flatnonzero(~fixed):
                assert ks_pvalue(da[:, j], db[:, j]) > 1e-4, (task_id, name, j)
        else:
            assert ks_pvalue(da[:, ~fixed].ravel(), db[:, ~fixed].ravel()) > 1e-4, (task_id, name)


def test_reset_noise_kind():
    """Normal vs uniform qvel noise: kurtosis separates them (3 vs 1.8)."""
    from scipy import stats

    for task_id, kind in (("HalfCheetah-v5", "normal"), ("Hopper-v5", "uniform"), ("Ant-v4", "normal")):
        _, qvel = our_initial_states(task_id, 2048)
        k = stats.kurtosis(qvel.ravel(), fisher=False)
        if kind == "normal":
            assert 2.7 < k < 3.3, (task_id, k)
        else:
            assert 1.7 < k < 1.9, (task_id, k)


# ---------------------------------------------------------------------------
# Determinism across threads and modes.


def rollout(task_id, num_threads, batch_size, steps=60, num_envs=8):
    """Per-env trajectories; env i's action at its t-th step depends on (i, t) only."""
    env = envpool.make(
        task_id, env_type="gym", num_envs=num_envs, batch_size=batch_size, num_threads=num_threads, seed=7
    )
    nu = env.action_space.shape[0]

    def action(i, t):
        return np.random.default_rng([i, t]).uniform(-0.4, 0.4, nu).astype(np.float32)

    traj = {i: [] for i in range(num_envs)}
    counts = np.zeros(num_envs, dtype=int)
    env.async_reset()
    while counts.min() < steps:
        obs, rew, term, trunc, info = env.recv()
        ids = np.asarray(info["env_id"])
        for j, i in enumerate(ids):
            traj[int(i)].append((obs[j].copy(), float(rew[j]), bool(term[j])))
        acts = np.stack([action(int(i), counts[int(i)]) for i in ids])
        counts[ids] += 1
        env.send(acts, ids)
    env.close()
    return {i: v[:steps] for i, v in traj.items()}


@pytest.mark.parametrize("task_id", ["Ant-v5", "HalfCheetah-v4", "Hopper-v5"])
def test_determinism_threads_and_modes(task_id):
    ref = rollout(task_id, num_threads=1, batch_size=8)
    for threads, batch in ((2, 8), (2, 4), (1, 3)):
        got = rollout(task_id, num_threads=threads, batch_size=batch)
        for i in ref:
            for t, ((o1, r1, d1), (o2, r2, d2)) in enumerate(zip(ref[i], got[i])):
                np.testing.assert_array_equal(o1, o2, err_msg=f"{task_id} env {i} step {t} threads={threads}")
                assert r1 == r2 and d1 == d2


def test_seed_reproducible():
    a = envpool.make("Hopper-v4", env_type="gymnasium", num_envs=4, seed=5)
    b = envpool.make("Hopper-v4", env_type="gymnasium", num_envs=4, seed=5)
    c = envpool.make("Hopper-v4", env_type="gymnasium", num_envs=4, seed=6)
    oa, ob, oc = a.reset()[0], b.reset()[0], c.reset()[0]
    np.testing.assert_array_equal(oa, ob)
    assert not np.array_equal(oa, oc)
    # seed + env_id: env 1 of seed 5 is env 0 of seed 6
    np.testing.assert_array_equal(oa[1], oc[0])


# ---------------------------------------------------------------------------
# Episodes: max_episode_steps and autoreset.


def test_episode_limits_and_autoreset():
    env = envpool.make("Reacher-v5", env_type="gymnasium", num_envs=2, expose_state=True)
    assert env.spec.max_episode_steps == 50
    _, info = env.reset()
    q0 = info["qpos0"].copy()
    act = np.zeros((2, 2), np.float32)
    for t in range(50):
        _, _, term, trunc, info = env.step(act)
        assert not term.any()
        assert trunc.all() == (t == 49)
    # next_step autoreset: the following step is the new episode's reset
    obs, rew, term, trunc, info = env.step(act)
    assert not np.array_equal(info["qpos0"], q0)
    assert (info["elapsed_step"] == 0).all()
    assert envpool.make_spec("Pusher-v4").max_episode_steps == 100
    assert envpool.make_spec("Ant-v5").max_episode_steps == 1000


def test_info_keys_and_shapes():
    env = envpool.make("Humanoid-v5", env_type="gymnasium", num_envs=2)
    obs, info = env.reset()
    assert obs.shape == (2, 348) and obs.dtype == np.float64
    assert info["tendon_length"].shape == (2, 2)
    assert info["x_position"].dtype == np.float64
    assert "qpos0" not in info
    obs, *_, info = env.step(np.zeros((2, 17), np.float32))
    for k in ("reward_survive", "reward_forward", "reward_ctrl", "reward_contact", "tendon_velocity"):
        assert k in info


# ---------------------------------------------------------------------------
# Config errors are ValueErrors with a clear message.


@pytest.mark.parametrize(
    "task_id,kwargs,match",
    [
        ("Ant-v5", {"xml_file": "no_such_model.xml"}, "does not exist"),
        ("Ant-v5", {"xml_file": "/nonexistent/ant.xml"}, "does not exist"),
        ("Ant-v5", {"frame_skip": 0}, "frame_skip"),
        ("Hopper-v5", {"healthy_z_range": (0.7,)}, "healthy_z_range"),
        ("Ant-v5", {"main_body": 99}, "main_body"),
        ("Reacher-v5", {"xml_file": "ant.xml"}, "fingertip"),
    ],
)
def test_bad_config(task_id, kwargs, match):
    with pytest.raises(ValueError, match=match):
        envpool.make(task_id, env_type="gymnasium", num_envs=1, **kwargs)


def test_unknown_key_rejected():
    with pytest.raises((TypeError, ValueError)):
        envpool.make("Ant-v4", env_type="gymnasium", num_envs=1, include_cfrc_ext_in_observation=True)


def test_registration_matches_gymnasiums() -> None:
    """reward_threshold and max_episode_steps of every v4/v5 id are gymnasium's registration's
    (EnvPool 1.2.5 gives Hopper 6000, Ant's; gymnasium 3800). The older ids, which gymnasium 1.4
    registers without either, take their v4's."""
    import gymnasium

    for task in IDS:
        ref = gymnasium.spec(task)
        config = envpool.make_spec(task).config
        assert config.get("reward_threshold") == ref.reward_threshold, task
        assert config["max_episode_steps"] == ref.max_episode_steps, task
    assert envpool.make_spec("Hopper-v3").config["reward_threshold"] == 3800.0
    for task in tasks("mujoco"):
        if family(task) != task:  # an older id, on its v4's family
            ours, v4 = envpool.make_spec(task).config, envpool.make_spec(family(task)).config
            assert ours.get("reward_threshold") == v4.get("reward_threshold"), task
            assert ours["max_episode_steps"] == v4["max_episode_steps"], task


def test_raw_ceiling_runs():
    # raw_ceiling takes the family config directly: pass the task's registered
    # config (it carries assets_dir) without the registry metadata.
    from envpool.registration import lookup

    config = {k: v for k, v in lookup("HalfCheetah-v4").config.items() if k not in ("reward_threshold", "render_fps")}
    assert _envpool.raw_ceiling("HalfCheetah-v4", config, 1, 0.2) > 0


def test_same_step_autoreset_alignment():
    """same_step mode: final_obs is gymnasium's terminal obs, obs the new episode's."""
    task_id = "Hopper-v5"
    env = envpool.make(task_id, env_type="gymnasium", num_envs=2, seed=1, expose_state=True, autoreset_mode="same_step")
    obs, info = env.reset()
    gyms = []
    for i in range(2):
        g = make_gym(task_id)
        g.reset(seed=i)
        sync_gym(g, task_id, obs[i], info, i)
        gyms.append(g)
    rng = np.random.default_rng(0)
    resets = 0
    for t in range(300):
        act = rng.uniform(-1, 1, (2, 3)).astype(np.float32)
        obs, rew, term, trunc, info = env.step(act)
        for i in range(2):
            og, rg, tg, _, _ = gyms[i].step(act[i])
            assert abs(float(rew[i]) - float(np.float32(rg))) <= ATOL and bool(term[i]) == tg
            if term[i] or trunc[i]:
                assert_close(info["final_obs"][i], og, f"final obs env {i} step {t}")
                gyms[i].reset()
                sync_gym(gyms[i], task_id, obs[i], info, i)
                resets += 1
            else:
                assert_close(obs[i], og, f"obs env {i} step {t}")
    assert resets >= 2
    env.close()


def test_mujoco_frame_skip_bound() -> None:
    with pytest.raises(ValueError, match="frame_skip"):
        envpool.make("HalfCheetah-v5", env_type="gym", num_envs=1, frame_skip=10**6 + 1)


def test_mujoco_fatal_error_is_an_exception(tmp_path) -> None:
    """MuJoCo's mju_error (here: its stack out of memory) ends the process by
    default; here it is a RuntimeError naming the env, and the pool lives on."""
    import os

    import gymnasium

    xml = open(os.path.join(os.path.dirname(gymnasium.__file__), "envs/mujoco/assets/half_cheetah.xml")).read()
    small = tmp_path / "half_cheetah_small.xml"
    small.write_text(xml.replace('<mujoco model="cheetah">', '<mujoco model="cheetah">\n  <size memory="2K"/>'))
    p = run_python(
        f"""
        import numpy as np, envpool
        e = envpool.make("HalfCheetah-v4", env_type="gymnasium", num_envs=2, xml_file={str(small)!r})
        errors = 0
        for call in (e.reset, lambda: e.step(np.zeros((2, 6))), lambda: e.step(np.zeros((2, 6)))):
            try:
                call()
            except RuntimeError as err:
                assert "MuJoCo error" in str(err) and "out of memory" in str(err), err
                assert len(err.failed_env_ids) > 0
                errors += 1
        assert errors >= 2, errors
        print("survived")
        """
    )
    assert "survived" in p.stdout


def test_mujoco_warning_is_a_python_warning(tmp_path) -> None:
    """MuJoCo's mju_warning (here: an unstable simulation, whose step MuJoCo
    resets) prints and appends to MUJOCO_LOG.TXT in the working directory by
    default; here it is a RuntimeWarning from the pool call, and no file."""
    import os

    import gymnasium

    xml = open(os.path.join(os.path.dirname(gymnasium.__file__), "envs/mujoco/assets/hopper.xml")).read()
    unstable = tmp_path / "hopper_unstable.xml"
    unstable.write_text(xml.replace("<option ", '<option gravity="0 0 -1e12" ', 1))
    p = run_python(
        f"""
        import os, warnings
        import numpy as np, envpool
        os.chdir({str(tmp_path)!r})
        e = envpool.make("Hopper-v4", env_type="gymnasium", num_envs=2, xml_file={str(unstable)!r})
        e.reset()
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            e.step(np.zeros((2, 3), np.float32))
        messages = [str(x.message) for x in w if x.category is RuntimeWarning]
        assert any(m.startswith("MuJoCo warning: ") and "unstable" in m for m in messages), messages
        e.step(np.zeros((2, 3), np.float32))  # the pool lives on
        print("warned")
        """
    )
    assert "warned" in p.stdout
    assert "MuJoCo" not in p.stdout
    assert not (tmp_path / "MUJOCO_LOG.TXT").exists()


N = 4


def _make(env_type: str, task: str = "CartPole-v1", **config):
    return envpool.make(task, env_type=env_type, num_envs=config.pop("num_envs", N), **config)


def test_legacy_mujoco_ids_run_the_v4_dynamics() -> None:
    ids = envpool.list_all_envs()
    for task in (
        "Ant-v3",
        "HalfCheetah-v3",
        "Hopper-v3",
        "Humanoid-v3",
        "HumanoidStandup-v2",
        "InvertedDoublePendulum-v2",
        "InvertedPendulum-v2",
        "Pusher-v2",
        "Reacher-v2",
        "Swimmer-v3",
        "Walker2d-v3",
    ):
        assert task in ids
    # Ant-v3 observes the contact forces (gym's v3): 27 + 84
    assert envpool.make_spec("Ant-v3").observation_space.shape == (111,)
    a = _make("gymnasium", "Ant-v3", num_envs=2, seed=1)
    b = _make("gymnasium", "Ant-v4", num_envs=2, seed=1, use_contact_forces=True)
    np.testing.assert_array_equal(a.reset()[0], b.reset()[0])
    act = np.full((2, 8), 0.3, np.float32)
    ra, rb = a.step(act), b.step(act)
    np.testing.assert_array_equal(ra[0], rb[0])
    np.testing.assert_array_equal(ra[1], rb[1])
    c = _make("gymnasium", "HalfCheetah-v3", num_envs=2, seed=1)
    d = _make("gymnasium", "HalfCheetah-v4", num_envs=2, seed=1)
    np.testing.assert_array_equal(c.reset()[0], d.reset()[0])


@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_mujoco_frame_stack(mode: str) -> None:
    k = 3
    env = _make("gymnasium", "InvertedPendulum-v4", num_envs=2, frame_stack=k, seed=2, autoreset_mode=mode)
    ref = _make("gymnasium", "InvertedPendulum-v4", num_envs=2, seed=2, autoreset_mode=mode)
    assert env.observation_space.shape == (k, 4)
    assert envpool.make_spec("InvertedPendulum-v4", frame_stack=k).observation_space.shape == (k, 4)
    obs, _ = env.reset()
    r, _ = ref.reset()
    history = collections.deque([r] * k, maxlen=k)
    np.testing.assert_array_equal(obs, np.stack(history, 1))
    rng = np.random.default_rng(0)
    resets = 0
    for _ in range(60):
        a = rng.uniform(-3, 3, (2, 1)).astype(np.float32)
        obs, _, term, trunc, info = env.step(a)
        r, _, rterm, rtrunc, rinfo = ref.step(a)
        if mode == "same_step" and (rterm | rtrunc).any():
            i = int(np.flatnonzero(rterm | rtrunc)[0])
            expect_final = np.stack([*list(np.stack(history, 1)[i][1:]), rinfo["final_obs"][i]])
            np.testing.assert_array_equal(info["final_obs"][i], expect_final)
        fresh = rinfo["elapsed_step"] == 0
        resets += int(fresh.sum())
        history.append(r)
        stacked = np.stack(history, 1)
        stacked[fresh] = r[fresh][:, None]
        history = collections.deque(list(np.moveaxis(stacked, 1, 0)), maxlen=k)
        np.testing.assert_array_equal(obs, stacked)
    assert resets > 0
    with pytest.raises(TypeError):
        envpool.make_spec("CartPole-v1", frame_stack=2)  # MuJoCo tasks only, as EnvPool
