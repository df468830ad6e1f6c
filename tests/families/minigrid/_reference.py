"""minigrid 3.2's own envs beside our pools: the same seeds and actions, compared step for step
(observation image, direction, mission text, reward, terminated, truncated, agent position and,
on sampled steps, the rendered frame), bit for bit: everything here is integers, and the reward
is the same float64 expression."""

from __future__ import annotations

import os
import warnings

import numpy as np

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import gymnasium  # noqa: E402
import minigrid  # noqa: E402,F401  (its import registers its ids with gymnasium)

from envpool.tasks.minigrid import decode_mission  # noqa: E402


def reference(task_id: str, **kwargs) -> gymnasium.Env:
    """minigrid's env for ``task_id`` as ``gymnasium.make`` gives it (its checkers included)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return gymnasium.make(task_id, **kwargs)


def check_obs(obs, i: int, ref_obs: dict, where: str) -> None:
    """Row i of a batch (a dict of arrays, or info["final_obs"]'s object array of dicts)."""
    row = obs[i] if isinstance(obs, np.ndarray) else {k: v[i] for k, v in obs.items()}
    np.testing.assert_array_equal(row["image"], ref_obs["image"], err_msg=f"image {where}")
    assert int(row["direction"]) == int(ref_obs["direction"]), f"direction {where}"
    assert decode_mission(row["mission"]) == ref_obs["mission"], f"mission {where}"


class Refs:
    """One minigrid env per pool env, reset with seed + i once, then unseeded."""

    def __init__(self, task_id: str, num_envs: int, seed: int, frames: bool, **kwargs) -> None:
        if frames:
            kwargs["render_mode"] = "rgb_array"
        self.envs = [reference(task_id, **kwargs) for _ in range(num_envs)]
        self.seed = seed
        self.started = [False] * num_envs
        self.done = [False] * num_envs
        self.episodes = 0

    def reset(self, i: int) -> dict:
        if self.started[i]:
            obs, _ = self.envs[i].reset()
        else:
            obs, _ = self.envs[i].reset(seed=self.seed + i)
            self.started[i] = True
        self.done[i] = False
        return obs

    def check_reset(self, obs: dict, info: dict, k: int, i: int, where: str) -> None:
        check_obs(obs, k, self.reset(i), where)
        np.testing.assert_array_equal(info["agent_pos"][k], self.envs[i].unwrapped.agent_pos, err_msg=where)

    def check_step(self, result: tuple, k: int, i: int, action: int, mode: str, where: str) -> None:
        """Row k of a step result against env i stepped with action (next_step: reset if done)."""
        obs, rew, term, trunc, info = result
        if self.done[i] and mode == "next_step":
            self.check_reset(obs, info, k, i, where)
            assert float(rew[k]) == 0.0 and not term[k] and not trunc[k], where
            return
        ref_obs, r, te, tr, _ = self.envs[i].step(action)
        assert float(rew[k]) == float(np.asarray(r, rew.dtype)), f"reward {where}: {rew[k]} != {r}"
        assert bool(term[k]) == bool(te), f"terminated {where}"
        assert bool(trunc[k]) == bool(tr), f"truncated {where}"
        self.done[i] = bool(te or tr)
        self.episodes += int(self.done[i])
        if self.done[i] and mode == "same_step":
            check_obs(info["final_obs"], k, ref_obs, f"final_obs {where}")
            self.check_reset(obs, info, k, i, f"{where} (next episode)")
            return
        check_obs(obs, k, ref_obs, where)
        np.testing.assert_array_equal(info["agent_pos"][k], self.envs[i].unwrapped.agent_pos, err_msg=where)

    def close(self) -> None:
        for env in self.envs:
            env.close()


def run_sync(
    pool,
    task_id: str,
    num_envs: int,
    seed: int,
    steps: int,
    rng: np.random.Generator,
    mode: str = "next_step",
    frames_every: int = 0,
    **kwargs,
) -> int:
    """Steps a sync gymnasium pool and minigrid's envs with the same random actions; returns the
    number of episodes that ended."""
    refs = Refs(task_id, num_envs, seed, frames_every > 0, **kwargs)
    obs, info = pool.reset()
    for i in range(num_envs):
        refs.check_reset(obs, info, i, i, f"env {i} reset")
    n = int(pool.action_space.n)
    for t in range(steps):
        actions = rng.integers(0, n, num_envs)
        result = pool.step(actions)
        for i in range(num_envs):
            refs.check_step(result, i, i, int(actions[i]), mode, f"env {i} step {t}")
        if frames_every and t % frames_every == 0 and not refs.done[0]:
            np.testing.assert_array_equal(pool.render()[0], refs.envs[0].render(), err_msg=f"frame, step {t}")
    refs.close()
    return refs.episodes


def run_async(pool, task_id: str, num_envs: int, seed: int, rounds: int, rng: np.random.Generator, **kwargs) -> int:
    """The same through async_reset / recv / send (batch_size < num_envs): each batch's rows are
    matched to their envs by info["env_id"]."""
    refs = Refs(task_id, num_envs, seed, False, **kwargs)
    pool.async_reset()
    n = int(pool.action_space.n)
    last: dict[int, int] = {}
    for t in range(rounds):
        result = pool.recv()
        ids = result[4]["env_id"]
        for k, i in enumerate(ids):
            i = int(i)
            if i in last:
                refs.check_step(result, k, i, last[i], "next_step", f"env {i} round {t}")
            else:
                refs.check_reset(result[0], result[4], k, i, f"env {i} reset")
        actions = rng.integers(0, n, len(ids))
        for k, i in enumerate(ids):
            last[int(i)] = int(actions[k])
        pool.send(actions, ids)
    refs.close()
    return refs.episodes
