#!/usr/bin/env python
"""Users' Python envs in the pool (issue 27): envpool against the Python vectorisers and the raw ceiling.

Three comparisons, by default on 8 envs and 2 worker processes, each with its target:

* ``gymnasium:CartPole-v1`` (pure Python, overhead-bound): envpool >= 5x gymnasium's
  ``AsyncVectorEnv(shared_memory=True)``;
* ``gymnasium:envpool-bench/Busy-v0`` (a step that busy-waits 1 ms): envpool (sync) >= 0.9x
  ``raw-procs``, the same envs stepped in 2 bare processes; and async (``batch_size`` 4) with a 10x
  spread of step times (``spread=10``) >= 0.9x an even spread of the same mean;
* ``gymnasium:envpool-bench/PongPreprocessed-v0`` (``ALE/Pong-v5`` + ``AtariPreprocessing`` +
  ``FrameStackObservation`` in the workers): envpool >= 1.3x gymnasium's ``AsyncVectorEnv``.

Every row also has SyncVectorEnv, SB3's SubprocVecEnv and raw-procs, and the per-step overhead:
µs per batch step (``1e6 / (steps/s / num_envs)``) minus the env's own work per batch step, taken
as ``t_env * num_envs / num_workers`` (each of the workers steps its block of envs one after
another), with ``t_env`` the env's own step time measured single-process (``raw-procs``, 1 env, 1
process) in the same run.

It is a preset of ``envpool-bench`` (method, table and JSON schema in ``envpool.bench``'s
docstring): three invocations (single-process step times; the sync comparisons; the async spread
pair), each in interleaved rounds, then one Markdown table of the comparisons and one of the
targets. Ratios are medians of per-round ratios. An engine that cannot run (e.g. an envpool without
``envpool.make("gymnasium:...")``) is n/a, with the reason under the tables.

    python benchmarks/python_envs.py
    python benchmarks/python_envs.py --seconds 3 --repeats 5 --json python_envs.json
    python benchmarks/python_envs.py --only cartpole busy      # leave Pong out
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from envpool.bench import main as bench_main
from envpool.bench.stats import ratio_summary, summary

CARTPOLE = "gymnasium:CartPole-v1"
PONG = "gymnasium:envpool-bench/PongPreprocessed-v0"
ENGINES = ("envpool", "gymnasium-async", "gymnasium-sync", "sb3-subproc", "raw-procs")
COMPARISONS = ("cartpole", "busy", "pong")


def busy(step_us: float, spread: float = 1) -> str:
    task = f"gymnasium:envpool-bench/Busy-v0,step_us={step_us:g}"
    return task + (f",spread={spread:g}" if spread != 1 else "")


def _bench(argv: list[str], out: Path) -> dict:
    code = bench_main([*argv, "--json", str(out)])
    if code != 0:
        raise SystemExit(code)
    return json.loads(out.read_text())


def _results(report: dict) -> dict[tuple[str, str], dict]:
    return {(r["task"], r["engine"]): r for r in report["results"]}


def _ratio(r: dict | None, base: dict | None) -> dict | None:
    """Median of per-round ratios of two results of one run (rounds interleaved); None if either is missing."""
    if not (r and base and r["steps_per_s"] and base["steps_per_s"]):
        return None
    a, b = r["steps_per_s"]["runs"], base["steps_per_s"]["runs"]
    if len(a) == len(b):
        return ratio_summary(a, b)
    # a failed round leaves the lists unaligned: the ratio of the medians, marked
    out = summary([r["steps_per_s"]["median"] / base["steps_per_s"]["median"]])
    return {**out, "per_round": [], "unaligned": True}


def _fmt_ratio(x: dict | None) -> str:
    if x is None:
        return "-"
    return (
        f"{x['median']:.2f}x"
        + ("*" if x.get("unaligned") else "")
        + (f" ({x['min']:.2f}-{x['max']:.2f})" if x.get("per_round") and len(x["per_round"]) > 1 else "")
    )


def _si(x: float) -> str:
    return f"{x / 1e3:.3g}k" if x >= 1e3 else f"{x:.3g}"


def env_step_us(single: dict | None, task: str) -> float | None:
    """The env's own step time (µs): raw-procs with 1 env in 1 process."""
    if single is None:
        return None
    r = _results(single).get((task, "raw-procs"))
    return 1e6 / r["steps_per_s"]["median"] if r and r["steps_per_s"] else None


def overhead_us(sps: float, num_envs: int, workers: int, t_env: float | None) -> tuple[float, float | None]:
    """(µs per batch step, that minus the env's own work per batch step: t_env * num_envs / workers)."""
    per_batch = 1e6 * num_envs / sps
    return per_batch, (per_batch - t_env * num_envs / workers) if t_env is not None else None


def build_rows(reports: dict[str, dict], tasks: dict[str, str], args) -> tuple[list[list[str]], list[list[str]], list]:
    """(comparison rows, target rows, n/a notes) from the three reports."""
    rows, targets, notes = [], [], []
    sync, single, asy = reports.get("sync"), reports.get("single"), reports.get("async")
    n, w = args.num_envs, args.num_workers

    def rows_for(label: str, task: str, base_engine: str) -> dict[str, dict | None]:
        res = _results(sync)
        t_env = env_step_us(single, task)
        base = res.get((task, base_engine))
        ratios = {}
        for engine in args.engines:
            r = res.get((task, engine))
            if r is None:
                continue
            if r["status"] != "ok":
                notes.append(f"{label} {engine}: {r['status']}: {r['reason']}")
                ratios[engine] = None
                continue
            sps = r["steps_per_s"]
            per_batch, over = overhead_us(sps["median"], n, w, t_env)
            ratios[engine] = _ratio(r, base)
            rows.append(
                [
                    label,
                    engine,
                    f"{_si(sps['median'])} ({_si(sps['min'])}-{_si(sps['max'])})",
                    f"{per_batch:.0f}",
                    f"{t_env:.1f}" if t_env is not None else "-",
                    f"{over:.0f}" if over is not None else "-",
                    _fmt_ratio(ratios[engine]) + f" {base_engine}",
                ]
            )
        return ratios

    def target(what: str, ratio: dict | None, goal: float, reason_row: dict | None) -> None:
        if ratio is None:
            short = "n/a (the reason is below)" if reason_row and reason_row.get("reason") else "n/a: not measured"
            targets.append([what, f">= {goal:g}x", "n/a", short])
            return
        targets.append([what, f">= {goal:g}x", _fmt_ratio(ratio), "yes" if ratio["median"] >= goal else "NO"])

    if sync is not None:
        res = _results(sync)
        if "cartpole" in args.only:
            ratios = rows_for(f"CartPole-v1, {n} envs", tasks["cartpole"], "gymnasium-async")
            target(
                "CartPole-v1: envpool / gymnasium-async",
                ratios.get("envpool"),
                5,
                res.get((tasks["cartpole"], "envpool")),
            )
        if "busy" in args.only:
            ratios = rows_for(f"Busy {args.busy_us:g} us, {n} envs, sync", tasks["busy"], "raw-procs")
            target(
                f"Busy {args.busy_us:g} us sync: envpool / raw-procs",
                ratios.get("envpool"),
                0.9,
                res.get((tasks["busy"], "envpool")),
            )
        if "pong" in args.only:
            ratios = rows_for(f"Pong preprocessed, {n} envs", tasks["pong"], "gymnasium-async")
            target(
                "Pong preprocessed: envpool / gymnasium-async",
                ratios.get("envpool"),
                1.3,
                res.get((tasks["pong"], "envpool")),
            )
    if asy is not None:
        res = _results(asy)
        even, spread = res.get((tasks["busy"], "envpool")), res.get((tasks["spread"], "envpool"))
        t_env = env_step_us(single, tasks["busy"])
        for label, r in ((f"Busy async, batch {args.batch_size}, even", even), ("Busy async, 10x spread", spread)):
            if r is None or r["status"] != "ok":
                if r is not None:
                    notes.append(f"{label} envpool: {r['status']}: {r['reason']}")
                continue
            sps = r["steps_per_s"]
            per_batch, over = overhead_us(sps["median"], args.batch_size, w, t_env)
            rows.append(
                [
                    label,
                    "envpool",
                    f"{_si(sps['median'])} ({_si(sps['min'])}-{_si(sps['max'])})",
                    f"{per_batch:.0f}",
                    f"{t_env:.1f}" if t_env is not None else "-",
                    f"{over:.0f}" if over is not None else "-",
                    (_fmt_ratio(_ratio(r, even)) + " even") if r is spread else "1.00x even",
                ]
            )
        ok = even and spread and even["status"] == "ok" and spread["status"] == "ok"
        target(
            f"Busy async, batch {args.batch_size}: 10x spread / even spread",
            _ratio(spread, even) if ok else None,
            0.9,
            even if even and even["status"] != "ok" else spread,
        )
    return rows, targets, list(dict.fromkeys(notes))


def markdown(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="+", choices=COMPARISONS, default=list(COMPARISONS), help="comparisons to run")
    ap.add_argument("--engines", nargs="+", default=list(ENGINES), help=f"engines (default: {' '.join(ENGINES)})")
    ap.add_argument("--num-envs", type=int, default=8)
    ap.add_argument("--num-workers", type=int, default=2, help="worker processes (envpool, raw-procs)")
    ap.add_argument("--num-threads", type=int, default=None, help="envpool's threads (default: = --num-workers)")
    ap.add_argument("--batch-size", type=int, default=4, help="the async comparison's batch_size")
    ap.add_argument("--busy-us", type=float, default=1000, help="the busy env's mean step time (µs)")
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--warmup", type=float, default=0.5)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", metavar="PATH", help="write the three envpool-bench reports and the tables as JSON")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    threads = str(args.num_threads or args.num_workers)
    tasks = {
        "cartpole": CARTPOLE,
        "busy": busy(args.busy_us),
        "spread": busy(args.busy_us, 10),
        "pong": PONG,
    }
    chosen = [tasks[c] for c in COMPARISONS if c in args.only]
    common = ["-s", str(args.seconds), "-w", str(args.warmup), "-r", str(args.repeats)]
    common += ["--no-progress"] if args.no_progress else []
    reports: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        # the env's own step time: one env, one process, no vectoriser
        reports["single"] = _bench(
            [*chosen, "-n", "1", "-t", "1", "--num-workers", "1", "-e", "raw-procs", *common], tmp / "single.json"
        )
        # the ratios' denominators are measured whatever --engines says
        baseline = "raw-procs" if args.only == ["busy"] else "gymnasium-async"
        needed = (["gymnasium-async"] if {"cartpole", "pong"} & set(args.only) else []) + (
            ["raw-procs"] if "busy" in args.only else []
        )
        engines = list(dict.fromkeys([*args.engines, *needed]))
        args.engines = engines
        reports["sync"] = _bench(
            [
                *chosen,
                "-n",
                str(args.num_envs),
                "-t",
                threads,
                "--num-workers",
                str(args.num_workers),
                "-e",
                *engines,
                "--baseline",
                baseline,
                *common,
            ],
            tmp / "sync.json",
        )
        if "busy" in args.only and "envpool" in args.engines:
            reports["async"] = _bench(
                [
                    tasks["busy"],
                    tasks["spread"],
                    "-n",
                    str(args.num_envs),
                    "-b",
                    str(args.batch_size),
                    "-t",
                    threads,
                    "--num-workers",
                    str(args.num_workers),
                    "-e",  # gymnasium-async is n/a here (no async mode): the note under the table says so
                    "envpool",
                    "gymnasium-async",
                    *common,
                ],
                tmp / "async.json",
            )
    rows, targets, notes = build_rows(reports, tasks, args)
    header = ["comparison", "engine", "steps/s (min-max)", "µs per batch step", "t_env µs", "overhead µs", "ratio"]
    print()
    print(f"Python envs in the pool: {args.num_envs} envs, {args.num_workers} worker processes")
    print()
    print(markdown(header, rows))
    print()
    print(markdown(["target", "goal", "measured", "met"], targets))
    for note in notes:
        print(f"- {note}")
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "schema": "envpool-bench-python-envs/1",
                    "argv": sys.argv[1:] if argv is None else list(argv),
                    "tasks": tasks,
                    "reports": reports,
                    "table": {"header": header, "rows": rows},
                    "targets": targets,
                    "notes": notes,
                },
                indent=1,
            )
        )
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
