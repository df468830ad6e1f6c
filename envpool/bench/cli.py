"""``envpool-bench``: argument parsing, planning, interleaved runs, the report.

See the package docstring (``envpool.bench``) for the method and the JSON
schema.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from envpool.bench import machine
from envpool.bench.stats import ratio_summary, summary

WORKER = Path(__file__).resolve().with_name("worker.py")
RESULT_TAG = "@@envpool-bench-result@@ "  # same as worker.RESULT_TAG
SCHEMA = "envpool-bench/1"

BUILTIN_ENGINES = ("envpool", "gymnasium-sync", "gymnasium-async", "ale-vector", "raw", "raw-ale-py")
DEFAULT_ENGINES = ("envpool", "gymnasium-sync", "ale-vector", "raw", "raw-ale-py")
DEFAULT_TASKS = ("CartPole-v1", "Pong-v5")
DEFAULT_NUM_ENVS = (1, 8, 64)
# the no-argument run keeps to about a minute: emulators are slow to construct
# and reset, so Atari/MuJoCo stop at 8 envs there
QUICK_NUM_ENVS = {"atari": (1, 8), "mujoco": (1, 8)}


class UsageError(Exception):
    """A bad argument: reported as one line, exit code 2."""


# --- tasks and cases ---------------------------------------------------------------


@dataclasses.dataclass
class Task:
    task_id: str
    registered: bool  # in *our* registry
    family: str | None = None
    kind: str = "classic"  # "atari" | "mujoco" | "classic"
    config: dict = dataclasses.field(default_factory=dict)  # registered overrides
    full_config: dict = dataclasses.field(default_factory=dict)  # make_spec's config
    frame_skip: int = 1

    @property
    def gym_id(self) -> str:
        if self.kind == "atari":
            return "ALE/" + self.task_id.rsplit("-", 1)[0] + "-v5"
        return self.task_id

    def atari_options(self) -> dict:
        """Our Atari config as ale_py AtariVectorEnv / AtariPreprocessing options."""
        c = self.full_config
        if self.kind != "atari":
            return {}
        out: dict[str, Any] = {"game": c.get("task", self.task_id.rsplit("-", 1)[0].lower())}
        rename = {
            "frame_skip": "frameskip",
            "stack_num": "stack_num",
            "noop_max": "noop_max",
            "episodic_life": "episodic_life",
            "reward_clip": "reward_clipping",
            "use_fire_reset": "use_fire_reset",
            "img_height": "img_height",
            "img_width": "img_width",
            "gray_scale": "grayscale",
            "repeat_action_probability": "repeat_action_probability",
            "full_action_space": "full_action_space",
        }
        for ours, theirs in rename.items():
            if ours in c:
                out[theirs] = c[ours]
        if "max_episode_steps" in c:
            out["max_num_frames_per_episode"] = int(c["max_episode_steps"]) * int(c.get("frame_skip", 4))
        return out


def _jsonable(d: dict) -> dict:
    return json.loads(json.dumps(d, default=str))


def resolve_task(task_id: str) -> Task:
    import envpool
    from envpool.registration import lookup

    try:
        ts = lookup(task_id)
    except ValueError:
        return Task(task_id, registered=False)
    config = _jsonable(dict(ts.config))
    try:  # the raw ceiling takes the family's own keys only (not e.g. reward_threshold)
        from envpool import _envpool

        known = _envpool.family_defaults(ts.family)
        config = {k: v for k, v in config.items() if k in known}
    except Exception:
        pass
    try:
        full = _jsonable(dict(envpool.make_spec(task_id).config))
    except Exception:
        full = dict(config)
    if ts.family == "Atari":
        kind = "atari"
    elif "assets_dir" in full or "assets_dir" in config:
        kind = "mujoco"
    else:
        kind = "classic"
    return Task(task_id, True, ts.family, kind, config, full, int(full.get("frame_skip", 1) or 1))


@dataclasses.dataclass(frozen=True)
class Case:
    task: str
    num_envs: int
    batch_size: int
    num_threads: int

    @property
    def mode(self) -> str:
        return "sync" if self.batch_size == self.num_envs else "async"


# --- engines: availability ------------------------------------------------------------


def _has_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _clean_env(extra_path: str | None) -> dict:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env.pop("PYTHONHOME", None)
    if extra_path:
        env["PYTHONPATH"] = extra_path
    env.setdefault("PYTHONWARNINGS", "ignore")
    return env


def _our_pythonpath() -> str:
    """The folder our ``envpool`` was imported from, so workers import the same one."""
    import envpool

    return str(Path(envpool.__file__).resolve().parent.parent)


_PROBE = r"""
import json, sys, platform
out = {"python": platform.python_version(), "executable": sys.executable}
try:
    import numpy
    out["numpy"] = numpy.__version__
    import envpool
    out["envpool"] = getattr(envpool, "__version__", "?")
    out["envpool_path"] = envpool.__file__
    tasks = json.loads(sys.argv[1])
    names = set(envpool.list_all_envs())
    out["tasks"] = {}
    for t in tasks:
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


def probe_interpreter(path: str, tasks: list[str]) -> dict:
    """Versions of ``path``'s python/numpy/envpool and which tasks it knows."""
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        return {"error": f"no executable interpreter at {path}"}
    try:
        p = subprocess.run(
            [path, "-c", _PROBE, json.dumps(tasks)],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tempfile.gettempdir(),
            env=_clean_env(None),
        )
        return json.loads(p.stdout.strip().splitlines()[-1])
    except Exception as e:  # noqa: BLE001
        return {"error": f"could not run {path}: {type(e).__name__}: {e}"}


class Availability:
    """Why an engine can't run a task/case (None when it can)."""

    def __init__(self, tasks: dict[str, Task], probes: dict[str, dict]) -> None:
        self.tasks = tasks
        self.probes = probes
        self._raw: dict[str, str | None] = {}
        self._gym_ids: set[str] | None = None

    def _gymnasium_ids(self) -> set[str]:
        if self._gym_ids is None:
            import gymnasium

            if _has_module("ale_py"):
                try:
                    import ale_py

                    gymnasium.register_envs(ale_py)
                except Exception:
                    pass
            self._gym_ids = set(gymnasium.registry)
        return self._gym_ids

    def _raw_reason(self, t: Task) -> str | None:
        if t.family not in self._raw:
            from envpool import _envpool

            try:
                _envpool.raw_ceiling(t.family, t.config, 1, 0.0)
                self._raw[t.family] = None
            except ValueError as e:
                self._raw[t.family] = str(e)
            except Exception as e:  # noqa: BLE001
                self._raw[t.family] = f"{type(e).__name__}: {e}"
        return self._raw[t.family]

    def reason(self, engine: str, case: Case) -> str | None:
        t = self.tasks[case.task]
        if engine.startswith("python:"):
            probe = self.probes[engine]
            if "error" in probe:
                return probe["error"]
            if case.task not in probe.get("tasks", {}):
                return f"task not registered in envpool {probe.get('envpool', '?')} there"
            return None
        if not t.registered:
            return "task not registered in this build"
        if engine == "envpool":
            return None
        if engine == "raw":
            return self._raw_reason(t)
        if engine in ("ale-vector", "raw-ale-py"):
            if t.kind != "atari":
                return "Atari tasks only"
            if not _has_module("ale_py"):
                return "ale-py not installed"
            return None
        if engine in ("gymnasium-sync", "gymnasium-async"):
            if not _has_module("gymnasium"):
                return "gymnasium not installed"
            if t.kind == "atari" and not _has_module("ale_py"):
                return "ale-py not installed"
            if t.kind == "mujoco" and not (_has_module("mujoco") and _has_module("imageio")):
                return "gymnasium's MuJoCo envs need mujoco and imageio: pip install 'gymnasium[mujoco]'"
            if case.mode == "async":
                return "no batch_size < num_envs mode"
            if t.gym_id not in self._gymnasium_ids():
                return f"{t.gym_id} not in gymnasium's registry"
            return None
        return f"unknown engine {engine!r}"


# --- one measurement ---------------------------------------------------------------


def measure(engine: str, case: Case, task: Task, args: argparse.Namespace, rnd: int) -> dict:
    """Run one measurement in a fresh subprocess; the worker's result dict."""
    spec: dict[str, Any] = {
        "engine": "envpool" if engine.startswith("python:") else engine,
        "task": case.task,
        "num_envs": case.num_envs,
        "batch_size": case.batch_size,
        "num_threads": case.num_threads,
        "seconds": args.seconds,
        "warmup": args.warmup,
        "seed": args.seed + rnd,
        "family": task.family,
        "kind": task.kind,
        "config": task.config,
        "gym_id": task.gym_id,
        "atari": task.atari_options(),
    }
    if engine.startswith("python:"):
        python, env = engine[len("python:") :], _clean_env(None)
    else:
        python, env = sys.executable, _clean_env(_our_pythonpath())
    cmd = [python, str(WORKER), json.dumps(spec)]
    timeout = 180 + 3 * (args.seconds + args.warmup)
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=tempfile.gettempdir(), env=env)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s", "unavailable": False}
    except OSError as e:
        return {"error": f"could not start {python}: {e}", "unavailable": True}
    for line in reversed(p.stdout.splitlines()):
        if line.startswith(RESULT_TAG):
            return json.loads(line[len(RESULT_TAG) :])
    err = [ln for ln in p.stderr.strip().splitlines() if ln.strip()]
    last = err[-1].strip() if err else "no output"
    return {"error": f"worker exited with code {p.returncode}: {last}", "unavailable": False}


# --- progress ---------------------------------------------------------------------


class Progress:
    """A plain-text progress bar on stderr (one line per step when not a tty)."""

    def __init__(self, total: int, enabled: bool = True) -> None:
        self.total, self.done, self.enabled = max(total, 1), 0, enabled
        self.tty = sys.stderr.isatty()
        self.t0 = time.monotonic()

    def update(self, label: str, final: bool = False) -> None:
        if not self.enabled or not (self.tty or final):
            return
        width = 24
        filled = int(width * self.done / self.total)
        elapsed = time.monotonic() - self.t0
        eta = elapsed / self.done * (self.total - self.done) if self.done else 0.0
        line = (
            f"[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} "
            f"{elapsed:4.0f}s elapsed, ~{eta:3.0f}s left  {label}"
        )
        if self.tty:
            sys.stderr.write("\r\033[K" + line[:160])
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()

    def step(self, label: str) -> None:
        self.done += 1
        self.update(label, final=True)

    def close(self) -> None:
        if self.enabled and self.tty:
            sys.stderr.write("\n")
            sys.stderr.flush()


# --- arguments ---------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit code 2
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="envpool-bench",
        description=(
            "Throughput of EnvPool against gymnasium's vector envs, ale-py's vector env, "
            "the raw C++ ceiling and other interpreters' envpool. With no arguments: a "
            "short default comparison (CartPole-v1, and Pong-v5 when Atari is built)."
        ),
    )
    p.add_argument("tasks", nargs="*", metavar="TASK", help="task ids (default: CartPole-v1 [+ Pong-v5])")
    p.add_argument(
        "-n", "--num-envs", nargs="+", metavar="N", help="num_envs values (default: 1 8 64)"
    )
    p.add_argument(
        "-b",
        "--batch-size",
        nargs="+",
        metavar="B",
        help="batch sizes, one per --num-envs value or one for all (default: = num_envs, "
        "i.e. sync; batch_size < num_envs is async)",
    )
    p.add_argument(
        "-t",
        "--num-threads",
        type=int,
        default=None,
        help=f"num_threads: threads stepping envs, capped at num_envs (default: usable cores = {machine.usable_cores()})",
    )
    p.add_argument("-s", "--seconds", type=float, default=None, help="timed seconds per measurement (default 2)")
    p.add_argument("-w", "--warmup", type=float, default=None, help="untimed warm-up seconds (default 0.5)")
    p.add_argument("-r", "--repeats", type=int, default=None, help="interleaved rounds (default 3)")
    p.add_argument(
        "-e",
        "--engines",
        nargs="+",
        metavar="ENGINE",
        help=f"engines among {', '.join(BUILTIN_ENGINES)}, python:PATH, or 'all' "
        f"(default: {' '.join(DEFAULT_ENGINES)})",
    )
    p.add_argument(
        "--python",
        action="append",
        default=[],
        metavar="PATH",
        help="also measure the envpool imported by this interpreter (repeatable)",
    )
    p.add_argument(
        "--baseline", default=None, help="engine the ratios are relative to (default: envpool, else the first engine)"
    )
    p.add_argument("--json", metavar="PATH", help="write the results as JSON (schema in envpool.bench's docstring)")
    p.add_argument("--plot", metavar="PATH", help="write a PNG of steps/s against num_envs per engine")
    p.add_argument("--seed", type=int, default=0, help="base seed (round r uses seed + r)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    return p


def _engines(args: argparse.Namespace) -> list[str]:
    names = list(args.engines) if args.engines else list(DEFAULT_ENGINES)
    out: list[str] = []
    for name in names:
        if name == "all":
            out.extend(BUILTIN_ENGINES)
        elif name in BUILTIN_ENGINES or (name.startswith("python:") and len(name) > len("python:")):
            out.append(name)
        else:
            raise UsageError(f"unknown engine {name!r} (choose from {', '.join(BUILTIN_ENGINES)}, python:PATH, all)")
    out.extend(f"python:{p}" for p in args.python)
    return list(dict.fromkeys(out))  # dedupe, keep order


def _cases(args: argparse.Namespace, tasks: dict[str, Task], threads: int) -> list[Case]:
    if getattr(args, "quick", False):
        return [
            Case(t, n, n, max(1, min(threads, n)))
            for t, task in tasks.items()
            for n in QUICK_NUM_ENVS.get(task.kind, DEFAULT_NUM_ENVS)
        ]
    nums = args.num_envs or list(DEFAULT_NUM_ENVS)
    if args.batch_size is None:
        batches = list(nums)
    elif len(args.batch_size) == 1:
        batches = [args.batch_size[0]] * len(nums)
    elif len(args.batch_size) == len(nums):
        batches = list(args.batch_size)
    else:
        raise UsageError(f"--batch-size takes 1 value or one per --num-envs value ({len(nums)}), got {len(args.batch_size)}")
    for n, b in zip(nums, batches):
        if n < 1:
            raise UsageError(f"num_envs must be >= 1, got {n}")
        if b < 1 or b > n:
            raise UsageError(f"batch_size must be in 1..num_envs, got batch_size={b} for num_envs={n}")
    pairs = list(dict.fromkeys(zip(nums, batches)))
    return [Case(t, n, b, max(1, min(threads, n))) for t in tasks for n, b in pairs]


def _split_ints(args: argparse.Namespace) -> None:
    """``-n 8 64 CartPole-v1``: the task ids after a number list are tasks, not numbers."""
    for name in ("num_envs", "batch_size"):
        values = getattr(args, name)
        if values is None:
            continue
        ints: list[int] = []
        for k, v in enumerate(values):
            try:
                ints.append(int(v))
            except ValueError:
                if not ints or not any(c.isalpha() for c in v):
                    flag = "--" + name.replace("_", "-")
                    raise UsageError(f"argument {flag}: invalid int value: {v!r}") from None
                args.tasks.extend(values[k:])
                break
        setattr(args, name, ints)


def _defaults(args: argparse.Namespace, registered: list[str]) -> None:
    _split_ints(args)
    default_run = not args.tasks
    if default_run:
        args.tasks = [t for t in DEFAULT_TASKS if t in registered] or ["CartPole-v1"]
    quick = args.quick = default_run and not args.num_envs and not args.batch_size
    args.seconds = args.seconds if args.seconds is not None else (0.5 if quick else 2.0)
    args.warmup = args.warmup if args.warmup is not None else (0.2 if quick else 0.5)
    args.repeats = args.repeats if args.repeats is not None else 3
    args.num_threads = args.num_threads if args.num_threads is not None else machine.usable_cores()
    if args.seconds <= 0 or args.warmup < 0 or args.repeats < 1 or args.num_threads < 1:
        raise UsageError("--seconds must be > 0, --warmup >= 0, --repeats >= 1, --num-threads >= 1")


# --- the run -----------------------------------------------------------------------


def plan(args: argparse.Namespace) -> tuple[list[str], dict[str, Task], list[Case], Availability, dict]:
    """Validate the arguments; engines, tasks, cases and who can run what."""
    from envpool.registration import list_all_envs

    registered = list_all_envs()
    _defaults(args, registered)
    engines = _engines(args)
    if args.baseline is None:
        args.baseline = "envpool" if "envpool" in engines else engines[0]
    elif args.baseline.startswith("python:") and args.baseline not in engines:
        engines.append(args.baseline)
    if args.baseline not in engines:
        if args.baseline.startswith("python:") or args.baseline in BUILTIN_ENGINES:
            raise UsageError(f"baseline {args.baseline!r} is not among the engines ({', '.join(engines)})")
        raise UsageError(f"unknown baseline engine {args.baseline!r}")
    tasks = {t: resolve_task(t) for t in dict.fromkeys(args.tasks)}
    probes = {e: probe_interpreter(e[len("python:") :], list(tasks)) for e in engines if e.startswith("python:")}
    for t in tasks.values():
        if t.registered:
            continue
        known = [e for e, p in probes.items() if t.task_id in p.get("tasks", {})]
        if not known:
            from envpool.registration import lookup

            try:
                lookup(t.task_id)
            except ValueError as e:
                raise UsageError(str(e)) from None
        # known only to another interpreter: take its frame_skip
        t.frame_skip = probes[known[0]]["tasks"][t.task_id]["frame_skip"]
    cases = _cases(args, tasks, args.num_threads)
    avail = Availability(tasks, probes)
    if len(engines) == 1:
        (engine,) = engines
        reasons = {c: avail.reason(engine, c) for c in cases}
        bad = [(c, r) for c, r in reasons.items() if r]
        if len(bad) == len(cases):
            c, r = bad[0]
            raise UsageError(f"engine {engine!r} is unavailable for {c.task} (num_envs={c.num_envs}, batch_size={c.batch_size}): {r}")
    return engines, tasks, cases, avail, probes


def run(args: argparse.Namespace) -> dict:
    engines, tasks, cases, avail, probes = plan(args)
    reasons = {(e, c): avail.reason(e, c) for e in engines for c in cases}
    todo = [(e, c) for e in engines for c in cases if reasons[(e, c)] is None]
    raw: dict[tuple[str, Case], list[dict]] = {(e, c): [] for e in engines for c in cases}
    load = machine.LoadSampler()
    started = datetime.datetime.now(datetime.timezone.utc)
    progress = Progress(len(todo) * args.repeats, enabled=not args.no_progress)
    progress.update("starting")
    for rnd in range(args.repeats):  # interleaved rounds: A B C A B C ...
        for c in cases:
            for e in engines:
                if reasons[(e, c)] is not None:
                    continue
                label = f"round {rnd + 1}/{args.repeats} {c.task} n={c.num_envs} b={c.batch_size} {e}"
                progress.update(label)
                raw[(e, c)].append(measure(e, c, tasks[c.task], args, rnd))
                load.sample()
                progress.step(label)
    progress.close()

    results = []
    for c in cases:
        base = raw[(args.baseline, c)]
        base_sps = [r.get("steps_per_s") for r in base] if base else []
        for e in engines:
            results.append(_result(e, c, tasks[c.task], reasons[(e, c)], raw[(e, c)], base_sps, args))
    interpreters = {e: p for e, p in probes.items()}
    return {
        "schema": SCHEMA,
        "created": started.isoformat(timespec="seconds"),
        "duration_s": round((datetime.datetime.now(datetime.timezone.utc) - started).total_seconds(), 1),
        "argv": list(args.argv),
        "settings": {
            "tasks": list(tasks),
            "engines": engines,
            "baseline": args.baseline,
            "seconds": args.seconds,
            "warmup": args.warmup,
            "repeats": args.repeats,
            "num_threads": args.num_threads,
            "seed": args.seed,
        },
        "machine": {**machine.describe(), "load_average": load.report()},
        "interpreters": interpreters,
        "results": results,
    }


def _result(engine: str, c: Case, t: Task, reason: str | None, runs: list[dict], base_sps: list, args) -> dict:
    out: dict[str, Any] = {
        "task": c.task,
        "family": t.family,
        "frame_skip": t.frame_skip,
        "num_envs": c.num_envs,
        "batch_size": c.batch_size,
        "mode": c.mode,
        "num_threads": c.num_threads,
        "engine": engine,
        "status": "ok",
        "reason": None,
        "steps_per_s": None,
        "frames_per_s": None,
        "us_per_call": None,
        "ratio_to_baseline": None,
        "setup_s": None,
        "versions": None,
        "errors": [],
    }
    if reason is not None:
        out.update(status="n/a", reason=reason)
        return out
    sps = [r.get("steps_per_s") if "error" not in r else None for r in runs]
    out["errors"] = [r["error"] for r in runs if "error" in r]
    out["versions"] = next((r["versions"] for r in runs if "versions" in r), None)
    s = summary(sps)
    if s is None:
        unavailable = all(r.get("unavailable") for r in runs)
        out.update(status="n/a" if unavailable else "error", reason=out["errors"][0] if out["errors"] else "no result")
        return out
    out["steps_per_s"] = s
    out["frames_per_s"] = {k: s[k] * t.frame_skip for k in ("median", "min", "max")}
    setup = summary([r.get("setup_s") if "error" not in r else None for r in runs])
    out["setup_s"] = setup["median"] if setup else None
    lat = summary([r.get("us_per_call") if "error" not in r else None for r in runs])
    if lat is not None:
        out["us_per_call"] = lat
    if len(base_sps) == len(sps):
        out["ratio_to_baseline"] = ratio_summary(sps, base_sps)
    return out


# --- report ------------------------------------------------------------------------


def si(x: float | None) -> str:
    if x is None:
        return "-"
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= div:
            return f"{x / div:.3g}{suffix}"
    return f"{x:.3g}"


def short_engine(engine: str) -> str:
    """``python:/venvs/published/bin/python`` -> ``python:published`` (the venv's name)."""
    if not engine.startswith("python:"):
        return engine
    p = Path(engine[len("python:") :])
    if p.parent.name in ("bin", "Scripts") and p.parent.parent.name:
        return f"python:{p.parent.parent.name}"
    return engine


def format_table(report: dict) -> str:
    baseline = report["settings"]["baseline"]
    head = ["task", "envs", "batch", "thr", "engine", "steps/s", "(min-max)", "frames/s", "us/call", f"x {baseline}"]
    rows = [head]
    for r in report["results"]:
        eng = r["engine"]
        if eng.startswith("python:"):
            v = (r.get("versions") or {}).get("envpool") or report["interpreters"].get(eng, {}).get("envpool", "?")
            eng = f"{short_engine(eng)} (envpool {v})"
        common = [r["task"], str(r["num_envs"]), str(r["batch_size"]), str(r["num_threads"]), eng]
        if r["status"] != "ok":
            reason = (r["reason"] or "").replace("\n", " ")
            reason = reason if len(reason) <= 90 else reason[:87] + "..."
            rows.append(common + [r["status"], reason, "", "", ""])
            continue
        s, f = r["steps_per_s"], r["frames_per_s"]
        lat = r["us_per_call"]["median"] if r["us_per_call"] and r["num_envs"] == 1 else None
        ratio = r["ratio_to_baseline"]
        rows.append(
            common
            + [
                si(s["median"]),
                f"({si(s['min'])}-{si(s['max'])})",
                si(f["median"]) if r["frame_skip"] != 1 else "=",
                f"{lat:.1f}" if lat is not None else "",
                f"{ratio['median']:.2f}" if ratio else "-",
            ]
        )
    ok_rows = [row for row in rows if row[5] not in ("n/a", "error")]
    widths = [max(len(row[i]) for row in (rows if i < 5 else ok_rows)) for i in range(len(head))]
    right = {1, 2, 3, 5, 7, 8, 9}
    lines = []
    for k, row in enumerate(rows):
        if row[5] in ("n/a", "error"):  # reason spans the remaining columns
            cells = [c.rjust(widths[i]) if i in right else c.ljust(widths[i]) for i, c in enumerate(row[:5])]
            lines.append("  ".join(cells + [row[5].rjust(widths[5]), row[6]]).rstrip())
        else:
            cells = [c.rjust(widths[i]) if i in right else c.ljust(widths[i]) for i, c in enumerate(row)]
            lines.append("  ".join(cells).rstrip())
        if k == 0:
            lines.append("-" * len(lines[0]))
    m, st = report["machine"], report["settings"]
    la = m["load_average"]
    pk = ", ".join(f"{k} {v}" for k, v in m["packages"].items() if v)
    foot = [
        "",
        f"steps/s: median over {st['repeats']} interleaved round{'s' if st['repeats'] != 1 else ''} of {st['seconds']} s (after {st['warmup']} s warm-up), "
        f"each measurement in its own process; x {baseline}: median of per-round ratios; "
        "frames/s = steps/s x frame_skip ('=' when frame_skip is 1); us/call: per step() call, num_envs=1 only.",
        f"machine: {m['cpu']}, {m['usable_cores']}/{m['logical_cores']} cores usable; load average (1 min) "
        f"{la['min_1m']}-{la['max_1m']} during the run (start {la['start']})",
        f"python {m['python']}: {pk}",
    ]
    for eng, p in report["interpreters"].items():
        if "error" in p:
            foot.append(f"{eng}: {p['error']}")
        else:
            foot.append(f"{eng}: python {p.get('python')}, numpy {p.get('numpy')}, envpool {p.get('envpool')}")
    return "\n".join(lines + foot)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        args = build_parser().parse_args(argv)
        args.argv = argv
        if args.plot:  # fail before measuring, not after
            from envpool.bench.plot import require_matplotlib

            require_matplotlib()
        report = run(args)
    except UsageError as e:
        print(f"envpool-bench: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("envpool-bench: interrupted", file=sys.stderr)
        return 130
    print(format_table(report))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
        print(f"wrote {args.json}")
    if args.plot:
        from envpool.bench.plot import plot

        plot(report, args.plot)
        print(f"wrote {args.plot}")
    return 0
