"""``envpool.python.protocol``: EnvPool 1.2's type names, for annotations and isinstance.

``EnvPool`` is :class:`envpool.python.envpool.EnvPoolMixin` (every pool is one),
``EnvSpec`` and ``ArraySpec`` are the classes :func:`envpool.make_spec` and
``spec.state_array_spec`` return; the interface-specific names are the pool classes.
"""

from __future__ import annotations

from envpool._spec import ArraySpec, EnvSpec
from envpool.python.dm_envpool import DMEnvPoolMixin as DMEnvPool
from envpool.python.envpool import EnvPoolMixin as EnvPool
from envpool.python.gymnasium_envpool import GymnasiumEnvPoolMixin as GymnasiumEnvPool

__all__ = ["ArraySpec", "DMEnvPool", "EnvPool", "EnvSpec", "GymnasiumEnvPool"]
