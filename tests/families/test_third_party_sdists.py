"""How the sdists that ALE and Box2D are built from are obtained (third_party/ale/ale.cmake,
third_party/box2d/box2d.cmake): a local sdist named by ``ENVPOOL_<LIB>_SDIST`` is used instead
of a download (offline builds, as the READMEs in third_party/ say) and unpacked into
``ENVPOOL_<LIB>_CACHE_DIR``; Box2D's is patched so that no Python call is left in its assertion
and its profiling timer reads no clock; a sdist that lacks the library is refused. CMake
configures only (ALE itself is built at build time, by ExternalProject): no compile. And the
built extension's Box2D steps read no clock (third_party/box2d/README.md)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# lib: (recipe, sdist name, the target it defines, a file of the unpacked source, pip's argument)
LIBS = {
    "box2d": ("box2d.cmake", "box2d-py-2.3.8", "envpool_box2d", "Box2D/Box2D.h", "box2d-py==2.3.8"),
    "ale": ("ale.cmake", "ale_py-0.12.1", "envpool_ale", "src/ale/ale_interface.hpp", None),
}


def _built_sdist(lib: str, name: str) -> Path | None:
    """The sdist that this checkout's own build used: in the cache directory its CMakeCache names."""
    for cache in sorted(ROOT.glob("build/*/CMakeCache.txt")):
        m = re.search(rf"^ENVPOOL_{lib.upper()}_CACHE_DIR:PATH=(.*)$", cache.read_text(), re.MULTILINE)
        if m and (Path(m.group(1)) / "download" / f"{name}.tar.gz").is_file():
            return Path(m.group(1)) / "download" / f"{name}.tar.gz"
    return None


@pytest.mark.slow  # CMake configures (and maybe a pip download)
@pytest.mark.parametrize("lib", list(LIBS))
def test_a_local_sdist_is_used_without_a_download(lib: str, tmp_path: Path) -> None:
    recipe, name, target, marker, pip_arg = LIBS[lib]
    cmake = shutil.which("cmake")
    if cmake is None:
        pytest.skip("no cmake")
    found = _built_sdist(lib, name)
    if found is None and pip_arg is not None:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", pip_arg, "-d", tmp_path],
            capture_output=True,
            check=True,
            timeout=600,
        )
        found = tmp_path / f"{name}.tar.gz"
    if found is None:
        pytest.skip(f"no {name} sdist from this checkout's build")
    sdist = tmp_path / "offline" / f"{name}.tar.gz"
    sdist.parent.mkdir()
    shutil.copy(found, sdist)
    src = tmp_path / "project"
    src.mkdir()
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.20)\nproject(sdist LANGUAGES C CXX)\n"
        f'include("{(ROOT / "third_party" / lib / recipe).as_posix()}")\n'
        f'get_target_property(_t envpool::{lib} ALIASED_TARGET)\nmessage(STATUS "target: ${{_t}}")\n'
    )

    def configure(archive: Path, cache: Path) -> subprocess.CompletedProcess:
        return subprocess.run(
            [cmake, "-S", src, "-B", cache.with_name(cache.name + "-build"), "-Wno-dev",
             f"-DENVPOOL_{lib.upper()}_SDIST={archive}", f"-DENVPOOL_{lib.upper()}_CACHE_DIR={cache}"],
            capture_output=True, text=True, check=False, timeout=600,
        )  # fmt: skip

    cache = tmp_path / "cache"
    p = configure(sdist, cache)
    assert p.returncode == 0, p.stdout + p.stderr
    assert f"target: {target}" in p.stdout
    assert "Downloading" not in p.stdout and not (cache / "download").exists()
    assert (cache / "src" / name / marker).is_file()
    if lib == "box2d":
        settings = (cache / "src" / name / "Box2D" / "Common" / "b2Settings.h").read_text()
        assert "b2AssertException" in settings and "Py" not in settings  # patched: only the throw is left
        timer = (cache / "src" / name / "Box2D" / "Common" / "b2Timer.cpp").read_text()
        assert "#elif 0  // envpool: no clock reads" in timer and "defined(__linux__)" not in timer
    # An archive without the library is refused, naming what it lacks.
    bad = tmp_path / "bad" / f"{name}.tar.gz"
    bad.parent.mkdir()
    shutil.make_archive(str(bad).removesuffix(".tar.gz"), "gztar", root_dir=src)
    p = configure(bad, tmp_path / "cache2")
    assert p.returncode != 0 and f"does not contain {name}/" in p.stderr


def test_the_built_box2d_reads_no_clock() -> None:
    """b2Timer's gettimeofday calls (3-4% of a LunarLander step) are compiled out: the
    extension imports no gettimeofday, and Box2D's envs still step."""
    import envpool
    from envpool import _envpool

    if "LunarLander" not in _envpool.families():
        pytest.skip("the Box2D family is not compiled in")
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("no nm (binutils)")
    out = subprocess.run([nm, "-D", "--undefined-only", _envpool.__file__], capture_output=True, text=True, check=True)
    imported = {line.split()[-1].split("@")[0] for line in out.stdout.splitlines() if line.strip()}
    assert "clock_gettime" in imported or "time" in imported  # the listing is read
    assert "gettimeofday" not in imported
    env = envpool.make("LunarLander-v3", env_type="gymnasium", num_envs=2, seed=0)
    try:
        env.reset()
        assert env.step(env.action_space.sample()[None].repeat(2, 0))[0].shape == (2, 8)
    finally:
        env.close()
