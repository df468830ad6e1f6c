"""``ray``: ``envpool.ray`` (``pip install ".[ray]"``): the pool spread over 2 Ray actors on a
local Ray instance, each with num_threads / 2 threads; the same gym interface and loops as the
``envpool`` engine. Ray's start and the actors' pools are set up before the timing."""

from __future__ import annotations

import logging

from . import Engine, _common
from .envpool_api import _env_ids

ACTORS = 2


def run(spec: dict) -> dict:
    import ray

    import envpool
    import envpool.ray

    task, n, b = spec["task"], spec["num_envs"], spec["batch_size"]
    ray.init(
        address="local", num_cpus=ACTORS, include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False
    )
    try:
        env = envpool.ray.make(
            task,
            "gym",
            num_envs=n,
            num_actors=ACTORS,
            batch_size=b,
            num_threads=max(1, spec["num_threads"] // ACTORS),
            seed=spec["seed"],
            placement={"num_cpus": 1},
            **(spec.get("options") or {}),
        )
        acts = _common.action_batches(
            envpool.make_spec(task, **(spec.get("options") or {})).action_space, b, spec["seed"]
        )
        m = len(acts)
        if b == n:
            env.reset()
            step = env.step

            def call(i: int) -> None:
                step(acts[i % m])

        else:
            env.async_reset()
            send, recv = env.send, env.recv

            def call(i: int) -> None:
                send(acts[i % m], _env_ids(recv()))

        out = _common.time_loop(call, b, spec["warmup"], spec["seconds"])
        out["ray_actors"] = ACTORS
        env.close()
        return out
    finally:
        ray.shutdown()


def available(task, case) -> str | None:
    if case.num_envs < ACTORS:
        return f"{ACTORS} Ray actors need num_envs >= {ACTORS}"
    return (
        _common.registered(task)
        or _common.single_task(task)
        or (None if _common.has_module("ray") else 'Ray not installed: pip install "envpool[ray]"')
    )


ENGINES = (Engine("ray", f"envpool.ray over {ACTORS} actors on a local Ray instance", run, available, order=40),)
