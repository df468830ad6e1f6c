"""A separate venv with the legacy ``gym`` package (< 0.26) that sees this
environment's packages (our envpool, numpy, torch, tensorboard) but keeps old
gym out of the main test environment.

The venv lives outside the repo (``$ENVPOOL_LEGACY_VENV`` or the temp dir) and
is reused between runs. Its only own packages are gym 0.23.1, gym-notices and
cleanrl 1.2.0 (scripts only, installed ``--no-deps``); a .pth file appends the
main interpreter's site dirs (processing their .pth files, so an editable
envpool install resolves as it does here).

    python tests/legacy/legacy_env.py      # create it and print its python
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

GYM_VERSION = "0.23.1"
CLEANRL_VERSION = "1.2.0"
_PACKAGES = [f"gym=={GYM_VERSION}", "gym-notices", f"cleanrl=={CLEANRL_VERSION}"]
_STAMP = "envpool-legacy-ready-v1"


def main_site_dirs() -> list[str]:
    """This interpreter's site dirs, in import order."""
    return [p for p in sys.path if p.endswith(("site-packages", "dist-packages")) and os.path.isdir(p)]


def default_venv_dir() -> Path:
    root = os.environ.get("ENVPOOL_LEGACY_VENV")
    if root:
        return Path(root)
    tag = f"py{sys.version_info.major}{sys.version_info.minor}-gym{GYM_VERSION}-cleanrl{CLEANRL_VERSION}"
    return Path(tempfile.gettempdir()) / f"envpool-legacy-{tag}"


def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def ensure_legacy_venv(venv: Path | None = None, site_dirs: list[str] | None = None) -> Path:
    """Create (once) the legacy venv and return its python."""
    venv = Path(venv or default_venv_dir())
    site_dirs = site_dirs if site_dirs is not None else main_site_dirs()
    python = venv_python(venv)
    pth_text = "import site; " + "; ".join(f"site.addsitedir({d!r})" for d in site_dirs) + "\n"
    stamp = venv / _STAMP
    if not (stamp.exists() and stamp.read_text() == pth_text):
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
        own_site = subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True, capture_output=True, text=True,
        ).stdout.strip()  # fmt: skip
        # legacy packages first (installed before the .pth exists, so pip sees
        # an empty env and --no-deps keeps it from touching anything else)
        subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--ignore-requires-python", *_PACKAGES],
            check=True,
        )
        Path(own_site, "_envpool_main_env.pth").write_text(pth_text)
        stamp.write_text(pth_text)
    return python


if __name__ == "__main__":
    print(ensure_legacy_venv())
