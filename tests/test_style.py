"""The style configs stay applied: ruff (lint + format) over the Python, mypy over the package,
clang-format over the C++, and the generic C++ (core, binding, header-only families) compiles
without a warning under -Wall -Wextra. The tools come with the test extra."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _tracked(*patterns: str) -> list[str]:
    out = subprocess.run(["git", "ls-files", *patterns], cwd=ROOT, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        pytest.skip("not a git checkout (an sdist has no file list to check)")
    return [f for f in out.stdout.split() if (ROOT / f).exists()]


def _tool(name: str) -> str:
    path = shutil.which(name) or str(Path(sys.executable).parent / name)
    if not Path(path).exists():
        pytest.fail(f"{name} is not installed: pip install '.[test]'")
    return path


def test_python_is_ruff_clean() -> None:
    files = _tracked("*.py")
    lint = subprocess.run([_tool("ruff"), "check", *files], cwd=ROOT, capture_output=True, text=True, check=False)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    fmt = subprocess.run(
        [_tool("ruff"), "format", "--check", *files], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert fmt.returncode == 0, fmt.stdout + fmt.stderr


def test_cpp_is_clang_formatted() -> None:
    files = _tracked("cpp/*.h", "cpp/*.cc", "tests/core/cpp/*.cc")
    out = subprocess.run(
        [_tool("clang-format"), "--dry-run", "--Werror", *files], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr[-4000:]


@pytest.mark.slow  # ~40 s of CPU on a cold cache (a few seconds once .mypy_cache holds it)
def test_package_type_checks() -> None:
    """mypy with the committed configuration (pyproject.toml's [tool.mypy]: src/envpool, the
    extension typed by src/envpool/_envpool.pyi) finds no error."""
    if importlib.util.find_spec("mypy") is None:
        pytest.fail("mypy is not installed: pip install '.[test]'")
    out = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert out.returncode == 0 and "Success: no issues found" in out.stdout, (out.stdout + out.stderr)[-6000:]


@pytest.mark.slow  # ~15 s of compiling
def test_generic_cpp_compiles_without_warnings() -> None:
    """The parts that need no third-party headers: the engine, the binding and the header-only
    families (Atari and MuJoCo build with the same flags, see CMakeLists.txt)."""
    import pybind11

    cxx = shutil.which("g++") or shutil.which("c++")
    if cxx is None:
        pytest.fail("no C++ compiler")
    sources = ["cpp/binding/module.cc", "cpp/classic_control/register.cc", "cpp/testing/register.cc"]
    for src in sources:
        cmd = [
            cxx,
            "-std=c++20",
            "-fsyntax-only",
            "-Wall",
            "-Wextra",
            "-Werror",
            f"-I{ROOT}",
            f"-isystem{pybind11.get_include()}",
            f"-isystem{sysconfig.get_paths()['include']}",
            src,
        ]
        out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)
        assert out.returncode == 0, f"{src}:\n{out.stderr[-4000:]}"
