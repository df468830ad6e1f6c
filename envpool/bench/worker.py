"""One throughput measurement, run in its own process.

This file is standalone on purpose: it is run *as a script, by path*, under
any Python interpreter (ours, or another venv's via ``envpool-bench --python``)
and imports nothing from ``envpool.bench``. The ``envpool`` engine uses only
numpy and EnvPool's public API (``make``, ``make_spec``, ``reset``, ``step``,
``async_reset``, ``send``, ``recv``), so it measures whichever ``envpool`` the
interpreter imports, ours or the published one. The other engines import what
they need lazily (gymnasium, ale_py, ``envpool._envpool``) and are only ever
run under our own interpreter.

Usage::

    python worker.py '{"engine": "envpool", "task": "CartPole-v1", "num_envs": 8,
                       "batch_size": 8, "num_threads": 2, "seconds": 1.0,
                       "warmup": 0.3, "seed": 0}'

The result is printed as the last stdout line, prefixed with ``RESULT_TAG``:
``{"steps": int, "calls": int, "elapsed": float, "steps_per_s": float,
"us_per_call": float, "versions": {...}}``, or ``{"error": str,
"unavailable": bool}`` when the measurement could not be made.

Process startup, imports, env construction, reset and action generation all
happen before the warm-up and are never timed. Actions are generated up front
(a ring of ``NUM_ACTION_BATCHES`` random batches from the action space).
"""

from __future__ import annotations

import json
import platform
import sys
import time

import numpy as np

_T0 = time.perf_counter()  # ~process start: setup_s is measured from here
RESULT_TAG = "@@envpool-bench-result@@ "
NUM_ACTION_BATCHES = 64


class Unavailable(Exception):
    """The engine cannot run this task/case (reported as n/a, not a failure)."""


# --- action generation -------------------------------------------------------


def _space_batches(space, batch: int, rng: np.random.Generator) -> list:
    """``NUM_ACTION_BATCHES`` random action batches of ``batch`` actions."""
    if hasattr(space, "n"):  # Discrete (gym or gymnasium)
        start = int(getattr(space, "start", 0))
        return [
            rng.integers(start, start + int(space.n), size=batch).astype(np.int32)
            for _ in range(NUM_ACTION_BATCHES)
        ]
    if hasattr(space, "low") and hasattr(space, "high"):  # Box
        low = np.broadcast_to(np.asarray(space.low, dtype=np.float64), space.shape)
        high = np.broadcast_to(np.asarray(space.high, dtype=np.float64), space.shape)
        low = np.where(np.isfinite(low), low, -1.0)
        high = np.where(np.isfinite(high), high, 1.0)
        dtype = getattr(space, "dtype", np.float32) or np.float32
        return [
            rng.uniform(low, high, size=(batch, *space.shape)).astype(dtype)
            for _ in range(NUM_ACTION_BATCHES)
        ]
    raise Unavailable(f"unsupported action space {space!r}")


# --- timing loops --------------------------------------------------------------


def _time_loop(call, steps_per_call: int, warmup: float, seconds: float) -> dict:
    """Call ``call(i)`` repeatedly: ``warmup`` s untimed, then ``seconds`` s timed."""
    clock = time.perf_counter
    setup = clock() - _T0
    i = 0
    end = clock() + warmup
    while clock() < end:
        call(i)
        i += 1
    calls = 0
    start = clock()
    end = start + seconds
    now = start
    while now < end:
        call(i)
        i += 1
        calls += 1
        now = clock()
    elapsed = now - start
    steps = calls * steps_per_call
    return {
        "steps": steps,
        "calls": calls,
        "elapsed": elapsed,
        "steps_per_s": steps / elapsed if elapsed > 0 else 0.0,
        "us_per_call": 1e6 * elapsed / calls if calls else None,
        "setup_s": setup,
    }


def _env_ids(result) -> np.ndarray:
    """``info["env_id"]`` of a gym-style 4- or 5-tuple (or a dm TimeStep)."""
    info = result[-1]
    if isinstance(info, dict):
        return info["env_id"]
    return result.observation.env_id  # dm_env TimeStep


# --- engines -------------------------------------------------------------------


def _run_envpool(spec: dict) -> dict:
    """EnvPool (whichever one this interpreter imports), public API only."""
    import envpool

    task, n, b = spec["task"], spec["num_envs"], spec["batch_size"]
    try:
        registered = task in envpool.list_all_envs()
    except Exception:  # very old versions
        registered = True
    if not registered:
        raise Unavailable(f"task {task!r} is not registered in this envpool")
    env = envpool.make(
        task,
        env_type="gym",
        num_envs=n,
        batch_size=b,
        num_threads=spec["num_threads"],
        seed=spec["seed"],
    )
    rng = np.random.default_rng(spec["seed"])
    acts = _space_batches(envpool.make_spec(task).action_space, b, rng)
    k = len(acts)
    if b == n:  # sync: step() returns the whole batch
        env.reset()
        step = env.step

        def call(i: int) -> None:
            step(acts[i % k])

    else:  # async: recv() the first b finished envs, send their actions
        env.async_reset()
        send, recv = env.send, env.recv

        def call(i: int) -> None:
            send(acts[i % k], _env_ids(recv()))

    out = _time_loop(call, b, spec["warmup"], spec["seconds"])
    close = getattr(env, "close", None)
    if close is not None:
        try:
            close()
        except Exception:
            pass
    return out


def _gymnasium_env_fn(spec: dict):
    import gymnasium

    gym_id = spec["gym_id"]
    if spec.get("kind") == "atari":
        import ale_py

        gymnasium.register_envs(ale_py)
        opts = spec.get("atari", {})

        def make():
            env = gymnasium.make(gym_id, frameskip=1, repeat_action_probability=0.0)
            env = gymnasium.wrappers.AtariPreprocessing(
                env, noop_max=opts.get("noop_max", 30), frame_skip=opts.get("frame_skip", 4), screen_size=84
            )
            return gymnasium.wrappers.FrameStackObservation(env, opts.get("stack_num", 4))

        return make
    return lambda: gymnasium.make(gym_id)


def _run_gymnasium(spec: dict, asynchronous: bool) -> dict:
    import gymnasium

    n, b = spec["num_envs"], spec["batch_size"]
    if b != n:
        raise Unavailable("gymnasium vector envs have no async (batch_size < num_envs) mode")
    fns = [_gymnasium_env_fn(spec)] * n
    cls = gymnasium.vector.AsyncVectorEnv if asynchronous else gymnasium.vector.SyncVectorEnv
    env = cls(fns)
    try:
        rng = np.random.default_rng(spec["seed"])
        acts = _space_batches(env.single_action_space, n, rng)
        if hasattr(env.single_action_space, "n"):
            acts = [a.astype(np.int64) for a in acts]
        k = len(acts)
        env.reset(seed=spec["seed"])
        step = env.step
        return _time_loop(lambda i: step(acts[i % k]), n, spec["warmup"], spec["seconds"])
    finally:
        env.close()


def _run_ale_vector(spec: dict) -> dict:
    from ale_py.vector_env import AtariVectorEnv

    n, b = spec["num_envs"], spec["batch_size"]
    opts = dict(spec.get("atari", {}))
    game = opts.pop("game")
    env = AtariVectorEnv(game, n, batch_size=b, num_threads=spec["num_threads"], **opts)
    try:
        rng = np.random.default_rng(spec["seed"])
        acts = _space_batches(env.single_action_space, b, rng)
        k = len(acts)
        env.reset(seed=spec["seed"])
        if b == n:
            step = env.step
            call = lambda i: step(acts[i % k])  # noqa: E731
        else:
            send, recv = env.send, env.recv
            # ALE's pool hands out the first b finished envs like EnvPool;
            # send() goes to the envs of the last recv()/reset().
            def call(i: int) -> None:
                send(acts[i % k])
                recv()

        return _time_loop(call, b, spec["warmup"], spec["seconds"])
    finally:
        close = getattr(env, "close", None)
        if close is not None:
            close()


def _run_raw(spec: dict) -> dict:
    """The C++ ceiling: bare emulators/simulators, one per thread, no engine."""
    from envpool import _envpool

    family, config, threads = spec["family"], spec["config"], spec["num_threads"]
    try:
        if spec["warmup"] > 0:
            _envpool.raw_ceiling(family, config, threads, spec["warmup"])
        sps = _envpool.raw_ceiling(family, config, threads, spec["seconds"])
    except ValueError as e:
        raise Unavailable(str(e)) from None
    return {
        "steps": int(sps * spec["seconds"]),
        "calls": None,
        "elapsed": spec["seconds"],
        "steps_per_s": float(sps),
        "us_per_call": None,
    }


def _run_raw_ale_py(spec: dict) -> dict:
    """The other Atari ceiling: ale-py's own (wheel) emulator, bare.

    One process per thread (``num_threads`` of them), each stepping one
    ``ale_py.ALEInterface`` in a Python loop exactly like the ``raw`` engine's
    C++ loop: per agent step a random action of the task's action set,
    repeated ``frame_skip`` times with ``act()``, ``reset_game()`` on a game
    over; same ROM, seed scheme, sticky actions, mode and difficulty. The
    processes set up, meet at a barrier, warm up, then count steps for
    ``seconds``; the result is the sum of their steps/s. Self-contained.
    """
    if spec.get("kind") != "atari":
        raise Unavailable("Atari tasks only")
    import multiprocessing as mp
    import os
    import queue

    import ale_py  # noqa: F401  (raises ImportError -> n/a when missing)

    cfg = dict(spec.get("config") or {})
    atari = spec.get("atari") or {}
    game = str(cfg.get("task") or atari["game"])
    if cfg.get("rom_path"):
        rom = str(cfg["rom_path"])
    elif cfg.get("rom_dir"):
        rom = os.path.join(str(cfg["rom_dir"]), game + ".bin")
    else:
        from ale_py import roms

        rom = str(roms.get_rom_path(game))
    frame_skip = int(atari.get("frameskip", cfg.get("frame_skip", 4)))
    sticky = float(atari.get("repeat_action_probability", cfg.get("repeat_action_probability", 0.0)))
    full_actions = bool(atari.get("full_action_space", cfg.get("full_action_space", False)))
    mode, difficulty = int(cfg.get("mode", -1)), int(cfg.get("difficulty", -1))
    threads, seed = int(spec["num_threads"]), int(spec["seed"])
    warmup, seconds = float(spec["warmup"]), float(spec["seconds"])
    ctx = mp.get_context("fork")
    barrier, results = ctx.Barrier(threads), ctx.Queue()

    def ale_seed(s: int) -> int:  # envpool::atari::AleSeed (splitmix64, 31 bits)
        m = (1 << 64) - 1
        z = (s + 0x9E3779B97F4A7C15) & m
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & m
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & m
        return (z ^ (z >> 31)) & 0x7FFFFFFF

    def child(t: int) -> None:
        try:
            ale_py.ALEInterface.setLoggerMode(ale_py.LoggerMode.Error)
            ale = ale_py.ALEInterface()
            ale.setInt("random_seed", ale_seed(seed + t))
            ale.setFloat("repeat_action_probability", sticky)
            ale.loadROM(rom)
            if mode != -1:
                ale.setMode(mode)
            if difficulty != -1:
                ale.setDifficulty(difficulty)
            ale.reset_game()
            acts = list(ale.getLegalActionSet() if full_actions else ale.getMinimalActionSet())
            rng = np.random.default_rng(seed + t)
            seq = [acts[i] for i in rng.integers(0, len(acts), 4096)]
            act, over, reset, clock = ale.act, ale.game_over, ale.reset_game, time.perf_counter
            frames = range(frame_skip)

            def run(until: float) -> tuple[int, float]:
                n, now = 0, clock()
                while now < until:
                    for _ in range(16):  # check the clock every 16 steps
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
            _, start = run(clock() + warmup)
            n, end = run(start + seconds)
            results.put((n, end - start))
        except BaseException as e:  # noqa: BLE001
            results.put(f"{type(e).__name__}: {e}")
            try:
                barrier.abort()
            except Exception:
                pass

    procs = [ctx.Process(target=child, args=(t,), daemon=True) for t in range(threads)]
    for p in procs:
        p.start()
    outs: list = []
    deadline = time.monotonic() + 600 + 3 * (warmup + seconds)
    try:  # a child that dies without a word (ALE may exit()) must not hang us
        while len(outs) < threads:
            try:
                outs.append(results.get(timeout=0.2))
                if isinstance(outs[-1], str):  # a child failed: stop the others
                    break
                continue
            except queue.Empty:
                pass
            dead = [p.exitcode for p in procs if p.exitcode not in (None, 0)]
            if dead or time.monotonic() > deadline:
                raise RuntimeError(f"a raw-ale-py process died (exit code {dead[0]})" if dead else "timed out")
    finally:
        for p in procs:
            if p.is_alive() and (len(outs) < threads or any(isinstance(o, str) for o in outs)):
                p.terminate()
            p.join(timeout=30)
    errors = [o for o in outs if isinstance(o, str)]
    if errors:
        raise RuntimeError(errors[0])
    steps = sum(n for n, _ in outs)
    sps = sum(n / el for n, el in outs if el > 0)
    elapsed = max(el for _, el in outs)
    return {"steps": steps, "calls": None, "elapsed": elapsed, "steps_per_s": sps, "us_per_call": None}


ENGINES = {
    "envpool": _run_envpool,
    "gymnasium-sync": lambda s: _run_gymnasium(s, asynchronous=False),
    "gymnasium-async": lambda s: _run_gymnasium(s, asynchronous=True),
    "ale-vector": _run_ale_vector,
    "raw": _run_raw,
    "raw-ale-py": _run_raw_ale_py,
}


def versions() -> dict:
    """Versions of the interpreter and of what the measurement imported."""
    out = {"python": platform.python_version(), "numpy": np.__version__, "executable": sys.executable}
    for name in ("envpool", "gymnasium", "ale_py", "mujoco"):
        mod = sys.modules.get(name)
        if mod is not None:
            out[name] = getattr(mod, "__version__", "?")
    return out


def run(spec: dict) -> dict:
    """Run one measurement; never raises (errors become ``{"error": ...}``)."""
    try:
        out = ENGINES[spec["engine"]](spec)
    except Unavailable as e:
        out = {"error": str(e), "unavailable": True}
    except ImportError as e:  # an optional dependency of the engine is missing
        out = {"error": f"{type(e).__name__}: {e}", "unavailable": True}
    except Exception as e:  # reported in the table, not fatal to the run
        msg = str(e).strip().splitlines()
        out = {"error": f"{type(e).__name__}: {msg[0] if msg else ''}", "unavailable": False}
    out["versions"] = versions()
    return out


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: worker.py JSON_SPEC", file=sys.stderr)
        return 2
    out = run(json.loads(argv[0]))
    sys.stdout.flush()
    print(RESULT_TAG + json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
