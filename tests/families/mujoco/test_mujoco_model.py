"""Per-env model parameters of the MuJoCo and dm_control families: ``get_model`` /
``set_model`` and ``model_randomization``, against gymnasium and dm_control.

Fidelity: after an edit (set_model, or a randomization's draw read from
``info["model_<field>"]``), env i steps as the reference env whose ``mjModel`` got
the same edit, followed by ``mj_setConst`` (on a scratch ``MjData``, so the state is
kept), from the same state; <= 1e-9 (the same libmujoco on the same numbers: in
practice bit for bit; 1e-9 is the physics tolerance of the other family tests).
The reference calls ``mj_setConst`` after every edit, where the engine calls it only
for fields that ``mj_setConst`` reads: the two agree only if it leaves an unchanged
model as it is, which this checks too.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

mujoco = pytest.importorskip("mujoco")
gym = pytest.importorskip("gymnasium")
pytest.importorskip("imageio")  # gymnasium's MuJoCo envs import it

import envpool  # noqa: E402
from envpool import _envpool  # noqa: E402

if "Ant-v5" not in _envpool.families():
    pytest.skip("envpool was built without MuJoCo", allow_module_level=True)

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
ATOL = 1e-9
COPY = "envpool.model_copy_bytes"

# One edit of each kind the issue names, as a function of the field's values.
EDITS = {
    "body_mass": lambda v: v * 1.3,
    "body_inertia": lambda v: v * 0.8,
    "geom_friction": lambda v: v * np.array([0.5, 1.0, 1.0]),
    "dof_damping": lambda v: v + 0.05,
    "dof_armature": lambda v: v + 0.01,
    "actuator_gear": lambda v: v * 1.1,
    "actuator_gainprm": lambda v: v * 0.9,
    "jnt_stiffness": lambda v: v + 0.5,
    "opt.gravity": lambda v: np.array([0.5, 0.0, -8.0]),
    "opt.timestep": lambda v: v * 0.5,
    "opt.wind": lambda v: np.array([1.0, 0.5, 0.0]),
}


def edit(model, field: str, value) -> None:
    """``model.<field> = value`` on a mujoco MjModel (``opt.<name>`` on its options)."""
    if field.startswith("opt."):
        name = field[4:]
        if np.ndim(getattr(model.opt, name)) == 0:
            setattr(model.opt, name, float(np.asarray(value).reshape(())))
        else:
            getattr(model.opt, name)[:] = value
    else:
        getattr(model, field)[...] = value


def read(model, field: str) -> np.ndarray:
    obj = model.opt if field.startswith("opt.") else model
    return np.array(getattr(obj, field.removeprefix("opt.")), dtype=np.float64)


def set_const(model) -> None:
    mujoco.mj_setConst(model, mujoco.MjData(model))


def gym_env(task_id: str):
    return gym.make(task_id).unwrapped


def compare_steps(env, refs: dict, steps: int, seed: int, tag: str) -> int:
    """Steps the pool and gymnasium's envs refs[i] (pool env i's mirrors) with the same
    random actions, each to its termination; returns the steps compared."""
    space = next(iter(refs.values())).action_space
    rng = np.random.default_rng(seed)
    live = dict(refs)
    for t in range(steps):
        a = rng.uniform(space.low, space.high, size=(len(env), *space.shape)).astype(np.float32)
        obs, rew, term, _, info = env.step(a)
        for i, g in list(live.items()):
            og, rg, tg, _, ig = g.step(a[i])
            np.testing.assert_allclose(obs[i], og, rtol=0, atol=ATOL, err_msg=f"{tag} env {i} obs @ {t}")
            assert abs(float(rew[i]) - float(np.float32(rg))) <= ATOL, (tag, i, t)
            assert bool(term[i]) == bool(tg), (tag, i, t)
            for k, v in ig.items():
                np.testing.assert_allclose(info[k][i], v, rtol=0, atol=ATOL, err_msg=f"{tag} env {i} {k} @ {t}")
            if tg:
                del live[i]
        if not live:
            return t + 1
    return steps


GYM_TASKS = ["HalfCheetah-v5", "Ant-v5", "Hopper-v5"]


@pytest.mark.parametrize("task_id", GYM_TASKS)
def test_set_model_steps_as_gymnasium(task_id):
    """Env 1 gets every edit of EDITS from the middle of its episode; env 0 none."""
    env = envpool.make(task_id, env_type="gymnasium", num_envs=2, seed=3, expose_state=True)
    obs, info = env.reset()
    refs = [gym_env(task_id), gym_env(task_id)]
    for i, g in enumerate(refs):
        g.reset(seed=0)
        g.set_state(info["qpos0"][i].copy(), info["qvel0"][i].copy())
    compare_steps(env, {0: refs[0], 1: refs[1]}, 5, seed=1, tag="before")
    before = {f: env.get_model(f) for f in EDITS}
    g = refs[1]
    # g mirrors env 1: its state now is env 1's (5 steps in).
    for field, fn in EDITS.items():
        new = fn(before[field][1])
        env.set_model(field, new, env_ids=[1])
        edit(g.model, field, new)
        set_const(g.model)
        np.testing.assert_array_equal(env.get_model(field, [1])[0], np.asarray(new, dtype=before[field].dtype))
        np.testing.assert_array_equal(env.get_model(field, [0]), before[field][:1])  # env 0 untouched
        np.testing.assert_array_equal(read(g.model, field), np.asarray(new, dtype=np.float64))
    assert env.get_model(COPY).tolist()[0] == 0 and env.get_model(COPY)[1] > 0
    steps = compare_steps(env, {0: refs[0], 1: g}, 150, seed=2, tag=f"{task_id} edited")
    assert steps >= 5
    env.close()


def test_set_model_of_the_same_values_changes_nothing():
    """Two envs in one state; one gets its own copy holding the same values (mj_setConst
    rerun): they step bit for bit alike."""
    env = envpool.make("Ant-v5", env_type="gymnasium", num_envs=2, seed=0)
    env.reset(seed=[5, 5])
    for field in ("body_mass", "geom_friction"):
        env.set_model(field, env.get_model(field, [1])[0], env_ids=[1])
    assert env.get_model(COPY)[0] == 0 and env.get_model(COPY)[1] > 0
    rng = np.random.default_rng(0)
    for _ in range(50):
        a = rng.uniform(-1, 1, size=(1, 8)).astype(np.float32)
        obs, rew, *_ = env.step(np.repeat(a, 2, axis=0))
        np.testing.assert_array_equal(obs[0], obs[1])
        assert rew[0] == rew[1]


def test_pools_that_never_randomize_share_one_model():
    env = envpool.make("HalfCheetah-v5", env_type="gymnasium", num_envs=4, seed=0, max_episode_steps=5)
    env.reset()
    for _ in range(12):  # through autoresets
        env.step(np.zeros((4, 6), np.float32))
    np.testing.assert_array_equal(env.get_model(COPY), np.zeros(4, np.int64))
    env.set_model("opt.gravity", [0.0, 0.0, -5.0], env_ids=[2])
    copies = env.get_model(COPY)
    assert copies.tolist()[:2] == [0, 0] and copies[3] == 0
    # The one copy is one mjModel's size (MuJoCo's mj_sizeModel of the same model).
    model = mujoco.MjModel.from_xml_path(os.path.join(env.config["assets_dir"], "half_cheetah.xml"))
    assert copies[2] == mujoco.mj_sizeModel(model)
    np.testing.assert_array_equal(env.get_model("opt.gravity")[:, 2], [-9.81, -9.81, -5.0, -9.81])


RANDOMIZATION = {
    "body_mass": ("scale", 0.8, 1.2),
    "geom_friction": ("uniform", [0.5, 0.004, 0.00008], [1.5, 0.006, 0.00012]),
    "opt.gravity": ("add", [-0.5, -0.5, -1.0], [0.5, 0.5, 1.0]),
}


@pytest.mark.parametrize("task_id", GYM_TASKS)
def test_randomized_episodes_step_as_gymnasium(task_id):
    env = envpool.make(
        task_id,
        env_type="gymnasium",
        num_envs=2,
        seed=11,
        expose_state=True,
        model_randomization=RANDOMIZATION,
        model_info=True,
    )
    base = gym_env(task_id).model
    obs, info = env.reset()
    bm = info["model_body_mass"]
    assert bm.shape == (2, base.nbody) and bm.dtype == np.float64
    assert np.all(bm >= base.body_mass * 0.8) and np.all(bm <= base.body_mass * 1.2)
    assert not np.array_equal(bm[0], bm[1])  # each env its own draw
    for field in RANDOMIZATION:
        np.testing.assert_array_equal(env.get_model(field), info["model_" + field.replace(".", "_")])
    refs = {}
    for i in range(2):
        g = refs[i] = gym_env(task_id)
        g.reset(seed=0)
        for field in RANDOMIZATION:
            edit(g.model, field, info["model_" + field.replace(".", "_")][i])
        set_const(g.model)
        g.set_state(info["qpos0"][i].copy(), info["qvel0"][i].copy())
        np.testing.assert_allclose(obs[i], g._get_obs(), rtol=0, atol=ATOL)
    assert compare_steps(env, refs, 100, seed=0, tag=task_id) >= 5
    _, again = env.reset()  # the next episode draws anew
    assert not np.array_equal(again["model_body_mass"], info["model_body_mass"])
    _, again = env.reset(seed=[11, 12])  # the seeds of the first episode: its draws
    np.testing.assert_array_equal(again["model_body_mass"], info["model_body_mass"])
    env.close()


def test_each_episode_draws_anew_relative_to_set_model():
    env = envpool.make(
        "HalfCheetah-v5",
        env_type="gymnasium",
        num_envs=2,
        seed=0,
        max_episode_steps=2,
        model_randomization={"body_mass": ("scale", 0.9, 1.1)},
        model_info=True,
    )
    _, info = env.reset()
    first = info["model_body_mass"].copy()
    for _ in range(3):  # 2 steps, then the next-step autoreset
        _, _, _, _, info = env.step(np.zeros((2, 6), np.float32))
    assert (info["elapsed_step"] == 0).all()
    assert not np.array_equal(info["model_body_mass"], first)
    # set_model sets the base the next draws scale.
    base = env.get_model("body_mass")[0] * 0 + 100.0
    env.set_model("body_mass", base)
    np.testing.assert_array_equal(env.get_model("body_mass"), np.stack([base, base]))
    _, info = env.reset()
    assert np.all(info["model_body_mass"] >= 90.0) and np.all(info["model_body_mass"] <= 110.0)


def test_env_options_randomize_some_envs_only():
    """model_randomization is an ordinary option: env_options gives it to some envs (as a dict,
    converted by the family's prepare hook like the pool-wide one); the others keep the shared
    model, and a randomized env draws what a one-env pool with its seed and rule draws."""
    rule = {"body_mass": ("scale", 0.5, 2.0)}
    env = envpool.make(
        "HalfCheetah-v5",
        env_type="gymnasium",
        num_envs=3,
        seed=[5, 6, 7],
        env_options={1: {"model_randomization": rule}},
    )
    env.reset()
    masses = env.get_model("body_mass")
    assert list(env.get_model("envpool.model_copy_bytes") > 0) == [False, True, False]
    np.testing.assert_array_equal(masses[0], masses[2])
    assert not np.array_equal(masses[0], masses[1])
    one = envpool.make("HalfCheetah-v5", env_type="gymnasium", num_envs=1, seed=6, model_randomization=rule)
    one.reset()
    np.testing.assert_array_equal(one.get_model("body_mass")[0], masses[1])
    env.close()
    one.close()


def _draws(num_threads: int, batch_size: int, steps: int = 40) -> dict[int, list]:
    """Each env's drawn body masses, episode by episode (episodes of 3 steps)."""
    env = envpool.make(
        "Hopper-v5",
        env_type="gymnasium",
        num_envs=4,
        batch_size=batch_size,
        num_threads=num_threads,
        seed=7,
        max_episode_steps=3,
        model_randomization={"body_mass": ("scale", 0.5, 1.5), "dof_damping": ("add", 0.0, 0.1)},
        model_info=True,
    )
    draws: dict[int, list] = {i: [] for i in range(4)}
    _, info = env.reset()
    for _ in range(steps):
        for k, i in enumerate(info["env_id"]):
            if info["elapsed_step"][k] == 0:
                draws[int(i)].append(np.concatenate([info["model_body_mass"][k], info["model_dof_damping"][k]]))
        ids = info["env_id"]
        _, _, _, _, info = env.step(np.zeros((len(ids), 3), np.float32), ids)
    env.close()
    n = min(len(v) for v in draws.values())
    assert n >= 2
    return {i: np.stack(v[:n]).tolist()[:2] for i, v in draws.items()}


def test_randomization_is_reproducible_across_threads_and_batch_sizes():
    want = _draws(1, 4)
    assert _draws(2, 4) == want
    assert _draws(2, 2) == want  # async
    assert _draws(3, 1) == want


def test_errors():
    env = envpool.make("Ant-v5", env_type="gymnasium", num_envs=3, seed=0, batch_size=1, num_threads=1)
    with pytest.raises(KeyError, match="'body_mas'.*did you mean 'body_mass'"):
        env.get_model("body_mas")
    before = env.get_model("body_mass")
    nb = before.shape[1]
    with pytest.raises(ValueError, match=rf"values must have shape \(2, {nb}\) .* or \({nb},\)"):
        env.set_model("body_mass", np.ones((2, nb + 1)), env_ids=[0, 1])
    with pytest.raises(ValueError, match="finite"):
        env.set_model("body_mass", np.full(nb, np.nan))
    with pytest.raises(ValueError, match="numbers"):
        env.set_model("body_mass", ["a"] * nb)
    with pytest.raises(ValueError, match="'body_parentid' is an integer field"):
        env.set_model("body_parentid", env.get_model("body_parentid"))
    with pytest.raises(ValueError, match="read-only"):
        env.set_model(COPY, [1, 1, 1])
    with pytest.raises(ValueError, match="out of range"):
        env.set_model("body_mass", before[0], env_ids=[3])
    np.testing.assert_array_equal(env.get_model("body_mass"), before)  # nothing changed
    # An env in flight (async: sent, not received) is refused; the others are not.
    env.async_reset()
    for _ in range(3):
        env.recv()
    busy = 1
    env.send(np.zeros((1, 8), np.float32), [busy])
    with pytest.raises(ValueError, match=f"env {busy} is still in flight"):
        env.set_model("body_mass", before[0] * 2, env_ids=[busy])
    with pytest.raises(ValueError, match=f"env {busy} is still in flight"):
        env.get_model("body_mass")
    free = [i for i in range(3) if i != busy]
    env.set_model("body_mass", before[0] * 2, env_ids=free)
    env.recv()
    np.testing.assert_array_equal(env.get_model("body_mass", [busy])[0], before[busy])
    np.testing.assert_array_equal(env.get_model("body_mass", free), before[free] * 2)
    with pytest.raises(TypeError, match="no model"):
        envpool.make("CartPole-v1", env_type="gymnasium", num_envs=1).get_model("body_mass")


def test_multi_task_pools():
    """Envs of several tasks: each reads and writes its own model."""
    env = envpool.make(["WalkerWalk-v1", "WalkerRun-v1"], env_type="dm", num_envs=4, seed=0)
    env.reset()
    mass = env.get_model("body_mass")
    env.set_model("body_mass", mass[1] * 2, env_ids=[1])
    env.set_model("opt.timestep", [0.005, 0.004], env_ids=[2, 3])
    np.testing.assert_array_equal(env.get_model("body_mass"), np.stack([mass[0], mass[1] * 2, mass[2], mass[3]]))
    np.testing.assert_array_equal(env.get_model("opt.timestep"), [0.0025, 0.0025, 0.005, 0.004])
    assert env.get_model(COPY).tolist()[0] == 0 and all(env.get_model(COPY)[1:] > 0)


@pytest.mark.parametrize(
    ("rule", "error", "match"),
    [
        ({"body_mas": ("scale", 0.8, 1.2)}, ValueError, "no field 'body_mas'"),
        ({"body_mass": ("times", 0.8, 1.2)}, ValueError, "operation 'times'"),
        ({"body_mass": ("scale", [0.8, 0.9], 1.2)}, ValueError, "has 2 values"),
        ({"body_mass": ("scale", 1.2, 0.8)}, ValueError, "low > high"),
        ({"body_parentid": ("add", 0, 1)}, ValueError, "integer field"),
        ({"body_mass": (0.8, 1.2)}, TypeError, "must be \\(operation, low, high\\)"),
        ([("body_mass", "scale", 0.8, 1.2)], TypeError, "must be a dict"),
    ],
)
def test_bad_model_randomization(rule, error, match):
    with pytest.raises(error, match=match):
        envpool.make("Hopper-v5", env_type="gymnasium", num_envs=1, model_randomization=rule)


# dm_control: env 1 of a pool seeded s is suite.load(..., random=s + 1) (test_dmc.py).
dmc_suite = None


def _suite():
    global dmc_suite
    if dmc_suite is None:
        saved = {k: os.environ.get(k) for k in ("MUJOCO_GL", "PYOPENGL_PLATFORM")}
        os.environ.setdefault("MUJOCO_GL", "egl")
        try:
            dmc_suite = pytest.importorskip("dm_control.suite")
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
    return dmc_suite


DMC_TASKS = [("cartpole", "swingup", "CartpoleSwingup-v1"), ("walker", "walk", "WalkerWalk-v1")]
DMC_EDITS = ["body_mass", "geom_friction", "dof_damping", "actuator_gear", "opt.gravity"]


def _dmc_compare(pool, ref, ts, r, steps: int, tag: str) -> None:
    spec = ref.action_spec()
    rng = np.random.default_rng(0)
    for t in range(steps):
        for k, v in r.observation.items():
            np.testing.assert_allclose(getattr(ts.observation, k)[1], v, rtol=0, atol=ATOL, err_msg=f"{tag} {k} @ {t}")
        if r.reward is not None:
            assert ts.reward[1] == np.float32(r.reward), (tag, t)
        if r.last():
            return
        a = rng.uniform(np.maximum(spec.minimum, -1), np.minimum(spec.maximum, 1))
        ts, r = pool.step(np.stack([a, a])), ref.step(a)


@pytest.mark.parametrize(("domain", "task", "task_id"), DMC_TASKS)
def test_dmc_set_model_steps_as_dm_control(domain, task, task_id):
    suite = _suite()
    pool = envpool.make(task_id, env_type="dm", num_envs=2, seed=3)
    ref = suite.load(domain, task, task_kwargs={"random": 4})
    ts, r = pool.reset(), ref.reset()
    _dmc_compare(pool, ref, ts, r, 3, "before")
    ts, r = pool.step(np.zeros((2, *ref.action_spec().shape))), ref.step(np.zeros(ref.action_spec().shape))
    model = ref.physics.model._model
    for field in DMC_EDITS:
        new = EDITS[field](pool.get_model(field, [1])[0])
        pool.set_model(field, new, env_ids=[1])
        edit(model, field, new)
        np.testing.assert_array_equal(pool.get_model(field, [1])[0], new)
    set_const(model)
    ref.physics.forward()
    _dmc_compare(pool, ref, ts, r, 150, f"{domain} {task} edited")


@pytest.mark.parametrize(("domain", "task", "task_id"), DMC_TASKS)
def test_dmc_randomized_episodes_step_as_dm_control(domain, task, task_id):
    suite = _suite()
    rule = {"body_mass": ("scale", 0.8, 1.2), "geom_friction": ("scale", 0.5, 1.5), "opt.gravity": ("add", -1, 1)}
    pool = envpool.make(task_id, env_type="dm", num_envs=2, seed=3, model_randomization=rule, model_info=True)
    ts = pool.reset()
    ref = suite.load(domain, task, task_kwargs={"random": 4})
    model = ref.physics.model._model
    for field in rule:
        edit(model, field, pool.get_model(field, [1])[0])
    set_const(model)
    r = ref.reset()
    _dmc_compare(pool, ref, ts, r, 150, f"{domain} {task} randomized")


@pytest.mark.slow
@pytest.mark.parametrize("task_id", ["HalfCheetah-v5", "Ant-v5"])
def test_randomized_autoreset_episodes_step_as_gymnasium(task_id):
    """Several episodes through the engine's next-step autoreset, each with its own draw:
    gymnasium's env gets each episode's values (and state) as the episode starts."""
    env = envpool.make(
        task_id,
        env_type="gymnasium",
        num_envs=2,
        seed=5,
        max_episode_steps=60,
        expose_state=True,
        model_randomization=RANDOMIZATION,
        model_info=True,
    )
    refs = [gym_env(task_id) for _ in range(2)]

    def sync(g, obs, info, i):
        g.reset(seed=0)
        for field in RANDOMIZATION:
            edit(g.model, field, info["model_" + field.replace(".", "_")][i])
        set_const(g.model)
        g.set_state(info["qpos0"][i].copy(), info["qvel0"][i].copy())
        np.testing.assert_allclose(obs[i], g._get_obs(), rtol=0, atol=ATOL)

    obs, info = env.reset()
    for i in range(2):
        sync(refs[i], obs, info, i)
    space = refs[0].action_space
    rng = np.random.default_rng(0)
    draws = set()
    for t in range(4 * 61):
        a = rng.uniform(space.low, space.high, size=(2, *space.shape)).astype(np.float32)
        obs, rew, term, trunc, info = env.step(a)
        for i in range(2):
            if info["elapsed_step"][i] == 0:  # the autoreset's first row: a new draw
                sync(refs[i], obs, info, i)
                draws.add(info["model_body_mass"][i].tobytes())
                continue
            og, rg, tg, _, _ = refs[i].step(a[i])
            np.testing.assert_allclose(obs[i], og, rtol=0, atol=ATOL, err_msg=f"{task_id} env {i} @ {t}")
            assert abs(float(rew[i]) - float(np.float32(rg))) <= ATOL
            assert bool(term[i]) == bool(tg)
    assert len(draws) >= 6


@pytest.mark.slow  # GL set-up: several seconds
def test_render_draws_each_envs_own_model():
    """render() draws an env's own copy (geom colours set on env 1 only)."""
    env = envpool.make(
        "HalfCheetah-v5", env_type="gymnasium", num_envs=2, seed=0, render_mode="rgb_array", width=64, height=64
    )
    env.reset(seed=[1, 1])
    try:
        before = env.render([0, 1])
    except RuntimeError as e:
        pytest.skip(f"no OpenGL here: {e}")
    np.testing.assert_array_equal(before[0], before[1])
    rgba = env.get_model("geom_rgba", [1])[0]
    rgba[:, :3] = [1.0, 0.0, 0.0]
    env.set_model("geom_rgba", rgba, env_ids=[1])
    after = env.render([0, 1])
    np.testing.assert_array_equal(after[0], before[0])
    assert not np.array_equal(after[1], before[1])


def test_randomization_leaves_the_tasks_own_draws_alone():
    """Same seed, with and without randomization: the same reset noise (initial states)."""
    states = []
    for extra in ({}, {"model_randomization": RANDOMIZATION}):
        env = envpool.make("Hopper-v5", env_type="gymnasium", num_envs=3, seed=9, expose_state=True, **extra)
        _, info = env.reset()
        states.append(np.hstack([info["qpos0"], info["qvel0"]]))
    np.testing.assert_array_equal(states[0], states[1])


def test_qpos0_is_the_next_episodes_start():
    env = envpool.make("HalfCheetah-v5", env_type="gymnasium", num_envs=1, reset_noise_scale=0.0, expose_state=True)
    env.reset()
    qpos0 = env.get_model("qpos0")[0] + 0.25
    env.set_model("qpos0", qpos0)
    _, info = env.reset()
    np.testing.assert_array_equal(info["qpos0"][0], qpos0)


def test_dmc_keeps_the_step_limit_it_was_made_with():
    """dm_control computes the episode's step limit when the env is made: a new timestep
    changes the physics, not the number of steps (1000 for cartpole's 10 s)."""
    env = envpool.make("CartpoleBalance-v1", env_type="dm", num_envs=1, seed=0)
    env.reset()
    env.set_model("opt.timestep", env.get_model("opt.timestep") / 2)
    last = [int(env.step(np.zeros((1, 1))).step_type[0]) == 2 for _ in range(1001)]  # dm_env's LAST
    assert last.index(True) == 999
