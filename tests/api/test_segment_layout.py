"""The users'-env shared-memory segment has one description, cpp/python_env/segment.h: the engine
(proc_env.h, the workers' serving loop) reads its structs, and Python (envpool/python_env) reads the
sizes and offsets the extension exports from them (_envpool._segment_layout()). Here: the header
compiled on its own prints the same table as the built extension (so the extension is the source's),
and Python's constants are that table's."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from envpool import _envpool
from envpool.python_env import _spaces as sp

ROOT = Path(__file__).resolve().parents[2]
CXX = shutil.which("g++") or shutil.which("c++")

SOURCE = r"""
#include <cstdio>
#include "cpp/python_env/segment.h"
int main() {
  std::printf("{");
  bool first = true;
  for (const auto& [name, value] : envpool::python_env::SegmentLayout()) {
    std::printf("%s\"%s\": %zu", first ? "" : ", ", name.c_str(), value);
    first = false;
  }
  std::printf("}\n");
}
"""


def test_python_reads_the_extensions_layout() -> None:
    table = _envpool._segment_layout()
    assert sp.SEGMENT == table
    assert (sp.HEADER, sp.WORKER_RECORD, sp.CONTROL) == (
        table["header_bytes"],
        table["worker_record_bytes"],
        table["control_bytes"],
    )
    assert (sp.ERROR_BYTES, sp.MAGIC) == (table["error_bytes"], table["magic"])
    # Every field lies inside its struct, at an offset its type's size divides (the
    # Python side views the words as uint32, the seed as uint64, the reward as float64).
    sizes = {"header": sp.HEADER, "record": sp.WORKER_RECORD, "slot": sp.CONTROL}
    for name, off in table.items():
        if "." in name:
            struct, field = name.split(".")
            width = 8 if field in ("seed", "reward") else 1 if field in ("terminated", "truncated") else 4
            assert 0 <= off and off + width <= sizes[struct] and off % width == 0, name
    assert table["slot.truncated"] == table["slot.terminated"] + 1  # viewed as one (n, 2) array


@pytest.mark.skipif(CXX is None, reason="no C++ compiler")
def test_the_header_and_the_built_extension_agree(tmp_path: Path) -> None:
    src = tmp_path / "layout.cc"
    src.write_text(SOURCE)
    exe = tmp_path / "layout"
    subprocess.run([CXX, "-std=c++20", f"-I{ROOT}", str(src), "-o", str(exe)], check=True, capture_output=True)
    printed = json.loads(subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout)
    assert printed == _envpool._segment_layout()
