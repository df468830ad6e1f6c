"""The README's command runs on pytest-xdist workers (-n 2, --dist loadgroup from addopts):
cases marked ``xdist_group`` with one name run on one worker (tests/_xdist_groups.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def test_a_group_runs_on_one_worker(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text(
        f"import sys\nsys.path.insert(0, {str(TESTS)!r})\n"
        "from _xdist_groups import keep_groups\n\n"
        "def pytest_collection_modifyitems(config, items):\n    keep_groups(config, items)\n"
    )
    case = "import os, time, pytest\n{mark}\n@pytest.mark.parametrize('i', range(6))\ndef test_{name}(i):\n    time.sleep(0.05)\n"
    (tmp_path / "test_grouped.py").write_text(case.format(mark="pytestmark = pytest.mark.xdist_group('g')", name="g"))
    (tmp_path / "test_free.py").write_text(case.format(mark="", name="f"))
    # The project's addopts (--dist loadgroup --max-worker-restart 0) through -c.
    p = subprocess.run(
        [sys.executable, "-m", "pytest", "-c", str(TESTS.parent / "pyproject.toml"), "--rootdir", str(tmp_path)]
        + ["-n", "2", "-v", "-p", "no:cacheprovider", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    workers: dict[str, set[str]] = {}
    for line in p.stdout.splitlines():
        if "PASSED" in line and line.startswith("[gw"):
            workers.setdefault(line.split()[-1].split("::")[1].split("[")[0], set()).add(line.split()[0])
    assert len(workers["test_g"]) == 1, p.stdout  # the group: one worker
    assert len(workers["test_g"] | workers["test_f"]) == 2, p.stdout  # both workers ran cases
