"""Build the grid world (grid.cc) with envpool.cpp_extension.load and run it.

    python examples/custom_env/run_grid.py [--num-envs 16] [--steps 200]

The first run compiles grid.cc (a few seconds); later runs reuse the cached module
until grid.cc, the flags, the compiler or envpool change.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import envpool
from envpool import cpp_extension

HERE = Path(__file__).resolve().parent


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--num-envs", type=int, default=16)
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--build-directory", default=None)
    args = p.parse_args(argv)

    module = cpp_extension.load("grid", [HERE / "grid.cc"], build_directory=args.build_directory)
    print(f"{module.__file__}: families {cpp_extension.families(module)} ({'built' if module.built else 'cached'})")
    if "Grid-v0" not in envpool.list_all_envs():
        envpool.register("Grid-v0", "Grid", max_episode_steps=50, size=5)

    results = {}
    for policy in ("random", "greedy"):
        envs = envpool.make("Grid-v0", env_type="gymnasium", num_envs=args.num_envs, seed=0)
        obs, info = envs.reset()
        rng = np.random.default_rng(0)
        returns, episode = [], np.zeros(args.num_envs)
        for _ in range(args.steps):
            if policy == "random":
                action = rng.integers(0, 4, args.num_envs)
            else:  # down until the goal's row, then right
                action = np.where(obs["agent"][:, 0] < obs["goal"][:, 0], 2, 1)
            obs, reward, terminated, truncated, info = envs.step(action)
            episode += reward
            done = terminated | truncated
            returns.extend(episode[done])
            episode[done] = 0
        envs.close()
        results[policy] = float(np.mean(returns)) if returns else float("nan")
        print(f"{policy:>6} policy: {len(returns)} episodes, mean return {results[policy]:.3f}")
    return results


if __name__ == "__main__":
    main()
