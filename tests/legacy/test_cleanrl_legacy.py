"""CleanRL's published ``ppo_atari_envpool.py`` (cleanrl 1.2.0) runs unmodified
against our envpool, with the legacy ``gym`` 0.23.1 API it was written for.

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

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def legacy_python() -> Path:
    try:
        return ensure_legacy_venv()
    except subprocess.CalledProcessError as e:  # no PyPI access, no venv module, ...
        pytest.skip(f"could not build the legacy gym venv: {e}")


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
