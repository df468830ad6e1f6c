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
built for). CleanRL 1.2.0 pins jax 0.4.8 and flax 0.6.8, older than the typed XLA
FFI that ``xla()`` is built on, and those flax releases do not import on current
JAX; so the venv runs current releases with two shims (``_JAX_COMPAT``):
``jax.tree_map`` (called by ``ppo_atari_envpool_xla_jax_scan.py``, removed in JAX
0.6) and flax's ``TrainState`` taking CleanRL's dataclass params (flax >= 0.7.5
assumes a dict).

    python tests/integrations/legacy/legacy_env.py [--jax]   # create it and print its python
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
_STAMP = "envpool-legacy-ready-v3"

# Shims for what CleanRL 1.2.0's JAX scripts need of JAX and flax releases older
# than those with the typed XLA FFI (the scripts pin jax 0.4.8 and flax 0.6.8),
# applied after import (importing jax at every interpreter start would slow down
# every process of the venv).
_JAX_COMPAT = '''"""CleanRL 1.2.0's JAX scripts on current JAX and flax (test venv only):
jax.tree_map (removed in JAX 0.6), and flax's TrainState with params that are not
a dict (flax >= 0.7.5 looks for an fp8 key with `in`, which a dataclass such as
CleanRL's AgentParams does not support; flax 0.6's update rule is used for them)."""
import importlib.abc
import importlib.util
import sys
from collections.abc import Mapping


def _jax(module):
    if not hasattr(module, "tree_map"):
        module.tree_map = module.tree_util.tree_map


def _train_state(module):
    import optax

    cls = module.TrainState
    apply_gradients, create = cls.apply_gradients, cls.create.__func__

    def apply_gradients_any(self, *, grads, **kwargs):
        if isinstance(grads, Mapping):
            return apply_gradients(self, grads=grads, **kwargs)
        updates, opt_state = self.tx.update(grads, self.opt_state, self.params)
        params = optax.apply_updates(self.params, updates)
        return self.replace(step=self.step + 1, params=params, opt_state=opt_state, **kwargs)

    def create_any(cls, *, apply_fn, params, tx, **kwargs):
        if isinstance(params, Mapping) or hasattr(params, "shape"):
            return create(cls, apply_fn=apply_fn, params=params, tx=tx, **kwargs)
        return cls(step=0, apply_fn=apply_fn, params=params, tx=tx, opt_state=tx.init(params), **kwargs)

    cls.apply_gradients = apply_gradients_any
    cls.create = classmethod(create_any)


_PATCHES = {"jax": _jax, "flax.training.train_state": _train_state}


class _AfterImport(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        patch = _PATCHES.pop(name, None)
        if patch is None:
            return None
        spec = importlib.util.find_spec(name)
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            patch(module)

        spec.loader.exec_module = exec_module
        return spec


sys.meta_path.insert(0, _AfterImport())
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
    tag = (
        f"py{sys.version_info.major}{sys.version_info.minor}-gym{GYM_VERSION}-cleanrl{CLEANRL_VERSION}{suffix}-{owner}"
    )
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
    want = pth_text + ("jax: " + " ".join(_JAX_PACKAGES + _main_versions()) + "\n" + _JAX_COMPAT if jax else "")
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
