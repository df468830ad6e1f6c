"""Both code paths of the Atari area resize (cpp/draw/resize.h/.cc) equal cv2.resize bit for bit.

test_atari_resize.py checks the path the CPU picks by default; here each path
is forced: the portable one (SSE2/scalar) everywhere, the AVX-512 one where
the CPU has it. The usual Atari size (210x160 -> 84x84) must take the AVX-512
path on such a CPU. Images with repeated rows (as Atari frames have, and
which both paths compute once) are checked too. Same shim technique as
test_atari_resize.py.
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
pytestmark = pytest.mark.xdist_group("atari_resize_paths")

cv2 = pytest.importorskip("cv2")

ROOT = Path(__file__).resolve().parents[3]
SOURCE = r"""
#include "cpp/draw/resize.cc"  // the header and its code
extern "C" int envpool_test_resize_path(const uint8_t* src, int sh, int sw, uint8_t* dst,
                                        int dh, int dw, int path) {
  envpool::draw::Resizer r(sh, sw, dh, dw, envpool::draw::Interp::kArea,
                            envpool::draw::ResizePath(path));
  r.Run(src, dst);
  return static_cast<int>(r.path());
}
extern "C" int envpool_test_best_resize_path() {
  return static_cast<int>(envpool::draw::BestResizePath());
}
"""
PORTABLE, AVX512 = 0, 1


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory):
    cxx = os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++")
    if cxx is None:
        pytest.skip("no C++ compiler")
    tmp = tmp_path_factory.mktemp("resize_paths")
    src = tmp / "shim.cc"
    src.write_text(SOURCE)
    so = tmp / "libshim.so"
    subprocess.run([cxx, "-std=c++20", "-O3", "-Wall", "-Werror", "-ffp-contract=off", "-shared", "-fPIC",
                    f"-I{ROOT}", str(src), "-o", str(so)], check=True)  # fmt: skip
    handle = ctypes.CDLL(str(so))
    handle.envpool_test_resize_path.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int,
                                                ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int]  # fmt: skip
    return handle


def _paths(lib) -> list[int]:
    return [PORTABLE, AVX512] if lib.envpool_test_best_resize_path() == AVX512 else [PORTABLE]


def _resize(lib, img: np.ndarray, h: int, w: int, path: int) -> tuple[np.ndarray, int]:
    img = np.ascontiguousarray(img, np.uint8)
    dst = np.empty((h, w), np.uint8)
    taken = lib.envpool_test_resize_path(img.ctypes.data, img.shape[0], img.shape[1], dst.ctypes.data, h, w, path)
    return dst, taken


def test_usual_size_takes_the_fast_path_when_available(lib) -> None:
    img = np.zeros((210, 160), np.uint8)
    best = lib.envpool_test_best_resize_path()
    assert _resize(lib, img, 84, 84, best)[1] == best
    assert _resize(lib, img, 84, 84, PORTABLE)[1] == PORTABLE
    # a window wider than 32 source pixels per 16 columns: portable whatever was asked
    assert _resize(lib, np.zeros((210, 160), np.uint8), 84, 30, AVX512)[1] == PORTABLE


def test_each_path_equals_cv2(lib) -> None:
    rng = np.random.default_rng(5)
    sizes = [(84, 84), (105, 80), (100, 120), (96, 72), (110, 84), (200, 150), (64, 64), (42, 32),
             (84, 160), (210, 84), (1, 1), (7, 13), (83, 97), (50, 100)]  # fmt: skip
    images = [
        rng.integers(0, 256, (210, 160), dtype=np.uint8),
        (rng.integers(0, 2, (210, 160)) * 255).astype(np.uint8),
        rng.integers(100, 103, (210, 160), dtype=np.uint8),
        rng.integers(0, 256, (250, 160), dtype=np.uint8),
        rng.integers(0, 256, (211, 171), dtype=np.uint8),  # widths not a multiple of 16
    ]
    fast = 0
    for path in _paths(lib):
        for img in images:
            for h, w in sizes:
                got, taken = _resize(lib, img, h, w, path)
                fast += taken == AVX512
                ref = cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA)
                np.testing.assert_array_equal(got, ref, err_msg=f"path={path} {img.shape} -> {(h, w)}")
    if AVX512 in _paths(lib):
        assert fast > 20  # the fast path really ran


def _banded(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Rows repeated in runs of random length, as in Atari frames (whose repeated
    rows the resize computes once)."""
    rows, y = [], 0
    while y < h:
        run = int(rng.integers(1, 12))
        rows += [rng.integers(0, 256, w, dtype=np.uint8)] * run
        y += run
    return np.stack(rows[:h])


def test_repeated_rows_equal_cv2(lib) -> None:
    rng = np.random.default_rng(7)
    for path in _paths(lib):
        for shape in [(210, 160), (250, 160), (211, 171), (60, 40)]:
            for _ in range(6):
                img = _banded(rng, *shape)
                img[rng.integers(0, shape[0])] ^= 1  # a lone changed row inside a run
                for h, w in [(84, 84), (105, 80), (100, 120), (83, 97), (7, 13), (1, 1)]:
                    got, _ = _resize(lib, img, h, w, path)
                    ref = cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA)
                    np.testing.assert_array_equal(got, ref, err_msg=f"path={path} {shape} -> {(h, w)}")


def test_paths_agree_on_random_sizes(lib) -> None:
    rng = np.random.default_rng(6)
    paths = _paths(lib)
    if len(paths) == 1:
        pytest.skip("this CPU has no AVX-512: only the portable path (checked against cv2 above)")
    for _ in range(400):
        sh, sw = rng.integers(1, 300, 2)
        h, w = rng.integers(1, 300, 2)
        img = rng.integers(0, 256, (sh, sw), dtype=np.uint8) if rng.random() < 0.5 else _banded(rng, sh, sw)
        a, _ = _resize(lib, img, h, w, PORTABLE)
        b, _ = _resize(lib, img, h, w, AVX512)
        np.testing.assert_array_equal(a, b, err_msg=f"{(sh, sw)} -> {(h, w)}")
