"""Running a plan: one subprocess per measurement, interleaved rounds, the report dict.

The report dict is the JSON of ``--json`` (schema in ``envpool.bench``'s docstring).
"""

from __future__ import annotations

import datetime
import json
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from envpool.bench import machine
from envpool.bench.engines import Engine
from envpool.bench.engines._common import clean_env
from envpool.bench.plan import Case, Plan, Task
from envpool.bench.stats import ratio_summary, summary

WORKER = Path(__file__).resolve().with_name("worker.py")
RESULT_TAG = "@@envpool-bench-result@@ "  # as in worker.py
SCHEMA = "envpool-bench/1"


def _our_pythonpath() -> str:
    """The folder our ``envpool`` was imported from, so workers import the same one."""
    import envpool

    return str(Path(envpool.__file__).resolve().parent.parent)


def spec_for(engine: Engine, case: Case, task: Task, plan: Plan, rnd: int) -> dict[str, Any]:
    """The worker's JSON argument (see ``envpool.bench.engines``)."""
    return {
        "engine": engine.name,
        "runner": list(engine.runner),
        "task": case.task,
        "num_envs": case.num_envs,
        "batch_size": case.batch_size,
        "num_threads": case.num_threads,
        "seconds": plan.seconds,
        "warmup": plan.warmup,
        "seed": plan.seed + rnd,
        "family": task.family,
        "kind": task.kind,
        "config": task.config,
        "full_config": task.full_config,
        "options": task.options,
        # C++ family modules this process loaded, and its tasks on them (envpool.cpp_extension).
        "extensions": _extensions(),
        "gymnasium": task.gymnasium,
        "num_workers": min(plan.num_workers or case.num_threads, case.num_envs),
    }


def _extensions() -> dict | None:
    ext = sys.modules.get("envpool.cpp_extension")
    return ext._state(jsonable=True) if ext is not None else None


def measure(engine: Engine, spec: dict) -> dict:
    """Run one measurement in a fresh subprocess; the worker's result dict."""
    if engine.python is not None:
        python, env = engine.python, clean_env()
    else:
        python, env = sys.executable, clean_env(_our_pythonpath())
    timeout = 180 + 3 * (spec["seconds"] + spec["warmup"])
    try:
        p = subprocess.run(
            [python, str(WORKER), json.dumps(spec)],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=tempfile.gettempdir(),
            env=env,
        )
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


def count(plan: Plan) -> int:
    """Measurements the plan makes."""
    return plan.repeats * sum(plan.runs(e, c) for e in plan.engines for c in plan.cases)


def run(
    plan: Plan,
    on_step: Callable[[str], None] = lambda label: None,
    on_start: Callable[[str], None] = lambda label: None,
) -> dict:
    """Measure every runnable (engine, case) ``plan.repeats`` times, interleaved (A B C A B C ...)."""
    raw: dict[tuple[str, Case], list[dict]] = {(e.name, c): [] for e in plan.engines for c in plan.cases}
    load = machine.LoadSampler()
    started = datetime.datetime.now(datetime.UTC)
    for rnd in range(plan.repeats):
        for c in plan.cases:
            for e in plan.engines:
                if not plan.runs(e, c):
                    continue
                label = f"round {rnd + 1}/{plan.repeats} {c.task} n={c.num_envs} b={c.batch_size} {e.name}"
                on_start(label)
                raw[(e.name, c)].append(measure(e, spec_for(e, c, plan.tasks[c.task], plan, rnd)))
                load.sample()
                on_step(label)
    results = []
    for c in plan.cases:
        base_sps = [r.get("steps_per_s") for r in raw[(plan.baseline, c)]]
        for e in plan.engines:
            results.append(
                _result(e.name, c, plan.tasks[c.task], plan.reasons[(e.name, c)], raw[(e.name, c)], base_sps)
            )
    return {
        "schema": SCHEMA,
        "created": started.isoformat(timespec="seconds"),
        "duration_s": round((datetime.datetime.now(datetime.UTC) - started).total_seconds(), 1),
        "argv": list(plan.argv),
        "settings": plan.settings(),
        "machine": {**machine.describe(), "load_average": load.report()},
        "interpreters": dict(plan.interpreters),
        "results": results,
    }


def _result(engine: str, c: Case, t: Task, reason: str | None, runs: list[dict], base_sps: list) -> dict:
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
    out["us_per_call"] = summary([r.get("us_per_call") if "error" not in r else None for r in runs])
    if len(base_sps) == len(sps):
        out["ratio_to_baseline"] = ratio_summary(sps, base_sps)
    return out
