"""minigrid 3.2's own envs beside our pools (the MiniGrid and BabyAI families: tests/families/minigrid,
tests/families/babyai): the same seeds and actions, compared step for step (observation image,
direction, mission text, reward, terminated, truncated, agent position and, on sampled steps, the
rendered frame), bit for bit: everything here is integers, and the reward is the same float64
expression. The pools run through any of the three interfaces (gymnasium, gym, dm), sync or async,
in either autoreset mode: ``Pool`` gives each one's results in gymnasium's form."""

from __future__ import annotations

import os
import warnings
from typing import Any

import numpy as np

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import gymnasium  # noqa: E402
import minigrid  # noqa: E402,F401  (its import registers its ids with gymnasium)

import envpool  # noqa: E402
from envpool.dm_env_pool import DmEnvPool  # noqa: E402
from envpool.gym_env import GymEnvPool  # noqa: E402
from envpool.tasks.minigrid import decode_mission  # noqa: E402

_LAST = 2  # dm_env.StepType.LAST

# (interface, async, autoreset mode): every way a pool runs (dm has no same_step form).
POOL_WAYS = [
    (env_type, asynchronous, mode)
    for env_type in ("gymnasium", "gym", "dm")
    for asynchronous in (False, True)
    for mode in ("next_step", "same_step")
    if not (env_type == "dm" and mode == "same_step")
]


def way_id(way: tuple) -> str:
    env_type, asynchronous, mode = way
    return f"{env_type}-{'async' if asynchronous else 'sync'}-{mode}"


def reference(task_id: str, **kwargs) -> gymnasium.Env:
    """minigrid's env for ``task_id`` as ``gymnasium.make`` gives it (its checkers included)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return gymnasium.make(task_id, **kwargs)


class Pool:
    """A pool of any interface, its results as gymnasium's: ``(obs, info)`` from reset, ``(obs,
    reward, terminated, truncated, info)`` from step / recv, obs a dict of arrays and info with
    ``env_id``, ``agent_pos`` and (same_step) ``final_obs``. dm has no flags: LAST with discount 0 is
    terminated, LAST with discount 1 truncated (an episode ended by both shows as terminated)."""

    def __init__(self, env: Any) -> None:
        self.env = env
        self.dm = isinstance(env, DmEnvPool)
        self.gym = isinstance(env, GymEnvPool)
        self.mode = env.config["autoreset_mode"]
        self.n = int(env.spec.action_space.n)

    def _dm(self, ts: Any) -> tuple:
        o = ts.observation
        obs = {k: getattr(o, k) for k in ("image", "direction", "mission")}
        last = np.asarray(ts.step_type) == _LAST
        discount = np.asarray(ts.discount)
        return (
            obs,
            ts.reward,
            last & (discount == 0),
            last & (discount != 0),
            {"env_id": o.env_id, "agent_pos": o.agent_pos},
        )

    def _step(self, out: Any) -> tuple:
        if self.dm:
            return self._dm(out)
        if self.gym and "final_observation" in out[4]:
            out[4]["final_obs"] = out[4]["final_observation"]
        return out

    def reset(self) -> tuple:
        out = self.env.reset()
        return self._dm(out)[::4] if self.dm else out

    def step(self, actions: np.ndarray) -> tuple:
        return self._step(self.env.step(actions))

    def recv(self) -> tuple:
        return self._step(self.env.recv())

    def send(self, actions: np.ndarray, env_id: np.ndarray) -> None:
        self.env.send(actions, env_id)

    def async_reset(self) -> None:
        self.env.async_reset()

    def render(self) -> np.ndarray:
        return self.env.render()


def check_obs(obs, i: int, ref_obs: dict, where: str) -> None:
    """Row i of a batch (a dict of arrays, or info["final_obs"]'s object array of dicts)."""
    row = obs[i] if isinstance(obs, np.ndarray) else {k: v[i] for k, v in obs.items()}
    np.testing.assert_array_equal(row["image"], ref_obs["image"], err_msg=f"image {where}")
    assert int(row["direction"]) == int(ref_obs["direction"]), f"direction {where}"
    assert decode_mission(row["mission"]) == ref_obs["mission"], f"mission {where}"


class Refs:
    """One minigrid env per pool env, reset with seed + i once, then unseeded."""

    def __init__(self, task_id: str, num_envs: int, seed: int, frames: bool, dm: bool = False, **kwargs) -> None:
        if frames:
            kwargs["render_mode"] = "rgb_array"
        self.envs = [reference(task_id, **kwargs) for _ in range(num_envs)]
        self.seed = seed
        self.dm = dm
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
        assert bool(trunc[k]) == bool(tr and not (te and self.dm)), f"truncated {where}"
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


def _pool(pool: Any) -> Pool:
    return pool if isinstance(pool, Pool) else Pool(pool)


def run_sync(
    pool,
    task_id: str,
    num_envs: int,
    seed: int,
    steps: int,
    rng: np.random.Generator,
    frames_every: int = 0,
    **kwargs,
) -> int:
    """Steps a sync pool (any interface, either autoreset mode) and minigrid's envs with the same
    random actions; returns the number of episodes that ended."""
    pool = _pool(pool)
    refs = Refs(task_id, num_envs, seed, frames_every > 0, pool.dm, **kwargs)
    obs, info = pool.reset()
    for i in range(num_envs):
        refs.check_reset(obs, info, i, i, f"env {i} reset")
    for t in range(steps):
        actions = rng.integers(0, pool.n, num_envs)
        result = pool.step(actions)
        for i in range(num_envs):
            refs.check_step(result, i, i, int(actions[i]), pool.mode, f"env {i} step {t}")
        if frames_every and t % frames_every == 0 and not refs.done[0]:
            np.testing.assert_array_equal(pool.render()[0], refs.envs[0].render(), err_msg=f"frame, step {t}")
    refs.close()
    return refs.episodes


def run_async(pool, task_id: str, num_envs: int, seed: int, rounds: int, rng: np.random.Generator, **kwargs) -> int:
    """The same through async_reset / recv / send (batch_size < num_envs): each batch's rows are
    matched to their envs by info["env_id"]."""
    pool = _pool(pool)
    refs = Refs(task_id, num_envs, seed, False, pool.dm, **kwargs)
    pool.async_reset()
    last: dict[int, int] = {}
    for t in range(rounds):
        result = pool.recv()
        ids = np.asarray(result[4]["env_id"])
        for k, i in enumerate(ids):
            i = int(i)
            if i in last:
                refs.check_step(result, k, i, last[i], pool.mode, f"env {i} round {t}")
            else:
                refs.check_reset(result[0], result[4], k, i, f"env {i} reset")
        actions = rng.integers(0, pool.n, len(ids))
        for k, i in enumerate(ids):
            last[int(i)] = int(actions[k])
        pool.send(actions, ids)
    refs.close()
    return refs.episodes


def check_pool_way(task_id: str, way: tuple, seed: int, steps: int, **kwargs) -> int:
    """One way of running a pool (``POOL_WAYS``) against minigrid: 3 envs (async: 4 on 2 threads,
    batches of 2) for ``steps`` steps (async: rounds); ``kwargs`` go to both sides (minigrid's
    keywords). Returns the number of episodes that ended."""
    env_type, asynchronous, mode = way
    rng = np.random.default_rng(seed)
    if asynchronous:
        env = envpool.make(
            task_id,
            env_type=env_type,
            num_envs=4,
            batch_size=2,
            num_threads=2,
            seed=seed,
            autoreset_mode=mode,
            **kwargs,
        )
        episodes = run_async(env, task_id, 4, seed, steps, rng, **kwargs)
    else:
        env = envpool.make(task_id, env_type=env_type, num_envs=3, seed=seed, autoreset_mode=mode, **kwargs)
        episodes = run_sync(env, task_id, 3, seed, steps, rng, **kwargs)
    env.close()
    return episodes
