"""``envpool.python.gymnasium_envpool``: EnvPool 1.2's gymnasium mixin path."""

from __future__ import annotations

from envpool._interfaces import GymnasiumEnvPoolMixin

__all__ = ["GymnasiumEnvPoolMixin"]
