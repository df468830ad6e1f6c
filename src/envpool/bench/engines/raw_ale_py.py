"""``raw-ale-py``: the second Atari ceiling, ale-py's own (wheel) emulator, bare.

One process per thread (``num_threads`` of them), each stepping one
``ale_py.ALEInterface`` in a Python loop the way the ``raw`` engine's C++ loop
steps ours: per agent step a random action of the task's action set, repeated
``frame_skip`` times with ``act()``, ``reset_game()`` on a game over; same ROM,
seed scheme, sticky actions, mode and difficulty. The processes set up, meet
at a barrier, warm up, then count steps for ``seconds``; the result is the sum
of their steps/s. The report so always shows the best emulator on the machine
next to ours (Python's call overhead counts against the wheel, so its emulator
alone is slightly faster than this shows).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from . import Engine, _common
from .ale_vector import options

# The task options the bare loop applies (the rest are preprocessing it does not do).
_OPTIONS = (
    "frame_skip",
    "repeat_action_probability",
    "full_action_space",
    "mode",
    "difficulty",
    "task",
    "rom_path",
    "rom_dir",
)


def available(task, case) -> str | None:
    if task.kind != "atari":
        return "Atari tasks only"
    return (
        _common.registered(task)
        or _common.single_task(task)
        or _common.no_options(task, _OPTIONS)
        or _common.missing("ale_py")
    )


def ale_seed(s: int) -> int:
    """envpool::atari::AleSeed: the ALE seed our env derives from its seed (splitmix64, 31 bits)."""
    m = (1 << 64) - 1
    z = (s + 0x9E3779B97F4A7C15) & m
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & m
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & m
    return (z ^ (z >> 31)) & 0x7FFFFFFF


def _child(t: int, setup: dict, barrier, results) -> None:
    import ale_py

    try:
        ale_py.ALEInterface.setLoggerMode(ale_py.LoggerMode.Error)
        ale = ale_py.ALEInterface()
        ale.setInt("random_seed", ale_seed(setup["seed"] + t))
        ale.setFloat("repeat_action_probability", setup["sticky"])
        ale.loadROM(setup["rom"])
        if setup["mode"] != -1:
            ale.setMode(setup["mode"])
        if setup["difficulty"] != -1:
            ale.setDifficulty(setup["difficulty"])
        ale.reset_game()
        acts = list(ale.getLegalActionSet() if setup["full_actions"] else ale.getMinimalActionSet())
        rng = np.random.default_rng(setup["seed"] + t)
        seq = [acts[i] for i in rng.integers(0, len(acts), 4096)]
        act, over, reset, clock = ale.act, ale.game_over, ale.reset_game, time.perf_counter
        frames = range(setup["frame_skip"])

        def loop(until: float) -> tuple[int, float]:
            n, now = 0, clock()
            while now < until:
                for _ in range(16):  # the clock is read every 16 steps
                    a = seq[n & 4095]
                    for _f in frames:
                        act(a)
                        if over():
                            reset()
                            break
                    n += 1
                now = clock()
            return n, now

        barrier.wait(timeout=300)
        _, start = loop(clock() + setup["warmup"])
        n, end = loop(start + setup["seconds"])
        results.put((n, end - start))
    except BaseException as e:  # noqa: BLE001  (reported by the parent, which stops the others)
        results.put(f"{type(e).__name__}: {e}")
        try:
            barrier.abort()
        except Exception:
            pass


def run(spec: dict) -> dict:
    import multiprocessing as mp
    import os

    import ale_py  # noqa: F401  (ImportError: the engine is n/a)

    cfg = dict(spec.get("full_config") or spec.get("config") or {})
    game = str(cfg.get("task") or options(spec["task"], cfg)["game"])
    if cfg.get("rom_path"):
        rom = str(cfg["rom_path"])
    elif cfg.get("rom_dir"):
        rom = os.path.join(str(cfg["rom_dir"]), game + ".bin")
    else:
        from ale_py import roms

        rom = str(roms.get_rom_path(game))
    threads = int(spec["num_threads"])
    setup: dict[str, Any] = {
        "rom": rom,
        "seed": int(spec["seed"]),
        "frame_skip": int(cfg.get("frame_skip", 4)),
        "sticky": float(cfg.get("repeat_action_probability", 0.0)),
        "full_actions": bool(cfg.get("full_action_space", False)),
        "mode": int(cfg.get("mode", -1)),
        "difficulty": int(cfg.get("difficulty", -1)),
        "warmup": float(spec["warmup"]),
        "seconds": float(spec["seconds"]),
    }
    ctx = mp.get_context("fork")
    barrier, results = ctx.Barrier(threads), ctx.Queue()
    procs = [ctx.Process(target=_child, args=(t, setup, barrier, results), daemon=True) for t in range(threads)]
    return _common.run_processes(procs, results, "raw-ale-py", setup["warmup"] + setup["seconds"])


ENGINES = (
    Engine(
        "raw-ale-py",
        "ale-py's own emulator (the wheel's build): bare ALEInterface loops, one process per thread (Atari only)",
        run,
        available,
        default=True,
        order=91,
    ),
)
