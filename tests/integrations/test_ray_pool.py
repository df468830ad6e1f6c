"""envpool.ray.make on a simulated 3-node Ray cluster (ray.cluster_utils.Cluster):
the same trajectories as a local pool, async semantics across actors, actor
failure, and no actors left after close()."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason="needs Ray (pip install 'envpool[ray]')")

from ray.cluster_utils import Cluster  # noqa: E402
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy  # noqa: E402

import envpool  # noqa: E402
import envpool.ray  # noqa: E402
from envpool.ray import ActorLostError  # noqa: E402

NODES = 3
# Every case here starts (or shares) a 3-node Ray cluster: ~1 min in all, kept out of the quick run.
# Slow; under pytest-xdist the Ray cases share one worker (one Ray at a time).
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]

ONE_PER_NODE = {"num_cpus": 1}  # each node has one CPU: actors land on different nodes


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 1, "object_store_memory": 80 * 2**20, "include_dashboard": False},
    )
    for _ in range(NODES - 1):
        c.add_node(num_cpus=1, object_store_memory=80 * 2**20)
    ray.init(address=c.address, logging_level="ERROR", log_to_driver=False)
    yield c
    ray.shutdown()
    c.shutdown()


@pytest.fixture
def pools(cluster):
    """Makes pools (envpool.ray.make's arguments) and closes them after the test."""
    made = []

    def make(*args, **kwargs):
        made.append(envpool.ray.make(*args, **kwargs))
        return made[-1]

    yield make
    for p in made:
        p.close()


def _fields(result, env_type):
    """The comparable arrays of a step/reset result."""
    if env_type == "dm":
        ts = result
        return {
            "obs": ts.observation.obs,
            "reward": ts.reward,
            "discount": ts.discount,
            "step_type": ts.step_type,
            "env_id": ts.observation.env_id,
            "elapsed_step": ts.observation.elapsed_step,
        }
    if len(result) == 2:
        obs, info = result
        out = {"obs": obs}
    else:
        obs, reward, terminated, truncated, info = result
        out = {"obs": obs, "reward": reward, "terminated": terminated, "truncated": truncated}
    for k, v in info.items():
        if k == "final_obs":
            out[k] = np.stack([np.zeros(4) if o is None else o for o in v])
        elif isinstance(v, np.ndarray):
            out[k] = v
        elif k == "final_info":
            out.update({f"final_info.{kk}": vv for kk, vv in v.items()})
    return out


def _assert_same(a, b, where=""):
    assert a.keys() == b.keys(), where
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=f"{where}: {k}")


@pytest.mark.parametrize(
    "env_type,mode", [("gymnasium", "next_step"), ("gymnasium", "same_step"), ("gym", "next_step"), ("dm", "next_step")]
)
def test_trajectories_equal_a_local_pool(pools, env_type, mode):
    n = 7  # actors of 3, 2, 2 envs, one per node
    remote = pools(
        "CartPole-v1", env_type, num_envs=n, num_actors=3, seed=5, autoreset_mode=mode, placement=ONE_PER_NODE
    )
    local = envpool.make("CartPole-v1", env_type, num_envs=n, seed=5, autoreset_mode=mode)
    assert len(set(remote.actor_nodes)) == NODES
    assert [ids.tolist() for ids in remote.actor_env_ids] == [[0, 1, 2], [3, 4], [5, 6]]
    _assert_same(_fields(remote.reset(), env_type), _fields(local.reset(), env_type), "reset")
    rng = np.random.default_rng(0)
    dones = 0
    for t in range(120):
        action = rng.integers(0, 2, size=n)
        a, b = remote.step(action), local.step(action)
        _assert_same(_fields(a, env_type), _fields(b, env_type), f"step {t}")
        if env_type != "dm":
            dones += int((a[2] | a[3]).sum())
    assert env_type == "dm" or dones > 5  # episodes ended (and restarted) on every actor
    local.close()


def test_atari_options_and_seeds_as_a_local_pool(pools):
    n = 5
    remote = pools("Pong-v5", "gymnasium", num_envs=n, num_actors=2, seed=3, episodic_life=True, placement=ONE_PER_NODE)
    local = envpool.make("Pong-v5", "gymnasium", num_envs=n, seed=3, episodic_life=True)
    assert remote.config["episodic_life"] is True
    _assert_same(_fields(remote.reset(), "gymnasium"), _fields(local.reset(), "gymnasium"), "reset")
    rng = np.random.default_rng(1)
    for t in range(30):
        action = rng.integers(0, 6, size=n)
        a = remote.step(action)
        _assert_same(_fields(a, "gymnasium"), _fields(local.step(action), "gymnasium"), f"step {t}")
    assert not a[0].flags.writeable  # Ray's object store views, read-only
    # reseeding: an int seed gives env i seed + i; a list one seed per env named
    _assert_same(_fields(remote.reset(seed=11), "gymnasium"), _fields(local.reset(seed=11), "gymnasium"), "seed=11")
    ids, seeds = [4, 0, 2], [7, 8, 9]
    got = remote.reset(env_id=ids, seed=seeds)
    np.testing.assert_array_equal(got[1]["env_id"], ids)
    _assert_same(_fields(got, "gymnasium"), _fields(local.reset(env_id=ids, seed=seeds), "gymnasium"), "reset ids")
    # rows come back in the order the env ids were named, across actors
    action = rng.integers(0, 6, size=3)
    got = remote.step(action, env_id=[3, 1, 4])
    np.testing.assert_array_equal(got[4]["env_id"], [3, 1, 4])
    _assert_same(_fields(got, "gymnasium"), _fields(local.step(action, env_id=[3, 1, 4]), "gymnasium"), "step ids")
    local.close()


def test_blackjack_tuple_obs_as_a_local_pool(pools):
    """tuple_obs=True: gymnasium's Tuple space, and batches of three int32 columns from every actor."""
    n = 5
    remote = pools(
        "Blackjack-v1", "gymnasium", num_envs=n, num_actors=2, seed=4, tuple_obs=True, placement=ONE_PER_NODE
    )
    local = envpool.make("Blackjack-v1", "gymnasium", num_envs=n, seed=4, tuple_obs=True)
    assert remote.observation_space == local.observation_space
    assert type(remote.observation_space).__name__ == "Tuple"

    def same(a, b, where):
        assert type(a[0]) is tuple and len(a[0]) == 3, where
        for col_a, col_b in zip(a[0], b[0]):
            assert col_a.dtype == np.int32 and col_a.shape == (n,), where
            np.testing.assert_array_equal(col_a, col_b, err_msg=where)
        _assert_same(_fields((None, *a[1:]), "gymnasium"), _fields((None, *b[1:]), "gymnasium"), where)

    same(remote.reset(), local.reset(), "reset")
    rng = np.random.default_rng(3)
    dones = 0
    for t in range(40):
        action = rng.integers(0, 2, size=n)
        a = remote.step(action)
        same(a, local.step(action), f"step {t}")
        dones += int((a[2] | a[3]).sum())
    assert dones > 5  # hands ended and new ones were dealt on both actors
    local.close()


def test_seed_list_env_options_and_disabled_autoreset_as_a_local_pool(pools):
    """seed=[...] and env_options reach the actor holding each env; a done env of a
    disabled-autoreset pool is refused by the driver before any actor steps."""
    n = 5
    opts = {"seed": [9, 2, 7, 4, 1], "env_options": {3: {"max_episode_steps": 4}}, "autoreset_mode": "disabled"}
    remote = pools("CartPole-v1", "gymnasium", num_envs=n, num_actors=2, placement=ONE_PER_NODE, **opts)
    local = envpool.make("CartPole-v1", "gymnasium", num_envs=n, **opts)
    assert remote.config["seed"] == opts["seed"]
    _assert_same(_fields(remote.reset(), "gymnasium"), _fields(local.reset(), "gymnasium"), "reset")
    for t in range(4):  # alternating pushes: only env 3's limit ends an episode
        action = np.full(n, t % 2)
        got = remote.step(action)
        _assert_same(_fields(got, "gymnasium"), _fields(local.step(action), "gymnasium"), f"step {t}")
    assert list(got[3]) == [False, False, False, True, False]
    for env in (remote, local):
        with pytest.raises(ValueError, match="env 3 is done"):
            env.step(np.zeros(n, np.int64))
        assert env._pool.in_flight == 0
    ids = [0, 1, 2, 4]
    got = remote.step(np.zeros(4, np.int64), env_id=ids)
    _assert_same(_fields(got, "gymnasium"), _fields(local.step(np.zeros(4, np.int64), env_id=ids), "gymnasium"), "4")
    local.close()


def test_frame_stack_and_reset_mask(pools):
    remote = pools("Hopper-v5", "gymnasium", num_envs=4, num_actors=2, seed=1, frame_stack=3)
    local = envpool.make("Hopper-v5", "gymnasium", num_envs=4, seed=1, frame_stack=3)
    _assert_same(_fields(remote.reset(), "gymnasium"), _fields(local.reset(), "gymnasium"))
    rng = np.random.default_rng(2)
    for _ in range(10):
        action = rng.uniform(-1, 1, size=(4, 3)).astype(np.float32)
        _assert_same(_fields(remote.step(action), "gymnasium"), _fields(local.step(action), "gymnasium"))
    mask = np.array([False, True, False, True])
    a, b = remote.reset(options={"reset_mask": mask}), local.reset(options={"reset_mask": mask})
    np.testing.assert_array_equal(a[0], b[0])
    local.close()


def _block(actor, seconds):
    """Queue a sleep in an actor: its next calls wait behind it."""
    return actor.__ray_call__.remote(lambda self: time.sleep(seconds))


def _block_until(actor, flag, limit=120.0):
    """Queue a wait in an actor until the file `flag` exists (the cluster's nodes
    share this machine): its next calls wait behind it, for as long as the test
    wants. `limit` only keeps a failing test from hanging."""

    def wait(self):
        end = time.monotonic() + limit
        while not os.path.exists(flag) and time.monotonic() < end:
            time.sleep(0.01)

    return actor.__ray_call__.remote(wait)


def _kill_and_wait(actor, timeout=30.0):
    """ray.kill returns before the actor is gone: a call made right after it can still run.
    Waits until the actor refuses calls."""
    ray.kill(actor)
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            ray.get(actor.__ray_ready__.remote(), timeout=5)
        except (ray.exceptions.RayActorError, ray.exceptions.GetTimeoutError):
            return
        time.sleep(0.05)
    raise AssertionError("the killed actor still answers")


def test_async_recv_returns_the_first_envs_to_finish_across_actors(pools, tmp_path):
    n, b = 6, 2
    envs = pools("CartPole-v1", "gymnasium", num_envs=n, num_actors=3, batch_size=b, seed=0, placement=ONE_PER_NODE)
    assert envs.is_async
    slow = set(envs.actor_env_ids[0].tolist())
    envs.async_reset()
    seen = []
    for _ in range(3):
        *_, info = envs.recv()
        assert len(info["env_id"]) == b
        seen += info["env_id"].tolist()
    assert sorted(seen) == list(range(n))
    flag = tmp_path / "release"
    blocked = _block_until(envs.actors[0], str(flag))
    envs.send(np.zeros(n, dtype=np.int64), np.arange(n))
    first = [envs.recv()[4]["env_id"].tolist() for _ in range(2)]
    # the other actors' envs came back while actor 0 was still held: recv waited for none of its envs
    assert not ray.wait([blocked], timeout=0)[0]
    assert not slow & set(first[0] + first[1])
    flag.touch()
    last = envs.recv()[4]["env_id"].tolist()
    assert set(last) == slow
    # a batch larger than one actor's call takes rows from several calls
    envs.close()
    envs = pools("CartPole-v1", "gym", num_envs=n, num_actors=3, batch_size=3, seed=0, placement=ONE_PER_NODE)
    envs.async_reset()
    ids = np.concatenate([envs.recv()[-1]["env_id"] for _ in range(2)])
    assert sorted(ids.tolist()) == list(range(n))


def test_async_per_env_trajectories_equal_a_local_pool(pools):
    """Whatever order envs come back in, env i steps as env i of a local pool given the
    same actions (here a function of the env id and its step count)."""
    n = 6
    envs = pools("CartPole-v1", "gymnasium", num_envs=n, num_actors=3, batch_size=2, seed=9, placement=ONE_PER_NODE)
    local = envpool.make("CartPole-v1", "gymnasium", num_envs=n, seed=9)

    def action_of(i: int, k: int) -> int:
        return (i * 7 + k * 3 + k // 5) % 2

    got = {i: [] for i in range(n)}
    count = np.zeros(n, dtype=int)
    envs.async_reset()
    # Batches are the first envs to finish: under load an actor's envs can come back
    # less often than the others (one CI run had an env with under 10 rows after 60
    # calls), so receive until every env has 10 (a bounded number of calls).
    calls = 0
    while calls < 60 or (min(len(v) for v in got.values()) < 10 and calls < 1000):
        calls += 1
        obs, reward, terminated, truncated, info = envs.recv()
        ids = info["env_id"]
        for row, i in enumerate(ids):
            got[i].append((obs[row].copy(), reward[row], terminated[row], truncated[row]))
        envs.send(np.array([action_of(i, count[i]) for i in ids]), ids)
        count[ids] += 1
    want = {i: [] for i in range(n)}
    obs, _ = local.reset()
    for i in range(n):
        want[i].append((obs[i], 0.0, False, False))
    for k in range(max(len(v) for v in got.values())):
        obs, reward, terminated, truncated, _ = local.step(np.array([action_of(i, k) for i in range(n)]))
        for i in range(n):
            want[i].append((obs[i], reward[i], terminated[i], truncated[i]))
    for i in range(n):
        assert len(got[i]) >= 10
        for k, (g, w) in enumerate(zip(got[i], want[i], strict=False)):
            np.testing.assert_array_equal(g[0], w[0], err_msg=f"env {i} step {k}")
            assert g[1:] == w[1:], (i, k)
    local.close()


def test_async_misuse_is_refused_as_a_local_pool(pools):
    envs = pools("CartPole-v1", "gymnasium", num_envs=4, num_actors=2, batch_size=2)
    with pytest.raises(RuntimeError, match="would wait forever"):
        envs.recv()
    envs.async_reset()
    with pytest.raises(ValueError, match="still in flight"):
        envs.send(np.zeros(1, dtype=np.int64), [0])
    *_, info = envs.recv()
    envs.send(np.zeros(2, dtype=np.int64), info["env_id"])
    with pytest.raises(ValueError, match="out of range"):
        envs.send(np.zeros(1, dtype=np.int64), [4])
    sync = pools("CartPole-v1", "dm", num_envs=2, num_actors=2)
    with pytest.raises(RuntimeError, match="nothing in flight"):
        sync.recv()


def test_a_refused_action_changes_nothing(pools):
    remote = pools("CartPole-v1", "gymnasium", num_envs=4, num_actors=2, seed=2)
    local = envpool.make("CartPole-v1", "gymnasium", num_envs=4, seed=2)
    remote.reset()
    local.reset()
    with pytest.raises(ValueError, match="out of range"):
        remote.step(np.array([0, 1, 5, 0]))  # 5 is no CartPole action (an env of actor 1)
    with pytest.raises(ValueError, match="one row per env"):
        remote.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(TypeError, match="dtype"):
        remote.step(np.zeros(4, dtype=np.float32))
    action = np.array([1, 0, 1, 1])
    _assert_same(_fields(remote.step(action), "gymnasium"), _fields(local.step(action), "gymnasium"))
    local.close()


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_actor_death_raises_naming_the_lost_env_ids(pools, mode):
    n = 6
    batch = n if mode == "sync" else 2
    envs = pools("CartPole-v1", "gymnasium", num_envs=n, num_actors=3, batch_size=batch, placement=ONE_PER_NODE)
    lost = envs.actor_env_ids[1]
    if mode == "sync":
        envs.reset()
        _kill_and_wait(envs.actors[1])
        with pytest.raises(ActorLostError, match=r"actor 1 .*envs 2\.\.3") as err:
            envs.step(np.zeros(n, dtype=np.int64))
        np.testing.assert_array_equal(err.value.lost_env_ids, lost)
        # the other actors' envs go on; the lost ones are refused at once
        _, reward, *_ = envs.step(np.zeros(4, dtype=np.int64), env_id=[0, 1, 4, 5])
        assert reward.shape == (4,)
        with pytest.raises(ActorLostError):
            envs.step(np.zeros(1, dtype=np.int64), env_id=[3])
    else:
        envs.async_reset()
        for _ in range(3):  # every env's reset row
            envs.recv()
        _block(envs.actors[1], 5.0)  # its envs' steps are still in flight when it dies
        envs.send(np.zeros(n, dtype=np.int64), np.arange(n))
        for _ in range(2):
            *_, info = envs.recv()
            assert not set(info["env_id"].tolist()) & set(lost.tolist())
            envs.send(np.zeros(2, dtype=np.int64), info["env_id"])
        ray.kill(envs.actors[1])
        with pytest.raises(ActorLostError) as err:
            for _ in range(10):
                *_, info = envs.recv()
                envs.send(np.zeros(len(info["env_id"]), dtype=np.int64), info["env_id"])
        np.testing.assert_array_equal(err.value.lost_env_ids, lost)


def _cpus_free(total: float, timeout: float = 20.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if ray.available_resources().get("CPU", 0.0) >= total:
            return True
        time.sleep(0.2)
    return False


def _dead(actor, timeout: float = 30.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            ray.get(actor.info.remote(), timeout=timeout)
        except ray.exceptions.RayActorError:
            return True
        time.sleep(0.2)
    return False


def test_close_ends_every_actor(pools):
    total = ray.cluster_resources()["CPU"]
    assert _cpus_free(total)
    envs = pools("CartPole-v1", "gym", num_envs=6, num_actors=3, placement=ONE_PER_NODE)
    handles = envs.actors
    envs.reset()
    assert ray.available_resources().get("CPU", 0.0) == 0.0  # one CPU each, on every node
    envs.close()
    assert all(_dead(h) for h in handles)  # ray.kill ends them (asynchronously: a call racing it may still run)
    assert _cpus_free(total)  # nothing left holding the nodes
    with pytest.raises(RuntimeError, match="closed"):
        envs.step(np.zeros(6, dtype=np.int64))
    # reset() after close() starts new actors, as a local pool rebuilds itself
    obs, _ = envs.reset()
    assert obs.shape == (6, 4) and not set(map(id, envs.actors)) & set(map(id, handles))
    envs.close()
    assert _cpus_free(total)


def test_actors_that_cannot_start_time_out_and_are_ended(cluster):
    total = ray.cluster_resources()["CPU"]
    with pytest.raises(TimeoutError, match="did not all start within 2.0 s"):
        envpool.ray.make(
            "CartPole-v1", "gymnasium", num_envs=4, num_actors=4, placement=ONE_PER_NODE, start_timeout=2.0
        )
    assert _cpus_free(total)  # the three that did start were ended too


def test_placement_per_actor(pools, cluster):
    nodes = [n["NodeID"] for n in ray.nodes() if n["Alive"]]
    assert len(nodes) == NODES
    want = [nodes[2], nodes[0]]
    placement = [{"scheduling_strategy": NodeAffinitySchedulingStrategy(node, soft=False)} for node in want]
    envs = pools("CartPole-v1", "gymnasium", num_envs=4, num_actors=2, placement=placement)
    assert envs.actor_nodes == want
    with pytest.raises(ValueError, match="one per actor"):
        envpool.ray.make("CartPole-v1", "gymnasium", num_envs=4, num_actors=3, placement=placement)
    with pytest.raises(ValueError, match="num_actors"):
        envpool.ray.make("CartPole-v1", "gymnasium", num_envs=2, num_actors=3)


_ENV_ERROR_SCRIPT = """
import json, numpy as np, ray, envpool, envpool.ray

def register_busy():  # the test-only Busy family as a task, in every Ray worker too
    import envpool
    if "Busy-v0" not in envpool.list_all_envs():
        envpool.register("Busy-v0", "Busy")

register_busy()
ray.init(address="local", num_cpus=2, include_dashboard=False, logging_level="ERROR", log_to_driver=False,
         runtime_env={"worker_process_setup_hook": register_busy})
out = {}
for name, envs in [("local", envpool.make("Busy-v0", "gymnasium", num_envs=4)),
                   ("ray", envpool.ray.make("Busy-v0", "gymnasium", num_envs=4, num_actors=2))]:
    envs.reset()
    try:
        envs.step(np.array([0, 0, -1, 0]))  # env 2 (actor 1's first env) throws std::invalid_argument
    except Exception as e:
        obs, reward, terminated, truncated, info = e.result
        out[name] = {"type": type(e).__name__, "message": str(e), "env_ids": e.env_ids.tolist(),
                     "failed": e.failed_env_ids.tolist(), "terminated": terminated.tolist(),
                     "steps": obs[:, 1].tolist()}
    obs, *_ = envs.step(np.zeros(4, dtype=np.int32))  # every env may be sent again
    out[name]["after"] = obs[:, 1:].tolist()  # (steps since reset, resets): env 2 was reset
    try:  # env 3 (actor 1) throws std::out_of_range in row 1, env 1 (actor 0, like row 0) invalid_argument
        envs.step(np.array([0, -2, -1], dtype=np.int32), np.array([0, 3, 1]))
    except Exception as e:
        out[name]["two"] = {"type": type(e).__name__, "message": str(e), "failed": e.failed_env_ids.tolist(),
                            "rows": e.result[-1]["env_id"].tolist()}
    envs.close()
print(json.dumps(out))
"""


@pytest.mark.slow  # ~9 s
def test_env_errors_carry_global_env_ids_as_a_local_pool():
    import json
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", _ENV_ERROR_SCRIPT], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["ray"] == out["local"]
    assert out["ray"]["type"] == "ValueError" and out["ray"]["message"].startswith("env 2 failed: Busy")
    assert out["ray"]["failed"] == [2] and out["ray"]["terminated"] == [False, False, True, False]
    # Several failures: the first row's exception, the failed envs in row order (not actor order).
    assert out["ray"]["two"]["type"] == "IndexError" and out["ray"]["two"]["failed"] == [3, 1]
    assert out["ray"]["two"]["message"].startswith("envs 3, 1 failed: Busy: asked to fail with out_of_range")


def test_multi_task_lists_are_refused_before_any_actor_starts() -> None:
    import envpool.ray

    with pytest.raises(NotImplementedError, match="multi-task"):
        envpool.ray.make(["CartPole-v1", "CartPole-v0"], "gymnasium", num_envs=4)


def test_dm_same_step_is_refused_before_any_actor_starts() -> None:
    """As a local dm pool: a ValueError naming the mode, not an actor's death."""
    import envpool.ray

    with pytest.raises(ValueError, match="same_step.*dm_env"):
        envpool.ray.make("CartPole-v1", "dm", num_envs=4, autoreset_mode="same_step")


def test_gym_same_step_gives_the_local_pools_final_entries(pools) -> None:
    local = envpool.make("CartPole-v1", "gym", num_envs=4, seed=3, autoreset_mode="same_step", max_episode_steps=2)
    remote = pools("CartPole-v1", "gym", num_envs=4, seed=3, autoreset_mode="same_step", max_episode_steps=2)
    local.reset()
    remote.reset()
    for _ in range(2):
        want, got = local.step(np.zeros(4, np.int64))[-1], remote.step(np.zeros(4, np.int64))[-1]
    np.testing.assert_array_equal(got["_final_observation"], want["_final_observation"])
    assert want["_final_observation"].all()
    for i in range(4):
        np.testing.assert_array_equal(got["final_observation"][i], want["final_observation"][i])
        assert got["final_info"][i] == want["final_info"][i]
    local.close()
