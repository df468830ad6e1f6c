#!/usr/bin/env python
"""Atari: full-pipeline throughput against the raw emulator ceiling.

* ``raw``: ``envpool._envpool.raw_ceiling("Atari", ...)``: one bare ALE per
  thread, frame_skip ``act()`` calls per agent step with a random minimal
  action, no preprocessing, no engine.
* ``envpool``: ``envpool.make(task, num_envs=N, num_threads=T)`` stepped
  synchronously with random actions: frame skip, max-pool, grayscale, 84x84
  INTER_AREA resize, 4-frame stack, engine and Python binding included.

This is a preset of ``envpool-bench`` (its method, table and JSON schema are
in ``envpool.bench``'s docstring) with ``--baseline raw``: the two engines run
in interleaved rounds, each measurement in its own process, and ``x raw`` is
the median over rounds of the per-round ratio envpool/raw.

    python benchmarks/atari_throughput.py                     # Pong-v5, 8 envs, 2 threads
    python benchmarks/atari_throughput.py --task Breakout-v5 --num-envs 16 --threads 4
    python benchmarks/atari_throughput.py --json out.json
"""

from __future__ import annotations

import argparse
import sys

from envpool.bench import main as bench_main


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--task", default="Pong-v5")
    ap.add_argument("--num-envs", type=int, default=8)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--warmup", type=float, default=0.5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", metavar="PATH", help="write the results (envpool-bench's JSON) to this file")
    args = ap.parse_args(argv)
    cli = [
        args.task,
        "-n",
        str(args.num_envs),
        "-t",
        str(args.threads),
        "-s",
        str(args.seconds),
        "-w",
        str(args.warmup),
        "-r",
        str(args.rounds),
        "-e",
        "envpool",
        "raw",
        "--baseline",
        "raw",
    ]
    if args.json:
        cli += ["--json", args.json]
    return bench_main(cli)


if __name__ == "__main__":
    sys.exit(main())
