"""``envpool``: this EnvPool, through its public gym API only.

``run`` uses nothing but numpy and ``envpool.make``/``make_spec``/``reset``/
``step``/``async_reset``/``send``/``recv``, so the ``python:PATH`` engine runs
it under another interpreter against *that* interpreter's ``envpool``. A ``gymnasium:`` task
(a Python env in envpool's worker processes, ``--num-workers``) runs ``_gym.run_envpool``: the
same loops over ``envpool.make("gymnasium:ID", ..., num_workers=W)``; it is n/a, saying so,
where this envpool does not take such ids.
"""

from __future__ import annotations

from . import Engine, _common


def _env_ids(result):
    """``info["env_id"]`` of a gym-style 4- or 5-tuple (or a dm TimeStep)."""
    info = result[-1]
    if isinstance(info, dict):
        return info["env_id"]
    return result.observation.env_id


def run(spec: dict) -> dict:
    if spec.get("gymnasium"):  # a Python env in envpool's worker processes
        from ._gym import run_envpool

        return run_envpool(spec)
    _common.pixel_backend(spec)
    import envpool

    task, n, b = spec["task"], spec["num_envs"], spec["batch_size"]
    try:
        registered = set(task.split("+")) <= set(envpool.list_all_envs())
    except Exception:  # very old versions
        registered = True
    if not registered:
        raise _common.Unavailable(f"task {task!r} is not registered in this envpool")
    opts: dict = dict(spec.get("options") or {})  # --option KEY=VALUE
    if "+" in task:  # a multi-task pool over the ids (Atari games share the full action set)
        task = task.split("+")
        if spec.get("kind") == "atari":
            opts["full_action_space"] = True
    env = envpool.make(
        task, env_type="gym", num_envs=n, batch_size=b, num_threads=spec["num_threads"], seed=spec["seed"], **opts
    )
    acts = _common.action_batches(envpool.make_spec(task, **opts).action_space, b, spec["seed"])
    k = len(acts)
    if b == n:  # sync: step() returns the whole batch
        env.reset()
        step = env.step

        def call(i: int) -> None:
            step(acts[i % k])

    else:  # async: recv() the first b finished envs, send their actions
        env.async_reset()
        send, recv = env.send, env.recv

        def call(i: int) -> None:
            send(acts[i % k], _env_ids(recv()))

    out = _common.time_loop(call, b, spec["warmup"], spec["seconds"])
    _common.close(env)
    return out


def available(task, case) -> str | None:
    if getattr(task, "gymnasium", None) is not None:
        from ._gym import envpool_reason, reason

        return reason(task, case, has_async=True) or envpool_reason()
    return _common.registered(task)


ENGINES = (
    Engine(
        "envpool",
        "this EnvPool (gym API: step(), or send()/recv() when batch_size < num_envs)",
        run,
        available,
        default=True,
        order=0,
    ),
)
