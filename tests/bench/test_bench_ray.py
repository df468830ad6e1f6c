"""envpool-bench's ``ray`` engine (envpool.ray over a local Ray instance): it runs,
in sync and async mode, and is reported next to the local pool."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import pytest

# Under pytest-xdist the Ray cases share one worker (one Ray at a time).
pytestmark = pytest.mark.xdist_group("ray")

TINY = ["-s", "0.3", "-w", "0.05", "-r", "1", "--no-progress"]


def _bench(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "envpool.bench", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ),
    )


@pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="needs Ray (pip install 'envpool[ray]')")
@pytest.mark.slow  # starts Ray, ~20 s
def test_ray_engine_runs_next_to_the_local_pool(tmp_path):
    out = tmp_path / "b.json"
    p = _bench(
        "CartPole-v1", "-n", "4", "4", "-b", "4", "2", "-t", "2", "-e", "envpool", "ray", "--json", str(out), *TINY
    )
    assert p.returncode == 0, p.stderr
    rows = {(r["batch_size"], r["engine"]): r for r in json.loads(out.read_text())["results"]}
    for batch in (4, 2):  # sync, async
        ray_row = rows[(batch, "ray")]
        assert ray_row["status"] == "ok", ray_row
        assert ray_row["steps_per_s"]["median"] > 0 and ray_row["ratio_to_baseline"]["median"] > 0
    # more actors than envs: not applicable, not a failure
    p = _bench("CartPole-v1", "-n", "1", "-e", "envpool", "ray", "--json", str(out), *TINY)
    assert p.returncode == 0, p.stderr
    status = {r["engine"]: (r["status"], r["reason"]) for r in json.loads(out.read_text())["results"]}
    assert status["ray"][0] == "n/a" and "num_envs" in status["ray"][1]
