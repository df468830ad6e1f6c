"""How Box2D is obtained for the build (third_party/box2d/box2d.cmake): a local sdist named by
``ENVPOOL_BOX2D_SDIST`` is used instead of a download (offline builds, as
third_party/box2d/README.md says), unpacked into ``ENVPOOL_BOX2D_CACHE_DIR`` and patched so that
no Python call is left in Box2D's assertion. A CMake configure only (no compile)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RECIPE = ROOT / "third_party" / "box2d" / "box2d.cmake"
NAME = "box2d-py-2.3.8"


def _sdist(tmp_path: Path) -> Path:
    """The sdist the package's own build downloaded (build/<wheel tag>/_deps), else pip's."""
    found = sorted(ROOT.glob(f"build/*/_deps/box2d/download/{NAME}.tar.gz"))
    if found:
        return found[0]
    out = tmp_path / "pip"
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "box2d-py==2.3.8", "-d", out],
        capture_output=True,
        check=True,
        timeout=600,
    )
    return out / f"{NAME}.tar.gz"


@pytest.mark.slow  # a CMake configure (and maybe a pip download)
def test_a_local_sdist_is_used_without_a_download(tmp_path: Path) -> None:
    cmake = shutil.which("cmake")
    if cmake is None:
        pytest.skip("no cmake")
    sdist = tmp_path / "offline" / f"{NAME}.tar.gz"
    sdist.parent.mkdir()
    shutil.copy(_sdist(tmp_path), sdist)
    src = tmp_path / "project"
    src.mkdir()
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.20)\nproject(b2 LANGUAGES CXX)\n"
        f'include("{RECIPE.as_posix()}")\n'
        'get_target_property(_t envpool::box2d ALIASED_TARGET)\nmessage(STATUS "box2d target: ${_t}")\n'
    )
    cache = tmp_path / "cache"

    def configure(*defines: str) -> subprocess.CompletedProcess:
        build = tmp_path / f"build{len(defines)}"
        return subprocess.run(
            [cmake, "-S", src, "-B", build, *defines], capture_output=True, text=True, check=False, timeout=600
        )

    p = configure(f"-DENVPOOL_BOX2D_SDIST={sdist}", f"-DENVPOOL_BOX2D_CACHE_DIR={cache}")
    assert p.returncode == 0, p.stdout + p.stderr
    assert "box2d target: envpool_box2d" in p.stdout
    assert "Downloading" not in p.stdout and not (cache / "download").exists()
    settings = (cache / "src" / NAME / "Box2D" / "Common" / "b2Settings.h").read_text()
    assert "b2AssertException" in settings and "Py" not in settings  # patched: only the throw is left
    # A sdist that is not Box2D's is refused, naming what it lacks.
    bad = tmp_path / "bad" / f"{NAME}.tar.gz"
    bad.parent.mkdir()
    shutil.make_archive(str(bad).removesuffix(".tar.gz"), "gztar", root_dir=src)
    p = configure(f"-DENVPOOL_BOX2D_SDIST={bad}", f"-DENVPOOL_BOX2D_CACHE_DIR={tmp_path / 'cache2'}", "-Wno-dev")
    assert p.returncode != 0 and f"does not contain {NAME}/Box2D/Box2D.h" in p.stderr
