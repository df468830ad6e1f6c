"""An acme-style actor/environment loop over envpool's batched dm_env TimeSteps.

    python examples/acme_style_loop.py --task CartPole-v1 --num-envs 8 --steps 2000
    python examples/acme_style_loop.py --num-envs 8 --batch-size 4   # async pool

dm-acme's ``EnvironmentLoop`` drives one ``dm_env.Environment`` and an
``Actor`` with ``select_action`` / ``observe_first`` / ``observe`` /
``update``. With an envpool dm pool every TimeStep field is batched, and
``observation.env_id`` says which envs a batch holds (all of them in sync mode,
the first ``batch_size`` to finish in async mode). This loop keeps acme's actor
protocol with batched arguments plus the env ids, and calls ``observe_first``
for envs whose step_type is FIRST (a reset: the pool auto-resets on the step
after a LAST), ``observe`` for the others. No acme dependency: the protocol is
a few methods. The last line printed is a JSON summary.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import dm_env
import numpy as np

import envpool


class RandomActor:
    """acme's Actor protocol, batched: uniform actions from the action spec."""

    def __init__(self, action_spec: Any, seed: int = 0) -> None:
        self._spec = action_spec
        self._rng = np.random.default_rng(seed)
        self.num_observed = 0

    def select_action(self, observation: Any) -> np.ndarray:
        n = len(observation.env_id)
        spec = self._spec
        if hasattr(spec, "num_values"):  # DiscreteArray
            return self._rng.integers(0, spec.num_values, n).astype(spec.dtype)
        low = np.broadcast_to(spec.minimum, spec.shape)
        high = np.broadcast_to(spec.maximum, spec.shape)
        return self._rng.uniform(low, high, (n, *spec.shape)).astype(spec.dtype)

    def observe_first(self, env_ids: np.ndarray, timestep: dm_env.TimeStep) -> None:
        """Episodes start for env_ids (rows of timestep)."""

    def observe(self, env_ids: np.ndarray, action: np.ndarray, next_timestep: dm_env.TimeStep) -> None:
        """Transitions for env_ids: (previous obs, action) -> next_timestep."""
        self.num_observed += len(env_ids)

    def update(self) -> None:
        """A learner step would go here (after every batch, as in acme)."""


def _select(x: Any, mask: np.ndarray) -> Any:
    """The masked rows of every array in a (nested) namedtuple, e.g. State.players.env_id."""
    if isinstance(x, tuple):
        return type(x)(*(_select(f, mask) for f in x))
    return np.asarray(x)[mask]


def _rows(ts: dm_env.TimeStep, mask: np.ndarray) -> dm_env.TimeStep:
    obs = _select(ts.observation, mask)
    return dm_env.TimeStep(ts.step_type[mask], ts.reward[mask], ts.discount[mask], obs)


class BatchedEnvironmentLoop:
    """Runs an actor on a batched dm pool and records per-env episode results."""

    def __init__(self, env: Any, actor: RandomActor) -> None:
        self.env = env
        self.actor = actor
        n = env.num_envs
        self._return = np.zeros(n)
        self._length = np.zeros(n, dtype=np.int64)
        self.episodes: list[dict[str, Any]] = []  # finished episodes, in order
        self._sent: dict[int, np.ndarray] = {}  # the action each env is stepping with

    def run(self, num_steps: int) -> list[dict[str, Any]]:
        """Run until num_steps env transitions have been taken."""
        if getattr(self.env, "is_async", False):
            self.env.async_reset()
            ts = self.env.recv()
        else:
            ts = self.env.reset()
        self._observe(ts)
        steps = 0
        while steps < num_steps:
            env_ids = np.asarray(ts.observation.env_id)
            action = self.actor.select_action(ts.observation)
            self._sent.update(zip(env_ids.tolist(), action))
            # sync: the same envs come back; async: the first batch_size to finish
            next_ts = self.env.step(action, env_ids)
            steps += len(next_ts.observation.env_id)
            self._observe(next_ts)
            self.actor.update()
            ts = next_ts
        return self.episodes

    def _observe(self, ts: dm_env.TimeStep) -> None:
        ids = np.asarray(ts.observation.env_id)
        first = ts.step_type == dm_env.StepType.FIRST
        if first.any():
            self.actor.observe_first(ids[first], _rows(ts, first))
            self._return[ids[first]] = 0.0
            self._length[ids[first]] = 0
        rest = ~first
        if rest.any():
            act = np.stack([self._sent[int(e)] for e in ids[rest]])
            self.actor.observe(ids[rest], act, _rows(ts, rest))
            self._return[ids[rest]] += ts.reward[rest]
            self._length[ids[rest]] += 1
        for k in np.flatnonzero(ts.step_type == dm_env.StepType.LAST):
            e = int(ids[k])
            self.episodes.append(
                {
                    "env_id": e,
                    "return": float(self._return[e]),
                    "length": int(self._length[e]),
                    "elapsed_step": int(ts.observation.elapsed_step[k]),
                    "discount": float(ts.discount[k]),
                }
            )


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--task", default="CartPole-v1")
    p.add_argument("--num-envs", type=int, default=8)
    p.add_argument("--batch-size", type=int, default=0, help="< num-envs: async pool")
    p.add_argument("--steps", type=int, default=5000, help="env transitions to run")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--num-threads", type=int, default=1)
    args = p.parse_args(argv)

    env = envpool.make(
        args.task,
        env_type="dm",
        num_envs=args.num_envs,
        batch_size=args.batch_size or args.num_envs,
        seed=args.seed,
        num_threads=args.num_threads,
    )
    actor = RandomActor(env.action_spec(), seed=args.seed)
    loop = BatchedEnvironmentLoop(env, actor)
    start = time.time()
    episodes = loop.run(args.steps)
    env.close()
    for ep in episodes[-5:]:
        print(f"env {ep['env_id']}: episode return {ep['return']:.1f}, length {ep['length']}")
    summary = {
        "task": args.task,
        "episodes": len(episodes),
        "mean_return": float(np.mean([e["return"] for e in episodes])) if episodes else None,
        "transitions_observed": actor.num_observed,
        "seconds": round(time.time() - start, 2),
    }
    print(json.dumps(summary))
    return {**summary, "episode_list": episodes}


if __name__ == "__main__":
    main()
