"""``envpool.python.dm_envpool``: EnvPool 1.2's dm_env mixin path."""

from __future__ import annotations

from envpool._interfaces import DMEnvPoolMixin

__all__ = ["DMEnvPoolMixin"]
