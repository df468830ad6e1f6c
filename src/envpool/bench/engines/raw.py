"""``raw``: the C++ ceiling, ``envpool._envpool.raw_ceiling``.

One bare emulator/simulator per thread stepped in a C++ loop with random
actions: no engine, queue, preprocessing or Python. Families say whether they
have one (``_envpool.families()[family]["raw_ceiling"]``).
"""

from __future__ import annotations

from . import Engine, _common


def available(task, case) -> str | None:
    reason = _common.registered(task) or _common.single_task(task)
    if reason:
        return reason
    from envpool import _envpool

    if not _envpool.families().get(task.family, {}).get("raw_ceiling", False):
        return f"family {task.family!r} has no raw ceiling"
    if task.config.get("from_pixels"):
        return "the raw ceiling steps the simulation only (no rendering)"
    return None


def run(spec: dict) -> dict:
    return measure(spec)


def measure(spec: dict, num_envs: int = 0, sync_calls: bool = False) -> dict:
    """``raw_ceiling`` over the case's threads: one env each, or ``num_envs`` envs in blocks (``raw-envs``),
    stepped in sync calls with ``sync_calls`` (``raw-sync``)."""
    from envpool import _envpool

    family, config, threads = spec["family"], spec["config"], spec["num_threads"]
    kw = {"num_envs": num_envs, "sync_calls": sync_calls}
    try:
        if spec["warmup"] > 0:
            _envpool.raw_ceiling(family, config, threads, spec["warmup"], **kw)
        sps = _envpool.raw_ceiling(family, config, threads, spec["seconds"], **kw)
    except ValueError as e:
        raise _common.Unavailable(str(e)) from None
    return {
        "steps": int(sps * spec["seconds"]),
        "calls": None,
        "elapsed": spec["seconds"],
        "steps_per_s": float(sps),
        "us_per_call": None,
    }


ENGINES = (
    Engine(
        "raw",
        "envpool._envpool.raw_ceiling: bare emulators/simulators in a C++ loop, one per thread, no engine",
        run,
        available,
        default=True,
        order=90,
    ),
)
