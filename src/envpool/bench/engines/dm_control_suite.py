"""``dm-control``: dm_control's own suite envs (``suite.load``) stepped one after
another in a Python loop, for the dm_control suite tasks (``<Domain><Task>-v1``).

Each env is ``suite.load(domain, task, task_kwargs={"random": seed + i})``: the
envs our pool's env i reproduces step for step (``tests/families/dmc/test_dmc.py``). dm_control
restarts an episode itself on the step after a LAST. No batch_size < num_envs mode.
"""

from __future__ import annotations

from . import Engine, _common


def available(task, case) -> str | None:
    reason = _common.registered(task) or _common.single_task(task) or _common.no_options(task)
    if reason:
        return reason
    if task.kind != "dmc":
        return "dm_control suite tasks only"
    reason = _common.missing("dm_control")
    if reason:
        return reason
    if case.mode == "async":
        return "no batch_size < num_envs mode"
    return None


def run(spec: dict) -> dict:
    import os

    import numpy as np

    os.environ.setdefault("MUJOCO_GL", "egl")  # quadruped escape makes a GL context
    from dm_control import suite

    from envpool.tasks import dmc

    domain, task = dmc.suite_task(spec["family"], spec["full_config"]["task_name"])
    n = spec["num_envs"]
    envs = [suite.load(domain, task, task_kwargs={"random": spec["seed"] + i}) for i in range(n)]
    action_spec = envs[0].action_spec()
    low = np.maximum(action_spec.minimum, -1.0)
    high = np.minimum(action_spec.maximum, 1.0)
    rng = np.random.default_rng(spec["seed"])
    actions = [rng.uniform(low, high, (n, *action_spec.shape)) for _ in range(_common.NUM_ACTION_BATCHES)]
    for env in envs:
        env.reset()

    def step(i: int) -> None:
        batch = actions[i % len(actions)]
        for k, env in enumerate(envs):
            env.step(batch[k])

    return _common.time_loop(step, n, spec["warmup"], spec["seconds"])


ENGINES = (
    Engine(
        "dm-control",
        "dm_control.suite envs (suite.load) stepped in a Python loop: the dm_control suite tasks",
        run,
        available,
        order=20,
    ),
)
