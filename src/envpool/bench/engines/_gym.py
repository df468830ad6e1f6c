"""What engines share for ``gymnasium:`` tasks (``spec["gymnasium"]``, from ``envpool.bench.gym_tasks``).

Every engine builds the same env: ``gymnasium.make(make_id, **options)``
(``make_id`` is gymnasium's ``module:ID`` when a module registers the id), as a
picklable zero-argument factory (``functools.partial`` of ``gymnasium.make``),
so spawn/forkserver workers build it as a forked one does. Standard library
and numpy only at the top (the worker loads this under any interpreter).
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import tempfile

from . import _common

# The feature check of the ``envpool`` engine on gymnasium: tasks (issue 27's Python-env pools).
PROBE_CALL = "envpool.make('gymnasium:CartPole-v1', env_type='gym', num_envs=1, num_workers=1)"
_PROBE = f"""
import envpool
env = {PROBE_CALL}
env.close()
print("ok")
"""


def is_gym(task) -> bool:
    return getattr(task, "gymnasium", None) is not None


def env_fn(spec: dict):
    """The zero-argument env factory of the spec's gymnasium task (picklable)."""
    import gymnasium

    return functools.partial(gymnasium.make, spec["gymnasium"]["make_id"], **(spec.get("options") or {}))


_MADE: dict[str, str | None] = {}


def make_reason(task) -> str | None:
    """None if the task's env can be built here (tried once per id and keywords), else why not."""
    g, kwargs = task.gymnasium, dict(task.options or {})
    key = json.dumps([g["make_id"], kwargs], sort_keys=True, default=str)
    if key not in _MADE:
        import warnings

        import gymnasium

        try:
            with warnings.catch_warnings(), _common.quiet_stderr():
                warnings.simplefilter("ignore")
                gymnasium.make(g["make_id"], **kwargs).close()
            _MADE[key] = None
        except Exception as e:  # noqa: BLE001
            msg = " ".join(str(e).split())
            args = "".join(f", {k}={v!r}" for k, v in kwargs.items())
            _MADE[key] = f"gymnasium.make({g['make_id']!r}{args}) fails: {type(e).__name__}: {msg[:160]}"
    return _MADE[key]


def reason(task, case, has_async: bool = False) -> str | None:
    """Why an engine stepping gymnasium's env cannot run this case (None: it can)."""
    why = _common.missing("gymnasium", *task.gymnasium.get("modules", ()), purpose=task.gymnasium["name"])
    if why:
        return why
    if case.mode == "async" and not has_async:
        return "no batch_size < num_envs mode"
    return make_reason(task)


_ENVPOOL: dict[str, str | None] = {}


def envpool_reason() -> str | None:
    """None if this envpool takes ``gymnasium:`` ids with ``num_workers`` (checked once per run, by
    making a one-env pool in a subprocess, as a user would), else why not."""
    if "r" not in _ENVPOOL:
        import envpool

        root = os.path.dirname(os.path.dirname(os.path.abspath(envpool.__file__)))
        try:
            p = subprocess.run(
                [sys.executable, "-c", _PROBE],
                capture_output=True,
                text=True,
                timeout=120,
                cwd=tempfile.gettempdir(),
                env=_common.clean_env(root),
            )
            lines = [ln.strip() for ln in (p.stderr or "").splitlines() if ln.strip()]
            why = None if p.stdout.strip().endswith("ok") else (lines[-1] if lines else f"exit code {p.returncode}")
        except subprocess.TimeoutExpired:
            why = "timed out after 120 s"
        _ENVPOOL["r"] = (
            None
            if why is None
            else "envpool.make('gymnasium:<id>', num_workers=...) is not available in this envpool "
            f"(issue 27's Python-env pools): {PROBE_CALL} -> {why[:200]}"
        )
    return _ENVPOOL["r"]


def envpool_make_args(spec: dict) -> tuple:
    """What the ``envpool`` engine passes ``envpool.make`` first: ``"gymnasium:ID"`` for gymnasium's
    own and ALE ids (as a user types them), the env factory for ids that another module registers
    (``envpool-bench/...``, a ``module:ID``), which then needs no registration in envpool's workers."""
    g = spec["gymnasium"]
    if g.get("module") in (None, "ale_py"):
        return ("gymnasium:" + g["name"], dict(spec.get("options") or {}))
    return (env_fn(spec), {})


def action_batches(spec: dict, batch: int) -> list:
    """Random action batches from the single env's action space (one env built, untimed)."""
    env = env_fn(spec)()
    try:
        return _common.action_batches(env.action_space, batch, spec["seed"])
    finally:
        _common.close(env)


def run_envpool(spec: dict) -> dict:
    """The ``envpool`` engine on a gymnasium: task: the same sync/async loops as on a native task."""
    import envpool

    n, b = spec["num_envs"], spec["batch_size"]
    first, gym_kwargs = envpool_make_args(spec)
    env = envpool.make(
        first,
        env_type="gym",
        num_envs=n,
        batch_size=b,
        num_threads=spec["num_threads"],
        num_workers=spec.get("num_workers") or spec["num_threads"],
        seed=spec["seed"],
        **gym_kwargs,
    )
    try:
        acts = action_batches(spec, b)
        k = len(acts)
        if b == n:
            env.reset()
            step = env.step

            def call(i: int) -> None:
                step(acts[i % k])

        else:
            env.async_reset()
            send, recv = env.send, env.recv

            def call(i: int) -> None:
                send(acts[i % k], recv()[-1]["env_id"])  # the gym API's info

        return _common.time_loop(call, b, spec["warmup"], spec["seconds"])
    finally:
        _common.close(env)
