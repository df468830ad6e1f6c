"""The worker processes of a pool of Python envs and their shared-memory segment: a
supervisor that starts them, replaces one that dies (its envs' next call reports the
death) and gives up on one that cannot start, and their other channel, a pipe per
worker for gymnasium's call / get_attr / set_attr."""

from __future__ import annotations

import itertools
import mmap
import multiprocessing
import multiprocessing.connection
import os
import pickle
import secrets
import threading
import weakref
from typing import Any

import numpy as np

from envpool.python_env import _spaces as sp
from envpool.python_env._spec import PythonEnv
from envpool.python_env._worker import FdArg

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
