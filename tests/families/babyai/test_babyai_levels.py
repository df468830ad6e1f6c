"""BabyAI's levels (cpp/minigrid/babyai/) against minigrid 3.2, seed for seed and step for step.

The levels are compiled into a small driver (babyai_driver.cc) that runs one env outside the
pool; minigrid's ``gymnasium.make(id)`` runs beside it with the same seed and the same random
actions. Every reset and step must give the same mission text, direction, observation image
(bitwise), agent position, reward (bitwise), terminated/truncated flags and max_steps (BabyAI's
limit varies with the instruction). Episodes after the first start unseeded on both sides, so
the generator streams must stay equal across levels, including the rejected attempts.
"""

from __future__ import annotations

import importlib.util
import random
import shutil
import struct
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[3]
DRIVER = ROOT / "tests" / "families" / "babyai" / "babyai_driver.cc"
CXX = shutil.which("g++") or shutil.which("c++")
# The MiniGrid core (cpp/minigrid/minigrid_env.h, core/) comes from the minigrid family.
CORE = ROOT / "cpp" / "minigrid" / "core" / "roomgrid.h"

minigrid = pytest.importorskip("minigrid")
gymnasium = pytest.importorskip("gymnasium")
pytestmark = [
    pytest.mark.skipif(CXX is None, reason="no C++ compiler"),
    pytest.mark.skipif(not CORE.exists(), reason="the MiniGrid core (cpp/minigrid/core) is not in this tree"),
]


def _levels() -> dict[str, dict]:
    # The task table is plain data; loaded by path so that the test needs no built extension.
    spec = importlib.util.spec_from_file_location(
        "_babyai_levels", ROOT / "src" / "envpool" / "tasks" / "_babyai_levels.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.LEVELS


LEVELS = _levels()


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Path:
    exe = tmp_path_factory.mktemp("babyai") / "driver"
    cmd = [CXX, "-std=c++20", "-O1", f"-I{ROOT}", str(DRIVER), "-o", str(exe)]
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert res.returncode == 0, res.stderr[-4000:]
    return exe


def _option(key: str, value) -> str:
    if isinstance(value, bool):
        return f"{key}=b:{int(value)}"
    if isinstance(value, int):
        return f"{key}=i:{value}"
    if isinstance(value, float):
        return f"{key}=d:{value!r}"
    return f"{key}=s:{value}"


def _line(env, obs, reward, terminated, truncated) -> str:
    u = env.unwrapped
    bits = struct.unpack("<Q", struct.pack("<d", float(reward)))[0]
    image = np.asarray(obs["image"], dtype=np.uint8).tobytes().hex()
    x, y = (int(v) for v in u.agent_pos)
    return (
        f"{obs['mission']}|{int(obs['direction'])}|{image}|{x},{y}|{bits:016x}|"
        f"{int(terminated)}|{int(truncated)}|{int(u.max_steps)}"
    )


def _compare(driver: Path, task_id: str, seeds: list[int], steps: int, bot: bool = False) -> int:
    """Runs `steps` actions per seed on both sides; new episodes reset unseeded. The actions are
    random, or (bot) mostly minigrid's BabyAIBot's, which completes the instructions (so the
    verifier's success paths run: put next, open, sequences). Returns the successes."""
    script = ["env " + " ".join(_option(k, v) for k, v in LEVELS[task_id].items())]
    want: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = gymnasium.make(task_id)
        successes = 0
        for seed in seeds:
            rnd = random.Random(seed)
            obs, _ = env.reset(seed=seed)
            script.append(f"reset {seed}")
            want.append(_line(env, obs, 0.0, False, False))
            planner = _bot(env) if bot else None
            for _ in range(steps):
                # Mostly moves, so that episodes reach objects and doors.
                a = rnd.choice([0, 1, 2, 2, 2, 3, 4, 5, 6])
                if planner is not None and rnd.random() < 0.9:
                    try:
                        a = int(planner.replan())
                    except Exception:  # noqa: BLE001  (the bot gives up on some layouts)
                        planner = None
                obs, r, term, trunc, _ = env.step(a)
                script.append(f"step {a}")
                want.append(_line(env, obs, r, term, trunc))
                successes += int(term and r > 0)
                if term or trunc:
                    obs, _ = env.reset()
                    script.append("reset")
                    want.append(_line(env, obs, 0.0, False, False))
                    planner = _bot(env) if bot else None
        env.close()
    res = subprocess.run(
        [str(driver)], input="\n".join(script) + "\n", capture_output=True, text=True, timeout=600, check=False
    )
    assert res.returncode == 0, res.stderr[-4000:]
    got = res.stdout.splitlines()
    assert len(got) == len(want), (len(got), len(want))
    for k, (g, w) in enumerate(zip(got, want)):
        if g != w:
            gm, wm = g.split("|"), w.split("|")
            fields = ["mission", "direction", "image", "pos", "reward", "terminated", "truncated", "max_steps"]
            diff = [f"{f}: {a!r} != {b!r}" for f, a, b in zip(fields, gm, wm) if a != b]
            raise AssertionError(f"{task_id} line {k} ({script[k + 1]}): " + "; ".join(diff)[:600])
    return successes


def _bot(env):
    from minigrid.utils.baby_ai_bot import BabyAIBot

    try:
        return BabyAIBot(env.unwrapped)
    except Exception:  # noqa: BLE001
        return None


FAST_IDS = [
    "BabyAI-GoToRedBall-v0",
    "BabyAI-GoToLocal-v0",
    "BabyAI-PickupLoc-v0",
    "BabyAI-GoTo-v0",
    "BabyAI-BossLevel-v0",
    "BabyAI-PutNextLocal-v0",
    "BabyAI-OpenDoorsOrderN4Debug-v0",
]


@pytest.mark.parametrize("task_id", FAST_IDS)
def test_level_matches_minigrid(driver: Path, task_id: str) -> None:
    _compare(driver, task_id, seeds=[0, 1, 2**32 + 7], steps=150)


@pytest.mark.parametrize(
    "task_id", ["BabyAI-PutNextLocal-v0", "BabyAI-SynthSeq-v0", "BabyAI-OpenTwoDoors-v0", "BabyAI-MoveTwoAcrossS5N2-v0"]
)
def test_bot_driven_level_matches_minigrid(driver: Path, task_id: str) -> None:
    """Episodes that end in success (minigrid's own bot plays, with some random actions mixed in)."""
    assert _compare(driver, task_id, seeds=[0, 1, 2], steps=150, bot=True) > 0


# minigrid's bot cannot solve these (its docstring): their successes come from random play.
BOT_UNSOLVED = {
    "BabyAI-PutNextS5N2Carrying-v0",
    "BabyAI-PutNextS6N3Carrying-v0",
    "BabyAI-PutNextS7N4Carrying-v0",
    "BabyAI-KeyInBox-v0",
}


# minigrid's bot loops forever inside replan() on this id's seed-17 level (seen with minigrid 3.2).
BOT_HANGS = {"BabyAI-UnlockToUnlock-v0"}


@pytest.mark.slow
@pytest.mark.parametrize("task_id", sorted(set(LEVELS) - BOT_HANGS))
def test_every_level_bot_driven_matches_minigrid(driver: Path, task_id: str) -> None:
    successes = _compare(driver, task_id, seeds=[0, 17, 2**63 + 5], steps=200, bot=True)
    if task_id not in BOT_UNSOLVED:
        assert successes > 0


@pytest.mark.slow
@pytest.mark.parametrize("task_id", sorted(LEVELS))
def test_every_level_matches_minigrid(driver: Path, task_id: str) -> None:
    _compare(driver, task_id, seeds=[0, 17, 2**31 + 1, 2**63 + 5], steps=250)
