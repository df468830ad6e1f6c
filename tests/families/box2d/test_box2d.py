"""The Box2D family (cpp/box2d/) against gymnasium 1.4's own envs on the box2d 2.3.10 wheel.

Fidelity: each test runs our env with ``report_draws=True``, which reports the values of
the random draws of every reset and step in gymnasium's call order (LunarLander: the
terrain heights, the initial force, the wind indices, each step's engine dispersion;
BipedalWalker: the terrain, the clouds, the initial force).
Before each of gymnasium's reset() and step() calls we give its env a stand-in for
``np_random`` (``Replay``) that returns exactly those values and checks that gymnasium
asks for the same number and kinds of them; gymnasium then builds the same terrain and
runs its own Box2D world, and observations (float32), rewards, terminated and truncated
must be bit-equal, step for step, over random actions and many episodes. Our Box2D is
built from box2d-py 2.3.8's sdist (third_party/box2d/README.md): these tests are what
shows it bit-equal to the 2.3.10 wheel.

Distributions: our draws come from our own generator, so the initial observations are
compared with gymnasium's statistically (two-sample KS, fixed seeds: deterministic).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import envpool

gymnasium = pytest.importorskip("gymnasium")
pytest.importorskip("Box2D")


class Replay:
    """Stands in for gymnasium's ``np_random``: returns our env's draws, in order."""

    def __init__(self, draws: np.ndarray, n: int) -> None:
        self.draws = [float(d) for d in draws[:n]]
        self.used = 0

    def _next(self, low: float, high: float) -> float:
        assert self.used < len(self.draws), "gymnasium draws more than our env did"
        v = self.draws[self.used]
        self.used += 1
        assert low <= v <= high, f"draw {self.used - 1}: gymnasium asks for one in [{low}, {high}), ours is {v}"
        return v

    def uniform(self, low: float = 0.0, high: float = 1.0, size=None):
        if size is None:
            return self._next(low, high)
        n = int(np.prod(size))
        return np.array([self._next(low, high) for _ in range(n)]).reshape(size)

    def random(self) -> float:
        return self._next(0.0, 1.0)

    def integers(self, low: int, high: int):
        v = self._next(low, high - 1)
        assert v == int(v), f"gymnasium asks for an integer, ours is {v}"
        return np.int64(v)

    def check_all_used(self) -> None:
        assert self.used == len(self.draws), f"gymnasium used {self.used} of our env's {len(self.draws)} draws"


def _replay(ref, info, fn):
    """Runs gymnasium's ``fn`` (its reset or step) on our env's draws of row 0."""
    rep = Replay(info["draws"][0], int(info["num_draws"][0]))
    ref._np_random = rep
    out = fn()
    rep.check_all_used()
    return out


# task -> gymnasium's id whose env it runs
GYM_ID = {
    "LunarLander-v3": "LunarLander-v3",
    "LunarLanderContinuous-v3": "LunarLanderContinuous-v3",
    "LunarLander-v2": "LunarLander-v3",
    "LunarLanderContinuous-v2": "LunarLanderContinuous-v3",
    "BipedalWalker-v3": "BipedalWalker-v3",
    "BipedalWalkerHardcore-v3": "BipedalWalkerHardcore-v3",
}


def _actions(space, steps: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if isinstance(space, gymnasium.spaces.Discrete):
        return rng.integers(0, space.n, size=steps).astype(np.int32)
    low, high = space.low, space.high
    # a little beyond the bounds too: gymnasium clips, so must we
    return rng.uniform(low * 1.2, high * 1.2, size=(steps, *space.shape)).astype(np.float32)


def _check_frame(ours, ref, what: str, renders: int = 1) -> None:
    for k in range(renders):
        frame = ours.render()[0]
        r_frame = ref.render()
        assert frame.shape == r_frame.shape, what
        bad = np.argwhere((frame != r_frame).any(-1))
        assert len(bad) == 0, f"{what}, render {k}: {len(bad)} pixels differ, first at {bad[0]}"


@dataclasses.dataclass
class Run:
    ends: int = 0  # episodes that ended (terminated or truncated)
    final_rewards: list = dataclasses.field(default_factory=list)  # the terminated steps' rewards
    max_x: float = -np.inf  # the walker's furthest hull x (its scroll), from gymnasium's env


def run_replayed(
    task: str, steps: int, seed: int = 0, render_every: int = 0, policy=None, renders: int = 1, **kwargs
) -> Run:
    """Steps our env and gymnasium's (fed our draws) with random actions (or ``policy(obs)``
    of our observation); everything must be bit-equal. ``render_every``: the frames of the
    reset and of every that many steps must be equal too (both envs render at the same
    moments: LunarLander's particles age and the walker's lidar ray moves per frame), each
    drawn ``renders`` times in a row (ours then made with render_advances_each_call=True)."""
    extra = {"render_mode": "rgb_array"} if render_every else {}
    if renders > 1:
        extra["render_advances_each_call"] = True
    ours = envpool.make(task, env_type="gymnasium", num_envs=1, seed=seed, report_draws=True, **kwargs, **extra)
    ref = gymnasium.make(GYM_ID[task], **kwargs, render_mode=extra.get("render_mode")).unwrapped
    obs, info = ours.reset()
    r_obs, _ = _replay(ref, info, ref.reset)
    np.testing.assert_array_equal(obs[0], r_obs)
    if render_every:
        _check_frame(ours, ref, "reset", renders)
    limit = ours.spec.max_episode_steps
    actions = _actions(ours.single_action_space, steps, seed)
    run = Run()
    for t in range(steps):
        act = actions[t : t + 1] if policy is None else np.asarray([policy(obs[0])], actions.dtype)
        obs, rew, term, trunc, info = ours.step(act)
        if info["elapsed_step"][0] == 0:  # NEXT_STEP autoreset: a new episode's first observation
            r_obs, _ = _replay(ref, info, ref.reset)
        else:
            a = int(act[0]) if act.ndim == 1 else act[0]
            r_obs, r_rew, r_term, r_trunc, _ = _replay(ref, info, lambda: ref.step(a))
            assert rew[0] == np.float32(r_rew), f"step {t}: {rew[0]} != {r_rew}"
            assert bool(term[0]) == r_term, f"step {t}"
            assert bool(trunc[0]) == (limit > 0 and not r_term and info["elapsed_step"][0] >= limit), f"step {t}"
            run.ends += bool(term[0] or trunc[0])
            if term[0]:
                run.final_rewards.append(float(rew[0]))
            if task.startswith("Bipedal"):
                run.max_x = max(run.max_x, ref.hull.position[0])
        assert r_obs.dtype == np.float32
        np.testing.assert_array_equal(obs[0], r_obs, err_msg=f"step {t}")
        if render_every and (t + 1) % render_every == 0:
            _check_frame(ours, ref, f"step {t}", renders)
    ours.close()
    return run


LANDER_CASES = [
    ("LunarLander-v3", {}),
    ("LunarLanderContinuous-v3", {}),
    ("LunarLander-v3", {"enable_wind": True, "wind_power": 18.0, "turbulence_power": 1.9, "gravity": -7.5}),
    ("LunarLanderContinuous-v3", {"enable_wind": True}),
]


@pytest.mark.parametrize("task, kwargs", LANDER_CASES[:2])
def test_lunar_lander_replayed_short(task: str, kwargs: dict) -> None:
    assert run_replayed(task, steps=300, seed=1, **kwargs).ends >= 1


@pytest.mark.slow
@pytest.mark.parametrize("task, kwargs", LANDER_CASES)
def test_lunar_lander_replayed(task: str, kwargs: dict) -> None:
    # random play crashes within ~100 steps: 2000 steps span many episodes
    assert run_replayed(task, steps=2000, seed=7, **kwargs).ends >= 5


WALKER_CASES = [("BipedalWalker-v3", {}), ("BipedalWalkerHardcore-v3", {})]


def test_bipedal_walker_replayed_short() -> None:
    # hardcore: stumps, stairs and pits in the terrain (the world keeps its bodies' order)
    run_replayed("BipedalWalkerHardcore-v3", steps=200, seed=2)


@pytest.mark.slow
@pytest.mark.parametrize("task, kwargs", WALKER_CASES)
def test_bipedal_walker_replayed(task: str, kwargs: dict) -> None:
    # random play falls within a few hundred steps: 2000 steps span several episodes,
    # and gymnasium's walker keeps one Box2D world across them, as ours does
    assert run_replayed(task, steps=2000, seed=7, **kwargs).ends >= 2


@pytest.mark.parametrize("task", ["LunarLander-v3", "LunarLanderContinuous-v3", "BipedalWalkerHardcore-v3"])
def test_frames_replayed_short(task: str) -> None:
    # every frame of a few episodes' starts: particles (the lander's exhaust, aged by
    # each render) and the walker's lidar ray (one per frame) included
    run_replayed(task, steps=60, seed=4, render_every=1)


@pytest.mark.parametrize("task", ["LunarLander-v3", "BipedalWalker-v3"])
def test_frames_drawn_again_are_gymnasiums_with_render_advances_each_call(task: str) -> None:
    # gymnasium ages the particles and moves the lidar ray at every render() call
    run_replayed(task, steps=40, seed=4, render_every=3, renders=3)


@pytest.mark.parametrize("task", ["LunarLander-v3", "BipedalWalker-v3"])
def test_a_frame_drawn_again_without_a_step_is_the_same(task: str) -> None:
    """EnvPool's render() changes nothing: drawn again, the frame is the same (the lidar ray
    and the particles' age move with the steps); gymnasium's second render differs."""
    ours = envpool.make(task, env_type="gymnasium", num_envs=1, seed=2, render_mode="rgb_array")
    again = envpool.make(
        task, env_type="gymnasium", num_envs=1, seed=2, render_mode="rgb_array", render_advances_each_call=True
    )
    ours.reset(), again.reset()
    # full throttle: the lander's engines make particles
    act = np.array([2], np.int32) if task.startswith("Lunar") else np.ones((1, 4), np.float32)
    differs = 0
    for t in range(12):
        ours.step(act), again.step(act)
        first, a_first = ours.render(), again.render()
        if t == 0:  # before again's first extra render, the two envs are alike
            np.testing.assert_array_equal(first, a_first)
        for _ in range(2):
            np.testing.assert_array_equal(ours.render(), first)
        differs += not np.array_equal(again.render(), a_first)
    assert differs > 0
    ours.close(), again.close()


@pytest.mark.slow
@pytest.mark.parametrize("task, kwargs", LANDER_CASES + WALKER_CASES)
def test_frames_replayed(task: str, kwargs: dict) -> None:
    assert run_replayed(task, steps=600, seed=5, render_every=1, **kwargs).ends >= 1


@pytest.mark.slow
@pytest.mark.parametrize("task", ["LunarLander-v3", "LunarLanderContinuous-v3"])
def test_lunar_lander_heuristic_landings(task: str) -> None:
    # gymnasium's heuristic pilot lands: the lander comes to rest (Box2D puts it to sleep,
    # reward +100), a path random play never takes
    from gymnasium.envs.box2d.lunar_lander import heuristic

    pilot = gymnasium.make(task).unwrapped
    run = run_replayed(task, steps=2000, seed=11, render_every=25, policy=lambda o: heuristic(pilot, o))
    assert run.final_rewards.count(100.0) >= 2, run.final_rewards


@pytest.mark.slow
@pytest.mark.parametrize("task", ["BipedalWalker-v3", "BipedalWalkerHardcore-v3"])
def test_bipedal_walker_heuristic_walks(task: str) -> None:
    # gymnasium's heuristic gait walks: the view scrolls, and on the hardcore course the
    # walker meets the stumps, stairs and pits
    from gymnasium.envs.box2d.bipedal_walker import BipedalWalkerHeuristics

    gait = BipedalWalkerHeuristics()
    run = run_replayed(task, steps=2000, seed=13, render_every=50, policy=gait.step_heuristic)
    # normal: 30 units (64 terrain steps, 900 pixels of scroll); hardcore: past the start
    # pad (20 steps, 9.3 units) among the obstacles, where the gait falls
    assert run.max_x > (12 if "Hardcore" in task else 30), run.max_x


def test_particles_leave_the_dynamics_alone() -> None:
    # with particles (render_mode) and frames drawn, or neither: the same observations
    def run(**kw) -> list:
        env = envpool.make("LunarLander-v3", env_type="gymnasium", num_envs=1, seed=3, **kw)
        out = [env.reset()[0].copy()]
        for a in np.random.default_rng(1).integers(0, 4, size=(300, 1)).astype(np.int32):
            out.append(env.step(a)[0].copy())
            if kw:
                env.render()
        env.close()
        return out

    assert all(np.array_equal(x, y) for x, y in zip(run(), run(render_mode="rgb_array")))


def test_draws_capacity() -> None:
    for task, n in [("LunarLander-v3", 18), ("BipedalWalkerHardcore-v3", 1311)]:
        env = envpool.make(task, env_type="gymnasium", num_envs=1, report_draws=True)
        _, info = env.reset()
        assert info["draws"].shape == (1, n) and 0 < info["num_draws"][0] <= n
        env.close()


def test_wind_power_warnings() -> None:
    with pytest.warns(UserWarning, match="wind_power value is recommended"):
        envpool.make_spec("LunarLander-v3", wind_power=25.0)
    with pytest.warns(UserWarning, match="turbulence_power value is recommended"):
        envpool.make_spec("LunarLander-v3", turbulence_power=-1.0)


@pytest.mark.parametrize("task", ["LunarLander-v3", "BipedalWalkerHardcore-v3"])
def test_render_before_the_first_reset_raises(task: str) -> None:
    # There is no terrain to draw yet (gymnasium's render raises an AttributeError); the
    # frame used to be read past empty arrays (a segfault).
    env = envpool.make(task, env_type="gymnasium", num_envs=2, render_mode="rgb_array")
    with pytest.raises(RuntimeError, match=r"envs 0, 1 failed: \w+ render: no \w+ yet \(reset the env first\)"):
        env.render([0, 1])
    env.reset()
    assert env.render([0, 1]).shape == (2, 400, 600, 3)
    env.close()


def test_particles_follow_render_mode() -> None:
    assert envpool.make_spec("LunarLander-v3").config["particles"] is False
    assert envpool.make_spec("LunarLander-v3", render_mode="rgb_array").config["particles"] is True


@pytest.mark.parametrize("task", ["LunarLander-v2", "LunarLanderContinuous-v2"])
def test_envpool_ids_run_the_current_dynamics(task: str) -> None:
    run_replayed(task, steps=100, seed=3)


@pytest.mark.parametrize(
    "task", ["LunarLander-v3", "LunarLanderContinuous-v3", "BipedalWalker-v3", "BipedalWalkerHardcore-v3"]
)
def test_spaces_and_registration_match_gymnasium(task: str) -> None:
    spec = envpool.make_spec(task)
    ref = gymnasium.make(task)
    assert spec.action_space == ref.action_space
    assert spec.observation_space == ref.observation_space
    assert spec.config["max_episode_steps"] == ref.spec.max_episode_steps
    assert spec.reward_threshold == ref.spec.reward_threshold
    assert spec.config["render_fps"] == ref.unwrapped.metadata["render_fps"]
    for key, value in ref.spec.kwargs.items():
        assert spec.config[key] == value, key


def test_default_keywords_are_gymnasiums() -> None:
    import inspect

    from gymnasium.envs.box2d.bipedal_walker import BipedalWalker
    from gymnasium.envs.box2d.car_racing import CarRacing
    from gymnasium.envs.box2d.lunar_lander import LunarLander

    for family, cls in [("LunarLander", LunarLander), ("BipedalWalker", BipedalWalker), ("CarRacing", CarRacing)]:
        config = envpool._envpool.make_spec(family, {})[0]
        for name, p in inspect.signature(cls.__init__).parameters.items():
            if name in ("self", "render_mode"):
                continue
            assert config[name] == p.default and type(config[name]) is type(p.default), name


@pytest.mark.parametrize(
    "task, kwargs, error, match",
    [
        ("LunarLander-v3", {"gravity": -12.0}, ValueError, "gravity"),
        ("LunarLander-v3", {"gravity": 0.5}, ValueError, "gravity"),
        ("LunarLander-v3", {"enable_wind": 1}, TypeError, "enable_wind"),
        ("LunarLander-v3", {"wind": True}, TypeError, "wind"),
        ("BipedalWalker-v3", {"hardcore": "yes"}, TypeError, "hardcore"),
    ],
)
def test_bad_keywords(task: str, kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        envpool.make(task, env_type="gymnasium", num_envs=2, **kwargs)


def test_bad_action_keeps_the_pool_usable() -> None:
    env = envpool.make("LunarLander-v3", env_type="gymnasium", num_envs=2)
    env.reset()
    with pytest.raises(ValueError, match="action"):
        env.step(np.array([0, 4], np.int32))
    obs, *_ = env.step(np.array([0, 1], np.int32))
    assert obs.shape == (2, 8)
    env.close()


@pytest.mark.parametrize("task", ["LunarLanderContinuous-v3", "BipedalWalker-v3", "CarRacing-v3"])
def test_float64_actions_step_as_their_float32_cast(task: str) -> None:
    pools = [envpool.make(task, env_type="gymnasium", num_envs=2, seed=3) for _ in range(2)]
    for p in pools:
        p.reset()
    space = pools[0].action_space
    rng = np.random.default_rng(0)
    for t in range(60):
        a64 = rng.uniform(space.low, space.high, size=(2, *space.shape))  # float64, mostly not float32-exact
        assert a64.dtype == np.float64 and (a64 != a64.astype(np.float32)).any()
        got, want = pools[0].step(a64), pools[1].step(a64.astype(np.float32))
        for x, y in zip(got[:4], want[:4]):
            np.testing.assert_array_equal(x, y, err_msg=f"step {t}")
    for p in pools:
        p.close()


def test_nan_walker_action_is_refused_before_the_step() -> None:
    # a NaN motor torque breaks Box2D's solver (gymnasium's pybox2d raises mid-step): refused
    # before the world changes; the engine resets the failed env at its next step, and the
    # world (kept across episodes) is sound: finite observations from there on
    env = envpool.make("BipedalWalker-v3", env_type="gymnasium", num_envs=1, seed=0)
    env.reset()
    zero = np.zeros((1, 4), np.float32)
    env.step(zero)
    with pytest.raises(ValueError, match=r"action\[1\] is NaN"):
        env.step(np.array([[0.0, np.nan, 0.0, 0.0]], np.float32))
    obs, *_, info = env.step(zero)
    assert info["elapsed_step"][0] == 0
    for _ in range(50):
        obs, *_ = env.step(zero)
        assert np.isfinite(obs).all()
    env.close()


def test_seeded_runs_repeat() -> None:
    def run(seed: int) -> list:
        env = envpool.make("LunarLander-v3", env_type="gymnasium", num_envs=4, seed=seed)
        out = [env.reset()[0].copy()]
        for a in np.random.default_rng(0).integers(0, 4, size=(100, 4)).astype(np.int32):
            out.append(env.step(a)[0].copy())
        env.close()
        return out

    a, b, c = run(5), run(5), run(6)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c))


def test_lunar_lander_initial_state_distribution() -> None:
    from scipy.stats import ks_2samp

    n = 300
    env = envpool.make("LunarLander-v3", env_type="gymnasium", num_envs=n, seed=0)
    ours = env.reset()[0]
    env.close()
    ref = gymnasium.make("LunarLander-v3").unwrapped
    theirs = np.array([ref.reset(seed=10_000 + i)[0] for i in range(n)])
    # x, y, vx, vy, angle, angular velocity: driven by the random initial force
    for k in range(6):
        assert ks_2samp(ours[:, k], theirs[:, k]).pvalue > 0.001, k
    # a biased draw (force in [0, 1000) only) is told apart
    assert ks_2samp(ours[:, 2], np.abs(theirs[:, 2])).pvalue < 0.001


def test_bipedal_walker_initial_state_distribution() -> None:
    from scipy.stats import ks_2samp

    n = 200
    env = envpool.make("BipedalWalker-v3", env_type="gymnasium", num_envs=n, seed=0)
    ours = env.reset()[0]
    env.close()
    ref = gymnasium.make("BipedalWalker-v3").unwrapped
    theirs = np.array([ref.reset(seed=10_000 + i)[0] for i in range(n)])
    # hull angle, angular velocity, vx, vy: driven by the random initial force (the
    # lidar sees the random terrain)
    for k in [0, 1, 2, 3, *range(14, 24)]:
        assert ks_2samp(ours[:, k], theirs[:, k]).pvalue > 0.001, k
    assert ks_2samp(ours[:, 2], np.abs(theirs[:, 2])).pvalue < 0.001


def test_raw_ceiling_over_a_block_of_envs_per_thread() -> None:
    """raw_ceiling(num_envs=N): each thread steps its block of the N envs (uneven blocks too), also in sync
    calls (tests/core/cpp/test_core.cc checks their order); fewer envs than threads is refused, naming the
    keyword."""
    from envpool import _envpool

    for family in ("LunarLander", "BipedalWalker"):
        for sync_calls in (False, True):
            assert _envpool.raw_ceiling(family, {}, 2, 0.05, num_envs=5, sync_calls=sync_calls) > 0
            assert _envpool.raw_ceiling(family, {}, 1, 0.05, num_envs=3, sync_calls=sync_calls) > 0
        assert _envpool.raw_ceiling(family, {}, 2, 0.05, sync_calls=True) > 0  # one env per thread
    for bad in (1, -1):
        with pytest.raises(ValueError, match=r"num_envs must be 0 \(one env per thread\) or >= num_threads"):
            _envpool.raw_ceiling("LunarLander", {}, 2, 0.05, num_envs=bad)
