"""``envpool.python.api``: EnvPool 1.2's public API module path (make functions and
the type names of :mod:`envpool.python.protocol`)."""

from __future__ import annotations

from typing import Any

from envpool.compat.protocol import ArraySpec, DMEnvPool, EnvPool, EnvSpec, GymnasiumEnvPool


def make(task_id: str, env_type: str, **kwargs: Any) -> Any:
    """:func:`envpool.make`."""
    import envpool

    return envpool.make(task_id, env_type, **kwargs)


__all__ = ["ArraySpec", "DMEnvPool", "EnvPool", "EnvSpec", "GymnasiumEnvPool", "make"]
