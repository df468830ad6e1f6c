"""How much a sync call on two threads can lose to uneven step times, from one env's own.

Times N random-action steps of one env (one env, one thread, each ``step()`` call timed; the
call's fixed cost, measured on a cheap env, is taken off), prints the spread, then replays the times
as 8 envs' (consecutive stretches of the sequence) on 2 threads: each call's 8 steps go to whichever
thread is free first, in env order (the engine's queue does the same), and the call ends with the
later thread. The ratio of the work's ideal time (sum / 2) to that schedule's is the most a sync pool
of 8 envs on 2 threads can keep of the raw ceiling's rate with these step times.

    python benchmarks/step_time_spread.py LunarLander-v3 BipedalWalker-v3
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import envpool


def step_times_us(task: str, n: int, seed: int) -> np.ndarray:
    env = envpool.make(task, env_type="gymnasium", num_envs=1, num_threads=1, seed=seed)
    space = env.action_space
    rng = np.random.default_rng(seed)
    env.reset()
    out = np.empty(n)
    for i in range(n):
        if hasattr(space, "n"):
            a = rng.integers(0, space.n, size=1).astype(np.int32)
        else:
            a = rng.uniform(space.low, space.high, size=(1, *space.shape)).astype(np.float32)
        t0 = time.perf_counter()
        env.step(a)
        out[i] = time.perf_counter() - t0
    env.close()
    return out * 1e6


def call_cost_us(n: int = 20000) -> float:
    """A step() call of one CartPole env (its step ~0.1 us): the call's own cost."""
    return float(np.median(step_times_us("CartPole-v1", n, 0)))


def greedy_keep(times: np.ndarray, num_envs: int = 8, threads: int = 2) -> float:
    per_env = len(times) // num_envs
    seq = times[: per_env * num_envs].reshape(num_envs, per_env)
    made = 0.0
    for s in range(per_env):
        free = [0.0] * threads
        for e in range(num_envs):
            k = int(np.argmin(free))
            free[k] += seq[e, s]
        made += max(free)
    return float(seq.sum() / threads / made)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tasks", nargs="+")
    ap.add_argument("--steps", type=int, default=40000)
    args = ap.parse_args()
    base = call_cost_us()
    print(f"a step() call's own cost: {base:.2f} us (taken off)")
    print("| task | mean us | std us | p99 us | 8 envs, 2 threads: ideal / greedy schedule |")
    print("|---|---|---|---|---|")
    for task in args.tasks:
        t = np.maximum(step_times_us(task, args.steps, 0) - base, 0.0)
        print(f"| {task} | {t.mean():.1f} | {t.std():.1f} | {np.percentile(t, 99):.1f} | {greedy_keep(t):.3f} |")


if __name__ == "__main__":
    main()
