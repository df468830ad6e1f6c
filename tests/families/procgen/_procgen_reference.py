"""procgen 0.10.7's own engine, driven directly through ctypes: the reference.

The library is the ``libenv.so`` the build installed (envpool/_procgen/), which
test_build checks is byte for byte the one in procgen 0.10.7's cp310 wheel (the
sha256 its RECORD gives). This driver does what procgen's ``ProcgenGym3Env`` does
(procgen/env.py: the same options, ``num_threads`` aside), with gym3's C interface
declared here from gym3's libenv.h: ``libenv_make`` with the options, then
``libenv_set_buffers`` (the first level starts), then per step write the actions and
``libenv_act`` (then ``libenv_observe``, as gym3 does).
"""

from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np

from envpool.tasks import procgen as tasks

LIBENV = Path(tasks.LIBRARY_DIR) / "libenv.so"


class _Option(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char * 128),
        ("dtype", ctypes.c_int),
        ("count", ctypes.c_int),
        ("data", ctypes.c_void_p),
    ]


class _Options(ctypes.Structure):
    _fields_ = [("items", ctypes.POINTER(_Option)), ("count", ctypes.c_int)]


class _Buffers(ctypes.Structure):
    _fields_ = [
        ("ob", ctypes.POINTER(ctypes.c_void_p)),
        ("rew", ctypes.c_void_p),
        ("first", ctypes.c_void_p),
        ("info", ctypes.POINTER(ctypes.c_void_p)),
        ("ac", ctypes.POINTER(ctypes.c_void_p)),
    ]


_LIB = None


def library() -> ctypes.CDLL:
    global _LIB
    if _LIB is None:
        lib = ctypes.CDLL(str(LIBENV))
        lib.libenv_make.restype = ctypes.c_void_p
        lib.libenv_make.argtypes = [ctypes.c_int, _Options]
        for name in ("libenv_observe", "libenv_act", "libenv_close"):
            getattr(lib, name).argtypes = [ctypes.c_void_p]
        lib.libenv_set_buffers.argtypes = [ctypes.c_void_p, ctypes.POINTER(_Buffers)]
        _LIB = lib
    return _LIB


# procgen/env.py: EXPLORATION_LEVEL_SEEDS (exploration is hard mode on that level).
EXPLORATION = {
    "coinrun": 1949448038,
    "caveflyer": 1259048185,
    "leaper": 1318677581,
    "jumper": 1434825276,
    "maze": 158988835,
    "heist": 876640971,
    "climber": 1561126160,
    "ninja": 1123500215,
}


class ProcgenReference:
    """``num`` games of procgen's engine, made as ``ProcgenGym3Env(num, env_name,
    rand_seed=..., distribution_mode=..., ...)`` makes them."""

    def __init__(
        self,
        num: int,
        env_name: str,
        rand_seed: int,
        distribution_mode: int = 1,
        num_levels: int = 0,
        start_level: int = 0,
        use_sequential_levels: bool = False,
        center_agent: bool = True,
        use_backgrounds: bool = True,
        use_monochrome_assets: bool = False,
        restrict_themes: bool = False,
        use_generated_assets: bool = False,
        paint_vel_info: bool = False,
        use_easy_jump: bool = False,
        render_human: bool = False,
    ) -> None:
        if distribution_mode == 20:
            distribution_mode, num_levels, start_level = 1, 1, EXPLORATION[env_name]
        self.num = num
        self._keep = []
        opts = []

        def add(name: str, value) -> None:
            if isinstance(value, str):
                data, dtype, count = ctypes.create_string_buffer(value.encode(), len(value)), 1, len(value)
            elif isinstance(value, bool):
                data, dtype, count = ctypes.c_uint8(value), 1, 1
            else:
                data, dtype, count = ctypes.c_int32(value), 2, 1
            self._keep.append(data)
            opts.append(_Option(name.encode(), dtype, count, ctypes.cast(ctypes.pointer(data), ctypes.c_void_p)))

        add("center_agent", center_agent)
        add("use_generated_assets", use_generated_assets)
        add("use_monochrome_assets", use_monochrome_assets)
        add("restrict_themes", restrict_themes)
        add("use_backgrounds", use_backgrounds)
        add("paint_vel_info", paint_vel_info)
        add("distribution_mode", distribution_mode)
        add("env_name", env_name)
        add("num_levels", num_levels)
        add("start_level", start_level)
        add("num_actions", 15)
        add("use_sequential_levels", use_sequential_levels)
        add("debug_mode", 0)
        add("rand_seed", int(np.uint32(rand_seed).astype(np.int32)))
        add("num_threads", 0)
        add("render_human", render_human)
        add("resource_root", tasks.LIBRARY_DIR + "/assets/")
        if use_easy_jump:
            add("use_easy_jump", True)
        arr = (_Option * len(opts))(*opts)
        self._keep.append(arr)
        lib = library()
        self.handle = lib.libenv_make(num, _Options(arr, len(opts)))
        self.obs = np.zeros((num, 64, 64, 3), np.uint8)
        self.rew = np.zeros(num, np.float32)
        self.first = np.zeros(num, np.uint8)
        self.prev_level_seed = np.zeros(num, np.int32)
        self.prev_level_complete = np.zeros(num, np.uint8)
        self.level_seed = np.zeros(num, np.int32)
        self.frame = np.zeros((num, 512, 512, 3), np.uint8)
        self.action = np.zeros(num, np.int32)
        infos = [self.prev_level_seed, self.prev_level_complete, self.level_seed] + (
            [self.frame] if render_human else []
        )

        def ptrs(arrays):
            p = [a[i].ctypes.data if a.ndim > 1 else a.ctypes.data + i * a.itemsize for a in arrays for i in range(num)]
            return (ctypes.c_void_p * len(p))(*p)

        self._bufs = (ptrs([self.obs]), ptrs(infos), ptrs([self.action]))
        b = _Buffers(self._bufs[0], self.rew.ctypes.data, self.first.ctypes.data, self._bufs[1], self._bufs[2])
        lib.libenv_set_buffers(self.handle, ctypes.byref(b))
        lib.libenv_observe(self.handle)

    def act(self, actions) -> None:
        self.action[:] = actions
        library().libenv_act(self.handle)
        library().libenv_observe(self.handle)

    def state(self) -> dict:
        """Copies of what the last observe wrote."""
        return {
            "obs": self.obs.copy(),
            "reward": self.rew.copy(),
            "first": self.first.astype(bool),
            "prev_level_seed": self.prev_level_seed.copy(),
            "prev_level_complete": self.prev_level_complete.astype(np.int32),
            "level_seed": self.level_seed.copy(),
        }

    def close(self) -> None:
        if self.handle:
            library().libenv_close(self.handle)
            self.handle = None

    def __del__(self) -> None:
        self.close()
