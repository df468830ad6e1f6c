"""The sdist holds sources only: no built wheels (dist/, wheelhouse/), build folders, venvs or
compiled libraries, even when the tree it is made from has them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Files a finished build or test run leaves in a checkout (tools/test_wheel.sh, pip wheel, venvs).
LITTER = [
    "dist/envpool-0.1.0-cp311-cp311-linux_x86_64.whl",
    "wheelhouse/envpool-0.1.0-cp311-cp311-manylinux_2_34_x86_64.whl",
    "build/cp311-cp311-linux_x86_64/CMakeCache.txt",
    ".venv/bin/python",
    ".venv-build/wheel.log",
    "src/envpool/_envpool.cpython-311-x86_64-linux-gnu.so",
    "docs/_build/html/index.html",
]


def tracked_files() -> list[str]:
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the tracked files are unknown")
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [f for f in out.splitlines() if (ROOT / f).is_file()]


def sdist_members(tree: Path, out: Path) -> list[str]:
    # scikit-build-core's build_sdist, as pip or `python -m build --sdist` calls it.
    code = "import sys, scikit_build_core.build as b; print(b.build_sdist(sys.argv[1]))"
    proc = subprocess.run([sys.executable, "-c", code, str(out)], cwd=tree, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    name = proc.stdout.strip().splitlines()[-1]
    with tarfile.open(out / name) as tar:
        prefix = name[: -len(".tar.gz")] + "/"
        return sorted(m.name[len(prefix) :] for m in tar.getmembers() if m.isfile())


@pytest.fixture(scope="module")
def litter_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tree = tmp_path_factory.mktemp("tree")
    for f in tracked_files():
        (tree / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / f, tree / f)
    for f in LITTER:
        (tree / f).parent.mkdir(parents=True, exist_ok=True)
        (tree / f).write_bytes(b"litter")
    return tree


def test_sdist_holds_the_sources_and_nothing_else(litter_tree: Path, tmp_path: Path) -> None:
    members = sdist_members(litter_tree, tmp_path)
    tracked = set(tracked_files())
    assert [m for m in members if m not in tracked and m != "PKG-INFO"] == []
    for needed in ("pyproject.toml", "CMakeLists.txt", "src/envpool/__init__.py", "cpp/core/env.h", "README.md"):
        assert needed in members


def test_the_sdist_check_sees_litter(litter_tree: Path, tmp_path: Path) -> None:
    # The check itself: without the exclusions (.gitignore's and pyproject's), the litter is packed.
    tree = tmp_path / "bare"
    shutil.copytree(litter_tree, tree)
    (tree / ".gitignore").write_text("")
    text = (tree / "pyproject.toml").read_text()
    start = text.index("[tool.scikit-build.sdist]")
    end = text.index("\n[", start + 1)
    (tree / "pyproject.toml").write_text(text[:start] + text[end + 1 :])
    os.makedirs(tmp_path / "out")
    members = sdist_members(tree, tmp_path / "out")
    assert "dist/envpool-0.1.0-cp311-cp311-linux_x86_64.whl" in members
