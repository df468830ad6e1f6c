"""CleanRL's published ``ppo_atari_envpool.py`` (cleanrl 1.2.0) runs unmodified
against our envpool, with the legacy ``gym`` 0.23.1 API it was written for; so do
its JAX scripts over ``xla()`` (``ppo_atari_envpool_xla_jax.py``,
``ppo_atari_envpool_xla_jax_scan.py`` and its eval, ``cleanrl_utils/evals/
ppo_envpool_jax_eval.py``), in a venv that adds flax and optax (see legacy_env.py).

Old gym lives only in a separate venv (see legacy_env.py): the main test
environment keeps the modern interfaces. The venv is built on first use
(network: PyPI), so these tests are slow-marked.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import envpool

sys.path.insert(0, str(Path(__file__).resolve().parent))
from legacy_env import GYM_VERSION, ensure_legacy_venv  # noqa: E402

# Slow; under pytest-xdist its cases share one worker, which builds the legacy venv once.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("legacy_venv")]


@pytest.fixture(scope="module")
def legacy_python() -> Path:
    try:
        return ensure_legacy_venv()
    except subprocess.CalledProcessError as e:  # no PyPI access, no venv module, ...
        pytest.skip(f"could not build the legacy gym venv: {e}")


@pytest.fixture(scope="module")
def legacy_jax_python() -> Path:
    for module in ("jax", "torch", "tensorboard"):  # from the main env (CleanRL logs with torch's SummaryWriter)
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"CleanRL's JAX scripts need {module} (test extra)")
    try:
        return ensure_legacy_venv(jax=True)
    except subprocess.CalledProcessError as e:
        pytest.skip(f"could not build the legacy gym + flax venv: {e}")


def _run(python: Path, args: list[str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PYTHONWARNINGS": "ignore"}
    return subprocess.run([str(python), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def test_main_environment_has_no_legacy_gym():
    """gym < 0.26 would switch env_type="gym" to the legacy 4-tuple API for the whole
    suite. gym 0.26 (TorchRL's envpool wrapper builds its specs with it) is fine."""
    spec = importlib.util.find_spec("gym")
    if spec is None:
        return
    from importlib.metadata import version

    major, minor = (int(x) for x in version("gym").split(".")[:2])
    assert (major, minor) >= (0, 26), f"legacy gym {version('gym')} leaked into the main environment: {spec.origin}"


def test_legacy_gym_interface(legacy_python, tmp_path):
    """In the legacy venv, env_type="gym" speaks gym 0.23: gym spaces, obs-only
    reset, 4-tuple step with info["TimeLimit.truncated"]."""
    script = textwrap.dedent(
        f"""
        import gym, numpy as np, envpool
        assert gym.__version__ == {GYM_VERSION!r}, gym.__version__
        assert envpool.__file__ == {envpool.__file__!r}, envpool.__file__  # our package
        envs = envpool.make("CartPole-v1", env_type="gym", num_envs=3, seed=0, max_episode_steps=4)
        assert isinstance(envs.action_space, gym.spaces.Discrete)
        assert isinstance(envs.observation_space, gym.spaces.Box) and envs.observation_space.shape == (4,)
        obs = envs.reset()
        assert isinstance(obs, np.ndarray) and obs.shape == (3, 4)
        for t in range(1, 5):
            out = envs.step(np.ones(3, dtype=np.int64))
            assert len(out) == 4
            obs, reward, done, info = out
            assert done.dtype == np.bool_ and (done == (t == 4)).all()
        assert info["TimeLimit.truncated"].all() and (info["elapsed_step"] == 4).all()
        envs.close()
        print("legacy-ok")
        """
    )
    proc = _run(legacy_python, ["-c", script], tmp_path)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "legacy-ok" in proc.stdout


def test_cleanrl_ppo_atari_envpool_runs_unmodified(legacy_python, tmp_path):
    task = next((t for t in ("Breakout-v5", "Pong-v5") if t in envpool.list_all_envs()), None)
    if task is None:
        pytest.skip("no Atari task registered in this build")
    for module in ("torch", "tensorboard"):  # the script's own imports, taken from the main env
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"CleanRL's script needs {module} (test extra)")
    locate = _run(
        legacy_python,
        ["-c", "import importlib.util as u; print(u.find_spec('cleanrl.ppo_atari_envpool').origin)"],
        tmp_path,
    )
    assert locate.returncode == 0, locate.stderr[-2000:]
    script = locate.stdout.strip()
    # 2048 steps: 4 updates of 4 envs x 128 steps, one epoch each
    args = ["--env-id", task, "--total-timesteps", "2048", "--num-envs", "4", "--num-steps", "128"]
    args += ["--update-epochs", "1", "--cuda", "False", "--seed", "1"]
    proc = _run(legacy_python, [script, *args], tmp_path)
    assert proc.returncode == 0, proc.stderr[-4000:]
    returns = [float(r) for r in re.findall(r"episodic_return=(-?[\d.]+)", proc.stdout)]
    sps = re.findall(r"SPS: (\d+)", proc.stdout)
    print(f"CleanRL ppo_atari_envpool.py on {task}, 2048 steps: returns {returns}, SPS per update {sps}")
    assert len(sps) == 4  # every update ran
    assert list((tmp_path / "runs").iterdir()), "no tensorboard run written"
    if task == "Breakout-v5":
        assert returns, "no game finished in 512 steps per env"


def test_legacy_gym_xla_step_is_the_legacy_4_tuple(legacy_python, tmp_path):
    """With gym 0.23, xla()'s step gives what step() gives: (obs, reward, done, info)
    with info["TimeLimit.truncated"], bit for bit, inside a jitted lax.scan."""
    if importlib.util.find_spec("jax") is None:
        pytest.skip("no jax (test extra)")
    script = textwrap.dedent(
        """
        import gym, jax, jax.numpy as jnp, numpy as np, envpool
        assert gym.__version__ == "0.23.1"
        cfg = dict(num_envs=3, seed=4, max_episode_steps=5)
        py, xp = (envpool.make("CartPole-v1", env_type="gym", **cfg) for _ in range(2))
        handle, recv, send, step = xp.xla()
        acts = np.random.default_rng(0).integers(0, 2, size=(12, 3)).astype(np.int32)
        py.reset(), xp.reset()
        expected = [py.step(a) for a in acts]
        handle, out = jax.jit(lambda h, a: jax.lax.scan(step, h, a))(handle, jnp.asarray(acts))
        assert len(out) == 4 and "TimeLimit.truncated" in out[3]
        for t, want in enumerate(expected):
            got = jax.tree.map(lambda x: np.asarray(x[t]), out)
            assert jax.tree.structure(want) == jax.tree.structure(got), t
            for w, g in zip(jax.tree.leaves(want), jax.tree.leaves(got)):
                assert w.dtype == g.dtype and w.tobytes() == g.tobytes(), t
        assert np.asarray(out[3]["TimeLimit.truncated"]).any() and np.asarray(out[2]).any()
        print("legacy-xla-ok")
        """
    )
    proc = _run(legacy_python, ["-c", script], tmp_path)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "legacy-xla-ok" in proc.stdout


@pytest.mark.parametrize("name", ["ppo_atari_envpool_xla_jax", "ppo_atari_envpool_xla_jax_scan"])
def test_cleanrl_jax_scripts_run_unmodified(legacy_jax_python, tmp_path, name):
    """3 updates of 4 Breakout envs x 16 steps, the rollout stepping the envs through
    xla() inside jit. The scan script also saves its model and runs CleanRL's eval
    (cleanrl_utils/evals/ppo_envpool_jax_eval.py: 10 episodes, a video of the first)."""
    task = "Breakout-v5"
    if task not in envpool.list_all_envs():
        pytest.skip("no Atari in this build")
    locate = _run(
        legacy_jax_python, ["-c", f"import importlib.util as u; print(u.find_spec('cleanrl.{name}').origin)"], tmp_path
    )
    assert locate.returncode == 0, locate.stderr[-2000:]
    args = ["--env-id", task, "--total-timesteps", "192", "--num-envs", "4", "--num-steps", "16"]
    args += ["--update-epochs", "1", "--cuda", "False", "--seed", "1"]
    scan = name.endswith("_scan")
    if scan:
        args += ["--save-model", "True"]
    proc = _run(legacy_jax_python, [locate.stdout.strip(), *args], tmp_path, timeout=1200)
    assert proc.returncode == 0, proc.stderr[-4000:]
    sps = re.findall(r"SPS: (\d+)", proc.stdout)
    print(f"CleanRL {name}.py on {task}: SPS per update {sps}")
    assert len(sps) == 3  # every update ran
    assert list((tmp_path / "runs").iterdir()), "no tensorboard run written"
    if scan:
        returns = re.findall(r"eval_episode=\d+, episodic_return=(-?[\d.]+)", proc.stdout)
        assert len(returns) == 10, proc.stdout[-2000:]
        assert list(tmp_path.glob("videos/*/0.mp4")), "the eval wrote no video"
