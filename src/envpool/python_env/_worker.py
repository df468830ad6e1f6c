"""The worker process: holds a block of envs and serves their slots of the segment.

The engine's thread for env i writes the action and a command into slot i, bumps
``req`` and rings the worker's doorbell (a futex); the worker runs the command and
writes the results into the slot, then stores ``done = req`` and wakes that thread.
"""

from __future__ import annotations

import ctypes
import mmap
import os
import pickle
import signal
import traceback
from typing import Any

import numpy as np

from envpool.python_env import _spaces as sp

RESET, STEP, RENDER = (sp.SEGMENT[f"cmd_{c}"] for c in ("reset", "step", "render"))
OK, ERROR, VALUE_ERROR, INDEX_ERROR = (sp.SEGMENT[f"status_{s}"] for s in ("ok", "error", "value_error", "index_error"))


def unwrap_time_limit(env: Any) -> tuple[Any, int | None]:
    """An outermost gymnasium TimeLimit is taken off: the engine counts the steps."""
    from gymnasium.wrappers import TimeLimit

    if isinstance(env, TimeLimit):
        return env.env, int(env._max_episode_steps)
    return env, None


class FdArg:
    """A file descriptor handed to a spawned (or forkserver) child: duplicated into it
    while the process object is pickled for the start."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def __reduce__(self) -> Any:
        from multiprocessing import reduction

        return (_detach_fd, (reduction.DupFd(self.fd),))


def _detach_fd(dup: Any) -> int:
    return dup.detach()


def _views(mm: mmap.mmap, base: int, slot_bytes: int, leaf: sp.Leaf, off: int) -> np.ndarray:
    dtype = np.dtype(leaf.dtype)
    inner = [dtype.itemsize] * len(leaf.shape)
    for i in range(len(leaf.shape) - 2, -1, -1):
        inner[i] = inner[i + 1] * leaf.shape[i + 1]
    return np.ndarray(leaf.shape, dtype, buffer=mm, offset=base + off, strides=tuple(inner))


def _reader(leaf: sp.Leaf) -> Any:
    """How to turn the action array in the slot into what the env's space holds."""
    if leaf.kind == "discrete":
        return lambda v: int(v)
    dtype = leaf.space.dtype
    return lambda v: v.astype(dtype)  # a copy: the slot is rewritten next step


def _nest(leaves: list[sp.Leaf], values: list[Any], space: Any) -> Any:
    """The nested Dict / Tuple value from the leaves' values."""
    from gymnasium import spaces

    if len(leaves) == 1 and not leaves[0].path:
        return values[0]
    it = iter(values)

    def build(s: Any) -> Any:
        if isinstance(s, spaces.Dict):
            return {k: build(sub) for k, sub in s.spaces.items()}
        if isinstance(s, spaces.Tuple):
            return tuple(build(sub) for sub in s.spaces)
        return next(it)

    return build(space)


def _pick(value: Any, path: tuple[Any, ...]) -> Any:
    for p in path:
        value = value[p]
    return value


def run(
    fd_arg: Any,
    total: int,
    payload: bytes,
    spec: dict[str, Any],
    worker: int,
    gen: int,
    conn: Any,
    parent_pid: int,
    pdeathsig: bool,
) -> None:
    # Ctrl-C goes to the whole process group: the parent handles it and closes us.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if pdeathsig:
        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent_pid:
        os._exit(0)
    from envpool import _envpool

    fd = fd_arg if isinstance(fd_arg, int) else int(fd_arg)
    mm = mmap.mmap(fd, total)
    os.close(fd)
    try:
        env_fn = pickle.loads(payload)
        envs = []
        for _ in spec["env_ids"]:
            env, _ = unwrap_time_limit(env_fn())
            envs.append(env)
    except BaseException as e:  # noqa: BLE001 - reported to the parent
        conn.send(("error", f"{type(e).__name__}: {e}", traceback.format_exc()))
        conn.close()
        os._exit(1)
    # The control word before "ok": a request for access_envs can come as soon as
    # the owner has it, before the serving loop starts.
    rec = sp.HEADER + sp.WORKER_RECORD * worker
    control_seen = int(np.frombuffer(mm, np.uint32, 1, rec + sp.SEGMENT["record.control"])[0])
    conn.send(("ok", None, None))
    # The pipe stays open for the envs' attributes (access_envs).
    _serve(mm, envs, spec, worker, gen, parent_pid, _envpool, conn, control_seen)


def access_envs(envs: list[Any], request: bytes, reset_options: list[Any]) -> bytes:
    """One call/get_attr/set_attr request (pickled: kind, name, args, kwargs, values)
    on these envs, as gymnasium's AsyncVectorEnv's workers do it, or ("options") the
    options of each env's next reset (None: none): the reply (pickled) is ("ok", one
    result per env) or ("error", (exception or None, traceback text))."""
    try:
        kind, name, args, kwargs, values = pickle.loads(request)
        out: list[Any] = []
        for k, env in enumerate(envs):
            if kind == "options":
                reset_options[k] = values[k]
                out.append(None)
            elif kind == "set":
                env.set_wrapper_attr(name, values[k])
                out.append(None)
            else:
                attr = env.get_wrapper_attr(name)
                out.append(attr(*args, **kwargs) if callable(attr) else attr)
        return pickle.dumps(("ok", out))
    except Exception as e:  # noqa: BLE001 - reported to the parent
        text = traceback.format_exc()
        try:
            return pickle.dumps(("error", (e, text)))
        except Exception:  # noqa: BLE001 - an exception that cannot be pickled: its text
            return pickle.dumps(("error", (None, text)))


def _serve(
    mm: mmap.mmap,
    envs: list[Any],
    spec: dict[str, Any],
    worker: int,
    gen: int,
    parent_pid: int,
    ev: Any,
    conn: Any,
    control_seen: int,
) -> None:
    layout: sp.Layout = spec["layout"]
    actions: list[sp.Leaf] = spec["actions"]
    obs_leaves: list[sp.Leaf] = spec["obs"]
    info_leaves: list[sp.Leaf] = spec["info"]
    action_space = spec["action_space"]
    env_ids: list[int] = spec["env_ids"]
    n = len(env_ids)
    addr = ctypes.addressof(ctypes.c_char.from_buffer(mm))
    sb = layout.slot_bytes
    first = layout.slots_off + sb * env_ids[0]
    ctl = np.ndarray((n, sp.CONTROL // 4), np.uint32, buffer=mm, offset=first, strides=(sb, 4))
    seeds = np.ndarray((n,), np.uint64, buffer=mm, offset=first + sp.SEGMENT["slot.seed"], strides=(sb,))
    rewards = np.ndarray((n,), np.float64, buffer=mm, offset=first + sp.SEGMENT["slot.reward"], strides=(sb,))
    # terminated, truncated: adjacent bytes (segment.h)
    flags = np.ndarray((n, 2), np.uint8, buffer=mm, offset=first + sp.SEGMENT["slot.terminated"], strides=(sb, 1))
    rec_off = sp.HEADER + sp.WORKER_RECORD * worker
    n_obs = len(obs_leaves)
    single_obs = n_obs == 1 and not obs_leaves[0].path
    obs_views = [
        [_views(mm, first + sb * k, sb, leaf, off) for leaf, off in zip(obs_leaves, layout.state_off)] for k in range(n)
    ]
    info_views = [
        [_views(mm, first + sb * k, sb, leaf, off) for leaf, off in zip(info_leaves, layout.state_off[n_obs:])]
        for k in range(n)
    ]
    act_views = [
        [_views(mm, first + sb * k, sb, leaf, off) for leaf, off in zip(actions, layout.action_off)] for k in range(n)
    ]
    readers = [_reader(leaf) for leaf in actions]
    single_act = len(actions) == 1 and not actions[0].path
    render_hw = spec["render_hw"]
    render_views = [
        np.ndarray((*render_hw, 3), np.uint8, buffer=mm, offset=first + sb * k + layout.render_off) for k in range(n)
    ]
    err_off = [first + sb * k + layout.error_off for k in range(n)]
    obs_paths = [leaf.path for leaf in obs_leaves]
    info_keys = [leaf.path[0] for leaf in info_leaves]

    def write_obs(k: int, obs: Any) -> None:
        views = obs_views[k]
        if single_obs:
            views[0][...] = obs
        else:
            for view, path in zip(views, obs_paths):
                view[...] = _pick(obs, path)

    def write_info(k: int, info: Any) -> None:
        for view, key in zip(info_views[k], info_keys):
            value = info.get(key)
            if value is None:
                view[...] = 0
            else:
                try:
                    view[...] = value
                except (TypeError, ValueError):
                    view[...] = 0

    def write_state(k: int, obs: Any, info: dict[str, Any]) -> None:
        write_obs(k, obs)
        if info_keys:
            write_info(k, info)

    def fail(k: int, req: int, e: BaseException, tb: Any = None) -> int:
        msg = f"{type(e).__name__}: {e}".encode("utf-8", "replace")[: sp.ERROR_BYTES // 2]
        text = "".join(traceback.format_exception(type(e), e, tb if tb is not None else e.__traceback__))
        try:
            blob = pickle.dumps((e, text))
        except Exception:  # noqa: BLE001 - an exception that cannot be pickled stays a RuntimeError
            blob = b""
        if 8 + len(msg) + len(blob) > sp.ERROR_BYTES:
            blob = b""
        o = err_off[k]
        mm[o : o + 8] = np.array([len(msg), len(blob)], np.uint32).tobytes()
        mm[o + 8 : o + 8 + len(msg)] = msg
        mm[o + 8 + len(msg) : o + 8 + len(msg) + len(blob)] = blob
        ctl[k, sp.word("slot.error_req")] = req  # the request this error answers
        if isinstance(e, ValueError):
            return VALUE_ERROR
        if isinstance(e, IndexError):
            return INDEX_ERROR
        return ERROR

    reset_options: list[Any] = [None] * n  # each env's next reset's options (access_envs)

    def handle(k: int, req: int) -> int:
        """A command the serving loop leaves to Python: a reset, a render, a step with
        nested actions or observations. Returns the status."""
        cmd = ctl[k, sp.word("slot.cmd")]
        env = envs[k]
        try:
            if cmd == STEP:
                views = act_views[k]
                if single_act:
                    action = readers[0](views[0])
                else:
                    action = _nest(actions, [r(v) for r, v in zip(readers, views)], action_space)
                result = env.step(action)
                # The same checks and messages as the C++ serving path's (cpp/binding/python_env_worker.cc).
                if not isinstance(result, tuple) or len(result) != 5:
                    raise ValueError("step() must return (obs, reward, terminated, truncated, info)")
                obs, reward, terminated, truncated, info = result
                if reward is None or isinstance(reward, (str, bytes)):
                    raise TypeError(f"must be real number, not {type(reward).__name__}")
                write_state(k, obs, info)
                rewards[k] = float(reward)
                flags[k, 0] = bool(terminated)
                flags[k, 1] = bool(truncated)
            elif cmd == RESET:
                seed = int(seeds[k]) if ctl[k, sp.word("slot.has_seed")] else None
                options, reset_options[k] = reset_options[k], None
                # options only when given: an env's reset may not take them.
                obs, info = env.reset(seed=seed) if options is None else env.reset(seed=seed, options=options)
                write_state(k, obs, info)
            elif cmd == RENDER:
                frame = env.render()
                if frame is None:
                    raise TypeError("render() returned None, not an rgb_array frame")
                render_views[k][...] = frame
        except Exception as e:  # noqa: BLE001 - reported through the slot
            return fail(k, req, e)
        return OK

    # Steps of a plain action and a plain observation are served in C++ (the
    # env's step is the only Python per step); the rest goes through handle.
    fast = None
    if single_act and single_obs:
        leaf = actions[0]
        kind, size = "", 0
        if leaf.kind == "discrete":
            dt = np.dtype(leaf.dtype)
            kind, size = dt.kind, dt.itemsize
        action_views = [views[0] for views in act_views]
        fast = (
            [env.step for env in envs],
            [first + sb * k + layout.action_off[0] for k in range(n)],
            kind,
            size,
            lambda k: readers[0](action_views[k]),
            [first + sb * k + layout.state_off[0] for k in range(n)],
            np.dtype(obs_leaves[0].dtype),
            obs_views[0][0].nbytes,
            write_obs,
            write_info if info_keys else None,
            obs_views[0][0].shape,
        )

    def control(n: int) -> None:
        # n requests were announced; each is read as it comes (the owner rings
        # before it writes, so a request larger than the pipe's buffer is read
        # while it is written).
        try:
            for _ in range(n):
                conn.send_bytes(access_envs(envs, conn.recv_bytes(), reset_options))
        except (EOFError, OSError):
            pass  # the parent closed its end: the pool is closing

    slot_off = [first + sb * k for k in range(n)]
    how = ev._serve_slots(
        addr,
        rec_off,
        sp.SEGMENT["header.closing"],
        slot_off,
        gen,
        parent_pid,
        handle,
        fail,
        fast,
        spec["idle_spin_us"],
        control,
        control_seen,
    )
    if how == "orphaned":
        os._exit(0)  # the parent died
    for env in envs:
        try:
            env.close()
        except Exception:  # noqa: BLE001, S110 - closing anyway
            pass
    os._exit(0)
