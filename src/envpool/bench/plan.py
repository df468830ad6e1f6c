"""From arguments to a plan: tasks, cases (num_envs/batch_size/threads), engines, who runs what."""

from __future__ import annotations

import ast
import dataclasses
import json
from typing import Any

from envpool.bench import engines, gym_tasks, machine
from envpool.bench.engines import Engine
from envpool.bench.errors import UsageError

DEFAULT_TASKS = ("CartPole-v1", "Pong-v5", "HalfCheetah-v4")  # those this build registers
DEFAULT_NUM_ENVS = (1, 8, 64)


@dataclasses.dataclass
class Task:
    task_id: str
    registered: bool  # in *our* registry
    family: str | None = None
    kind: str | None = None  # the family's kind from _envpool.families(): "atari", "mujoco", ...
    config: dict = dataclasses.field(default_factory=dict)  # registered overrides, the family's own keys
    full_config: dict = dataclasses.field(default_factory=dict)  # make_spec's config
    frame_skip: int = 1
    # A multi-task pool ("Pong-v5+Breakout-v5": envpool.make([...]) over the ids).
    task_ids: tuple[str, ...] = ()
    options: dict = dataclasses.field(default_factory=dict)  # --option KEY=VALUE (also in the configs)
    # A gymnasium:ID task (envpool.bench.gym_tasks): its id, make_id, module; options go to gymnasium.make.
    gymnasium: dict | None = None

    @property
    def multi_task(self) -> bool:
        return len(self.task_ids) > 1


@dataclasses.dataclass(frozen=True)
class Case:
    task: str
    num_envs: int
    batch_size: int
    num_threads: int

    @property
    def mode(self) -> str:
        return "sync" if self.batch_size == self.num_envs else "async"


def _jsonable(d: dict) -> dict:
    return json.loads(json.dumps(d, default=str))


def families() -> dict[str, dict]:
    from envpool import _envpool

    return _envpool.families()


def resolve_task(task_id: str) -> Task:
    """Our registry's facts about ``task_id`` (``registered=False`` if this build lacks it).

    The config is the family's defaults with the task's registered overrides,
    as ``make`` would get them, read without constructing anything (no model
    is loaded here).
    """
    from envpool import _envpool
    from envpool._config import registered_engine_config
    from envpool.registration import lookup

    if gym_tasks.is_gymnasium(task_id):
        return Task(**gym_tasks.resolve(task_id, {}))
    if "+" in task_id:  # a multi-task pool: the facts of its first task, every id registered
        parts = [resolve_task(t) for t in task_id.split("+")]
        if not all(p.registered for p in parts):
            return Task(task_id, registered=False)
        first = parts[0]
        full = dict(first.full_config)
        if first.kind == "atari":
            full["full_action_space"] = True  # every game the same 18 actions (make requires equal specs)
        return dataclasses.replace(first, task_id=task_id, full_config=full, task_ids=tuple(p.task_id for p in parts))
    try:
        ts = lookup(task_id)
    except ValueError:
        return Task(task_id, registered=False)
    defaults = _jsonable(dict(_envpool.family_defaults(ts.family)))
    # as a make with no options completes them (e.g. the dm_control tasks' model XML)
    overrides = _jsonable(registered_engine_config(ts))
    config = {k: v for k, v in overrides.items() if k in defaults}  # not e.g. reward_threshold
    full = {**defaults, **overrides}
    kind = families()[ts.family]["kind"]
    return Task(task_id, True, ts.family, kind, config, full, int(full.get("frame_skip", 1) or 1))


def quick_num_envs(task: Task) -> list[int]:
    """num_envs of the no-argument run: families slow to construct and reset (Atari,
    MuJoCo) give a shorter list in their bench defaults."""
    quick = families().get(task.family or "", {}).get("bench", {}).get("quick_num_envs")
    return [int(n) for n in quick] if quick else list(DEFAULT_NUM_ENVS)


@dataclasses.dataclass
class Plan:
    engines: list[Engine]
    tasks: dict[str, Task]
    cases: list[Case]
    baseline: str
    seconds: float
    warmup: float
    repeats: int
    num_threads: list[int]
    seed: int
    argv: list[str]
    interpreters: dict[str, dict]  # prepare() results of python:PATH engines
    reasons: dict[tuple[str, Case], str | None]  # (engine, case) -> why not (None: runs)
    options: dict[str, Any] = dataclasses.field(default_factory=dict)  # --option KEY=VALUE
    num_workers: int | None = None  # --num-workers (None: each case's num_threads)

    def runs(self, engine: Engine, case: Case) -> bool:
        return self.reasons[(engine.name, case)] is None

    def settings(self) -> dict[str, Any]:
        return {
            "tasks": list(self.tasks),
            "engines": [e.name for e in self.engines],
            "baseline": self.baseline,
            "seconds": self.seconds,
            "warmup": self.warmup,
            "repeats": self.repeats,
            "num_threads": self.num_threads,
            "seed": self.seed,
            "options": self.options,
            "num_workers": self.num_workers,
        }


def _engines(names: list[str] | None, pythons: list[str]) -> list[Engine]:
    from envpool.registration import list_all_envs

    out: list[Engine] = []
    for name in names or engines.defaults():
        if name == "all":
            out.extend(engines.get(n) for n in engines.names())
            continue
        try:
            out.append(engines.get(name))
        except KeyError:
            hint = " (task ids go before -e, or after --)" if name in list_all_envs() else ""
            raise UsageError(
                f"unknown engine {name!r}{hint} (choose from {', '.join(engines.names())}, python:PATH, all)"
            ) from None
    out.extend(engines.get("python:" + p) for p in pythons)
    return list({e.name: e for e in out}.values())  # dedupe, keep order


def _cases(args, tasks: dict[str, Task], quick: bool) -> list[Case]:
    def with_threads(t: str, n: int, b: int) -> list[Case]:
        return [Case(t, n, b, max(1, min(k, n))) for k in args.num_threads]

    if quick:
        cases = [c for t, task in tasks.items() for n in quick_num_envs(task) for c in with_threads(t, n, n)]
        return list(dict.fromkeys(cases))
    nums = args.num_envs or list(DEFAULT_NUM_ENVS)
    if args.batch_size is None:
        batches = list(nums)
    elif len(args.batch_size) == 1:
        batches = [args.batch_size[0]] * len(nums)
    elif len(args.batch_size) == len(nums):
        batches = list(args.batch_size)
    else:
        raise UsageError(
            f"--batch-size takes 1 value or one per --num-envs value ({len(nums)}), got {len(args.batch_size)}"
        )
    for n, b in zip(nums, batches, strict=True):
        if n < 1:
            raise UsageError(f"num_envs must be >= 1, got {n}")
        if b < 1 or b > n:
            raise UsageError(f"batch_size must be in 1..num_envs, got batch_size={b} for num_envs={n}")
    pairs = list(dict.fromkeys(zip(nums, batches, strict=True)))
    return list(dict.fromkeys(c for t in tasks for n, b in pairs for c in with_threads(t, n, b)))


def parse_options(items: list[str]) -> dict[str, Any]:
    """``KEY=VALUE`` strings -> a dict; a value is a Python literal (True, 84, 0.5, [1, 2]) or else a string."""
    out: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise UsageError(f"--option takes KEY=VALUE, got {item!r}")
        try:
            out[key] = ast.literal_eval(text.strip())
        except (ValueError, SyntaxError):
            out[key] = text.strip()
    return out


def apply_options(task: Task, options: dict[str, Any]) -> Task:
    """The task with ``options`` in its config (as ``make`` would get them); UsageError for a key
    its family does not take. A gymnasium: task takes any key (for gymnasium.make)."""
    if task.gymnasium is not None:
        return gym_tasks.with_options(task, options)
    if not options or not task.registered:
        return task
    from envpool import _envpool

    known = set(_envpool.family_defaults(task.family))
    unknown = [k for k in options if k not in known]
    if unknown:
        raise UsageError(f"{task.task_id} takes no option {unknown[0]!r} (its family {task.family!r} has none)")
    full = {**task.full_config, **_jsonable(options)}
    return dataclasses.replace(
        task,
        config={**task.config, **_jsonable(options)},
        full_config=full,
        frame_skip=int(full.get("frame_skip", 1) or 1),
        options=_jsonable(options),
    )


def make_plan(args) -> Plan:
    """Validate the parsed arguments (``cli.build_parser``); UsageError on a bad one."""
    from envpool.registration import list_all_envs, lookup

    registered = list_all_envs()
    default_run = not args.tasks
    task_ids = list(dict.fromkeys(args.tasks)) or [t for t in DEFAULT_TASKS if t in registered] or ["CartPole-v1"]
    quick = default_run and not args.num_envs and not args.batch_size
    seconds = args.seconds if args.seconds is not None else (0.5 if quick else 2.0)
    warmup = args.warmup if args.warmup is not None else (0.2 if quick else 0.5)
    repeats = args.repeats if args.repeats is not None else 3
    if args.num_threads is None:
        args.num_threads = [machine.usable_cores()]
    if seconds <= 0 or warmup < 0 or repeats < 1 or min(args.num_threads) < 1:
        raise UsageError("--seconds must be > 0, --warmup >= 0, --repeats >= 1, --num-threads >= 1")
    num_workers = getattr(args, "num_workers", None)
    if num_workers is not None and num_workers < 1:
        raise UsageError(f"--num-workers must be >= 1, got {num_workers}")

    chosen = _engines(args.engines, args.python)
    baseline = args.baseline
    if baseline is None:
        baseline = "envpool" if any(e.name == "envpool" for e in chosen) else chosen[0].name
    if baseline not in {e.name for e in chosen}:
        try:
            candidate = engines.get(baseline)
        except KeyError:
            raise UsageError(f"unknown baseline engine {baseline!r}") from None
        if baseline in engines.registry():  # a named engine left out of -e
            raise UsageError(f"baseline {baseline!r} is not among the engines ({', '.join(e.name for e in chosen)})")
        chosen.append(candidate)  # --baseline python:PATH measures that interpreter too

    options = parse_options(getattr(args, "option", None) or [])
    tasks = {t: apply_options(resolve_task(t), options) for t in task_ids}
    interpreters = {e.name: e.prepare(task_ids) for e in chosen if e.prepare is not None}
    for t in tasks.values():
        if t.registered or t.gymnasium is not None:
            continue
        known = [info["tasks"][t.task_id] for info in interpreters.values() if t.task_id in info.get("tasks", {})]
        if not known:
            try:
                lookup(t.task_id)  # its "did you mean" error
            except ValueError as e:
                raise UsageError(str(e)) from None
        t.frame_skip = int(known[0].get("frame_skip", 1))  # known only to another interpreter

    cases = _cases(args, tasks, quick)
    reasons = {(e.name, c): e.available(tasks[c.task], c) for e in chosen for c in cases}
    if len(chosen) == 1:
        (engine,) = chosen
        bad = [(c, reasons[(engine.name, c)]) for c in cases if reasons[(engine.name, c)]]
        if len(bad) == len(cases):
            c, r = bad[0]
            raise UsageError(
                f"engine {engine.name!r} is unavailable for {c.task} "
                f"(num_envs={c.num_envs}, batch_size={c.batch_size}): {r}"
            )
    return Plan(
        chosen,
        tasks,
        cases,
        baseline,
        seconds,
        warmup,
        repeats,
        args.num_threads,
        args.seed,
        list(args.argv),
        interpreters,
        reasons,
        options,
        num_workers,
    )
