"""The toy-text family (cpp/toy_text/) against gymnasium 1.4's own envs.

Fidelity: each test runs our env with ``report_draws=True``, which reports the random
draws of every reset and step in gymnasium's call order (a uniform where gymnasium calls
``np_random.random()``, an index where it calls ``np_random.choice(seq)``). Before each
of gymnasium's reset() and step() calls we give its env a stand-in for ``np_random``
(``Replay``) that hands out exactly those draws and checks that gymnasium asks for the
same number and kinds of them; gymnasium then runs its own reset (its initial-state
sampling included) and step, and observations, rewards, terminated, truncated and the
info entries must be equal, step for step, over 2000 random actions and many episodes.

Distributions (initial states, random maps): our env's draws come from its own
generator, so they are compared with gymnasium's statistically (chi-square, fixed seeds:
deterministic). Frames: pixel-equal to gymnasium's pygame renders on a set of states.
"""

from __future__ import annotations

import importlib.util
import os

import numpy as np
import pytest
from _isolated import run_python

import envpool

gymnasium = pytest.importorskip("gymnasium")
from gymnasium.envs.toy_text import frozen_lake as gym_frozen_lake  # noqa: E402

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

TABULAR = {
    # task: (gymnasium id, kwargs for both)
    "FrozenLake-v1": ("FrozenLake-v1", {}),
    "FrozenLake8x8-v1": ("FrozenLake8x8-v1", {}),
    "Taxi-v4": ("Taxi-v4", {}),
    "Taxi-v3": ("Taxi-v4", {}),
    "CliffWalking-v1": ("CliffWalking-v1", {}),
    "CliffWalking-v0": ("CliffWalking-v1", {}),
    "CliffWalkingSlippery-v1": ("CliffWalkingSlippery-v1", {}),
}


class Replay:
    """Stands in for gymnasium's ``np_random``: hands out our env's draws, in order."""

    def __init__(self, draws: np.ndarray, n: int) -> None:
        self.draws = [float(d) for d in draws[:n]]
        self.used = 0

    def _next(self) -> float:
        assert self.used < len(self.draws), "gymnasium draws more than our env did"
        v = self.draws[self.used]
        self.used += 1
        return v

    def random(self) -> float:
        v = self._next()
        assert 0.0 <= v < 1.0, f"gymnasium asks for a uniform where our env drew the index {v}"
        return v

    def choice(self, seq):
        i = self._next()
        assert i == int(i) and 0 <= i < len(seq), f"gymnasium picks from {len(seq)} items where our env drew {i}"
        return seq[int(i)]

    def check_all_used(self) -> None:
        assert self.used == len(self.draws), f"gymnasium used {self.used} of our env's {len(self.draws)} draws"


def _replay(ref, info, fn):
    """Runs gymnasium's ``fn`` (its reset or step) on our env's draws of row 0."""
    rep = Replay(info["draws"][0], int(info["num_draws"][0]))
    ref._np_random = rep
    out = fn()
    rep.check_all_used()
    return out


def test_max_episode_steps_zero_is_no_limit() -> None:
    """0 means no time limit (EnvPool 1.2.5 truncates every step; differences.md)."""
    env = envpool.make("CliffWalking-v1", env_type="gymnasium", num_envs=1, max_episode_steps=0)
    env.reset()
    for _ in range(300):  # UP from the start, then against the top edge: never done
        _, _, term, trunc, info = env.step(np.array([0]))
        assert not (term[0] or trunc[0])
    assert info["elapsed_step"][0] == 300
    env.close()


def test_frozen_lake_config_makes_the_same_maps_again() -> None:
    """config["desc"] is the engine's newline-joined form; make takes it back (random maps too)."""
    skip = ("reward_threshold", "render_fps")
    for kw in ({}, {"desc": ["SFFHG", "FHFSF", "FFFFH"]}, {"desc": None, "map_name": None}):
        env = envpool.make("FrozenLake-v1", env_type="gymnasium", num_envs=2, seed=3, report_draws=True, **kw)
        again = envpool.make(
            "FrozenLake-v1", env_type="gymnasium", **{k: v for k, v in env.config.items() if k not in skip}
        )
        assert again.config["desc"] == env.config["desc"] and again.config["map_name"] == env.config["map_name"]
        np.testing.assert_array_equal(again.reset()[1]["desc"], env.reset()[1]["desc"])
    with pytest.raises(ValueError):
        envpool.make("FrozenLake-v1", env_type="gymnasium", desc="SF\nFHG")


def _desc(info) -> list[str]:
    return ["".join(chr(c) for c in row) for row in info["desc"][0]]


def _check_info(task: str, info, r_info) -> None:
    assert info["prob"][0] == float(r_info["prob"])
    if task.startswith("Taxi"):
        assert info["action_mask"].dtype == r_info["action_mask"].dtype == np.int8
        np.testing.assert_array_equal(info["action_mask"][0], r_info["action_mask"])


def _reference(task: str, info, kwargs: dict, **extra):
    gid, kw = TABULAR.get(task, (task, {}))
    kw = {**kw, **kwargs, **extra}
    if task.startswith("FrozenLake"):
        kw["desc"] = _desc(info)  # our map (a random one included)
        kw.pop("map_name", None)
    return gymnasium.make(gid, **kw).unwrapped


_STATS: dict[str, int] = {}


def run_replayed(task: str, steps: int = 2000, seed: int = 0, **kwargs) -> int:
    """Steps our env and gymnasium's (fed our draws) with random actions; returns the
    number of episodes begun."""
    ours = envpool.make(task, env_type="gymnasium", num_envs=1, seed=seed, report_draws=True, **kwargs)
    obs, info = ours.reset()
    ref = _reference(task, info, kwargs)
    r_obs, r_info = _replay(ref, info, ref.reset)
    assert obs[0] == r_obs
    _check_info(task, info, r_info)
    limit = ours.spec.max_episode_steps
    rng = np.random.default_rng(seed)
    actions = rng.integers(0, ours.single_action_space.n, size=steps).astype(np.int32)
    episodes = 1
    _STATS["fickle_choices"] = 0
    for t in range(steps):
        obs, rew, term, trunc, info = ours.step(actions[t : t + 1])
        if info["elapsed_step"][0] == 0:  # NEXT_STEP autoreset: a new episode's first observation
            episodes += 1
            r_obs, r_info = _replay(ref, info, ref.reset)
        else:
            r_obs, r_rew, r_term, r_trunc, r_info = _replay(ref, info, lambda: ref.step(int(actions[t])))
            assert rew[0] == r_rew, f"step {t}"
            assert bool(term[0]) == r_term, f"step {t}"
            # gymnasium's TimeLimit truncates at the limit even on a terminating step (both flags set)
            assert bool(trunc[0]) == (limit > 0 and info["elapsed_step"][0] >= limit), f"step {t}"
        assert obs[0] == r_obs and type(r_obs) is int, f"step {t}"
        _STATS["fickle_choices"] += (
            task.startswith("Taxi") and info["elapsed_step"][0] > 0 and info["num_draws"][0] == 2
        )
        _check_info(task, info, r_info)
    ours.close()
    return episodes


@pytest.mark.parametrize("task", list(TABULAR))
def test_tabular_replayed(task: str) -> None:
    # CliffWalking has no time limit and random play rarely reaches its goal: give it one.
    kwargs = {"max_episode_steps": 100} if task.startswith("CliffWalking") else {}
    assert run_replayed(task, **kwargs) >= 5  # many episodes end (or hit the time limit)


@pytest.mark.parametrize(
    "task, kwargs",
    [
        ("FrozenLake-v1", {"is_slippery": False}),
        ("FrozenLake-v1", {"success_rate": 0.75, "reward_schedule": (2, -1, -0.01)}),
        ("FrozenLake-v1", {"map_name": None}),  # a random 8x8 map from the env's generator
        ("FrozenLake-v1", {"desc": ["SFFHG", "FHFSF", "FFFFH"]}),  # two starts, not square
        ("FrozenLake8x8-v1", {"is_slippery": False, "success_rate": 0.0}),
        ("Taxi-v4", {"is_rainy": True}),
        ("Taxi-v4", {"fickle_passenger": True}),
        ("Taxi-v4", {"is_rainy": True, "fickle_passenger": True, "rainy_probability": 0.6, "fickle_probability": 0.9}),
        ("CliffWalking-v1", {"is_slippery": True, "max_episode_steps": 100}),
    ],
)
def test_options_replayed(task: str, kwargs: dict) -> None:
    assert run_replayed(task, seed=1, **kwargs) >= 3
    if kwargs.get("fickle_passenger"):
        assert _STATS["fickle_choices"] > 0  # a passenger changed destination: that draw was replayed too


@pytest.mark.parametrize("kwargs", [{}, {"sab": False}, {"sab": False, "natural": True}])
def test_blackjack_replayed(kwargs: dict) -> None:
    ours = envpool.make("Blackjack-v1", env_type="gymnasium", num_envs=1, seed=2, report_draws=True, **kwargs)
    ref = gymnasium.make("Blackjack-v1", **kwargs).unwrapped
    obs, info = ours.reset()
    r_obs, _ = _replay(ref, info, ref.reset)
    assert tuple(obs[0]) == r_obs
    rng = np.random.default_rng(2)
    actions = rng.integers(0, 2, size=2000).astype(np.int32)
    episodes, rewards = 1, set()
    for t in range(2000):
        obs, rew, term, trunc, info = ours.step(actions[t : t + 1])
        if info["elapsed_step"][0] == 0:
            episodes += 1
            r_obs, _ = _replay(ref, info, ref.reset)
        else:
            r_obs, r_rew, r_term, r_trunc, _ = _replay(ref, info, lambda: ref.step(int(actions[t])))
            assert rew[0] == r_rew and bool(term[0]) == r_term and not trunc[0] and not r_trunc, f"step {t}"
            rewards.add(float(r_rew))
        assert tuple(int(v) for v in obs[0]) == tuple(int(v) for v in r_obs), f"step {t}"
    assert episodes > 500 and {-1.0, 0.0, 1.0} <= rewards
    if kwargs.get("natural"):
        assert 1.5 in rewards  # a natural paid 1.5 at least once in ~1000 hands


def test_blackjack_tuple_obs_is_gymnasiums() -> None:
    # tuple_obs=True: gymnasium's space and observations, batched as its vector envs batch a Tuple.
    n = 4
    ours = envpool.make("Blackjack-v1", env_type="gymnasium", num_envs=n, seed=3, tuple_obs=True, report_draws=True)
    rows = envpool.make("Blackjack-v1", env_type="gymnasium", num_envs=n, seed=3)
    ref = gymnasium.make("Blackjack-v1").unwrapped
    vec = gymnasium.make_vec("Blackjack-v1", num_envs=n, vectorization_mode="sync")
    assert ours.single_observation_space == ref.observation_space
    assert (
        ours.observation_space == ref.observation_space
        and envpool.make_spec("Blackjack-v1").config["tuple_obs"] is False
    )
    obs, info = ours.reset()
    assert type(obs) is tuple and len(obs) == 3 and all(v.shape == (n,) and v.dtype == np.int32 for v in obs)
    np.testing.assert_array_equal(np.stack(obs, axis=1), rows.reset()[0])
    assert vec.observation_space.contains(obs)
    # Env 0 against gymnasium's env, on our draws.
    r_obs, _ = _replay(ref, info, ref.reset)
    assert tuple(int(v[0]) for v in obs) == r_obs
    rng = np.random.default_rng(3)
    for t in range(300):
        acts = rng.integers(0, 2, size=n).astype(np.int32)
        obs, rew, term, trunc, info = ours.step(acts)
        r = rows.step(acts)
        np.testing.assert_array_equal(np.stack(obs, axis=1), r[0])
        np.testing.assert_array_equal(rew, r[1])
        assert vec.observation_space.contains(obs)
        if info["elapsed_step"][0] == 0:
            r_obs, _ = _replay(ref, info, ref.reset)
        else:
            r_obs = _replay(ref, info, lambda: ref.step(int(acts[0])))[0]
        assert tuple(int(v[0]) for v in obs) == r_obs, f"step {t}"
    # gymnasium's other autoreset mode: each finished env's final observation is its tuple.
    env = envpool.make(
        "Blackjack-v1", env_type="gymnasium", num_envs=n, seed=0, tuple_obs=True, autoreset_mode="same_step"
    )
    env.reset()
    obs, _, term, trunc, info = env.step(np.zeros(n, np.int32))  # stick: every hand ends
    assert (term | trunc).all() and all(type(f) is tuple and len(f) == 3 for f in info["final_obs"])
    # A masked reset merges tuple rows too.
    merged, _ = env.reset(options={"reset_mask": np.array([True] + [False] * (n - 1))})
    assert [v[1:].tolist() for v in merged] == [v[1:].tolist() for v in obs]
    # The gym interface, the single-env view; the dm interface and xla() refuse it.
    gym_pool = envpool.make("Blackjack-v1", env_type="gym", num_envs=2, seed=3, tuple_obs=True)
    assert type(gym_pool.reset()[0]) is tuple
    if importlib.util.find_spec("gym") is not None:  # gym's own spaces, as for its other pools
        import gym

        assert isinstance(gym_pool.observation_space, gym.spaces.Tuple)
        assert gym_pool.observation_space[0] == gym.spaces.Discrete(32)
    single = gymnasium.make("envpool/Blackjack-v1", tuple_obs=True)
    first, _ = single.reset(seed=1)
    assert type(first) is tuple and all(type(v) is int for v in first) and single.observation_space.contains(first)
    with pytest.raises(ValueError, match="dm_env interface has no tuple observations"):
        envpool.make("Blackjack-v1", env_type="dm", num_envs=2, tuple_obs=True)
    with pytest.raises(ValueError, match="dm_env interface has no tuple observations"):
        envpool.make_spec("Blackjack-v1", tuple_obs=True).observation_spec()
    if importlib.util.find_spec("jax") is not None:  # without JAX, xla() is an ImportError first
        with pytest.raises(NotImplementedError, match="tuple_obs"):
            gym_pool.xla()
    with pytest.raises(TypeError, match="tuple_obs"):
        envpool.make("Blackjack-v1", env_type="gymnasium", num_envs=2, tuple_obs="yes")
    for e in (ours, rows, env, gym_pool, single, vec):
        e.close()


# -- spaces, ids, keywords -------------------------------------------------------------

GYM_IDS = ["FrozenLake-v1", "FrozenLake8x8-v1", "Taxi-v4", "CliffWalking-v1", "CliffWalkingSlippery-v1", "Blackjack-v1"]


@pytest.mark.parametrize("task", GYM_IDS)
def test_spaces_and_registration_match_gymnasium(task: str) -> None:
    spec = envpool.make_spec(task)
    ref = gymnasium.make(task)
    assert spec.action_space == ref.action_space
    if task.startswith("Blackjack"):
        # gymnasium's Tuple(Discrete(32), Discrete(11), Discrete(2)), in order, as one int32 row.
        space = spec.observation_space
        assert space.shape == (3,) and space.dtype == np.int32
        assert list(space.low) == [0, 0, 0] and list(space.high) == [s.n - 1 for s in ref.observation_space.spaces]
    else:
        assert spec.observation_space == ref.observation_space
    assert spec.config["max_episode_steps"] == (ref.spec.max_episode_steps or 0)
    assert spec.reward_threshold == ref.spec.reward_threshold
    assert spec.config["render_fps"] == ref.unwrapped.metadata["render_fps"]
    for key, value in ref.spec.kwargs.items():
        assert spec.config[key] == value, key


def test_envpool_ids() -> None:
    # EnvPool 1.2.5's list_all_envs() toy-text ids
    for task in ["FrozenLake-v1", "FrozenLake8x8-v1", "Taxi-v3", "CliffWalking-v0", "CliffWalking-v1"] + [
        "CliffWalkingSlippery-v1",
        "Blackjack-v1",
        "NChain-v0",
        "Catch-v0",
        "tabular/CliffWalking-v0",
        "tabular/Blackjack-v0",
    ]:
        assert task in envpool.list_all_envs()
    # EnvPool 1.2.5's tabular ids are its aliases of CliffWalking-v1 and Blackjack-v1.
    for alias, task in [("tabular/CliffWalking-v0", "CliffWalking-v1"), ("tabular/Blackjack-v0", "Blackjack-v1")]:
        assert envpool.make_spec(alias).config == envpool.make_spec(task).config
        a = envpool.make(alias, env_type="gymnasium", num_envs=2, seed=5)
        b = envpool.make(task, env_type="gymnasium", num_envs=2, seed=5)
        np.testing.assert_array_equal(a.reset()[0], b.reset()[0])
        for action in [0, 1, 1, 0, 1]:
            acts = np.full(2, action, np.int32)
            for x, y in zip(a.step(acts)[:4], b.step(acts)[:4]):
                np.testing.assert_array_equal(x, y)
    assert envpool.make_spec("Taxi-v3").config["max_episode_steps"] == 200
    # EnvPool 1.2.5's FrozenLake keyword: size=8 is the 8x8 map.
    assert envpool.make_spec("FrozenLake-v1", size=8).observation_space.n == 64


def test_default_keywords_are_gymnasiums() -> None:
    import inspect

    from gymnasium.envs.toy_text import BlackjackEnv, CliffWalkingEnv, FrozenLakeEnv, TaxiEnv

    for family, cls in [
        ("FrozenLake", FrozenLakeEnv),
        ("Taxi", TaxiEnv),
        ("CliffWalking", CliffWalkingEnv),
        ("Blackjack", BlackjackEnv),
    ]:
        config = envpool._envpool.make_spec(family, {})[0]
        for name, p in inspect.signature(cls.__init__).parameters.items():
            if name in ("self", "render_mode"):
                continue
            value = config[name]
            if p.default is None:
                assert value == "", name  # None travels as ""
            elif isinstance(p.default, tuple):
                assert tuple(value) == p.default, name
            else:
                assert value == pytest.approx(p.default) and type(value) is type(p.default), name


@pytest.mark.parametrize(
    "task, kwargs, error, match",
    [
        ("FrozenLake-v1", {"is_slipery": True}, TypeError, "is_slipery"),
        ("FrozenLake-v1", {"is_slippery": 1}, TypeError, "is_slippery"),
        ("FrozenLake-v1", {"desc": "SFFF"}, TypeError, "desc"),
        ("FrozenLake-v1", {"desc": 5}, TypeError, "desc"),
        ("FrozenLake-v1", {"desc": ["SFF", "FH"]}, ValueError, "same"),
        ("FrozenLake-v1", {"desc": ["SFX", "FHG"]}, ValueError, "tiles"),
        ("FrozenLake-v1", {"desc": ["FFF", "FHG"]}, ValueError, "start"),
        ("FrozenLake-v1", {"map_name": "5x5"}, ValueError, "map_name"),
        ("FrozenLake-v1", {"success_rate": 1.5}, ValueError, "success_rate"),
        ("FrozenLake-v1", {"reward_schedule": (1, 0)}, ValueError, "reward_schedule"),
        ("FrozenLake-v1", {"size": 5}, ValueError, "size"),
        ("Taxi-v4", {"rainy_probability": -0.1}, ValueError, "rainy_probability"),
        ("Taxi-v4", {"fickle_passenger": "yes"}, TypeError, "fickle_passenger"),
        ("CliffWalking-v1", {"slippery": True}, TypeError, "slippery"),
        ("Blackjack-v1", {"natural": None}, TypeError, "natural"),
    ],
)
def test_bad_keywords(task: str, kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        envpool.make(task, env_type="gymnasium", num_envs=2, **kwargs)


def test_bad_action_keeps_the_pool_usable() -> None:
    env = envpool.make("Taxi-v4", env_type="gymnasium", num_envs=2)
    env.reset()
    with pytest.raises(ValueError):
        env.step(np.array([0, 6], np.int32))
    obs, *_ = env.step(np.array([0, 1], np.int32))
    assert obs.shape == (2,)
    env.close()


def test_goal_on_the_limit_step_sets_both_flags_as_gymnasium() -> None:
    """Reaching the goal on the last allowed step: terminated and truncated, as gymnasium's TimeLimit gives."""
    kw = {"desc": ["SFG"], "is_slippery": False, "max_episode_steps": 2}
    ref = gymnasium.make("FrozenLake-v1", **kw)
    ref.reset(seed=0)
    env = envpool.make("FrozenLake-v1", env_type="gymnasium", num_envs=1, **kw)
    env.reset()
    for t in range(2):  # right, right: the goal on step 2 of 2
        _, rew, term, trunc, _ = env.step(np.array([2], np.int32))
        _, r_rew, r_term, r_trunc, _ = ref.step(2)
        assert (rew[0], bool(term[0]), bool(trunc[0])) == (r_rew, r_term, r_trunc), f"step {t}"
    assert bool(term[0]) and bool(trunc[0])
    env.close()


@pytest.mark.parametrize("env_type", ["gymnasium", "gym", "dm"])
def test_taxi_action_mask_samples_as_gymnasiums(env_type: str) -> None:
    """gymnasium's Taxi docs sample with ``action_space.sample(info["action_mask"])``, which needs
    its int8 mask: every interface gives int8, as does its spec; the masked sample is legal."""
    env = envpool.make("Taxi-v4", env_type=env_type, num_envs=3, seed=2, autoreset_mode="next_step")
    space = gymnasium.spaces.Discrete(6)
    space.seed(0)
    result = env.reset()
    for t in range(50):
        mask = result.observation.action_mask if env_type == "dm" else result[-1]["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (3, 6), f"step {t}"
        assert set(np.unique(mask)) <= {0, 1} and mask.sum(axis=1).min() >= 1
        action = np.array([space.sample(m) for m in mask], np.int32)
        assert all(m[a] == 1 for m, a in zip(mask, action))
        result = env.step(action)
    if env_type == "dm":
        assert env.observation_spec().action_mask.dtype == np.int8
    else:
        assert env.reset(env_id=[])[-1]["action_mask"].dtype == np.int8  # the empty batch too
    env.close()
    same = envpool.make("Taxi-v4", env_type="gymnasium", num_envs=2, seed=2, autoreset_mode="same_step")
    same.reset()
    while "final_info" not in (info := same.step(np.array([4, 4], np.int32))[-1]):  # illegal pickups: the limit
        pass
    assert info["action_mask"].dtype == info["final_info"]["action_mask"].dtype == np.int8
    with pytest.raises(ValueError, match="size"):  # the binding's view: same size only
        same._pool.view_as("info:action_mask", np.dtype(np.int16))
    with pytest.raises(KeyError, match="info:nothing"):
        same._pool.view_as("info:nothing", np.dtype(np.int8))
    same.close()
    single = gymnasium.make("envpool/Taxi-v4")
    _, info = single.reset(seed=1)
    assert info["action_mask"].dtype == np.int8 and info["action_mask"][single.action_space.sample(info["action_mask"])]
    single.close()


def test_taxi_action_mask_through_xla_is_int8() -> None:
    jax = pytest.importorskip("jax")
    env = envpool.make("Taxi-v4", env_type="gymnasium", num_envs=2, seed=3, autoreset_mode="same_step")
    env.reset()
    handle, _, _, step = env.xla()
    handle, (_, _, _, _, info) = jax.jit(step)(handle, np.array([0, 1], np.int32))
    assert info["action_mask"].dtype == np.int8 and info["final_info"]["action_mask"].dtype == np.int8
    ref = envpool.make("Taxi-v4", env_type="gymnasium", num_envs=2, seed=3, autoreset_mode="same_step")
    ref.reset()
    np.testing.assert_array_equal(
        np.asarray(info["action_mask"]), ref.step(np.array([0, 1], np.int32))[-1]["action_mask"]
    )
    env.close()
    ref.close()


def test_seeded_runs_repeat() -> None:
    def run(seed: int) -> list:
        env = envpool.make("FrozenLake-v1", env_type="gymnasium", num_envs=4, seed=seed, map_name=None)
        out = [env.reset()[0].copy()]
        for a in np.random.default_rng(0).integers(0, 4, size=(300, 4)).astype(np.int32):
            out.append(env.step(a)[0].copy())
        env.close()
        return out

    a, b, c = run(5), run(5), run(6)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c))


def test_random_map_is_drawn_once_per_env() -> None:
    env = envpool.make("FrozenLake-v1", env_type="gymnasium", num_envs=3, seed=9, map_name=None, report_draws=True)
    _, info = env.reset()
    maps = info["desc"].copy()
    assert not np.array_equal(maps[0], maps[1])  # each env its own map
    _, info = env.reset(seed=123)  # reseeding keeps an env's map, as gymnasium's reset(seed=) keeps its map
    np.testing.assert_array_equal(info["desc"], maps)
    env.close()


# -- distributions ----------------------------------------------------------------------


def _chi2_same(ours: np.ndarray, theirs: np.ndarray) -> float:
    """p-value of a chi-square test that two samples of categories come from one distribution."""
    from scipy.stats import chi2_contingency

    cats = np.union1d(ours, theirs)
    table = np.array([[np.sum(ours == c) for c in cats], [np.sum(theirs == c) for c in cats]])
    return float(chi2_contingency(table)[1])


def test_taxi_initial_state_distribution() -> None:
    n = 3000
    env = envpool.make("Taxi-v4", env_type="gymnasium", num_envs=n, seed=0)
    ours = env.reset()[0]
    env.close()
    ref = gymnasium.make("Taxi-v4").unwrapped
    theirs = np.array([ref.reset(seed=s)[0] for s in range(n)])
    support = np.flatnonzero(ref.initial_state_distrib)
    assert set(np.unique(ours)) == set(support) == set(np.unique(theirs))
    assert _chi2_same(ours, theirs) > 1e-3


def test_blackjack_initial_state_distribution() -> None:
    n = 6000
    env = envpool.make("Blackjack-v1", env_type="gymnasium", num_envs=n, seed=0)
    ours = env.reset()[0]
    env.close()
    ref = gymnasium.make("Blackjack-v1").unwrapped
    theirs = np.array([ref.reset(seed=s)[0] for s in range(n)])

    def code(o):
        return o[:, 0] * 100 + o[:, 1] * 10 + o[:, 2]

    assert _chi2_same(code(ours), code(theirs)) > 1e-3


def test_frozen_lake_start_distribution() -> None:
    # Two start tiles: gymnasium's initial_state_distrib picks either, half the time each.
    n = 4000
    env = envpool.make("FrozenLake-v1", env_type="gymnasium", num_envs=n, seed=0, desc=["SFFHG", "FHFSF", "FFFFH"])
    ours = env.reset()[0]
    env.close()
    ref = gymnasium.make("FrozenLake-v1", desc=["SFFHG", "FHFSF", "FFFFH"]).unwrapped
    theirs = np.array([ref.reset(seed=s)[0] for s in range(n)])
    assert set(np.unique(ours)) == {0, 8}
    assert _chi2_same(ours, theirs) > 1e-3


def test_random_map_distribution() -> None:
    n = 3000
    env = envpool.make("FrozenLake-v1", env_type="gymnasium", num_envs=n, seed=0, map_name=None, report_draws=True)
    ours = env.reset()[1]["desc"] == ord("H")
    env.close()
    theirs = np.array([[list(r) for r in gym_frozen_lake.generate_random_map(seed=s)] for s in range(n)]) == "H"
    assert ours.shape == theirs.shape == (n, 8, 8)
    # every map is valid: gymnasium's own check
    for holes in ours[:200]:
        board = [["H" if h else "F" for h in row] for row in holes]
        board[0][0], board[-1][-1] = "S", "G"
        assert gym_frozen_lake.is_valid(board, 8)
    assert not ours[:, 0, 0].any() and not ours[:, -1, -1].any()
    # the number of holes per map, and where they are
    assert _chi2_same(ours.sum(axis=(1, 2)), theirs.sum(axis=(1, 2))) > 1e-3
    from scipy.stats import chi2_contingency

    cells = np.array([ours.reshape(n, -1).sum(0), theirs.reshape(n, -1).sum(0)])[:, 1:-1]
    assert chi2_contingency(cells)[1] > 1e-3


# -- frames -----------------------------------------------------------------------------

needs_pygame = pytest.mark.skipif(importlib.util.find_spec("pygame") is None, reason="pygame is not installed")


@needs_pygame
def test_art_is_opaque_or_transparent() -> None:
    # Our blit copies opaque pixels and skips transparent ones; gymnasium's art has no others.
    import glob

    img_dir = envpool.make_spec("Taxi-v4").config["img_dir"]
    files = glob.glob(os.path.join(img_dir, "**", "*.png"), recursive=True)
    used = [f for f in files if "elf_" not in f and "stool" not in f]  # old art no renderer loads
    assert len(used) > 90
    import pygame

    for f in used:
        alpha = pygame.surfarray.pixels_alpha(pygame.image.load(f))
        assert set(np.unique(alpha)) <= {0, 255}, f


def _grid(rows: int, cols: int, seed: int) -> list[str]:
    tiles = np.random.default_rng(seed).choice(list("FFFH"), size=(rows, cols))
    tiles[0, 0], tiles[-1, -1] = "S", "G"
    return ["".join(r) for r in tiles]


@needs_pygame
@pytest.mark.parametrize("rows, cols", [(10, 10), (9, 12), (16, 3), (3, 5)])
def test_frames_of_other_map_sizes(rows: int, cols: int) -> None:
    # Over 8 tiles a side the cells are under 64 pixels: gymnasium scales its art
    # (pygame.transform.scale) and centres sprites at fractional positions.
    run_frames("FrozenLake-v1", 30, desc=_grid(rows, cols, rows * cols))


def run_frames(task: str, steps: int, seed: int = 0, **kwargs) -> int:
    """Renders our env and gymnasium's (replayed) at every state of a random run."""
    ours = envpool.make(
        task, env_type="gymnasium", num_envs=1, seed=seed, report_draws=True, render_mode="rgb_array", **kwargs
    )
    obs, info = ours.reset()
    if task.startswith("Blackjack"):
        ref = gymnasium.make(task, render_mode="rgb_array", **kwargs).unwrapped
    else:
        ref = _reference(task, info, kwargs, render_mode="rgb_array")
    _replay(ref, info, ref.reset)
    rng = np.random.default_rng(seed)
    frames = 0
    for t in range(steps + 1):
        mine, theirs = ours.render()[0], ref.render()
        assert mine.shape == theirs.shape
        diff = np.flatnonzero(np.any(mine != theirs, axis=-1))
        assert diff.size == 0, f"{task} step {t}: {diff.size} pixels differ, first at {divmod(diff[0], mine.shape[1])}"
        frames += 1
        a = rng.integers(0, ours.single_action_space.n, size=1).astype(np.int32)
        _, _, _, _, info = ours.step(a)
        if info["elapsed_step"][0] == 0:
            _replay(ref, info, ref.reset)
        else:
            _replay(ref, info, lambda: ref.step(int(a[0])))
    ours.close()
    ref.close()
    return frames


FRAME_CASES = [
    ("FrozenLake-v1", {}),
    ("FrozenLake8x8-v1", {}),
    ("FrozenLake-v1", {"map_name": None}),
    ("CliffWalking-v1", {}),
    ("CliffWalkingSlippery-v1", {}),
    ("Taxi-v4", {}),
    ("Taxi-v4", {"is_rainy": True, "fickle_passenger": True}),
    ("Blackjack-v1", {}),
]


@needs_pygame
@pytest.mark.parametrize("task, kwargs", FRAME_CASES)
def test_frames_match_gymnasium(task: str, kwargs: dict) -> None:
    assert run_frames(task, 40, **kwargs) == 41


@needs_pygame
@pytest.mark.slow
@pytest.mark.parametrize("task, kwargs", FRAME_CASES)
def test_frames_match_gymnasium_long(task: str, kwargs: dict) -> None:
    assert run_frames(task, 500, seed=7, **kwargs) == 501


@needs_pygame
def test_taxi_heading_follows_gymnasiums_render_calls() -> None:
    # gymnasium turns the taxi when a frame is drawn after a move: frames drawn only
    # every few steps show the heading of the last move before the frame.
    ours = envpool.make("Taxi-v4", env_type="gymnasium", num_envs=1, seed=4, report_draws=True, render_mode="rgb_array")
    _, info = ours.reset()
    ref = gymnasium.make("Taxi-v4", render_mode="rgb_array").unwrapped
    _replay(ref, info, ref.reset)
    rng = np.random.default_rng(4)
    for t in range(120):
        a = rng.integers(0, 6, size=1).astype(np.int32)
        _, _, _, _, info = ours.step(a)
        if info["elapsed_step"][0] == 0:
            _replay(ref, info, ref.reset)
        else:
            _replay(ref, info, lambda: ref.step(int(a[0])))
        if t % 3 == 0:
            np.testing.assert_array_equal(ours.render()[0], ref.render())
    ours.close()


# -- EnvPool 1.2.5's own tasks ----------------------------------------------------------
# Neither is in gymnasium 1.4 (NChain left gym in 0.21; Catch is bsuite's), so these check
# their rules as gym 0.20's NChainEnv and bsuite's catch.py state them, on our draws.


def test_nchain_rules() -> None:
    env = envpool.make("NChain-v0", env_type="gymnasium", num_envs=1, seed=3, report_draws=True)
    assert env.spec.max_episode_steps == 1000
    assert env.single_observation_space == gymnasium.spaces.Discrete(5)
    obs, info = env.reset()
    state, rewards = 0, set()
    actions = np.random.default_rng(3).integers(0, 2, size=3000).astype(np.int32)
    for t, a in enumerate(actions):
        obs, rew, term, trunc, info = env.step(np.array([a]))
        if info["elapsed_step"][0] == 0:
            state = 0
        else:
            assert info["num_draws"][0] == 1
            act = 1 - a if info["draws"][0, 0] < 0.2 else a  # slip
            expect = 2.0 if act == 1 else (10.0 if state == 4 else 0.0)
            state = 0 if act == 1 else min(state + 1, 4)
            assert rew[0] == expect and not term[0], f"step {t}"
            assert trunc[0] == (info["elapsed_step"][0] >= 1000)
            rewards.add(expect)
        assert obs[0] == state
    assert rewards == {0.0, 2.0, 10.0}
    env.close()


def test_catch_rules() -> None:
    env = envpool.make("Catch-v0", env_type="gymnasium", num_envs=1, seed=3, report_draws=True)
    assert env.single_observation_space.shape == (10, 5)
    obs, info = env.reset()
    rng = np.random.default_rng(3)
    episodes, rewards = 0, []

    def board(ball, paddle):
        b = np.zeros((10, 5), np.float32)
        b[ball], b[9, paddle] = 1, 1
        return b

    ball, paddle = (0, int(info["draws"][0, 0])), 2
    np.testing.assert_array_equal(obs[0], board(ball, paddle))
    for _ in range(600):
        a = int(rng.integers(0, 3))
        obs, rew, term, trunc, info = env.step(np.array([a], np.int32))
        if info["elapsed_step"][0] == 0:
            episodes += 1
            ball, paddle = (0, int(info["draws"][0, 0])), 2
        else:
            paddle = min(max(paddle + a - 1, 0), 4)
            ball = (ball[0] + 1, ball[1])
            assert bool(term[0]) == (ball[0] == 9)
            assert rew[0] == ((1.0 if paddle == ball[1] else -1.0) if ball[0] == 9 else 0.0)
            if term[0]:
                rewards.append(rew[0])
        np.testing.assert_array_equal(obs[0], board(ball, paddle))
    assert episodes >= 50 and {-1.0, 1.0} <= set(rewards)
    env.close()


def test_render_errors_are_exceptions() -> None:
    env = envpool.make("Blackjack-v1", env_type="gymnasium", num_envs=1, render_mode="rgb_array")
    with pytest.raises(RuntimeError, match="reset"):
        env.render()  # no hand dealt yet
    env.reset()
    assert env.render().shape == (1, 376, 384, 3)
    env.close()


def test_missing_art_is_refused_at_make(tmp_path) -> None:  # noqa: ANN001
    """gymnasium before 1.4 (1.2.2, ray[rllib]'s pin) has other toy-text images: a rendering pool
    is refused at make, naming the file and the gymnasium installed; one that does not render runs."""
    import shutil

    import gymnasium

    for task in ["FrozenLake-v1", "Taxi-v4", "CliffWalking-v1", "Blackjack-v1"]:
        with pytest.raises(RuntimeError, match=f"{tmp_path}/.*png is missing \\(gymnasium {gymnasium.__version__}"):
            envpool.make(task, env_type="gymnasium", num_envs=1, render_mode="rgb_array", img_dir=str(tmp_path))
        env = envpool.make(task, env_type="gymnasium", num_envs=1, img_dir=str(tmp_path))
        env.reset()
        env.step(np.array([0], np.int32))
        env.close()
    # An image missing past those checked at make: render() raises, the pool stays usable.
    art = tmp_path / "art"
    shutil.copytree(os.path.join(os.path.dirname(gymnasium.__file__), "envs", "toy_text", "img"), art)
    for png in (art / "taxi").glob("taxi_*.png"):
        png.unlink()
    env = envpool.make("Taxi-v4", env_type="gymnasium", num_envs=1, render_mode="rgb_array", img_dir=str(art))
    env.reset()
    with pytest.raises(RuntimeError, match=f"cannot open {art}/taxi/taxi_"):
        env.render()
    env.step(np.array([0], np.int32))  # the pool stays usable
    env.close()


@pytest.mark.parametrize("task", ["NChain-v0", "Catch-v0"])
def test_tasks_that_cannot_render_say_so(task) -> None:
    # As EnvPool 1.2.5: render_mode is taken at make and render() raises a RuntimeError.
    for env_type in ["gymnasium", "gym", "dm"]:
        env = envpool.make(task, env_type=env_type, num_envs=2, render_mode="rgb_array")
        env.reset()
        with pytest.raises(RuntimeError, match=f"{task}: this task cannot render"):
            env.render()
        env.step(np.zeros(2, np.int32))  # still usable
        env.close()


def test_a_refused_pool_stops_its_threads() -> None:
    # In a fresh interpreter: in a test worker other libraries (JAX, Ray, gym) start threads
    # of their own at times of their choosing, which a thread count would blame on the pool.
    run_python(
        """
        import gc, os, pytest, envpool
        from envpool.gym_env import _gym_module
        _gym_module()  # importing gym starts threads of its own
        def threads():
            return len(os.listdir("/proc/self/task"))
        gc.collect()
        before = threads()
        with pytest.raises(ValueError, match="render_env_ids holds 5") as refusal:
            envpool.make(
                "FrozenLake-v1", env_type="gym", num_envs=2, num_threads=3, render_mode="rgb_array", render_env_ids=[5]
            )
        # The traceback keeps alive any pool the refusal made, so the GC cannot have stopped
        # its threads: none may have started (the interfaces refuse before making the pool).
        assert refusal.traceback
        assert threads() <= before, (threads(), before)
        # The interfaces' own refusals start no thread either.
        with pytest.raises(ValueError, match="gym_reset_return_info=False") as refusal_gymnasium:
            envpool.make("FrozenLake-v1", env_type="gymnasium", num_envs=2, num_threads=3, gym_reset_return_info=False)
        with pytest.raises(ValueError, match="no tuple observations") as refusal_dm:
            envpool.make("Blackjack-v1", env_type="dm", num_envs=2, num_threads=3, tuple_obs=True)
        with pytest.raises(ValueError, match="same_step") as refusal_same_step:
            envpool.make("FrozenLake-v1", env_type="dm", num_envs=2, num_threads=3, autoreset_mode="same_step")
        assert refusal_gymnasium.traceback and refusal_dm.traceback and refusal_same_step.traceback
        assert threads() <= before, (threads(), before)
        """
    )


def test_bench_knows_the_family() -> None:
    from envpool import _envpool

    for family in ["FrozenLake", "Taxi", "CliffWalking", "Blackjack", "NChain", "Catch"]:
        meta = _envpool.families()[family]
        assert meta["kind"] == "toy_text" and meta["raw_ceiling"]
        assert _envpool.raw_ceiling(family, {"map_name": ""} if family == "FrozenLake" else {}, 1, 0.02) > 0
    for task in ["Taxi-v3", "CliffWalking-v0", "FrozenLake-v1"]:
        assert envpool.registration.lookup(task).gymnasium_id in gymnasium.registry
