"""envpool-bench: argument parsing, engines and their availability, the report, real short runs."""

from __future__ import annotations

import ast
import ctypes.util
import importlib.util
import io
import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from rich.console import Console

import envpool
from envpool.bench import UsageError, engines, main, report, stats
from envpool.bench.cli import build_parser
from envpool.bench.engines import Engine, _common
from envpool.bench.plan import DEFAULT_TASKS, Case, Task, apply_options, make_plan, resolve_task

ROOT = Path(__file__).resolve().parents[2]
BENCH = Path(envpool.__file__).resolve().parent / "bench"
TINY = ["-s", "0.1", "-w", "0.02", "-r", "1", "--no-progress"]
ESC = "\x1b"


def _bench(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    # The installed envpool (conftest keeps the source folder off sys.path); stdout/stderr are pipes, not a TTY.
    return subprocess.run(
        [sys.executable, "-m", "envpool.bench", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=dict(os.environ),
    )


def _has(task: str) -> bool:
    return task in envpool.list_all_envs()


def _args(*argv: str):
    args = build_parser().parse_args(list(argv))
    args.argv = list(argv)
    return args


def _readme_bench_commands() -> list[str]:
    """Every envpool-bench command the README and the docs pages show: code-block lines
    and inline code spans."""
    text = "\n".join(p.read_text() for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))])
    cmds: list[str] = []

    def fenced(m: re.Match) -> str:
        cmds.extend(line.strip() for line in m.group(1).splitlines() if line.strip().startswith("envpool-bench"))
        return ""

    rest = re.sub(r"```[^\n]*\n(.*?)```", fenced, text, flags=re.S)  # any info string: ```{toctree}
    cmds += re.findall(r"`(envpool-bench[^`]*)`", rest)
    return [" ".join(c.split()) for c in cmds]


def test_readme_bench_commands_are_valid():
    """The README's and docs' measured figures name the command that gave them: each must
    still parse and plan (an option the bench no longer has, an unknown engine
    or task fails here, not on a reader's machine)."""
    cmds = _readme_bench_commands()
    assert len(cmds) >= 10, cmds
    checked = 0
    for cmd in cmds:
        argv = shlex.split(cmd)[1:]
        if "--help" in argv:
            continue
        make_plan(_args(*argv))
        checked += 1
    assert checked >= 8


# --- ratio arithmetic -----------------------------------------------------------------------


def test_ratio_is_median_of_per_round_ratios():
    ours = [100.0, 200.0, 400.0]
    base = [50.0, 400.0, 100.0]  # per round: 2.0, 0.5, 4.0
    r = stats.ratio_summary(ours, base)
    assert r["per_round"] == [2.0, 0.5, 4.0]
    assert r["median"] == 2.0 and r["min"] == 0.5 and r["max"] == 4.0
    # not the ratio of the medians: here they differ
    r = stats.ratio_summary([10.0, 30.0, 20.0, 40.0], [10.0, 10.0, 40.0, 10.0])  # 1, 3, 0.5, 4
    assert r["median"] == pytest.approx(2.0)
    assert stats.summary([10.0, 30.0, 20.0, 40.0])["median"] / stats.summary([10, 10, 40, 10])["median"] == 2.5


def test_ratio_skips_failed_rounds():
    assert stats.round_ratios([1.0, None, 3.0], [2.0, 2.0, None]) == [0.5]
    assert stats.ratio_summary([None], [1.0]) is None
    assert stats.summary([None, None]) is None
    s = stats.summary([3.0, 1.0, 2.0])
    assert (s["median"], s["min"], s["max"], s["runs"]) == (2.0, 1.0, 3.0, [3.0, 1.0, 2.0])
    with pytest.raises(ValueError):
        stats.round_ratios([1.0], [1.0, 2.0])


def test_case_mode():
    assert Case("CartPole-v1", 8, 8, 2).mode == "sync"
    assert Case("CartPole-v1", 8, 4, 2).mode == "async"


# --- argument parsing -------------------------------------------------------------------------


def test_option_values_are_python_literals_else_strings():
    from envpool.bench.plan import parse_options

    got = parse_options(["from_pixels=True", "img_height=64", "camera_name=track", "lookat=[0, 0, 1]", "x= 0.5 "])
    assert got == {"from_pixels": True, "img_height": 64, "camera_name": "track", "lookat": [0, 0, 1], "x": 0.5}
    for bad in ("from_pixels", "=1", "a b=1"):
        with pytest.raises(UsageError, match="KEY=VALUE"):
            parse_options([bad])


def test_options_go_into_the_task_config_and_bad_keys_are_refused():
    if not _has("HalfCheetah-v4"):
        pytest.skip("no MuJoCo in this build")
    plan = make_plan(_args("HalfCheetah-v4", "-n", "2", "--option", "from_pixels=True", "--option", "img_height=48"))
    task = plan.tasks["HalfCheetah-v4"]
    assert task.options == {"from_pixels": True, "img_height": 48}
    assert task.config["from_pixels"] is True and task.full_config["img_height"] == 48
    assert plan.settings()["options"] == {"from_pixels": True, "img_height": 48}
    with pytest.raises(UsageError, match="takes no option 'zoom'"):
        make_plan(_args("HalfCheetah-v4", "-n", "2", "--option", "zoom=2"))


def test_thread_list_runs_every_case_with_each_count():
    """``-t 1 2`` (the issue's form): each (num_envs, batch_size) with each thread count,
    capped at num_envs, without duplicates; task ids may follow the numbers."""
    args = _args("-n", "1", "8", "8", "-b", "1", "8", "4", "-t", "1", "2", "CartPole-v1")
    assert args.num_threads == [1, 2] and args.tasks == ["CartPole-v1"]
    plan = make_plan(args)
    got = [(c.num_envs, c.batch_size, c.num_threads) for c in plan.cases]
    assert got == [(1, 1, 1), (8, 8, 1), (8, 8, 2), (8, 4, 1), (8, 4, 2)]
    assert plan.settings()["num_threads"] == [1, 2]
    assert make_plan(_args("CartPole-v1", "-n", "4", "-t", "3")).settings()["num_threads"] == [3]


@pytest.mark.parametrize(
    "argv, tasks, num_envs, batch_size",
    [
        (["-n", "8", "64", "CartPole-v1"], ["CartPole-v1"], [8, 64], None),  # as users type it
        (["CartPole-v1", "-n", "8", "64"], ["CartPole-v1"], [8, 64], None),
        (["-n", "8", "64", "CartPole-v1", "Pong-v5"], ["CartPole-v1", "Pong-v5"], [8, 64], None),
        (["A", "-n", "8", "B", "-b", "4", "C"], ["A", "B", "C"], [8], [4]),
        (["-n", "256", "-b", "128", "CartPole-v1"], ["CartPole-v1"], [256], [128]),
        (["-n", "8", "--", "X"], ["X"], [8], None),
        (["-n", "8", "-e", "envpool", "raw"], [], [8], None),
        ([], [], None, None),
    ],
)
def test_number_lists_end_at_the_first_task_id(argv, tasks, num_envs, batch_size):
    args = _args(*argv)
    assert (args.tasks, args.num_envs, args.batch_size) == (tasks, num_envs, batch_size)


def test_numbers_then_task_plan():
    plan = make_plan(_args("-n", "8", "64", "CartPole-v1", "-e", "envpool"))
    assert list(plan.tasks) == ["CartPole-v1"]
    assert [(c.num_envs, c.batch_size) for c in plan.cases] == [(8, 8), (64, 64)]


def test_every_option_parses():
    args = _args(
        "T",
        "-n",
        "2",
        "4",
        "-b",
        "1",
        "2",
        "-t",
        "3",
        "-s",
        "1.5",
        "-w",
        "0.1",
        "-r",
        "4",
        "-e",
        "envpool",
        "raw",
        "--python",
        "/p",
        "--baseline",
        "raw",
        "--json",
        "j",
        "--plot",
        "p",
        "--seed",
        "7",
        "--no-progress",
    )
    assert (args.tasks, args.num_envs, args.batch_size, args.num_threads) == (["T"], [2, 4], [1, 2], [3])
    assert (args.seconds, args.warmup, args.repeats, args.engines) == (1.5, 0.1, 4, ["envpool", "raw"])
    assert (args.python, args.baseline, args.json, args.plot, args.seed, args.no_progress) == (
        ["/p"],
        "raw",
        "j",
        "p",
        7,
        True,
    )


def test_help_lists_every_engine_from_the_registry():
    text = build_parser().format_help()
    for name, e in engines.registry().items():
        assert (name + "PATH" if e.parametric else name) in text and e.summary in text
    assert re.search(r"^\s+envpool\s+\*", text, re.M)  # default engines are starred


@pytest.mark.parametrize(
    "args, words",
    [
        (["CartPol-v1"], "did you mean"),  # unknown task
        (["CartPole-v1", "-n", "x"], "invalid int value"),
        (["CartPole-v1", "-n", "8", "-b", "16"], "batch_size must be in 1..num_envs"),
        (["CartPole-v1", "-n", "8", "4", "-b", "1", "2", "3"], "--batch-size takes 1 value"),
        (["CartPole-v1", "-e", "nosuchengine"], "unknown engine"),
        (["-e", "envpool", "CartPole-v1"], "task ids go before -e"),
        (["CartPole-v1", "-e", "raw"], "has no raw ceiling"),  # the only engine, unavailable for the task
        (["CartPole-v1", "-n", "8", "-b", "4", "-e", "gymnasium-sync"], "no batch_size < num_envs mode"),
        (["CartPole-v1", "-e", "envpool", "--baseline", "raw"], "not among the engines"),
        (["CartPole-v1", "--seconds", "0"], "--seconds must be > 0"),
        (["CartPole-v1", "--no-such-flag"], "unrecognized arguments"),
    ],
)
def test_bad_arguments_one_line_exit_2(args, words, capsys):
    assert main([*args, "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("envpool-bench: error:") and "\n" not in err and "Traceback" not in err
    assert words in err


def test_bad_arguments_subprocess():
    p = _bench("CartPol-v1")
    assert p.returncode == 2
    assert p.stderr.strip().count("\n") == 0 and "did you mean" in p.stderr


# --- the default run ----------------------------------------------------------------------------


def test_default_run_plan():
    """No arguments: CartPole-v1, Pong-v5 and HalfCheetah-v4 (those built), the default engines, short."""
    plan = make_plan(_args())
    assert list(plan.tasks) == [t for t in DEFAULT_TASKS if _has(t)]
    assert "CartPole-v1" in plan.tasks and ("HalfCheetah-v4" in plan.tasks) == _has("HalfCheetah-v4")
    assert (
        [e.name for e in plan.engines]
        == engines.defaults()
        == ["envpool", "gymnasium-sync", "ale-vector", "raw", "raw-ale-py"]
    )
    assert plan.baseline == "envpool"
    assert {c.num_envs for c in plan.cases if c.task == "CartPole-v1"} == {1, 8, 64}
    for task in ("Pong-v5", "HalfCheetah-v4"):  # family bench defaults: fewer num_envs for slow-to-build envs
        if _has(task):
            assert {c.num_envs for c in plan.cases if c.task == task} == {1, 8}
    assert all(c.mode == "sync" for c in plan.cases)
    # every engine it lists runs something, and nothing it lists lacks a package (the test env has the bench extra)
    for e in plan.engines:
        reasons = [plan.reasons[(e.name, c)] for c in plan.cases]
        assert any(r is None for r in reasons), (e.name, reasons)
        assert not any(r and "not installed" in r for r in reasons), (e.name, reasons)
    # ~ a minute or two on 2 cores: each measurement is a process start plus warm-up plus timed seconds
    measurements = sum(plan.runs(e, c) for e in plan.engines for c in plan.cases) * plan.repeats
    assert measurements <= 66 and (plan.repeats, plan.seconds, plan.warmup) == (3, 0.5, 0.2)  # as the README says


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _dist(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower()


def test_bench_extra_has_what_the_default_engines_import(monkeypatch):
    """The default engines' available() names every optional module they import (via _common.missing);
    each is a dependency of envpool or in the bench extra, so `pip install ".[bench]"` is enough."""
    project = _pyproject()["project"]
    installed = {_dist(r) for r in project["dependencies"] + project["optional-dependencies"]["bench"]}
    assert {"rich", "matplotlib", "imageio", "opencv-python-headless"} <= installed
    for module, dist in _common.PROVIDERS.items():
        assert dist in installed, (module, dist)
    asked: list[str] = []
    monkeypatch.setattr(_common, "has_module", lambda name: asked.append(name) or True)
    plan = make_plan(_args())
    assert asked, "no engine asked for a module"
    assert set(asked) <= set(_common.PROVIDERS), set(asked) - set(_common.PROVIDERS)
    assert {e.name for e in plan.engines} == set(engines.defaults())


# --- engines ----------------------------------------------------------------------------------------


def _task(task_id: str) -> Task:
    return resolve_task(task_id)


SYNC, ASYNC = Case("T", 4, 4, 2), Case("T", 4, 2, 2)
UNREGISTERED = Task("Nope-v0", registered=False)

# (engine, task id or Task, case, modules missing, expected reason: None or a substring)
REASONS = [
    ("envpool", "CartPole-v1", SYNC, (), None),
    ("envpool", "CartPole-v1", ASYNC, (), None),
    ("envpool", UNREGISTERED, SYNC, (), "task not registered in this build"),
    ("gymnasium-sync", "CartPole-v1", SYNC, (), None),
    ("gymnasium-sync", "CartPole-v1", ASYNC, (), "no batch_size < num_envs mode"),
    ("gymnasium-sync", "CartPole-v1", SYNC, ("gymnasium",), "gymnasium not installed"),
    ("gymnasium-sync", "Pong-v5", SYNC, (), None),
    ("gymnasium-sync", "Pong-v5", SYNC, ("cv2",), "opencv-python-headless not installed"),
    ("gymnasium-sync", "Pong-v5", SYNC, ("ale_py",), "ale-py not installed"),
    ("gymnasium-sync", "HalfCheetah-v4", SYNC, (), None),
    ("gymnasium-sync", "HalfCheetah-v4", SYNC, ("imageio",), "imageio not installed"),
    ("gymnasium-sync", "Ant-v3", SYNC, (), "gymnasium.make('Ant-v3') fails"),  # gymnasium's needs mujoco-py
    ("gymnasium-sync", "Pendulum-v1", SYNC, (), None),
    ("gymnasium-sync", Task("Ours-v9", True, "CartPole", "classic_control"), SYNC, (), "not in gymnasium's registry"),
    ("gymnasium-sync", UNREGISTERED, SYNC, (), "task not registered in this build"),
    ("gymnasium-async", "CartPole-v1", SYNC, (), None),
    ("gymnasium-async", "CartPole-v1", ASYNC, (), "no batch_size < num_envs mode"),
    ("ale-vector", "Pong-v5", SYNC, (), None),
    ("ale-vector", "Pong-v5", ASYNC, (), None),
    ("ale-vector", "Pong-v5", SYNC, ("ale_py",), "ale-py not installed"),
    ("ale-vector", "CartPole-v1", SYNC, (), "Atari tasks only"),
    ("ale-vector", "HalfCheetah-v4", SYNC, (), "Atari tasks only"),
    ("raw", "Pong-v5", SYNC, (), None),
    ("raw", "HalfCheetah-v4", SYNC, (), None),
    ("raw", "CartPole-v1", SYNC, (), "family 'CartPole' has no raw ceiling"),
    ("raw", UNREGISTERED, SYNC, (), "task not registered in this build"),
    ("raw", "HalfCheetah-v4", SYNC, (), "no rendering", {"from_pixels": True}),
    ("raw", "Pong-v5", SYNC, (), None, {"frame_skip": 2}),
    ("gymnasium-sync", "HalfCheetah-v4", SYNC, (), None, {"from_pixels": True, "img_width": 64}),
    ("gymnasium-sync", "HalfCheetah-v4", SYNC, (), "takes no --option reset_noise_scale", {"reset_noise_scale": 0.2}),
    ("gymnasium-sync", "Pong-v5", SYNC, (), None, {"frame_skip": 2, "noop_max": 0}),
    ("ale-vector", "Pong-v5", SYNC, (), None, {"episodic_life": True}),
    ("raw-ale-py", "Pong-v5", SYNC, (), "takes no --option episodic_life", {"episodic_life": True}),
    ("envpool", "HalfCheetah-v4", SYNC, (), None, {"from_pixels": True}),
    ("raw-ale-py", "Pong-v5", SYNC, (), None),
    ("raw-ale-py", "Pong-v5", SYNC, ("ale_py",), "ale-py not installed"),
    ("raw-ale-py", "CartPole-v1", SYNC, (), "Atari tasks only"),
    ("raw-ale-py", "Pong-v5+Breakout-v5", SYNC, (), "multi-task pools: the envpool and xla engines only"),
    ("envpool", "Pong-v5+Breakout-v5", SYNC, (), None),
    ("envpool", "CartPole-v1+Nope-v0", SYNC, (), "task not registered in this build"),
    ("raw", "Pong-v5+Breakout-v5", SYNC, (), "multi-task pools: the envpool and xla engines only"),
    ("ale-vector", "Pong-v5+Breakout-v5", SYNC, (), "multi-task pools: the envpool and xla engines only"),
    ("gymnasium-sync", "Pong-v5+Breakout-v5", SYNC, (), "multi-task pools: the envpool and xla engines only"),
    ("xla", "CartPole-v1", SYNC, (), None),
    ("xla", "CartPole-v1", ASYNC, (), None),
    ("xla", "CartPole-v1", SYNC, ("jax",), "JAX not installed"),
    ("xla", "Pong-v5+Breakout-v5", SYNC, (), None),
    ("ray", "CartPole-v1", SYNC, (), None),
    ("ray", "CartPole-v1", Case("T", 1, 1, 1), (), "need num_envs >= 2"),
    ("ray", "CartPole-v1", SYNC, ("ray",), "Ray not installed"),
    ("raw", "WalkerWalk-v1", SYNC, (), None),
    ("raw-envs", "HalfCheetah-v4", SYNC, (), None),
    ("raw-envs", "Pong-v5", ASYNC, (), None),
    ("raw-envs", "CartPole-v1", SYNC, (), "family 'CartPole' has no raw ceiling"),
    ("raw-envs", "HalfCheetah-v4", SYNC, (), "no rendering", {"from_pixels": True}),
    ("raw-sync", "HalfCheetah-v4", SYNC, (), None),
    ("raw-sync", "Pong-v5", ASYNC, (), "sync calls only (batch_size == num_envs)"),
    ("raw-sync", "CartPole-v1", SYNC, (), "family 'CartPole' has no raw ceiling"),
    ("dm-control", "WalkerWalk-v1", SYNC, (), None),
    ("dm-control", "WalkerWalk-v1", ASYNC, (), "no batch_size < num_envs mode"),
    ("dm-control", "WalkerWalk-v1", SYNC, ("dm_control",), "dm_control not installed"),
    ("dm-control", "CartPole-v1", SYNC, (), "dm_control suite tasks only"),
    ("sb3-subproc", "CartPole-v1", SYNC, (), None),  # gymnasium: tasks: tests/bench/test_bench_python_envs.py
    ("sb3-subproc", "CartPole-v1", ASYNC, (), "no batch_size < num_envs mode"),
    ("sb3-subproc", "CartPole-v1", SYNC, ("stable_baselines3",), "stable_baselines3 not installed"),
    ("raw-procs", "CartPole-v1", SYNC, (), None),
    ("raw-procs", "CartPole-v1", ASYNC, (), "no batch_size < num_envs mode"),
    ("raw-procs", "Pong-v5", SYNC, ("cv2",), "opencv-python-headless not installed"),
    ("python:", "CartPole-v1", SYNC, (), "name an interpreter"),
    ("python:/nonexistent/python", "CartPole-v1", SYNC, (), "no executable interpreter at /nonexistent/python"),
]


@pytest.mark.parametrize("name, task, case, gone, expected, options", [(*r, {})[:6] for r in REASONS])
def test_engine_availability(name, task, case, gone, expected, options, monkeypatch):
    """Each row: (engine, task, case, modules made missing, None or part of the reason, --option keys)."""
    task = task if isinstance(task, Task) else _task(task)
    if not task.registered and "Nope-v0" not in task.task_id:
        pytest.skip(f"{task.task_id} is not built")
    task = apply_options(task, options)
    has = _common.has_module
    monkeypatch.setattr(_common, "has_module", lambda m: m not in gone and has(m))
    engine = engines.registry()[name] if name in engines.registry() else engines.get(name)
    reason = engine.available(task, case)
    if expected is None:
        assert reason is None
    else:
        assert reason is not None and expected in reason, reason
        if gone and all(m in _common.PROVIDERS for m in gone):  # a missing bench package says how to get it
            assert "pip install 'envpool[bench]'" in reason


def test_every_engine_has_availability_cases():
    """A new engine comes with its rows in REASONS (at least one that runs and one that says why not)."""
    covered = {name.split(":")[0] + ":" if ":" in name else name for name, *_ in REASONS}
    assert set(engines.registry()) <= covered, set(engines.registry()) - covered
    for name in engines.names():
        rows = [r for r in REASONS if r[0] == name]
        assert any(r[4] is None for r in rows) and any(r[4] for r in rows), name


def test_engine_definitions():
    reg = engines.registry()
    assert list(reg)[:1] == ["envpool"] and engines.names() == [n for n in reg if not reg[n].parametric]
    for name, e in reg.items():
        module, function = e.runner
        assert (BENCH / "engines" / f"{module}.py").is_file() and function == e.run.__name__
        assert e.default == (name in engines.defaults())
    bound = engines.get("python:/some/python")
    assert bound.python == "/some/python" and bound.runner == reg["envpool"].runner
    with pytest.raises(KeyError):
        engines.get("nosuchengine")
    with pytest.raises(TypeError, match="module-level function"):
        Engine("x", "x", lambda spec: {})  # the worker imports run by name


def test_an_engine_is_one_file(tmp_path):
    """A module dropped into engines/ is found by the registry, with nothing else to edit; loaded by
    path under another package name, as the worker loads it."""
    import shutil

    folder = tmp_path / "engines"
    shutil.copytree(BENCH / "engines", folder, ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "extra.py").write_text(
        "from . import Engine, _common\n\n\n"
        "def run(spec):\n"
        "    return _common.time_loop(lambda i: None, 1, 0.0, 0.01)\n\n\n"
        "ENGINES = (Engine('extra', 'a test engine', run, lambda task, case: None, order=5),)\n"
    )
    spec = importlib.util.spec_from_file_location(
        "_bench_test_engines", folder / "__init__.py", submodule_search_locations=[str(folder)]
    )
    package = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = package
    try:
        spec.loader.exec_module(package)
        reg = package.registry()
        assert list(reg)[:2] == ["envpool", "extra"] and set(engines.registry()) < set(reg)
        extra = package.get("extra")
        assert extra.runner == ("extra", "run") and extra.run({})["calls"] > 0
    finally:
        for name in [m for m in sys.modules if m == spec.name or m.startswith(spec.name + ".")]:
            del sys.modules[name]


def _imports(path: Path) -> list[tuple[str, int, bool]]:
    """(module, relative level, at module top level) of every import in a file."""
    tree = ast.parse(path.read_text())
    top = {id(n) for n in tree.body}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, 0, id(node) in top) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            out.append((node.module or "", node.level, id(node) in top))
    return out


def test_engine_modules_and_worker_load_under_any_interpreter():
    """worker.py imports nothing from envpool.bench; engine modules import only the standard library,
    numpy and their own package at top level (libraries inside run/available)."""
    allowed = set(sys.stdlib_module_names) | {"numpy", "__future__"}
    for path in [BENCH / "worker.py", *sorted((BENCH / "engines").glob("*.py"))]:
        for module, level, top in _imports(path):
            assert not module.startswith("envpool.bench"), (path.name, module)
            if top and level == 0:
                assert module.split(".")[0] in allowed, (path.name, module)


def test_no_import_cycle():
    modules = {}
    for path in BENCH.rglob("*.py"):
        rel = path.relative_to(BENCH.parent.parent).with_suffix("")
        name = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
        modules[name] = path
    graph = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        deps = set()
        for module, level, _ in _imports(path):
            if level:
                base = package.rsplit(".", level - 1)[0] if level > 1 else package
                module = f"{base}.{module}" if module else base
            for cand in (module, module.rsplit(".", 1)[0]):
                if cand in modules and cand != name:
                    deps.add(cand)
                    break
        # a submodule's package __init__ always runs first: not an edge of a cycle
        graph[name] = {d for d in deps if not name.startswith(d + ".")}
    state: dict[str, int] = {}

    def visit(n, stack):
        state[n] = 1
        for d in graph[n]:
            assert state.get(d) != 1, "import cycle: " + " -> ".join([*stack, n, d])
            if d not in state:
                visit(d, [*stack, n])
        state[n] = 2

    for n in graph:
        if n not in state:
            visit(n, [])
    assert "envpool.bench.cli" not in graph["envpool.bench.report"]


# --- the report -----------------------------------------------------------------------------------


def _row(engine, status="ok", reason=None, task="T", n=1, b=1, **kw):
    r = {
        "task": task,
        "num_envs": n,
        "batch_size": b,
        "mode": "sync" if n == b else "async",
        "num_threads": 1,
        "engine": engine,
        "status": status,
        "reason": reason,
        "frame_skip": 4,
        "errors": [],
    }
    if status == "ok":
        r.update(
            steps_per_s={"median": 2e6, "min": 1e6, "max": 3e6},
            frames_per_s={"median": 8e6},
            us_per_call={"median": 12.5},
            ratio_to_baseline={"median": 1.0},
        )
    r.update(kw)
    return r


def _report(results):
    return {
        "settings": {"baseline": "envpool", "repeats": 1, "seconds": 0.1, "warmup": 0.0},
        "machine": {
            "cpu": "x",
            "usable_cores": 1,
            "logical_cores": 1,
            "python": "3",
            "packages": {"numpy": "2"},
            "load_average": {"min_1m": 0, "max_1m": 0, "start": None},
        },
        "interpreters": {},
        "results": results,
    }


def test_table_leaves_out_na_rows_and_says_once_why():
    rep = _report(
        [
            _row("envpool"),
            _row("raw", "n/a", "no raw ceiling"),
            _row("ale-vector", "n/a", "Atari tasks only"),
            _row("envpool", task="U"),
            _row("raw", "n/a", "no raw ceiling", task="U"),
            _row("gymnasium-sync", task="U", n=4, b=4),
            _row("gymnasium-sync", "n/a", "no async", task="U", n=4, b=2),
            _row("ale-vector", "error", "boom", task="U", errors=["RuntimeError: boom"]),
        ]
    )
    text = report.format_table(rep)
    table = [ln for ln in text.splitlines() if ln.startswith("|")]
    assert len(table) == 2 + 4  # header, rule, 3 ok rows and the error row
    assert not any("n/a" in ln for ln in table) and not any(re.search(r"\|\s*raw\s*\|", ln) for ln in table)
    assert "2M" in text and "8M" in text and "12.5" in text and "1.00" in text
    assert text.count("Skipped (n/a):") == 1
    assert "  raw on T, U: no raw ceiling" in text  # one line for both tasks
    assert "  ale-vector on T: Atari tasks only" in text
    assert "  gymnasium-sync on U (4 envs batch 2): no async" in text  # only some of U's cases
    assert "ale-vector on U (1 envs): 1 of 1 round failed: RuntimeError: boom" in text


def test_footer_says_what_each_engine_in_the_table_is():
    from envpool.bench import engines

    rep = _report([_row("envpool"), _row("raw"), _row("ale-vector", "n/a", "Atari tasks only")])
    text = report.format_table(rep)
    legend = text[text.index("engines: ") :]
    assert f"engines: envpool: {engines.get('envpool').summary}" in legend
    assert f"raw: {engines.get('raw').summary}" in legend
    assert "ale-vector" not in legend  # no row of it in the table


def test_plain_output_has_no_escape_codes_and_terminal_output_is_styled():
    rep = _report([_row("envpool"), _row("raw", "n/a", "no raw ceiling")])
    plain = report.format_table(rep)
    assert ESC not in plain and plain.startswith("| task")  # a Markdown table

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    tty = Terminal()
    out = report.console(tty)
    assert out.is_terminal and not report.console(io.StringIO()).is_terminal
    report.print_report(rep, out)
    assert ESC in tty.getvalue() and "| task" not in tty.getvalue()
    with report.Progress(2, stream=Terminal()) as p:  # the rich bar on a terminal
        p.start("a")
        p.step("a")
    assert p.bar is not None and p.done == 1
    log = io.StringIO()
    with report.Progress(2, stream=log) as p:  # a line per measurement elsewhere
        p.step("one")
    assert log.getvalue() == "[1/2] one\n"


def test_narrow_terminal_leaves_columns_out():
    rep = _report([_row("gymnasium-sync", task="HalfCheetah-v4")])
    wide = Console(file=io.StringIO(), force_terminal=True, width=200)
    narrow = Console(file=io.StringIO(), force_terminal=True, width=80)
    assert report.fitted_table(rep, wide)[1] == []
    assert report.fitted_table(rep, narrow)[1][:1] == ["(min-max)"]


# --- real runs ------------------------------------------------------------------------------------


def _check_schema(rep: dict) -> None:
    assert rep["schema"] == "envpool-bench/1"
    for key in ("created", "duration_s", "argv", "settings", "machine", "interpreters", "results"):
        assert key in rep
    for key in ("tasks", "engines", "baseline", "seconds", "warmup", "repeats", "num_threads", "seed"):
        assert key in rep["settings"]
    m = rep["machine"]
    for key in ("cpu", "logical_cores", "usable_cores", "platform", "python", "executable", "packages", "load_average"):
        assert key in m
    assert m["packages"]["numpy"]
    assert {"start", "end", "min_1m", "max_1m", "mean_1m"} <= set(m["load_average"])
    for r in rep["results"]:
        assert set(r) == {
            "task",
            "family",
            "frame_skip",
            "num_envs",
            "batch_size",
            "mode",
            "num_threads",
            "engine",
            "status",
            "reason",
            "steps_per_s",
            "frames_per_s",
            "us_per_call",
            "ratio_to_baseline",
            "setup_s",
            "versions",
            "errors",
        }
        assert r["status"] in ("ok", "n/a", "error")
        assert r["mode"] == ("sync" if r["num_envs"] == r["batch_size"] else "async")
        if r["status"] == "ok":
            s = r["steps_per_s"]
            assert 0 < s["min"] <= s["median"] <= s["max"]
            assert len(s["runs"]) == rep["settings"]["repeats"]
            assert r["frames_per_s"]["median"] == pytest.approx(s["median"] * r["frame_skip"])
        else:
            assert r["reason"]


@pytest.mark.slow  # ~15 s; test_throughput_preset and the engine tests below stay fast
def test_envpool_and_raw_engines_run(tmp_path):
    """A real short run of the envpool, raw, raw-envs and raw-sync engines (sync and async), piped: plain
    text."""
    tasks = [t for t in ("Pong-v5", "HalfCheetah-v4") if _has(t)]
    if not tasks:
        pytest.skip("neither Atari nor MuJoCo is built")
    out_json = tmp_path / "b.json"
    p = _bench(
        *tasks,
        "CartPole-v1",
        "-n",
        "1",
        "4",
        "-b",
        "1",
        "2",
        "-t",
        "2",
        "-e",
        "envpool",
        "raw",
        "raw-envs",
        "raw-sync",
        "--json",
        str(out_json),
        "-s",
        "0.1",
        "-w",
        "0.02",
        "-r",
        "2",
    )
    assert p.returncode == 0, p.stderr
    assert ESC not in p.stdout and ESC not in p.stderr
    assert p.stderr.splitlines()[-1].startswith("[") and "round 2/2" in p.stderr  # one line per measurement
    rep = json.loads(out_json.read_text())
    _check_schema(rep)
    rows = {(r["task"], r["num_envs"], r["engine"]): r for r in rep["results"]}
    for task in tasks:
        for n in (1, 4):
            for engine in ("envpool", "raw", "raw-envs"):
                r = rows[(task, n, engine)]
                assert r["status"] == "ok" and r["steps_per_s"]["median"] > 0 and not r["errors"], r
                assert r["ratio_to_baseline"]["median"] > 0 and len(r["ratio_to_baseline"]["per_round"]) == 2
        assert rows[(task, 1, "envpool")]["us_per_call"]["median"] > 0
        assert rows[(task, 4, "envpool")]["mode"] == "async"
        sync_ceiling = rows[(task, 1, "raw-sync")]
        assert sync_ceiling["status"] == "ok" and sync_ceiling["steps_per_s"]["median"] > 0
        assert rows[(task, 4, "raw-sync")]["status"] == "n/a"
    assert rows[("CartPole-v1", 1, "raw")]["status"] == "n/a"
    assert rows[("CartPole-v1", 4, "raw-envs")]["status"] == "n/a"
    assert "raw on CartPole-v1: family 'CartPole' has no raw ceiling" in p.stdout
    table = [ln for ln in p.stdout.splitlines() if ln.startswith("|")]
    assert not any("CartPole-v1" in ln and "raw" in ln for ln in table)


@pytest.mark.skipif(ctypes.util.find_library("OSMesa") is None, reason="no libOSMesa (Debian: libosmesa6)")
def test_pixel_observations_against_gymnasium(tmp_path):
    """envpool-bench HalfCheetah-v4 --option from_pixels=True: our pixel pool against gymnasium's
    SyncVectorEnv of AddRenderObservation envs, both on OSMesa (the default for pixel runs)."""
    if not _has("HalfCheetah-v4"):
        pytest.skip("no MuJoCo in this build")
    out_json = tmp_path / "b.json"
    p = _bench("HalfCheetah-v4", "-n", "2", "-t", "2", "--option", "from_pixels=True", "-e", "envpool",
               "gymnasium-sync", "raw", "--json", str(out_json), *TINY, timeout=300)  # fmt: skip
    assert p.returncode == 0, p.stderr
    rep = json.loads(out_json.read_text())
    assert rep["settings"]["options"] == {"from_pixels": True}
    rows = {r["engine"]: r for r in rep["results"]}
    assert rows["envpool"]["status"] == rows["gymnasium-sync"]["status"] == "ok", [
        (r["status"], r["reason"]) for r in rows.values()
    ]
    assert rows["raw"]["status"] == "n/a" and "no rendering" in rows["raw"]["reason"]


@pytest.mark.skipif(importlib.util.find_spec("ale_py") is None, reason="ale-py not installed")
def test_raw_ale_py_engine(tmp_path):
    """raw-ale-py: ale-py's own emulator, one process per thread, next to our raw ceiling."""
    if not _has("Pong-v5"):
        pytest.skip("Atari not built")
    out_json = tmp_path / "b.json"
    p = _bench("Pong-v5", "-n", "1", "2", "-t", "2", "-e", "raw", "raw-ale-py", "--json", str(out_json),
               "-s", "0.2", "-w", "0.05", "-r", "1")  # fmt: skip
    assert p.returncode == 0, p.stderr
    rep = json.loads(out_json.read_text())
    _check_schema(rep)
    rows = {(r["num_envs"], r["engine"]): r for r in rep["results"]}
    for n in (1, 2):
        r = rows[(n, "raw-ale-py")]
        assert r["status"] == "ok" and r["num_threads"] == n and not r["errors"], r
        assert r["frames_per_s"]["median"] == pytest.approx(4 * r["steps_per_s"]["median"])
        assert rows[(n, "raw")]["status"] == "ok"


def test_raw_ale_py_child_error_is_an_error_not_a_hang():
    """A child that fails (here: a ROM that does not exist) stops the others and raises."""
    pytest.importorskip("ale_py")
    from envpool.bench.engines import raw_ale_py

    spec = {"task": "Pong-v5", "num_envs": 2, "batch_size": 2, "num_threads": 2, "seconds": 0.1, "warmup": 0.0,
            "seed": 0, "full_config": {"task": "pong", "rom_path": "/nonexistent/pong.bin"}}  # fmt: skip
    with pytest.raises(RuntimeError):
        raw_ale_py.run(spec)


@pytest.mark.slow  # ~9 s; the engines run in faster tests
def test_end_to_end_table_json_png(tmp_path):
    has_mpl = importlib.util.find_spec("matplotlib") is not None  # the bench extra; should be in the test env
    out_json, out_png = tmp_path / "b.json", tmp_path / "b.png"
    tasks = ["CartPole-v1"] + [t for t in ("Pong-v5",) if _has(t)]
    p = _bench(
        *tasks,
        "-n",
        "1",
        "4",
        "-b",
        "1",
        "2",
        "-t",
        "2",
        "-e",
        "envpool",
        "gymnasium-sync",
        "gymnasium-async",
        "ale-vector",
        "--json",
        str(out_json),
        *(["--plot", str(out_png)] if has_mpl else []),
        *TINY,
    )
    assert p.returncode == 0, p.stderr
    assert "steps/s" in p.stdout and "x envpool" in p.stdout and "machine:" in p.stdout
    assert ESC not in p.stdout
    assert p.stderr == ""  # --no-progress; no C library chatter from checking that gymnasium can make the envs
    rep = json.loads(out_json.read_text())
    _check_schema(rep)
    rows = {(r["task"], r["num_envs"], r["batch_size"], r["engine"]): r for r in rep["results"]}
    ours = rows[("CartPole-v1", 1, 1, "envpool")]
    assert ours["status"] == "ok" and ours["ratio_to_baseline"]["median"] == 1.0
    assert ours["us_per_call"]["median"] > 0
    assert rows[("CartPole-v1", 4, 2, "envpool")]["status"] == "ok"  # async
    assert rows[("CartPole-v1", 1, 1, "gymnasium-sync")]["status"] == "ok"
    assert rows[("CartPole-v1", 4, 2, "gymnasium-sync")]["status"] == "n/a"  # no async mode
    assert rows[("CartPole-v1", 1, 1, "gymnasium-async")]["status"] == "ok"
    if "Pong-v5" in tasks:
        for engine in ("envpool", "gymnasium-sync", "ale-vector"):
            r = rows[("Pong-v5", 1, 1, engine)]
            assert r["frame_skip"] == 4 and r["status"] == "ok", r
        assert rows[("Pong-v5", 4, 2, "ale-vector")]["status"] == "ok"
    if not has_mpl:
        pytest.skip("matplotlib missing: table and JSON checked, PNG not")
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_unavailable_engine_is_reported_not_fatal(tmp_path):
    out_json = tmp_path / "b.json"
    p = _bench(
        "CartPole-v1",
        "-n",
        "2",
        "-e",
        "envpool",
        "ale-vector",
        "--python",
        "/nonexistent/python",
        "--json",
        str(out_json),
        *TINY,
    )
    assert p.returncode == 0, p.stderr
    assert "ale-vector on CartPole-v1: Atari tasks only" in p.stdout
    assert "python:/nonexistent/python on CartPole-v1: no executable interpreter" in p.stdout
    rep = json.loads(out_json.read_text())
    _check_schema(rep)
    status = {r["engine"]: r["status"] for r in rep["results"]}
    assert status == {"envpool": "ok", "ale-vector": "n/a", "python:/nonexistent/python": "n/a"}


def test_other_interpreter_runs_the_standalone_worker(tmp_path):
    """--python runs worker.py by path; here with our own interpreter as the 'other' one."""
    out_json = tmp_path / "b.json"
    p = _bench("CartPole-v1", "-n", "2", "-e", "envpool", "--python", sys.executable, "--json", str(out_json), *TINY)
    assert p.returncode == 0, p.stderr
    rep = json.loads(out_json.read_text())
    other = [r for r in rep["results"] if r["engine"] == f"python:{sys.executable}"]
    assert other and other[0]["status"] == "ok", other
    assert other[0]["ratio_to_baseline"]["median"] > 0
    assert rep["interpreters"][f"python:{sys.executable}"]["envpool"]


# --- presets ----------------------------------------------------------------------------------------


def test_throughput_preset(tmp_path):
    """benchmarks/throughput.py (an envpool-bench preset); its own interpreter as the 'other' one."""
    out_json = tmp_path / "t.json"
    p = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "throughput.py"),
            "--seconds",
            "0.05",
            "--warmup",
            "0",
            "--repeats",
            "1",
            "--python",
            sys.executable,
            "--json",
            str(out_json),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ),
    )
    assert p.returncode == 0, p.stderr
    assert "x envpool" in p.stdout
    results = json.loads(out_json.read_text())["results"]
    assert [(r["num_envs"], r["batch_size"], r["mode"]) for r in results[::2]] == [
        (8, 8, "sync"),
        (64, 64, "sync"),
        (256, 128, "async"),
        (1, 1, "sync"),
    ]
    assert len(results) == 8 and all(r["steps_per_s"] and not r["errors"] for r in results), results
    latency = [r for r in results if r["num_envs"] == 1]
    assert all(r["us_per_call"] and r["num_threads"] == 1 for r in latency)


def test_atari_throughput_preset(tmp_path):
    """benchmarks/atari_throughput.py: envpool against the raw ceiling, ratios relative to raw."""
    if not _has("Pong-v5"):
        pytest.skip("Atari is not built")
    out_json = tmp_path / "a.json"
    p = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "atari_throughput.py"),
            "--num-envs",
            "2",
            "--seconds",
            "0.1",
            "--warmup",
            "0",
            "--rounds",
            "1",
            "--json",
            str(out_json),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ),
    )
    assert p.returncode == 0, p.stderr
    assert "x raw" in p.stdout
    rep = json.loads(out_json.read_text())
    assert rep["settings"]["baseline"] == "raw" and rep["settings"]["engines"] == ["envpool", "raw"]
    ratio = {r["engine"]: r["ratio_to_baseline"]["median"] for r in rep["results"]}
    assert ratio["raw"] == 1.0 and ratio["envpool"] > 0


def test_multi_task_pool_runs_in_the_envpool_engine(tmp_path):
    """A "+"-joined task is one multi-task pool (Atari games with the full action set)."""
    if "Atari" not in _envpool_families():
        pytest.skip("Atari family not built")
    from envpool.bench import main

    out = tmp_path / "multi.json"
    rc = main(
        [
            "Pong-v5+Breakout-v5",
            "-n",
            "4",
            "4",
            "-b",
            "4",
            "2",
            "-t",
            "2",
            "-s",
            "0.2",
            "-w",
            "0.05",
            "-r",
            "1",
            "-e",
            "envpool",
            "raw",
            "--no-progress",
            "--json",
            str(out),
        ]
    )
    assert rc == 0
    import json

    rows = json.loads(out.read_text())["results"]
    ran = [r for r in rows if r["engine"] == "envpool"]
    assert len(ran) == 2 and all(r["status"] == "ok" and r["steps_per_s"]["median"] > 0 for r in ran), ran
    assert all("multi-task" in (r["reason"] or "") for r in rows if r["engine"] == "raw")


def _envpool_families():
    from envpool import _envpool

    return _envpool.families()


@pytest.mark.slow
def test_multitask_atari_preset(tmp_path):
    """benchmarks/multitask_atari.py: 8 games x 8 envs, sync and async (batch 16)."""
    if not _has("Pong-v5"):
        pytest.skip("Atari is not built")
    out_json = tmp_path / "m.json"
    p = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "multitask_atari.py"),
            "--seconds",
            "0.2",
            "--warmup",
            "0",
            "--repeats",
            "1",
            "--json",
            str(out_json),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env=dict(os.environ),
    )
    assert p.returncode == 0, p.stderr
    rows = json.loads(out_json.read_text())["results"]
    assert sorted(r["batch_size"] for r in rows) == [16, 64] and all(r["status"] == "ok" for r in rows)
    assert all(r["task"].count("+") == 7 for r in rows)


def test_xla_engine_runs(tmp_path):
    """The xla engine: a jitted scan over xla()'s step (sync) and send/recv (async)."""
    pytest.importorskip("jax")
    from envpool.bench import main

    out = tmp_path / "x.json"
    args = ["CartPole-v1", "-n", "4", "4", "-b", "4", "2", "-t", "2", "-s", "0.2", "-w", "0.05", "-r", "1"]
    rc = main([*args, "-e", "xla", "--no-progress", "--json", str(out)])
    assert rc == 0
    rows = json.loads(out.read_text())["results"]
    assert len(rows) == 2 and all(r["status"] == "ok" and r["steps_per_s"]["median"] > 0 for r in rows), rows


def test_gymnasium_engines_run_gymnasiums_env_of_the_same_family() -> None:
    """EnvPool 1.2.5's older toy-text, Box2D and classic-control ids run gymnasium's current
    env (Taxi-v3 -> Taxi-v4), and its tabular/ and phys2d/ aliases gymnasium's toy-text and
    classic-control envs, not gymnasium's JAX functional envs that have the same ids."""
    import gymnasium
    from _registry import builtin_tasks, family, kind

    from envpool.bench.engines.gymnasium_vector import gym_id

    ids = [t for t in builtin_tasks("toy_text", "box2d", "classic_control") if family(t) not in ("NChain", "Catch")]
    assert len(ids) >= 27  # NChain and Catch are EnvPool's own: no gymnasium env
    for task in ids:
        entry = gymnasium.registry[gym_id(task)].entry_point
        assert entry.startswith(f"gymnasium.envs.{kind(task)}."), (task, entry)
