"""``ale-vector``: ale-py's ``AtariVectorEnv`` (a C++ thread pool of ALEs), Atari tasks only.

It gets our task's options (frame skip, frame stack, noop_max, image size,
...), so it does the same preprocessing work as ``envpool``.
"""

from __future__ import annotations

from . import Engine, _common

_RENAME = {  # our Atari config key -> AtariVectorEnv's keyword
    "frame_skip": "frameskip",
    "stack_num": "stack_num",
    "noop_max": "noop_max",
    "episodic_life": "episodic_life",
    "reward_clip": "reward_clipping",
    "use_fire_reset": "use_fire_reset",
    "img_height": "img_height",
    "img_width": "img_width",
    "gray_scale": "grayscale",
    "repeat_action_probability": "repeat_action_probability",
    "full_action_space": "full_action_space",
}


def options(task_id: str, config: dict) -> dict:
    """Our Atari config as ``AtariVectorEnv`` keywords (``game`` included)."""
    out = {"game": config.get("task", task_id.rsplit("-", 1)[0].lower())}
    out.update({theirs: config[ours] for ours, theirs in _RENAME.items() if ours in config})
    if "max_episode_steps" in config:
        out["max_num_frames_per_episode"] = int(config["max_episode_steps"]) * int(config.get("frame_skip", 4))
    return out


def available(task, case) -> str | None:
    if task.kind != "atari":
        return "Atari tasks only"
    return (
        _common.registered(task)
        or _common.single_task(task)
        or _common.no_options(task, (*_RENAME, "max_episode_steps"))
        or _common.missing("ale_py")
    )


def run(spec: dict) -> dict:
    from ale_py.vector_env import AtariVectorEnv

    n, b = spec["num_envs"], spec["batch_size"]
    opts = options(spec["task"], spec.get("full_config", {}))
    env = AtariVectorEnv(opts.pop("game"), n, batch_size=b, num_threads=spec["num_threads"], **opts)
    try:
        acts = _common.action_batches(env.single_action_space, b, spec["seed"])
        k = len(acts)
        env.reset(seed=spec["seed"])
        if b == n:
            step = env.step

            def call(i: int) -> None:
                step(acts[i % k])

        else:  # the first b finished envs, like EnvPool; send() goes to the envs of the last recv()
            send, recv = env.send, env.recv

            def call(i: int) -> None:
                send(acts[i % k])
                recv()

        return _common.time_loop(call, b, spec["warmup"], spec["seconds"])
    finally:
        _common.close(env)


ENGINES = (
    Engine(
        "ale-vector",
        "ale_py.vector_env.AtariVectorEnv with our task's options (Atari tasks only)",
        run,
        available,
        default=True,
        order=20,
    ),
)
