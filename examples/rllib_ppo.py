"""RLlib PPO (new API stack) on envpool pools, through gymnasium's registry.

    python examples/rllib_ppo.py                                  # a local Ray instance
    python examples/rllib_ppo.py --address auto                   # a running cluster (ray start ...)
    python examples/rllib_ppo.py --env envpool/Pong-v5 --env-config '{"episodic_life": true}'

Each of the ``--num-env-runners`` env runners (Ray actors) steps one envpool pool
of ``--num-envs-per-env-runner`` envs: ``gym_env_vectorize_mode="vector_entry_point"``
makes RLlib call the ``envpool/<task>`` id's vector entry point, which returns the
pool. Nothing else is envpool-specific: importing envpool puts its tasks in
gymnasium's registry and in Ray Tune's (which RLlib's env runners read). Training
stops at ``--stop-return`` or after ``--iterations``; the last line printed is a
JSON summary (used by tests/integrations/test_rllib.py).
"""

from __future__ import annotations

import argparse
import json
import time

import ray
from ray.rllib.algorithms.ppo import PPOConfig

import envpool  # noqa: F401  (registers the envpool/ ids)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--env", default="envpool/CartPole-v1")
    p.add_argument("--env-config", default="{}", help="JSON: envpool.make options, e.g. '{\"episodic_life\": true}'")
    p.add_argument("--num-env-runners", type=int, default=2)
    p.add_argument("--num-envs-per-env-runner", type=int, default=8)
    p.add_argument("--iterations", type=int, default=20)
    p.add_argument("--stop-return", type=float, default=450.0, help="stop once the mean episode return reaches this")
    p.add_argument("--train-batch-size", type=int, default=2000)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--address", default=None, help="Ray cluster address (default: start a local instance)")
    p.add_argument("--num-cpus", type=int, default=None, help="CPUs of the local instance")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> dict:
    args = parse_args(argv)
    ray.init(address=args.address, num_cpus=args.num_cpus, include_dashboard=False)
    config = (
        PPOConfig()
        .environment(args.env, env_config=json.loads(args.env_config))
        .env_runners(
            num_env_runners=args.num_env_runners,
            num_envs_per_env_runner=args.num_envs_per_env_runner,
            gym_env_vectorize_mode="vector_entry_point",
        )
        .training(train_batch_size_per_learner=args.train_batch_size, minibatch_size=250, num_epochs=6, lr=args.lr)
        .debugging(seed=args.seed)
    )
    algo = config.build_algo()
    # What each remote env runner steps: an envpool pool (not gymnasium's SyncVectorEnv).
    env_classes = sorted(
        set(algo.env_runner_group.foreach_env_runner(lambda r: type(r.env.unwrapped).__name__, local_env_runner=False))
    )
    returns: list[float] = []
    start = time.perf_counter()
    steps = 0
    for i in range(args.iterations):
        result = algo.train()
        ret = result["env_runners"].get("episode_return_mean")
        steps = int(result["env_runners"].get("num_env_steps_sampled_lifetime", 0))
        returns.append(float("nan") if ret is None else float(ret))
        print(
            f"iter {i:3d}  env steps {steps:7d}  mean return {returns[-1]:7.1f}  ({time.perf_counter() - start:.0f} s)",
            flush=True,
        )
        if ret is not None and ret >= args.stop_return:
            break
    algo.stop()
    ray.shutdown()
    summary = {
        "env": args.env,
        "env_classes": env_classes,
        "returns": returns,
        "env_steps": steps,
        "seconds": round(time.perf_counter() - start, 1),
    }
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()
