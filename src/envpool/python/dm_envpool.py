"""``envpool.python.dm_envpool``: EnvPool 1.2's dm_env mixin path."""

from __future__ import annotations


class DMEnvPoolMixin:
    """Base of the dm_env pools (EnvPool 1.2's name and module path)."""


__all__ = ["DMEnvPoolMixin"]
