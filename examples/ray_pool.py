"""An envpool pool spread over Ray actors: an async stepping loop, and its throughput.

    python examples/ray_pool.py                                   # a local Ray instance
    python examples/ray_pool.py --address auto --task Pong-v5 --num-envs 256 --num-actors 8 \\
        --batch-size 128 --cpus-per-actor 8                        # a running cluster

``envpool.ray.make`` starts ``--num-actors`` Ray actors, each with a local pool of
``num_envs / num_actors`` envs on whichever node Ray places it (``--cpus-per-actor``
CPUs reserved for each). The loop is EnvPool's async loop: ``recv()`` the first
``batch_size`` envs to finish (across actors), ``send()`` their next actions. The
last line printed is a JSON summary.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import ray

import envpool
import envpool.ray


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--task", default="CartPole-v1")
    p.add_argument("--num-envs", type=int, default=16)
    p.add_argument("--num-actors", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--cpus-per-actor", type=float, default=1)
    p.add_argument("--seconds", type=float, default=5.0)
    p.add_argument("--address", default=None, help="Ray cluster address (default: start a local instance)")
    args = p.parse_args(argv)

    # A local instance gets the CPUs the actors reserve (Ray's default: this machine's cores).
    local_cpus = None if args.address else max(1, int(np.ceil(args.num_actors * args.cpus_per_actor)))
    ray.init(address=args.address, num_cpus=local_cpus, include_dashboard=False)
    envs = envpool.ray.make(
        args.task,
        "gymnasium",
        num_envs=args.num_envs,
        num_actors=args.num_actors,
        batch_size=args.batch_size,
        num_threads=max(1, int(args.cpus_per_actor)),
        placement={"num_cpus": args.cpus_per_actor},
    )
    print(
        f"{args.num_actors} actors on {len(set(envs.actor_nodes))} node(s): env ids {[f'{i[0]}..{i[-1]}' for i in envs.actor_env_ids]}"
    )
    space = envs.single_action_space
    rng = np.random.default_rng(0)
    envs.async_reset()
    steps, episodes, start = 0, 0, time.perf_counter()
    while time.perf_counter() - start < args.seconds:
        obs, reward, terminated, truncated, info = envs.recv()
        ids = info["env_id"]
        if hasattr(space, "n"):
            actions = rng.integers(0, space.n, size=len(ids))
        else:
            actions = rng.uniform(space.low, space.high, size=(len(ids), *space.shape)).astype(space.dtype)
        envs.send(actions, ids)
        steps += len(ids)
        episodes += int((terminated | truncated).sum())
    elapsed = time.perf_counter() - start
    envs.close()
    ray.shutdown()
    summary = {
        "task": args.task,
        "num_envs": args.num_envs,
        "num_actors": args.num_actors,
        "batch_size": args.batch_size,
        "steps": steps,
        "episodes": episodes,
        "steps_per_s": round(steps / elapsed, 1),
    }
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()
