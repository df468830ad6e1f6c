#!/usr/bin/env python
"""Engine-overhead comparison (issue 2): this EnvPool against other interpreters' EnvPool.

CartPole-v1 is so cheap to step that its throughput is almost all engine
overhead (queues, threads, batching, Python binding). With 2 threads:

* num_envs=8, sync (``step``)
* num_envs=64, sync
* num_envs=256, batch_size=128, async (``send``/``recv``)
* num_envs=1, 1 thread: per-call latency (µs per ``step()`` call)

Each interpreter (this one, plus every ``--python PATH``, e.g. a venv with the
published EnvPool) runs ``envpool/bench/worker.py`` by path, one process per
measurement, using only EnvPool's public API (make, step, send, recv), in
interleaved rounds; the ratio to this interpreter is taken within each round,
then the median over rounds. Runs from a clone: nothing beyond numpy and the
``envpool`` each interpreter imports is needed.

    python benchmarks/throughput.py --python /work/venvs/published/bin/python
    python benchmarks/throughput.py --repeats 5 --seconds 3 --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

WORKER = Path(__file__).resolve().parent.parent / "envpool" / "bench" / "worker.py"
RESULT_TAG = "@@envpool-bench-result@@ "  # worker.RESULT_TAG

# (label, num_envs, batch_size, num_threads or None for --num-threads)
CASES = (
    ("n=8 sync", 8, 8, None),
    ("n=64 sync", 64, 64, None),
    ("n=256 b=128 async", 256, 128, None),
    ("n=1 latency", 1, 1, 1),
)


def measure(python: str, spec: dict, ours: bool) -> dict:
    env = dict(os.environ)
    if not ours:  # the other interpreter imports its own envpool only
        env.pop("PYTHONPATH", None)
    try:
        p = subprocess.run(
            [python, str(WORKER), json.dumps(spec)],
            capture_output=True,
            text=True,
            timeout=120 + 3 * (spec["seconds"] + spec["warmup"]),
            cwd=tempfile.gettempdir(),
            env=env,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return {"error": f"{type(e).__name__}: {e}"}
    for line in reversed(p.stdout.splitlines()):
        if line.startswith(RESULT_TAG):
            return json.loads(line[len(RESULT_TAG) :])
    err = [ln for ln in p.stderr.splitlines() if ln.strip()]
    return {"error": f"exit code {p.returncode}: {err[-1] if err else 'no output'}"}


def label_of(python: str) -> str:
    p = Path(python)
    return p.parent.parent.name if p.parent.name == "bin" else python


def fmt(x: float | None) -> str:
    if x is None:
        return "-"
    for div, suffix in ((1e6, "M"), (1e3, "k")):
        if x >= div:
            return f"{x / div:.3g}{suffix}"
    return f"{x:.3g}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", action="append", default=[], metavar="PATH", help="other interpreter (repeatable)")
    ap.add_argument("--task", default="CartPole-v1")
    ap.add_argument("--num-threads", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--warmup", type=float, default=0.5)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", metavar="PATH")
    args = ap.parse_args(argv)
    if not WORKER.is_file():
        ap.error(f"worker not found at {WORKER}")
    pythons = [sys.executable, *args.python]
    labels = ["ours", *(label_of(p) for p in args.python)]

    runs: dict[tuple[int, int], list[dict]] = {(c, i): [] for c in range(len(CASES)) for i in range(len(pythons))}
    total, done = args.repeats * len(CASES) * len(pythons), 0
    for rnd in range(args.repeats):  # interleaved: every case x interpreter once per round
        for c, (name, n, b, t) in enumerate(CASES):
            spec = {
                "engine": "envpool",
                "task": args.task,
                "num_envs": n,
                "batch_size": b,
                "num_threads": t or args.num_threads,
                "seconds": args.seconds,
                "warmup": args.warmup,
                "seed": rnd,
            }
            for i, python in enumerate(pythons):
                runs[(c, i)].append(measure(python, spec, ours=i == 0))
                done += 1
                line = f"[{done}/{total}] round {rnd + 1} {name} {labels[i]}"
                if sys.stderr.isatty():
                    print("\r" + line.ljust(60), end="", file=sys.stderr, flush=True)
                else:
                    print(line, file=sys.stderr)
    if sys.stderr.isatty():
        print(file=sys.stderr)

    rows, out = [], []
    for c, (name, n, b, t) in enumerate(CASES):
        base = [r.get("steps_per_s") for r in runs[(c, 0)]]
        for i, label in enumerate(labels):
            rs = runs[(c, i)]
            sps = [r.get("steps_per_s") for r in rs]
            ok = [x for x in sps if x]
            lat = [r["us_per_call"] for r in rs if r.get("us_per_call")]
            ratios = [x / y for x, y in zip(sps, base) if x and y]
            version = next((r["versions"].get("envpool") for r in rs if "versions" in r), "?")
            errors = sorted({r["error"] for r in rs if "error" in r})
            entry = {
                "case": name,
                "num_envs": n,
                "batch_size": b,
                "num_threads": t or args.num_threads,
                "interpreter": pythons[i],
                "envpool": version,
                "steps_per_s": ok,
                "us_per_call": lat,
                "ratio_per_round": ratios,
                "errors": errors,
            }
            out.append(entry)
            if not ok:
                rows.append([name, f"{label} ({version})", "n/a", errors[0] if errors else "", "", ""])
                continue
            rows.append(
                [
                    name,
                    f"{label} ({version})",
                    fmt(statistics.median(ok)),
                    f"({fmt(min(ok))}-{fmt(max(ok))})",
                    f"{statistics.median(lat):.1f}" if n == 1 and lat else "",
                    f"{statistics.median(ratios):.2f}" if ratios else "-",
                ]
            )
    head = ["case", "envpool", "steps/s", "(min-max)", "us/call", "x ours"]
    widths = [max(len(r[k]) for r in [head, *rows] if r[2] != "n/a" or k < 3) for k in range(len(head))]
    for k, r in enumerate([head, *rows]):
        print("  ".join(x.ljust(w) if j < 2 else x.rjust(w) for j, (x, w) in enumerate(zip(r, widths))).rstrip())
        if k == 0:
            print("-" * (sum(widths) + 2 * (len(widths) - 1)))
    load = [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None
    print(
        f"\n{args.task}, {args.num_threads} threads (latency: 1), median over {args.repeats} interleaved rounds "
        f"of {args.seconds} s; x ours = median of per-round ratios. python {platform.python_version()}, "
        f"{os.cpu_count()} cores, load average {load}"
    )
    if args.json:
        Path(args.json).write_text(json.dumps({"task": args.task, "results": out}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
