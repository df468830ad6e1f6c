"""Steps/s of a Python-env pool against gymnasium's AsyncVectorEnv, on the same envs.

    python benchmarks/python_envs.py [--env CartPole-v1] [--num-envs 8] [--num-workers 2] [--seconds 5]

Prints steps/s and the time per batch (8 envs: one call) of each, and the pool's
per-step overhead: its time per env step minus a bare env.step in one process.
Interleaves the two (three rounds each) so that a busy machine slows both alike.
"""

from __future__ import annotations

import argparse
import time

import gymnasium
import numpy as np

import envpool


def rate(step, n: int, seconds: float) -> float:
    for _ in range(50):
        step()
    count, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(100):
            step()
        count += 100
    return count * n / (time.perf_counter() - start)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--env", default="CartPole-v1")
    ap.add_argument("--num-envs", type=int, default=8)
    ap.add_argument("--num-workers", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=5.0)
    args = ap.parse_args()
    n = args.num_envs
    bare = gymnasium.make(args.env).unwrapped
    bare.reset(seed=0)
    action = bare.action_space.sample()

    def bare_step() -> None:
        if bare.step(action)[2]:
            bare.reset()

    pool = envpool.make("gymnasium:" + args.env, env_type="gymnasium", num_envs=n, num_workers=args.num_workers)
    pool.reset(seed=0)
    acts = np.stack([pool.single_action_space.sample() for _ in range(n)])
    vec = gymnasium.vector.AsyncVectorEnv([lambda: gymnasium.make(args.env)] * n, shared_memory=True)
    vec.reset(seed=0)
    vacts = np.stack([vec.single_action_space.sample() for _ in range(n)])
    ours, theirs, bares = [], [], []
    for _ in range(3):
        ours.append(rate(lambda: pool.step(acts), n, args.seconds))
        theirs.append(rate(lambda: vec.step(vacts), n, args.seconds))
        bares.append(rate(bare_step, 1, args.seconds / 2))
    pool.close()
    vec.close()
    o, t, b = max(ours), max(theirs), max(bares)
    print(f"{args.env}, {n} envs, {args.num_workers} workers (envpool), best of 3 rounds:")
    print(f"  envpool (python env)     {o:10.0f} steps/s  {1e6 * n / o:8.1f} us per batch")
    print(f"  gymnasium AsyncVectorEnv {t:10.0f} steps/s  {1e6 * n / t:8.1f} us per batch")
    print(f"  bare env.step (1 proc)   {b:10.0f} steps/s  {1e6 / b:8.1f} us per step")
    print(
        f"  ratio {o / t:.2f}x; envpool overhead per env step "
        f"{1e6 * args.num_workers / o - 1e6 / b:.1f} us (worker time per env step minus a bare step)"
    )


if __name__ == "__main__":
    main()
