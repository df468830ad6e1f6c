#!/usr/bin/env python
"""Engine-overhead comparison (issue 2): this EnvPool against other interpreters' EnvPool.

CartPole-v1 is so cheap to step that its throughput is almost all engine
overhead (queues, threads, batching, Python binding). The cases:

* num_envs=8, sync (``step``)
* num_envs=64, sync
* num_envs=256, batch_size=128, async (``send``/``recv``)
* num_envs=1 (one thread): per-call latency (µs per ``step()`` call)

This is a preset of ``envpool-bench`` (its method, table and JSON schema are
in ``envpool.bench``'s docstring): every ``--python PATH`` (e.g. a venv with
the published EnvPool) runs the same worker against its own ``envpool``, in
interleaved rounds, and ``x envpool`` is the median of per-round ratios to
this interpreter's EnvPool.

    python benchmarks/throughput.py --python /work/venvs/published/bin/python
    python benchmarks/throughput.py --repeats 5 --seconds 3 --json out.json
"""

from __future__ import annotations

import argparse
import sys

from envpool.bench import main as bench_main

NUM_ENVS = ("8", "64", "256", "1")
BATCH_SIZES = ("8", "64", "128", "1")  # envpool-bench caps threads at num_envs: n=1 runs on one


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
    cli = [
        args.task,
        "-n",
        *NUM_ENVS,
        "-b",
        *BATCH_SIZES,
        "-t",
        str(args.num_threads),
        "-s",
        str(args.seconds),
        "-w",
        str(args.warmup),
        "-r",
        str(args.repeats),
        "-e",
        "envpool",
    ]
    for python in args.python:
        cli += ["--python", python]
    if args.json:
        cli += ["--json", args.json]
    return bench_main(cli)


if __name__ == "__main__":
    sys.exit(main())
