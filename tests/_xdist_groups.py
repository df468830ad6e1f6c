"""pytest-xdist's ``--dist loadgroup`` on pytest 9.2: keeps ``xdist_group`` marks working.

xdist 3.8 tells its controller a case's group by renaming the case to ``<nodeid>@<group>``
through ``item._nodeid``; pytest 9.2 derives ``nodeid`` from a structured id instead, so the
renaming is lost and every case is handed out alone (pytest-dev/pytest-xdist#1386): the Ray
cases ran on both workers at once and a file's module fixtures were rebuilt per chunk. Called
from ``tests/conftest.py``'s collection hook on each worker; it renames through the structured
id, as xdist's own renaming does on older pytest (where it does nothing).
"""

from __future__ import annotations


def keep_groups(config, items) -> None:
    if not getattr(config.option, "loadgroup", False):  # set on xdist workers under --dist loadgroup
        return
    try:
        from _pytest.nodeid import NodeId
    except ImportError:  # pytest before 9.2: xdist's renaming works
        return
    for item in items:
        names = sorted(
            {str(m.args[0] if m.args else m.kwargs.get("name", "default")) for m in item.iter_markers("xdist_group")}
        )
        suffix = "@" + "_".join(names)
        if names and not item.nodeid.endswith(suffix):
            item._id = NodeId.parse(item.nodeid + suffix)
