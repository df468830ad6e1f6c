#!/usr/bin/env python
"""Atari: full-pipeline throughput against the raw emulator ceiling.

* raw:  ``envpool._envpool.raw_ceiling("Atari", ...)``: one bare ALE per
  thread, frame_skip ``act()`` calls per agent step with a random minimal
  action, no preprocessing, no engine.
* full: ``envpool.make(task, env_type="gymnasium", num_envs=N,
  num_threads=T)`` stepped synchronously with random actions: frame skip,
  max-pool, grayscale, 84x84 INTER_AREA resize, 4-frame stack, engine and
  Python binding included.

Rounds alternate raw and full; the reported ratio is the median over rounds
of full/raw. On a shared machine the wall-clock ratio is noisy; the ratio of
steps per CPU-second of this process is also reported (raw_ceiling's timed
loop is most of its call, so its CPU rate is a close estimate).

    python benchmarks/atari_throughput.py                     # Pong-v5, 8 envs, 2 threads
    python benchmarks/atari_throughput.py --task Breakout-v5 --num-envs 16 --threads 4
    python benchmarks/atari_throughput.py --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import numpy as np

import envpool
from envpool.registration import lookup


def _cpu() -> float:
    t = os.times()
    return t.user + t.system


def full_rate(task: str, num_envs: int, threads: int, seconds: float, **config) -> tuple[float, float]:
    """(steps per wall second, steps per CPU second of this process)."""
    env = envpool.make(task, env_type="gymnasium", num_envs=num_envs, num_threads=threads, **config)
    env.reset()
    n = env.single_action_space.n
    actions = np.random.default_rng(0).integers(0, n, (1024, num_envs)).astype(np.int32)
    for i in range(20):  # warm up
        env.step(actions[i])
    steps, start, cpu0 = 0, time.perf_counter(), _cpu()
    while (elapsed := time.perf_counter() - start) < seconds:
        env.step(actions[steps % 1024])
        steps += 1
    cpu = _cpu() - cpu0
    env.close()
    return steps * num_envs / elapsed, steps * num_envs / cpu


def raw_rate(task: str, threads: int, seconds: float, **config) -> tuple[float, float]:
    """(steps per wall second, steps per CPU second of this process)."""
    spec = lookup(task)
    start, cpu0 = time.perf_counter(), _cpu()
    rate = envpool._envpool.raw_ceiling(spec.family, {**spec.config, **config}, threads, seconds)
    wall, cpu = time.perf_counter() - start, _cpu() - cpu0
    # raw_ceiling reports steps per wall second of its timed loop; the CPU
    # rate scales it by the share of CPU the process got.
    return rate, rate * wall / cpu


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--task", default="Pong-v5")
    p.add_argument("--num-envs", type=int, default=8)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--json", help="write the results to this file")
    args = p.parse_args()

    raws, fulls, ratios, cpu_ratios = [], [], [], []
    for r in range(args.rounds):
        raw, raw_cpu = raw_rate(args.task, args.threads, args.seconds)
        full, full_cpu = full_rate(args.task, args.num_envs, args.threads, args.seconds)
        raws.append(raw)
        fulls.append(full)
        ratios.append(full / raw)
        cpu_ratios.append(full_cpu / raw_cpu)
        print(f"round {r}: raw {raw:9.0f} steps/s  full {full:9.0f} steps/s  ratio {full / raw:.3f}"
              f"  (per CPU-second: raw {raw_cpu:.0f}, full {full_cpu:.0f}, ratio {full_cpu / raw_cpu:.3f})",
              flush=True)
    result = {
        "task": args.task, "num_envs": args.num_envs, "threads": args.threads,
        "raw_steps_per_s": statistics.median(raws), "full_steps_per_s": statistics.median(fulls),
        "ratio_median": statistics.median(ratios), "cpu_ratio_median": statistics.median(cpu_ratios),
        "rounds": args.rounds,
    }
    print(f"{args.task}: raw {result['raw_steps_per_s']:.0f} steps/s, full pipeline "
          f"{result['full_steps_per_s']:.0f} steps/s ({args.num_envs} envs, {args.threads} threads); "
          f"median full/raw = {result['ratio_median']:.3f} (wall), "
          f"{result['cpu_ratio_median']:.3f} (per CPU-second)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
