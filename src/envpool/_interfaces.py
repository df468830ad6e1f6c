"""The types of envpool's pools, for annotations and ``isinstance``: every pool is an
:class:`EnvPool`, the gymnasium and gym pools are :class:`GymnasiumEnvPool`\\ s (gymnasium
``VectorEnv``\\ s), the dm_env pools :class:`DMEnvPool`\\ s.

They keep EnvPool 1.2's class names (``EnvPoolMixin``, ...), which its module paths
(:mod:`envpool.python`, the compatibility package) re-export from here.
"""

from __future__ import annotations

from abc import ABC


class EnvPoolMixin(ABC):  # noqa: B024 - a marker base, as in EnvPool
    """Base class of every envpool pool (EnvPool 1.2's name; ``envpool.EnvPool``).

    Clients check ``isinstance(env, envpool.python.envpool.EnvPoolMixin)`` (TorchRL's
    ``MultiThreadedEnvWrapper``); every pool that :func:`envpool.make` returns passes."""


class GymnasiumEnvPoolMixin:
    """Base of the gymnasium and gym pools (EnvPool 1.2's name; ``envpool.GymnasiumEnvPool``)."""

    # EnvPool 1.2.5's flag for older vector-aware wrappers; a class attribute, as
    # older scripts assign it (CleanRL's envs.is_vector_env = True).
    is_vector_env: bool = True


class DMEnvPoolMixin:
    """Base of the dm_env pools (EnvPool 1.2's name; ``envpool.DMEnvPool``)."""


EnvPool = EnvPoolMixin
GymnasiumEnvPool = GymnasiumEnvPoolMixin
DMEnvPool = DMEnvPoolMixin

__all__ = ["DMEnvPool", "DMEnvPoolMixin", "EnvPool", "EnvPoolMixin", "GymnasiumEnvPool", "GymnasiumEnvPoolMixin"]
