"""The same bad inputs through the Python path, the eager ``xla()`` path and the Ray
path raise the same exception type with the same message: every path runs the checks
of cpp/core/checks.h and maps C++ exceptions by cpp/core/errors.h's one table."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import envpool
from envpool import _envpool

NUM_ENVS = 4

# (case, call on a gymnasium CartPole pool, call on its xla() functions or None when the
# XLA functions take no such argument, expected type, expected message).
_CARTPOLE_CASES: list[tuple[str, Callable, Callable | None, type, str]] = [
    (
        "action shape",
        lambda envs: envs.step(np.zeros(3, np.int64)),
        lambda x: x.step(x.handle, np.zeros(3, np.int32)),
        ValueError,
        "action has shape (3,), expected (4,) (one row per env)",
    ),
    (
        "action dtype",
        lambda envs: envs.step(np.zeros(4, np.float32)),
        lambda x: x.step(x.handle, np.zeros(4, np.float32)),
        TypeError,
        "action has dtype float32, which cannot be cast to int32",
    ),
    (
        "action range",
        lambda envs: envs.step(np.array([0, 1, 5, 0])),
        lambda x: x.step(x.handle, np.array([0, 1, 5, 0], np.int32)),
        ValueError,
        "action 5 (row 2) is out of range [0, 1]",
    ),
    (
        "negative action",
        lambda envs: envs.step(np.array([0, -1, 0, 0])),
        lambda x: x.step(x.handle, np.array([0, -1, 0, 0], np.int32)),
        ValueError,
        "action -1 (row 1) is out of range [0, 1]",
    ),
    (
        "env id out of range",
        lambda envs: envs.step(np.zeros(4, np.int64), np.array([0, 1, 2, 7])),
        lambda x: x.step(x.handle, np.zeros(4, np.int32), np.array([0, 1, 2, 7], np.int32)),
        ValueError,
        "env_id 7 is out of range [0, 4)",
    ),
    (
        "negative env id",
        lambda envs: envs.step(np.zeros(4, np.int64), np.array([0, -1, 2, 3])),
        lambda x: x.step(x.handle, np.zeros(4, np.int32), np.array([0, -1, 2, 3], np.int32)),
        ValueError,
        "env_id -1 is out of range [0, 4)",
    ),
    (
        "repeated env id",
        lambda envs: envs.step(np.zeros(4, np.int64), np.array([0, 1, 1, 2])),
        lambda x: x.step(x.handle, np.zeros(4, np.int32), np.array([0, 1, 1, 2], np.int32)),
        ValueError,
        "env_id 1 is repeated",
    ),
    (
        "env id dtype",
        lambda envs: envs.step(np.zeros(4, np.int64), np.array([0.0, 1.0, 2.0, 3.0], np.float32)),
        lambda x: x.step(x.handle, np.zeros(4, np.int32), np.array([0.0, 1.0, 2.0, 3.0], np.float32)),
        TypeError,
        "env_id must hold integers, got dtype float32",
    ),
    ("negative seed", lambda envs: envs.reset(seed=-1), None, ValueError, "seed must be in [0, 2**63 - 1]"),
    ("seed too large", lambda envs: envs.reset(seed=2**63), None, ValueError, "seed must be in [0, 2**63 - 1]"),
    (
        "seed type",
        lambda envs: envs.reset(seed="x"),
        None,
        TypeError,
        "seed must be an int, a list of ints (one per env) or None",
    ),
    ("seed count", lambda envs: envs.reset(seed=[1, 2]), None, ValueError, "seed list has 2 entries for 4 envs"),
    (
        "seed item type",
        lambda envs: envs.reset(seed=[1, 2, 3, True]),
        None,
        TypeError,
        "seed must be an int or a list of ints",
    ),
]

# Busy's action -> the exception its step throws (cpp/testing/busy.h), and the Python
# type errors.h's table gives it.
_ENV_ERRORS = [
    (-1, ValueError, "Busy: asked to fail with invalid_argument"),
    (-2, IndexError, "Busy: asked to fail with out_of_range"),
    (-3, RuntimeError, "Busy: asked to fail with runtime_error"),
    (-4, RuntimeError, "unknown exception"),
    (-5, RuntimeError, "Busy: asked to fail with range_error"),
    (-6, MemoryError, "std::bad_alloc"),
]


def _raised(call: Callable[[], Any]) -> tuple[type, str]:
    with pytest.raises(Exception) as info:  # noqa: PT011 - the type is what is compared
        call()
    return type(info.value), str(info.value)


class _Xla:
    """A pool's eager xla() functions."""

    def __init__(self, envs: Any) -> None:
        self.handle, self.recv, self.send, self.step = envs.xla()


@pytest.fixture(scope="module")
def cartpole():
    envs = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=NUM_ENVS)
    envs.reset()
    yield envs
    envs.close()


@pytest.mark.parametrize("case", _CARTPOLE_CASES, ids=[c[0] for c in _CARTPOLE_CASES])
def test_python_path(cartpole: Any, case: tuple) -> None:
    _, call, _, kind, message = case
    got = _raised(lambda: call(cartpole))
    assert got[0] is kind and got[1].startswith(message), got
    cartpole.reset()  # still usable


@pytest.fixture(scope="module")
def cartpole_xla():
    pytest.importorskip("jax")
    if not getattr(_envpool, "has_xla", False):
        pytest.skip("this build has no XLA handlers")
    envs = envpool.make("CartPole-v1", env_type="gymnasium", num_envs=NUM_ENVS)
    envs.reset()
    yield envs, _Xla(envs)
    envs.close()


_XLA_CASES = [c for c in _CARTPOLE_CASES if c[2] is not None]


@pytest.mark.parametrize("case", _XLA_CASES, ids=[c[0] for c in _XLA_CASES])
def test_eager_xla_path_matches_python(cartpole_xla: tuple, case: tuple) -> None:
    envs, xla = cartpole_xla
    _, call, xla_call, kind, message = case
    python = _raised(lambda: call(envs))
    got = _raised(lambda: xla_call(xla))
    assert got == python, (got, python)
    assert got[0] is kind and got[1].startswith(message)


@pytest.fixture
def busy_task():
    """The Busy family as a registered task, so envpool.make (and xla()) can make it."""
    from envpool.registration import _REGISTRY

    envpool.register("BusyParity-v0", "Busy")
    yield "BusyParity-v0"
    _REGISTRY.pop("BusyParity-v0")


def test_env_exceptions_have_one_type_on_every_path(busy_task: str) -> None:
    """An env's exception of each kind: the Python path and the eager XLA path raise the
    type errors.h's table gives it, with the same message naming the failed env."""
    jax_ok = getattr(_envpool, "has_xla", False)
    if jax_ok:
        try:
            import jax  # noqa: F401
        except ImportError:
            jax_ok = False
    n = len(_ENV_ERRORS)
    python = envpool.make(busy_task, env_type="gymnasium", num_envs=n)
    python.reset()
    other = envpool.make(busy_task, env_type="gymnasium", num_envs=n)
    other.reset()
    xla = _Xla(other) if jax_ok else None
    try:
        for env, (action, kind, text) in enumerate(_ENV_ERRORS):
            actions = np.zeros(n, np.int32)
            actions[env] = action  # each env fails once; the others step on
            got = _raised(lambda a=actions: python.step(a))
            assert got == (kind, f"env {env} failed: {text}"), got
            if xla is not None:
                assert _raised(lambda a=actions: xla.step(xla.handle, a)) == got
        # The table itself, as both paths read it.
        types = _envpool.xla_error_types() if jax_ok else {}
        for code, kind in {"INVALID_ARGUMENT": ValueError, "OUT_OF_RANGE": IndexError}.items():
            assert types.get(code, kind) is kind
    finally:
        python.close()
        other.close()


def test_discrete_rule_is_the_engines() -> None:
    """A bounded scalar bool action is discrete everywhere (the engine range-checks it)."""
    from envpool._spec import is_discrete, to_space

    bool_action = ("action", "bool", (), [0.0], [1.0])
    assert _envpool.is_discrete(bool_action) and is_discrete(bool_action)
    assert to_space(bool_action).n == 2
    assert not is_discrete(("action", "float32", (), [0.0], [1.0]))
    assert not is_discrete(("action", "int32", (2,), [0.0], [1.0]))
    assert not is_discrete(("action", "int64", (), [0.0], [float("inf")]))


@pytest.mark.slow
@pytest.mark.xdist_group("ray")  # one Ray at a time under pytest-xdist
def test_ray_path_matches_python(cartpole: Any) -> None:
    """The Ray pool (two actors) refuses the same inputs, with the same type and message,
    before anything is sent."""
    ray = pytest.importorskip("ray", reason="needs Ray (pip install 'envpool[ray]')")
    import envpool.ray

    ray.init(num_cpus=2, logging_level="ERROR", log_to_driver=False, include_dashboard=False)
    try:
        remote = envpool.ray.make("CartPole-v1", "gymnasium", num_envs=NUM_ENVS, num_actors=2)
        try:
            remote.reset()
            for name, call, _, kind, message in _CARTPOLE_CASES:
                python = _raised(lambda c=call: c(cartpole))
                got = _raised(lambda c=call: c(remote))
                assert got == python, (name, got, python)
                assert got[0] is kind and got[1].startswith(message), name
                remote.reset()
            # The async would-wait message is the engine's, written once.
            assert re.fullmatch(
                r"recv\(\) would wait forever: 1 env\(s\) in flight for the next batch, fewer than batch_size=2",
                _envpool.would_wait_message(1, 2),
            )
        finally:
            remote.close()
    finally:
        ray.shutdown()
