"""``python:PATH``: the ``envpool`` that another interpreter imports (``--python PATH``).

The worker runs under ``PATH`` with a clean environment and runs the
``envpool`` engine's ``run`` there, so it measures that interpreter's EnvPool
(e.g. a venv with the published package). A probe (one subprocess per
interpreter, per run) reads its versions and which of the tasks it registers;
the probe is the JSON's ``interpreters`` entry.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile

from . import Engine, _common
from ._common import clean_env
from .envpool_api import run as run_envpool

PREFIX = "python:"

_PROBE = r"""
import json, sys, platform
out = {"python": platform.python_version(), "executable": sys.executable}
try:
    import numpy
    out["numpy"] = numpy.__version__
    import envpool
    out["envpool"] = getattr(envpool, "__version__", "?")
    out["envpool_path"] = envpool.__file__
    names = set(envpool.list_all_envs())
    out["tasks"] = {}
    for t in json.loads(sys.argv[1]):
        if t not in names:
            continue
        fs = 1
        try:
            c = envpool.make_spec(t).config
            fs = int((c.get("frame_skip", 1) if isinstance(c, dict) else getattr(c, "frame_skip", 1)) or 1)
        except Exception:
            pass
        out["tasks"][t] = {"frame_skip": fs}
except Exception as e:
    out["error"] = f"{type(e).__name__}: {e}"
print(json.dumps(out))
"""


def probe(path: str, tasks: list[str]) -> dict:
    """Versions of ``path``'s python/numpy/envpool and which of ``tasks`` it registers."""
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        return {"error": f"no executable interpreter at {path}"}
    try:
        p = subprocess.run(
            [path, "-c", _PROBE, json.dumps(tasks)],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tempfile.gettempdir(),
            env=clean_env(),
        )
        return json.loads(p.stdout.strip().splitlines()[-1])
    except Exception as e:  # noqa: BLE001
        return {"error": f"could not run {path}: {type(e).__name__}: {e}"}


def bind(path: str) -> Engine:
    probed: dict[str, dict] = {}

    def prepare(tasks: list[str]) -> dict:
        probed["info"] = probe(path, tasks)
        return probed["info"]

    def available(task, case) -> str | None:
        if _common.single_task(task):
            return _common.single_task(task)
        info = probed.get("info") or prepare([task.task_id])
        if "error" in info:
            return info["error"]
        if task.task_id not in info.get("tasks", {}):
            return f"task not registered in envpool {info.get('envpool', '?')} there"
        return None

    return Engine(
        PREFIX + path,
        f"the envpool imported by {path}",
        run_envpool,
        available,
        order=100,
        python=path,
        prepare=prepare,
    )


ENGINES = (
    Engine(
        PREFIX,
        "the envpool imported by another interpreter (also --python PATH)",
        run_envpool,
        lambda task, case: "name an interpreter: python:PATH",
        order=100,
        bind=bind,
    ),
)
