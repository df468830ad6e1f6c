"""CONTRIBUTING.md's "Adding a family" lists every place a new family needs: this copies the
repository into a temporary folder, writes the section's blocks into the files their first lines
name (appending to the root CMakeLists.txt), builds the extension (without the families that need
third-party downloads) and makes the new family's task through envpool.make."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("adding_a_family")]  # a build: minutes


def _section_blocks() -> list[tuple[str, str]]:
    """(path, text) of each fenced block of the section, the path read from its first line."""
    text = (ROOT / "CONTRIBUTING.md").read_text()
    section = text.split("\n## Adding a family\n", 1)[1].split("\n## ", 1)[0]
    out = []
    for m in re.finditer(r"^( *)```\w*\n(.*?)^\1```", section, re.S | re.M):
        body = textwrap.dedent(m.group(2))
        first, rest = body.split("\n", 1)
        path = re.sub(r"^(//|#)\s*", "", first).strip()
        out.append((path, rest))
    return out


def test_the_section_names_its_files() -> None:
    paths = [p for p, _ in _section_blocks()]
    assert paths == [
        "cpp/counter/counter.h",
        "cpp/counter/register.cc",
        "cpp/counter/CMakeLists.txt",
        "CMakeLists.txt",
        "src/envpool/tasks/counter.py",
    ]


@pytest.mark.skipif(shutil.which("cmake") is None or shutil.which("ninja") is None, reason="needs cmake and ninja")
def test_a_family_added_as_the_section_says_builds_and_runs(tmp_path: Path) -> None:
    import pybind11

    src = tmp_path / "src"
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    for f in files:
        if (ROOT / f).is_file() and (f.startswith(("cpp/", "third_party/", "cmake/", "src/")) or f == "CMakeLists.txt"):
            (src / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / f, src / f)
    for path, body in _section_blocks():
        target = src / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists():  # the root CMakeLists.txt: the line joins the others
            target.write_text(target.read_text() + body)
        else:
            target.write_text(body)
    build = tmp_path / "build"
    launcher = ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"] if shutil.which("ccache") else []
    env = {**os.environ, "CCACHE_BASEDIR": str(tmp_path)}
    configure = [
        "cmake", "-S", str(src), "-B", str(build), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
        f"-DPython_EXECUTABLE={sys.executable}", f"-Dpybind11_DIR={pybind11.get_cmake_dir()}",
        "-DENVPOOL_ATARI=OFF", "-DENVPOOL_MUJOCO=OFF", "-DENVPOOL_BOX2D=OFF", *launcher,
    ]  # fmt: skip
    for cmd in (configure, ["cmake", "--build", str(build), "-j2"]):
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
        assert p.returncode == 0, (p.stdout + p.stderr)[-6000:]
    (so,) = build.glob("_envpool*.so")
    package = src / "src"  # the folder holding the envpool package
    shutil.copy2(so, package / "envpool" / so.name)
    code = """
        import os
        import numpy as np
        import envpool
        assert envpool.__file__.startswith(os.environ["PYTHONPATH"]), envpool.__file__
        assert "Counter-v0" in envpool.list_all_envs()
        env = envpool.make("Counter-v0", "gymnasium", num_envs=2, goal=2)
        obs, _ = env.reset()
        assert obs.tolist() == [0, 0]
        obs, rew, term, trunc, _ = env.step(np.array([1, 0]))
        assert obs.tolist() == [1, 0] and rew.tolist() == [1.0, 1.0] and not term.any()
        obs, rew, term, trunc, _ = env.step(np.array([1, 1]))
        assert obs.tolist() == [2, 1] and term.tolist() == [True, False]
        print("counter ok")
    """
    p = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(package), "PYTHONSAFEPATH": "1"},
        timeout=600,
        check=False,
    )
    assert p.returncode == 0 and "counter ok" in p.stdout, p.stdout + p.stderr
