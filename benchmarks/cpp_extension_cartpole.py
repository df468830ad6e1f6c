#!/usr/bin/env python
"""The out-of-tree CartPole (built with envpool.cpp_extension) against the in-tree one.

A preset of ``envpool-bench``: tests/api/cpp_extension/cartpole_copy.cc, a copy of
cpp/classic_control/cartpole.h built against the installed SDK, registered as
``CartPoleCopy-v1``, measured in the same run as ``CartPole-v1`` (64 envs sync, 256 envs
async with batch 128), interleaved; prints the copy's steps/s over the in-tree one's.

    python benchmarks/cpp_extension_cartpole.py
    python benchmarks/cpp_extension_cartpole.py --repeats 5 --json out.json
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import envpool
from envpool import cpp_extension
from envpool.bench import main as bench_main

SOURCE = Path(__file__).resolve().parents[1] / "tests" / "api" / "cpp_extension" / "cartpole_copy.cc"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--num-threads", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--warmup", type=float, default=0.5)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", default=None)
    ap.add_argument("--build-directory", default=None)
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    module = cpp_extension.load("cartpole_copy", [SOURCE], build_directory=args.build_directory)
    print(f"{module.__file__}: {'built' if module.built else 'cached'} in {time.perf_counter() - t0:.1f} s")
    envpool.register("CartPoleCopy-v1", "CartPoleCopy", max_episode_steps=500)
    out = args.json or str(Path(tempfile.mkdtemp()) / "bench.json")
    rc = bench_main(
        [
            *("CartPole-v1", "CartPoleCopy-v1"),
            *("-n", "64", "256", "-b", "64", "128", "-t", str(args.num_threads)),
            *("-e", "envpool", "-s", str(args.seconds), "-w", str(args.warmup), "-r", str(args.repeats)),
            *("--json", out),
        ]
    )
    if rc != 0:
        return rc
    results = json.loads(Path(out).read_text())["results"]
    sps = {(r["task"], r["num_envs"], r["batch_size"]): r["steps_per_s"]["median"] for r in results}
    for n, b in ((64, 64), (256, 128)):
        ratio = sps[("CartPoleCopy-v1", n, b)] / sps[("CartPole-v1", n, b)]
        print(f"num_envs={n} batch_size={b}: out-of-tree / in-tree steps/s = {ratio:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
