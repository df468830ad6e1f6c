"""Async throughput when step times vary: a 10x spread against an even spread.

Uses the test-only "Busy" family (a step busy-waits for as many microseconds
as its action says). Both cases have the same mean step time; with
first-to-finish batches the spread case should keep >= 0.9 of the even
case's throughput, since no batch waits for its slowest env. The cases are
interleaved over rounds so machine noise hits both alike.

    python benchmarks/straggler.py [--num-envs 16] [--batch-size 4] [--threads 2]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from envpool import _envpool


def run(num_envs: int, batch: int, threads: int, durations: np.ndarray, seconds: float, seed: int) -> tuple[float, int]:
    """Steps/s of a recv/send loop, and the most batches any env waited."""
    pool = _envpool.Pool("Busy", {"num_envs": num_envs, "batch_size": batch, "num_threads": threads})
    rng = np.random.default_rng(seed)
    pool.send_reset(None, None)
    sent_at = np.zeros(num_envs, np.int64)
    steps, worst, k = 0, 0, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        ids = pool.recv()[5]["env_id"].copy()
        k += 1
        worst = max(worst, int((k - sent_at[ids]).max()))
        sent_at[ids] = k
        pool.send(rng.choice(durations, size=len(ids)).astype(np.int32), ids)
        steps += len(ids)
    elapsed = time.perf_counter() - start
    pool.close()
    return steps / elapsed, worst


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--num-envs", type=int, default=16)
    p.add_argument("--batch-size", type=int, default=4)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--mean-us", type=int, default=200, help="mean step time in microseconds")
    p.add_argument("--seconds", type=float, default=2.0)
    p.add_argument("--rounds", type=int, default=3)
    a = p.parse_args()
    # 10x spread with the same mean: half the steps at m/5.5, half at 10x that.
    lo = a.mean_us * 2 / 11
    cases = {"even": np.array([a.mean_us]), "10x spread": np.array([lo, 10 * lo])}
    results: dict[str, list[float]] = {k: [] for k in cases}
    waits: dict[str, int] = {k: 0 for k in cases}
    for r in range(a.rounds):
        for name, durations in cases.items():
            sps, worst = run(a.num_envs, a.batch_size, a.threads, durations, a.seconds, r)
            results[name].append(sps)
            waits[name] = max(waits[name], worst)
    even, spread = np.median(results["even"]), np.median(results["10x spread"])
    print(f"num_envs={a.num_envs} batch_size={a.batch_size} threads={a.threads} mean step {a.mean_us} us")
    for name in cases:
        print(
            f"  {name:11s} {np.median(results[name]):10.0f} steps/s (median of {a.rounds}); "
            f"longest wait {waits[name]} batches"
        )
    print(f"  spread / even = {spread / even:.3f}")


if __name__ == "__main__":
    main()
