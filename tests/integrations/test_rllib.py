"""RLlib: ``config.environment("envpool/<task>")`` reaches envpool pools in RLlib's env
runners (Ray Tune's registry), and PPO learns CartPole on them (slow)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="needs RLlib (pip install 'envpool[rllib]')")

import envpool  # noqa: E402
from envpool.gymnasium_env import GymnasiumEnvPool  # noqa: E402
from envpool.integrations.gymnasium_single import GymnasiumSingleEnv  # noqa: E402
from envpool.integrations.rllib import env_creator  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _run(code: str) -> str:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout


@pytest.mark.parametrize("order", ["envpool first", "ray first", "envpool, a find_spec, then ray"])
def test_tasks_reach_tunes_registry_in_either_import_order(order):
    imports = ["import envpool", "from ray.tune.registry import _global_registry, ENV_CREATOR"]
    if order == "ray first":
        imports.reverse()
    elif order.startswith("envpool, a find_spec"):  # looking the module up without loading it keeps the hook
        imports.insert(1, "import importlib.util; assert importlib.util.find_spec('ray.tune.registry')")
    code = "\n".join(
        [
            *imports,
            "import functools",
            "creator = _global_registry.get(ENV_CREATOR, 'envpool/Pong-v5')",
            "assert isinstance(creator, functools.partial) and creator.args == ('Pong-v5',), creator",
            "assert _global_registry.contains(ENV_CREATOR, 'envpool/CartPole-v1')",
            "n = sum(1 for c, k in _global_registry._to_flush if k.startswith('envpool/'))",
            "assert n == len(envpool.list_all_envs()), n",
            # a task registered later joins it too
            "envpool.register('MyCartPole-v0', 'CartPole')",
            "assert _global_registry.get(ENV_CREATOR, 'envpool/MyCartPole-v0').args == ('MyCartPole-v0',)",
            "print('ok')",
        ]
    )
    assert _run(code).strip() == "ok"


def test_env_creator_builds_what_rllib_asks_for():
    from ray.rllib.env.env_context import EnvContext

    # RLlib's vector entry point: env_config | {"num_envs": n} (a plain dict)
    ctx = EnvContext({"episodic_life": True}, worker_index=2, num_workers=2)
    envs = env_creator("Pong-v5", ctx | {"num_envs": 4})
    other = env_creator("Pong-v5", ctx | {"num_envs": 4})
    assert isinstance(envs, GymnasiumEnvPool) and envs.num_envs == 4
    assert envs.config["episodic_life"] is True
    assert envs.observation_space.shape == (4, 4, 84, 84)  # gymnasium's batched spaces
    assert envs.metadata["autoreset_mode"].name == "NEXT_STEP"  # what RLlib's env runner steps
    # unseeded, as a gymnasium env: two runners' pools do not replay the same episodes
    assert envs.config["seed"] != other.config["seed"]
    envs.close()
    other.close()
    envs = env_creator("CartPole-v1", {"seed": 5, "num_envs": 2})
    assert envs.config["seed"] == 5  # an explicit seed wins
    envs.close()
    # RLlib's single-env entry point (gym_env_vectorize_mode="sync" / "async")
    env = env_creator("CartPole-v1", EnvContext({"max_episode_steps": 9}, worker_index=1))
    assert isinstance(env, GymnasiumSingleEnv) and env.pool.config["max_episode_steps"] == 9
    env.close()


def _random_mean_return(episodes: int = 200) -> float:
    envs = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=8, seed=0)
    envs.reset()
    rng = np.random.default_rng(0)
    ret, done_returns = np.zeros(8), []
    while len(done_returns) < episodes:
        _, reward, terminated, truncated, info = envs.step(rng.integers(0, 2, size=8))
        live = info["elapsed_step"] > 0  # next-step autoreset: reset steps belong to no episode
        ret[live] += reward[live]
        for i in np.flatnonzero(terminated | truncated):
            done_returns.append(ret[i])
            ret[i] = 0
    return float(np.mean(done_returns))


@pytest.mark.slow
@pytest.mark.xdist_group("ray")  # one Ray at a time under pytest-xdist
def test_ppo_learns_cartpole_on_envpool_pools():
    random_return = _random_mean_return()
    assert 15 < random_return < 30
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "RAY_DEDUP_LOGS": "0"}
    proc = subprocess.run(
        [
            sys.executable,
            str(EXAMPLES / "rllib_ppo.py"),
            "--iterations",
            "15",
            "--stop-return",
            "150",
            "--num-cpus",
            "3",
            "--seed",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=1200,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert summary["env_classes"] == ["GymnasiumEnvPool"]  # every remote env runner steps an envpool pool
    returns = summary["returns"]
    assert returns[0] < 2 * random_return
    # clearly above random within at most 15 x 2000 env steps
    assert max(returns) >= 4 * random_return, returns
