"""C++ stress tests of the engine core (tests/core/cpp/test_core.cc).

The core is header-only, so the test compiles it directly with the system
C++ compiler: once optimised, once under ThreadSanitizer (slow), which turns
any data race on the queues or batches into a failure, and once under
AddressSanitizer + UndefinedBehaviorSanitizer (slow): use-after-free of a
batch, overflows, misaligned or out-of-range accesses.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "tests" / "core" / "cpp" / "test_core.cc"
CXX = shutil.which("g++") or shutil.which("c++")


def _build_and_run(tmp_path: Path, *flags: str) -> str:
    exe = tmp_path / "test_core"
    cmd = [CXX, "-std=c++20", "-pthread", f"-I{ROOT}", *flags, str(SOURCE), "-o", str(exe)]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    result = subprocess.run([str(exe)], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


@pytest.mark.skipif(CXX is None, reason="no C++ compiler")
def test_core_stress(tmp_path: Path) -> None:
    out = _build_and_run(tmp_path, "-O2")
    for part in (
        "key checks ok",
        "semaphore ok",
        "action queue ok",
        "lane fairness ok",
        "countdown ok",
        "pool ok",
        "first to finish ok",
        "threaded callers ok",
        "close wakes waiter ok",
        "env errors ok",
        "ring claims ok",
        "register family ok",
        "raw sync calls ok",
        "all ok",
    ):
        assert part in out


@pytest.mark.slow
@pytest.mark.skipif(CXX is None, reason="no C++ compiler")
def test_core_stress_under_thread_sanitizer(tmp_path: Path) -> None:
    probe = subprocess.run(
        [CXX, "-fsanitize=thread", "-x", "c++", "-", "-o", str(tmp_path / "probe")],
        input="int main(){}",
        capture_output=True,
        text=True,
    )
    if probe.returncode != 0:
        pytest.skip("ThreadSanitizer is not available")
    out = _build_and_run(tmp_path, "-O1", "-g", "-fsanitize=thread")
    assert "all ok" in out


@pytest.mark.slow
@pytest.mark.skipif(CXX is None, reason="no C++ compiler")
def test_core_stress_under_address_and_ub_sanitizers(tmp_path: Path) -> None:
    flags = ("-fsanitize=address,undefined", "-fno-sanitize-recover=undefined")
    probe = subprocess.run(
        [CXX, *flags, "-x", "c++", "-", "-o", str(tmp_path / "probe")],
        input="int main(){}",
        capture_output=True,
        text=True,
    )
    if probe.returncode != 0:
        pytest.skip("AddressSanitizer/UndefinedBehaviorSanitizer are not available")
    out = _build_and_run(tmp_path, "-O1", "-g", *flags)
    assert "all ok" in out
