"""EnvPool 1.2's module paths (``envpool.python.envpool.EnvPoolMixin``, ...), so code
that imports from them or checks ``isinstance`` against them works unchanged."""
