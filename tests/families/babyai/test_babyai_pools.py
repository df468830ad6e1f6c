"""The BabyAI ids through envpool's pools against minigrid 3.2 (the same checker as MiniGrid's:
tests/_minigrid_reference.py): env i of ``make(id, seed=s)`` is minigrid's ``gymnasium.make(id)``
reset with ``seed=s + i`` once, then unseeded; random actions go to both and every step's image,
direction, mission text (512 bytes), reward, flags and agent position must be equal, bit for bit.
The pools run through the gymnasium, gym and dm interfaces, sync and async, in both autoreset
modes. Bad options and actions are a ValueError that leaves the pool as it was.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("minigrid")

from _minigrid_reference import POOL_WAYS, check_pool_way, reference, run_sync, way_id  # noqa: E402

import envpool  # noqa: E402

# A sample of the levels: one-room, the whole BossLevel grammar, PutNext's two rooms, LevelGen's
# Synth and a locked-door level.
SAMPLE = [
    "BabyAI-GoToLocal-v0",
    "BabyAI-BossLevel-v0",
    "BabyAI-PutNextS5N2-v0",
    "BabyAI-SynthS5R2-v0",
    "BabyAI-Unlock-v0",
]


def _make(task_id: str, **kwargs):
    return envpool.make(task_id, env_type="gymnasium", **kwargs)


@pytest.mark.parametrize("way", POOL_WAYS, ids=way_id)
def test_every_interface_pool_and_autoreset_mode(way: tuple) -> None:
    """Each way of running a pool on one sampled level (in turn), over many short episodes
    (max_steps=12, minigrid's keyword, so that autoreset runs often)."""
    task_id = SAMPLE[POOL_WAYS.index(way) % len(SAMPLE)]
    assert check_pool_way(task_id, way, seed=17, steps=60, max_steps=12) >= 8


@pytest.mark.slow
@pytest.mark.parametrize("way", POOL_WAYS, ids=way_id)
@pytest.mark.parametrize("task_id", SAMPLE)
def test_sampled_levels_every_way_with_their_own_limits(task_id: str, way: tuple) -> None:
    """Every sampled level every way, with the level's own episode limit (set at each reset from
    the instruction, as minigrid's), from a seed >= 2**32."""
    check_pool_way(task_id, way, seed=2**33 + 3, steps=150)


@pytest.mark.parametrize("task_id", ["BabyAI-GoToRedBallNoDists-v0", "BabyAI-GoToLocal-v0", "BabyAI-BossLevel-v0"])
def test_pool_matches_minigrid(task_id: str) -> None:
    """The registered ids with their defaults: mission bytes (512), the per-level max_steps
    (GoToRedBallNoDists ends episodes by success and by its 64-step limit)."""
    pool = _make(task_id, num_envs=3, seed=11)
    assert pool.observation_space["mission"].shape == (512,)
    episodes = run_sync(pool, task_id, 3, 11, 300, np.random.default_rng(11))
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
    pool = _make(task_id, num_envs=2, seed=5, **kwargs)
    episodes = run_sync(pool, task_id, 2, 5, 120, np.random.default_rng(5), **kwargs)
    if "max_steps" in kwargs:
        assert episodes >= 2 * (120 // 21)


@pytest.mark.parametrize("task_id", ["BabyAI-GoToLocal-v0", "BabyAI-KeyCorridorS3R3-v0"])
def test_render_matches_minigrid(task_id: str) -> None:
    """render() (rgb_array, minigrid's tile size and highlight) pixel-equal to minigrid's frames."""
    pool = _make(task_id, num_envs=1, seed=3, render_mode="rgb_array")
    run_sync(pool, task_id, 1, 3, 20, np.random.default_rng(0), frames_every=1)
    pool.close()


@pytest.mark.parametrize(
    ("task_id", "kwargs"),
    [
        ("BabyAI-GoToLocal-v0", {"room_size": 2}),
        ("BabyAI-GoToLocal-v0", {"room_size": -8}),
        ("BabyAI-BossLevel-v0", {"num_rows": -1}),
        ("BabyAI-BossLevel-v0", {"num_cols": 0}),
        ("BabyAI-GoToLocal-v0", {"num_dists": -3}),
        ("BabyAI-PutNextS5N2-v0", {"objs_per_room": -1}),
        ("BabyAI-GoToLocal-v0", {"agent_view_size": 4}),
        ("BabyAI-BossLevel-v0", {"agent_view_size": 1}),
        ("BabyAI-SynthS5R2-v0", {"agent_view_size": -7}),
        ("BabyAI-GoToLocal-v0", {"level": "Nope"}),
        ("BabyAI-GoToLocal-v0", {"first_color": "pink"}),
        ("BabyAI-GoToLocal-v0", {"select_by": "size"}),
        ("BabyAI-SynthS5R2-v0", {"instr_kinds": "action,xx"}),
        ("BabyAI-GoToLocal-v0", {"max_steps": 0}),
        ("BabyAI-Unlock-v0", {"max_steps": -5}),
        ("BabyAI-GoToLocal-v0", {"max_steps": 5, "max_episode_steps": 6}),
    ],
)
def test_bad_options_are_value_errors(task_id: str, kwargs: dict) -> None:
    with pytest.raises(ValueError):
        _make(task_id, num_envs=1, **kwargs)


def test_bad_actions_are_value_errors_and_change_nothing() -> None:
    """Out-of-range actions (7 and up, negative, wrapping to a valid one) are refused before any
    env steps: the pool then goes on as minigrid's envs that never saw them."""
    task_id = "BabyAI-BossLevel-v0"
    pool = _make(task_id, num_envs=2, seed=4)
    refs = [reference(task_id) for _ in range(2)]
    obs, _ = pool.reset()
    for i, r in enumerate(refs):
        np.testing.assert_array_equal(obs["image"][i], r.reset(seed=4 + i)[0]["image"])
    for bad in ([0, 7], [-1, 0], [2**32 + 2, 0], [0, 2**31]):
        with pytest.raises(ValueError):
            pool.step(np.array(bad))
    for t, actions in enumerate(([2, 1], [2, 2], [0, 2])):
        obs, *_ = pool.step(np.array(actions))
        for i, (r, a) in enumerate(zip(refs, actions)):
            np.testing.assert_array_equal(obs["image"][i], r.step(a)[0]["image"], err_msg=f"step {t} env {i}")


def test_impossible_level_fails_its_reset_instead_of_hanging() -> None:
    """9 distractors cannot fit a 3 x 3 room (one free cell): minigrid retries forever; here the
    reset raises after kMaxAttempts rejected layouts and the process lives on."""
    pool = _make("BabyAI-GoToLocal-v0", num_envs=1, room_size=3, num_dists=9)
    with pytest.raises(Exception, match="rejected"):
        pool.reset()
    pool.close()
    ok = _make("BabyAI-GoToLocal-v0", num_envs=1, seed=0)
    assert ok.reset()[0]["image"].shape == (1, 7, 7, 3)
    ok.close()
