"""examples/ray_pool.py: the async loop over a pool on Ray actors runs (a local Ray instance)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

# Under pytest-xdist the Ray cases share one worker (one Ray at a time).
pytestmark = pytest.mark.xdist_group("ray")

pytest.importorskip("ray", reason="needs Ray (pip install 'envpool[ray]')")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.slow  # starts Ray, ~9 s
def test_ray_pool_example():
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / "ray_pool.py"), "--seconds", "1", "--num-envs", "6", "--num-actors", "3",
         "--batch-size", "2"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert summary["steps"] > 0 and summary["steps"] % 2 == 0 and summary["episodes"] > 0
    assert "3 actors on 1 node(s)" in proc.stdout
