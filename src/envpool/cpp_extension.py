"""Build and load your own C++ families of environments at run time.

A family written against envpool's C++ SDK (``#include <envpool/envpool.h>``: ``Env``,
``EnvSpec``, ``Family``, a static ``FamilyRegistrar``) is compiled into a module, a plain
shared library, whose families join the engine's table; a task registered on them is made
like any other::

    from envpool import cpp_extension
    module = cpp_extension.load("grid", ["grid.cc"])       # compiled once, then cached
    envpool.register("Grid-v0", "Grid", max_episode_steps=50)
    envs = envpool.make("Grid-v0", env_type="gymnasium", num_envs=8)

``load`` compiles with the C++ compiler (``$CXX``, else ``c++``) and caches the module
under ``build_directory`` (default ``$ENVPOOL_EXTENSIONS_DIR/<name>``, else
``~/.cache/envpool_extensions/<name>``), keyed by a hash of the sources and the headers
they include, the flags, the compiler and envpool's version and ABI: it rebuilds only when
one of them changes. A module built with CMake (``envpool_add_extension``, see
``python -m envpool --cmake-dir``) is loaded with :func:`load_module`.

The modules a process loaded (and the tasks registered on their families) are loaded in
``envpool.ray``'s actors and in ``envpool-bench``'s worker processes as well.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import types
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from envpool import _envpool

__all__ = ["BuildError", "abi", "cmake_dir", "families", "include_dir", "load", "load_module", "loaded_modules"]

# Every compile: the SDK's language level; optimised as the engine's own families are
# (CMake's Release: -O3 -DNDEBUG; envs are hot loops; extra_cflags=["-UNDEBUG"] turns the
# debug checks of every out[key] / action[key] back on); hidden symbols so that the
# module's copy of the SDK's inline family table stays its own.
_CFLAGS = ("-std=c++20", "-O3", "-DNDEBUG", "-fPIC", "-fvisibility=hidden", "-fvisibility-inlines-hidden")
# An undefined symbol fails the build (with the linker's message), not the load.
_LDFLAGS = ("-shared", "-Wl,-z,defs")

_MODULES: dict[str, types.ModuleType] = {}  # real path -> module, in load order
_COMPILER_IDS: dict[tuple[str, ...], str] = {}


class BuildError(RuntimeError):
    """A module failed to build. The message carries the compiler's first error lines;
    ``log`` is the compiler's whole output, ``command`` the command that failed."""

    def __init__(self, message: str, log: str = "", command: list[str] | None = None) -> None:
        super().__init__(message)
        self.log = log
        self.command = command or []


def _package_dir() -> Path:
    # The compiled extension's folder: in an editable install the Python files stay in the
    # source tree while the build's install() outputs (headers, CMake package) lie next to it.
    return Path(_envpool.__file__).resolve().parent


def include_dir() -> str:
    """The installed SDK headers' folder: ``-I`` it for ``#include <envpool/envpool.h>``."""
    return str(_package_dir() / "include")


def cmake_dir() -> str:
    """The folder of ``envpoolConfig.cmake`` (``-Denvpool_DIR=...``)."""
    return str(_package_dir() / "share" / "cmake" / "envpool")


def abi() -> dict[str, Any]:
    """What a module must be built for: ``stamp`` (envpool and SDK version, compiler family
    and major version, C++ ABI), ``compiler`` (the engine's full compiler version)."""
    return dict(_envpool.sdk_abi())


def loaded_modules() -> list[str]:
    """Paths of the modules this process loaded, in load order."""
    return list(_MODULES)


def families(module: types.ModuleType | str | os.PathLike) -> list[str]:
    """The families ``module`` (a loaded module, or its path) registered."""
    if isinstance(module, types.ModuleType):
        return list(module.families)
    return list(load_module(module).families)


def load_module(path: str | os.PathLike, name: str | None = None, _task_modules: bool = True) -> types.ModuleType:
    """Load a built family module and register its families.

    Returns a module object (``__file__``, ``families``); loading the same file again
    returns it again. Raises ImportError for a file that is not an envpool extension or was
    built for another envpool version or C++ ABI (the message names both and how to
    rebuild), ValueError when one of its family names is already registered (nothing of the
    module is registered then) or a registration threw std::invalid_argument.
    """
    real = os.path.realpath(os.fspath(path))
    if real in _MODULES:
        return _MODULES[real]
    if not os.path.isfile(real):
        raise FileNotFoundError(f"no envpool extension at {os.fspath(path)!r}")
    names = list(_envpool.load_families(real))
    stem = Path(real).stem
    # Any: the module carries the attributes families and built besides a module's own.
    module: Any = types.ModuleType(name or stem, f"envpool extension module {real}: families {', '.join(names)}")
    module.__file__ = real
    module.families = tuple(names)
    module.built = False
    _MODULES[real] = module
    # A family may name a Python module whose import registers its task ids, as built-in ones do.
    # (Not in another process restoring this one's state: it carries the tasks themselves, and
    # the module may not be importable there.)
    if not _task_modules:
        return module
    meta = _envpool.families()
    for task_module in dict.fromkeys(meta[n]["task_module"] for n in names):
        if task_module:
            importlib.import_module(task_module)
    return module


def load(
    name: str,
    sources: str | os.PathLike | Iterable[str | os.PathLike],
    extra_cflags: Iterable[str] = (),
    build_directory: str | os.PathLike | None = None,
    verbose: bool = False,
    extra_ldflags: Iterable[str] = (),
) -> types.ModuleType:
    """Compile ``sources`` into a family module ``name``, load it and register its families.

    Args:
        name: the module's name (a C identifier); its build folder by default.
        sources: the C++ sources (their headers are tracked through the compiler's
            dependency output).
        extra_cflags: more compiler flags (``-I``, ``-D``, ``-O3``, ...).
        build_directory: where to build and cache it (default
            ``$ENVPOOL_EXTENSIONS_DIR/<name>``, else ``~/.cache/envpool_extensions/<name>``).
        verbose: print the commands and the compiler's output.
        extra_ldflags: more linker flags (``-L``, ``-l``).

    Returns the module (:func:`load_module`; the same object for every load of one build);
    its ``built`` attribute says whether the latest ``load`` of it compiled it. A compile error raises :class:`BuildError` carrying the compiler's
    first error lines.
    """
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise ValueError(f"name must be a C identifier (it names the module file), got {name!r}")
    if sys.platform == "win32":
        raise NotImplementedError(
            "envpool.cpp_extension.load() compiles with a GCC-compatible compiler (Linux, macOS); on Windows build "
            "the module with CMake (envpool_add_extension, see `python -m envpool --cmake-dir`) and load it with "
            "load_module()"
        )
    if isinstance(sources, (str, os.PathLike)):
        sources = [sources]
    srcs = [Path(s).resolve() for s in sources]
    if not srcs:
        raise ValueError("load() needs at least one source file")
    for s in srcs:
        if not s.is_file():
            raise FileNotFoundError(f"source file {str(s)!r} does not exist")
    cflags = [str(f) for f in extra_cflags]
    ldflags = [str(f) for f in extra_ldflags]
    build_dir = Path(build_directory) if build_directory is not None else _default_root() / name
    build_dir.mkdir(parents=True, exist_ok=True)
    cxx, compiler_id = _compiler()
    key = _sha(
        json.dumps(
            {
                "name": name,
                "abi": abi(),
                "include": include_dir(),
                "compiler": [cxx, compiler_id],
                "cflags": [*_CFLAGS, *cflags],
                "ldflags": [*_LDFLAGS, *ldflags],
                "sources": [str(s) for s in srcs],
            },
            sort_keys=True,
        ).encode()
    )
    record_path = build_dir / f"{name}.json"
    with _locked(build_dir / f"{name}.lock"):
        cached: Path | None = None
        record = _read_json(record_path)
        if record is not None and record.get("key") == key:
            digest = _digest(key, record.get("deps", []))
            if digest is not None and (build_dir / f"{name}_{digest}.so").is_file():
                cached = build_dir / f"{name}_{digest}.so"
        built = cached is None
        if cached is None:
            path = _build(name, srcs, cflags, ldflags, build_dir, cxx, key, verbose)
        else:
            path = cached
            if verbose:
                print(f"envpool.cpp_extension: {name}: up to date ({path})")
    module: Any = load_module(path, name)
    module.built = built
    return module


def _default_root() -> Path:
    root = os.environ.get("ENVPOOL_EXTENSIONS_DIR")
    if root:
        return Path(root)
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "envpool_extensions"


def _compiler() -> tuple[list[str], str]:
    """The compiler command (``$CXX``, else ``c++``) and its ``--version`` (part of the key)."""
    cxx = shlex.split(os.environ.get("CXX") or "") or [shutil.which("c++") or shutil.which("g++") or "c++"]
    key = tuple(cxx)
    if key not in _COMPILER_IDS:
        try:
            out = subprocess.run([*cxx, "--version"], capture_output=True, text=True, check=False)
        except OSError as e:
            raise BuildError(f"no C++ compiler {' '.join(cxx)!r} ({e}): install one, or set CXX") from None
        _COMPILER_IDS[key] = out.stdout.strip()
    return cxx, _COMPILER_IDS[key]


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _digest(key: str, deps: list[str]) -> str | None:
    """The build's name: the key and the contents of every file it was compiled from
    (None when one is gone)."""
    h = hashlib.sha256(key.encode())
    for dep in sorted(deps):
        try:
            content = Path(dep).read_bytes()
        except OSError:
            return None
        h.update(dep.encode() + b"\0" + hashlib.sha256(content).digest())
    return h.hexdigest()[:16]


def _read_json(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """One build of a module at a time across processes (e.g. several ranks loading it)."""
    import fcntl  # POSIX: load() refuses Windows before this

    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _parse_deps(text: str) -> list[str]:
    """The prerequisites of a make rule written by ``-MMD`` (escaped spaces kept)."""
    text = text.replace("\\\n", " ")
    _, _, rest = text.partition(": ")
    return [p.replace("\\ ", " ") for p in re.split(r"(?<!\\)\s+", rest.strip()) if p]


def _first_errors(output: str) -> str:
    """The compiler's (or linker's) first error and the lines that belong to it."""
    lines = output.splitlines()
    for i, line in enumerate(lines):
        if re.search(r"\berror\b|undefined reference|multiple definition|cannot find -l", line, re.IGNORECASE):
            snippet = [line]
            for follow in lines[i + 1 : i + 4]:
                if re.search(r"\b(error|note|warning|In file included)\b", follow) or not follow.strip():
                    break
                snippet.append(follow)
            return "\n".join(snippet)
    return "\n".join(lines[-10:])


def _run(cmd: list[str], verbose: bool) -> subprocess.CompletedProcess:
    if verbose:
        print("envpool.cpp_extension:", shlex.join(cmd))
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, check=False)
    except OSError as e:
        raise BuildError(f"cannot run {cmd[0]!r}: {e}", command=cmd) from None
    if verbose and (p.stdout or p.stderr):
        print(p.stdout + p.stderr, end="")
    return p


def _build(
    name: str,
    srcs: list[Path],
    cflags: list[str],
    ldflags: list[str],
    build_dir: Path,
    cxx: list[str],
    key: str,
    verbose: bool,
) -> Path:
    tmp = Path(tempfile.mkdtemp(prefix=f".{name}-build-", dir=build_dir))
    log_path = build_dir / f"{name}.log"
    try:
        objs = [tmp / f"{i}_{s.stem}.o" for i, s in enumerate(srcs)]
        compiles = [
            [*cxx, *_CFLAGS, f"-I{include_dir()}", *cflags, "-MMD", "-MF", f"{o}.d", "-c", str(s), "-o", str(o)]
            for s, o in zip(srcs, objs)
        ]
        with ThreadPoolExecutor(max_workers=max(1, min(len(compiles), os.cpu_count() or 1))) as ex:
            results = list(ex.map(lambda c: _run(c, verbose), compiles))
        link = [*cxx, *_CFLAGS, *cflags, *(str(o) for o in objs), "-o", str(tmp / "module.so"), *_LDFLAGS, *ldflags]
        steps = list(zip(compiles, results))
        if all(r.returncode == 0 for r in results):
            steps.append((link, _run(link, verbose)))
        log = "".join(f"$ {shlex.join(c)}\n{r.stdout}{r.stderr}" for c, r in steps)
        log_path.write_text(log)
        for cmd, r in steps:
            if r.returncode != 0:
                what = "linking" if cmd is link else "compiling"
                raise BuildError(
                    f"building envpool extension {name!r} failed ({what}):\n{_first_errors(r.stdout + r.stderr)}\n"
                    f"(full log: {log_path})",
                    log=log,
                    command=cmd,
                )
        found = {str(s) for s in srcs}
        for o in objs:
            found.update(_parse_deps(Path(f"{o}.d").read_text()))
        deps = sorted(os.path.realpath(d) for d in found)
        digest = _digest(key, deps)
        out = build_dir / f"{name}_{digest}.so"
        # A new file for every build: a process that loaded the old one keeps it, and
        # dlopen() of a path it has open would hand back the old code.
        os.replace(tmp / "module.so", out)
        record = tmp / "record.json"
        record.write_text(json.dumps({"key": key, "deps": deps, "module": str(out)}, indent=1))
        os.replace(record, build_dir / f"{name}.json")
        if verbose:
            print(f"envpool.cpp_extension: built {out}")
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# --- other processes (envpool.ray's actors, envpool-bench's workers) ---------------------


def _state(jsonable: bool = False) -> dict | None:
    """What another process needs to make this one's tasks on loaded families: the module
    paths and those tasks' registrations (None when no module is loaded). ``jsonable``
    leaves out tasks with a ``prepare`` callable (the bench passes JSON)."""
    if not _MODULES:
        return None
    from envpool.registration import list_all_envs, lookup

    ours = {f for m in _MODULES.values() for f in m.families}
    tasks = []
    for task_id in list_all_envs():
        ts = lookup(task_id)
        if ts.family not in ours or (jsonable and ts.prepare is not None):
            continue
        task: dict[str, Any] = {"task_id": task_id, "family": ts.family, "config": dict(ts.config)}
        if not jsonable:
            task["prepare"] = ts.prepare
        tasks.append(task)
    return {"modules": list(_MODULES), "tasks": tasks}


def _restore(state: dict | None) -> None:
    """Load the modules of :func:`_state` and register its tasks (those not yet registered)."""
    if not state:
        return
    from envpool.registration import list_all_envs, register

    for path in state["modules"]:
        load_module(path, _task_modules=False)
    have = set(list_all_envs())
    for task in state["tasks"]:
        if task["task_id"] not in have:
            register(task["task_id"], task["family"], prepare=task.get("prepare"), **task["config"])
