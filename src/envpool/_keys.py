"""The engine's array names, parsed in one place.

An engine array is named by its group and key: ``"obs"`` (a group's lone array,
key ``""``) or ``"obs:<key>"`` (one array of a dict observation); likewise
``"info:<key>"``, ``"action"`` / ``"action:<key>"``, and, in same-step autoreset
batches, ``"final:obs"`` / ``"final:obs:<key>"`` / ``"final:info:<key>"`` (the group
``final:obs`` is ``final`` joined with ``obs``). The common arrays (``reward``,
``terminated``, ...) belong to no group.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

OBS = "obs"
INFO = "info"
ACTION = "action"
FINAL = "final"
FINAL_OBS = FINAL + ":" + OBS
FINAL_INFO = FINAL + ":" + INFO

T = TypeVar("T")


def name(group: str, key: str = "") -> str:
    """The array name of ``key`` in ``group``: ``("obs", "")`` -> ``"obs"``,
    ``("info", "env_id")`` -> ``"info:env_id"``."""
    return f"{group}:{key}" if key else group


def key_of(array_name: str, group: str) -> str | None:
    """The key of ``array_name`` in ``group`` (``""`` for the group's lone array), or
    None when the array is not in ``group``."""
    if array_name == group:
        return ""
    if array_name.startswith(group) and array_name[len(group) : len(group) + 1] == ":":
        return array_name[len(group) + 1 :]
    return None


def in_group(array_name: str, group: str) -> bool:
    """Whether ``array_name`` is ``group`` or ``group:<key>``."""
    return key_of(array_name, group) is not None


def split(array_name: str) -> tuple[str, str]:
    """``(group, key)`` of an obs, info or action array: ``"obs:pixels"`` ->
    ``("obs", "pixels")``, ``"action"`` -> ``("action", "")``; a common array is its own
    group with key ``""``."""
    group, _, key = array_name.partition(":")
    return group, key


def select(arrays: Mapping[str, T], group: str) -> dict[str, T]:
    """``{key: value}`` of the entries of ``arrays`` (keyed by array name) in ``group``."""
    out = {}
    for array_name, value in arrays.items():
        key = key_of(array_name, group)
        if key is not None:
            out[key] = value
    return out


def select_specs(specs: Iterable[tuple], group: str) -> list[tuple[str, Any]]:
    """``(key, spec)`` of the array specs (name first) in ``group``, in order."""
    return [(key, s) for s in specs if (key := key_of(s[0], group)) is not None]


def nest(by_key: dict[str, T]) -> T | dict[str, T]:
    """A group's value as the engine hands it out: its lone array (key ``""``), else
    the dict of its keys."""
    return by_key[""] if list(by_key) == [""] else by_key
