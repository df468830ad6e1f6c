"""Task lists from the registry: a task registered in a family is covered by the
generic tests of its kind at once, with no list in a test to extend."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterable, Mapping

import envpool
from envpool import _envpool
from envpool.registration import lookup


def family(task_id: str) -> str:
    """The engine family a task id runs."""
    return lookup(task_id).family


def kind(task_id: str) -> str:
    """The kind of the task's family (``classic_control``, ``atari``, ``mujoco``, ``dmc``, ...)."""
    return _envpool.families()[family(task_id)]["kind"]


def tasks(of_kind: str) -> list[str]:
    """Every registered task id of a kind, in registration order."""
    return [t for t in envpool.list_all_envs() if kind(t) == of_kind]


def builtin_tasks(*kinds: str) -> list[str]:
    """The ids of ``kinds`` that envpool itself registers, read in a fresh process (tests
    register tasks of their own in this one, e.g. ``ShortCartPole-v0``)."""
    code = (
        "import sys, envpool; from envpool import _envpool; from envpool.registration import lookup\n"
        "print('\\n'.join(t for t in envpool.list_all_envs()"
        " if _envpool.families()[lookup(t).family]['kind'] in sys.argv[1:]))"
    )
    out = subprocess.run([sys.executable, "-c", code, *kinds], capture_output=True, text=True, check=True)
    return out.stdout.split()


def one_per_family(ids: Iterable[str]) -> list[str]:
    """One task id of each family among ``ids``: its last registered (its newest version)."""
    last: dict[str, str] = {}
    for t in ids:
        last[family(t)] = t
    return list(last.values())


def missing(expectations: Mapping[str, object], ids: Iterable[str]) -> list[str]:
    """The ids with no entry in ``expectations``: a test that needs one per task
    asserts this is empty, so a new task without its expectation fails loudly."""
    return [t for t in ids if t not in expectations]
