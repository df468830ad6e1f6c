"""minigrid 3.2's own envs beside our pools: the same seeds and actions, compared step for step."""

from __future__ import annotations

import os
import warnings

import numpy as np

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")

import gymnasium  # noqa: E402
import minigrid  # noqa: E402,F401  (registers its ids with gymnasium)

from envpool.tasks.minigrid import decode_mission  # noqa: E402



def reference(task_id: str, **kwargs) -> gymnasium.Env:
    """minigrid's env for ``task_id`` as ``gymnasium.make`` gives it (its checkers included)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return gymnasium.make(task_id, **kwargs)


def check_obs(env_obs: dict, i: int, ref_obs: dict, where: str) -> None:
    np.testing.assert_array_equal(env_obs["image"][i], ref_obs["image"], err_msg=f"image {where}")
    assert int(env_obs["direction"][i]) == int(ref_obs["direction"]), f"direction {where}"
    assert decode_mission(env_obs["mission"][i]) == ref_obs["mission"], f"mission {where}"


def run_against_reference(
    pool,
    task_id: str,
    num_envs: int,
    seed: int,
    steps: int,
    rng: np.random.Generator,
    frames_every: int = 0,
    ref_kwargs: dict | None = None,
) -> int:
    """Steps ``pool`` (gymnasium API, next_step autoreset, sync) and minigrid's envs with the
    same random actions; asserts equal observations, rewards, flags and agent positions.
    Returns the number of episodes that ended."""
    refs = [reference(task_id, **(ref_kwargs or {}), **({"render_mode": "rgb_array"} if frames_every else {}))
            for _ in range(num_envs)]
    obs, info = pool.reset()
    for i, ref in enumerate(refs):
        ref_obs, _ = ref.reset(seed=seed + i)
        check_obs(obs, i, ref_obs, f"env {i} reset")
        np.testing.assert_array_equal(info["agent_pos"][i], ref.unwrapped.agent_pos)
    n_actions = int(pool.action_space.n)
    done = np.zeros(num_envs, bool)
    episodes = 0
    for t in range(steps):
        actions = rng.integers(0, n_actions, num_envs)
        obs, rew, term, trunc, info = pool.step(actions)
        for i, ref in enumerate(refs):
            where = f"env {i} step {t}"
            if done[i]:
                ref_obs, _ = ref.reset()
                r, te, tr = 0.0, False, False
            else:
                ref_obs, r, te, tr, _ = ref.step(int(actions[i]))
            check_obs(obs, i, ref_obs, where)
            assert float(rew[i]) == np.float32(r) or float(rew[i]) == float(r), f"reward {where}: {rew[i]} != {r}"
            assert bool(term[i]) == bool(te), f"terminated {where}"
            assert bool(trunc[i]) == bool(tr), f"truncated {where}"
            np.testing.assert_array_equal(info["agent_pos"][i], ref.unwrapped.agent_pos, err_msg=where)
            if te or tr:
                episodes += 1
            done[i] = te or tr
        if frames_every and t % frames_every == 0:
            frames = pool.render()
            np.testing.assert_array_equal(frames[0], refs[0].render(), err_msg=f"frame step {t}")
    for ref in refs:
        ref.close()
    return episodes
