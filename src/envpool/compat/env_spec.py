"""``envpool.python.env_spec``: EnvPool 1.2's spec module path."""

from envpool._spec import ArraySpec, EnvSpec

EnvSpecMixin = EnvSpec

__all__ = ["ArraySpec", "EnvSpec", "EnvSpecMixin"]
