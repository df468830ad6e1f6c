"""``xla``: this EnvPool's ``xla()`` (needs JAX): a jitted ``lax.scan`` of 64 steps per call
over ``step`` (or ``send``/``recv`` when async), actions from the same random ring as the
``envpool`` engine, no Python per step. The compile happens before the timing."""

from __future__ import annotations

from . import Engine, _common
from .envpool_api import _env_ids


def run(spec: dict) -> dict:
    import numpy as np

    import envpool

    try:
        import jax
        import jax.numpy as jnp
    except ImportError as e:
        raise _common.Unavailable('needs JAX: pip install "envpool[jax]"') from e
    task, n, b = spec["task"], spec["num_envs"], spec["batch_size"]
    opts: dict = dict(spec.get("options") or {})  # --option KEY=VALUE
    if "+" in task:  # a multi-task pool, as in the envpool engine
        task = task.split("+")
        if spec.get("kind") == "atari":
            opts["full_action_space"] = True
    env = envpool.make(
        task, env_type="gym", num_envs=n, batch_size=b, num_threads=spec["num_threads"], seed=spec["seed"], **opts
    )
    try:
        handle, recv, send, step = env.xla()
        space = envpool.make_spec(task, **opts).action_space
        acts = jnp.asarray(np.stack(_common.action_batches(space, b, spec["seed"])))
        if b == n:
            env.reset()
            carry = handle

            def body(h, a):
                return step(h, a)[0], None

        else:
            env.async_reset()
            handle, first = recv(handle)
            carry = (handle, _env_ids(first))

            def body(c, a):
                h, result = recv(send(c[0], a, c[1]))
                return (h, _env_ids(result)), None

        scan = jax.jit(lambda c: jax.lax.scan(body, c, acts)[0])
        state = [jax.block_until_ready(scan(carry))]

        def call(i: int) -> None:
            state[0] = jax.block_until_ready(scan(state[0]))

        return _common.time_loop(call, len(acts) * b, spec["warmup"], spec["seconds"])
    finally:
        _common.close(env)


def available(task, case) -> str | None:
    return _common.registered(task) or (
        None if _common.has_module("jax") else 'JAX not installed: pip install "envpool[jax]"'
    )


ENGINES = (
    Engine(
        "xla",
        "this EnvPool's xla(): a jitted lax.scan of 64 steps per call over step (send/recv when async)",
        run,
        available,
        order=30,
    ),
)
