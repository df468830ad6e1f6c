"""``envpool.python.gymnasium_envpool``: EnvPool 1.2's gymnasium mixin path."""

from __future__ import annotations


class GymnasiumEnvPoolMixin:
    """Base of the gymnasium and gym pools (EnvPool 1.2's name and module path)."""

    # EnvPool 1.2.5's flag for older vector-aware wrappers; a class attribute, as
    # older scripts assign it (CleanRL's envs.is_vector_env = True).
    is_vector_env: bool = True


__all__ = ["GymnasiumEnvPoolMixin"]
