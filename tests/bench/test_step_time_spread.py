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


def test_groups_steps_by_obs_columns() -> None:
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "LunarLander-v3", "BipedalWalker-v3", "--steps", "600", "--by-obs", "6", "7"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    lander = out.split("LunarLander-v3, steps by obs")[1].split("BipedalWalker-v3")[0]
    rows = [line.split("|")[1:5] for line in lander.splitlines() if line.startswith("| ") and "sum" not in line]
    # legs on the ground: 0, 1 or 2; the shares of steps and of time each sum to 1
    assert rows and {float(r[0]) for r in rows} <= {0.0, 1.0, 2.0}
    assert abs(sum(float(r[1]) for r in rows) - 1) < 0.01
    assert abs(sum(float(r[2]) for r in rows) - 1) < 0.01
    # BipedalWalker's columns 6 and 7 are joint angles and speeds: not counts
    assert "BipedalWalker-v3: obs[[6, 7]] summed takes over 16 values (not a count): not grouped" in out
