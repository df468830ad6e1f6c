"""``raw-procs``: the ceiling for Python envs, the same envs stepped in bare processes, no vectoriser.

``num_workers`` processes (``--num-workers``, default the case's threads),
each holding its block of the ``num_envs`` envs (sizes differ by at most one)
and stepping them one after another in a Python loop with random actions
(generated before timing), resetting an env when it terminates or truncates:
no pipes, shared memory, batching or autoreset bookkeeping. The env is what
the ``gymnasium-*`` engines step (``gymnasium.make`` of the ``gymnasium:`` id,
or gymnasium's env for our task id), env ``i`` reset with ``seed + i``. The
processes set up, meet at a barrier, warm up, then count steps for
``seconds``; the result is the sum of their steps/s.
"""

from __future__ import annotations

import time

from . import Engine, _common
from . import gymnasium_vector as _vector


def available(task, case) -> str | None:
    return _vector.available(task, case)


def blocks(num_envs: int, workers: int) -> list[tuple[int, int]]:
    """(first env, env count) of each worker's block: contiguous, sizes differ by at most one."""
    workers = max(1, min(workers, num_envs))
    base, extra = divmod(num_envs, workers)
    out, first = [], 0
    for w in range(workers):
        count = base + (w < extra)
        out.append((first, count))
        first += count
    return out


def _child(make, first: int, count: int, setup: dict, barrier, results) -> None:
    envs: list = []
    try:
        envs.extend(make() for _ in range(count))
        for j, env in enumerate(envs):
            env.reset(seed=setup["seed"] + first + j)
        batches = _common.action_batches(envs[0].action_space, count, setup["seed"] + first)
        plans = [
            [(env.step, env.reset, a) for env, a in zip(envs, b.tolist() if b.dtype.kind in "iu" else list(b))]
            for b in batches
        ]
        k_plans, clock = len(plans), time.perf_counter

        def loop(until: float) -> tuple[int, float]:
            n, k, now = 0, 0, clock()
            while now < until:
                for step, reset, a in plans[k % k_plans]:
                    _, _, terminated, truncated, _ = step(a)
                    if terminated or truncated:
                        reset()
                k += 1
                n += count
                now = clock()
            return n, now

        barrier.wait(timeout=600)
        _, start = loop(clock() + setup["warmup"])
        n, end = loop(start + setup["seconds"])
        results.put((n, end - start))
    except BaseException as e:  # noqa: BLE001  (reported by the parent, which stops the others)
        results.put(f"{type(e).__name__}: {e}")
        try:
            barrier.abort()
        except Exception:
            pass
    finally:
        for env in envs:
            _common.close(env)


def run(spec: dict) -> dict:
    import multiprocessing as mp

    n, b = spec["num_envs"], spec["batch_size"]
    if b != n:
        raise _common.Unavailable("no batch_size < num_envs mode")
    make = _vector._env_fn(spec)
    parts = blocks(n, int(spec.get("num_workers") or spec["num_threads"]))
    setup = {"seed": int(spec["seed"]), "warmup": float(spec["warmup"]), "seconds": float(spec["seconds"])}
    ctx = mp.get_context("fork")  # the factory may be a closure: forked, not pickled
    barrier, results = ctx.Barrier(len(parts)), ctx.Queue()
    procs = [
        ctx.Process(target=_child, args=(make, first, count, setup, barrier, results), daemon=True)
        for first, count in parts
    ]
    return _common.run_processes(procs, results, "raw-procs", setup["warmup"] + setup["seconds"])


ENGINES = (
    Engine(
        "raw-procs",
        "the Python-env ceiling: the same gymnasium envs in --num-workers bare processes, each stepping "
        "its block in a loop (no vectoriser)",
        run,
        available,
        order=92,
    ),
)
