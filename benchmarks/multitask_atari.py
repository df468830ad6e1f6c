#!/usr/bin/env python
"""Multi-task pools: 8 Atari games x 8 envs in one pool, async (batch 16) against sync.

A preset of ``envpool-bench``: the task ``"Pong-v5+Breakout-v5+..."`` is one multi-task pool
(``envpool.make([...], full_action_space=True)``; env i runs game i % 8). Async mode returns
the first 16 envs to finish, so games with slow steps or resets do not hold the others up.

    python benchmarks/multitask_atari.py
    python benchmarks/multitask_atari.py --repeats 5 --json out.json
"""

from __future__ import annotations

import argparse
import sys

from envpool.bench import main as bench_main

GAMES = ("Pong", "Breakout", "SpaceInvaders", "MsPacman", "Seaquest", "Qbert", "Enduro", "BeamRider")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--num-threads", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--warmup", type=float, default=1.0)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    task = "+".join(f"{g}-v5" for g in GAMES)
    cmd = [task, "-n", "64", "64", "-b", "64", "16", "-t", str(args.num_threads), "-e", "envpool"]
    cmd += ["-s", str(args.seconds), "-w", str(args.warmup), "-r", str(args.repeats)]
    if args.json:
        cmd += ["--json", args.json]
    return bench_main(cmd)


if __name__ == "__main__":
    sys.exit(main())
