"""envpool-bench on users' Python envs (issue 27's speed side): gymnasium: task ids, the busy-wait env,
preprocessed Pong, the anchors (gymnasium's vector envs, SB3's SubprocVecEnv, raw-procs), the
envpool rows and the benchmarks/python_envs.py preset. Speeds are measured, never asserted."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest

import envpool
from envpool.bench import UsageError, engines, gym_envs
from envpool.bench.cli import build_parser
from envpool.bench.engines import _common, _gym
from envpool.bench.engines.raw_procs import blocks
from envpool.bench.plan import Case, make_plan
from envpool.bench.runner import spec_for

ROOT = Path(__file__).resolve().parents[2]
TINY = ["-s", "0.1", "-w", "0.02", "-r", "1", "--no-progress"]
BUSY = "gymnasium:envpool-bench/Busy-v0"
ANCHORS = ("gymnasium-sync", "gymnasium-async", "sb3-subproc", "raw-procs")


def _args(*argv: str):
    args = build_parser().parse_args(list(argv))
    args.argv = list(argv)
    return args


def _bench(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "envpool.bench", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=dict(os.environ),
    )


def _python_envs_feature() -> str | None:
    """None when this envpool has issue 27's Python-env pools, else why not. Checked explicitly, as a
    user would: ``envpool.make("gymnasium:CartPole-v1", ..., num_workers=1)`` makes a pool."""
    try:
        env = envpool.make("gymnasium:CartPole-v1", env_type="gym", num_envs=1, num_workers=1)
    except Exception as e:  # noqa: BLE001  (absent: "unknown task id"; or it does not take num_workers)
        return f"{type(e).__name__}: {e}"
    env.close()
    return None


# --- the busy-wait env ------------------------------------------------------------------------------


def _spins(monkeypatch) -> list[float]:
    """The durations (s) the busy env asks ``spin`` for, recorded instead of waited."""
    asked: list[float] = []
    monkeypatch.setattr(gym_envs, "spin", asked.append)
    return asked


def test_busy_env_even_spread_waits_step_us_every_step(monkeypatch):
    asked = _spins(monkeypatch)
    env = gymnasium.make(gym_envs.BUSY_ID, step_us=250)
    env.reset(seed=0)
    for _ in range(20):
        obs, reward, terminated, truncated, _ = env.step(1)
    assert asked == [250e-6] * 20
    assert obs.dtype == np.float32 and obs[0] == 20 and obs[2] == 250 and reward == 1.0 and not terminated
    env.close()


def test_busy_env_10x_spread_keeps_the_mean_and_differs_per_env(monkeypatch):
    """spread=10: each step waits lo or 10 lo (lo = 2 step_us / 11: mean step_us); env i of a pool seeded s
    is reset with seed s + i, and gets its own sequence, the same on every run."""
    asked = _spins(monkeypatch)
    lo = 2 * 1000 / 11

    def sequence(seed: int, steps: int = 2000) -> list[float]:
        asked.clear()
        env = gymnasium.make(gym_envs.BUSY_ID, step_us=1000, spread=10, episode_steps=10**9)
        env.reset(seed=seed)
        for _ in range(steps):
            env.step(0)
        env.close()
        return list(asked)

    env0, env1 = sequence(0), sequence(1)
    assert set(np.round(np.array(env0) * 1e6, 6)) == {round(lo, 6), round(10 * lo, 6)}
    assert np.mean(env0) * 1e6 == pytest.approx(1000, rel=0.06)  # 2000 fair draws of lo or 10 lo
    assert env0 != env1 and env0 == sequence(0)


def test_busy_env_truncates_and_validates(monkeypatch):
    _spins(monkeypatch)
    env = gymnasium.make(gym_envs.BUSY_ID, step_us=0, episode_steps=3)
    env.reset(seed=0)
    assert [env.step(0)[3] for _ in range(3)] == [False, False, True]
    env.close()
    for kw, word in (({"spread": 0.5}, "spread"), ({"step_us": -1}, "step_us"), ({"episode_steps": 0}, "episode")):
        with pytest.raises(ValueError, match=word):
            gymnasium.make(gym_envs.BUSY_ID, **kw)


def test_spin_polls_the_clock_until_the_deadline(monkeypatch):
    """spin() busy-waits: it reads the clock until the deadline passes, never sleeping (a fake clock
    that advances 1 ms per read, so no wall-clock timing is asserted)."""
    now = [100.0]

    def clock() -> float:
        now[0] += 1e-3
        return now[0]

    monkeypatch.setattr(gym_envs.time, "perf_counter", clock)
    monkeypatch.setattr(gym_envs.time, "sleep", lambda s: pytest.fail("spin slept"))
    gym_envs.spin(0.0105)
    assert now[0] == pytest.approx(100.0 + 0.012)  # the start, then reads at +2 .. +12 ms


def test_ids_resolve_in_a_fresh_process():
    """A worker process of any start method finds the ids through gymnasium's module:ID syntax."""
    code = (
        "import gymnasium; env = gymnasium.make('envpool.bench.gym_envs:envpool-bench/Busy-v0', step_us=0);"
        "env.reset(seed=0); print(env.step(0)[0].tolist())"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=dict(os.environ))
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip().endswith("[1.0, 0.0, 0.0, 0.0]"), p.stdout  # t=1, action 0, 0 µs, step_us 0


def test_pong_preprocessed_is_gymnasiums_pipeline():
    pytest.importorskip("ale_py")
    pytest.importorskip("cv2")
    env = gymnasium.make(gym_envs.PONG_ID)
    obs, _ = env.reset(seed=0)
    assert obs.shape == (4, 84, 84) and obs.dtype == np.uint8
    inner = env.unwrapped
    assert type(inner).__name__ == "AtariEnv" and inner._frameskip == 1
    names = []
    e = env
    while hasattr(e, "env"):
        names.append(type(e).__name__)
        e = e.env
    assert "AtariPreprocessing" in names and "FrameStackObservation" in names
    env.close()


# --- the plan --------------------------------------------------------------------------------------


def test_plan_takes_gymnasium_ids_keywords_and_workers():
    plan = make_plan(
        _args(
            "gymnasium:CartPole-v1",
            f"{BUSY},step_us=500,spread=10",
            BUSY,
            "-n",
            "8",
            "-t",
            "2",
            "--num-workers",
            "3",
            "--option",
            "max_episode_steps=50",
            "-e",
            "gymnasium-sync",
            "raw-procs",
        )
    )
    cart, spread, even = (plan.tasks[t] for t in plan.tasks)
    assert not cart.registered and cart.kind == "gymnasium" and cart.gymnasium["make_id"] == "CartPole-v1"
    assert spread.gymnasium["make_id"] == "envpool.bench.gym_envs:envpool-bench/Busy-v0"
    assert spread.options == {"max_episode_steps": 50, "step_us": 500, "spread": 10}
    assert even.options == {"max_episode_steps": 50}
    assert plan.settings()["num_workers"] == 3
    case = plan.cases[0]
    spec = spec_for(plan.engines[0], case, plan.tasks[case.task], plan, 0)
    assert (
        spec["num_workers"] == 3
        and spec["gymnasium"]["name"] == "CartPole-v1"
        and spec["options"] == {"max_episode_steps": 50}
    )
    assert all(plan.runs(e, c) for e in plan.engines for c in plan.cases)
    # num_workers is capped at num_envs, and defaults to the case's threads
    small = make_plan(_args(BUSY, "-n", "2", "-t", "1", "--num-workers", "4", "-e", "raw-procs"))
    assert spec_for(small.engines[0], small.cases[0], small.tasks[BUSY], small, 0)["num_workers"] == 2
    default = make_plan(_args(BUSY, "-n", "8", "-t", "2", "-e", "raw-procs"))
    assert spec_for(default.engines[0], default.cases[0], default.tasks[BUSY], default, 0)["num_workers"] == 2


def test_plan_atari_ids():
    pytest.importorskip("ale_py")
    pytest.importorskip("cv2")
    plan = make_plan(_args("gymnasium:ALE/Pong-v5", "gymnasium:envpool-bench/PongPreprocessed-v0", "-n", "2"))
    pong, pre = plan.tasks.values()
    assert pong.gymnasium["make_id"] == "ale_py:ALE/Pong-v5" and pong.frame_skip == 4
    assert pre.gymnasium["make_id"] == "envpool.bench.gym_envs:envpool-bench/PongPreprocessed-v0"
    assert pre.frame_skip == 4
    assert (
        make_plan(_args("gymnasium:ALE/Pong-v5,frameskip=2", "-n", "2"))
        .tasks["gymnasium:ALE/Pong-v5,frameskip=2"]
        .frame_skip
        == 2
    )


@pytest.mark.parametrize(
    "argv, words",
    [
        (["gymnasium:"], "name a gymnasium id"),
        (["gymnasium:CartPol-v1"], "not in gymnasium's registry (did you mean CartPole-v1"),
        (["gymnasium:CartPole-v1,oops"], "KEY=VALUE"),
        (["gymnasium:no_such_module:X-v0"], "importing 'no_such_module'"),
        ([BUSY, "--num-workers", "0"], "--num-workers"),
        ([f"{BUSY},spread=0.5", "-e", "gymnasium-sync"], "spread must be >= 1"),
    ],
)
def test_bad_gymnasium_tasks_are_one_line_errors(argv, words):
    with pytest.raises(UsageError) as e:
        make_plan(_args(*argv))
    assert words in str(e.value) and "\n" not in str(e.value)


def test_engine_reasons_on_gymnasium_tasks(monkeypatch):
    plan = make_plan(_args(BUSY, "-n", "4", "4", "-b", "4", "2", "-e", "all"))
    task = plan.tasks[BUSY]
    sync, asy = Case(BUSY, 4, 4, 2), Case(BUSY, 4, 2, 2)
    reg = engines.registry()
    for name in ANCHORS:
        assert reg[name].available(task, sync) is None, name
        assert reg[name].available(task, asy) == "no batch_size < num_envs mode", name
    for name in ("raw", "xla", "ray"):  # the others say "Atari tasks only" etc.
        assert "a gymnasium: task (Python env)" in reg[name].available(task, sync), name
    assert all(reg[name].available(task, sync) for name in ("ale-vector", "raw-ale-py", "dm-control"))
    has = _common.has_module
    monkeypatch.setattr(_common, "has_module", lambda m: m != "stable_baselines3" and has(m))
    assert "stable_baselines3 not installed" in reg["sb3-subproc"].available(task, sync)


def test_blocks_split_envs_over_workers():
    assert blocks(8, 2) == [(0, 4), (4, 4)]
    assert blocks(7, 3) == [(0, 3), (3, 2), (5, 2)]
    assert blocks(2, 5) == [(0, 1), (1, 1)]
    assert blocks(1, 1) == [(0, 1)]


# --- end to end --------------------------------------------------------------------------------------


def _rows(path: Path) -> dict[str, dict]:
    return {r["engine"]: r for r in json.loads(path.read_text())["results"]}


@pytest.mark.slow  # ~20 s: five engines' subprocesses (SB3 imports torch)
def test_anchors_and_envpool_rows_end_to_end(tmp_path):
    """The anchors and raw-procs measure a tiny busy-env case; the envpool row runs when
    envpool.make("gymnasium:...") exists and is n/a saying so when it does not."""
    out = tmp_path / "b.json"
    p = _bench(
        f"{BUSY},step_us=20",
        "-n",
        "2",
        "-t",
        "2",
        "--num-workers",
        "2",
        "-e",
        "envpool",
        *ANCHORS,
        "--json",
        str(out),
        *TINY,
    )
    assert p.returncode == 0, p.stderr
    rows = _rows(out)
    for name in ANCHORS:
        r = rows[name]
        assert r["status"] == "ok" and r["steps_per_s"]["median"] > 0 and not r["errors"], r
    absent = _python_envs_feature()
    r = rows["envpool"]
    if absent is None:  # issue 27's pools exist: the row must run
        assert r["status"] == "ok" and r["steps_per_s"]["median"] > 0, r
    else:
        assert r["status"] == "n/a", r
        assert "envpool.make('gymnasium:<id>', num_workers=...) is not available in this envpool" in r["reason"]
        assert r["reason"] in p.stdout.replace("\n", " ") or "not available in this envpool" in p.stdout


def test_raw_procs_and_gymnasium_sync_on_cartpole(tmp_path):
    out = tmp_path / "c.json"
    p = _bench(
        "gymnasium:CartPole-v1",
        "-n",
        "3",
        "-t",
        "2",
        "--num-workers",
        "2",
        "-e",
        "gymnasium-sync",
        "raw-procs",
        "--json",
        str(out),
        *TINY,
    )
    assert p.returncode == 0, p.stderr
    rows = _rows(out)
    assert all(rows[e]["status"] == "ok" and rows[e]["steps_per_s"]["median"] > 0 for e in rows), rows
    assert "gymnasium:CartPole-v1" in p.stdout


def test_envpool_engine_reason_matches_the_feature():
    """The envpool engine's feature check agrees with an explicit one (a pool made as a user would)."""
    task = make_plan(_args("gymnasium:CartPole-v1", "-n", "2", "-e", "gymnasium-sync")).tasks["gymnasium:CartPole-v1"]
    reason = engines.get("envpool").available(task, Case(task.task_id, 2, 2, 2))
    if _python_envs_feature() is None:
        assert reason is None
    else:
        assert reason is not None and "issue 27" in reason and "not available in this envpool" in reason
    busy = make_plan(_args(f"{BUSY},step_us=5", "-n", "2", "-e", "raw-procs")).tasks[f"{BUSY},step_us=5"]
    fn, kwargs = _gym.envpool_make_args({"gymnasium": busy.gymnasium, "options": busy.options})
    assert kwargs == {} and fn.func is gymnasium.make and fn.args == (busy.gymnasium["make_id"],)
    assert fn.keywords == {"step_us": 5} and fn().unwrapped.step_us == 5  # a picklable env factory
    import pickle

    assert pickle.loads(pickle.dumps(fn)).keywords == {"step_us": 5}
    assert _gym.envpool_make_args({"gymnasium": task.gymnasium, "options": {"max_episode_steps": 10}}) == (
        "gymnasium:CartPole-v1",
        {"max_episode_steps": 10},
    )


def test_docs_commands_plan():
    """Every envpool-bench command of docs/benchmarks_python_envs.md parses and plans."""
    import re
    import shlex

    pytest.importorskip("ale_py")
    text = (ROOT / "docs" / "benchmarks_python_envs.md").read_text()
    cmds = [ln.strip() for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S) for ln in block.splitlines()]
    cmds = [c for c in cmds if c.startswith("envpool-bench")]
    assert len(cmds) == 3, cmds
    for cmd in cmds:
        plan = make_plan(_args(*shlex.split(cmd)[1:]))
        assert all(t.gymnasium for t in plan.tasks.values()) and plan.num_workers in (1, 2)


@pytest.mark.slow  # ~30 s: three envpool-bench runs
def test_python_envs_preset(tmp_path):
    out = tmp_path / "p.json"
    p = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "python_envs.py"),
            "--only",
            "cartpole",
            "busy",
            "--busy-us",
            "50",
            "--engines",
            "envpool",
            "gymnasium-async",
            "raw-procs",
            "--seconds",
            "0.1",
            "--warmup",
            "0",
            "--repeats",
            "1",
            "--no-progress",
            "--json",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env=dict(os.environ),
    )
    assert p.returncode == 0, p.stderr
    assert "| target | goal | measured | met |" in p.stdout
    rep = json.loads(out.read_text())
    assert set(rep["reports"]) == {"single", "sync", "async"}
    targets = {t[0]: t for t in rep["targets"]}
    assert len(targets) == 3
    absent = _python_envs_feature()
    for what, _goal, measured, met in targets.values():
        if absent is None:
            assert met in ("yes", "NO") and "x" in measured, (what, measured)
        else:
            assert measured == "n/a" and met == "n/a (the reason is below)", (what, met)
    if absent is not None:
        assert any("envpool: n/a: " in n and "not available in this envpool" in n for n in rep["notes"]), rep["notes"]
    engines_rows = {(r[0], r[1]) for r in rep["table"]["rows"]}
    assert {e for _, e in engines_rows} >= {"gymnasium-async", "raw-procs"}


@pytest.mark.slow  # ~10 s: two pools and two AsyncVectorEnvs
def test_python_envs_cpu_script():
    """benchmarks/python_envs_cpu.py: a row per round and engine, with a CPU time per step."""
    p = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "python_envs_cpu.py"), "--rounds", "1", "--batches", "20"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    rows = [ln.split("|")[1:-1] for ln in p.stdout.splitlines() if ln.startswith("| 1 |")]
    assert [r[1].strip() for r in rows] == ["envpool", "gymnasium-async"]
    assert all(float(r[2]) > 0 and float(r[3]) > 0 for r in rows), rows
