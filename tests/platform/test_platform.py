"""The platform layer (cpp/platform) on Linux, and the C++ tree for Windows and macOS.

Runs natively: tests/platform/cpp/test_platform.cc (word waits in and across
processes, aligned allocation, cores, shared memory, a child's death).
With the cross toolchains of tools/cross_check.py (Debian's mingw-w64 and
wine64, PyPI's ziglang; .ci/run installs them) the same test and the engine's
core tests build for Windows and pass under wine64, and they compile for macOS
arm64 with warnings as errors; the slow case compiles the whole tree for both.
Without a toolchain those cases skip, saying what to install.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import cross_check  # noqa: E402

CXX = shutil.which("g++") or shutil.which("c++")
PLATFORM_TEST = "tests/platform/cpp/test_platform.cc"
CORE_TEST = "tests/core/cpp/test_core.cc"


def _needs(what: str) -> None:
    why = cross_check.missing_toolchain(what)
    if why:
        pytest.skip(why)


@pytest.mark.skipif(CXX is None, reason="no C++ compiler")
def test_platform_layer_natively(tmp_path: Path) -> None:
    exe = tmp_path / "test_platform"
    cmd = [CXX, *cross_check.FLAGS, "-pthread", f"-I{ROOT}", str(ROOT / PLATFORM_TEST), "-o", str(exe)]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    r = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    for part in ("wait word ok", "memory and threads ok", "cross-process wait ok", "process death ok", "all ok"):
        assert part in r.stdout


# The core tests' Windows build compiles the whole engine and runs its stress cases under
# wine (minutes on a busy machine): slow; the platform layer's own test stays fast.
@pytest.mark.parametrize("source", [PLATFORM_TEST, pytest.param(CORE_TEST, marks=pytest.mark.slow)])
def test_windows_build_passes_under_wine(tmp_path: Path, source: str) -> None:
    _needs("wine")
    exe = tmp_path / (Path(source).stem + ".exe")
    cross_check.build_windows_test(source, exe)
    r = cross_check.run_wine(exe, tmp_path)
    assert r.returncode == 0 and "all ok" in r.stdout, r.stdout + r.stderr[-4000:]
    if source == PLATFORM_TEST:
        assert "cross-process wait ok" in r.stdout and "process death ok" in r.stdout


@pytest.mark.parametrize("source", [PLATFORM_TEST, CORE_TEST])
def test_compiles_for_macos_arm64(tmp_path: Path, source: str) -> None:
    _needs("macos")
    out = tmp_path / "test.o"
    cmd = [
        *cross_check.compiler("macos"),
        *cross_check.flags("macos"),
        *cross_check.SOURCE_FLAGS.get(source, []),
        f"-I{ROOT}",
        "-c",
        str(ROOT / source),
        "-o",
        str(out),
    ]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-4000:]
    assert out.read_bytes()[:4] == bytes.fromhex("cffaedfe")  # a 64-bit Mach-O object


@pytest.mark.slow
# One worker: both targets fetch the dependencies' sdists into the same cache folder
# (tools/cross_check.py), which two workers at once would both write.
@pytest.mark.xdist_group("cross_tree")
@pytest.mark.parametrize("target", ["windows", "macos"])
def test_whole_tree_compiles(target: str) -> None:
    _needs(target)
    r = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "cross_check.py"), "tree", "--target", target],
        capture_output=True,
        text=True,
        timeout=3600,
    )
    assert r.returncode == 0, r.stdout[-6000:] + r.stderr[-2000:]
    assert f"{target}: {len(cross_check.sources(target))} translation units" in r.stdout


@pytest.mark.slow
def test_mujoco_windows_dll_links_and_runs_under_wine(tmp_path: Path) -> None:
    """The mujoco wheel's mujoco.dll (no import library): linked directly and through an
    import library made from its exports (third_party/mujoco/dll_exports.py)."""
    _needs("wine")
    assert cross_check.check_mujoco_dll(ROOT / "build" / "cross")
