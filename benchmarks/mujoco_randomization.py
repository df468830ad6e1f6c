#!/usr/bin/env python
"""MuJoCo model randomization: steps/s of a pool with ``model_randomization`` on three
fields against the same pool without it, and the memory each randomized env costs.

Both pools of a task (8 envs, 2 threads, sync, episodes of the task's default length,
random actions) run in this one process, alternating in interleaved rounds; the ratio is
taken within each round and the median reported, of steps per second and of steps per
CPU-second (the pool's threads: steadier on a loaded machine). The randomization (drawn at every
reset, in the engine) is

    body_mass ("scale", 0.8, 1.2), geom_friction ("scale", 0.7, 1.3), opt.gravity ("add", -0.5, 0.5)

The throughput ratio is noisy on a busy machine; the CPU time one env's reset and step take
on one thread, with and without the randomization, measures what it adds directly.

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


def _run(env, actions: np.ndarray, seconds: float) -> tuple[float, float]:
    """Env steps per second and per CPU-second (this process's threads: the pool's) over
    `seconds` of stepping. On a loaded machine the CPU-time figure is the steadier one."""
    n = 0
    start, cpu = time.perf_counter(), time.process_time()
    while True:
        for a in actions:
            env.step(a)
        n += len(actions)
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            steps = n * len(actions[0])
            return steps / elapsed, steps / (time.process_time() - cpu)


def _cpu_per_call(call, n: int) -> float:
    start = time.process_time()
    for _ in range(n):
        call()
    return (time.process_time() - start) / n


def _reset_cost(task: str, rounds: int, n: int = 300) -> dict:
    """CPU time of a reset and of a step of one env on one thread, with and without the
    randomization (interleaved rounds, medians): what the randomization adds, per reset and
    as a share of an episode of 1000 steps. Steadier than throughput on a loaded machine."""
    envs = {r: _make(task, 1, 1, r) for r in (False, True)}
    shape = (1, *envs[False].single_action_space.shape)
    action = np.zeros(shape, np.float32)
    reset, step = {False: [], True: []}, {False: [], True: []}
    for _ in range(rounds):
        for r, env in envs.items():
            reset[r].append(_cpu_per_call(env.reset, n))
            env.reset()
            step[r].append(_cpu_per_call(lambda env=env: env.step(action), n))
    for env in envs.values():
        env.close()
    m = {k: {r: statistics.median(v[r]) for r in v} for k, v in (("reset", reset), ("step", step))}
    extra = m["reset"][True] - m["reset"][False]
    return {
        "reset_us": m["reset"][False] * 1e6,
        "reset_us_randomized": m["reset"][True] * 1e6,
        "step_us": m["step"][False] * 1e6,
        "step_us_randomized": m["step"][True] * 1e6,
        "extra_share_of_1000_step_episode": extra / (1000 * m["step"][False]),
    }


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
        ratios, cpu_ratios, speeds = [], [], {False: [], True: []}
        for _ in range(args.rounds):
            plain, plain_cpu = _run(pools[False], actions, args.seconds)
            randomized, randomized_cpu = _run(pools[True], actions, args.seconds)
            speeds[False].append(plain)
            speeds[True].append(randomized)
            ratios.append(randomized / plain)
            cpu_ratios.append(randomized_cpu / plain_cpu)
        copies = pools[True].get_model("envpool.model_copy_bytes")
        shared = pools[False].get_model("envpool.model_copy_bytes")
        xml = os.path.join(pools[False].config["assets_dir"], pools[False].config["xml_file"])
        model_bytes = int(mujoco.mj_sizeModel(mujoco.MjModel.from_xml_path(xml)))
        results[task] = {
            "steps_per_s": statistics.median(speeds[False]),
            "steps_per_s_randomized": statistics.median(speeds[True]),
            "ratio": statistics.median(ratios),
            "ratios": ratios,
            "cpu_ratio": statistics.median(cpu_ratios),
            "cpu_ratios": cpu_ratios,
            "copy_bytes_per_randomized_env": int(copies.max()),
            "copy_bytes_per_plain_env": int(shared.max()),
            "mj_sizeModel": model_bytes,
        }
        r = results[task]
        print(
            f"{task}: {r['steps_per_s']:.0f} -> {r['steps_per_s_randomized']:.0f} steps/s randomized, "
            f"ratio {r['ratio']:.3f} (rounds: {', '.join(f'{x:.3f}' for x in ratios)}), "
            f"per CPU-second {r['cpu_ratio']:.3f} (rounds: {', '.join(f'{x:.3f}' for x in cpu_ratios)}); "
            f"memory per randomized env {r['copy_bytes_per_randomized_env']} B "
            f"(mj_sizeModel {model_bytes} B), per plain env {r['copy_bytes_per_plain_env']} B"
        )
        for env in pools.values():
            env.close()
        cost = _reset_cost(task, args.rounds)
        results[task].update(cost)
        print(
            f"  CPU per reset {cost['reset_us']:.1f} -> {cost['reset_us_randomized']:.1f} us randomized, per step "
            f"{cost['step_us']:.1f} / {cost['step_us_randomized']:.1f} us: the randomization adds "
            f"{cost['extra_share_of_1000_step_episode'] * 100:.3f}% to a 1000-step episode"
        )
    print(f"load: {os.getloadavg()}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
