#!/usr/bin/env python
"""CPU time per env step, summed over every process of the vectoriser, beside wall steps/s.

On a shared machine wall-clock rates follow the load; the CPU a vectoriser spends per env step
(its own process plus its workers, from /proc) moves far less, and bounds what it can do on an idle
machine. ``gymnasium:CartPole-v1`` by default (overhead-bound: the env's own step is ~10 µs), 8
envs: an envpool pool (2 worker processes, 2 threads, sync) against gymnasium's
``AsyncVectorEnv(shared_memory=True)``, in interleaved rounds, each in a fresh process.

    python benchmarks/python_envs_cpu.py --rounds 3 --batches 2000

``--gap-us G`` busy-waits G µs in the calling process between steps (a learner's own work between
steps; not counted in the CPU column): what an idle worker's yielding (envpool's ``idle_spin_us``)
costs when the next request does not come soon; ``--idle-spin-us`` sets that option of the pool.

    python benchmarks/python_envs_cpu.py --rounds 2 --batches 1000 --gap-us 1000 --idle-spin-us 0
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

import numpy as np

from envpool.bench.gym_envs import spin


def _cpu_s(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime + stime
    return total / os.sysconf("SC_CLK_TCK")


def measure(
    engine: str, env_id: str, num_envs: int, workers: int, batches: int, gap_us: float = 0.0, spin_us: float = 300.0
) -> tuple[float, float]:
    """(env steps/s, µs of CPU per env step, all processes, less the gaps' own busy-waiting)."""
    act = np.zeros(num_envs, np.int64)
    if engine == "gymnasium-async":
        import gymnasium

        env = gymnasium.vector.AsyncVectorEnv([lambda: gymnasium.make(env_id)] * num_envs, shared_memory=True)
        env.reset(seed=0)
        pids = [p.pid for p in env.processes]
    else:
        import envpool

        env = envpool.make(
            "gymnasium:" + env_id,
            env_type="gymnasium",
            num_envs=num_envs,
            num_workers=workers,
            num_threads=workers,
            idle_spin_us=spin_us,
        )
        env.reset()
        pids = env._pool.worker_pids
    for _ in range(300):
        env.step(act)
    c0, t0 = _cpu_s(pids) + time.process_time(), time.perf_counter()
    for _ in range(batches):
        env.step(act)
        if gap_us:
            spin(gap_us * 1e-6)
    wall = time.perf_counter() - t0
    cpu = _cpu_s(pids) + time.process_time() - c0 - batches * gap_us * 1e-6
    env.close()
    return batches * num_envs / wall, cpu / (batches * num_envs) * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--env", default="CartPole-v1")
    ap.add_argument("--num-envs", type=int, default=8)
    ap.add_argument("--num-workers", type=int, default=2)
    ap.add_argument("--batches", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--gap-us", type=float, default=0.0, help="busy-wait between steps in the caller (µs)")
    ap.add_argument("--idle-spin-us", type=float, default=300.0, help="envpool's idle_spin_us option")
    ap.add_argument("--engine", help=argparse.SUPPRESS)  # one measurement, in a child process
    args = ap.parse_args()
    if args.engine:
        sps, cpu = measure(
            args.engine, args.env, args.num_envs, args.num_workers, args.batches, args.gap_us, args.idle_spin_us
        )
        print(f"{sps} {cpu}")
        return
    gap = f", {args.gap_us:g} µs of the caller's own work between steps" if args.gap_us else ""
    gap += f", idle_spin_us={args.idle_spin_us:g}"
    print(f"{args.env}, {args.num_envs} envs{gap}; load average {os.getloadavg()[0]:.1f} at the start")
    print("| round | engine | steps/s | CPU µs per env step (all processes) |\n|---|---|---|---|")
    for r in range(args.rounds):
        for engine in ("envpool", "gymnasium-async"):
            batches = args.batches if engine == "envpool" else max(1, args.batches // 2)
            out = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--engine",
                    engine,
                    "--env",
                    args.env,
                    "--num-envs",
                    str(args.num_envs),
                    "--num-workers",
                    str(args.num_workers),
                    "--batches",
                    str(batches),
                    "--gap-us",
                    str(args.gap_us),
                    "--idle-spin-us",
                    str(args.idle_spin_us),
                ],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.split()
            print(f"| {r + 1} | {engine} | {float(out[-2]):.0f} | {float(out[-1]):.1f} |")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
