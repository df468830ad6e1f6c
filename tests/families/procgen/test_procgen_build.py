"""What the build installed for Procgen (third_party/procgen/procgen.cmake): procgen
0.10.7's wheel's own libenv.so (byte for byte: the sha256 the wheel's RECORD lists) and
its assets, in envpool/_procgen/; the library needs nothing from the system beyond
glibc, libstdc++, zlib and glib (Qt is linked into it)."""

from __future__ import annotations

import base64
import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import envpool

if "Procgen" not in envpool._envpool.families():
    pytest.skip("envpool was built without the Procgen family (ENVPOOL_PROCGEN=OFF)", allow_module_level=True)

from envpool.tasks import procgen as tasks  # noqa: E402

# procgen-0.10.7-cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64.whl's RECORD.
RECORD_SHA256 = "9EeGQxqQLprhoyzUT0qmUPS9rYkyQKMi5J5gmNanouo"
RECORD_SIZE = 28340568


def test_installed_library_is_the_wheels():
    lib = Path(tasks.LIBRARY_DIR) / "libenv.so"
    data = lib.read_bytes()
    assert len(data) == RECORD_SIZE
    assert base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode() == RECORD_SHA256
    assert (Path(tasks.LIBRARY_DIR) / "version.txt").read_text().strip() == "0.10.7"
    assert len(list((Path(tasks.LIBRARY_DIR) / "assets").rglob("*.png"))) > 1000


@pytest.mark.skipif(shutil.which("readelf") is None, reason="needs readelf")
def test_library_needs_no_qt_from_the_system():
    out = subprocess.run(["readelf", "-d", str(Path(tasks.LIBRARY_DIR) / "libenv.so")], capture_output=True, text=True)
    needed = {line.split("[")[1].split("]")[0] for line in out.stdout.splitlines() if "(NEEDED)" in line}
    assert needed == {
        "libm.so.6",
        "libpthread.so.0",
        "libz.so.1",
        "libdl.so.2",
        "libgthread-2.0.so.0",
        "libglib-2.0.so.0",
        "libstdc++.so.6",
        "libgcc_s.so.1",
        "libc.so.6",
        "ld-linux-x86-64.so.2",
    }


ROOT = Path(__file__).resolve().parents[3]


def _configure(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    cmake = shutil.which("cmake")
    if cmake is None:
        pytest.skip("no cmake")
    src = tmp_path / "project"
    src.mkdir(exist_ok=True)
    recipe = (ROOT / "third_party" / "procgen" / "procgen.cmake").as_posix()
    (src / "CMakeLists.txt").write_text(f"cmake_minimum_required(VERSION 3.20)\nproject(t NONE)\ninclude({recipe})\n")
    build = tmp_path / f"build{len(list(tmp_path.glob('build*')))}"
    return subprocess.run([cmake, "-S", src, "-B", build, *args], capture_output=True, text=True, timeout=600)


@pytest.mark.slow  # CMake configures (and maybe downloads the 36 MB wheel)
def test_recipe_takes_a_local_wheel_and_refuses_another(tmp_path):
    """ENVPOOL_PROCGEN_WHEEL: a local wheel instead of the download (offline builds), checked by
    its sha256: another file is a configure error naming both hashes."""
    name = "procgen-0.10.7-cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
    cached = sorted(ROOT.glob(f"build/*/_deps/procgen/download/{name}"))
    if cached:
        wheel = cached[0]
    else:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "--python-version",
             "3.10", "--platform", "manylinux2014_x86_64", "procgen==0.10.7", "-d", tmp_path],
            check=True, capture_output=True, timeout=600,
        )  # fmt: skip
        wheel = tmp_path / name
    ok = _configure(tmp_path, f"-DENVPOOL_PROCGEN_WHEEL={wheel}")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert (
        next(tmp_path.glob("build*/_deps/procgen/unpacked/procgen/data/prebuilt/libenv.so")).stat().st_size
        == RECORD_SIZE
    )
    bad = tmp_path / "bad.whl"
    bad.write_bytes(b"not procgen")
    refused = _configure(tmp_path, f"-DENVPOOL_PROCGEN_WHEEL={bad}")
    assert refused.returncode != 0 and "is not procgen 0.10.7's cp310 manylinux wheel" in " ".join(
        refused.stderr.split()
    )
