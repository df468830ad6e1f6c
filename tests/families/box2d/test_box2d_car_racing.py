"""CarRacing (cpp/box2d/car_racing.h) against gymnasium 1.4's own CarRacing.

Fidelity: our env runs with ``report_draws=True``, which reports every random draw of a
reset (the 24 uniforms of each track attempt, the 7 of domain_randomize's colours) in
gymnasium's call order. Before each of gymnasium's reset() calls its env gets a stand-in
for ``np_random`` (``Replay``) that hands out exactly those draws, so it builds the same
track. Both envs keep their Box2D world across episodes, as gymnasium does. Then, step
for step under the same random actions, the observations (the 96x96 frames), rewards (as the
pool's float32 holds them: gymnasium's float64 reward rounded to float32), terminated and
truncated must be bit-equal, and so must the car's state (Box2D's float32
positions and velocities, the wheels' float64 omega and phase: ``expose_state=True``).
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import envpool

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

gymnasium = pytest.importorskip("gymnasium")
pytest.importorskip("Box2D")
pytest.importorskip("pygame")


class Replay:
    """Stands in for gymnasium's ``np_random`` in CarRacing's reset: hands out our env's
    draws, in order (uniform's values, integers' index)."""

    def __init__(self, draws: np.ndarray, n: int) -> None:
        self.draws = [float(d) for d in draws[:n]]
        self.used = 0

    def _next(self) -> float:
        assert self.used < len(self.draws), "gymnasium draws more than our env did"
        v = self.draws[self.used]
        self.used += 1
        return v

    def uniform(self, low: float, high: float, size=None):
        vals = [self._next() for _ in range(1 if size is None else int(size))]
        assert all(low <= v < high for v in vals), f"uniform({low}, {high}) where our env drew {vals}"
        return vals[0] if size is None else np.array(vals)

    def integers(self, n: int) -> int:
        v = self._next()
        assert v == int(v) and 0 <= v < n, f"integers({n}) where our env drew {v}"
        return int(v)

    def check_all_used(self) -> None:
        assert self.used == len(self.draws), f"gymnasium used {self.used} of our env's {len(self.draws)} draws"


def _replay_reset(ref, info):
    rep = Replay(info["draws"][0], int(info["num_draws"][0]))
    ref._np_random = rep
    obs, _ = ref.reset()
    rep.check_all_used()
    return obs


def _check_state(ref, info, what: str) -> None:
    car = info["car"][0]
    hull = ref.car.hull
    expected = [*hull.position, hull.angle, *hull.linearVelocity, hull.angularVelocity]
    for w in ref.car.wheels:
        expected += [*w.position, w.angle, w.omega, w.phase, w.joint.angle]
    np.testing.assert_array_equal(car, np.array(expected, dtype=np.float64), err_msg=what)
    assert info["track_len"][0] == len(ref.track), what
    assert info["tiles_visited"][0] == ref.tile_visited_count, what


def _actions(rng: np.random.Generator, steps: int, continuous: bool) -> np.ndarray:
    """Random actions that drive: gas more often than brake, so the car leaves the road,
    skids and crosses tiles."""
    if not continuous:
        return rng.choice(5, size=steps, p=[0.15, 0.2, 0.2, 0.35, 0.1]).astype(np.int32)
    a = np.stack([rng.uniform(-1, 1, steps), rng.uniform(0, 1, steps), rng.uniform(0, 1, steps)], axis=1)
    a[:, 2] *= rng.random(steps) < 0.1
    return a.astype(np.float32)


_STATS: dict = {"frames_with_skids": 0}


def run_replayed(
    steps: int, seed: int = 0, render_every: int = 0, actions: np.ndarray | None = None, **kwargs
) -> tuple[int, int]:
    """Steps our env and gymnasium's with the same random actions; with render_every, also
    compares the rgb_array frames (600x400, skid marks included) every that many steps.
    Returns (episodes begun, rgb_array frames compared)."""
    render = {"render_mode": "rgb_array"} if render_every else {}
    ours = envpool.make(
        "CarRacing-v3",
        env_type="gymnasium",
        num_envs=1,
        seed=seed,
        report_draws=True,
        expose_state=True,
        **render,
        **kwargs,
    )
    ref_kwargs = {k: v for k, v in kwargs.items() if k != "max_episode_steps"}
    ref = gymnasium.make("CarRacing-v3", **render, **ref_kwargs).unwrapped
    obs, info = ours.reset()
    r_obs = _replay_reset(ref, info)
    np.testing.assert_array_equal(obs[0], r_obs, err_msg="reset frame")
    assert not info["lap_finished"][0]
    _check_state(ref, info, "reset")
    limit = ours.spec.max_episode_steps
    continuous = kwargs.get("continuous", True)
    if actions is None:
        actions = _actions(np.random.default_rng(seed), steps, continuous)
    episodes, rendered = 1, 0
    for t in range(steps):
        obs, rew, term, trunc, info = ours.step(actions[t : t + 1])
        if info["elapsed_step"][0] == 0:  # NEXT_STEP autoreset: a new episode's first observation
            episodes += 1
            r_obs = _replay_reset(ref, info)
            assert not info["lap_finished"][0], f"step {t}"
        else:
            r_obs, r_rew, r_term, r_trunc, r_info = ref.step(actions[t] if continuous else int(actions[t]))
            # The pool's rewards are float32 (every family's): gymnasium's float64 reward rounded.
            assert rew.dtype == np.float32 and rew[0] == np.float32(r_rew), f"step {t}: {rew[0]!r} != {r_rew!r}"
            assert bool(term[0]) == r_term, f"step {t}"
            # gymnasium's TimeLimit truncates at the limit even on a terminating step (both flags set)
            assert bool(trunc[0]) == (info["elapsed_step"][0] >= limit), f"step {t}"
            # gymnasium sets lap_finished only on a step that ends the episode; every row has it here
            assert bool(info["lap_finished"][0]) == r_info.get("lap_finished", False), f"step {t}"
            assert ("lap_finished" in r_info) == r_term, f"step {t}"
            _STATS["laps_finished"] = _STATS.get("laps_finished", 0) + bool(info["lap_finished"][0])
            _STATS["last_reward"], _STATS["last_terminated"] = float(rew[0]), bool(term[0])
        _check_state(ref, info, f"step {t}")
        np.testing.assert_array_equal(obs[0], r_obs, err_msg=f"step {t} frame")
        if render_every and t % render_every == 0:
            np.testing.assert_array_equal(ours.render()[0], ref.render(), err_msg=f"step {t} rgb_array")
            rendered += 1
            _STATS["frames_with_skids"] += len(ref.car.particles) > 0
    ours.close()
    ref.close()
    return episodes, rendered


@pytest.mark.parametrize("continuous", [True, False])
def test_replayed_fast(continuous: bool) -> None:
    episodes, _ = run_replayed(150, seed=int(continuous), continuous=continuous, max_episode_steps=50)
    assert episodes >= 3


def test_rgb_array_frames() -> None:
    """The 600x400 window frame on 15 states, skid marks (drawn only there) included."""
    _STATS["frames_with_skids"] = 0
    _, rendered = run_replayed(150, seed=5, render_every=10, max_episode_steps=150)
    assert rendered == 15
    assert _STATS["frames_with_skids"] >= 5


def test_lap_complete_percent_and_many_tracks() -> None:
    """lap_complete_percent=0: touching tile 0 (where the car starts) completes the lap, so
    every episode terminates on its first step: 60 tracks generated and compared."""
    _STATS["laps_finished"] = 0
    episodes, _ = run_replayed(120, seed=3, lap_complete_percent=0.0)
    assert episodes >= 60
    assert _STATS["laps_finished"] >= 59  # info["lap_finished"], as gymnasium's, on each lap's step


def test_domain_randomize() -> None:
    episodes, _ = run_replayed(150, seed=4, domain_randomize=True, max_episode_steps=50)
    assert episodes >= 3


@pytest.mark.slow
@pytest.mark.parametrize("continuous", [True, False])
def test_replayed_2000_steps(continuous: bool) -> None:
    episodes, rendered = run_replayed(
        2000, seed=10 + int(continuous), render_every=50, continuous=continuous, max_episode_steps=400
    )
    assert episodes >= 5 and rendered == 40


def test_track_distribution() -> None:
    """Our tracks come from our own generator: their length in tiles and the car's start
    angle (the first tile's heading), from fixed seeds, against gymnasium's (two-sample KS)."""
    from scipy.stats import ks_2samp

    n = 300
    env = envpool.make("CarRacing-v3", env_type="gymnasium", num_envs=n, seed=0, expose_state=True)
    info = env.reset()[1]
    env.close()
    ref = gymnasium.make("CarRacing-v3").unwrapped
    lengths, angles = [], []
    for i in range(n):
        ref.reset(seed=10_000 + i)
        lengths.append(len(ref.track))
        angles.append(ref.car.hull.angle)
    ref.close()
    assert ks_2samp(info["track_len"], lengths).pvalue > 0.001
    assert ks_2samp(info["car"][:, 2], angles).pvalue > 0.001
    # tracks 15 tiles longer, or turned by 0.1 rad, are told apart
    assert ks_2samp(info["track_len"], np.array(lengths) + 15).pvalue < 0.001
    assert ks_2samp(info["car"][:, 2], np.array(angles) + 0.1).pvalue < 0.001


def test_spaces_and_registration_match_gymnasium() -> None:
    for task in ["CarRacing-v3", "CarRacing-v2"]:
        spec = envpool.make_spec(task)
        ref = gymnasium.make("CarRacing-v3")
        assert spec.action_space == ref.action_space
        assert spec.observation_space == ref.observation_space
        assert spec.max_episode_steps == ref.spec.max_episode_steps == 1000
    spec = envpool.make_spec("CarRacing-v3", continuous=False)
    assert spec.action_space == gymnasium.make("CarRacing-v3", continuous=False).action_space


def test_bad_discrete_action_is_a_value_error() -> None:
    env = envpool.make("CarRacing-v3", env_type="gymnasium", num_envs=1, continuous=False)
    env.reset()
    with pytest.raises(ValueError, match="out of range"):
        env.step(np.array([5], dtype=np.int32))
    env.step(np.array([3], dtype=np.int32))  # the pool stays usable
    env.close()


def test_v2_truncates_a_finished_lap() -> None:
    """gymnasium < 1.0 (CarRacing-v2) truncated the episode on a finished lap; v3 terminates.
    lap_complete_percent=0 finishes the lap on the first step (the car starts on tile 0)."""
    for task, term, trunc in [("CarRacing-v3", True, False), ("CarRacing-v2", False, True)]:
        env = envpool.make(task, env_type="gymnasium", num_envs=1, lap_complete_percent=0.0)
        env.reset()
        _, _, terminated, truncated, _ = env.step(np.zeros((1, 3), np.float32))
        assert (bool(terminated[0]), bool(truncated[0])) == (term, trunc), task
        env.close()


def test_nan_gas_is_a_value_error() -> None:
    """gymnasium's env fails on NaN gas mid-step (its renderer converts the NaN car position
    to int); ours refuses it with a ValueError (the engine resets the env on its next step).
    NaN steering or braking run, as there."""
    env = envpool.make("CarRacing-v3", env_type="gymnasium", num_envs=1, seed=0)
    env.reset()
    with pytest.raises(ValueError, match="gas"):
        env.step(np.array([[0.0, np.nan, 0.0]], np.float32))
    _, _, _, _, info = env.step(np.zeros((1, 3), np.float32))
    assert info["elapsed_step"][0] == 0  # the failed env's new episode
    for _ in range(5):
        obs, rew, term, trunc, _ = env.step(np.array([[np.nan, 0.5, np.nan]], np.float32))
        assert np.isfinite(rew).all() and not term[0] and not trunc[0]
    env.close()


def test_leaving_the_playfield() -> None:
    """A little gas straight ahead leaves the playfield (|y| > 2000 / 6) at step 353: terminated
    with reward -100, as in gymnasium (that step ends the run, before the autoreset)."""
    actions = np.tile(np.array([0.0, 0.2, 0.0], np.float32), (354, 1))
    _STATS["laps_finished"] = 0
    run_replayed(354, seed=0, actions=actions)
    assert _STATS["last_reward"] == -100.0 and _STATS["last_terminated"]
    assert _STATS["laps_finished"] == 0  # leaving the playfield: lap_finished False, as gymnasium's


def test_verbose_prints_gymnasiums_track_messages(capfd) -> None:
    """verbose=True: gymnasium's "Track generation" (and "retry") lines on stdout, the same
    lines as gymnasium's env prints for the same tracks (every step a new one: lap_complete_percent=0)."""
    ours = envpool.make(
        "CarRacing-v3",
        env_type="gymnasium",
        num_envs=1,
        seed=7,
        report_draws=True,
        verbose=True,
        lap_complete_percent=0.0,
    )
    infos = [ours.reset()[1]]
    for _ in range(30):
        infos.append(ours.step(np.zeros((1, 3), np.float32))[-1])
    ours.close()
    printed = capfd.readouterr().out
    ref = gymnasium.make("CarRacing-v3", verbose=True, lap_complete_percent=0.0).unwrapped
    for info in infos:
        if info["elapsed_step"][0] == 0:
            _replay_reset(ref, info)
    ref.close()
    expected = capfd.readouterr().out
    assert printed == expected and expected.count("Track generation") >= 16
    quiet = envpool.make("CarRacing-v3", env_type="gymnasium", num_envs=1, seed=7)
    quiet.reset()
    quiet.close()
    assert capfd.readouterr().out == ""  # verbose=False (gymnasium's default) prints nothing
