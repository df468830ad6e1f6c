"""``raw-sync``: ``raw-envs`` stepped in sync calls, ``raw_ceiling(..., num_envs=N, sync_calls=True)``.

The case's envs in the C++ loop, no engine, batch or Python, stepped as a sync pool steps them:
every env once a call, each thread its block first and then any env not yet begun (as the
engine's queue lanes hand them out), and no call begun before the last step of the one before.
``raw-envs`` against ``raw-sync`` is what that wait for a call's last step costs with these envs'
step times, which no sync engine avoids; ``raw-sync`` against ``envpool`` is what remains: the
Python call, the queue and the hand-off between threads.
"""

from __future__ import annotations

from . import Engine, raw


def run(spec: dict) -> dict:
    return raw.measure(spec, spec["num_envs"], sync_calls=True)


def available(task, case) -> str | None:
    if case.mode != "sync":
        return "sync calls only (batch_size == num_envs)"
    return raw.available(task, case)


ENGINES = (
    Engine(
        "raw-sync",
        "raw-envs stepped in sync calls: every env once a call, each thread its block first, then any env "
        "not yet begun; a call waits for its last step (C++ loop, no engine)",
        run,
        available,
        order=92,
    ),
)
