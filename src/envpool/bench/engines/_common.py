"""What engine modules share: actions, the timing loop, missing-package reasons.

Standard library and numpy only (the worker loads this under any interpreter).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
import time

import numpy as np

T0 = time.perf_counter()  # the worker sets this to its start: setup_s is measured from there
NUM_ACTION_BATCHES = 64

# The module an engine imports -> the distribution that provides it. Each is a
# dependency of envpool or in its ``bench`` extra (tests/bench/test_bench.py checks
# this against pyproject.toml), so a default engine never needs more than
# ``pip install 'envpool[bench]'``.
PROVIDERS = {
    "gymnasium": "gymnasium",
    "ale_py": "ale-py",
    "mujoco": "mujoco",
    "imageio": "imageio",  # gymnasium's MuJoCo envs
    "cv2": "opencv-python-headless",  # gymnasium's AtariPreprocessing
}


class Unavailable(Exception):
    """The engine cannot run this task/case (reported as n/a, not a failure)."""


def has_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def missing(*modules: str, purpose: str = "") -> str | None:
    """None when every module is importable, else the reason, with the pip command."""
    gone = [m for m in modules if not has_module(m)]
    if not gone:
        return None
    dists = [PROVIDERS.get(m, m) for m in gone]
    fix = "pip install 'envpool[bench]'" if all(m in PROVIDERS for m in gone) else "pip install " + " ".join(dists)
    return f"{' and '.join(dists)} not installed{f' ({purpose})' if purpose else ''}: {fix}"


@contextlib.contextmanager
def quiet_stderr():
    """Silence file descriptor 2 for a while: C libraries (ALE's banner, MuJoCo's model compiler)
    print there when an env is built in the envpool-bench process to check that it can be."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def registered(task) -> str | None:
    """The reason for engines that need the task in this build's registry."""
    if getattr(task, "gymnasium", None) is not None:
        return "a gymnasium: task (Python env): the envpool, gymnasium-*, sb3-subproc and raw-procs engines only"
    return None if task.registered else "task not registered in this build"


def pixel_backend(spec: dict) -> None:
    """For pixel observations (``--option from_pixels=True``): one GL backend for every engine of
    the run, MUJOCO_GL from the environment, else OSMesa (which works on any machine with
    libosmesa6; set MUJOCO_GL=egl on a GPU machine). Mesa's software rasterizer (llvmpipe, behind
    OSMesa and Mesa's EGL) gives each GL context one rasterizer thread per core unless
    LP_NUM_THREADS says otherwise; it is 1 here unless set, so that each engine renders on its own
    threads only (gymnasium's SyncVectorEnv on one core, envpool on its num_threads)."""
    if (spec.get("full_config") or {}).get("from_pixels"):
        if "MUJOCO_GL" not in os.environ:  # PyOpenGL (gymnasium's renderer) must agree
            os.environ["MUJOCO_GL"] = os.environ["PYOPENGL_PLATFORM"] = "osmesa"
        os.environ.setdefault("PYOPENGL_PLATFORM", os.environ["MUJOCO_GL"])
        os.environ.setdefault("LP_NUM_THREADS", "1")


def no_options(task, takes: tuple[str, ...] = ()) -> str | None:
    """The reason for engines that cannot apply the run's ``--option`` keys (beyond ``takes``)."""
    other = [k for k in getattr(task, "options", {}) if k not in takes]
    return f"takes no --option {other[0]}" if other else None


def single_task(task) -> str | None:
    """The reason for engines that run one task only (multi-task pools are envpool's)."""
    return (
        "multi-task pools: the envpool and xla engines only (envpool.ray passes task lists through: use it directly)"
        if getattr(task, "multi_task", False)
        else None
    )


def clean_env(pythonpath: str | None = None) -> dict:
    """This process's environment without PYTHONPATH/PYTHONHOME (plus ``pythonpath`` if given)."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env.pop("PYTHONHOME", None)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    env.setdefault("PYTHONWARNINGS", "ignore")
    return env


# --- actions ---------------------------------------------------------------------------


def action_batches(space, batch: int, seed: int) -> list:
    """``NUM_ACTION_BATCHES`` random batches of ``batch`` actions from a Discrete or Box space."""
    rng = np.random.default_rng(seed)
    if hasattr(space, "n"):  # Discrete (gym or gymnasium)
        start = int(getattr(space, "start", 0))
        return [
            rng.integers(start, start + int(space.n), size=batch).astype(np.int32) for _ in range(NUM_ACTION_BATCHES)
        ]
    if hasattr(space, "low") and hasattr(space, "high"):  # Box
        low = np.broadcast_to(np.asarray(space.low, dtype=np.float64), space.shape)
        high = np.broadcast_to(np.asarray(space.high, dtype=np.float64), space.shape)
        low = np.where(np.isfinite(low), low, -1.0)
        high = np.where(np.isfinite(high), high, 1.0)
        dtype = getattr(space, "dtype", np.float32) or np.float32
        return [rng.uniform(low, high, size=(batch, *space.shape)).astype(dtype) for _ in range(NUM_ACTION_BATCHES)]
    raise Unavailable(f"unsupported action space {space!r}")


# --- timing ----------------------------------------------------------------------------


def time_loop(call, steps_per_call: int, warmup: float, seconds: float) -> dict:
    """Call ``call(i)`` repeatedly: ``warmup`` s untimed, then ``seconds`` s timed."""
    clock = time.perf_counter
    setup = clock() - T0
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


def close(env) -> None:
    """``env.close()`` if it has one; errors while closing are not the measurement's."""
    fn = getattr(env, "close", None)
    if fn is not None:
        try:
            fn()
        except Exception:
            pass


def run_processes(procs: list, results, name: str, seconds: float) -> dict:
    """Start the ceiling's processes, gather each one's ``(steps, elapsed)`` (or an error
    string) from ``results``, and report the summed steps/s. A process that dies without a
    word (ALE may exit()) or a run past its time must not hang the worker: it raises."""
    import queue

    for p in procs:
        p.start()
    outs: list = []
    deadline = time.monotonic() + 600 + 3 * seconds
    try:
        while len(outs) < len(procs):
            try:
                outs.append(results.get(timeout=0.2))
                if isinstance(outs[-1], str):  # one failed: stop the others
                    break
                continue
            except queue.Empty:
                pass
            dead = [p.exitcode for p in procs if p.exitcode not in (None, 0)]
            if dead or time.monotonic() > deadline:
                raise RuntimeError(f"a {name} process died (exit code {dead[0]})" if dead else "timed out")
    finally:
        for p in procs:
            if p.is_alive() and (len(outs) < len(procs) or any(isinstance(o, str) for o in outs)):
                p.terminate()
            p.join(timeout=30)
    errors = [o for o in outs if isinstance(o, str)]
    if errors:
        raise RuntimeError(errors[0])
    return {
        "steps": sum(n for n, _ in outs),
        "calls": None,
        "elapsed": max(el for _, el in outs),
        "steps_per_s": sum(n / el for n, el in outs if el > 0),
        "us_per_call": None,
    }
