"""``gymnasium:<id>`` tasks: any id of gymnasium's registry, stepped as a Python env.

Task id syntax: ``gymnasium:ID[,KEY=VALUE...]``, e.g. ``gymnasium:CartPole-v1``,
``gymnasium:ALE/Pong-v5,frameskip=2`` or
``gymnasium:envpool-bench/Busy-v0,step_us=1000,spread=10``. ``ID`` is a gymnasium
id, or gymnasium's ``module:ID`` (the module is imported first, as
``gymnasium.make`` does). Each ``KEY=VALUE`` (a Python literal, else a string)
goes to ``gymnasium.make`` for this task, over the run's ``--option`` values
(which go to ``gymnasium.make`` for every ``gymnasium:`` task), so one run can
compare variants of one env (``spread=10`` against ``spread=1``).

The ``ALE/`` and ``envpool-bench/`` namespaces (``envpool.bench.gym_envs``:
the busy-wait env and preprocessed Pong) are registered by importing ale-py and
that module; engines get the id in gymnasium's ``module:ID`` form (``make_id``),
which ``gymnasium.make`` resolves in any process, whatever its start method.
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
import importlib
import json

from envpool.bench.errors import UsageError

PREFIX = "gymnasium:"
# Namespaces registered by a module gymnasium does not import itself.
NAMESPACE_MODULES = {"envpool-bench": "envpool.bench.gym_envs", "ALE": "ale_py"}
INSTALL = {"ale_py": "pip install ale-py"}


def is_gymnasium(task_id: str) -> bool:
    return task_id.startswith(PREFIX)


def parse(task_id: str) -> tuple[str, dict]:
    """``gymnasium:ID,k=v,...`` -> (``ID``, ``{k: v}``); UsageError on a malformed one."""
    body = task_id[len(PREFIX) :]
    gid, *items = body.split(",")
    gid = gid.strip()
    if not gid:
        raise UsageError(f"{task_id!r}: name a gymnasium id after 'gymnasium:' (e.g. gymnasium:CartPole-v1)")
    kwargs: dict = {}
    for item in items:
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise UsageError(f"{task_id!r}: gymnasium:ID takes ,KEY=VALUE keywords for gymnasium.make, got {item!r}")
        try:
            kwargs[key] = ast.literal_eval(text.strip())
        except (ValueError, SyntaxError):
            kwargs[key] = text.strip()
    return gid, kwargs


def split_module(gid: str) -> tuple[str | None, str]:
    """gymnasium's ``module:ID`` -> (module, ID); a namespace of ``NAMESPACE_MODULES`` names its module."""
    module, sep, name = gid.rpartition(":")
    if sep:
        return module, name
    namespace = name.split("/", 1)[0] if "/" in name else None
    return NAMESPACE_MODULES.get(namespace or ""), name


def _frame_skip(name: str, spec_kwargs: dict, kwargs: dict) -> int:
    """Emulator frames per agent step, for the frames/s column: ALE's ``frameskip``, our Pong's ``frame_skip``."""
    merged = {**spec_kwargs, **kwargs}
    if name == "envpool-bench/PongPreprocessed-v0":
        value = merged.get("frame_skip", 4)
    elif name.startswith("ALE/"):
        value = merged.get("frameskip", 1)
    else:
        value = 1
    return value if isinstance(value, int) and value >= 1 else 1  # ALE's stochastic (lo, hi) frameskip: 1


def resolve(task_id: str, options: dict) -> dict:
    """The fields of the ``plan.Task`` of a ``gymnasium:`` task id (``options``: the run's
    ``--option`` values)."""
    gid, own = parse(task_id)
    kwargs = json.loads(json.dumps({**options, **own}, default=str))
    try:
        import gymnasium
    except ImportError:
        raise UsageError(f"{task_id}: gymnasium not installed: pip install gymnasium") from None
    module, name = split_module(gid)
    if module is not None:
        try:
            importlib.import_module(module)
        except ImportError as e:
            fix = INSTALL.get(module.split(".")[0], "")
            raise UsageError(f"{task_id}: importing {module!r} (it registers {name!r}) fails: {e}. {fix}") from None
    if name not in gymnasium.registry:
        close = difflib.get_close_matches(name, list(gymnasium.registry), n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise UsageError(f"{task_id}: {name!r} is not in gymnasium's registry{hint}")
    spec = gymnasium.registry[name]
    make_id = f"{module}:{name}" if module is not None else name
    atari = name.startswith("ALE/") or name == "envpool-bench/PongPreprocessed-v0"
    modules = ["ale_py", "cv2"] if name == "envpool-bench/PongPreprocessed-v0" else ["ale_py"] if atari else []
    info = {"id": gid, "name": name, "make_id": make_id, "module": module, "modules": modules}
    return dict(
        task_id=task_id,
        registered=False,
        kind="gymnasium",
        frame_skip=_frame_skip(name, dict(spec.kwargs), kwargs),
        options=kwargs,
        gymnasium=info,
    )


def with_options(task, options: dict):
    """The task with the run's ``--option`` values under its own ``,KEY=VALUE`` ones."""
    _, own = parse(task.task_id)
    kwargs = json.loads(json.dumps({**options, **own}, default=str))
    return dataclasses.replace(task, options=kwargs)
