"""Resizing rendered frames: EnvPool 1.2.5's ``render_width``/``render_height`` on tasks
whose frames have a fixed size (it draws them at that size and resizes with OpenCV)."""

from __future__ import annotations

import numpy as np

# OpenCV's fixed-point weights for uint8 bilinear resizing: 11 bits per axis.
_COEF_BITS = 11
_COEF_SCALE = 1 << _COEF_BITS


def _taps(src: int, dst: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per output pixel along one axis: the two source indices and their weights, sampled
    at pixel centres and clamped at the edges as OpenCV's INTER_LINEAR does."""
    f = ((np.arange(dst) + 0.5) * (src / dst) - 0.5).astype(np.float32)
    i0 = np.floor(f).astype(np.int64)
    a = f - i0
    low, high = i0 < 0, i0 >= src - 1
    a[low | high] = 0
    i0[low], i0[high] = 0, src - 1
    w0 = np.rint((1 - a) * _COEF_SCALE).astype(np.int64)
    return i0, np.minimum(i0 + 1, src - 1), w0, _COEF_SCALE - w0


def resize_linear(frames: np.ndarray, height: int, width: int) -> np.ndarray:
    """uint8 frames ``(n, h, w, c)`` resized to ``(n, height, width, c)``: bilinear, within 1 of
    ``cv2.resize(frame, (width, height))`` (INTER_LINEAR) per pixel."""
    n, h, w, c = frames.shape
    if (h, w) == (height, width):
        return frames
    y0, y1, wy0, wy1 = _taps(h, height)
    x0, x1, wx0, wx1 = _taps(w, width)
    f = frames.astype(np.int64)
    rows = f[:, :, x0] * wx0[:, None] + f[:, :, x1] * wx1[:, None]
    out = rows[:, y0] * wy0[:, None, None] + rows[:, y1] * wy1[:, None, None]
    return ((out + (1 << (2 * _COEF_BITS - 1))) >> (2 * _COEF_BITS)).astype(np.uint8)
