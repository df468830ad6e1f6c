"""Every ```python example in README.md, CONTRIBUTING.md and docs/*.md runs as written,
each in a fresh interpreter, so that none can go stale.

A comment right before a block marks it: ``<!-- test: slow (why) -->`` runs it only
with the slow cases (it starts Ray, learns, ...); ``<!-- test: skip (why) -->`` never
runs it, for an example that cannot run on the test machine (keep these rare);
``<!-- test: repo (why) -->`` runs it from the repository's root (it reads a file of the
repository, e.g. ``examples/``), other blocks in an empty folder.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from _markdown import ROOT, Block, blocks, pages


def _examples() -> list[Block]:
    return [b for page in pages() for b in blocks(page) if b.lang == "python"]


def _param(block: Block) -> object:
    marks = []
    mark = block.mark or ""
    if mark.startswith("slow"):
        marks.append(pytest.mark.slow)
    elif mark.startswith("skip"):
        marks.append(pytest.mark.skip(reason=f"marked in the page: {mark}"))
    elif mark and not mark.startswith("repo"):
        raise ValueError(f"{block.path}:{block.line}: unknown test mark {mark!r} (slow, skip or repo)")
    return pytest.param(block, marks=marks, id=f"{block.path.relative_to(ROOT)}:{block.line}")


def test_examples_are_found() -> None:
    found = _examples()
    assert len(found) >= 12
    names = {b.path.name for b in found}
    assert {"README.md", "quickstart.md", "xla.md", "ray.md"} <= names
    skipped = [b for b in found if (b.mark or "").startswith("skip")]
    assert len(skipped) <= 2, [f"{b.path.name}:{b.line}" for b in skipped]  # skips stay rare


def test_marks_are_read(tmp_path: Path) -> None:
    page = tmp_path / "p.md"
    page.write_text(
        "# P\n\n<!-- test: slow (starts Ray) -->\n\n```python\nimport ray\n```\n\n"
        "```python\nx = 1\n```\n\n````markdown\n```python\nnot code\n```\n````\n"
    )
    found = blocks(page)
    assert [(b.lang, b.line, b.mark, b.code) for b in found] == [
        ("python", 5, "slow (starts Ray)", "import ray\n"),
        ("python", 9, None, "x = 1\n"),
        ("markdown", 13, None, "```python\nnot code\n```\n"),
    ]


def _run(code: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, MPLBACKEND="Agg")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=1800, cwd=cwd, env=env)


def test_a_failing_example_fails(tmp_path: Path) -> None:
    proc = _run("import numpy as np\nnp.zeros(2) + np.zeros(3)\n", tmp_path)
    assert proc.returncode != 0 and "ValueError" in proc.stderr


@pytest.mark.parametrize("block", [_param(b) for b in _examples()])
def test_example_runs(block: Block, tmp_path: Path) -> None:
    proc = _run(block.code, ROOT if (block.mark or "").startswith("repo") else tmp_path)
    assert proc.returncode == 0, f"{block.path.relative_to(ROOT)}:{block.line} failed:\n{proc.stderr[-4000:]}"
