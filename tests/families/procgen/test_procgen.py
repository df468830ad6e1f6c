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

from envpool.tasks import procgen as tasks  # noqa: E402

from _procgen_reference import ProcgenReference  # noqa: E402

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
        self.refs[i].act([action])
        ref = self.refs[i].state()
        self.level_steps[i] += 1
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
    """Random actions with a reset in mid-episode every 60 steps: several levels each."""
    _run_sync(task_id, game, mode, steps=180, seed=7, reset_every=60)


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
    for _ in range(400):
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
