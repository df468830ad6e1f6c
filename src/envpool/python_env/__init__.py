"""Your own Python (gymnasium) environments in a pool: ``envpool.make(env_fn, ...)`` and
``envpool.make("gymnasium:<id>", ...)``.

The envs live in worker processes, a block of envs each; the engine's PyProc family
(cpp/python_env) steps each env by handing its action to the env's slot of a shared-memory
segment and waiting for its worker, so the engine schedules these envs as any other
(sync, async first-to-finish, errors, autoreset) and results reach Python in the batch
buffers. See docs/python_envs.md.
"""

from __future__ import annotations

import functools
import itertools
import mmap
import multiprocessing
import multiprocessing.connection
import os
import pickle
import secrets
import threading
import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np

from envpool import _config, _pool
from envpool.python_env import _spaces as sp
from envpool.python_env._worker import FdArg, unwrap_time_limit
from envpool.registration import MakeError, make_errors

FAMILY = "PyProc"
PREFIX = "gymnasium:"

# Options of these pools, beyond the engine's and the interfaces': the worker
# count (default: the usable CPUs, at most num_envs), how workers start, a
# step's time limit in seconds (0: none), and how long an idle worker (or a
# thread waiting for one) yields before it sleeps, in microseconds.
_OPTIONS = {"num_workers": None, "start_method": "spawn", "step_timeout": 0.0, "idle_spin_us": 300.0}
_ENGINE_KEYS = (
    "num_envs",
    "batch_size",
    "num_threads",
    "thread_affinity_offset",
    "seed",
    "max_episode_steps",
    "autoreset_mode",
)


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
    from envpool import _envpool

    config = dict(config)
    render_mode_given = "render_mode" in config
    py_opts = {k: config.pop(k, v) for k, v in _config.PY_DEFAULTS.items()}
    _config._check_py_options(py_opts)
    opts = {k: config.pop(k, v) for k, v in _OPTIONS.items()}
    engine = {k: config.pop(k) for k in _ENGINE_KEYS if k in config}
    if "autoreset_mode" in engine:
        engine["autoreset_mode"] = _config._autoreset_mode(engine["autoreset_mode"])
    # The engine's checks before env_fn runs: a bad num_envs or seed is named as
    # such, not met as num_workers' range or the probe env's own seed error.
    with make_errors():
        _envpool.check_engine_options(engine)
    num_envs = int(engine.setdefault("num_envs", 1))
    workers = opts["num_workers"]
    if workers is None:
        workers = min(num_envs, len(os.sched_getaffinity(0)))
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
    from envpool._spec import Config

    return PyEnvSpec(
        name,
        FAMILY,
        Config({**full, **py_opts, "start_method": opts["start_method"]}),
        state_spec,
        action_spec,
        python_env=py,
    )


def _spec_class() -> Any:
    from envpool._spec import EnvSpec

    @dataclass(frozen=True)
    class PyEnvSpec(EnvSpec):
        """An EnvSpec that also holds the Python env's factory and arrays."""

        python_env: Any = None

    return PyEnvSpec


PyEnvSpec = _spec_class()

_counter = itertools.count()


# Starts of a replacement worker that dies while starting, before it is given up.
START_ATTEMPTS = 3


class _DiedStarting(RuntimeError):
    """A worker process ended before it reported that its envs were made."""


class _ClosedStarting(RuntimeError):
    """The pool was closed while a worker process was making its envs."""


class Workers:
    """The shared-memory segment and the worker processes of one pool, and a thread
    that replaces a worker that dies."""

    def __init__(self, py: PythonEnv, config: dict[str, Any]) -> None:
        self.py = py
        self.num_envs = int(config["num_envs"])
        self.num_workers = int(config["num_workers"])
        self.idle_spin_us = float(config["idle_spin_us"])
        self.layout = sp.Layout.of(py.actions, py.obs + py.info, py.render_hw, self.num_envs, self.num_workers)
        self.ctx = multiprocessing.get_context(config["start_method"])
        self.closed = False
        self.name = f"/envpool-{os.getpid()}-{next(_counter)}-{secrets.token_hex(4)}"
        import _posixshmem

        self.fd = _posixshmem.shm_open(self.name, os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600)
        self.linked = True
        self.procs: list[Any] = [None] * self.num_workers
        # Each running worker's end of its pipe (access_envs), None while it starts.
        self.conns: list[Any] = [None] * self.num_workers
        self._access = threading.Lock()
        # Signalled (under _access) when a replacement worker has started or was given up.
        self._started = threading.Condition(self._access)
        # Why each given-up worker's last start failed (see replace), by worker.
        self.given_up: dict[int, str] = {}
        self._stop_r, self._stop_w = os.pipe()
        self._thread: threading.Thread | None = None
        try:
            os.ftruncate(self.fd, self.layout.total)
            self.mm = mmap.mmap(self.fd, self.layout.total)
            self.words = np.ndarray((self.layout.slots_off // 4,), np.uint32, buffer=self.mm)
            self.control = np.ndarray(
                (self.num_envs, sp.CONTROL // 4),
                np.uint32,
                buffer=self.mm,
                offset=self.layout.slots_off,
                strides=(self.layout.slot_bytes, 4),
            )
            import ctypes

            self.addr = ctypes.addressof(ctypes.c_char.from_buffer(self.mm))
            for field, value in (("magic", sp.MAGIC), ("num_envs", self.num_envs), ("num_workers", self.num_workers)):
                self.words[sp.word(f"header.{field}")] = value
            self.blocks = [[i for i in range(self.num_envs) if self.worker_of(i) == w] for w in range(self.num_workers)]
            conns = []
            for w in range(self.num_workers):
                self._rec(w)[sp.word("record.gen")] = 1
                conns.append(self._start(w, 1))
            for w, conn in enumerate(conns):
                self._handshake(w, conn)
            self._thread = threading.Thread(
                target=_monitor, args=(weakref.ref(self),), daemon=True, name="envpool-workers"
            )
            self._thread.start()
        except BaseException:
            self.close()
            raise

    def _rec(self, w: int) -> np.ndarray:
        o = (sp.HEADER + sp.WORKER_RECORD * w) // 4
        return self.words[o : o + sp.WORKER_RECORD // 4]

    def _start(self, w: int, gen: int) -> Any:
        ids = self.blocks[w]
        spec = {
            "layout": self.layout,
            "actions": self.py.actions,
            "obs": self.py.obs,
            "info": self.py.info,
            "action_space": self.py.action_space,
            "env_ids": ids,
            "render_hw": self.py.render_hw,
            "idle_spin_us": self.idle_spin_us,
        }
        parent, child = self.ctx.Pipe(duplex=True)
        main = threading.current_thread() is threading.main_thread()
        from envpool.python_env import _worker

        p = self.ctx.Process(
            target=_worker.run,
            args=(FdArg(self.fd), self.layout.total, self.py.payload, spec, w, gen, child, os.getpid(), main),
            daemon=True,
            name=f"envpool-worker-{w}",
        )
        try:
            p.start()
        except BaseException:
            parent.close()  # a replacement that cannot start leaves no pipe open
            raise
        finally:
            child.close()
        self.procs[w] = p
        self._rec(w)[0] = p.pid
        return parent

    def _handshake(self, w: int, conn: Any) -> None:
        try:
            # close() does not wait for a replacement's env_fn (which may take long).
            if conn not in multiprocessing.connection.wait([conn, self._stop_r]):
                raise _ClosedStarting(f"the pool was closed while worker process {w} started")
            status, msg, tb = conn.recv()
        except EOFError:
            conn.close()
            p = self.procs[w]
            p.join()
            raise _DiedStarting(f"worker process {w} died while starting (exit code {p.exitcode})") from None
        except BaseException:
            conn.close()
            raise
        if status != "ok":
            conn.close()
            raise RuntimeError(f"env_fn failed in worker process {w}: {msg}\n{tb}")
        self.conns[w] = conn

    def unlink(self) -> None:
        """Remove the segment's name (the engine and the workers have it mapped; new
        workers get the descriptor): nothing is left in /dev/shm whatever happens."""
        if self.linked:
            import _posixshmem

            self.linked = False
            try:
                _posixshmem.shm_unlink(self.name)
            except FileNotFoundError:
                pass

    def wake_all(self) -> None:
        from envpool import _envpool

        for w in range(self.num_workers):
            _envpool._futex_wake(self.addr + sp.HEADER + sp.WORKER_RECORD * w + sp.SEGMENT["record.doorbell"])
        for i in range(self.num_envs):
            _envpool._futex_wake(
                self.addr + self.layout.slots_off + self.layout.slot_bytes * i + sp.SEGMENT["slot.done"]
            )
        _envpool._epoch_wake(self.addr + sp.SEGMENT["header.epoch"])

    def begin_close(self) -> None:
        """Waiting steps stop (their threads raise), workers leave their loops."""
        if getattr(self, "mm", None) is not None and not self.mm.closed:
            self.words[sp.word("header.closing")] = 1
            self.wake_all()

    def replace(self, w: int) -> None:
        """Worker w died: record how, bump its generation (its envs' next step reports
        the death), wake its waiting envs, start a new one.

        A new worker that dies while starting is replaced in turn, up to
        START_ATTEMPTS starts; after that, or when its env_fn raises, the worker is
        given up (its envs' calls raise): restarting it on every death spawned
        processes without end (a few a second, each importing the env's modules)."""
        from envpool import _envpool

        rec = self._rec(w)
        why = ""
        with self._access:  # after a call that waits on it has seen it die
            self._drop_conn(w)
        for _ in range(START_ATTEMPTS):
            p = self.procs[w]
            p.join()
            rec[sp.word("record.death_status")] = np.uint32(p.exitcode & 0xFFFFFFFF)
            gen = int(rec[sp.word("record.gen")]) + 1
            rec[sp.word("record.gen")] = gen
            for i in self.blocks[w]:
                _envpool._futex_wake(
                    self.addr + self.layout.slots_off + self.layout.slot_bytes * i + sp.SEGMENT["slot.done"]
                )
            _envpool._epoch_wake(
                self.addr + sp.SEGMENT["header.epoch"]
            )  # threads that pick finished envs see the death
            if self.closed:
                return
            try:
                self._handshake(w, self._start(w, gen))
                with self._access:
                    self._started.notify_all()
                return
            except _ClosedStarting:
                self.procs[w].kill()  # close() joins it
                return
            except _DiedStarting as e:
                why = str(e)
                continue
            except Exception as e:  # noqa: BLE001 - its envs raise instead, saying this
                why = str(e)
                break
        p = self.procs[w]
        p.join()
        self.procs[w] = None  # no longer watched
        self.given_up[w] = why  # before the flag: a call that sees the flag finds it
        rec[sp.word("record.broken")] = 1
        _envpool._epoch_wake(self.addr + sp.SEGMENT["header.epoch"])
        with self._access:
            self._started.notify_all()

    def _drop_conn(self, w: int) -> None:
        conn, self.conns[w] = self.conns[w], None
        if conn is not None:
            conn.close()

    def access_envs(
        self, kind: str, name: str, args: tuple, kwargs: dict, values: list | None, timeout: float
    ) -> tuple:
        """gymnasium's call/get_attr/set_attr on every env, in its worker (between the
        requests it serves, envs in flight or not): one result per env, in env order.
        The first env's exception, by env order, is raised once every worker answered."""
        from envpool import _envpool

        with self._access:
            if self.closed:
                raise RuntimeError("the pool is closed")
            requests = []  # everything pickled before any worker is asked
            for w, ids in enumerate(self.blocks):
                if not ids:
                    continue
                conn, proc = self._running(w, ids[0])
                vals = None if values is None else [values[i] for i in ids]
                requests.append((w, ids, conn, proc, pickle.dumps((kind, name, args, kwargs, vals))))
            unsent = set()
            for w, _, conn, _, request in requests:
                # Announced first (control, then the doorbell, as the worker reads
                # them), then written: the worker reads a large one as it comes.
                rec = self.addr + sp.HEADER + sp.WORKER_RECORD * w
                _envpool._epoch_wake(rec + sp.SEGMENT["record.control"])
                _envpool._epoch_wake(rec + sp.SEGMENT["record.doorbell"])
                try:
                    conn.send_bytes(request)
                except OSError:  # it died; its sentinel says so below
                    unsent.add(w)
            results: list[Any] = [None] * self.num_envs
            error: Exception | None = None
            for w, ids, conn, proc, _ in requests:
                failure: Exception | None = None
                try:
                    ready = multiprocessing.connection.wait(
                        [proc.sentinel] if w in unsent else [conn, proc.sentinel], timeout if timeout > 0 else None
                    )
                    if conn in ready:
                        status, payload = pickle.loads(conn.recv_bytes())
                    else:
                        status, payload = ("died", None) if ready else ("timeout", None)
                except (EOFError, OSError, ValueError):  # its end closed: it died, or the pool closed
                    status, payload = "died", None
                if status == "ok":
                    for i, value in zip(ids, payload):
                        results[i] = value
                    continue
                if status == "error":
                    exc, text = payload
                    failure = exc if isinstance(exc, Exception) else RuntimeError(text.rstrip().splitlines()[-1])
                    failure.add_note(f"env {ids[0]}'s {kind} {name!r} failed in worker process {w}")
                    failure.add_note("worker traceback:\n" + text.rstrip())
                elif status == "timeout":
                    proc.kill()  # the monitor replaces it; its envs' next step says so
                    failure = RuntimeError(
                        f"env {ids[0]}: {kind} {name!r} took over {timeout} s (step_timeout) in worker process "
                        f"{w}; it was killed, and its envs are re-created and reset on their next step"
                    )
                else:
                    failure = RuntimeError(
                        f"env {ids[0]}: its worker process {w} died during {kind} {name!r}; its envs are "
                        "re-created and reset on their next step"
                    )
                if error is None:
                    error = failure
            if error is not None:
                raise error
            return tuple(results)

    def _running(self, w: int, env_id: int) -> tuple:
        """Worker w's pipe and process, under _access. A worker that died is waited for
        until its replacement has started (the wait releases _access, which replace()
        takes); one given up, or a pool closed meanwhile, raises."""
        while True:
            if self.closed:
                raise RuntimeError("the pool is closed")
            if w in self.given_up:
                raise RuntimeError(f"env {env_id}: its worker process {w} could not be restarted")
            conn, proc = self.conns[w], self.procs[w]
            # Its sentinel, not exitcode: polling exitcode would reap the process under
            # the monitor's join().
            if conn is not None and proc is not None and not multiprocessing.connection.wait([proc.sentinel], 0):
                return conn, proc
            self._started.wait(0.05)  # close() does not signal: seen within 50 ms

    def worker_of(self, env_id: int) -> int:
        """The worker that holds env_id (contiguous blocks of envs)."""
        return env_id * self.num_workers // self.num_envs

    def given_up_why(self, env_id: int) -> str | None:
        """Why the env's worker was given up (its last start's failure), or None."""
        return self.given_up.get(self.worker_of(env_id))

    def failure(self, env_id: int) -> Any:
        """The env's exception (and its traceback text) if its last call raised one in
        the worker, else None."""
        if self.mm.closed:
            return None
        ctl = self.control[env_id]
        status, error_req = ctl[sp.word("slot.status")], ctl[sp.word("slot.error_req")]
        req, done = ctl[sp.word("slot.req")], ctl[sp.word("slot.done")]
        if status == 0 or error_req != done or req != done:
            return None
        o = self.layout.slots_off + self.layout.slot_bytes * env_id + self.layout.error_off
        msg_len, blob_len = np.frombuffer(self.mm, np.uint32, 2, o)
        if not blob_len:
            return None
        start = o + 8 + int(msg_len)
        try:
            return pickle.loads(self.mm[start : start + int(blob_len)])
        except Exception:  # noqa: BLE001 - falls back to the engine's RuntimeError
            return None

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self.begin_close()
        try:
            os.write(self._stop_w, b"x")
        except OSError:
            pass
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
        import time

        deadline = time.monotonic() + 1.0
        for p in self.procs:
            if p is not None:
                p.join(timeout=max(0.0, deadline - time.monotonic()))
        for p in self.procs:
            if p is not None and p.exitcode is None:
                p.kill()
                p.join()
        # After the workers ended: a call waiting on one has seen it end.
        for w in range(self.num_workers):
            self._drop_conn(w)
        self.unlink()
        for fd in (self._stop_r, self._stop_w, self.fd):
            try:
                os.close(fd)
            except OSError:
                pass
        self.words = self.control = None  # type: ignore[assignment]
        try:
            self.mm.close()
        except (BufferError, AttributeError):
            pass


def _monitor(ref: Any) -> None:
    while True:
        self = ref()
        if self is None or self.closed:
            return
        sentinels = {p.sentinel: w for w, p in enumerate(self.procs) if p is not None}
        stop = self._stop_r
        del self
        ready = multiprocessing.connection.wait([*sentinels, stop])
        self = ref()
        if self is None or self.closed or stop in ready:
            return
        for s in ready:
            if s in sentinels:
                self.replace(sentinels[s])
        del self


class ProcPool:
    """The engine pool of a pool of Python envs, with its workers. Stands in for
    ``_envpool.Pool``: the same calls; an env's exception comes back as its own type
    (with env_ids, failed_env_ids and result, as the engine's); closing stops the
    workers."""

    def __init__(self, spec: Any, with_discount: bool) -> None:
        from envpool import _envpool

        py: PythonEnv = spec.python_env
        cfg = dict(spec.config)
        self._workers = Workers(py, cfg)
        try:
            engine, seeds = _config.split_seeds({k: cfg[k] for k in _ENGINE_KEYS if k in cfg})
            state_text, state_bounds = sp.spec_text(py.obs + py.info)
            action_text, action_bounds = sp.spec_text(py.actions)
            engine.update(
                shm_name=self._workers.name,
                num_workers=cfg["num_workers"],
                state_spec=state_text,
                state_bounds=state_bounds,
                action_spec=action_text,
                action_bounds=action_bounds,
                slot_bytes=self._workers.layout.slot_bytes,
                render_height=py.render_hw[0],
                render_width=py.render_hw[1],
                step_timeout=cfg["step_timeout"],
                idle_spin_us=cfg["idle_spin_us"],
            )
            self._pool = _envpool.Pool(FAMILY, engine, with_discount, seeds=seeds)
        except BaseException:
            self._workers.close()
            raise
        finally:
            self._workers.unlink()
        self._finalizer = weakref.finalize(self, _close, self._pool, self._workers)
        self._step_timeout = float(cfg["step_timeout"])

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__dict__["_pool"], name)

    def _convert(self, e: Exception) -> Exception:
        failed = getattr(e, "failed_env_ids", None)
        if failed is None or not len(failed):
            return e
        why = self._workers.given_up_why(int(failed[0]))
        if why is not None:
            e.add_note(f"its last start failed: {why}")
            return e
        got = self._workers.failure(int(failed[0]))
        if got is None:
            return e
        orig, tb = got
        if not isinstance(orig, Exception):
            return e
        for attr in ("env_ids", "failed_env_ids", "result"):
            if hasattr(e, attr):
                setattr(orig, attr, getattr(e, attr))
        orig.add_note(f"{e} (raised in its worker process)")
        orig.add_note("worker traceback:\n" + tb.rstrip())
        return orig

    def step(self, action: Any, env_id: Any = None) -> Any:
        try:
            return self._pool.step(action, env_id)
        except Exception as e:
            new = self._convert(e)
            if new is e:
                raise
            raise new from None

    def recv(self) -> Any:
        try:
            return self._pool.recv()
        except Exception as e:
            new = self._convert(e)
            if new is e:
                raise
            raise new from None

    def reset(self, env_id: Any = None, seed: Any = None, own_batch: bool = False) -> Any:
        try:
            return self._pool.reset(env_id, seed, own_batch)
        except Exception as e:
            new = self._convert(e)
            if new is e:
                raise
            raise new from None

    def render(self, env_id: Any) -> Any:
        try:
            return self._pool.render(env_id)
        except Exception as e:
            new = self._convert(e)
            if new is e:
                raise
            raise new from None

    def access_envs(self, kind: str, name: str, args: tuple, kwargs: dict, values: list | None) -> tuple:
        """call ("call"), get_attr ("call" with no arguments, as gymnasium's) or set_attr
        ("set") on every env in the workers (Workers.access_envs)."""
        if self._pool.closed:
            raise RuntimeError("the pool is closed (reset() makes it again)")
        return self._workers.access_envs(kind, name, args, kwargs, values, self._step_timeout)

    def close(self) -> None:
        self._finalizer()

    @property
    def closed(self) -> bool:
        return self._pool.closed

    @property
    def worker_pids(self) -> list[int]:
        """The worker processes' pids (for tests and monitoring)."""
        return [p.pid for p in self._workers.procs if p is not None]


def _close(pool: Any, workers: Workers) -> None:
    workers.begin_close()
    pool.close()
    workers.close()


def new_pool(spec: Any, with_discount: bool) -> ProcPool:
    return ProcPool(spec, with_discount)


_config.SPEC_RESOLVERS.append((is_python_task, make_pool_spec))
_config.POOL_SPEC_FAMILIES.add(FAMILY)
_pool.POOL_MAKERS[FAMILY] = new_pool
