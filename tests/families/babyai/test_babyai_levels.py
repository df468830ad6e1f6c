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


def _pool_matches_minigrid(task_id: str, num_envs: int, seed: int, steps: int, **make_kwargs) -> int:
    """envpool.make(task_id, seed=seed): env i is minigrid reset with seed + i, then unseeded
    (next_step autoreset: the step after a done returns the next episode's first observation)."""
    envpool = pytest.importorskip("envpool")
    pool = envpool.make(task_id, env_type="gymnasium", num_envs=num_envs, seed=seed, **make_kwargs)
    rng = np.random.default_rng(seed)
    episodes = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        refs = [gymnasium.make(task_id, **make_kwargs) for _ in range(num_envs)]

        def check(obs, info, i, ref_obs, ref_env, where):
            np.testing.assert_array_equal(obs["image"][i], ref_obs["image"], err_msg=where)
            assert int(obs["direction"][i]) == int(ref_obs["direction"]), where
            mission = np.asarray(obs["mission"][i], np.uint8).tobytes().rstrip(b"\0").decode()
            assert mission == ref_obs["mission"], where
            np.testing.assert_array_equal(info["agent_pos"][i], ref_env.unwrapped.agent_pos, err_msg=where)

        obs, info = pool.reset()
        assert obs["mission"].shape == (num_envs, 512)
        for i in range(num_envs):
            ref_obs, _ = refs[i].reset(seed=seed + i)
            check(obs, info, i, ref_obs, refs[i], f"env {i} reset")
        done = [False] * num_envs
        for t in range(steps):
            actions = rng.integers(0, 7, num_envs)
            obs, rew, term, trunc, info = pool.step(actions)
            for i in range(num_envs):
                where = f"env {i} step {t}"
                if done[i]:
                    ref_obs, _ = refs[i].reset()
                    check(obs, info, i, ref_obs, refs[i], where + " (reset)")
                    done[i] = False
                    continue
                ref_obs, r, te, tr, _ = refs[i].step(int(actions[i]))
                assert float(rew[i]) == float(np.float32(r)) or float(rew[i]) == float(r), where
                assert (bool(term[i]), bool(trunc[i])) == (bool(te), bool(tr)), where
                check(obs, info, i, ref_obs, refs[i], where)
                done[i] = bool(te or tr)
                episodes += int(done[i])
        for env in refs:
            env.close()
    pool.close()
    return episodes


@pytest.mark.parametrize("task_id", ["BabyAI-GoToRedBallNoDists-v0", "BabyAI-GoToLocal-v0", "BabyAI-BossLevel-v0"])
def test_pool_matches_minigrid(task_id: str) -> None:
    """The registered ids through the pool: seeds, mission bytes (512), autoreset, the per-level
    max_steps (GoToRedBallNoDists ends episodes by success and by its 64-step limit)."""
    episodes = _pool_matches_minigrid(task_id, num_envs=3, seed=11, steps=300)
    if task_id == "BabyAI-GoToRedBallNoDists-v0":
        assert episodes >= 3


@pytest.mark.parametrize(
    ("task_id", "kwargs"),
    [
        ("BabyAI-GoToLocal-v0", {"max_steps": 20}),
        ("BabyAI-PutNextLocal-v0", {"num_objs": 3}),
        ("BabyAI-MoveTwoAcrossS5N2-v0", {"objs_per_room": 3, "room_size": 6}),
    ],
)
def test_pool_takes_minigrid_keywords(task_id: str, kwargs: dict) -> None:
    """minigrid's keyword names (max_steps, num_objs, objs_per_room) mean what they mean there."""
    episodes = _pool_matches_minigrid(task_id, num_envs=2, seed=5, steps=120, **kwargs)
    if "max_steps" in kwargs:
        assert episodes >= 2 * (120 // 21)


@pytest.mark.parametrize("task_id", ["BabyAI-GoToLocal-v0", "BabyAI-KeyCorridorS3R3-v0"])
def test_render_matches_minigrid(task_id: str) -> None:
    """render() (rgb_array, minigrid's tile size and highlight) pixel-equal to minigrid's frames."""
    envpool = pytest.importorskip("envpool")
    pool = envpool.make(task_id, env_type="gymnasium", num_envs=1, seed=3, render_mode="rgb_array")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = gymnasium.make(task_id, render_mode="rgb_array")
        pool.reset()
        ref.reset(seed=3)
        np.testing.assert_array_equal(pool.render()[0], ref.render())
        rng = np.random.default_rng(0)
        for t in range(20):
            a = int(rng.integers(0, 7))
            _, _, term, trunc, _ = pool.step(np.array([a]))
            ref.step(a)
            if term[0] or trunc[0]:
                break
            np.testing.assert_array_equal(pool.render()[0], ref.render(), err_msg=f"step {t}")
        ref.close()
    pool.close()


@pytest.mark.parametrize(
    "kwargs",
    [
        {"room_size": 2},
        {"num_rows": -1},
        {"num_dists": -3},
        {"agent_view_size": 4},
        {"level": "Nope"},
        {"first_color": "pink"},
        {"select_by": "size"},
        {"instr_kinds": "action,xx"},
        {"max_steps": 0},
        {"max_steps": 5, "max_episode_steps": 6},
    ],
)
def test_bad_options_are_value_errors(kwargs: dict) -> None:
    envpool = pytest.importorskip("envpool")
    with pytest.raises(ValueError):
        envpool.make("BabyAI-GoToLocal-v0", env_type="gymnasium", num_envs=1, **kwargs)


def test_impossible_level_fails_its_reset_instead_of_hanging() -> None:
    """9 distractors cannot fit a 3 x 3 room (one free cell): minigrid retries forever; here the
    reset raises after kMaxAttempts rejected layouts and the process lives on."""
    envpool = pytest.importorskip("envpool")
    pool = envpool.make("BabyAI-GoToLocal-v0", env_type="gymnasium", num_envs=1, room_size=3, num_dists=9)
    with pytest.raises(Exception, match="rejected"):
        pool.reset()
    pool.close()
    ok = envpool.make("BabyAI-GoToLocal-v0", env_type="gymnasium", num_envs=1, seed=0)
    assert ok.reset()[0]["image"].shape == (1, 7, 7, 3)
    ok.close()
