"""Families built out of tree against the installed SDK (envpool.cpp_extension, the CMake
package) and loaded at run time get everything a built-in family gets.

Everything is built in a fresh temporary folder from copies of the sources, against the
headers ``python -m envpool --include-dir`` names (those installed with the package, never
the source tree's). The grid world of examples/custom_env is checked against rewards and
frames worked out by hand; tests/api/cpp_extension/cartpole_copy.cc, a copy of the in-tree
CartPole, against the in-tree one bit for bit.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import envpool
from envpool import _envpool, cpp_extension

# One pytest-xdist worker runs this file in order, so its module fixtures (compiled
# builds) are made once: split across workers, each chunk of cases rebuilt them.
pytestmark = pytest.mark.xdist_group("cpp_extension")

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent
DATA = Path(__file__).resolve().parent / "cpp_extension"
EXAMPLE = ROOT / "examples" / "custom_env"
MAX_STEPS = 12  # the grid tasks' max_episode_steps
SIZE = 4


def _python(code: str, cwd: Path, env: dict | None = None, check: bool = True) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter (the installed envpool) in ``cwd``."""
    p = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=600,
        check=False,
    )
    if check:
        assert p.returncode == 0, p.stdout + p.stderr
    return p


def _register(task_id: str, family: str, **config: Any) -> str:
    if task_id not in envpool.list_all_envs():
        envpool.register(task_id, family, **config)
    return task_id


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    """A fresh folder holding copies of the sources (and, below it, the builds)."""
    d = tmp_path_factory.mktemp("cpp_extension")
    shutil.copy(EXAMPLE / "grid.cc", d / "grid.cc")
    shutil.copy(EXAMPLE / "CMakeLists.txt", d / "CMakeLists.txt")
    for f in DATA.iterdir():
        shutil.copy(f, d / f.name)
    return d


@pytest.fixture(scope="module")
def grid(work: Path):
    module = cpp_extension.load("grid", [work / "grid.cc"], build_directory=work / "builds" / "grid")
    _register("GridTest-v0", "Grid", max_episode_steps=MAX_STEPS, size=SIZE)
    _register("GridCostly-v0", "Grid", max_episode_steps=MAX_STEPS, size=SIZE, step_cost=0.5)
    return module


def _expected(agent: np.ndarray, action: np.ndarray, step_cost: float | np.ndarray = 0.1):
    """The grid's rules, by hand: walls stop a move; the far corner ends with reward 1."""
    moves = np.array([[-1, 0], [0, 1], [1, 0], [0, -1]])
    nxt = np.clip(agent + moves[action], 0, SIZE - 1)
    goal = (nxt == SIZE - 1).all(axis=1)
    return nxt, np.where(goal, 1.0, -np.asarray(step_cost)), goal


# -- the installed SDK ---------------------------------------------------------------


def test_sdk_is_installed_with_the_package(tmp_path: Path) -> None:
    inc = _python("import envpool.__main__ as m; m.main(['--include-dir'])", tmp_path).stdout.strip()
    cmake = _python("import envpool.__main__ as m; m.main(['--cmake-dir'])", tmp_path).stdout.strip()
    direct = subprocess.run(
        [sys.executable, "-m", "envpool", "--include-dir"], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert direct.stdout.strip() == inc == cpp_extension.include_dir()
    assert cmake == cpp_extension.cmake_dir()
    # The installed copies (site-packages/envpool, in the environment, which may itself lie in
    # the checkout: .ci/run's .venv), not the source tree.
    prefix = Path(sys.prefix).resolve()
    for installed in (Path(inc).resolve(), Path(cmake).resolve()):
        assert installed.is_relative_to(prefix) or not installed.is_relative_to(ROOT), installed
    headers = sorted(str(p.relative_to(inc)) for p in Path(inc).rglob("*") if p.is_file())
    # The env API and what it includes; no engine internals (pool.h, queues, ...).
    assert headers == [
        "cpp/core/abi.h",
        "cpp/core/env.h",
        "cpp/core/family.h",
        "cpp/core/spec.h",
        "cpp/core/version.h",
        "envpool/envpool.h",
    ]
    for h in ("env.h", "spec.h", "family.h"):
        assert (Path(inc) / "cpp/core" / h).read_text() == (ROOT / "cpp/core" / h).read_text()
    assert sorted(p.name for p in Path(cmake).iterdir()) == ["envpoolConfig.cmake", "envpoolConfigVersion.cmake"]
    assert f'"{envpool.__version__}"' in (Path(inc) / "cpp/core/version.h").read_text()
    assert _envpool.sdk_abi()["version"] == envpool.__version__
    abi = _python("import envpool.__main__ as m; m.main(['--abi'])", tmp_path).stdout.splitlines()
    assert abi[0] == _envpool.sdk_abi()["stamp"] and abi[0].startswith(f"envpool={envpool.__version__} sdk=1 ")


# -- the example, loaded with cpp_extension.load -------------------------------------


def test_load_registers_the_example(grid) -> None:
    assert cpp_extension.families(grid) == ["Grid"] == cpp_extension.families(grid.__file__)
    assert grid.__name__ == "grid" and Path(grid.__file__).suffix == ".so"
    assert grid.__file__ in cpp_extension.loaded_modules()
    assert cpp_extension.load_module(grid.__file__) is grid  # the same file: the same module
    meta = _envpool.families()["Grid"]
    assert meta["kind"] == "custom" and meta["task_module"] == "" and not meta["raw_ceiling"]
    assert dict(_envpool.family_defaults("Grid"))["step_cost"] == 0.1


def _rows(env_type: str, result: Any, reset: bool = False):
    """(agent, goal, distance, reward, terminated, truncated, env_id) of a result, any interface."""
    if env_type == "dm":
        o = result.observation
        last = np.asarray(result.step_type) == 2
        trunc = last & (np.asarray(result.discount) == 1.0)
        reward = np.zeros(len(o.env_id)) if reset else np.asarray(result.reward)
        return o.agent, o.goal, o.distance, reward, last & ~trunc, trunc, o.env_id
    if reset:
        obs, info = result
        n = len(info["env_id"])
        reward, term, trunc = np.zeros(n), np.zeros(n, bool), np.zeros(n, bool)
    else:
        obs, reward, term, trunc, info = result
    return obs["agent"], obs["goal"], info["distance"], reward, term, trunc, info["env_id"]


@pytest.mark.parametrize("env_type", ["gymnasium", "gym", "dm"])
@pytest.mark.parametrize("num_envs,batch_size", [(6, 6), (6, 3)])
def test_example_steps_by_hand(grid, env_type: str, num_envs: int, batch_size: int) -> None:
    """Every reward, observation and episode end is the grid's rules applied by hand,
    through the three interfaces, sync and async (batch_size < num_envs)."""
    envs = envpool.make("GridTest-v0", env_type=env_type, num_envs=num_envs, batch_size=batch_size, seed=3)
    rng = np.random.default_rng(0)
    agent, goal, dist, _, _, _, ids = _rows(env_type, envs.reset(), reset=True)
    assert len(ids) == batch_size
    pos = {int(i): a.copy() for i, a in zip(ids, agent)}
    steps = dict.fromkeys(pos, 0)
    np.testing.assert_array_equal(goal, np.full((batch_size, 2), SIZE - 1))
    np.testing.assert_array_equal(dist, (SIZE - 1 - agent).sum(axis=1))
    assert not ((agent == SIZE - 1).all(axis=1)).any()  # never starts on the goal
    done = dict.fromkeys(pos, False)
    sent: dict[int, int] = {}
    ended = 0
    for _ in range(60):
        action = rng.integers(0, 4, len(ids)).astype(np.int32)
        result = envs.step(action, ids)
        agent, goal, dist, reward, term, trunc, new_ids = _rows(env_type, result)
        if batch_size == num_envs:
            np.testing.assert_array_equal(new_ids, ids)
        sent.update(zip((int(i) for i in ids), action))  # async: a row may answer an earlier call
        for k, i in enumerate(int(i) for i in new_ids):
            if i not in pos:  # an env's first batch in async mode is its reset
                pos[i], steps[i], done[i] = agent[k].copy(), 0, False
                continue
            if done[i]:  # next_step autoreset: this row is the new episode's first
                assert reward[k] == 0 and not term[k] and not trunc[k]
                pos[i], steps[i], done[i] = agent[k].copy(), 0, False
                continue
            want_pos, want_reward, want_term = _expected(pos[i][None], np.array([sent.pop(i)]))
            steps[i] += 1
            np.testing.assert_array_equal(agent[k], want_pos[0])
            assert reward[k] == pytest.approx(want_reward[0], abs=1e-6)
            assert bool(term[k]) == bool(want_term[0])
            assert bool(trunc[k]) == (steps[i] == MAX_STEPS and not want_term[0])
            assert dist[k] == (SIZE - 1 - agent[k]).sum()
            pos[i], done[i] = agent[k].copy(), bool(term[k] or trunc[k])
            ended += done[i]
        ids = new_ids
    assert ended > 0
    envs.close()


def test_example_same_step_autoreset_and_multitask(grid) -> None:
    """same_step autoreset hands the final observation over; a multi-task pool mixes two
    tasks of the module's family (the same spec, another step_cost)."""
    envs = envpool.make(
        {"GridTest-v0": 3, "GridCostly-v0": 3}, env_type="gymnasium", num_envs=6, autoreset_mode="same_step", seed=1
    )
    obs, info = envs.reset()
    task = info["task_id"]
    cost = np.where(task == 0, 0.1, 0.5)
    assert sorted(task) == [0, 0, 0, 1, 1, 1]
    ends = 0
    for _ in range(30):
        action = np.full(6, 2, np.int32)  # down, then stuck against the wall: truncation or the goal
        action[obs["agent"][:, 0] == SIZE - 1] = 1
        want_pos, want_reward, want_term = _expected(obs["agent"], action, cost)
        obs, reward, term, trunc, info = envs.step(action)
        np.testing.assert_allclose(reward, want_reward, atol=1e-6)
        np.testing.assert_array_equal(term, want_term)
        done = term | trunc
        if done.any():
            np.testing.assert_array_equal(info["_final_obs"], done)
            for k in np.flatnonzero(done):  # gymnasium's layout: one final observation per env
                np.testing.assert_array_equal(info["final_obs"][k]["agent"], want_pos[k])
            ends += int(done.sum())
        np.testing.assert_array_equal(obs["agent"][~done], want_pos[~done])
    assert ends >= 6
    envs.close()


def test_example_renders(grid) -> None:
    envs = envpool.make("GridTest-v0", env_type="gymnasium", num_envs=2, render_mode="rgb_array", seed=5)
    obs, _ = envs.reset()
    frames = envs.render([0, 1])
    cell = 8
    assert frames.shape == (2, SIZE * cell, SIZE * cell, 3) and frames.dtype == np.uint8
    for frame, (r, c) in zip(frames, obs["agent"]):
        want = np.full((SIZE * cell, SIZE * cell, 3), 255, np.uint8)
        want[-cell:, -cell:] = (0, 255, 0)  # the goal
        want[r * cell : (r + 1) * cell, c * cell : (c + 1) * cell] = (255, 0, 0)  # the agent
        np.testing.assert_array_equal(frame, want)
    envs.close()


def test_example_xla(grid) -> None:
    jax = pytest.importorskip("jax")
    envs = envpool.make("GridTest-v0", env_type="gymnasium", num_envs=4, seed=2)
    ref = envpool.make("GridTest-v0", env_type="gymnasium", num_envs=4, seed=2)
    handle, recv, send, step = envs.xla()
    ref_obs, _ = ref.reset()
    envs.reset()
    action = np.array([1, 2, 3, 0], np.int32)
    handle, (obs, reward, term, trunc, info) = jax.jit(step)(handle, action)
    want = ref.step(action)
    np.testing.assert_array_equal(np.asarray(obs["agent"]), want[0]["agent"])
    np.testing.assert_array_equal(np.asarray(reward), want[1].astype(np.float32))
    envs.close()
    ref.close()


def test_example_gymnasium_registry(grid) -> None:
    import gymnasium

    envs = gymnasium.make_vec("envpool/GridTest-v0", num_envs=2)
    obs, _ = envs.reset(seed=0)
    assert obs["agent"].shape == (2, 2)
    envs.close()


# -- the error model -----------------------------------------------------------------


@pytest.fixture(scope="module")
def faults(work: Path):
    module = cpp_extension.load("faults", [work / "faults.cc"], build_directory=work / "builds" / "faults")
    _register("FaultyTest-v0", "Faulty")
    return module


@pytest.mark.parametrize("action,error", [(1, ValueError), (2, IndexError), (3, RuntimeError)])
def test_a_throwing_step_keeps_its_exception_type(faults, action: int, error: type) -> None:
    envs = envpool.make("FaultyTest-v0", env_type="gymnasium", num_envs=3)
    envs.reset()
    with pytest.raises(error, match="faulty") as e:
        envs.step(np.array([0, action, 0], np.int32))
    assert list(e.value.failed_env_ids) == [1]
    envs.reset()  # the pool stays usable
    obs, *_ = envs.step(np.zeros(3, np.int32))
    np.testing.assert_array_equal(obs, np.ones((3, 1), np.float32))
    envs.close()


def test_several_failures_raise_as_the_first_row_whichever_thread_failed_first(faults) -> None:
    """Env 0 throws std::out_of_range 50 ms into its step, env 7 std::invalid_argument at once, on
    the other thread: the call raises env 0's IndexError and lists the failed envs in row order (the
    order the threads met them made it env 7's ValueError)."""
    envs = envpool.make("FaultyTest-v0", env_type="gymnasium", num_envs=8, num_threads=2)
    envs.reset()
    for _ in range(3):
        with pytest.raises(IndexError, match=r"^envs 0, 7 failed: faulty: out of range, late$") as e:
            envs.step(np.array([4, 0, 0, 0, 0, 0, 0, 1], np.int32))
        assert list(e.value.failed_env_ids) == [0, 7]
        envs.step(np.zeros(8, np.int32))  # resets the failed envs
    # Rows follow the env ids as sent: env 7's row comes first here, so its ValueError is raised.
    with pytest.raises(ValueError, match=r"^envs 7, 0 failed") as e:
        envs.step(np.array([1, 4], np.int32), env_id=[7, 0])
    assert list(e.value.failed_env_ids) == [7, 0]
    envs.close()


def test_async_failures_come_in_the_batchs_row_order(faults) -> None:
    """In async mode rows are in finishing order: the failed envs are listed, and the first one's
    exception raised, in that order too."""
    envs = envpool.make("FaultyTest-v0", env_type="gymnasium", num_envs=8, batch_size=4, num_threads=2)
    envs.async_reset()
    rng = np.random.default_rng(0)
    ids = envs.recv()[-1]["env_id"]
    several, sent = 0, {}  # env id -> its last action (a batch can hold envs of an earlier send)
    for _ in range(400):
        action = rng.choice([0, 0, 0, 1, 2], size=len(ids)).astype(np.int32)
        sent.update(zip(ids.tolist(), action.tolist()))
        envs.send(action, ids)
        try:
            ids = envs.recv()[-1]["env_id"]
            continue
        except (ValueError, IndexError) as e:
            err = e
        rows = err.result[-1]["env_id"].tolist()
        failed = err.failed_env_ids.tolist()
        assert failed == [i for i in rows if i in failed]
        assert type(err) is (ValueError if sent[failed[0]] == 1 else IndexError)
        several += len(failed) > 1
        ids = np.asarray(rows, np.int32)
    assert several > 10
    envs.close()


def test_a_raw_ceiling_and_the_engine_keys(faults) -> None:
    assert _envpool.families()["Faulty"]["raw_ceiling"]
    assert _envpool.raw_ceiling("Faulty", {}, 1, 0.05) > 0
    with pytest.raises(TypeError, match="unknown config key 'size' for Faulty"):
        envpool.make("FaultyTest-v0", env_type="gym", num_envs=1, size=3)


def test_a_taken_family_name_is_a_value_error(tmp_path: Path, grid) -> None:
    """Another file (a copy of the loaded build) registering Grid again is refused whole."""
    before = dict(_envpool.families())
    copy = tmp_path / "grid_copy.so"
    shutil.copy(grid.__file__, copy)
    with pytest.raises(
        ValueError, match=rf"family 'Grid' is already registered \(by envpool extension '{grid.__file__}'"
    ):
        cpp_extension.load_module(copy)
    assert dict(_envpool.families()) == before
    assert str(copy) not in cpp_extension.loaded_modules()


@pytest.mark.slow  # two builds
def test_a_built_in_name_or_a_throwing_registration_is_a_value_error(work: Path, grid) -> None:
    before = dict(_envpool.families())
    loaded = cpp_extension.loaded_modules()
    with pytest.raises(ValueError, match=r"family 'CartPole' is already registered \(built in\)"):
        cpp_extension.load(
            "faults_cartpole", [work / "faults.cc"], ['-DFAULTS_FAMILY="CartPole"'], work / "builds" / "dup1"
        )
    with pytest.raises(ValueError, match="faulty: refusing to register"):
        cpp_extension.load("faults_throw", [work / "faults.cc"], ["-DFAULTS_REGISTER_THROWS"], work / "builds" / "dup2")
    assert dict(_envpool.families()) == before  # nothing of a refused module registered
    assert cpp_extension.loaded_modules() == loaded


def test_the_abi_guard_refuses_another_version(work: Path, grid) -> None:
    ours = _envpool.sdk_abi()["stamp"]
    with pytest.raises(ImportError) as e:
        cpp_extension.load("grid_old", [work / "grid.cc"], ['-DENVPOOL_VERSION="0.0.1"'], work / "builds" / "old")
    msg = str(e.value)
    assert "built for [envpool=0.0.1 sdk=1" in msg and f"this envpool is [{ours}]" in msg
    assert "rebuild it" in msg and "--cmake-dir" in msg
    assert "Grid" in _envpool.families()  # the loaded build stays


def test_a_module_of_another_compiler_major_is_told_what_to_do() -> None:
    """A binary wheel's user whose compiler has another major version than the one envpool was
    built with: the refusal names the compiler to use (CXX / CMAKE_CXX_COMPILER, the Debian
    package) and the other way out, building envpool with their compiler."""
    ours = _envpool.sdk_abi()["stamp"]
    family, major = re.search(r"compiler=(\w+)-(\d+)", ours).groups()
    theirs = ours.replace(f"compiler={family}-{major}", f"compiler={family}-{int(major) + 1}")
    msg = _envpool.abi_mismatch("/x/grid.so", theirs, "their version")
    cxx = {"gcc": "g++", "clang": "clang++"}[family] + f"-{major}"
    assert f"built for [{theirs}] (their version), but this envpool is [{ours}]" in msg
    assert f"CXX={cxx}" in msg and f"-DCMAKE_CXX_COMPILER={cxx}" in msg
    assert "pip install --no-binary envpool envpool" in msg
    # another mismatch (a version) keeps the generic advice
    other = _envpool.abi_mismatch("/x/grid.so", ours.replace("sdk=1", "sdk=2"), "v")
    assert "--no-binary" not in other and "rebuild it against this envpool" in other


@pytest.mark.slow  # a build
def test_a_task_module_is_imported_on_load(work: Path, tmp_path: Path) -> None:
    (tmp_path / "faulty_tasks.py").write_text("import envpool\nenvpool.register('FaultyAuto-v0', 'FaultyTM')\n")
    sys.path.insert(0, str(tmp_path))
    try:
        flags = ['-DFAULTS_FAMILY="FaultyTM"', '-DFAULTS_TASK_MODULE="faulty_tasks"']
        cpp_extension.load("faults_tm", [work / "faults.cc"], flags, work / "builds" / "tm")
    finally:
        sys.path.remove(str(tmp_path))
    assert _envpool.families()["FaultyTM"]["task_module"] == "faulty_tasks"
    assert "FaultyAuto-v0" in envpool.list_all_envs()
    envpool.make("FaultyAuto-v0", env_type="gym", num_envs=1).close()


@pytest.mark.slow  # a build
def test_the_abi_guard_refuses_another_string_abi(work: Path, grid) -> None:
    with pytest.raises(ImportError, match=r"built for \[envpool=\S+ sdk=1 compiler=\S+ gxx_abi=\d+ cxx11_abi=0 "):
        cpp_extension.load("grid_abi0", [work / "grid.cc"], ["-D_GLIBCXX_USE_CXX11_ABI=0"], work / "builds" / "abi0")


@pytest.mark.slow  # two builds
def test_not_an_extension_is_an_import_error(tmp_path: Path) -> None:
    lib = tmp_path / "plain.so"
    (tmp_path / "plain.cc").write_text('extern "C" int plain() { return 1; }\n')
    subprocess.run(["c++", "-shared", "-fPIC", str(tmp_path / "plain.cc"), "-o", str(lib)], check=True)
    with pytest.raises(ImportError, match="is not an envpool extension"):
        cpp_extension.load_module(lib)
    empty = tmp_path / "empty.cc"
    empty.write_text("#include <envpool/envpool.h>\n")
    with pytest.raises(ImportError, match="registers no family"):
        cpp_extension.load("empty", [empty], build_directory=tmp_path / "build")
    with pytest.raises(FileNotFoundError):
        cpp_extension.load_module(tmp_path / "missing.so")


@pytest.mark.slow  # a build in a fresh interpreter
def test_the_example_script_runs(tmp_path: Path) -> None:
    shutil.copy(EXAMPLE / "run_grid.py", tmp_path)
    shutil.copy(EXAMPLE / "grid.cc", tmp_path)
    out = _python(
        """
        import json, run_grid
        print(json.dumps(run_grid.main(["--num-envs", "4", "--steps", "60", "--build-directory", "build"])))
        """,
        tmp_path,
        env={"PYTHONSAFEPATH": ""},
    )
    means = json.loads(out.stdout.strip().splitlines()[-1])
    assert -0.1 * 50 <= means["random"] <= 1.0
    assert 1 - 0.1 * 7 <= means["greedy"] <= 1.0  # the goal in at most 8 moves on a 5 x 5 grid


def test_a_compile_error_carries_the_compilers_first_error(tmp_path: Path) -> None:
    src = tmp_path / "broken.cc"
    src.write_text("#include <envpool/envpool.h>\n\nint f() { return undeclared_thing; }\n")
    with pytest.raises(cpp_extension.BuildError) as e:
        cpp_extension.load("broken", [src], build_directory=tmp_path / "build")
    msg = str(e.value)
    assert "broken.cc:3:" in msg and "error:" in msg and "undeclared_thing" in msg
    assert isinstance(e.value, RuntimeError) and "undeclared_thing" in e.value.log
    assert not list((tmp_path / "build").glob("*.so"))


@pytest.mark.slow  # two builds
def test_an_undefined_symbol_fails_the_link_and_key_checks_come_back_with_undebug(work: Path, tmp_path: Path) -> None:
    src = tmp_path / "undefined.cc"
    src.write_text("#include <envpool/envpool.h>\n\nint missing();\nint f() { return missing(); }\n")
    with pytest.raises(cpp_extension.BuildError, match=r"(?s)failed \(linking\).*undefined reference to .missing\(\)"):
        cpp_extension.load("undefined", [src], build_directory=tmp_path / "build")
    flags = ['-DFAULTS_FAMILY="FaultyKey"', "-DFAULTS_MISUSE_KEY", "-UNDEBUG"]
    cpp_extension.load("faults_key", [work / "faults.cc"], flags, work / "builds" / "key")
    _register("FaultyKey-v0", "FaultyKey")
    envs = envpool.make("FaultyKey-v0", env_type="gym", num_envs=1)
    envs.reset()
    with pytest.raises(RuntimeError, match="state key 0 holds float32, accessed as float64"):
        envs.step(np.zeros(1, np.int32))
    envs.close()


# -- caching, across processes ---------------------------------------------------------

_LOAD = """
    import json, os
    from envpool import cpp_extension
    m = cpp_extension.load("grid", ["grid.cc"], build_directory="cache")
    print(json.dumps({"path": m.__file__, "built": m.built, "mtime": os.stat(m.__file__).st_mtime_ns}))
"""


@pytest.mark.slow  # three interpreters, two builds
def test_load_rebuilds_only_when_a_source_changes(tmp_path: Path) -> None:
    shutil.copy(EXAMPLE / "grid.cc", tmp_path / "grid.cc")

    def load() -> dict:
        return json.loads(_python(_LOAD, tmp_path).stdout.strip().splitlines()[-1])

    first = load()
    assert first["built"]
    again = load()
    assert not again["built"] and again["path"] == first["path"] and again["mtime"] == first["mtime"]
    assert len(list((tmp_path / "cache").glob("grid_*.so"))) == 1
    src = tmp_path / "grid.cc"
    src.write_text(src.read_text().replace('{"step_cost", 0.1}', '{"step_cost", 0.25}'))
    edited = load()
    assert edited["built"] and edited["path"] != first["path"]
    out = _python(
        f"""
        import envpool
        from envpool import cpp_extension
        cpp_extension.load_module({edited["path"]!r})
        print(dict(envpool._envpool.family_defaults("Grid"))["step_cost"])
        """,
        tmp_path,
    )
    assert out.stdout.strip() == "0.25"


@pytest.mark.slow  # two interpreters, one build
def test_processes_loading_at_once_build_once(tmp_path: Path) -> None:
    shutil.copy(EXAMPLE / "grid.cc", tmp_path / "grid.cc")
    env = {**os.environ}
    procs = [
        subprocess.Popen([sys.executable, "-c", textwrap.dedent(_LOAD)], cwd=tmp_path, env=env, stdout=subprocess.PIPE)
        for _ in range(2)
    ]
    outs = [json.loads(p.communicate(timeout=600)[0].decode().strip().splitlines()[-1]) for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert sorted(o["built"] for o in outs) == [False, True]  # the second waited for the first's build
    assert outs[0]["path"] == outs[1]["path"]


@pytest.mark.slow  # a CMake configure and build
def test_cmake_find_package_builds_the_example(tmp_path: Path) -> None:
    cmake = shutil.which("cmake")
    if cmake is None:
        pytest.skip("no cmake")
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(EXAMPLE / "grid.cc", src)
    shutil.copy(EXAMPLE / "CMakeLists.txt", src)
    cmake_dir = subprocess.run(
        [sys.executable, "-m", "envpool", "--cmake-dir"], cwd=tmp_path, capture_output=True, text=True, check=True
    ).stdout.strip()
    gen = ["-G", "Ninja"] if shutil.which("ninja") else []
    for cmd in (
        [cmake, "-S", str(src), "-B", str(tmp_path / "build"), *gen, f"-Denvpool_DIR={cmake_dir}"],
        [cmake, "--build", str(tmp_path / "build")],
    ):
        p = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, check=False)
        assert p.returncode == 0, p.stdout + p.stderr
    lib = tmp_path / "build" / "grid.so"
    out = _python(
        f"""
        import json, numpy as np, envpool
        from envpool import cpp_extension
        m = cpp_extension.load_module({str(lib)!r})
        assert cpp_extension.families(m) == ["Grid"], m.families
        envpool.register("Grid-v0", "Grid", max_episode_steps=5)
        envs = envpool.make("Grid-v0", env_type="gymnasium", num_envs=2, seed=0, size=4)
        obs, _ = envs.reset()
        after, reward, *_ = envs.step(np.array([1, 2], np.int32))
        print(json.dumps([obs["agent"].tolist(), after["agent"].tolist(), reward.tolist()]))
        """,
        tmp_path,
    )
    before, after, reward = (np.array(x) for x in json.loads(out.stdout.strip().splitlines()[-1]))
    want_pos, want_reward, _ = _expected(before, np.array([1, 2]))
    np.testing.assert_array_equal(after, want_pos)
    np.testing.assert_allclose(reward, want_reward, atol=1e-6)
    # find_package takes only this very version (ExactVersion) ...
    other = tmp_path / "other"
    other.mkdir()
    shutil.copy(src / "grid.cc", other)
    (other / "CMakeLists.txt").write_text(
        (src / "CMakeLists.txt").read_text().replace("find_package(envpool CONFIG", "find_package(envpool 0.0.1 CONFIG")
    )
    p = subprocess.run(
        [cmake, "-S", str(other), "-B", str(tmp_path / "b2"), *gen, f"-Denvpool_DIR={cmake_dir}"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert p.returncode != 0 and "0.0.1" in p.stderr and envpool.__version__ in p.stderr, p.stderr
    # ... and warns at configure time when the compiler is not the engine's.
    package = tmp_path / "fake_package"  # the installed layout, with another compiler recorded
    fake = package / "share" / "cmake" / "envpool"
    shutil.copytree(cmake_dir, fake)
    (package / "include").symlink_to(cpp_extension.include_dir())
    config = fake / "envpoolConfig.cmake"
    config.write_text(
        re.sub(r'envpool_CXX_COMPILER_VERSION "[^"]*"', 'envpool_CXX_COMPILER_VERSION "1.0.0"', config.read_text())
    )
    p = subprocess.run(
        [cmake, "-S", str(src), "-B", str(tmp_path / "b3"), *gen, f"-Denvpool_DIR={fake}"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert p.returncode == 0 and "envpool was built with" in p.stderr and "1.0.0" in p.stderr, p.stderr


# -- the out-of-tree CartPole ------------------------------------------------------------


@pytest.fixture(scope="module")
def cartpole_copy(work: Path):
    module = cpp_extension.load("cartpole_copy", [work / "cartpole_copy.cc"], build_directory=work / "builds" / "cp")
    _register("CartPoleCopy-v1", "CartPoleCopy", max_episode_steps=500)
    return module


@pytest.mark.slow  # a build and 2 x 3000 steps
@pytest.mark.parametrize("autoreset_mode", ["next_step", "same_step"])
def test_out_of_tree_cartpole_follows_the_in_tree_one_bit_for_bit(cartpole_copy, autoreset_mode: str) -> None:
    kw = {"num_envs": 8, "seed": 7, "expose_state": True, "autoreset_mode": autoreset_mode}
    ours = envpool.make("CartPoleCopy-v1", env_type="gymnasium", **kw)
    ref = envpool.make("CartPole-v1", env_type="gymnasium", **kw)
    a, b = ours.reset(), ref.reset()
    _assert_same(a, b)
    rng = np.random.default_rng(1)
    ends = 0
    for _ in range(3000):
        action = rng.integers(0, 2, 8).astype(np.int32)
        a, b = ours.step(action), ref.step(action)
        _assert_same(a, b)
        ends += int((a[2] | a[3]).sum())
    assert ends > 50
    # ... and a multi-task pool takes both (the same spec, from two modules).
    mixed = envpool.make(["CartPole-v1", "CartPoleCopy-v1"], env_type="gymnasium", num_envs=4, seed=7)
    obs, info = mixed.reset()
    assert sorted(info["task_id"]) == [0, 0, 1, 1]
    mixed.close()
    ours.close()
    ref.close()


def _assert_same(a: tuple, b: tuple) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b):
        if isinstance(x, dict):
            assert x.keys() == y.keys()
            for k in x:
                _assert_same((x[k],), (y[k],))
        elif x is None or y is None:
            assert x is None and y is None
        else:
            x, y = np.asarray(x), np.asarray(y)
            assert x.dtype == y.dtype and x.shape == y.shape
            if x.dtype == object:  # gymnasium's final_obs: an observation (or None) per env
                _assert_same(tuple(x), tuple(y))
            else:
                assert x.tobytes() == y.tobytes()


# -- other processes: Ray actors, envpool-bench workers --------------------------------------


@pytest.mark.slow  # starts Ray
def test_ray_actors_load_the_module(grid) -> None:
    ray = pytest.importorskip("ray")
    import envpool.ray

    ray.init(address="local", num_cpus=2, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
    try:
        envs = envpool.ray.make("GridTest-v0", env_type="gymnasium", num_envs=4, num_actors=2, seed=3)
        local = envpool.make("GridTest-v0", env_type="gymnasium", num_envs=4, seed=3)
        _assert_same(envs.reset()[0], local.reset()[0])
        for _ in range(20):
            action = np.array([0, 1, 2, 3], np.int32)
            _assert_same(envs.step(action)[:4], local.step(action)[:4])
        envs.close()
        local.close()
    finally:
        ray.shutdown()


@pytest.mark.slow  # bench worker processes
def test_bench_workers_load_the_module(grid, tmp_path: Path) -> None:
    from envpool.bench import main

    out = tmp_path / "bench.json"
    argv = ["GridTest-v0", "-n", "4", "-e", "envpool", "-s", "0.2", "-w", "0.05", "-r", "1", "-t", "1"]
    assert main([*argv, "--json", str(out), "--no-progress"]) == 0
    results = json.loads(out.read_text())["results"]
    assert len(results) == 1 and results[0]["status"] == "ok", results
    assert results[0]["family"] == "Grid" and results[0]["steps_per_s"]["median"] > 0
