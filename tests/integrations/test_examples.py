"""The examples/ scripts: fast smoke runs, plus the learning runs (slow).

The PPO scripts run in subprocesses (one torch thread each) and print a JSON
summary as their last line.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import envpool

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
needs_torch = pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="the PPO examples need torch")

# PPO CartPole learning run: the budget and the bar.
CARTPOLE_BUDGET = 200_000  # env steps per seed (8 envs x 128 steps x 195 iterations)
CARTPOLE_TARGET = 475.0  # mean of 20 consecutive episodic returns
CARTPOLE_SEEDS = (1, 2, 3)


def run_example(name: str, *args: str, timeout: float = 600) -> dict:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / name), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=EXAMPLES.parent,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _load_example(name: str):
    spec = importlib.util.spec_from_file_location(name.removesuffix(".py"), EXAMPLES / name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _atari_task() -> str | None:
    envs = envpool.list_all_envs()
    for task in ("Breakout-v5", "Pong-v5"):
        if task in envs:
            return task
    return None


# -- acme-style dm_env loop (fast) ---------------------------------------------
@pytest.mark.parametrize("batch_size", [0, 3])
def test_acme_style_loop_counts_episodes(batch_size, capsys):
    loop = _load_example("acme_style_loop.py")
    out = loop.main(["--task", "CartPole-v1", "--num-envs", "8", "--batch-size", str(batch_size), "--steps", "1500"])
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["episodes"] == out["episodes"]
    episodes = out["episode_list"]
    assert len(episodes) > 30
    for ep in episodes:
        # CartPole pays 1 per step; the engine's counter agrees with the loop's
        assert ep["return"] == ep["length"] == ep["elapsed_step"]
        assert ep["discount"] == 0.0  # terminated (random play never reaches 500)
    assert {ep["env_id"] for ep in episodes} == set(range(8))


def test_acme_style_loop_continuous_truncation():
    loop = _load_example("acme_style_loop.py")
    out = loop.main(["--task", "Pendulum-v1", "--num-envs", "4", "--steps", "1000"])
    episodes = out["episode_list"]
    assert len(episodes) == 4  # 4 envs x 200-step episodes in 1000 transitions (one reset step each)
    assert all(ep["length"] == 200 and ep["discount"] == 1.0 for ep in episodes)


# -- PPO CartPole ---------------------------------------------------------------
@needs_torch
def test_ppo_cartpole_smoke(tmp_path):
    args = ["--total-timesteps", "4096", "--num-envs", "4", "--seed", "0", "--log-every", "1"]
    has_tb = importlib.util.find_spec("tensorboard") is not None
    if has_tb:
        args += ["--logdir", str(tmp_path / "tb")]
    out = run_example("ppo_cartpole.py", *args)
    assert out["global_step"] == 4096
    assert out["episodes"] > 20
    assert np.isfinite(out["final_mean_return"])
    if has_tb:
        assert list((tmp_path / "tb").glob("events.out.tfevents.*"))


@needs_torch
@pytest.mark.slow
def test_ppo_cartpole_learns():
    """PPO reaches a mean episodic return >= 475 (20 episodes) within 200k env
    steps, for at least 2 of 3 seeds. Runs stop once they reach it."""
    results = {}
    for seed in CARTPOLE_SEEDS:
        out = run_example(
            "ppo_cartpole.py",
            "--total-timesteps", str(CARTPOLE_BUDGET),
            "--num-envs", "8",
            "--seed", str(seed),
            "--target-return", str(CARTPOLE_TARGET),
            "--log-every", "0",
        )  # fmt: skip
        results[seed] = out
        print(
            f"seed {seed}: best mean return {out['best_mean_return']} "
            f"reached at {out['reached_target_at']} steps, {out['seconds']} s; curve {out['curve']}"
        )
    reached = [s for s, out in results.items() if out["reached_target_at"] is not None]
    assert len(reached) >= 2, {s: out["best_mean_return"] for s, out in results.items()}


# -- PPO Atari ------------------------------------------------------------------
@needs_torch
@pytest.mark.slow
def test_ppo_atari_runs_end_to_end():
    task = _atari_task()
    if task is None:
        pytest.skip("no Atari task registered in this build")
    out = run_example(
        "ppo_atari.py",
        "--env-id", task,
        "--total-timesteps", "2048",
        "--num-envs", "4",
        "--num-steps", "128",
        "--update-epochs", "1",
        "--num-threads", "1",
        "--torch-threads", "1",
        "--seed", "1",
    )  # fmt: skip
    print(f"{task}: {out['episodes']} episodes, returns {out['episodic_returns']}, {out['seconds']} s")
    assert out["global_step"] == 2048
    assert out["episodes"] > 0
    assert all(np.isfinite(out["episodic_returns"]))
    assert len(out["episodic_returns"]) == len(out["episodic_lengths"])
