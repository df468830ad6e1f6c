"""EnvPool 1.2's module paths: ``envpool.python.*`` (EnvPool's name of this package,
:class:`Alias`) and its per-family module paths (``envpool.box2d.registration``, ...,
``envpool.entry``), which EnvPool's own tests and code written for it import to
register a family's tasks. ``import envpool`` has registered every task, so each
imports as a module that registers nothing, found by :class:`Finder` (appended to
``sys.meta_path``, after the package's real modules); a path whose family is not
compiled in is not found. Three hold EnvPool's task list of their family, of the tasks
registered here (TASK_LISTS). EnvPool's ``envpool.registration.make``/``make_gym``/``make_dm``/
``make_gymnasium``/``make_spec`` are set on our registry module by ``envpool``'s
``__init__`` (the registry itself imports nothing of the package)."""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
from collections.abc import Iterable, Sequence

from envpool import registration

# EnvPool's module -> the task table whose family it registers ("" for every table)
PATHS = {
    "envpool.entry": "",
    "envpool.atari.registration": "envpool.tasks.atari",
    "envpool.box2d.registration": "envpool.tasks.box2d",
    "envpool.classic_control.registration": "envpool.tasks.classic_control",
    "envpool.toy_text.registration": "envpool.tasks.toy_text",
    "envpool.minigrid.registration": "envpool.tasks.minigrid",
    "envpool.mujoco.gym.registration": "envpool.tasks.mujoco",
    "envpool.mujoco.dmc.registration": "envpool.tasks.dmc",
    "envpool.mujoco.metaworld.registration": "envpool.tasks.metaworld",
    "envpool.procgen.registration": "envpool.tasks.procgen",
    "envpool.mujoco.robotics.registration": "envpool.tasks.robotics",
}


class Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds the paths of PATHS whose task table is loaded, and their parent packages."""

    def __init__(self, tables: Iterable[str]) -> None:
        loaded = set(tables)
        self.modules = {m for m, table in PATHS.items() if not table or table in loaded}
        self.packages = {m.rpartition(".")[0] for m in self.modules} - {"envpool"}
        self.packages |= {p.rpartition(".")[0] for p in self.packages} - {"envpool"}

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname in self.packages:
            return importlib.util.spec_from_loader(fullname, self, is_package=True)
        if fullname in self.modules:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None  # the default module

    def exec_module(self, module: types.ModuleType) -> None:
        module.__doc__ = (
            f"EnvPool 1.2's {module.__name__}: registers nothing, as `import envpool` registers every "
            "task; holds EnvPool's task list of the family, if it had one (of the tasks registered here)."
        )
        if module.__name__ in TASK_LISTS:
            name, build = TASK_LISTS[module.__name__]
            setattr(module, name, build())


def _atari_game_list() -> list[str]:
    """EnvPool's ``atari_game_list``: the games' snake_case ROM names."""
    tasks = (registration.lookup(t) for t in registration.list_all_envs())
    return list(dict.fromkeys(t.config["task"] for t in tasks if t.family == "Atari" and "task" in t.config))


def _gym_mujoco_envs() -> list[tuple[str, tuple[str, ...], int]]:
    """EnvPool's ``gym_mujoco_envs``: (task, its versions, max_episode_steps)."""
    from envpool.tasks import mujoco

    ids = set(registration.list_all_envs())
    out = []
    for task, steps, *_ in mujoco._TASKS:
        versions = tuple(v for v in ("v2", "v3", "v4", "v5") if f"{task}-{v}" in ids)
        if versions:
            out.append((task, versions, steps))
    return out


def _dmc_mujoco_envs() -> list[tuple[str, str, int]]:
    """EnvPool's ``dmc_mujoco_envs``: (domain, task, max_episode_steps), dm_control's names."""
    from envpool.tasks import dmc

    domains = {dmc.family_of(d): d for d in dmc._DOMAINS}
    tasks = (registration.lookup(t) for t in registration.list_all_envs())
    return [
        (domains[t.family], t.config["task_name"], int(t.config.get("max_episode_steps", 0)))
        for t in tasks
        if t.family in domains
    ]


def _metaworld_v3_envs() -> list[str]:
    """EnvPool's ``metaworld_v3_envs``: metaworld's task names, of the ids built here."""
    from envpool.tasks import metaworld

    return [n for n in metaworld.METAWORLD_V3 if metaworld.task_id(n) in metaworld.TASK_IDS]


# EnvPool's module -> (its task list's name, the list from the tasks registered here)
TASK_LISTS = {
    "envpool.atari.registration": ("atari_game_list", _atari_game_list),
    "envpool.mujoco.gym.registration": ("gym_mujoco_envs", _gym_mujoco_envs),
    "envpool.mujoco.dmc.registration": ("dmc_mujoco_envs", _dmc_mujoco_envs),
    "envpool.mujoco.metaworld.registration": ("metaworld_v3_envs", _metaworld_v3_envs),
}


# EnvPool's name of this package (envpool/compat).
OLD_PACKAGE, PACKAGE = "envpool.python", __name__.rpartition(".")[0]


class Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports ``envpool.python[.<module>]`` as the module ``envpool.compat[.<module>]``
    itself (one module object under both names: EnvPool 1.2's imports get the classes
    that the pools are instances of). First on ``sys.meta_path``: the package's own finder
    would load a second copy of each module under the old name."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != OLD_PACKAGE and not fullname.startswith(OLD_PACKAGE + "."):
            return None
        new = PACKAGE + fullname[len(OLD_PACKAGE) :]
        if importlib.util.find_spec(new) is None:
            return None
        return importlib.util.spec_from_loader(fullname, self, is_package=fullname == OLD_PACKAGE)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        # The module keeps its own name and spec (the import system sets them only where
        # absent): sys.modules holds it under both names.
        return importlib.import_module(PACKAGE + spec.name[len(OLD_PACKAGE) :])

    def exec_module(self, module: types.ModuleType) -> None:
        pass  # imported (executed) under its own name


def install(tables: Iterable[str]) -> None:
    """Installs the finders (once): :class:`Alias` first, and a :class:`Finder` (last) for
    the families whose task tables are loaded."""
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, (Finder, Alias))]
    sys.meta_path.insert(0, Alias())
    sys.meta_path.append(Finder(tables))
