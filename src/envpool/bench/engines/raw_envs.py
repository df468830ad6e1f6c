"""``raw-envs``: the C++ ceiling over the case's envs, ``raw_ceiling(..., num_envs=N)``.

``raw`` steps one bare env per thread, whose state stays in that core's cache
from one step to the next. Here each thread steps its block of the case's
``num_envs`` envs in turn, one step each, still in a C++ loop with no engine,
batch or Python: the ceiling for holding that many envs. ``raw`` against
``raw-envs`` is what the number of envs costs; ``raw-envs`` against ``envpool``
is what the engine (its calls, hand-off and the wait for a batch's last env)
costs.
"""

from __future__ import annotations

from . import Engine, raw


def run(spec: dict) -> dict:
    return raw.measure(spec, spec["num_envs"])


ENGINES = (
    Engine(
        "raw-envs",
        "raw over the case's num_envs envs: each thread steps its block of them in turn (C++ loop, no engine)",
        run,
        raw.available,
        order=91,
    ),
)
