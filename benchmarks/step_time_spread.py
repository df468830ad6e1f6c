"""How much a sync call on two threads can lose to uneven step times, from one env's own.

Times N random-action steps of one env (one env, one thread, each ``step()`` call timed; the
call's fixed cost, measured on a cheap env, is taken off), prints the spread, then replays the times
as 8 envs' (consecutive stretches of the sequence) on 2 threads: each call's 8 steps go to whichever
thread is free first, in env order (the engine's queue does the same), and the call ends with the
later thread. The ratio of the work's ideal time (sum / 2) to that schedule's is the most a sync pool
of 8 envs on 2 threads can keep of the raw ceiling's rate with these step times.

    python benchmarks/step_time_spread.py LunarLander-v3 BipedalWalker-v3

``--by-obs COL ...`` also groups the steps by the sum of those observation columns after
the step (LunarLander-v3's 6 and 7: how many legs touch the ground) and prints each
group's share of the steps and of the time, and its mean step time (for each task where
that sum takes at most 16 values).

    python benchmarks/step_time_spread.py LunarLander-v3 --by-obs 6 7
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import envpool


def step_times_us(task: str, n: int, seed: int, obs_out: list | None = None) -> np.ndarray:
    """n steps' times (us); with obs_out, each step's observation row is appended to it."""
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
        obs = env.step(a)[0]
        out[i] = time.perf_counter() - t0
        if obs_out is not None:
            obs_out.append(np.array(obs[0]))
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
    ap.add_argument("--by-obs", type=int, nargs="+", metavar="COL", help="group steps by these obs columns' sum")
    args = ap.parse_args()
    base = call_cost_us()
    print(f"a step() call's own cost: {base:.2f} us (taken off)")
    print("| task | mean us | std us | p99 us | 8 envs, 2 threads: ideal / greedy schedule |")
    print("|---|---|---|---|---|")
    groups = []
    for task in args.tasks:
        obs: list = []
        t = np.maximum(step_times_us(task, args.steps, 0, obs if args.by_obs else None) - base, 0.0)
        print(f"| {task} | {t.mean():.1f} | {t.std():.1f} | {np.percentile(t, 99):.1f} | {greedy_keep(t):.3f} |")
        if args.by_obs:
            groups.append((task, t, np.stack(obs)[:, args.by_obs].sum(axis=1)))
    for task, t, key in groups:
        if len(np.unique(key)) > 16:
            print(f"\n{task}: obs[{args.by_obs}] summed takes over 16 values (not a count): not grouped")
            continue
        print(f"\n{task}, steps by obs[{args.by_obs}] summed after the step:")
        print("| sum | share of steps | share of time | mean us |")
        print("|---|---|---|---|")
        for value in np.unique(key):
            m = key == value
            print(f"| {value:g} | {m.mean():.3f} | {t[m].sum() / t.sum():.3f} | {t[m].mean():.1f} |")


if __name__ == "__main__":
    main()
