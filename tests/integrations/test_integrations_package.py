"""envpool.integrations keeps every integration's stack optional."""

from __future__ import annotations

import subprocess
import sys

import pytest


def test_importing_the_package_imports_no_stack():
    code = (
        "import sys, envpool, envpool.integrations as m; "
        "assert 'stable_baselines3' not in sys.modules and 'torch' not in sys.modules, sorted(sys.modules); "
        "print(sorted(m.__all__))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "SB3VecEnv" in out and "DmSingleEnv" in out


def test_lazy_attributes():
    import envpool.integrations as m
    from envpool.integrations.dm_single import DmSingleEnv

    assert m.DmSingleEnv is DmSingleEnv
    with pytest.raises(AttributeError):
        m.NoSuchAdapter  # noqa: B018
    pytest.importorskip("stable_baselines3")
    from envpool.integrations.sb3 import SB3VecEnv

    assert m.SB3VecEnv is SB3VecEnv
