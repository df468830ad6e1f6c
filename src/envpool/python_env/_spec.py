"""A pool of Python envs' spec: make()'s options checked, one env probed (in the calling
process) for its spaces, reset info, TimeLimit and frame size, and the engine's spec of
the family that steps them."""

from __future__ import annotations

import functools
import os
import pickle
import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

from envpool import _config, _envpool
from envpool._spec import Config, EnvSpec
from envpool.python_env import _spaces as sp
from envpool.python_env._worker import unwrap_time_limit
from envpool.registration import MakeError, make_errors

# The engine's family of these envs, and its kind: the family whose task module is this
# package (its name is the C++ table's, cpp/pyproc/register.cc).
FAMILY = next(name for name, meta in _envpool.families().items() if meta["task_module"] == "envpool.python_env")
KIND = _envpool.families()[FAMILY]["kind"]
PREFIX = "gymnasium:"

# Options of these pools, beyond the engine's and the interfaces': the worker
# count (default: the usable CPUs, at most num_envs), how workers start, a
# step's time limit in seconds (0: none), and how long an idle worker (or a
# thread waiting for one) yields before it sleeps, in microseconds.
OPTIONS = {"num_workers": None, "start_method": "spawn", "step_timeout": 0.0, "idle_spin_us": 300.0}


def is_python_task(task_id: Any) -> bool:
    """Whether make() is given a Python env: a callable, or a ``gymnasium:<id>``."""
    return callable(task_id) or (isinstance(task_id, str) and task_id.startswith(PREFIX))


def _gymnasium_make(env_id: str, kwargs: dict[str, Any]) -> Any:
    import gymnasium

    return gymnasium.make(env_id, **kwargs)


@dataclass
class PythonEnv:
    """What a pool of Python envs needs besides the engine config."""

    env_fn: Any
    payload: bytes
    pickler: str  # "pickle" or "cloudpickle"
    obs: list[sp.Leaf]
    info: list[sp.Leaf]
    actions: list[sp.Leaf]
    action_space: Any
    observation_space: Any
    render_hw: tuple[int, int]


def _pickle_env_fn(env_fn: Any) -> tuple[bytes, str]:
    # pickle names what it pickles by module; a worker can find what a script's __main__
    # defines (spawn re-imports the script) but not what a notebook's, `python -c`'s or
    # a REPL's does, which cloudpickle sends by value instead.
    plain: Exception | None = None
    try:
        data = pickle.dumps(env_fn)
        if b"__main__" not in data:
            return data, "pickle"
    except Exception as e:  # noqa: BLE001 - cloudpickle next
        plain = e
    try:
        import cloudpickle
    except ImportError:
        if plain is None:
            return data, "pickle"
        raise TypeError(
            f"env_fn cannot be pickled for the worker processes ({plain}); install cloudpickle "
            "or pass a module-level function"
        ) from plain
    try:
        return cloudpickle.dumps(env_fn), "cloudpickle"
    except Exception as e:
        raise TypeError(f"env_fn cannot be pickled for the worker processes: {e}") from e


def make_pool_spec(task_id: Any, config: dict[str, Any]) -> Any:
    """The EnvSpec of a pool of Python envs: probes one env (made here, in the calling
    process) for its spaces, reset info, TimeLimit and frame size."""
    if sys.platform == "win32":
        raise NotImplementedError(
            "pools of Python envs (python:<id>, env_fn) are not available on Windows: their worker processes share "
            "POSIX shared memory (Linux and macOS only); use gymnasium's vector envs there"
        )
    config = dict(config)
    render_mode_given = "render_mode" in config
    py_opts = {k: config.pop(k, v) for k, v in _config.PY_DEFAULTS.items()}
    _config._check_py_options(py_opts)
    opts = {k: config.pop(k, v) for k, v in OPTIONS.items()}
    engine = {k: config.pop(k) for k in _config.ENGINE_KEYS if k in config}
    if "autoreset_mode" in engine:
        engine["autoreset_mode"] = _config._autoreset_mode(engine["autoreset_mode"])
    # The engine's checks before env_fn runs: a bad num_envs or seed is named as
    # such, not met as num_workers' range or the probe env's own seed error.
    with make_errors():
        _envpool.check_engine_options(engine)
    num_envs = int(engine.setdefault("num_envs", 1))
    workers = opts["num_workers"]
    if workers is None:
        workers = min(
            num_envs, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
        )
    if not isinstance(workers, (int, np.integer)) or isinstance(workers, bool) or not 1 <= workers <= num_envs:
        raise MakeError(f"num_workers must be an int in [1, num_envs={num_envs}], got {workers!r}")
    if isinstance(task_id, str):
        gym_id = task_id[len(PREFIX) :]
        kwargs = dict(config)
        if py_opts["render_mode"] is not None:
            kwargs.setdefault("render_mode", py_opts["render_mode"])
        env_fn: Any = functools.partial(_gymnasium_make, gym_id, kwargs)
        name = task_id
    else:
        if config:
            raise TypeError(f"unknown config keys {sorted(config)} for a pool of env_fn's envs")
        env_fn = task_id
        name = "python:" + getattr(task_id, "__qualname__", type(task_id).__name__)
    payload, pickler = _pickle_env_fn(env_fn)
    spin = opts["idle_spin_us"]
    if isinstance(spin, bool) or not isinstance(spin, (int, float, np.integer, np.floating)) or not 0 <= spin <= 1e6:
        raise MakeError(f"idle_spin_us must be a number of microseconds in [0, 1e6], got {spin!r}")
    if opts["start_method"] not in ("spawn", "forkserver"):
        raise MakeError(f"start_method must be 'spawn' or 'forkserver', got {opts['start_method']!r}")
    probe = env_fn()
    try:
        inner, limit = unwrap_time_limit(probe)
        import gymnasium

        if not isinstance(inner, gymnasium.Env):
            raise TypeError(f"env_fn must return a gymnasium.Env, got {type(probe).__name__}")
        obs = sp.flatten(inner.observation_space, "obs")
        actions = sp.flatten(inner.action_space, "action")
        seed = int(engine.get("seed", 42))
        _, info = inner.reset(seed=seed)
        infos = sp.info_leaves(info if isinstance(info, dict) else {})
        render_hw = (0, 0)
        # As AsyncVectorEnv takes its envs' render_mode (an explicit render_mode=None: no frames).
        if not render_mode_given and getattr(inner, "render_mode", None) == "rgb_array":
            py_opts["render_mode"] = "rgb_array"
        if py_opts["render_mode"] == "rgb_array":
            if getattr(inner, "render_mode", None) != "rgb_array":
                raise MakeError(
                    f"render_mode='rgb_array' needs envs made with render_mode='rgb_array' (env_fn's "
                    f"have render_mode={getattr(inner, 'render_mode', None)!r})"
                )
            frame = np.asarray(inner.render())
            if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
                raise MakeError(
                    f"render() must return uint8 (height, width, 3) frames, got {frame.dtype} {frame.shape}"
                )
            render_hw = (int(frame.shape[0]), int(frame.shape[1]))
        observation_space, action_space = inner.observation_space, inner.action_space
        metadata = dict(getattr(inner, "metadata", {}) or {})
    finally:
        try:
            probe.close()
        except Exception:  # noqa: BLE001, S110 - a probe's close
            pass
    if "max_episode_steps" not in engine:
        engine["max_episode_steps"] = limit or 0
    opts["num_workers"] = int(workers)
    # Each in-flight env's stepping thread only waits for its worker: a thread
    # per env lets every worker step its whole block per batch.
    if not engine.get("num_threads"):
        engine["num_threads"] = min(num_envs, 1024)
    state_text, state_bounds = sp.spec_text(obs + infos)
    action_text, action_bounds = sp.spec_text(actions)
    layout = sp.Layout.of(actions, obs + infos, render_hw, num_envs, int(workers))
    family_cfg = {
        **engine,
        "num_workers": int(workers),
        "state_spec": state_text,
        "state_bounds": state_bounds,
        "action_spec": action_text,
        "action_bounds": action_bounds,
        "slot_bytes": layout.slot_bytes,
        "render_height": render_hw[0],
        "render_width": render_hw[1],
        "step_timeout": float(opts["step_timeout"]),
        "idle_spin_us": float(spin),
    }
    with make_errors():
        full, state_spec, action_spec = _envpool.make_spec(FAMILY, family_cfg)
    if full.get("batch_size") == 0:
        full["batch_size"] = full["num_envs"]
    for key in ("state_spec", "state_bounds", "action_spec", "action_bounds", "slot_bytes", "shm_name"):
        full.pop(key, None)
    if "render_fps" in metadata:
        full["render_fps"] = metadata["render_fps"]
    py = PythonEnv(env_fn, payload, pickler, obs, infos, actions, action_space, observation_space, render_hw)
    return PyEnvSpec(
        name,
        FAMILY,
        Config({**full, **py_opts, "start_method": opts["start_method"]}),
        state_spec,
        action_spec,
        python_env=py,
    )


@dataclass(frozen=True)
class PyEnvSpec(EnvSpec):
    """An EnvSpec that also holds the Python env's factory and arrays."""

    python_env: PythonEnv | None = None
