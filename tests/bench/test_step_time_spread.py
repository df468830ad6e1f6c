"""benchmarks/step_time_spread.py: the greedy two-thread schedule it replays step times into."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "step_time_spread.py"


def _module():
    spec = importlib.util.spec_from_file_location("step_time_spread", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_greedy_schedule() -> None:
    keep = _module().greedy_keep
    # Equal steps split evenly: nothing lost.
    assert keep(np.ones(8 * 5)) == 1.0
    # Each call: env 0 takes 8, the others 1: one thread steps env 0, the other the seven
    # (7), so the call takes 8 against an ideal 7.5. Envs are consecutive stretches.
    times = np.ones((8, 3))
    times[0] = 8.0
    assert keep(times.ravel()) == 7.5 / 8


def test_runs_on_a_task() -> None:
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "CartPole-v1", "--steps", "800"], capture_output=True, text=True, check=True
    ).stdout
    row = next(line for line in out.splitlines() if line.startswith("| CartPole-v1 |"))
    assert 0.0 < float(row.split("|")[5]) <= 1.0
