#!/usr/bin/env python
"""MuJoCo rendering throughput: envpool against gymnasium, same GL backend, same frames.

* render: ``envs.render()`` of N envs (all of them) on T stepping threads, frames/s, against
  gymnasium rendering the same number of frames in one process (``env.render()`` of one
  ``gymnasium.make(task, render_mode="rgb_array")``; the frames are pixel-equal).
* pixels: steps/s of ``envpool.make(task, from_pixels=True)`` (the observation is the 84x84
  frame, rendered on the stepping threads), N envs on T threads, against gymnasium's
  ``SyncVectorEnv`` of N x ``AddRenderObservation(make(task, render_mode="rgb_array",
  width=84, height=84))`` (one Python thread).

Every measurement runs in its own subprocess (MuJoCo's GL backend is per process), in
interleaved rounds; the table shows the median over rounds and the ratio to gymnasium taken
within each round. llvmpipe (Mesa's software rasterizer, behind OSMesa and Mesa's EGL) has
one rasterizer per process, with one thread per core by default: ``--lp-threads 1`` (the
default here) sets ``LP_NUM_THREADS=1`` so that gymnasium renders on one core;
``--lp-threads default`` leaves llvmpipe alone. envpool's ``render_processes`` option
(``--render-processes``, default ``auto``: helper processes on Mesa) says where its frames
are drawn. CPU-seconds include the helper processes'.

    python benchmarks/mujoco_render.py                          # HalfCheetah-v4, 8 envs, 2 threads, OSMesa
    python benchmarks/mujoco_render.py --mode render --size 480 --rounds 3
    python benchmarks/mujoco_render.py --backend egl --render-processes off --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def _cpu_seconds() -> float:
    """CPU time of this process and of its live children (envpool's render servers, which
    are reaped only when their threads exit)."""
    total = time.process_time()
    tick = os.sysconf("SC_CLK_TCK")
    for task in os.listdir(f"/proc/{os.getpid()}/task"):
        try:
            with open(f"/proc/{os.getpid()}/task/{task}/children") as f:
                pids = f.read().split()
        except FileNotFoundError:
            continue
        for pid in pids:
            try:
                with open(f"/proc/{pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except FileNotFoundError:
                continue
            total += (int(fields[11]) + int(fields[12])) / tick  # utime, stime
    return total


def _child(
    which: str, mode: str, task: str, n: int, threads: int, size: int, seconds: float, processes: str = "auto"
) -> dict:
    import warnings

    import numpy as np

    warnings.filterwarnings("ignore")
    rng = np.random.default_rng(0)
    if which == "envpool":
        import envpool

        if mode == "render":
            envs = envpool.make(
                task,
                env_type="gymnasium",
                num_envs=n,
                num_threads=threads,
                render_mode="rgb_array",
                render_env_ids=list(range(n)),
                width=size,
                height=size,
                render_processes=processes,
            )
            envs.reset(seed=0)
            call, per_call = envs.render, n
        else:
            envs = envpool.make(
                task,
                env_type="gymnasium",
                num_envs=n,
                num_threads=threads,
                from_pixels=True,
                img_height=size,
                img_width=size,
                render_processes=processes,
            )
            envs.reset(seed=0)
            actions = [rng.uniform(-1, 1, (n, *envs.action_space.shape)).astype(np.float32) for _ in range(16)]
            it = iter(range(1 << 62))

            def call() -> None:
                envs.step(actions[next(it) % 16])

            per_call = n
    else:
        import gymnasium as gym

        if mode == "render":
            env = gym.make(task, render_mode="rgb_array", width=size, height=size)
            env.reset(seed=0)

            def call() -> None:
                for _ in range(n):
                    env.render()

            per_call = n
        else:
            from gymnasium.wrappers import AddRenderObservation

            def make():
                return AddRenderObservation(gym.make(task, render_mode="rgb_array", width=size, height=size))

            envs = gym.vector.SyncVectorEnv([make] * n)
            envs.reset(seed=0)
            actions = [envs.action_space.sample() for _ in range(16)]
            it = iter(range(1 << 62))

            def call() -> None:
                envs.step(actions[next(it) % 16])

            per_call = n
    call()  # GL contexts, mjrContexts, shader compilation
    warm_end = time.perf_counter() + min(1.0, seconds / 4)
    while time.perf_counter() < warm_end:
        call()
    calls, t0, c0 = 0, time.perf_counter(), _cpu_seconds()
    while time.perf_counter() - t0 < seconds:
        call()
        calls += 1
    wall, cpu = time.perf_counter() - t0, _cpu_seconds() - c0
    return {"per_s": calls * per_call / wall, "per_cpu_s": calls * per_call / cpu}


def _measure(args, which: str, mode: str) -> dict:
    env = dict(os.environ, MUJOCO_GL=args.backend, PYOPENGL_PLATFORM=args.backend)
    if args.lp_threads != "default":
        env["LP_NUM_THREADS"] = args.lp_threads
    code = (
        f"import json, sys; sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r})\n"
        "from mujoco_render import _child\n"
        f"print('RESULT' + json.dumps(_child({which!r}, {mode!r}, {args.task!r}, {args.num_envs}, {args.threads}, "
        f"{args.size}, {args.seconds}, {args.render_processes!r})))"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False)
    lines = [line for line in out.stdout.splitlines() if line.startswith("RESULT")]
    if out.returncode != 0 or not lines:
        raise SystemExit(f"{which} {mode} failed:\n{out.stderr[-3000:]}")
    return json.loads(lines[-1][len("RESULT") :])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--task", default="HalfCheetah-v4")
    p.add_argument("--mode", choices=["render", "pixels", "both"], default="both")
    p.add_argument("--num-envs", type=int, default=8)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--size", type=int, default=84, help="frame width and height (render and pixels)")
    p.add_argument("--backend", choices=["osmesa", "egl"], default="osmesa")
    p.add_argument("--lp-threads", default="1", help="LP_NUM_THREADS for llvmpipe, or 'default'")
    p.add_argument("--render-processes", choices=["auto", "on", "off"], default="auto")
    p.add_argument("--seconds", type=float, default=5.0)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--json")
    args = p.parse_args()
    modes = ["render", "pixels"] if args.mode == "both" else [args.mode]
    raw = {(m, w): [] for m in modes for w in ("envpool", "gymnasium")}
    for _ in range(args.rounds):
        for m in modes:
            for w in ("envpool", "gymnasium"):
                raw[(m, w)].append(_measure(args, w, m))
    load = os.getloadavg()
    print(
        f"{args.task}, {args.num_envs} envs, envpool on {args.threads} threads, {args.size}x{args.size}, "
        f"MUJOCO_GL={args.backend}, LP_NUM_THREADS={args.lp_threads}, render_processes={args.render_processes}, "
        f"{args.rounds} rounds of {args.seconds:g} s, "
        f"load average {load[0]:.1f} on {os.cpu_count()} cores"
    )
    unit = {"render": "frames/s", "pixels": "steps/s"}
    rows = []
    for m in modes:
        ours, ref = raw[(m, "envpool")], raw[(m, "gymnasium")]
        ratio = statistics.median(a["per_s"] / b["per_s"] for a, b in zip(ours, ref, strict=True))
        cpu_ratio = statistics.median(a["per_cpu_s"] / b["per_cpu_s"] for a, b in zip(ours, ref, strict=True))
        for w, rs in (("envpool", ours), ("gymnasium", ref)):
            med = statistics.median(r["per_s"] for r in rs)
            lo, hi = min(r["per_s"] for r in rs), max(r["per_s"] for r in rs)
            cpu = statistics.median(r["per_cpu_s"] for r in rs)
            print(f"  {m:7s} {w:10s} {med:8.1f} {unit[m]} (min {lo:.1f}, max {hi:.1f}), {cpu:8.1f} per CPU-second")
        print(f"  {m:7s} envpool / gymnasium: {ratio:.2f}x wall clock, {cpu_ratio:.2f}x per CPU-second")
        rows.append({"mode": m, "ratio": ratio, "cpu_ratio": cpu_ratio, "envpool": ours, "gymnasium": ref})
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"settings": vars(args), "load_average": load, "results": rows}, f, indent=1)


if __name__ == "__main__":
    main()
