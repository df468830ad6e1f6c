#!/usr/bin/env python
"""MuJoCo model randomization: steps/s of a pool with ``model_randomization`` on three
fields against the same pool without it, and the memory each randomized env costs.

Both pools of a task (8 envs, 2 threads, sync, episodes of the task's default length,
random actions) run in this one process, alternating in interleaved rounds; the ratio is
taken within each round and the median reported. The randomization (drawn at every
reset, in the engine) is

    body_mass ("scale", 0.8, 1.2), geom_friction ("scale", 0.7, 1.3), opt.gravity ("add", -0.5, 0.5)

Memory: a randomized env holds its own copy of the compiled model (copy on write: a pool
that never randomizes shares one); ``get_model("envpool.model_copy_bytes")`` is that
copy's size, compared with ``mujoco.mj_sizeModel`` of the task's model.

    python benchmarks/mujoco_randomization.py
    python benchmarks/mujoco_randomization.py --tasks Ant-v5 --seconds 5 --rounds 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

import envpool

RULE = {
    "body_mass": ("scale", 0.8, 1.2),
    "geom_friction": ("scale", 0.7, 1.3),
    "opt.gravity": ("add", -0.5, 0.5),
}


def _make(task: str, num_envs: int, threads: int, randomized: bool):
    extra = {"model_randomization": RULE} if randomized else {}
    return envpool.make(task, env_type="gymnasium", num_envs=num_envs, num_threads=threads, seed=0, **extra)


def _run(env, actions: np.ndarray, seconds: float) -> float:
    """Steps/s (env steps) over `seconds` of stepping."""
    n = 0
    start = time.perf_counter()
    while True:
        for a in actions:
            env.step(a)
        n += len(actions)
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return n * len(actions[0]) / elapsed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tasks", nargs="+", default=["HalfCheetah-v5", "Ant-v5"])
    ap.add_argument("--num-envs", type=int, default=8)
    ap.add_argument("--num-threads", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    import mujoco

    results = {}
    for task in args.tasks:
        pools = {r: _make(task, args.num_envs, args.num_threads, r) for r in (False, True)}
        for env in pools.values():
            env.reset()
        space = pools[False].single_action_space
        rng = np.random.default_rng(0)
        actions = rng.uniform(space.low, space.high, size=(64, args.num_envs, *space.shape)).astype(np.float32)
        for env in pools.values():
            _run(env, actions, 0.5)  # warm-up
        ratios, speeds = [], {False: [], True: []}
        for _ in range(args.rounds):
            plain = _run(pools[False], actions, args.seconds)
            randomized = _run(pools[True], actions, args.seconds)
            speeds[False].append(plain)
            speeds[True].append(randomized)
            ratios.append(randomized / plain)
        copies = pools[True].get_model("envpool.model_copy_bytes")
        shared = pools[False].get_model("envpool.model_copy_bytes")
        xml = os.path.join(pools[False].config["assets_dir"], pools[False].config["xml_file"])
        model_bytes = int(mujoco.mj_sizeModel(mujoco.MjModel.from_xml_path(xml)))
        results[task] = {
            "steps_per_s": statistics.median(speeds[False]),
            "steps_per_s_randomized": statistics.median(speeds[True]),
            "ratio": statistics.median(ratios),
            "ratios": ratios,
            "copy_bytes_per_randomized_env": int(copies.max()),
            "copy_bytes_per_plain_env": int(shared.max()),
            "mj_sizeModel": model_bytes,
        }
        r = results[task]
        print(
            f"{task}: {r['steps_per_s']:.0f} -> {r['steps_per_s_randomized']:.0f} steps/s randomized, "
            f"ratio {r['ratio']:.3f} (rounds: {', '.join(f'{x:.3f}' for x in ratios)}); "
            f"memory per randomized env {r['copy_bytes_per_randomized_env']} B "
            f"(mj_sizeModel {model_bytes} B), per plain env {r['copy_bytes_per_plain_env']} B"
        )
        for env in pools.values():
            env.close()
    print(f"load: {os.getloadavg()}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
