#!/usr/bin/env python
"""ALE build variants against ale-py's wheel: which compiler and flags make the emulator fast.

Builds ALE's C++ library from the ale-py sdist (the version envpool pins) once
per variant -- compiler, flags appended at the end of every compile line (so
they override ALE's own), LTO or not -- links the same bare loop into each
(frame_skip=4 ``act()`` calls per step, a random minimal action, reset on game
over: the ``raw`` engine's loop), and also runs that loop against the ALE
inside ale-py's installed wheel (through the C++ symbols it exports). Every
measurement is a fresh process; variants run in interleaved rounds; the rate
is steps per CPU-second of the stepping thread, so other load on the machine
matters less than for wall-clock rates. The table gives each variant's ratio
to the wheel per game (median over rounds) and the geometric mean.

    python benchmarks/ale_builds.py                          # the default variants
    python benchmarks/ale_builds.py --variants gcc-lto gcc-nolto-hidden --games pong --rounds 2
    python benchmarks/ale_builds.py --list

Needs cmake, ninja, a C++ compiler (clang variants need clang++-N, llvm-ar-N
and ld.lld-N), zlib headers, and ale-py installed. Builds go to --work
(default /tmp/envpool-ale-builds); an ALE build takes a minute or two.
"""

from __future__ import annotations

import argparse
import ctypes  # noqa: F401  (used by the child processes' code)
import math
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
from pathlib import Path

ALE_VERSION = "0.12.1"

HARNESS = r"""
#include <time.h>
#include <random>
#include "ale/ale_interface.hpp"
static double cpu_now() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}
// One game with random actions, 4 frames per agent step.
struct Game {
  ale::ALEInterface ale;
  ale::ActionVect actions;
  std::mt19937_64 rng;
  Game(const char* rom, int seed) : rng(seed) {
    ale::Logger::setMode(ale::Logger::Error);
    ale.setInt("random_seed", seed);
    ale.setFloat("repeat_action_probability", 0.f);
    ale.loadROM(rom);
    ale.reset_game();
    actions = ale.getMinimalActionSet();
  }
  void step() {
    const ale::Action a = actions[std::uniform_int_distribution<std::size_t>(0, actions.size() - 1)(rng)];
    for (int t = 0; t < 4; ++t) {
      ale.act(a);
      if (ale.game_over(false)) { ale.reset_game(); break; }
    }
  }
};
// Steps per CPU-second of `seconds` of stepping (after 0.3 s of warm-up).
extern "C" __attribute__((visibility("default"))) double ale_bench(const char* rom, double seconds, int seed) {
  Game game(rom, seed);
  auto step = [&] { game.step(); };
  double t0 = cpu_now();
  while (cpu_now() - t0 < 0.3) for (int i = 0; i < 32; ++i) step();
  long n = 0;
  t0 = cpu_now();
  double t1;
  while ((t1 = cpu_now()) - t0 < seconds) { for (int i = 0; i < 32; ++i) step(); n += 32; }
  return n / (t1 - t0);
}
// The PGO training run: `steps` agent steps of one game, deterministic.
extern "C" __attribute__((visibility("default"))) void ale_train(const char* rom, long steps, int seed) {
  Game game(rom, seed);
  for (long i = 0; i < steps; ++i) game.step();
}
"""

TRAIN = r"""
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
lib.ale_train.argtypes = [ctypes.c_char_p, ctypes.c_long, ctypes.c_int]
for rom in sys.argv[3:]:
    lib.ale_train(rom.encode(), int(sys.argv[2]), 1)
"""
PGO_GAMES = ["pong", "breakout", "space_invaders", "seaquest", "ms_pacman"]  # 2000 steps each

CHILD = r"""
import ctypes, os, sys
import ale_py
path, rom, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
if path.startswith("wheel:"):  # the harness resolves ALE's symbols in the wheel's module
    path = path[len("wheel:"):]
    ctypes.CDLL(ale_py._ale_py.__file__, mode=os.RTLD_NOW | os.RTLD_GLOBAL)
lib = ctypes.CDLL(path, mode=os.RTLD_NOW | os.RTLD_LOCAL)
lib.ale_bench.restype = ctypes.c_double
lib.ale_bench.argtypes = [ctypes.c_char_p, ctypes.c_double, ctypes.c_int]
print(lib.ale_bench(rom.encode(), seconds, 1))
"""

# name: (compiler, archiver, flags appended to every ALE compile, harness link flags, ALE IPO on)
VARIANTS = {
    "gcc-lto": ("g++", "gcc-ar", "", "-flto=auto", True),  # ALE's own build (IPO forced)
    "gcc-nolto": ("g++", "gcc-ar", "-fno-lto", "", False),
    "gcc-nolto-hidden": ("g++", "gcc-ar", "-fno-lto -fvisibility=hidden -fvisibility-inlines-hidden", "", False),
    "gcc-lto-hidden": ("g++", "gcc-ar", "-fvisibility=hidden -fvisibility-inlines-hidden", "-flto=auto", True),
    "gcc-lto-nosi": ("g++", "gcc-ar", "-fno-semantic-interposition", "-flto=auto", True),
    "gcc-lto-noplt": ("g++", "gcc-ar", "-fno-plt", "-flto=auto", True),
    "gcc-lto-assert": ("g++", "gcc-ar", "-D_GLIBCXX_ASSERTIONS", "-flto=auto", True),
    "clang16-thinlto": ("clang++-16", "llvm-ar-16", "", "-flto=thin -fuse-ld=lld-16", True),
    "clang19-thinlto": ("clang++-19", "llvm-ar-19", "", "-flto=thin -fuse-ld=lld-19", True),
    "clang19-nolto": ("clang++-19", "llvm-ar-19", "-fno-lto", "", False),
    # profile-guided: an instrumented build, a training run on PGO_GAMES, the optimised build
    "gcc-lto-pgo": ("g++", "gcc-ar", "", "-flto=auto", True),
    "clang19-thinlto-pgo": ("clang++-19", "llvm-ar-19", "", "-flto=thin -fuse-ld=lld-19", True),
}
DEFAULT = ["gcc-lto", "gcc-nolto", "gcc-nolto-hidden", "gcc-lto-hidden", "clang19-thinlto"]


def sdist(work: Path) -> Path:
    """The ale-py sdist, unpacked (ENVPOOL_ALE_SDIST, else pip download)."""
    src = work / "src" / f"ale_py-{ALE_VERSION}"
    if (src / "src" / "ale" / "ale_interface.hpp").exists():
        return src
    tar = os.environ.get("ENVPOOL_ALE_SDIST")
    if not tar:
        dl = work / "download"
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", "ale-py",
                        "--no-build-isolation", f"ale-py=={ALE_VERSION}", "-d", str(dl)], check=True)  # fmt: skip
        tar = str(dl / f"ale_py-{ALE_VERSION}.tar.gz")
    with tarfile.open(tar) as t:
        t.extractall(work / "src", filter="data")
    return src


def build(name: str, work: Path, src: Path) -> Path:
    """Builds ALE with the variant's settings and links the harness: the harness .so."""
    cxx, ar, flags, link, _ = VARIANTS[name]
    if not name.endswith("-pgo"):
        return build_one(name, work / name, src, cxx, ar, flags, link)
    out = work / name / "harness.so"
    if out.exists():
        return out
    prof = work / f"{name}-profile"
    shutil.rmtree(prof, ignore_errors=True)
    prof.mkdir(parents=True)
    gen_dir, use_dir = work / f"{name}-gen", work / name
    clang = "clang" in cxx
    if clang:
        gen_flags, gen_link = "-fprofile-generate", "-fprofile-generate"
    else:  # the .gcda names follow the object paths: strip the build folder from them
        gen_flags = f"-fprofile-generate={prof} -fprofile-prefix-path={gen_dir / 'build'}"
        gen_link = "-fprofile-generate"
    gen = build_one(f"{name}-gen", gen_dir, src, cxx, ar, f"{flags} {gen_flags}", f"{link} {gen_link}")
    import ale_py

    roms = [str(Path(ale_py.__file__).parent / "roms" / f"{g}.bin") for g in PGO_GAMES]
    env = dict(os.environ, LLVM_PROFILE_FILE=str(prof / "ale-%p.profraw"))
    subprocess.run([sys.executable, "-c", TRAIN, str(gen), "2000", *roms], check=True, env=env)
    if clang:
        profdata = prof / "ale.profdata"
        version = cxx.rsplit("-", 1)[-1]
        subprocess.run([f"llvm-profdata-{version}", "merge", "-o", str(profdata), *map(str, prof.glob("*.profraw"))],
                       check=True)  # fmt: skip
        use = f"-fprofile-use={profdata} -Wno-profile-instr-unprofiled -Wno-profile-instr-out-of-date"
        use_link = f"-fprofile-use={profdata}"
    else:
        use = f"-fprofile-use={prof} -fprofile-prefix-path={use_dir / 'build'} -Wno-missing-profile"
        use_link = ""
    return build_one(name, use_dir, src, cxx, ar, f"{flags} {use}", f"{link} {use_link}")


def build_one(name: str, d: Path, src: Path, cxx: str, ar: str, flags: str, link: str) -> Path:
    out = d / "harness.so"
    if out.exists():
        return out
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    launcher = d / "launch.sh"  # appends the flags after ALE's own (the last flag wins)
    launcher.write_text(f'#!/bin/sh\nexec "$@" {flags}\n')
    launcher.chmod(0o755)
    ar_path = shutil.which(ar) or ar
    subprocess.run(["cmake", "-S", str(src), "-B", str(d / "build"), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                    f"-DCMAKE_CXX_COMPILER={cxx}", f"-DCMAKE_AR={ar_path}", f"-DCMAKE_CXX_COMPILER_AR={ar_path}",
                    f"-DCMAKE_CXX_COMPILER_LAUNCHER={launcher}", f"-DCMAKE_INSTALL_PREFIX={d / 'install'}",
                    "-DCMAKE_INSTALL_LIBDIR=lib", "-DCMAKE_POSITION_INDEPENDENT_CODE=ON", "-DBUILD_CPP_LIB=ON",
                    "-DBUILD_PYTHON_LIB=OFF", "-DSDL_SUPPORT=OFF", "-DBUILD_VECTOR_LIB=OFF",
                    "-DBUILD_VECTOR_XLA_LIB=OFF"], check=True, stdout=subprocess.DEVNULL)  # fmt: skip
    subprocess.run(["cmake", "--build", str(d / "build")], check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--install", str(d / "build")], check=True, stdout=subprocess.DEVNULL)
    inc = d / "install" / "include"
    (d / "harness.cc").write_text(HARNESS)
    subprocess.run([cxx, "-O3", "-fPIC", "-std=c++17", *link.split(), f"-I{inc}", f"-I{inc / 'ale'}", "-c",
                    str(d / "harness.cc"), "-o", str(d / "harness.o"), *flags.split()], check=True)  # fmt: skip
    subprocess.run([cxx, "-O3", "-fPIC", "-shared", *link.split(), "-o", str(out), str(d / "harness.o"),
                    str(d / "install" / "lib" / "libale.a"), "-lz"], check=True)  # fmt: skip
    return out


def wheel_harness(work: Path, headers_from: Path) -> str:
    """The harness with ALE's symbols left undefined: resolved in the wheel's module at load."""
    out = work / "wheel-harness.so"
    inc = headers_from.parent / "install" / "include"
    (work / "harness.cc").write_text(HARNESS)
    subprocess.run(["g++", "-O3", "-fPIC", "-std=c++17", "-shared", f"-I{inc}", f"-I{inc / 'ale'}",
                    str(work / "harness.cc"), "-o", str(out)], check=True)  # fmt: skip
    return f"wheel:{out}"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--variants", nargs="+", default=DEFAULT, help=f"default: {' '.join(DEFAULT)}")
    p.add_argument("--games", default="pong,breakout,space_invaders,ms_pacman")
    p.add_argument("--rounds", type=int, default=4)
    p.add_argument("--seconds", type=float, default=1.5)
    p.add_argument("--work", default="/tmp/envpool-ale-builds")
    p.add_argument("--list", action="store_true", help="list the variants and exit")
    args = p.parse_args()
    if args.list:
        for name, (cxx, _, flags, link, ipo) in VARIANTS.items():
            pgo = " + PGO (trained on " + ", ".join(PGO_GAMES) + ")" if name.endswith("-pgo") else ""
            print(f"{name:20s} {cxx:11s} IPO {'on ' if ipo else 'off'} compile +[{flags}] link +[{link}]{pgo}")
        return
    import ale_py

    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    src = sdist(work)
    engines: dict[str, str] = {}
    for name in args.variants:
        if name not in VARIANTS:
            p.error(f"unknown variant {name!r} (--list)")
        if shutil.which(VARIANTS[name][0]) is None:
            print(f"skipping {name}: no {VARIANTS[name][0]}", file=sys.stderr)
            continue
        print(f"building {name} ...", file=sys.stderr, flush=True)
        engines[name] = str(build(name, work, src))
    if not engines:
        p.error("no variant could be built")
    engines = {"wheel": wheel_harness(work, Path(next(iter(engines.values())))), **engines}
    roms = Path(ale_py.__file__).parent / "roms"
    games = args.games.split(",")
    res: dict[tuple[str, str], list[float]] = {(g, e): [] for g in games for e in engines}
    for r in range(args.rounds):
        order = list(engines) if r % 2 == 0 else list(engines)[::-1]
        for g in games:
            for e in order:
                out = subprocess.run([sys.executable, "-c", CHILD, engines[e], str(roms / f"{g}.bin"),
                                      str(args.seconds)], capture_output=True, text=True, check=True)  # fmt: skip
                res[(g, e)].append(float(out.stdout.split()[-1]))
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    print(
        f"steps per CPU-second, ratio to ale-py {ale_py.__version__}'s wheel (median of {args.rounds} interleaved rounds)"
    )
    print(f"{'game':16s}" + "".join(f"{e:>18s}" for e in engines))
    logs: dict[str, list[float]] = {e: [] for e in engines}
    for g in games:
        row = f"{g:16s}"
        for e in engines:
            ratio = statistics.median(a / b for a, b in zip(res[(g, e)], res[(g, "wheel")]))
            logs[e].append(math.log(ratio))
            row += f"{statistics.median(res[(g, e)]):18.0f}" if e == "wheel" else f"{ratio:18.3f}"
        print(row)
    print(f"{'geomean':16s}" + "".join(f"{math.exp(sum(v) / len(v)):18.3f}" for v in logs.values()))


if __name__ == "__main__":
    main()
