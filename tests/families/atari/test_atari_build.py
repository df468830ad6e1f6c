"""How ALE is built into the extension (third_party/ale/ale.cmake).

ALE is compiled with hidden visibility: none of its functions or data are
exported from ``_envpool`` (so calls inside ALE are direct, and ale-py's own
module, which exports the same C++ names, can never bind to our copy or we to
its). Checked on the dynamic symbol table with binutils' ``nm``.
"""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

import envpool
from envpool import _envpool


def test_no_ale_symbol_is_exported() -> None:
    if "Atari" not in _envpool.families():
        pytest.skip("the Atari family is not compiled in")
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("no nm (binutils)")
    out = subprocess.run([nm, "-D", "--defined-only", "-C", _envpool.__file__], capture_output=True, text=True,
                         check=True).stdout  # fmt: skip
    names = [line.split(" ", 2)[-1] for line in out.splitlines() if line.strip()]
    # ALE's own functions and data; a std:: template instantiated on an ALE type
    # (e.g. std::vector<ale::Action>) is emitted by our code as a weak symbol.
    ale = [n for n in names if n.startswith("ale::") or n.startswith("typeinfo for ale::")
           or n.startswith("vtable for ale::")]  # fmt: skip
    assert ale == [], ale[:10]
    assert any("PyInit__envpool" in n for n in names)
    # and ALE still runs: a reset gives Pong's stacked 84x84 frames, not a blank screen
    obs, info = envpool.make("Pong-v5", env_type="gymnasium", num_envs=1).reset()
    assert obs.shape == (1, 4, 84, 84) and obs.dtype == np.uint8 and obs.max() > obs.min()
    assert list(info["env_id"]) == [0]
