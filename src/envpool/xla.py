"""``pool.xla()``: a pool's send/recv/step as JAX functions, for stepping envs inside
jitted programs (``lax.scan``, ``fori_loop``, ``while_loop``) with no Python per step.

EnvPool 1.2's API::

    handle, recv, send, step = envs.xla()
    handle = send(handle, action, env_id=None)
    handle, result = recv(handle)
    handle, result = step(handle, action, env_id=None)   # recv(send(...))

``result`` is what the pool's Python ``recv()`` returns for its interface (gymnasium,
gym or dm), as JAX arrays. Each call is one XLA FFI custom call into the C++ engine
(cpp/binding/xla.cc): no Python callback. The handle stands for the pool and orders the
calls: each takes a handle and returns the next one. The calls are side-effecting custom
calls, so XLA does not drop one whose returned handle goes unused (EnvPool's documented
async loop sends and receives on the same incoming handle).

The calls run on the CPU and, where JAX runs on an NVIDIA GPU, on CUDA: there each
call copies its inputs to the host on XLA's stream, runs the engine on the host and
copies the results back (one round trip per call; nothing is linked against CUDA,
the driver library is opened at the first GPU call). Compiling them for any other
platform (ROCm, TPU) raises at lowering, saying so. Inputs are checked as the Python path checks them: shapes and dtypes while
tracing, action ranges and env ids when the call runs (an error then is a
``JaxRuntimeError`` carrying the Python path's message; called eagerly, the Python
path's exception type is raised instead). Once a jitted function has run, JAX dispatches
it from C++, and from there the same error arrives as a ``ValueError`` with the same text.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

try:
    import jax
    import jax.numpy as jnp
    from jax.extend.core import Primitive
    from jax.interpreters import mlir
except ImportError as e:  # pragma: no cover - exercised in a venv without jax
    raise ImportError('pool.xla() needs JAX: pip install "envpool[jax]"') from e

from envpool import _envpool, _keys
from envpool._envpool import Batch

# JAX's dead-code elimination rules (no public API registers one; see _call_p below).
# A JAX without them here gets the calls with a JAX effect instead: the same results,
# dispatched through Python.
_dce_rules: dict[Any, Any] | None
try:
    from jax._src.interpreters.partial_eval import dce_rules as _dce_rules
except ImportError:  # pragma: no cover - a JAX that moved it
    _dce_rules = None


if not getattr(_envpool, "has_xla", False):
    raise ImportError(
        "pool.xla() needs envpool's XLA handlers, which this build of envpool lacks: jaxlib's FFI "
        'headers were not found when it was built. pip install "envpool[jax]" into the building '
        "environment, then rebuild envpool (the build finds the headers in the installed jaxlib)."
    )

_TARGETS = {name: f"envpool_{name}" for name in ("send", "recv", "step")}
_registered = False
_register_lock = threading.Lock()


def _has_cuda() -> bool:
    try:
        return bool(jax.devices("cuda"))
    except RuntimeError:  # no CUDA backend in this JAX
        return False


def _register_targets() -> None:
    """Registers the FFI handlers once per process (they serve every pool: the pool is
    an attribute of each call): the CPU's, and CUDA's where JAX has a CUDA backend."""
    global _registered
    with _register_lock:
        if _registered:
            return
        for name, capsule in _envpool.xla_handlers().items():
            jax.ffi.register_ffi_target(_TARGETS[name], capsule, platform="cpu")
        if _has_cuda():
            for name, capsule in _envpool.xla_cuda_handlers().items():
                jax.ffi.register_ffi_target(_TARGETS[name], capsule, platform="CUDA")
        _registered = True


# The handle passes through this identity before every call: its lowering
# exists for the CPU and CUDA only, so compiling for another platform fails
# here, with this message, instead of in XLA's compiler with an unknown
# custom call.
_SUPPORTED = ("cpu", "cuda")
_platform_check_p = Primitive("envpool_xla_platform_check")
_platform_check_p.def_impl(lambda handle: handle)
_platform_check_p.def_abstract_eval(lambda handle: handle)
for _platform in _SUPPORTED:
    mlir.register_lowering(_platform_check_p, lambda ctx, handle: [handle], platform=_platform)


def _unsupported_platform(ctx: Any, handle: Any) -> Any:
    platforms = ", ".join(repr(p) for p in ctx.module_context.platforms)
    raise RuntimeError(
        f"envpool's XLA functions (send/recv/step) run on the CPU and on CUDA GPUs only, but this program "
        f"is compiled for {platforms}: run it on the CPU (e.g. inside `with "
        "jax.default_device(jax.devices('cpu')[0]):`, or with JAX_PLATFORMS=cpu)"
    )


mlir.register_lowering(_platform_check_p, _unsupported_platform)

# The calls themselves: one primitive for the three custom calls. Side-effecting
# in XLA (never dropped or merged, even when the returned handle goes unused, as in
# EnvPool's documented async loop, which receives on the handle it sent on), but
# without a JAX effect: a JAX effect (jax.ffi.ffi_call's has_side_effect=True) takes
# every program calling them off jit's C++ dispatch path, ~100 us of Python per call
# of the jitted function (measured: a 1-step scan 125 us per call, a no-op jit 9 us).
# JAX's own dead-code elimination is kept off by a rule that keeps the call, as
# EnvPool's primitive was (it predates jaxpr DCE).
_call_p = Primitive("envpool_xla_call")
_call_p.multiple_results = True


def _call_abstract_eval(*avals: Any, target: str, results: tuple, pool: int) -> list[Any]:
    return [jax.core.ShapedArray(shape, dtype) for shape, dtype in results]


def _call_lowering(ctx: Any, *args: Any, target: str, results: tuple, pool: int) -> Any:
    rule = jax.ffi.ffi_lowering(target, has_side_effect=True, operand_output_aliases={0: 0})
    return rule(ctx, *args, pool=np.int64(pool))


def _call_impl(*args: Any, target: str, results: tuple, pool: int) -> Any:
    """Outside any jit (under jax.disable_jit): the same custom call through jax.ffi, whose
    eager evaluation compiles it on its own."""
    structs = [jax.ShapeDtypeStruct(shape, dtype) for shape, dtype in results]
    call = jax.ffi.ffi_call(target, structs, has_side_effect=True, input_output_aliases={0: 0})
    return call(*args, pool=np.int64(pool))


_call_p.def_abstract_eval(_call_abstract_eval)
_call_p.def_impl(_call_impl)
mlir.register_lowering(_call_p, _call_lowering)
if _dce_rules is not None:
    _dce_rules[_call_p] = lambda used_outputs, eqn: ([True] * len(eqn.invars), eqn)

# XLA error code (what cpp/binding/xla.cc returns) -> the exception type the
# Python path raises for the same error (cpp/core/errors.h's one table).
_ERROR_TYPES = _envpool.xla_error_types()


# Newer JAX versions append the program's name to runtime errors (seen with jax 0.11 on a GPU).
_EXECUTABLE_SUFFIX = re.compile(r" \[executable_name='[^']*'\]$")


def _python_error(error: Exception) -> Exception:
    """The Python path's exception for an XLA runtime error from the handlers."""
    text = _EXECUTABLE_SUFFIX.sub("", str(error))
    code, sep, message = text.partition(": ")
    kind = _ERROR_TYPES.get(code) if sep else None
    return kind(message) if kind is not None else error


def _tracing(*args: Any) -> bool:
    return any(isinstance(x, jax.core.Tracer) for x in jax.tree.leaves(args))


def _eager(fn: Callable, precheck: Callable | None = None) -> Callable:
    """``fn`` for eager calls, jitted: waits for the result, so an error surfaces in
    the call, as the Python path's exception. Inside a trace it is ``fn`` itself, not
    a nested jit: JAX drops a nested jit whose outputs all go unused (it carries no
    effect), which would drop a send whose returned handle is not used."""
    jitted = jax.jit(fn)

    def call(handle: Any, *args: Any, **kwargs: Any) -> Any:
        if _tracing(handle, args, kwargs):
            return fn(handle, *args, **kwargs)
        if precheck is not None:
            precheck(*args, **kwargs)
        try:
            return jax.block_until_ready(jitted(handle, *args, **kwargs))
        except (jax.errors.JaxRuntimeError, ValueError) as e:  # ValueError: from jit's C++ dispatch path
            converted = _python_error(e)
            if converted is e:
                raise
            raise converted from e

    call.__name__ = call.__qualname__ = fn.__name__
    call.__doc__ = fn.__doc__
    return call


def _wide(value: Any) -> bool:
    """A concrete 64-bit integer array (or list) with values beyond the int32 range."""
    if isinstance(value, jax.Array):
        return False
    try:
        arr = np.asarray(value)
    except Exception:  # noqa: BLE001 - not array-like: the trace-time checks report it
        return False
    if arr.dtype.kind not in "iu" or arr.dtype.itemsize < 8 or arr.size == 0:
        return False
    info = np.iinfo(np.int32)
    return bool(arr.max() > info.max or arr.min() < info.min)


class XlaOps:
    """One pool's XLA functions. Interfaces shape results with their ``_xla_package``."""

    def __init__(self, pool: Any) -> None:
        if pool.config.get("tuple_obs"):
            raise NotImplementedError("xla() does not support tuple_obs (the columns are split in Python)")
        if int(pool.config.get("frame_stack", 1)) > 1:
            raise NotImplementedError(
                "xla() does not support frame_stack > 1 (the stacking runs in Python); "
                "stack observations in the jitted program instead"
            )
        _register_targets()
        self.pool = pool
        self.slot = pool._xla_bind()
        engine = pool._pool
        self.state_spec = [(s[0], np.dtype(s[1]), tuple(s[2])) for s in engine.state_spec]
        self.action_spec = [(s[0], np.dtype(s[1]), tuple(s[2]), s[3], s[4]) for s in engine.action_spec]
        self.engine_action_spec = list(engine.action_spec)
        self.names = [s[0] for s in self.action_spec]
        # Info arrays the pool gives as int8 views of the engine's uint8 (Taxi's action mask).
        self.int8_info = [k for k, s in _keys.select_specs(pool.spec.state_spec, _keys.INFO) if s[1] == "int8"]
        self.num_envs = int(pool.config["num_envs"])
        self.batch_size = int(pool.config["batch_size"]) or self.num_envs
        self.sync = self.batch_size == self.num_envs
        self.with_discount = pool._WITH_DISCOUNT
        handle_bytes = np.frombuffer(np.int64(self.slot.id).tobytes(), dtype=np.uint8)
        self.handle = jnp.asarray(handle_bytes)

    # -- argument checks: the Python binding's (cpp/core/checks.h, through _envpool) --
    def _actions(self, action: Any, n: int) -> list[Any]:
        _envpool.check_action_keys(self.engine_action_spec, action)
        if self.names == ["action"]:
            return [self._action(0, action, n)]
        return [self._action(k, action[_keys.key_of(name, _keys.ACTION)], n) for k, name in enumerate(self.names)]

    def _action(self, k: int, value: Any, n: int) -> Any:
        arr = jnp.asarray(value)
        _envpool.check_action_array(self.engine_action_spec[k], np.dtype(arr.dtype), tuple(arr.shape), n)
        if np.dtype(arr.dtype).kind == "f" and arr.dtype not in (jnp.float32, jnp.float64):
            arr = arr.astype(jnp.float32)  # exact; the handlers read 32 and 64-bit floats
        return arr

    def _env_ids(self, env_id: Any) -> Any:
        """The env ids as an integer array (None: every env, sync mode only). Range
        checks happen when the call runs."""
        if env_id is None:
            if not self.sync:
                raise ValueError(
                    "in async mode an XLA send()/step() needs env_id: the ids of the envs the actions "
                    "are for (e.g. info['env_id'] of the last recv)"
                )
            return None
        ids = jnp.asarray(env_id)
        if ids.ndim == 0 and np.dtype(ids.dtype).kind in "iu":
            ids = ids.reshape(1)  # one env, as an int env_id names it (jit makes ints 0-d arrays)
        if ids.ndim != 1:
            raise TypeError("env_id must be an int or a 1-D sequence of ints")
        if ids.shape[0] and np.dtype(ids.dtype).kind not in "iu":
            raise TypeError(f"env_id must hold integers, got dtype {np.dtype(ids.dtype)}")
        return ids

    def _check_wide_ints(self, action: Any, env_id: Any = None) -> None:
        """Eager calls: without jax_enable_x64, JAX wraps 64-bit integers into 32 bits
        when they enter a jitted function, so an env id or discrete action that would not
        survive is refused here, with the Python path's message (the handlers check
        the rest when the call runs)."""
        if jax.config.jax_enable_x64:  # type: ignore[attr-defined]  # jax's Config stub lacks its flags
            return
        action, env_id = self.pool._split_action(action, env_id)
        if env_id is not None and _wide(env_id):
            _envpool.check_env_ids(env_id, self.num_envs)
        values = action.values() if isinstance(action, dict) else [action]
        if any(_wide(v) for v in values):
            n = self.num_envs if env_id is None else int(np.asarray(env_id).reshape(-1).shape[0])
            _envpool.check_action(action, n, self.engine_action_spec)

    def _send_args(self, action: Any, env_id: Any) -> list[Any]:
        action, env_id = self.pool._split_action(action, env_id)
        ids = self._env_ids(env_id)
        n = self.num_envs if ids is None else int(ids.shape[0])
        actions = self._actions(action, n)
        if n != self.batch_size:
            raise ValueError(
                f"an XLA send()/step() steps exactly batch_size={self.batch_size} envs, but env_id names {n}"
            )
        return actions if ids is None else [*actions, ids]

    # -- the calls --------------------------------------------------------------
    def _handle_struct(self) -> Any:
        return jax.ShapeDtypeStruct((8,), jnp.uint8)

    def _result_structs(self) -> list[Any]:
        # 64-bit results come narrowed to 32 bits unless jax_enable_x64, as
        # JAX narrows any 64-bit input (the handlers convert).
        return [
            jax.ShapeDtypeStruct((self.batch_size, *shape), jax.dtypes.canonicalize_dtype(dtype))
            for _, dtype, shape in self.state_spec
        ]

    def _call(self, name: str, results: list[Any], handle: Any, *args: Any) -> Any:
        structs = (self._handle_struct(), *results)
        if _dce_rules is None:
            call = jax.ffi.ffi_call(_TARGETS[name], list(structs), has_side_effect=True, input_output_aliases={0: 0})
            return call(_platform_check_p.bind(jnp.asarray(handle)), *args, pool=np.int64(self.slot.id))
        return _call_p.bind(
            _platform_check_p.bind(jnp.asarray(handle)),
            *args,
            target=_TARGETS[name],
            results=tuple((tuple(r.shape), np.dtype(r.dtype)) for r in structs),
            pool=int(self.slot.id),
        )

    def _raw(self, outs: list[Any]) -> Batch:
        """The engine's Batch (obs, reward, terminated, truncated, discount, info, final),
        as the binding groups a batch (module.cc's Package)."""
        named = dict(zip((s[0] for s in self.state_spec), outs))
        obs = _keys.nest(_keys.select(named, _keys.OBS))
        info = _keys.select(named, _keys.INFO)
        info["players"] = {"env_id": info["env_id"]}
        final = None
        final_obs = _keys.select(named, _keys.FINAL_OBS)
        if final_obs:
            final = (_keys.nest(final_obs), _keys.select(named, _keys.FINAL_INFO))
        for d in (info, final[1] if final is not None else None):
            for k in self.int8_info:
                if d is not None and k in d:
                    d[k] = jax.lax.bitcast_convert_type(d[k], jnp.int8)
        discount = named["discount"] if self.with_discount else None
        return Batch((obs, named["reward"], named["terminated"], named["truncated"], discount, info, final))

    def functions(self) -> tuple[Any, Callable, Callable, Callable]:
        package = self.pool._xla_package
        recv_structs = self._result_structs

        def recv(handle: Any) -> tuple[Any, Any]:
            """Wait for the next batch: ``(new_handle, result)``."""
            handle, *outs = self._call("recv", recv_structs(), handle)
            return handle, package(self._raw(outs))

        def send(handle: Any, action: Any, env_id: Any = None) -> Any:
            """Queue one step of the envs in ``env_id`` (default, sync mode: every env);
            returns the new handle."""
            (handle,) = self._call("send", [], handle, *self._send_args(action, env_id))
            return handle

        def step(handle: Any, action: Any, env_id: Any = None) -> tuple[Any, Any]:
            """``recv(send(handle, action, env_id))`` in one call: ``(new_handle, result)``."""
            handle, *outs = self._call("step", recv_structs(), handle, *self._send_args(action, env_id))
            return handle, package(self._raw(outs))

        check = self._check_wide_ints
        return self.handle, _eager(recv), _eager(send, check), _eager(step, check)


def make_xla(pool: Any) -> tuple[Any, Callable, Callable, Callable]:
    """``(handle, recv, send, step)`` of a pool (see the module docstring)."""
    return XlaOps(pool).functions()


__all__ = ["make_xla"]
