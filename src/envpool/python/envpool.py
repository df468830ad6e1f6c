"""``envpool.python.envpool.EnvPoolMixin``: the base of every pool (gymnasium, gym, dm).

Clients check ``isinstance(env, envpool.python.envpool.EnvPoolMixin)`` (TorchRL's
``MultiThreadedEnvWrapper``); every pool that :func:`envpool.make` returns passes.
"""

from __future__ import annotations

from abc import ABC


class EnvPoolMixin(ABC):  # noqa: B024 - a marker base, as in EnvPool
    """Base class of every envpool pool (EnvPool 1.2's name and module path)."""


__all__ = ["EnvPoolMixin"]
