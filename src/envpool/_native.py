"""Imports envpool's compiled extension, ``envpool._envpool``.

The extension links MuJoCo's library from the ``mujoco`` package through a relative search path
(``$ORIGIN/../mujoco``: the mujoco package installed beside envpool). Where the two are installed
in different places (``pip install --target``, PYTHONPATH overlays, some conda layouts), the
library is loaded here from the mujoco package that Python itself would import, and the
extension's import is tried again. A Python started in a source checkout that imports the
source folder rather than an installed envpool gets an ImportError saying so.
"""

from __future__ import annotations

import ctypes
import importlib
import importlib.util
import os
import sys
from types import ModuleType

# The libmujoco file name the extension is linked against (its soname).
MUJOCO_LIBRARY = "libmujoco.so.3.17.0"


def mujoco_library_path() -> str | None:
    """The path of MUJOCO_LIBRARY in the mujoco package Python would import (None if absent)."""
    spec = importlib.util.find_spec("mujoco")
    if spec is None or not spec.origin:
        return None
    path = os.path.join(os.path.dirname(spec.origin), MUJOCO_LIBRARY)
    return path if os.path.isfile(path) else None


def _missing_extension(package_dir: str, error: ImportError) -> ImportError:
    return ImportError(
        f"envpool's compiled extension (_envpool) is not in {package_dir}: this Python imported "
        "envpool from a folder that was never built, such as a source checkout's src/envpool. "
        "Install envpool (pip install envpool, or pip install . in the checkout) and run Python "
        "from outside the source folder, or remove that folder from sys.path/PYTHONPATH."
    ).with_traceback(error.__traceback__)


def load() -> ModuleType:
    """Import and return ``envpool._envpool``, loading mujoco's library first where needed."""
    package_dir = os.path.dirname(os.path.abspath(__file__))
    try:
        return importlib.import_module("envpool._envpool")
    except ImportError as error:
        message = str(error)
        if MUJOCO_LIBRARY not in message:
            if not any(name.startswith("_envpool.") for name in os.listdir(package_dir)):
                raise _missing_extension(package_dir, error) from None
            raise
        path = mujoco_library_path() if sys.platform.startswith("linux") else None
        if path is None:
            raise ImportError(
                f"{message}. envpool loads MuJoCo's library from the mujoco package "
                "(mujoco==3.17.0), which Python cannot find here: pip install mujoco==3.17.0"
            ) from error
    # RTLD_GLOBAL: the extension's reference to the soname binds to the loaded copy.
    ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    return importlib.import_module("envpool._envpool")
