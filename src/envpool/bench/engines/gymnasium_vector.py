"""``gymnasium-sync`` / ``gymnasium-async``: gymnasium's vector envs over gymnasium's own env.

For Atari tasks the env is ``gymnasium.make("ALE/<Game>-v5", frameskip=1,
repeat_action_probability=0.0)`` + ``AtariPreprocessing(noop_max, frame_skip,
screen_size=84)`` + ``FrameStackObservation(stack_num)`` with our task's
options; other tasks use gymnasium's env of the same id (MuJoCo with ``--option
from_pixels=True``: ``make(id, render_mode="rgb_array", width=img_width,
height=img_height)`` + ``AddRenderObservation``, the frame as the observation, on
the GL backend of ``MUJOCO_GL``, else OSMesa, as the ``envpool`` engine). Sync steps every env
in this process; async runs one process per env. Neither has a
batch_size < num_envs mode.
"""

from __future__ import annotations

from . import Engine, _common, _gym


def gym_id(task_id: str) -> str:
    """gymnasium's id for our task, its registration's reference: ``Pong-v5`` -> ``ALE/Pong-v5``,
    ``Taxi-v3`` -> ``Taxi-v4``; others unchanged (a task id not registered: itself)."""
    import envpool  # noqa: F401 - registers the tasks (a worker process may not have imported it)
    from envpool.registration import MakeError, lookup

    try:
        return lookup(task_id).gymnasium_id
    except MakeError:
        return task_id


_IDS: set[str] | None = None

# Kinds whose observations hold text (minigrid's mission): AsyncVectorEnv's shared memory holds
# arrays only, so their workers send observations through pipes.
_TEXT_OBSERVATIONS = {"minigrid"}

# Packages whose import registers a kind's ids with gymnasium (minigrid registers its envs
# when imported).
_GYM_PACKAGES = {"minigrid": "minigrid"}


def _import_package(kind: str | None) -> None:
    name = _GYM_PACKAGES.get(kind or "")
    if name and _common.has_module(name):
        import importlib
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            importlib.import_module(name)


def _gymnasium_ids() -> set[str]:
    global _IDS
    if _IDS is None:
        import gymnasium

        if _common.has_module("ale_py"):
            try:
                import ale_py

                gymnasium.register_envs(ale_py)
            except Exception:
                pass
        for kind in _GYM_PACKAGES:
            _import_package(kind)
        _IDS = set(gymnasium.registry)
    return _IDS


_MADE: dict[str, str | None] = {}


def _make_reason(gid: str) -> str | None:
    """None if ``gymnasium.make(gid)`` works here (tried once per id), else why not (e.g. gymnasium's
    -v2/-v3 MuJoCo ids, which need the unmaintained mujoco-py)."""
    if gid not in _MADE:
        import warnings

        import gymnasium

        try:
            with warnings.catch_warnings(), _common.quiet_stderr():
                warnings.simplefilter("ignore")
                gymnasium.make(gid).close()
            _MADE[gid] = None
        except Exception as e:  # noqa: BLE001
            msg = " ".join(str(e).split())
            _MADE[gid] = f"gymnasium.make({gid!r}) fails: {type(e).__name__}: {msg[:160]}"
    return _MADE[gid]


# The --option keys these engines apply: AtariPreprocessing's, and MuJoCo pixel observations
# (gymnasium's AddRenderObservation over render_mode="rgb_array" at img_width x img_height).
_OPTIONS = {"atari": ("noop_max", "frame_skip", "stack_num"), "mujoco": ("from_pixels", "img_height", "img_width")}


def available(task, case) -> str | None:
    if _gym.is_gym(task):
        return _gym.reason(task, case)
    reason = (
        _common.registered(task)
        or _common.single_task(task)
        or _common.no_options(task, _OPTIONS.get(task.kind, ()))
        or _common.missing("gymnasium")
    )
    if reason:
        return reason
    if task.kind == "atari":
        reason = _common.missing("ale_py", "cv2", purpose="gymnasium's Atari envs and AtariPreprocessing")
    elif task.kind == "mujoco":
        reason = _common.missing("mujoco", "imageio", purpose="gymnasium's MuJoCo envs")
    if reason:
        return reason
    if case.mode == "async":
        return "no batch_size < num_envs mode"
    gid = gym_id(task.task_id)
    if gid not in _gymnasium_ids():
        return f"{gid} not in gymnasium's registry"
    return _make_reason(gid)


def _env_fn(spec: dict):
    if spec.get("gymnasium"):
        return _gym.env_fn(spec)
    import gymnasium

    gid = gym_id(spec["task"])
    _import_package(spec.get("kind"))
    c = spec.get("full_config", {})
    if spec.get("kind") == "mujoco" and c.get("from_pixels"):
        h, w = int(c.get("img_height", 84)), int(c.get("img_width", 84))

        def make_pixels():
            env = gymnasium.make(gid, render_mode="rgb_array", width=w, height=h)
            return gymnasium.wrappers.AddRenderObservation(env)

        return make_pixels
    if spec.get("kind") != "atari":
        kind = spec.get("kind")

        def make_plain():
            _import_package(kind)  # in AsyncVectorEnv's worker processes too
            return gymnasium.make(gid)

        return make_plain
    import ale_py

    gymnasium.register_envs(ale_py)

    def make():
        env = gymnasium.make(gid, frameskip=1, repeat_action_probability=0.0)
        env = gymnasium.wrappers.AtariPreprocessing(
            env, noop_max=int(c.get("noop_max", 30)), frame_skip=int(c.get("frame_skip", 4)), screen_size=84
        )
        return gymnasium.wrappers.FrameStackObservation(env, int(c.get("stack_num", 4)))

    return make


def _run(spec: dict, asynchronous: bool) -> dict:
    _common.pixel_backend(spec)
    import gymnasium
    import numpy as np

    n, b = spec["num_envs"], spec["batch_size"]
    if b != n:
        raise _common.Unavailable("no batch_size < num_envs mode")
    fns = [_env_fn(spec)] * n
    env: gymnasium.vector.VectorEnv
    if not asynchronous:
        env = gymnasium.vector.SyncVectorEnv(fns)
    elif spec.get("kind") in _TEXT_OBSERVATIONS:
        env = gymnasium.vector.AsyncVectorEnv(fns, shared_memory=False)
    else:
        env = gymnasium.vector.AsyncVectorEnv(fns)
    try:
        acts = _common.action_batches(env.single_action_space, n, spec["seed"])
        if hasattr(env.single_action_space, "n"):
            acts = [a.astype(np.int64) for a in acts]
        k = len(acts)
        env.reset(seed=spec["seed"])
        step = env.step
        return _common.time_loop(lambda i: step(acts[i % k]), n, spec["warmup"], spec["seconds"])
    finally:
        env.close()


def run_sync(spec: dict) -> dict:
    return _run(spec, asynchronous=False)


def run_async(spec: dict) -> dict:
    return _run(spec, asynchronous=True)


ENGINES = (
    Engine(
        "gymnasium-sync",
        "gymnasium.vector.SyncVectorEnv over gymnasium's own env (Atari: + AtariPreprocessing)",
        run_sync,
        available,
        default=True,
        order=10,
    ),
    Engine("gymnasium-async", "gymnasium.vector.AsyncVectorEnv: one process per env", run_async, available, order=11),
)
