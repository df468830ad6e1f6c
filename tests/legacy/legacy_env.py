"""A separate venv with the legacy ``gym`` package (< 0.26) that sees this
environment's packages (our envpool, numpy, torch, tensorboard, jax) but keeps
old gym out of the main test environment.

The venv lives outside the repo (``$ENVPOOL_LEGACY_VENV`` or the temp dir, named
after this interpreter's site dirs, so two checkouts never share one) and is
reused between runs. Its only own packages are gym 0.23.1, gym-notices and
cleanrl 1.2.0 (scripts only, installed ``--no-deps``); a .pth file appends the
main interpreter's site dirs (processing their .pth files, so an editable
envpool install resolves as it does here).

The ``jax`` variant (for CleanRL's JAX scripts) also has flax, optax and moviepy
(with the dependencies this environment lacks; jax, jaxlib and numpy are pinned
to this environment's versions, so envpool's XLA handlers meet the jaxlib they were
built for), and restores ``jax.tree_map``, which CleanRL 1.2.0's
``ppo_atari_envpool_xla_jax_scan.py`` calls and JAX removed in 0.6.

    python tests/legacy/legacy_env.py [--jax]   # create it and print its python
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

GYM_VERSION = "0.23.1"
CLEANRL_VERSION = "1.2.0"
_PACKAGES = [f"gym=={GYM_VERSION}", "gym-notices", f"cleanrl=={CLEANRL_VERSION}"]
# CleanRL's JAX scripts: their imports beyond this environment's, and what the
# eval (cleanrl_utils/evals/ppo_envpool_jax_eval.py) needs to write its video.
_JAX_PACKAGES = ["flax", "optax", "moviepy", "imageio-ffmpeg"]
_PINNED_FROM_MAIN = ["jax", "jaxlib", "numpy", "ml_dtypes", "scipy", "opt_einsum"]
_STAMP = "envpool-legacy-ready-v2"

# jax.tree_map came back lazily: importing jax at every interpreter start would
# slow down every process of the venv.
_JAX_COMPAT = '''"""jax.tree_map for CleanRL 1.2.0's scripts (JAX removed it in 0.6)."""
import importlib.abc
import importlib.util
import sys


class _RestoreTreeMap(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != "jax":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec("jax")
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            if not hasattr(module, "tree_map"):
                module.tree_map = module.tree_util.tree_map

        spec.loader.exec_module = exec_module
        return spec


sys.meta_path.insert(0, _RestoreTreeMap())
'''


def main_site_dirs() -> list[str]:
    """This interpreter's site dirs, in import order."""
    return [p for p in sys.path if p.endswith(("site-packages", "dist-packages")) and os.path.isdir(p)]


def default_venv_dir(jax: bool = False) -> Path:
    root = os.environ.get("ENVPOOL_LEGACY_VENV")
    suffix = "-jax" if jax else ""
    if root:
        return Path(root + suffix)
    owner = hashlib.sha1("\n".join(main_site_dirs()).encode()).hexdigest()[:8]
    tag = f"py{sys.version_info.major}{sys.version_info.minor}-gym{GYM_VERSION}-cleanrl{CLEANRL_VERSION}{suffix}-{owner}"
    return Path(tempfile.gettempdir()) / f"envpool-legacy-{tag}"


def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def _main_versions() -> list[str]:
    pins = []
    for name in _PINNED_FROM_MAIN:
        try:
            pins.append(f"{name}=={version(name)}")
        except PackageNotFoundError:
            pass
    return pins


def ensure_legacy_venv(venv: Path | None = None, site_dirs: list[str] | None = None, jax: bool = False) -> Path:
    """Create (once) the legacy venv (with CleanRL's JAX dependencies when ``jax``)
    and return its python."""
    venv = Path(venv or default_venv_dir(jax))
    site_dirs = site_dirs if site_dirs is not None else main_site_dirs()
    python = venv_python(venv)
    pth_text = "import site; " + "; ".join(f"site.addsitedir({d!r})" for d in site_dirs) + "\n"
    want = pth_text + ("jax: " + " ".join(_JAX_PACKAGES + _main_versions()) + "\n" if jax else "")
    stamp = venv / _STAMP
    if not (stamp.exists() and stamp.read_text() == want):
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
        if jax:
            # After the .pth: pip sees this environment's packages as installed and
            # adds only what is missing; the pins keep jax/jaxlib/numpy those here.
            constraints = venv / "constraints.txt"
            constraints.write_text("\n".join(_main_versions()) + "\n")
            subprocess.run(
                [str(python), "-m", "pip", "install", "--quiet", "-c", str(constraints), *_JAX_PACKAGES], check=True
            )
            Path(own_site, "_envpool_jax_compat.py").write_text(_JAX_COMPAT)
            Path(own_site, "_envpool_jax_compat.pth").write_text("import _envpool_jax_compat\n")
        stamp.write_text(want)
    return python


if __name__ == "__main__":
    print(ensure_legacy_venv(jax="--jax" in sys.argv[1:]))
