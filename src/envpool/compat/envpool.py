"""``envpool.python.envpool.EnvPoolMixin``: the base of every pool (gymnasium, gym, dm).

Clients check ``isinstance(env, envpool.python.envpool.EnvPoolMixin)`` (TorchRL's
``MultiThreadedEnvWrapper``); every pool that :func:`envpool.make` returns passes.
"""

from __future__ import annotations

from envpool._interfaces import EnvPoolMixin

__all__ = ["EnvPoolMixin"]
