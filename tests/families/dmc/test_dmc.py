"""dm_control suite tasks (``<Domain><Task>-v1``): models, specs and step-for-step
equality with ``dm_control.suite``.

Our envs draw their initial states from a C++ port of numpy's legacy RandomState
seeded with the env's seed, and run dm_control's reset and step sequence on the same
libmujoco, so ``envpool.make(id, seed=s)`` env ``i`` and ``suite.load(domain, task,
task_kwargs={"random": s + i})`` produce the same episodes. Observations and
discounts are compared bit for bit (``ATOL = 0``: the arithmetic is the same;
tolerance() runs the same libm functions numpy runs for a scalar). Rewards are the
engine's float32 (as every family's): they are compared with dm_control's float64
reward rounded to float32, exactly.
"""

from __future__ import annotations

import math
import os

import numpy as np
import pytest

pytest.importorskip("mujoco")
# dm_control's quadruped escape uploads its terrain to a GL context when one can
# be made: EGL works headless (Mesa's surfaceless platform). dm_control picks its
# backend when imported; the variable is restored after, for the other tests.
# (dm_control also sets PYOPENGL_PLATFORM to match: restored too.)
_SAVED = {k: os.environ.get(k) for k in ("MUJOCO_GL", "PYOPENGL_PLATFORM")}
os.environ.setdefault("MUJOCO_GL", "egl")
try:
    suite = pytest.importorskip("dm_control.suite")
finally:
    for _k, _v in _SAVED.items():
        if _v is None:
            os.environ.pop(_k, None)
        else:
            os.environ[_k] = _v

import mujoco  # noqa: E402
from _registry import family, tasks  # noqa: E402

import envpool  # noqa: E402
from envpool import _envpool  # noqa: E402
from envpool.registration import lookup  # noqa: E402
from envpool.tasks import dmc  # noqa: E402

if "DmcCartpole" not in _envpool.families():
    pytest.skip("envpool was built without MuJoCo", allow_module_level=True)

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

# The registered tasks as dm_control's (domain, task) pairs (a new domain's tasks are
# checked against dm_control.suite at once).
TASKS = [dmc.suite_task(family(t), lookup(t).config["task_name"]) for t in tasks("dmc")]
ATOL = 0.0
# Where numpy's arithmetic differs from libm's: numpy's log1p (the touch sensors
# of hopper, finger, manipulator and stacker) runs its own AVX-512 code on CPUs
# that have it, one ulp off glibc's log1p for about 5% of inputs; the same for
# arcsinh (quadruped's force_torque). (np.linalg.norm
# and dot go to OpenBLAS, whose kernel depends on the CPU: the C++ side sums as the
# AVX-512 kernel does on the AMD EPYC it was ported on; on other CPUs (an Intel Xeon's
# OpenBLAS kernel, seen in CI) they differ by an ulp, so the domains whose observations
# or resets go through them are compared at 1e-9 too.)
_BLAS = ("dog", "fish", "humanoid", "humanoid_CMU", "lqr", "swimmer")
ATOL_BY_DOMAIN = {
    "hopper": 1e-9,
    "finger": 1e-9,
    "manipulator": 1e-9,
    "stacker": 1e-9,
    "quadruped": 1e-9,
    **dict.fromkeys(_BLAS, 1e-9),
}
# Steps per fidelity run: past the first episode's end (1000 steps for most tasks).
STEPS = {}
DEFAULT_STEPS = 1100


def _ids(pairs):
    return [f"{d}-{t}" for d, t in pairs]


def test_ids_are_dm_control_tasks():
    ours = [t for t in envpool.list_all_envs() if family(t).startswith("Dmc")]
    assert ours == tasks("dmc")  # every Dmc family is of the dmc kind
    assert sorted(ours) == sorted(dmc.task_id(d, t) for d, t in TASKS)  # the ids name their suite task
    assert set(TASKS) <= set(suite.ALL_TASKS)
    assert dmc.task_id("ball_in_cup", "catch") == "BallInCupCatch-v1"
    assert dmc.task_id("humanoid_CMU", "run") == "HumanoidCMURun-v1"
    assert dmc.task_id("lqr", "lqr_2_1") == "LqrLqr21-v1"


def _our_xml(domain: str, task: str) -> bytes:
    if domain == "lqr":  # the stiffness is drawn per env: here from RandomState(0), as suite.load's
        return dmc._lqr_xml({"lqr_2_1": (2, 1), "lqr_6_2": (6, 2)}[task], np.random.RandomState(0))
    xml = envpool.make_spec(dmc.task_id(domain, task)).config["model_xml"]
    return xml.encode() if xml else dmc._read(f"{domain}.xml")


# The largest models (dog: ~2.5 CPU-s to load twice and compare, humanoid_CMU ~1): the model and
# the specs of one task of each in the fast suite, the others' (the same model) in the slow one.
HEAVY = {"dog", "humanoid_CMU"}
FIRST_OF_HEAVY = [
    pytest.param(d, t, marks=pytest.mark.slow) if d in HEAVY and any(d == d0 for d0, _ in TASKS[:i]) else (d, t)
    for i, (d, t) in enumerate(TASKS)
]


@pytest.mark.parametrize(("domain", "task"), FIRST_OF_HEAVY, ids=_ids(TASKS))
def test_model_equals_suite_load(domain, task):
    """The XML we hand the engine compiles to dm_control's model, byte for byte."""
    from dm_control.suite import common

    env = suite.load(domain, task, task_kwargs={"random": 0})
    assets = common.ASSETS
    if domain == "dog":  # its meshes and textures too
        from dm_control.suite import dog

        assets = dog.get_model_and_assets()[1]
    ours = mujoco.MjModel.from_xml_string(_our_xml(domain, task), assets)
    theirs = env.physics.model._model
    size = mujoco.mj_sizeModel(ours)
    assert size == mujoco.mj_sizeModel(theirs)
    a, b = np.zeros(size, np.uint8), np.zeros(size, np.uint8)
    mujoco.mj_saveModel(ours, None, a)
    mujoco.mj_saveModel(theirs, None, b)
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(("domain", "task"), FIRST_OF_HEAVY, ids=_ids(TASKS))
def test_specs(domain, task):
    env = suite.load(domain, task, task_kwargs={"random": 0})
    spec = envpool.make_spec(dmc.task_id(domain, task))
    obs = spec.observation_spec()
    ref = env.observation_spec()
    names = [s[0][4:] for s in spec.state_spec if s[0].startswith("obs:")]
    assert names == list(ref)  # dm_control's order
    assert list(spec.observation_space.keys()) == list(ref)  # the gymnasium Dict's too (not sorted)
    for k, r in ref.items():
        assert getattr(obs, k).shape == r.shape, k
        assert getattr(obs, k).dtype == r.dtype, k
    act, ref_act = spec.action_spec(), env.action_spec()
    assert act.shape == ref_act.shape and act.dtype == ref_act.dtype
    np.testing.assert_array_equal(act.minimum, ref_act.minimum)
    np.testing.assert_array_equal(act.maximum, ref_act.maximum)
    ref_steps = env._step_limit
    assert spec.config["max_episode_steps"] == (0 if math.isinf(ref_steps) else math.ceil(ref_steps))
    assert spec.config["n_sub_steps"] == env._n_sub_steps


def _load(domain, task, **kwargs):
    """suite.load; quadruped escape needs a GL context in dm_control (skipped without)."""
    env = suite.load(domain, task, **kwargs)
    if (domain, task) == ("quadruped", "escape"):
        try:
            _ = env.physics.contexts
        except RuntimeError as e:
            pytest.skip(f"dm_control's escape needs an OpenGL backend: {e}")
    return env


def _rollout_equal(domain, task, steps, seed=3, num_envs=2, task_kwargs=None, env_kwargs=None, **options):
    """Steps env 1 of a pool and dm_control's env seeded seed + 1 with the same random
    actions; returns how many episodes ended."""
    pool = envpool.make(dmc.task_id(domain, task), env_type="dm", num_envs=num_envs, seed=seed, **options)
    ref = _load(
        domain,
        task,
        task_kwargs={"random": seed + num_envs - 1, **(task_kwargs or {})},
        environment_kwargs=env_kwargs,
    )
    spec = ref.action_spec()
    lo, hi = np.maximum(spec.minimum, -1.0), np.minimum(spec.maximum, 1.0)
    rng = np.random.default_rng(0)
    ts, r = pool.reset(), ref.reset()
    ended = 0
    for t in range(steps):
        assert int(ts.step_type[-1]) == int(r.step_type), t
        for k, v in r.observation.items():
            atol = ATOL_BY_DOMAIN.get(domain, ATOL)
            np.testing.assert_allclose(getattr(ts.observation, k)[-1], v, rtol=0, atol=atol, err_msg=f"{k} @ {t}")
        if r.reward is not None:
            assert ts.reward[-1] == np.float32(r.reward), t
            assert ts.discount[-1] == r.discount, t
        ended += int(r.last())
        action = rng.uniform(lo, hi)
        ts, r = pool.step(np.stack([action] * num_envs)), ref.step(action)
    return ended


# The slowest models (dog, humanoid_CMU, quadruped's escape terrain: 4-15 s a test) run in the full suite only.
MARKED_TASKS = [
    pytest.param(d, t, marks=pytest.mark.slow) if d in HEAVY or (d, t) == ("quadruped", "escape") else (d, t)
    for d, t in TASKS
]


# The fast suite steps each task (heavy models aside) for FIRST_STEPS steps; the whole
# first episode and past its end (DEFAULT_STEPS) is the slow suite's, for every task.
FIRST_STEPS = 150


@pytest.mark.parametrize(("domain", "task"), MARKED_TASKS, ids=_ids(TASKS))
def test_first_steps(domain, task):
    _rollout_equal(domain, task, FIRST_STEPS)


@pytest.mark.slow  # ~1 CPU-s a task (1100 steps of dm_control's Python): 42 tasks
@pytest.mark.parametrize(("domain", "task"), TASKS, ids=_ids(TASKS))
def test_step_for_step(domain, task):
    ended = _rollout_equal(domain, task, STEPS.get((domain, task), DEFAULT_STEPS))
    assert ended >= (0 if domain == "lqr" else 1)  # lqr has no time limit


@pytest.mark.parametrize(("domain", "task"), MARKED_TASKS, ids=_ids(TASKS))
def test_resets_match(domain, task):
    """The first observation of 24 envs (seeds 100..123): every branch of the tasks'
    initialize_episode (manipulator's in-hand / in-target / free object, ...)."""
    n = 24
    pool = envpool.make(dmc.task_id(domain, task), env_type="dm", num_envs=n, seed=100)
    ts = pool.reset()
    ref = _load(domain, task, task_kwargs={"random": 0})
    atol = ATOL_BY_DOMAIN.get(domain, ATOL)
    for i in range(n):
        ref.task._random = np.random.RandomState(100 + i)
        if domain == "lqr":  # the model's stiffness and damping came first from this stream
            ref.task.random.uniform(size=2 * ref.physics.model.njnt)
        obs = ref.reset().observation
        for k, v in obs.items():
            np.testing.assert_allclose(getattr(ts.observation, k)[i], v, rtol=0, atol=atol, err_msg=f"{k} env {i}")


KS_TASKS = [("cartpole", "swingup"), ("walker", "stand"), ("fish", "upright"), ("humanoid", "stand")]
KS_ALL = [pytest.param(d, t, marks=pytest.mark.slow) if (d, t) not in KS_TASKS else (d, t) for d, t in TASKS]


@pytest.mark.parametrize(("domain", "task"), KS_ALL, ids=_ids(TASKS))
def test_initial_state_distribution(domain, task):
    """Seeds from 2**32 on take init_by_array's stream, which dm_control never draws
    (RandomState refuses such integers): each randomised coordinate of the initial
    state (qpos, qvel after initialize_episode) has dm_control's distribution
    (two-sample KS test against dm_control with seeds 0..n-1)."""
    from scipy import stats

    n = 300
    pool = envpool.make(dmc.task_id(domain, task), env_type="gymnasium", num_envs=n, seed=2**40, expose_state=True)
    _, info = pool.reset()
    ours = np.hstack([info["qpos0"], info["qvel0"]])
    ref = _load(domain, task, task_kwargs={"random": 0})
    theirs = []
    for i in range(n):
        ref.task._random = np.random.RandomState(i)
        ref.reset()
        theirs.append(np.hstack([ref.physics.data.qpos, ref.physics.data.qvel]))
    theirs = np.array(theirs)
    randomised = [k for k in range(ours.shape[1]) if np.ptp(theirs[:, k]) > 0]
    if domain == "lqr":  # the model's stiffness came first from dm_control's stream: skip those draws
        theirs = []
        for i in range(n):
            ref.task._random = np.random.RandomState(i)
            ref.task.random.uniform(size=2 * ref.physics.model.njnt)
            ref.reset()
            theirs.append(np.hstack([ref.physics.data.qpos, ref.physics.data.qvel]))
        theirs = np.array(theirs)
    if not randomised:  # e.g. a task whose randomness lives in the model (reacher's target)
        pytest.skip(f"{domain} {task} randomises no coordinate of qpos/qvel")
    for k in randomised:
        # Bonferroni over the coordinates: a false alarm in about 1 in 10**4 runs
        assert stats.ks_2samp(ours[:, k], theirs[:, k]).pvalue > 1e-4 / len(randomised), k


def test_lqr_terminates_under_the_optimal_controller():
    """The suite's one termination: LQR ends when the state norm falls below 1e-6, which
    dm_control's optimal controller (lqr_solver, from the same seed's stiffness)
    reaches after a few thousand steps: the same step, LAST with discount 0
    (terminated in gymnasium), and the next step starts a new episode."""
    from dm_control.suite import lqr_solver

    ref = suite.load("lqr", "lqr_2_1", task_kwargs={"random": 3})
    _, gain, _ = lqr_solver.solve(ref)
    env = envpool.make("LqrLqr21-v1", env_type="dm", num_envs=1, seed=3)
    ts, r = env.reset(), ref.reset()
    for t in range(20000):
        action = gain.dot(np.concatenate([r.observation["position"], r.observation["velocity"]]))
        ts, r = env.step(action[None]), ref.step(action)
        np.testing.assert_array_equal(ts.observation.position[0], r.observation["position"], err_msg=str(t))
        assert int(ts.step_type[0]) == int(r.step_type), t
        if r.last():
            break
    assert r.last() and r.discount == 0.0 and ts.discount[0] == 0.0 and t > 1000
    ts, r = env.step(np.zeros((1, 1))), ref.step(np.zeros(1))
    assert ts.first()[0] and r.first()
    np.testing.assert_array_equal(ts.observation.position[0], r.observation["position"])


def test_dict_observations_in_every_interface():
    """dm_control's named observations: a gymnasium Dict space, gym dicts, dm fields."""
    import gymnasium

    task = "CartpoleSwingup-v1"
    env = envpool.make(task, env_type="gymnasium", num_envs=3)
    assert isinstance(env.single_observation_space, gymnasium.spaces.Dict)
    assert set(env.single_observation_space) == {"position", "velocity"}
    obs, info = env.reset()
    assert set(obs) == {"position", "velocity"} and obs["position"].shape == (3, 3)
    assert obs["position"].dtype == np.float64
    obs, rew, term, trunc, info = env.step(np.zeros((3, 1)))
    assert obs["velocity"].shape == (3, 2) and env.single_observation_space.contains({k: v[0] for k, v in obs.items()})

    gym_env = envpool.make(task, env_type="gym", num_envs=2)
    obs, _ = gym_env.reset()
    assert isinstance(obs, dict) and obs["velocity"].shape == (2, 2)

    dm_env = envpool.make(task, env_type="dm", num_envs=2)
    ts = dm_env.reset()
    assert ts.observation.position.shape == (2, 3)
    assert dm_env.observation_spec().velocity.shape == (2,)


def test_time_limit_ends_with_last_and_discount_one():
    env = envpool.make("CartpoleBalance-v1", env_type="gymnasium", num_envs=1, time_limit=0.05)
    assert env.spec.config["max_episode_steps"] == 5
    env.reset()
    for _ in range(5):
        _, _, term, trunc, _ = env.step(np.zeros((1, 1)))
    assert trunc[0] and not term[0]
    dm = envpool.make("CartpoleBalance-v1", env_type="dm", num_envs=1, time_limit=0.05)
    dm.reset()
    for _ in range(5):
        ts = dm.step(np.zeros((1, 1)))
    assert ts.last()[0] and ts.discount[0] == 1.0


def test_max_episode_steps_alone_sets_the_episode_length():
    """EnvPool's way: max_episode_steps given without time_limit is the episode length
    (the time limit is lifted), still LAST with discount 1."""
    env = envpool.make("CartpoleBalance-v1", env_type="dm", num_envs=1, max_episode_steps=1200)
    assert math.isinf(env.spec.config["time_limit"])
    env.reset()
    for t in range(1200):
        ts = env.step(np.zeros((1, 1)))
        assert ts.last()[0] == (t == 1199), t
    assert ts.discount[0] == 1.0


def test_dict_spaces_keep_dm_controls_order() -> None:
    """The observation space's keys and each observation dict's come in dm_control's order, as in
    EnvPool 1.2.5 (a plain dict would have made gymnasium's Dict sort them: height first)."""
    order = ["orientations", "height", "velocity"]
    for env_type in ("gymnasium", "gym"):
        env = envpool.make("WalkerWalk-v1", env_type=env_type, num_envs=2)
        space = env.single_observation_space if env_type == "gymnasium" else env.observation_space
        obs = env.reset()[0]
        assert list(space.keys()) == order and list(obs.keys()) == order, env_type
        assert list(env.step(np.zeros((2, 6)))[0].keys()) == order
        env.close()


def test_options_match_dm_control():
    # time_limit, n_sub_steps (dm_control's environment_kwargs)
    _rollout_equal(
        "cartpole",
        "swingup",
        130,
        time_limit=0.6,
        n_sub_steps=2,
        task_kwargs={"time_limit": 0.6},
        env_kwargs={"n_sub_steps": 2},
    )
    # task_name: another cartpole task through the same id
    env = envpool.make("CartpoleBalance-v1", env_type="dm", num_envs=1, task_name="swingup", seed=7)
    ref = suite.load("cartpole", "swingup", task_kwargs={"random": 7})
    np.testing.assert_array_equal(env.reset().observation.position[0], ref.reset().observation["position"])


def test_expose_state():
    env = envpool.make("CartpoleSwingup-v1", env_type="gymnasium", num_envs=2, seed=5, expose_state=True)
    _, info = env.reset()
    ref = suite.load("cartpole", "swingup", task_kwargs={"random": 6})
    ref.reset()
    np.testing.assert_array_equal(info["qpos0"][1], ref.physics.data.qpos)
    np.testing.assert_array_equal(info["qvel0"][1], ref.physics.data.qvel)
    _, _, _, _, info2 = env.step(np.zeros((2, 1)))
    np.testing.assert_array_equal(info2["qpos0"], info["qpos0"])


def _set_state(env, domain, task, info, i):
    """Put dm_control's env in our env i's initial state from expose_state's info:
    the model edits from the task's random draws, then qpos, qvel (and act)."""
    physics = env.physics
    named = physics.named.model
    if domain == "reacher":
        named.geom_size["target", 0] = 0.05 if task == "easy" else 0.015
        named.geom_pos["target", ["x", "y"]] = info["target"][i]
    elif domain == "swimmer":
        named.geom_pos["target", ["x", "y"]] = info["target0"][i]
        named.light_pos["target_light", ["x", "y"]] = info["target0"][i]
    elif domain == "fish" and task == "swim":
        named.geom_pos["target"] = info["target0"][i]
    elif domain == "point_mass" and task == "hard":
        physics.model.wrap_prm[:] = info["wrap_prm"][i]
    elif domain == "finger":
        named.dof_damping["hinge"] = 0.03 if task == "spin" else named.dof_damping["hinge"]
        if task != "spin":
            with physics.reset_context():
                pass
            angle = info["target"][i][0]
            hinge_x, hinge_z = physics.named.data.xanchor["hinge", ["x", "z"]]
            radius = named.geom_size["cap1"].sum()
            named.site_pos["target", ["x", "z"]] = hinge_x + radius * np.sin(angle), hinge_z + radius * np.cos(angle)
            named.site_size["target", 0] = 0.07 if task == "turn_easy" else 0.03
    elif domain == "manipulator":
        tx, tz, angle = info["random_info"][i][:3]
        target, receptacle = ("target_peg", "slot") if "peg" in task else ("target_ball", "cup")
        quat = [np.cos(angle / 2), np.sin(angle / 2)]
        for body in [target] + ([receptacle] if "insert" in task else []):
            named.body_pos[body, ["x", "z"]] = tx, tz
            named.body_quat[body, ["qw", "qy"]] = quat
    elif domain == "stacker":
        named.body_pos["target", ["x", "z"]] = info["random_info"][i]
    elif domain == "lqr":
        physics.model.jnt_stiffness[:] = info["stiffness"][i]
    with physics.reset_context():
        physics.data.qpos[:] = info["qpos0"][i]
        physics.data.qvel[:] = info["qvel0"][i]
        if domain == "dog":
            physics.data.act[:] = info["act0"][i]
    if domain == "dog":  # the task's per-episode constants (its initialize_episode sets them)
        env.task._stand_height = physics.torso_pelvis_height() * 0.9
        env.task._body_weight = -physics.model.opt.gravity[2] * physics.named.model.body_subtreemass["torso"]
        with physics.reset_context():
            physics.data.qpos[:] = info["qpos0"][i]
            physics.data.qvel[:] = info["qvel0"][i]
            physics.data.act[:] = info["act0"][i]


STATE_TASKS = [
    ("cartpole", "swingup"),
    ("cheetah", "run"),
    ("reacher", "hard"),
    ("swimmer", "swimmer6"),
    ("fish", "swim"),
    ("point_mass", "hard"),
    ("finger", "turn_hard"),
    ("manipulator", "insert_peg"),
    ("stacker", "stack_2"),
    ("lqr", "lqr_6_2"),
    ("dog", "fetch"),
]


@pytest.mark.parametrize(("domain", "task"), STATE_TASKS, ids=_ids(STATE_TASKS))
def test_expose_state_puts_dm_control_in_our_state(domain, task):
    """The outside-test route: expose_state's info (qpos0, qvel0 and the task's
    random draws) set into a dm_control env of another seed gives our episode: the
    same observations and rewards for 50 steps. At 1e-9, not bit for bit: MuJoCo's
    solver warm start (qacc_warmstart, e.g. after cheetah's 200 settling steps) is no
    part of the exposed state."""
    pool = envpool.make(dmc.task_id(domain, task), env_type="gymnasium", num_envs=2, seed=11, expose_state=True)
    obs, info = pool.reset()
    ref = _load(domain, task, task_kwargs={"random": 999})
    ref.reset()
    _set_state(ref, domain, task, info, 1)
    atol = 1e-9
    spec = ref.action_spec()
    rng = np.random.default_rng(1)
    for t in range(50):
        ref_obs = ref.task.get_observation(ref.physics)
        for k, v in ref_obs.items():
            np.testing.assert_allclose(obs[k][1], v, rtol=0, atol=atol, err_msg=f"{k} @ {t}")
        action = rng.uniform(np.maximum(spec.minimum, -1), np.minimum(spec.maximum, 1))
        obs, reward, *_ = pool.step(np.stack([action] * 2))
        r = ref.step(action)
        np.testing.assert_allclose(reward[1], r.reward, rtol=1e-6, atol=1e-7, err_msg=f"reward @ {t}")


def test_frame_stack():
    """EnvPool's frame_stack on every named observation: (k, *shape), oldest first."""
    env = envpool.make("WalkerWalk-v1", env_type="gymnasium", num_envs=2, frame_stack=3, seed=2)
    assert env.single_observation_space["height"].shape == (3,)
    assert env.single_observation_space["orientations"].shape == (3, 14)
    obs, _ = env.reset()
    plain = envpool.make("WalkerWalk-v1", env_type="gymnasium", num_envs=2, seed=2)
    first, _ = plain.reset()
    np.testing.assert_array_equal(obs["velocity"], np.stack([first["velocity"]] * 3, axis=1))
    action = np.full((2, 6), 0.2)
    obs, *_ = env.step(action)
    nxt, *_ = plain.step(action)
    np.testing.assert_array_equal(obs["height"][:, -1], nxt["height"])
    np.testing.assert_array_equal(obs["height"][:, 0], first["height"])


def test_model_xml_option():
    """model_xml replaces the domain's model: swingup on the two-pole XML is dm_control's
    two_poles task (Balance(swing_up=True) on that model)."""
    xml = envpool.make_spec("CartpoleTwoPoles-v1").config["model_xml"]
    env = envpool.make("CartpoleSwingup-v1", env_type="dm", num_envs=1, seed=4, model_xml=xml)
    ref = suite.load("cartpole", "two_poles", task_kwargs={"random": 4})
    ts, r = env.reset(), ref.reset()
    for _ in range(20):
        np.testing.assert_array_equal(ts.observation.position[0], r.observation["position"])
        ts, r = env.step(np.full((1, 1), 0.3)), ref.step(np.array([0.3]))
    with pytest.raises(ValueError, match="cannot read dm_control model file"):
        envpool.make("CartpoleSwingup-v1", env_type="dm", num_envs=1, model_dir="/nonexistent")


def test_multi_task_pool():
    """Tasks of one domain with the same arrays share a pool; each env keeps its task."""
    env = envpool.make(["WalkerWalk-v1", "WalkerRun-v1"], env_type="dm", num_envs=4, seed=5)
    ts = env.reset()
    refs = [suite.load("walker", t, task_kwargs={"random": 5 + i}) for i, t in enumerate(["walk", "run"] * 2)]
    for r in refs:
        r.reset()
    action = np.full(6, 0.1)
    for _ in range(5):
        ts = env.step(np.stack([action] * 4))
        steps = [r.step(action) for r in refs]
    for i, r in enumerate(steps):
        np.testing.assert_array_equal(ts.observation.velocity[i], r.observation["velocity"])
        assert ts.reward[i] == np.float32(r.reward)


_RENDER_CODE = """
import json, numpy as np, envpool
from dm_control import suite
out = []
for domain, task, cam, h, w, limit in CASES:
    extra = {} if limit is None else {"time_limit": limit}
    env = envpool.make(envpool.tasks.dmc.task_id(domain, task), env_type="dm", num_envs=1, seed=5,
                       render_mode="rgb_array", camera_id=cam, height=h, width=w, **extra)
    ref = suite.load(domain, task, task_kwargs={"random": 5, **extra})
    env.reset()
    ref.reset()
    diffs = []
    for t in range(7):
        a, b = env.render()[0], ref.physics.render(height=h, width=w, camera_id=cam)
        diffs.append([list(a.shape), int((a != b).any(axis=-1).sum())])
        act = np.full(ref.action_spec().shape, 0.3)
        env.step(act[None])
        ref.step(act)
    out.append(diffs)
# from_pixels: the pixels wrapper's frame, channel first; the named observations in info
from dm_control.suite.wrappers import pixels
pix = []
for domain, task, cam in PIXEL_CASES:
    env = envpool.make(envpool.tasks.dmc.task_id(domain, task), env_type="gymnasium", num_envs=1, seed=5,
                       from_pixels=True, camera_id=cam, img_height=64, img_width=48)
    kwargs = {"height": 64, "width": 48, "camera_id": cam}
    ref = pixels.Wrapper(suite.load(domain, task, task_kwargs={"random": 5}), pixels_only=True, render_kwargs=kwargs)
    plain = suite.load(domain, task, task_kwargs={"random": 5})
    obs, info = env.reset()
    r, p = ref.reset(), plain.reset()
    diffs = []
    for t in range(4):
        same = all(np.array_equal(info[k][0], v) for k, v in p.observation.items())
        diffs.append([list(obs["pixels"].shape), int((obs["pixels"][0].transpose(1, 2, 0) != r.observation["pixels"]).sum()), same])
        act = np.full(plain.action_spec().shape, 0.3)
        obs, *_, info = env.step(act[None])
        r, p = ref.step(act), plain.step(act)
    pix.append(diffs)
print("RESULT" + json.dumps([out, pix]))
"""


@pytest.mark.slow  # ~11 s; test_render_processes_draw_the_same_frames stays fast
def test_render_matches_dm_control():
    """render_mode="rgb_array": pixel-equal to dm_control's physics.render(height, width,
    camera_id) from the same states, on EGL in a fresh process (libmujoco loads its GL
    entry points once per process); the free camera (-1) as mjv_defaultFreeCamera sets it.
    from_pixels: obs "pixels" is dm_control's pixels wrapper's frame, channel first, and
    the task's named observations are in info."""
    import ctypes.util
    import json
    import subprocess
    import sys

    if ctypes.util.find_library("EGL") is None:
        pytest.skip("no libEGL")
    # escape: its terrain changes per episode (a 3-step time limit: two episodes) and its
    # rangefinder rays are hidden, as dm_control's MjvOption hides them.
    cases = [
        ("cartpole", "swingup", -1, 240, 320, None),
        ("cartpole", "swingup", 0, 84, 84, None),
        ("walker", "walk", 0, 64, 96, None),
        ("quadruped", "escape", -1, 120, 160, 0.06),
    ]
    pixel_cases = [("cartpole", "balance", 0), ("walker", "walk", -1)]
    code = f"CASES = {cases!r}\nPIXEL_CASES = {pixel_cases!r}\n" + _RENDER_CODE
    env = {**os.environ, "MUJOCO_GL": "egl"}
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300, check=False)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT")]
    assert p.returncode == 0 and lines, p.stderr[-3000:]
    frames, pixel_obs = json.loads(lines[-1][6:])
    for (_, _, _, h, w, _), diffs in zip(cases, frames, strict=True):
        assert all(shape == [h, w, 3] and n == 0 for shape, n in diffs), diffs
    for diffs in pixel_obs:
        assert all(shape == [1, 3, 64, 48] and n == 0 and same for shape, n, same in diffs), diffs
    with pytest.raises(ValueError, match="camera"):
        envpool.make("CartpoleSwingup-v1", env_type="dm", num_envs=1, render_mode="rgb_array", camera_id=7)


def test_render_processes_draw_the_same_frames():
    """render_processes on and off: the same frames, for quadruped escape (its terrain,
    uploaded per episode, crosses an episode boundary: a 0.06 s time limit) and walker's
    pixel observations; OSMesa in a fresh process."""
    import ctypes.util
    import subprocess
    import sys

    if ctypes.util.find_library("OSMesa") is None:
        pytest.skip("no libOSMesa")
    code = """
import numpy as np, envpool
out = {}
for mode in ("on", "off"):
    e = envpool.make("QuadrupedEscape-v1", env_type="gymnasium", num_envs=2, num_threads=2, seed=1, time_limit=0.06,
                     render_mode="rgb_array", render_env_ids=[0, 1], height=96, width=128, render_processes=mode)
    e.reset()
    frames = [e.render()]
    for _ in range(5):
        e.step(np.full((2, 12), 0.2))
        frames.append(e.render())
    p = envpool.make("WalkerWalk-v1", env_type="gymnasium", num_envs=2, seed=1, from_pixels=True, render_processes=mode)
    obs = [p.reset()[0]["pixels"]] + [p.step(np.full((2, 6), 0.3))[0]["pixels"] for _ in range(3)]
    out[mode] = (np.stack(frames), np.stack(obs))
    e.close(); p.close()
a, b = out["on"], out["off"]
print("RESULT", np.array_equal(a[0], b[0]), np.array_equal(a[1], b[1]), a[0].std() > 1,
      bool((a[0][0] != a[0][-1]).any()))
"""
    env = {**os.environ, "MUJOCO_GL": "osmesa"}
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300, check=False)
    assert p.returncode == 0 and "RESULT True True True True" in p.stdout, (p.stdout, p.stderr[-3000:])


def test_from_pixels_spec_and_frame_stack():
    spec = envpool.make_spec("WalkerWalk-v1", from_pixels=True, img_height=32, img_width=40, frame_stack=2)
    assert spec.observation_space["pixels"].shape == (6, 32, 40)  # frames stacked on the channels
    assert set(spec.observation_space) == {"pixels"}
    assert {"orientations", "height", "velocity"} <= set(spec.info_keys)
    with pytest.raises(ValueError, match="img_width"):
        envpool.make_spec("WalkerWalk-v1", from_pixels=True, img_width=0)


def test_large_seeds_are_deterministic():
    """Seeds from 2**32 seed the MT19937 by init_by_array: still one stream per seed."""
    a = envpool.make("CartpoleSwingup-v1", env_type="dm", num_envs=2, seed=2**40)
    b = envpool.make("CartpoleSwingup-v1", env_type="dm", num_envs=2, seed=2**40)
    x, y = a.reset().observation.velocity, b.reset().observation.velocity
    np.testing.assert_array_equal(x, y)
    assert not np.array_equal(x[0], x[1])


def test_bad_options():
    with pytest.raises(ValueError, match="no task 'nope'"):
        envpool.make("CartpoleBalance-v1", env_type="dm", num_envs=1, task_name="nope")
    with pytest.raises(ValueError, match="n_sub_steps"):
        envpool.make("CartpoleBalance-v1", env_type="dm", num_envs=1, n_sub_steps=0)
    with pytest.raises(ValueError, match="time_limit"):
        envpool.make("CartpoleBalance-v1", env_type="dm", num_envs=1, time_limit=-1.0)
    with pytest.raises(ValueError, match="could not load"):
        envpool.make("CartpoleBalance-v1", env_type="dm", num_envs=1, model_xml="<mujoco><bad/></mujoco>")
    with pytest.raises(TypeError):
        envpool.make("CartpoleBalance-v1", env_type="dm", num_envs=1, no_such_option=1)
    with pytest.raises(ValueError, match="unknown task id"):
        envpool.make("CartpoleNope-v1", env_type="dm", num_envs=1)


def test_mujoco_fatal_error_raises():
    """mju_error (here: a model whose arena is too small for humanoid's contacts)
    reaches Python as a RuntimeError naming the env; the process lives on."""
    xml = dmc._read("humanoid.xml").decode().replace("<option timestep", '<size memory="4K"/>\n  <option timestep')
    env = envpool.make("HumanoidStand-v1", env_type="dm", num_envs=1, model_xml=xml)
    with pytest.raises(RuntimeError, match="env 0 failed: MuJoCo error: mj_stackAlloc"):
        env.reset()
        env.step(np.zeros((1, 21)))
    env.close()


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_nan_action_does_not_crash():
    """MuJoCo's warning path: the bad control is reported (as a RuntimeWarning, or
    through the mujoco bindings' handler when they are loaded) and the state reset."""
    env = envpool.make("CartpoleBalance-v1", env_type="dm", num_envs=1)
    env.reset()
    for _ in range(3):
        ts = env.step(np.full((1, 1), np.nan))
    assert np.isfinite(ts.observation.position).all()
    ts = env.step(np.zeros((1, 1)))
    assert np.isfinite(ts.observation.velocity).all()


# -- dm_env conformance and an acme-style loop ---------------------------------
from absl.testing import absltest  # noqa: E402
from dm_env import test_utils  # noqa: E402

from envpool.integrations.dm_single import DmSingleEnv  # noqa: E402


class _DmcMixin(test_utils.EnvironmentTestMixin):
    TASK = ""
    OPTIONS: dict = {}

    def make_object_under_test(self):
        return DmSingleEnv(self.TASK, seed=1, **self.OPTIONS)

    def make_action_sequence(self):
        spec = self.environment.action_spec()
        rng = np.random.default_rng(0)
        for _ in range(60):
            yield rng.uniform(np.maximum(spec.minimum, -1), np.minimum(spec.maximum, 1)).astype(spec.dtype)


class WalkerWalkSingleEnvTest(_DmcMixin, absltest.TestCase):
    """A dict observation of several keys (orientations, a scalar height, velocity),
    with episodes cut by the time limit (LAST, discount 1)."""

    TASK = "WalkerWalk-v1"
    OPTIONS = {"time_limit": 0.5}  # 20 control steps


class BallInCupCatchSingleEnvTest(_DmcMixin, absltest.TestCase):
    """A sparse reward (0 or 1)."""

    TASK = "BallInCupCatch-v1"
    OPTIONS = {"time_limit": 0.4}


class LqrSingleEnvTest(_DmcMixin, absltest.TestCase):
    """The task with a termination (LQR ends with discount 0 when the state norm is
    below 1e-6; random play rarely gets there, so the time limit also cuts it) and
    no time limit of its own."""

    TASK = "LqrLqr21-v1"
    OPTIONS = {"time_limit": 0.3}


def _load_example(name: str):
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[3] / "examples" / name
    spec = importlib.util.spec_from_file_location(name.removesuffix(".py"), path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("batch_size", [0, 2])
def test_acme_style_loop_walker(batch_size):
    """examples/acme_style_loop.py on WalkerWalk-v1, sync and async: 1000-step episodes
    ended by the time limit with discount 1."""
    loop = _load_example("acme_style_loop.py")
    out = loop.main(["--task", "WalkerWalk-v1", "--num-envs", "4", "--batch-size", str(batch_size), "--steps", "4100"])
    episodes = out["episode_list"]
    assert len(episodes) >= 3
    assert all(ep["length"] == 1000 and ep["discount"] == 1.0 for ep in episodes)


def test_bench_engines_run(tmp_path):
    """envpool-bench on a dm_control task: our pool, the raw ceiling (bare mj_step x
    n_sub_steps) and dm_control's own envs in a Python loop (the model XML edits
    reach the bench through the task's prepare hook)."""
    import json
    import subprocess
    import sys

    out = tmp_path / "b.json"
    cmd = [sys.executable, "-m", "envpool.bench", "CartpoleTwoPoles-v1", "-n", "2", "-t", "1"]
    cmd += ["-e", "envpool", "raw", "dm-control", "-s", "0.1", "-w", "0.02", "-r", "1", "--json", str(out)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
    assert p.returncode == 0, p.stderr
    rows = {r["engine"]: r for r in json.loads(out.read_text())["results"]}
    for engine in ("envpool", "raw", "dm-control"):
        assert rows[engine]["status"] == "ok" and rows[engine]["steps_per_s"]["median"] > 0, rows[engine]
