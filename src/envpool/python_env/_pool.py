"""The engine pool of a pool of Python envs, with its worker processes: the engine's
calls, and an env's exception raised as its own type."""

from __future__ import annotations

import weakref
from typing import Any

from envpool import _config
from envpool.python_env import _spaces as sp
from envpool.python_env._spec import FAMILY, PythonEnv
from envpool.python_env._workers import Workers


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
            engine, seeds = _config.split_seeds({k: cfg[k] for k in _config.ENGINE_KEYS if k in cfg})
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
