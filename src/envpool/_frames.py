"""Resizing rendered frames: EnvPool 1.2.5's ``render_width``/``render_height`` on tasks
whose frames have a fixed size (it draws them at that size and resizes with OpenCV)."""

from __future__ import annotations

import numpy as np

from envpool import _envpool


def resize_linear(frames: np.ndarray, height: int, width: int) -> np.ndarray:
    """uint8 frames ``(n, h, w, c)`` resized to ``(n, height, width, c)``: byte for byte
    ``cv2.resize(frame, (width, height))`` (INTER_LINEAR), by the engine's resize
    (``cpp/draw/resize.h``, which the Atari preprocessing uses too)."""
    if frames.shape[1:3] == (height, width):
        return frames
    return _envpool.resize_linear(frames, height, width)
