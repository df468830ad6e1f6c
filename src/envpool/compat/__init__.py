"""EnvPool 1.2's module paths and names, so code written for it imports and checks
``isinstance`` unchanged: ``envpool.python.envpool.EnvPoolMixin``, ... (this package,
imported under EnvPool's name ``envpool.python``: :class:`~envpool.compat.module_paths.Alias`)
and ``envpool.<family>.registration`` (:mod:`envpool.compat.module_paths`)."""
