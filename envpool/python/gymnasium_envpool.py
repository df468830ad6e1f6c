"""``envpool.python.gymnasium_envpool``: EnvPool 1.2's gymnasium mixin path."""

from __future__ import annotations


class GymnasiumEnvPoolMixin:
    """Base of the gymnasium and gym pools (EnvPool 1.2's name and module path)."""


__all__ = ["GymnasiumEnvPoolMixin"]
