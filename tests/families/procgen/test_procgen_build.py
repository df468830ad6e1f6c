"""What the build installed for Procgen (third_party/procgen/procgen.cmake): procgen
0.10.7's wheel's own libenv.so (byte for byte: the sha256 the wheel's RECORD lists) and
its assets, in envpool/_procgen/; the library needs nothing from the system beyond
glibc, libstdc++, zlib and glib (Qt is linked into it)."""

from __future__ import annotations

import base64
import hashlib
import shutil
import subprocess
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
