"""The Atari family's image kernels: resize (cpp/draw/resize.h/.cc) equals
cv2.resize bit for bit; the palette lookup + max-pool (cpp/atari/palette.h)
equals the plain table lookup (its SIMD path and the fallback for odd
indices included).

The headers are compiled here, with the compiler found by the test, into a tiny
shared library called through ctypes (the resize is an internal C++ piece, so
the extension module does not expose it). Skipped without a C++ compiler or
cv2. The whole Atari pipeline is also checked against cv2 through
AtariPreprocessing in test_atari.py.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

# One pytest-xdist worker runs this file in order, so its module fixtures (compiled
# builds) are made once: split across workers, each chunk of cases rebuilt them.
pytestmark = pytest.mark.xdist_group("atari_resize")

cv2 = pytest.importorskip("cv2")

ROOT = Path(__file__).resolve().parents[3]
SOURCE = r"""
#include "cpp/atari/palette.h"
#include "cpp/draw/resize.cc"  // the header and its code
extern "C" void envpool_test_palette_max(int path, const uint8_t* lut, const uint8_t* a,
                                         const uint8_t* b, uint8_t* dst, size_t n) {
  envpool::atari::PaletteLut table;
  table.Set(lut);
  envpool::atari::PaletteMax(table, a, b, dst, n, envpool::atari::PalettePath(path));
}
extern "C" int envpool_test_best_palette_path() {
  return static_cast<int>(envpool::atari::BestPalettePath());
}
extern "C" void envpool_test_resize(const uint8_t* src, int sh, int sw, uint8_t* dst,
                                    int dh, int dw, int linear) {
  envpool::draw::Resizer r(sh, sw, dh, dw,
                            linear ? envpool::draw::Interp::kLinear
                                   : envpool::draw::Interp::kArea);
  r.Run(src, dst);
}
"""

# (height, width) targets from a 210x160 (or other) source: integer factors
# (2x2 fast path, 3x2, ...), the usual 84x84, non-integer down/up scales.
SIZES = [
    (84, 84),
    (105, 80),
    (70, 80),
    (42, 32),
    (64, 64),
    (100, 120),
    (210, 160),
    (96, 72),
    (110, 84),
    (200, 150),
    (211, 161),
    (250, 200),
    (300, 320),
    (1, 1),
    (7, 13),
    (160, 210),
    (84, 160),
    (210, 84),
]


@pytest.fixture(scope="module")
def resize_lib(tmp_path_factory: pytest.TempPathFactory):
    cxx = os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++")
    if cxx is None:
        pytest.skip("no C++ compiler")
    tmp = tmp_path_factory.mktemp("resize")
    src = tmp / "resize_shim.cc"
    src.write_text(SOURCE)
    lib = tmp / "libresize_shim.so"
    # Same floating-point contract as the extension (no FMA contraction).
    subprocess.run(
        [cxx, "-std=c++20", "-O3", "-ffp-contract=off", "-shared", "-fPIC", f"-I{ROOT}", str(src), "-o", str(lib)],
        check=True,
    )
    handle = ctypes.CDLL(str(lib))
    handle.envpool_test_resize.argtypes = [
        ctypes.c_void_p,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_void_p,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_int,
    ]
    handle.envpool_test_palette_max.argtypes = [ctypes.c_int] + [ctypes.c_void_p] * 4 + [ctypes.c_size_t]
    return handle


def ours(lib, img: np.ndarray, h: int, w: int, linear: bool) -> np.ndarray:
    """Resize each channel plane with our code; returns HxW or HxWxC like cv2."""
    img = np.asarray(img, np.uint8)
    planes = [img] if img.ndim == 2 else [img[..., c] for c in range(img.shape[2])]
    out = []
    for plane in planes:
        plane = np.ascontiguousarray(plane)
        dst = np.empty((h, w), np.uint8)
        lib.envpool_test_resize(plane.ctypes.data, plane.shape[0], plane.shape[1], dst.ctypes.data, h, w, int(linear))
        out.append(dst)
    return out[0] if img.ndim == 2 else np.stack(out, axis=-1)


def reference(img: np.ndarray, h: int, w: int, linear: bool) -> np.ndarray:
    return cv2.resize(img, (w, h), interpolation=cv2.INTER_LINEAR if linear else cv2.INTER_AREA)


def random_images(rng: np.random.Generator) -> list[np.ndarray]:
    return [
        rng.integers(0, 256, (210, 160), dtype=np.uint8),
        (rng.integers(0, 2, (210, 160)) * 255).astype(np.uint8),  # hard edges
        rng.integers(0, 256, (210, 160, 3), dtype=np.uint8),
        rng.integers(0, 256, (250, 160), dtype=np.uint8),  # Adventure's height
        rng.integers(100, 103, (210, 160), dtype=np.uint8),  # near-ties in rounding
    ]


def atari_frames() -> list[np.ndarray]:
    ale_py = pytest.importorskip("ale_py")
    frames = []
    for game in ["pong", "breakout", "space_invaders", "ms_pacman"]:
        ale = ale_py.ALEInterface()
        ale.setLoggerMode(ale_py.LoggerMode.Error)
        ale.loadROM(ale_py.roms.get_rom_path(game))
        ale.reset_game()
        rng = np.random.default_rng(0)
        actions = ale.getMinimalActionSet()
        for _ in range(120):
            ale.act(actions[rng.integers(len(actions))])
        frames += [ale.getScreenGrayscale(), ale.getScreenRGB()]
    return frames


@pytest.mark.parametrize("linear", [False, True], ids=["area", "linear"])
def test_random_images(resize_lib, linear: bool) -> None:
    rng = np.random.default_rng(0)
    for img in random_images(rng):
        for h, w in SIZES:
            np.testing.assert_array_equal(
                ours(resize_lib, img, h, w, linear), reference(img, h, w, linear), err_msg=f"{img.shape} -> {(h, w)}"
            )


@pytest.mark.parametrize("linear", [False, True], ids=["area", "linear"])
def test_atari_frames(resize_lib, linear: bool) -> None:
    for img in atari_frames():
        for h, w in SIZES:
            np.testing.assert_array_equal(
                ours(resize_lib, img, h, w, linear), reference(img, h, w, linear), err_msg=f"{img.shape} -> {(h, w)}"
            )


@pytest.mark.slow
def test_many_random_sizes(resize_lib) -> None:
    rng = np.random.default_rng(1)
    for _ in range(300):
        sh, sw = rng.integers(1, 260, 2)
        h, w = rng.integers(1, 300, 2)
        img = rng.integers(0, 256, (sh, sw), dtype=np.uint8)
        for linear in (False, True):
            np.testing.assert_array_equal(
                ours(resize_lib, img, h, w, linear),
                reference(img, h, w, linear),
                err_msg=f"{(sh, sw)} -> {(h, w)} linear={linear}",
            )


def test_palette_max(resize_lib) -> None:
    # Every path this CPU can run (0 scalar, 1 AVX2, 2 AVX-512 VBMI) gives the
    # plain table's bytes.
    best = resize_lib.envpool_test_best_palette_path()
    rng = np.random.default_rng(2)
    lut = rng.integers(0, 256, 256, dtype=np.uint8)
    for path in range(best + 1):  # a VBMI CPU also has AVX2
        for n in [0, 1, 31, 32, 33, 100, 210 * 160]:
            a = (rng.integers(0, 128, n) * 2).astype(np.uint8)  # even, as the TIA emits
            b = (rng.integers(0, 128, n) * 2).astype(np.uint8)
            if n > 40:
                a[37] |= 1  # an odd index: that block takes the fallback
            dst = np.empty(n, np.uint8)
            resize_lib.envpool_test_palette_max(path, lut.ctypes.data, a.ctypes.data, b.ctypes.data, dst.ctypes.data, n)
            np.testing.assert_array_equal(dst, np.maximum(lut[a], lut[b]), err_msg=f"path={path} n={n}")


def test_bad_sizes_rejected(resize_lib) -> None:
    # The Atari family rejects a zero-sized target as a config error.
    envpool = pytest.importorskip("envpool")
    if "Atari" not in envpool._envpool.families():
        pytest.skip("the Atari family is not compiled in")
    with pytest.raises(ValueError):
        envpool.make("Pong-v5", env_type="gymnasium", num_envs=1, img_width=0)
