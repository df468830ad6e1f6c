"""Cross-checks envpool's C++ for Windows x86_64 and macOS arm64 from Linux.

  python tools/cross_check.py tree  [--target windows|macos] [-j 2]
      compiles every translation unit a build for the target compiles (the
      binding, every family, the C++ tests) with -Wall -Wextra -Werror, to
      object files (not linked: there is no CPython library of the target
      here).
  python tools/cross_check.py wine  [--only core|platform|mujoco]
      builds the engine's C++ core tests (tests/core/cpp/test_core.cc) and
      the platform tests (tests/platform/cpp/test_platform.cc) for Windows,
      statically linked, and runs them under wine64; each must print "all ok".
      mujoco: links tests/platform/cpp/mujoco_link.cc against the mujoco
      wheel's Windows mujoco.dll (pip download) directly and through an
      import library made from its exports, and runs it under wine64.

Toolchains: Debian's mingw-w64 (x86_64-w64-mingw32-g++-posix: the posix
thread model, which has std::thread) and wine64; PyPI's ziglang (its clang
with the macOS SDK's headers: `python -m ziglang c++ -target aarch64-macos`).
What stands in for the dependencies of the target:
  - pybind11, MuJoCo (the mujoco wheel's include/), XLA's FFI headers
    (jaxlib's include/): the installed packages' headers, the same on every
    platform;
  - ALE and Box2D: their sdists (as third_party/ builds them: pip download
    unless ENVPOOL_ALE_SDIST / ENVPOOL_BOX2D_SDIST name local copies), unpacked
    under the cache folder, Box2D's b2Assert patched as box2d.cmake does;
  - Python.h: this Python's headers. For macOS (LP64 like Linux) as they are;
    for Windows through a pyconfig.h that includes this one and then states
    Windows' facts (no POSIX headers, 32-bit long, 16-bit wchar_t, Windows
    threads). So what is proved for the binding is that our code and
    pybind11 compile with the target's compiler, C++ library, system
    headers and type sizes against CPython 3.11's API, not that they link
    against the target's python3.dll / libpython.
Exit status 0 when everything passed; a toolchain that is missing is an
error (exit 2) naming what to install.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import importlib.metadata
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ALE_VERSION = "0.12.1"  # third_party/ale/ale.cmake
BOX2D_VERSION = "2.3.8"  # third_party/box2d/box2d.cmake
MINGW = "x86_64-w64-mingw32-g++-posix"
FLAGS = ["-std=c++20", "-O2", "-Wall", "-Wextra", "-Werror"]
# Sources that only a Linux build compiles: MuJoCo's GL contexts (EGL or
# OSMesa) and its render server (render_unsupported.cc stands in elsewhere).
LINUX_ONLY = {"cpp/mujoco/gl_context.cc", "cpp/mujoco/render_process.cc", "cpp/mujoco/render_server.cc"}
# Per-source options, as the CMake files set them.
EXACT_FLOAT = ["-ffp-contract=off", "-fno-fast-math"]
SOURCE_FLAGS = {
    "cpp/atari/resize.cc": EXACT_FLOAT,
    "cpp/box2d/register.cc": EXACT_FLOAT,
    # The test deliberately indexes a key out of range to see it refused;
    # GCC's -Warray-bounds cannot see that the check throws first.
    "tests/core/cpp/test_core.cc": ["-Wno-array-bounds"],
}
TESTS = ["tests/core/cpp/test_core.cc", "tests/platform/cpp/test_platform.cc"]


def flags(target: str) -> list[str]:
    """FLAGS; for macOS GNU's dialect (-std=gnu++20, what CMake passes by default): under strict
    -std=c++20 zig's float.h leaves INFINITY out of <random>'s reach (see compiler())."""
    if target == "macos":
        return ["-std=gnu++20", *FLAGS[1:]]
    return FLAGS


def compiler(target: str) -> list[str] | None:
    if target == "windows":
        return [MINGW] if shutil.which(MINGW) else None
    if target == "linux":
        return [shutil.which("g++") or "c++"]
    if os.environ.get("ENVPOOL_ZIG"):  # a zig executable (.ci/run keeps ziglang in a venv of its own)
        zig = [os.environ["ENVPOOL_ZIG"], "c++"]
    elif importlib.util.find_spec("ziglang") is not None:
        zig = [sys.executable, "-m", "ziglang", "c++"]
    else:
        return None
    # zig adds flags a -c compile leaves unused. Its libc++ float.h wrapper
    # keeps its include guard after a first inclusion that asked only for
    # INFINITY/NAN, so a later <cfloat> defines no DBL_EPSILON (Apple's
    # headers have no such quirk): the full float.h comes first.
    return [*zig, "-target", "aarch64-macos", "-Wno-unused-command-line-argument", "-include", "float.h"]


def wine() -> str | None:
    for name in ("wine64", "/usr/lib/wine/wine64", "wine"):
        path = shutil.which(name)
        if path:
            return path
    return None


def missing_toolchain(target: str) -> str | None:
    if target == "windows" and compiler("windows") is None:
        return f"{MINGW} not found: apt-get install mingw-w64"
    if target == "macos" and compiler("macos") is None:
        return "zig not found: pip install ziglang"
    if target == "wine":
        if compiler("windows") is None:
            return f"{MINGW} not found: apt-get install mingw-w64"
        if wine() is None:
            return "wine64 not found: apt-get install wine64"
    return None


def sources(target: str) -> list[str]:
    """Every .cc of the tree a build for `target` compiles, and the C++ tests."""
    found = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "cpp").rglob("*.cc"))
    if target != "linux":
        # Procgen's engine is procgen's Linux x86_64 libenv.so: CMake builds the family there only.
        found = [s for s in found if s not in LINUX_ONLY and not s.startswith("cpp/procgen/")]
    else:
        found = [s for s in found if s != "cpp/mujoco/render_unsupported.cc"]
    return found + TESTS


def _sdist(cache: Path, env: str, spec: str, stem: str) -> Path:
    """Unpacks a dependency's sdist (a local one named by `env`, else pip
    download) under cache; returns the unpacked folder."""
    out = cache / stem
    if out.is_dir():
        return out
    local = os.environ.get(env)
    if local:
        archive = Path(local)
    else:
        dl = cache / "download"
        # --no-binary names the package alone: pip prepares the sdist's metadata in an isolated
        # build environment, and ":all:" would make it compile that environment's requirements
        # from source too (ale-py's pulls in jaxlib, which has no sdist: the download failed).
        name = spec.split("==")[0]
        r = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", name, spec, "-d", str(dl)],
            capture_output=True,
            text=True,
        )
        if r.returncode != 0:
            raise SystemExit(
                f"pip could not download the {spec} sdist (or set {env}):\n{r.stdout[-3000:]}{r.stderr[-3000:]}"
            )
        archive = next(dl.glob(f"{stem}.tar.gz"))
    with tarfile.open(archive) as tar:
        tar.extractall(cache, filter="data")
    return out


def dependency_includes(cache: Path) -> dict[str, list[str]]:
    """Include folders (as -isystem) per family folder; "" for everything."""
    import pybind11

    inc: dict[str, list[str]] = {"": [pybind11.get_include()], "generated": [generated_include(cache)]}
    mujoco = importlib.util.find_spec("mujoco")
    if mujoco is None or mujoco.origin is None:
        raise SystemExit("the mujoco wheel is not installed (its headers are needed)")
    inc["cpp/mujoco"] = [str(Path(mujoco.origin).parent / "include")]
    jaxlib = importlib.util.find_spec("jaxlib")
    if jaxlib is not None and jaxlib.origin is not None:
        xla = Path(jaxlib.origin).parent / "include"
        if (xla / "xla/ffi/api/ffi.h").exists():
            inc["xla"] = [str(xla)]
    ale = _sdist(cache, "ENVPOOL_ALE_SDIST", f"ale-py=={ALE_VERSION}", f"ale_py-{ALE_VERSION}")
    gen = cache / "ale_generated"
    version = gen / "version.hpp"  # ale_interface.hpp includes "version.hpp"
    if not version.exists():
        version.parent.mkdir(parents=True, exist_ok=True)
        text = (ale / "src/ale/version.hpp.in").read_text()
        major, minor, patch = ALE_VERSION.split(".")
        for k, v in {
            "ALE_VERSION": ALE_VERSION,
            "ALE_VERSION_MAJOR": major,
            "ALE_VERSION_MINOR": minor,
            "ALE_VERSION_PATCH": patch,
            "ALE_VERSION_GIT_SHA": "",
        }.items():
            text = text.replace(f"@{k}@", v)
        version.write_text(text)
    inc["cpp/atari"] = [str(gen), str(ale / "src"), str(ale / "src/ale")]
    # zlib (toy text's PNG decoding; ALE): the system's on macOS, not part of
    # MinGW: this machine's zlib.h and zconf.h (the same API) for Windows.
    zlib = cache / "zlib-include"
    zlib.mkdir(exist_ok=True)
    for h in ("zlib.h", "zconf.h"):
        if not (zlib / h).exists() and Path("/usr/include", h).exists():
            (zlib / h).symlink_to(Path("/usr/include", h))
    inc["zlib"] = [str(zlib)]
    b2 = _sdist(cache, "ENVPOOL_BOX2D_SDIST", f"box2d-py=={BOX2D_VERSION}", f"box2d-py-{BOX2D_VERSION}")
    settings = b2 / "Box2D/Common/b2Settings.h"
    text = settings.read_text()
    if "#include <Python.h>" in text:  # the patch of third_party/box2d/box2d.cmake
        text = text.replace("#include <Python.h>\n", "").replace("PyErr_SetString(PyExc_AssertionError, #A); ", "")
        settings.write_text(text)
    inc["cpp/box2d"] = [str(b2)]
    return inc


def generated_include(cache: Path) -> str:
    """cpp/core/version.h, which cpp/sdk/CMakeLists.txt configures from version.h.in."""
    out = cache / "generated"
    header = out / "cpp/core/version.h"
    header.parent.mkdir(parents=True, exist_ok=True)
    header.write_text((ROOT / "cpp/sdk/version.h.in").read_text().replace("@ENVPOOL_VERSION@", "0.0.0"))
    return str(out)


def python_include(target: str, cache: Path) -> str:
    host = Path(sysconfig.get_paths()["include"])
    if target != "windows":
        return str(host)
    # Python.h includes "pyconfig.h" from its own folder first: a mirror of
    # the folder (links) with a pyconfig.h of our own.
    shim = cache / "python-windows"
    if shim.exists():
        shutil.rmtree(shim)
    shim.mkdir(parents=True)
    for entry in host.iterdir():
        if entry.name != "pyconfig.h":
            (shim / entry.name).symlink_to(entry)
    text = (host / "pyconfig.h").read_text()
    headers = sorted(set(re.findall(r"^#define (HAVE_\w+_H) 1", text, re.M)))
    lines = [
        "/* This Python's pyconfig.h, then Windows x86_64's facts (tools/cross_check.py). */",
        f'#include "{host / "pyconfig.h"}"',
        *[f"#undef {h}" for h in headers],
        "#undef SIZEOF_LONG",
        "#define SIZEOF_LONG 4",
        "#undef ALIGNOF_LONG",
        "#define ALIGNOF_LONG 4",
        "#undef SIZEOF_WCHAR_T",
        "#define SIZEOF_WCHAR_T 2",
        "#undef SIZEOF_PID_T",
        "#define SIZEOF_PID_T 8",
        "#undef _POSIX_THREADS",
        "#define NT_THREADS 1",
        "#define MS_WINDOWS 1",
        "#define MS_WIN32 1",
        "#define MS_WIN64 1",
        "#define Py_ENABLE_SHARED 1",
    ]
    (shim / "pyconfig.h").write_text("\n".join(lines) + "\n")
    return str(shim)


def compile_command(
    target: str, source: str, inc: dict[str, list[str]], pyinc: str, out: Path, syntax_only: bool = False
) -> list[str]:
    cmd = [*compiler(target), *flags(target), *SOURCE_FLAGS.get(source, []), f"-I{ROOT}", f"-I{inc['generated'][0]}"]
    dirs = [pyinc, *inc[""]]
    for folder, paths in inc.items():
        if folder and folder not in ("xla", "generated", "zlib") and source.startswith(folder + "/"):
            dirs += paths
    if target == "windows":
        dirs += inc["zlib"]
    if source == "cpp/python/xla.cc" and "xla" in inc:
        dirs += inc["xla"]
        cmd.append("-DENVPOOL_WITH_XLA")
    for d in dirs:
        cmd += ["-isystem", d]
    if syntax_only and target != "macos":  # zig's -fsyntax-only fails renaming the object it did not write
        return [*cmd, "-fsyntax-only", str(ROOT / source)]
    return [*cmd, "-c", str(ROOT / source), "-o", str(out)]


def check_tree(targets: list[str], cache: Path, jobs: int, only: str | None = None, syntax_only: bool = False) -> bool:
    inc = dependency_includes(cache)
    ok = True
    for target in targets:
        pyinc = python_include(target, cache)
        objs = cache / f"obj-{target}"
        objs.mkdir(parents=True, exist_ok=True)
        srcs = [s for s in sources(target) if not only or any(o in s for o in only.split(","))]

        def one(src: str, target: str = target, pyinc: str = pyinc, objs: Path = objs) -> tuple[str, str]:
            out = objs / (src.replace("/", "_") + ".o")
            cmd = compile_command(target, src, inc, pyinc, out, syntax_only)
            r = subprocess.run(cmd, capture_output=True, text=True)
            return src, "" if r.returncode == 0 else (r.stderr or r.stdout)[-4000:]

        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            for src, err in pool.map(one, srcs):
                print(f"{target:8s} {'ok  ' if not err else 'FAIL'} {src}", flush=True)
                if err:
                    ok = False
                    print(err)
        mode = "-fsyntax-only" if syntax_only and target != "macos" else "-c"
        print(f"{target}: {len(srcs)} translation units, flags {' '.join(flags(target))} {mode}", flush=True)
    return ok


def build_windows_test(source: str, out: Path) -> None:
    cmd = [
        *compiler("windows"),
        *FLAGS,
        *SOURCE_FLAGS.get(source, []),
        f"-I{ROOT}",
        str(ROOT / source),
        "-o",
        str(out),
        "-static",
        "-lsynchronization",
    ]
    subprocess.run(cmd, check=True)


def run_wine(exe: Path, cache: Path, timeout: float = 900) -> subprocess.CompletedProcess:
    env = dict(os.environ, WINEDEBUG="-all", WINEPREFIX=str(cache / "wineprefix"))
    return subprocess.run([wine(), str(exe)], capture_output=True, text=True, timeout=timeout, env=env)


def mujoco_dll(cache: Path) -> Path:
    """The mujoco wheel for Windows (pip download), unpacked: its mujoco.dll."""
    dll = cache / "mujoco-win" / "mujoco" / "mujoco.dll"
    if not dll.exists():
        import zipfile

        version = importlib.metadata.version("mujoco")
        dl = cache / "download-win"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--only-binary=:all:",
                "--platform",
                "win_amd64",
                "--python-version",
                "3.11",
                f"mujoco=={version}",
                "-d",
                str(dl),
            ],
            check=True,
            capture_output=True,
        )
        with zipfile.ZipFile(next(dl.glob(f"mujoco-{version}-*win_amd64.whl"))) as z:
            z.extract("mujoco/mujoco.dll", cache / "mujoco-win")
    return dll


def check_mujoco_dll(cache: Path) -> bool:
    """The wheel's mujoco.dll has no import library: links a program against it
    both ways the build does (GNU ld on the DLL; an import library made from
    dll_exports.py's .def, here by dlltool as lib.exe would) and runs it."""
    sys.path.insert(0, str(ROOT / "third_party" / "mujoco"))
    import dll_exports

    dll = mujoco_dll(cache)
    folder = dll.parent
    (folder / "mujoco.def").write_text(
        "LIBRARY mujoco.dll\nEXPORTS\n" + "".join(f"  {n}\n" for n in dll_exports.exported_names(dll.read_bytes()))
    )
    subprocess.run(
        ["x86_64-w64-mingw32-dlltool", "-d", str(folder / "mujoco.def"), "-l", str(folder / "libmujoco_def.a")],
        check=True,
    )
    include = Path(importlib.util.find_spec("mujoco").origin).parent / "include"
    ok = True
    for how, lib in (("the DLL", dll), ("an import library from its exports", folder / "libmujoco_def.a")):
        exe = folder / "mujoco_link.exe"
        subprocess.run(
            [
                *compiler("windows"),
                *FLAGS,
                "-isystem",
                str(include),
                str(ROOT / "tests/platform/cpp/mujoco_link.cc"),
                "-o",
                str(exe),
                str(lib),
                "-static-libstdc++",
                "-static-libgcc",
                "-static",
            ],
            check=True,
        )
        r = run_wine(exe, cache)
        passed = r.returncode == 0 and "all ok" in r.stdout
        print(
            f"wine64 {'ok  ' if passed else 'FAIL'} mujoco_link.cc linked against {how} (exit {r.returncode})",
            flush=True,
        )
        ok = ok and passed
    return ok


def check_wine(cache: Path, only: str | None) -> bool:
    ok = True
    if only in (None, "mujoco"):
        ok = check_mujoco_dll(cache)
    for source in TESTS:
        if only and only not in source:
            continue
        exe = cache / (Path(source).stem + ".exe")
        build_windows_test(source, exe)
        r = run_wine(exe, cache)
        print(r.stdout, end="")
        passed = r.returncode == 0 and "all ok" in r.stdout
        print(f"wine64 {'ok  ' if passed else 'FAIL'} {source} (exit {r.returncode})", flush=True)
        if not passed:
            print(r.stderr[-4000:])
            ok = False
    return ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["tree", "wine"])
    ap.add_argument("--target", choices=["windows", "macos", "linux"], action="append")
    ap.add_argument("--only", help="tree: only sources whose path contains this; wine: core, platform or mujoco")
    ap.add_argument("--cache", type=Path, default=ROOT / "build" / "cross", help="downloads, objects, wine prefix")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--syntax-only", action="store_true", help="tree: parse and check only (no code generation)")
    args = ap.parse_args()
    args.cache.mkdir(parents=True, exist_ok=True)
    needs = ["wine"] if args.what == "wine" else (args.target or ["windows", "macos"])
    for need in needs:
        why = missing_toolchain(need)
        if why:
            print(why, file=sys.stderr)
            return 2
    if args.what == "wine":
        return 0 if check_wine(args.cache, args.only) else 1
    return (
        0 if check_tree(args.target or ["windows", "macos"], args.cache, args.jobs, args.only, args.syntax_only) else 1
    )


if __name__ == "__main__":
    sys.exit(main())
