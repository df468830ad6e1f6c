"""The Procgen family (cpp/procgen/) against procgen 0.10.7's own engine (_procgen_reference.py).

Both sides run the same binary (the wheel's libenv.so), so everything is compared
exactly: frames bit for bit, rewards, done flags and the level seeds, step for step,
over random actions. The pool's env seeded ``s`` is the reference made with
``rand_seed = s`` (and ``num=1``). Mapping of the episode end (docs/procgen.md): the
step the library reports ``first`` on is the pool's terminated/truncated step, with
the new level's first frame; the reset that follows (next_step autoreset) shows that
frame again and does not step the library; a reset in mid-episode is procgen's forced
reset (action -1).
"""

from __future__ import annotations

import numpy as np
import pytest

import envpool

if "Procgen" not in envpool._envpool.families():
    pytest.skip("envpool was built without the Procgen family (ENVPOOL_PROCGEN=OFF)", allow_module_level=True)

from _procgen_reference import ProcgenReference  # noqa: E402

from envpool.tasks import procgen as tasks  # noqa: E402

IDS = [(tasks.task_id(g, m), g, m) for g, _, modes in tasks.GAMES for m in modes]


def test_ids_are_envpool_125s_50():
    assert len(IDS) == 50
    assert {"CoinrunEasy-v0", "StarpilotExtreme-v0", "HeistMemory-v0", "MazeExploration-v0"} <= {i for i, _, _ in IDS}
    for task_id, _, _ in IDS:
        assert task_id in envpool.list_all_envs()


def _hwc(obs: np.ndarray, channel_first: bool) -> np.ndarray:
    return np.moveaxis(obs, 0, -1) if channel_first else obs


class Checker:
    """One reference game per pool env; checks each row the pool returns."""

    def __init__(self, game: str, mode: int, seeds, channel_first: bool = True, **options) -> None:
        self.game, self.mode, self.options, self.cf = game, mode, options, channel_first
        self.refs = [ProcgenReference(1, game, int(s), mode, **options) for s in seeds]
        self.needs_reset = [False] * len(self.refs)
        self.level_steps = [0] * len(self.refs)
        self.episodes = [0] * len(self.refs)
        self.timeout = tasks.timeout(game, mode)

    def _same(self, i: int, obs, info, k: int, what: str) -> None:
        ref = self.refs[i].state()
        np.testing.assert_array_equal(_hwc(obs, self.cf), ref["obs"][0], err_msg=f"{what}: env {i} frame")
        for key in ("level_seed", "prev_level_seed", "prev_level_complete"):
            assert info[key][k] == ref[key][0], f"{what}: env {i} {key}"

    def reset_row(self, i: int, obs, info, k: int, forced: bool = False) -> None:
        if forced:  # a reset in mid-episode: procgen's forced reset
            self.refs[i].act([-1])
        self.needs_reset[i] = False
        self.level_steps[i] = 0
        self._same(i, obs, info, k, "reset")

    def step_row(self, i: int, action: int, obs, rew, term, trunc, info, k: int) -> None:
        if self.needs_reset[i]:  # next_step autoreset: the frame the done step showed
            assert rew[k] == 0 and not term[k] and not trunc[k]
            self.reset_row(i, obs, info, k)
            return
        level = self.refs[i].level_seed[0]
        self.refs[i].act([action])
        ref = self.refs[i].state()
        self.level_steps[i] += 1
        if not ref["first"][0] and ref["level_seed"][0] != level:
            self.level_steps[i] = 0  # use_sequential_levels: the next level, same episode
        assert rew[k] == ref["reward"][0], f"env {i} reward"
        assert bool(term[k] or trunc[k]) == ref["first"][0], f"env {i} done"
        assert not (term[k] and trunc[k])
        if trunc[k]:
            assert self.level_steps[i] == self.timeout
        self._same(i, obs, info, k, "step")
        if ref["first"][0]:
            self.needs_reset[i] = True
            self.episodes[i] += 1


def _run_sync(task_id, game, mode, steps, seed=0, num_envs=2, reset_every=0, **options):
    env = envpool.make(task_id, env_type="gymnasium", num_envs=num_envs, seed=seed, **options)
    cf = options.get("channel_first", True)
    ref_opts = {k: v for k, v in options.items() if k != "channel_first"}
    check = Checker(game, mode, [seed + i for i in range(num_envs)], cf, **ref_opts)
    rng = np.random.default_rng(seed)
    obs, info = env.reset()
    for i in range(num_envs):
        check.reset_row(i, obs[i], info, i)
    for t in range(steps):
        if reset_every and t and t % reset_every == 0:
            forced = [not check.needs_reset[i] for i in range(num_envs)]
            obs, info = env.reset()
            for i in range(num_envs):
                check.reset_row(i, obs[i], info, i, forced=forced[i])
            continue
        act = rng.integers(0, 15, num_envs).astype(np.int32)
        obs, rew, term, trunc, info = env.step(act)
        for i in range(num_envs):
            check.step_row(i, int(act[i]), obs[i], rew, term, trunc, info, i)
    env.close()
    return check


@pytest.mark.parametrize(("task_id", "game", "mode"), IDS, ids=[i for i, _, _ in IDS])
def test_every_id_equals_procgen(task_id, game, mode):
    """Random actions with a reset in mid-episode every 40 steps: several levels each."""
    _run_sync(task_id, game, mode, steps=120, seed=7, reset_every=40)


@pytest.mark.slow
@pytest.mark.parametrize(("task_id", "game", "mode"), IDS, ids=[i for i, _, _ in IDS])
def test_every_id_equals_procgen_over_whole_episodes(task_id, game, mode):
    """Random actions until each env has ended 3 episodes on its own (or 6000 steps)."""
    num_envs = 2
    env = envpool.make(task_id, env_type="gymnasium", num_envs=num_envs, seed=11)
    check = Checker(game, mode, [11, 12])
    rng = np.random.default_rng(3)
    obs, info = env.reset()
    for i in range(num_envs):
        check.reset_row(i, obs[i], info, i)
    for _ in range(6000):
        if min(check.episodes) >= 3:
            break
        act = rng.integers(0, 15, num_envs).astype(np.int32)
        obs, rew, term, trunc, info = env.step(act)
        for i in range(num_envs):
            check.step_row(i, int(act[i]), obs[i], rew, term, trunc, info, i)
    assert min(check.episodes) >= 1
    env.close()


@pytest.mark.parametrize("task_id", ["BigfishEasy-v0", "MazeEasy-v0", "LeaperHard-v0"])
def test_async_pool_equals_procgen(task_id):
    """batch_size < num_envs: each env's stream, in whatever order envs finish."""
    game, mode = next((g, m) for i, g, m in IDS if i == task_id)
    num_envs, batch = 4, 2
    env = envpool.make(task_id, env_type="gymnasium", num_envs=num_envs, batch_size=batch, seed=3, num_threads=2)
    check = Checker(game, mode, [3 + i for i in range(num_envs)])
    rng = np.random.default_rng(0)
    env.async_reset()
    pending: dict[int, int] = {}
    for _ in range(1200):  # about 600 steps each: past Maze's and Leaper's 500-step timeout
        obs, rew, term, trunc, info = env.recv()
        ids = info["env_id"]
        act = rng.integers(0, 15, len(ids)).astype(np.int32)
        for k, i in enumerate(ids):
            if i not in pending:
                check.reset_row(i, obs[k], info, k)
            else:
                check.step_row(i, pending[i], obs[k], rew, term, trunc, info, k)
            pending[i] = int(act[k])
        env.send(act, ids)
    env.close()
    assert sum(check.episodes) >= 1


# Options reach the game: each run equals the reference made with the same option, and
# (where the option shows in the frames) differs from the default's frames.
OPTION_CASES = [
    ("CoinrunHard-v0", {"use_monochrome_assets": True}, True),
    ("CoinrunHard-v0", {"use_backgrounds": False}, True),
    ("StarpilotHard-v0", {"use_generated_assets": True}, True),
    ("ClimberHard-v0", {"restrict_themes": True}, False),
    ("NinjaHard-v0", {"paint_vel_info": True}, True),
    ("CaveflyerHard-v0", {"center_agent": False}, True),
    ("CoinrunHard-v0", {"use_easy_jump": True}, False),
    ("JumperHard-v0", {"num_levels": 3, "start_level": 100}, True),
    ("MazeEasy-v0", {"use_sequential_levels": True, "num_levels": 1, "start_level": 5}, True),
    ("CoinrunEasy-v0", {"channel_first": False}, False),
]


@pytest.mark.parametrize(("task_id", "options", "visible"), OPTION_CASES, ids=[f"{t}-{o}" for t, o, _ in OPTION_CASES])
def test_options_reach_the_game(task_id, options, visible):
    game, mode = next((g, m) for i, g, m in IDS if i == task_id)
    ours = envpool.make(task_id, env_type="gymnasium", num_envs=1, seed=5, **options)
    default = envpool.make(task_id, env_type="gymnasium", num_envs=1, seed=5)
    obs, info = ours.reset()
    if options.get("channel_first") is False:
        assert obs.shape == (1, 64, 64, 3) and ours.observation_space.shape == (64, 64, 3)
    else:
        assert obs.shape == (1, 3, 64, 64) and ours.observation_space.shape == (3, 64, 64)
    if visible:
        assert not np.array_equal(
            _hwc(obs[0], options.get("channel_first", True)), np.moveaxis(default.reset()[0][0], 0, -1)
        )
    ours.close()
    default.close()
    check = _run_sync(task_id, game, mode, steps=120, seed=5, num_envs=1, reset_every=40, **options)
    if "num_levels" in options:
        seeds = {int(r.level_seed[0]) for r in check.refs}
        lo = options["start_level"]
        assert all(lo <= s < lo + options["num_levels"] for s in seeds)


def test_num_levels_sequence():
    """num_levels/start_level bound the level seeds drawn by successive resets."""
    env = envpool.make("CoinrunHard-v0", env_type="gymnasium", num_envs=2, seed=1, num_levels=4, start_level=1000)
    seen = set()
    obs, info = env.reset()
    for _ in range(12):
        seen.update(int(s) for s in info["level_seed"])
        obs, info = env.reset()
    assert seen <= set(range(1000, 1004)) and len(seen) > 1


def test_same_step_autoreset():
    """same_step: the done step returns the new level's first frame as obs and as
    final_obs (procgen's engine draws no terminal frame); levels follow procgen's
    sequence without a skipped or repeated level."""
    env = envpool.make("BigfishEasy-v0", env_type="gymnasium", num_envs=1, seed=2, autoreset_mode="same_step")
    ref = ProcgenReference(1, "bigfish", 2, 0)
    rng = np.random.default_rng(1)
    obs, info = env.reset()
    np.testing.assert_array_equal(np.moveaxis(obs[0], 0, -1), ref.obs[0])
    dones = 0
    for _ in range(1500):
        a = rng.integers(0, 15, 1).astype(np.int32)
        obs, rew, term, trunc, info = env.step(a)
        ref.act(a)
        np.testing.assert_array_equal(np.moveaxis(obs[0], 0, -1), ref.obs[0])
        assert rew[0] == ref.rew[0] and bool(term[0] or trunc[0]) == bool(ref.first[0])
        assert info["level_seed"][0] == ref.level_seed[0]
        if term[0] or trunc[0]:
            dones += 1
            np.testing.assert_array_equal(info["final_obs"][0], obs[0])
            assert info["final_info"]["prev_level_seed"][0] == ref.prev_level_seed[0]
    assert dones >= 2
    env.close()


def test_reseed_makes_procgens_game_for_that_seed():
    env = envpool.make("StarpilotEasy-v0", env_type="gymnasium", num_envs=2, seed=0)
    env.reset()
    for _ in range(10):
        env.step(np.zeros(2, np.int32))
    obs, info = env.reset(seed=[123, 2**32 + 7])
    for k, s in enumerate([123, 7]):
        ref = ProcgenReference(1, "starpilot", s, 0)
        np.testing.assert_array_equal(np.moveaxis(obs[k], 0, -1), ref.obs[0])
        assert info["level_seed"][k] == ref.level_seed[0]
    env.close()


def test_render_is_procgens_512_frame():
    env = envpool.make("CoinrunEasy-v0", env_type="gymnasium", num_envs=2, seed=4, render_mode="rgb_array")
    ref = ProcgenReference(1, "coinrun", 5, 0, render_human=True)
    # before the first reset: the first level's frame, and the reset then starts that level
    np.testing.assert_array_equal(env.render(env_ids=[1])[0], ref.frame[0])
    _, info = env.reset()
    assert info["level_seed"][1] == ref.level_seed[0]
    rng = np.random.default_rng(0)
    for _ in range(20):
        a = rng.integers(0, 15, 2).astype(np.int32)
        env.step(a)
        ref.act(a[1:])
    frames = env.render(env_ids=[1])
    assert frames.shape[-3:] == (512, 512, 3)
    np.testing.assert_array_equal(frames[0], ref.frame[0])
    env.close()


def test_action_out_of_range_is_refused():
    env = envpool.make("CoinrunEasy-v0", env_type="gymnasium", num_envs=1)
    env.reset()
    with pytest.raises((ValueError, IndexError)):
        env.step(np.array([15], np.int32))
    env.step(np.array([3], np.int32))  # the pool stays usable
    env.close()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"num_levels": -1}, "num_levels"),
        ({"start_level": -1}, "start_level"),
        ({"num_levels": 2**31 - 1, "start_level": 1}, r"start_level \+ num_levels"),
        ({"distribution_mode": 2}, "no distribution_mode 2"),
        ({"distribution_mode": 7}, "no distribution_mode 7"),
        ({"distribution_mode": "bogus"}, "distribution_mode"),
        ({"env_name": "sokoban"}, "not one of procgen's games"),
    ],
)
def test_bad_options_are_valueerror_at_make(options, message):
    with pytest.raises(ValueError, match=message):
        envpool.make("CoinrunHard-v0", env_type="gymnasium", num_envs=2, **options)


def test_exploration_sets_its_own_levels():
    with pytest.raises(ValueError, match="exploration mode"):
        envpool.make("CoinrunExploration-v0", env_type="gymnasium", num_envs=1, num_levels=5)
    env = envpool.make("CoinrunExploration-v0", env_type="gymnasium", num_envs=2, seed=9)
    _, info = env.reset()
    assert list(info["level_seed"]) == [1949448038, 1949448038]
    env.close()


def test_unknown_option_is_refused():
    with pytest.raises(TypeError, match="unknown config key"):
        envpool.make("CoinrunHard-v0", env_type="gymnasium", num_envs=1, bogus=1)


def test_missing_or_foreign_library_is_a_clear_error_at_make(tmp_path):
    with pytest.raises(RuntimeError, match="version.txt is missing.*ENVPOOL_PROCGEN"):
        envpool.make("CoinrunHard-v0", env_type="gymnasium", num_envs=1, library_dir=str(tmp_path / "none"))
    other = tmp_path / "other"
    other.mkdir()
    (other / "version.txt").write_text("0.10.4\n")
    with pytest.raises(RuntimeError, match="procgen 0.10.4's engine, not 0.10.7's"):
        envpool.make("CoinrunHard-v0", env_type="gymnasium", num_envs=1, library_dir=str(other))
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "version.txt").write_text("0.10.7\n")
    (broken / "assets").symlink_to(tasks.LIBRARY_DIR + "/assets")
    (broken / "libenv.so").write_bytes(b"not a library")
    with pytest.raises(RuntimeError, match="cannot load .*libenv.so"):
        envpool.make("CoinrunHard-v0", env_type="gymnasium", num_envs=1, library_dir=str(broken))


def test_envpool_125_module_path_imports():
    """EnvPool 1.2's envpool.procgen.registration imports (registering nothing: import envpool
    has registered the ids)."""
    import envpool.procgen.registration as reg

    assert "registers every task" in reg.__doc__


def test_sequential_levels_go_on_without_an_episode_end():
    """use_sequential_levels=True: completing a level starts level seed + 997 in the same
    episode (procgen's rule), step for step as the reference; no engine time limit cuts
    the episode (max_episode_steps 0 unless given)."""
    env = envpool.make("MazeEasy-v0", env_type="gymnasium", num_envs=2, seed=0, use_sequential_levels=True)
    assert env.config["max_episode_steps"] == 0
    check = Checker("maze", 0, [0, 1], use_sequential_levels=True)
    rng = np.random.default_rng(0)
    obs, info = env.reset()
    for i in range(2):
        check.reset_row(i, obs[i], info, i)
    carried_on = 0
    for _ in range(1500):
        before = info["level_seed"].copy()
        act = rng.integers(0, 15, 2).astype(np.int32)
        obs, rew, term, trunc, info = env.step(act)
        for i in range(2):
            check.step_row(i, int(act[i]), obs[i], rew, term, trunc, info, i)
            if not (term[i] or trunc[i]) and info["level_seed"][i] != before[i] and not check.needs_reset[i]:
                assert info["level_seed"][i] == np.int32(before[i] + 997) and info["prev_level_complete"][i] == 1
                carried_on += 1
    assert carried_on >= 1
    env.close()
