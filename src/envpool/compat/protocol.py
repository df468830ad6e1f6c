"""``envpool.python.protocol``: EnvPool 1.2's type names, for annotations and isinstance.

``EnvPool`` is :class:`envpool.python.envpool.EnvPoolMixin` (every pool is one),
``EnvSpec`` and ``ArraySpec`` are the classes :func:`envpool.make_spec` and
``spec.state_array_spec`` return; the interface-specific names are the pool classes.
"""

from __future__ import annotations

from envpool._interfaces import DMEnvPool, EnvPool, GymnasiumEnvPool
from envpool._spec import ArraySpec, EnvSpec

__all__ = ["ArraySpec", "DMEnvPool", "EnvPool", "EnvSpec", "GymnasiumEnvPool"]
