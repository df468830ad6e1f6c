"""The MiniGrid family (cpp/minigrid/) against minigrid 3.2's own envs.

Exactness: env i of ``make(id, seed=s)`` is minigrid's ``gymnasium.make(id)`` reset with
``seed=s + i`` once and unseeded after; random actions are given to both and every step's image,
direction, mission text, reward, terminated, truncated and agent position must be equal (bit for
bit: integers, and the reward is the same float64 expression), and rendered frames pixel-equal on
sampled steps. The fast cases take one id per env class; ``slow`` ones every id and more seeds.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("minigrid")

import gymnasium  # noqa: E402
from _minigrid_reference import POOL_WAYS, check_pool_way, reference, run_async, run_sync, way_id  # noqa: E402

import envpool  # noqa: E402
from envpool.registration import lookup  # noqa: E402
from envpool.tasks.minigrid import decode_mission  # noqa: E402

IDS = [t for t in envpool.list_all_envs() if t.startswith("MiniGrid-")]
# EnvPool 1.2.5's MiniGrid ids (envpool/minigrid/registration.py): all but the six WFC ones run here.
WFC = [
    f"MiniGrid-WFC-{p}-v0"
    for p in (
        "MazeSimple",
        "DungeonMazeScaled",
        "RoomsFabric",
        "ObstaclesBlackdots",
        "ObstaclesAngular",
        "ObstaclesHogs3",
    )
]


def one_per_family() -> list[str]:
    last: dict[str, str] = {}
    for t in IDS:
        last.setdefault(lookup(t).family, t)
    return list(last.values())


FAST = one_per_family()


def _make(task_id: str, **kwargs):
    return envpool.make(task_id, env_type="gymnasium", **kwargs)


def test_ids_are_minigrids() -> None:
    ours = set(IDS)
    theirs = {k for k in gymnasium.registry if k.startswith("MiniGrid-") and "WFC" not in k}
    assert ours == theirs
    # EnvPool 1.2.5's 81 MiniGrid ids are minigrid's less MultiRoom-N4-S5-v1: 75 run here, 6 WFC are refused.
    assert len(ours) == 76


@pytest.mark.parametrize("task_id", WFC)
def test_wfc_ids_are_refused_with_the_reason(task_id: str) -> None:
    with pytest.raises(ValueError, match="wave-function-collapse"):
        _make(task_id)


@pytest.mark.parametrize("task_id", FAST)
def test_steps_equal_minigrid(task_id: str) -> None:
    pool = _make(task_id, num_envs=2, seed=3)
    run_sync(pool, task_id, 2, 3, 80, np.random.default_rng(1), frames_every=0)
    pool.close()


@pytest.mark.slow
@pytest.mark.parametrize("task_id", IDS)
def test_every_id_equals_minigrid_over_many_episodes(task_id: str) -> None:
    """Default options from two seeds (one >= 2**32), then many short episodes (max_steps=30)."""
    for seed in (0, 2**40 + 5):
        pool = _make(task_id, num_envs=3, seed=seed)
        run_sync(pool, task_id, 3, seed, 300, np.random.default_rng(seed % 1000))
        pool.close()
    pool = _make(task_id, num_envs=3, seed=11, max_steps=30)
    assert run_sync(pool, task_id, 3, 11, 300, np.random.default_rng(11), max_steps=30) >= 20
    pool.close()


@pytest.mark.parametrize("task_id", ["MiniGrid-Empty-5x5-v0", "MiniGrid-LavaGapS5-v0", "MiniGrid-Fetch-5x5-N2-v0"])
def test_many_short_episodes_with_small_max_steps(task_id: str) -> None:
    """max_steps (minigrid's keyword) truncates and scales the reward as minigrid's does."""
    pool = _make(task_id, num_envs=2, seed=5, max_steps=7)
    assert pool.spec.config["max_episode_steps"] == 7
    episodes = run_sync(pool, task_id, 2, 5, 120, np.random.default_rng(2), max_steps=7)
    assert episodes >= 20


@pytest.mark.parametrize("way", POOL_WAYS, ids=way_id)
def test_every_interface_pool_and_autoreset_mode(way: tuple) -> None:
    """gymnasium, gym and dm pools, sync and async, next_step and same_step autoreset (dm has no
    same_step), each over many short episodes."""
    assert check_pool_way("MiniGrid-DoorKey-5x5-v0", way, seed=9, steps=100, max_steps=15) >= 10


@pytest.mark.parametrize("task_id", ["MiniGrid-DoorKey-6x6-v0", "MiniGrid-KeyCorridorS3R2-v0"])
def test_async_pool(task_id: str) -> None:
    pool = _make(task_id, num_envs=4, batch_size=2, num_threads=2, seed=21, max_steps=20)
    assert run_async(pool, task_id, 4, 21, 160, np.random.default_rng(5), max_steps=20) >= 5


@pytest.mark.parametrize("task_id", FAST)
def test_frames_equal_minigrid(task_id: str) -> None:
    pool = _make(task_id, num_envs=1, seed=4, render_mode="rgb_array")
    run_sync(pool, task_id, 1, 4, 24, np.random.default_rng(3), frames_every=8)
    pool.close()


@pytest.mark.slow
@pytest.mark.parametrize("task_id", IDS)
def test_every_id_frames_equal_minigrid(task_id: str) -> None:
    pool = _make(task_id, num_envs=1, seed=8, render_mode="rgb_array")
    run_sync(pool, task_id, 1, 8, 60, np.random.default_rng(8), frames_every=5)
    pool.close()


def test_frame_options_equal_minigrid() -> None:
    """tile_size and highlight, minigrid's render keywords."""
    task_id = "MiniGrid-LavaCrossingS9N1-v0"
    pool = _make(task_id, num_envs=1, seed=1, render_mode="rgb_array", tile_size=12, highlight=False)
    ref = reference(task_id, render_mode="rgb_array", tile_size=12, highlight=False)
    pool.reset()
    ref.reset(seed=1)
    frame = pool.render()[0]
    assert frame.shape == (9 * 12, 9 * 12, 3)
    np.testing.assert_array_equal(frame, ref.render())


@pytest.mark.parametrize(
    ("task_id", "options"),
    [
        ("MiniGrid-DoorKey-8x8-v0", {"agent_view_size": 5}),
        ("MiniGrid-DoorKey-8x8-v0", {"see_through_walls": True, "size": 7}),
        ("MiniGrid-Empty-8x8-v0", {"agent_start_pos": None, "size": 10}),
        ("MiniGrid-Fetch-8x8-N3-v0", {"numObjs": 5}),
        ("MiniGrid-KeyCorridorS3R3-v0", {"room_size": 4, "agent_view_size": 9}),
        ("MiniGrid-MultiRoom-N6-v0", {"minNumRooms": 3, "maxNumRooms": 4, "maxRoomSize": 6}),
        ("MiniGrid-LavaCrossingS9N1-v0", {"obstacle_type": "wall", "num_crossings": 3}),
    ],
)
def test_options_equal_minigrids_keywords(task_id: str, options: dict) -> None:
    pool = _make(task_id, num_envs=2, seed=13, **options)
    run_sync(pool, task_id, 2, 13, 60, np.random.default_rng(6), **options)


def test_observation_spaces() -> None:
    pool = _make("MiniGrid-DoorKey-5x5-v0", num_envs=2, agent_view_size=5)
    space = pool.observation_space
    assert space["image"].shape == (5, 5, 3) and space["image"].dtype == np.uint8
    assert space["mission"].shape == (96,) and space["mission"].dtype == np.uint8
    assert pool.action_space.n == 7
    assert _make("MiniGrid-Dynamic-Obstacles-5x5-v0").action_space.n == 3
    obs, _ = pool.reset()
    assert decode_mission(obs["mission"]) == ["use the key to open the door and then get to the goal"] * 2
    dm = envpool.make("MiniGrid-DoorKey-5x5-v0", env_type="dm", num_envs=1)
    ts = dm.reset()
    assert decode_mission(ts.observation.mission[0]) == "use the key to open the door and then get to the goal"
    gym = envpool.make("MiniGrid-Empty-5x5-v0", env_type="gym", num_envs=1)
    assert decode_mission(gym.reset()[0]["mission"][0]) == "get to the green goal square"


def test_mission_bytes_cuts_the_mission() -> None:
    pool = _make("MiniGrid-DoorKey-5x5-v0", mission_bytes=8)
    obs, _ = pool.reset()
    assert obs["mission"].shape == (1, 8)
    assert decode_mission(obs["mission"][0]) == "use the "


@pytest.mark.parametrize(
    ("task_id", "options"),
    [
        ("MiniGrid-Empty-8x8-v0", {"size": -3}),
        ("MiniGrid-Empty-8x8-v0", {"size": 2}),
        ("MiniGrid-Empty-8x8-v0", {"size": 10**9}),
        ("MiniGrid-DistShift1-v0", {"width": 10**9}),
        ("MiniGrid-KeyCorridorS3R3-v0", {"num_rows": 0}),
        ("MiniGrid-DoorKey-8x8-v0", {"agent_view_size": 4}),
        ("MiniGrid-DoorKey-8x8-v0", {"agent_view_size": 1}),
        ("MiniGrid-DoorKey-8x8-v0", {"agent_view_size": -7}),
        ("MiniGrid-DoorKey-8x8-v0", {"max_steps": 0}),
        ("MiniGrid-DoorKey-8x8-v0", {"max_steps": -5}),
        ("MiniGrid-KeyCorridorS3R3-v0", {"room_size": -1}),
        ("MiniGrid-Fetch-8x8-N3-v0", {"num_objs": 0}),
        ("MiniGrid-LavaCrossingS9N1-v0", {"size": 10}),
        ("MiniGrid-LavaCrossingS9N1-v0", {"obstacle_type": "water"}),
        ("MiniGrid-MemoryS7-v0", {"size": 8}),
        ("MiniGrid-Empty-8x8-v0", {"agent_start_pos": (0, 0)}),
        ("MiniGrid-Empty-8x8-v0", {"max_steps": 5, "max_episode_steps": 6}),
        # 5 objects kept apart in a 6x6 room may leave no cell for the next: minigrid would hang
        ("MiniGrid-PutNear-8x8-N3-v0", {"num_objs": 5}),
    ],
)
def test_bad_options_are_value_errors(task_id: str, options: dict) -> None:
    with pytest.raises(ValueError):
        _make(task_id, **options)


def test_bad_actions_are_value_errors_and_change_nothing() -> None:
    task_id = "MiniGrid-DoorKey-5x5-v0"
    pool = _make(task_id, num_envs=2, seed=1)
    obs0, _ = pool.reset()
    for bad in ([0, 7], [-1, 0], [2**32, 0]):
        with pytest.raises(ValueError):
            pool.step(np.array(bad))
    dyn = _make("MiniGrid-Dynamic-Obstacles-5x5-v0", num_envs=1)
    dyn.reset()
    with pytest.raises(ValueError):
        dyn.step(np.array([3]))
    # The pool is usable and its envs unchanged: stepping now matches a fresh minigrid run.
    ref = [reference(task_id) for _ in range(2)]
    for i, r in enumerate(ref):
        o, _ = r.reset(seed=1 + i)
        np.testing.assert_array_equal(obs0["image"][i], o["image"])
    obs, *_ = pool.step(np.array([1, 2]))
    for i, (r, a) in enumerate(zip(ref, (1, 2))):
        o, *_ = r.step(a)
        np.testing.assert_array_equal(obs["image"][i], o["image"])


def test_render_before_the_first_reset_is_the_empty_grid() -> None:
    """Before any reset a frame is the empty grid the env was made with (minigrid's own would
    fail: it has no agent yet), drawn as minigrid's Grid.render draws an empty grid."""
    from minigrid.core.grid import Grid

    pool = _make("MiniGrid-Empty-5x5-v0", render_mode="rgb_array", tile_size=8)
    frame = pool.render()[0]
    np.testing.assert_array_equal(frame, Grid(5, 5).render(8, agent_pos=(-1, -1)))


def test_envpool_12_module_path_imports() -> None:
    import importlib

    module = importlib.import_module("envpool.minigrid.registration")
    assert "registers every task" in module.__doc__


@pytest.mark.parametrize("task_id", ["MiniGrid-DoorKey-5x5-v0", "MiniGrid-Dynamic-Obstacles-6x6-v0"])
def test_fuzz_call_sequences_against_minigrid(task_id: str) -> None:
    """Random calls (steps of random subsets of envs, resets of subsets, whole resets, and
    out-of-range actions, which must change nothing) on a sync pool, each checked against
    minigrid's envs: a reset without a seed continues the env's generator, as minigrid's does."""
    from _minigrid_reference import Refs

    n = 4
    pool = _make(task_id, num_envs=n, seed=31, max_steps=12)
    refs = Refs(task_id, n, 31, False, max_steps=12)
    rng = np.random.default_rng(7)
    obs, info = pool.reset()
    for i in range(n):
        refs.check_reset(obs, info, i, i, f"env {i} reset")
    actions_n = int(pool.action_space.n)
    for call in range(300):
        what = rng.integers(0, 10)
        ids = np.sort(rng.choice(n, int(rng.integers(1, n + 1)), replace=False))
        if what == 0:
            obs, info = pool.reset(env_id=ids)
            for k, i in enumerate(ids):
                refs.check_reset(obs, info, k, int(i), f"call {call}: reset env {i}")
        elif what == 1:
            bad = rng.integers(0, actions_n, len(ids))
            bad[int(rng.integers(0, len(ids)))] = actions_n + int(rng.integers(0, 3))
            with pytest.raises(ValueError):
                pool.step(bad, env_id=ids)
        else:
            actions = rng.integers(0, actions_n, len(ids))
            result = pool.step(actions, env_id=ids)
            for k, i in enumerate(ids):
                refs.check_step(result, k, int(i), int(actions[k]), "next_step", f"call {call}: env {i}")
    assert refs.episodes >= 20
    refs.close()


def test_a_room_chain_that_cannot_fit_is_an_error_not_a_hang() -> None:
    """minigrid's MultiRoom retries forever; here reset gives up with a RuntimeError, and the
    pool's other envs are not harmed."""
    pool = _make("MiniGrid-MultiRoom-N2-S4-v0", num_envs=1, min_num_rooms=30, max_num_rooms=30, width=9, height=9)
    with pytest.raises(RuntimeError, match="could not place 30 rooms"):
        pool.reset()


def test_bench_gymnasium_engines_make_minigrids_own_envs() -> None:
    """envpool-bench's gymnasium-sync/-async engines import minigrid (which registers its ids,
    BabyAI's too, with gymnasium) in a fresh process, as AsyncVectorEnv's workers are."""
    from _isolated import run_python

    out = run_python(
        """
        import sys
        from envpool.bench.engines import gymnasium_vector as g
        assert "minigrid" not in sys.modules
        for task in ("MiniGrid-DoorKey-5x5-v0", "BabyAI-BossLevel-v0"):
            env = g._env_fn({"task": task, "kind": "minigrid"})()
            print(type(env.unwrapped).__name__, task in g._gymnasium_ids())
        """
    )
    assert out.stdout.split() == ["DoorKeyEnv", "True", "BossLevel", "True"]


def test_envpool_125s_random_start_is_minigrids_none() -> None:
    task_id = "MiniGrid-Empty-6x6-v0"
    pool = _make(task_id, num_envs=2, seed=2, agent_start_pos=(-1, -1), agent_start_dir=-1)
    run_sync(pool, task_id, 2, 2, 40, np.random.default_rng(2), agent_start_pos=None)
    with pytest.raises(ValueError):
        _make(task_id, agent_start_pos=(2, 2), agent_start_dir=-1)
