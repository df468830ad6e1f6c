"""A new user's first commands, from where the docs say to run them: Python started in the
checkout's root (a REPL, `python -c`, a script saved there) imports the installed envpool, and
`python -m envpool --cmake-dir` (docs/cpp_envs.md's CMake recipe, run from the root) names the
installed SDK. The src layout keeps the source package out of the root's sys.path entry."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import envpool

ROOT = Path(__file__).resolve().parents[2]
INSTALLED = Path(envpool.__file__).resolve().parent


def run_in_root(*args: str) -> subprocess.CompletedProcess:
    # As a user's shell has it: the current directory first on sys.path (the suite's
    # conftest sets PYTHONSAFEPATH for its own subprocesses; a user has none).
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONSAFEPATH", "PYTHONPATH")}
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def test_python_in_the_checkout_imports_the_installed_package() -> None:
    assert not (ROOT / "envpool").exists()  # nothing in the root shadows the installed package
    proc = run_in_root(
        "-c", "import envpool; print(envpool.__file__); envpool.make('CartPole-v1', env_type='gymnasium', num_envs=1)"
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert Path(proc.stdout.strip().splitlines()[-1]).resolve().parent == INSTALLED


def test_a_script_saved_in_the_checkout_runs(tmp_path: Path) -> None:
    script = ROOT / f"_first_run_{os.getpid()}.py"
    script.write_text("import envpool\nprint(envpool.__file__)\n")
    try:
        proc = run_in_root(script.name)
    finally:
        script.unlink()
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert Path(proc.stdout.strip()).resolve().parent == INSTALLED


def test_cmake_dir_from_the_root_names_the_installed_sdk() -> None:
    proc = run_in_root("-m", "envpool", "--cmake-dir")
    assert proc.returncode == 0, proc.stderr[-3000:]
    cmake_dir = Path(proc.stdout.strip())
    assert cmake_dir.is_relative_to(INSTALLED), cmake_dir
    assert (cmake_dir / "envpoolConfig.cmake").is_file()
