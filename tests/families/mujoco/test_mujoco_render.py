"""render_mode="rgb_array" for the MuJoCo tasks: MuJoCo's own renderer (mjr_*) in an off-screen
GL context made in C++ (cpp/mujoco/render.h, gl_context.h).

Frames are pixel-equal to gymnasium's MujocoRenderer under the same GL backend and settings
(size, camera_id / camera_name, default_camera_config), from the same states. libmujoco loads
its GL entry points once per process, so the backend is per process: every comparison runs in a
subprocess with MUJOCO_GL set (tests/_mujoco_render.py), gymnasium's reference in the same
process as ours. Bad input raises Python exceptions, never ends the process.
"""

from __future__ import annotations

import ctypes.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("mujoco")
pytest.importorskip("gymnasium")
pytest.importorskip("imageio")  # gymnasium's MuJoCo envs import it

from _registry import family, tasks  # noqa: E402

import envpool  # noqa: E402
from envpool import _envpool  # noqa: E402

if "Ant-v4" not in _envpool.families():
    pytest.skip("envpool was built without MuJoCo", allow_module_level=True)

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

TESTS = Path(__file__).resolve().parents[2]  # the shared helpers (_mujoco_render.py)
HAVE_OSMESA = ctypes.util.find_library("OSMesa") is not None
HAVE_EGL = ctypes.util.find_library("EGL") is not None
osmesa = pytest.mark.skipif(not HAVE_OSMESA, reason="no libOSMesa (Debian: libosmesa6)")


def _run(code: str, timeout: float = 900, **env: str | None) -> subprocess.CompletedProcess:
    """python -c code in a fresh process with the tests folder importable; env None unsets."""
    full = dict(os.environ)
    for k, v in env.items():
        if v is None:
            full.pop(k, None)
        else:
            full[k] = v
    prelude = f"import sys; sys.path.insert(0, {str(TESTS)!r})\n"
    return subprocess.run(
        [sys.executable, "-c", prelude + code], env=full, capture_output=True, text=True, timeout=timeout, check=False
    )


def _compare(cases: list, pixels: list = (), **env: str | None) -> dict:
    out = _run(f"import _mujoco_render as r\nr.main({cases!r}, {list(pixels)!r})", **env)
    lines = [line for line in out.stdout.splitlines() if line.startswith("RESULT")]
    assert out.returncode == 0 and lines, out.stderr[-4000:]
    return json.loads(lines[-1][len("RESULT") :])


def _assert_pixel_equal(cases: list, results: list) -> None:
    for (task_id, kwargs, extra), envs in zip(cases, results, strict=True):
        for i, r in enumerate(envs):
            what = f"{task_id} {kwargs} {extra} env {i}"
            assert r["shape"] == r["ref_shape"], what
            assert r["max_diff"] == 0 and r["pixels_differing"] == 0, f"{what}: {r}"
            assert r["std"] > 1, f"{what}: a blank frame? {r}"  # a picture, not a clear colour


# task, options, (num_envs, num_threads), for each GL backend. Every v5 task at gymnasium's default 480x480 and
# default camera (its DEFAULT_CAMERA_CONFIG), v4 ones, other sizes (odd, and larger than the
# model's 640x480 offscreen buffer), model cameras by id and by name, a custom camera config.
CASES = [
    *[(t, {}, {}) for t in tasks("mujoco") if family(t) == t and t.endswith("-v5")],
    ("Humanoid-v4", {}, {}),
    ("InvertedDoublePendulum-v4", {}, {}),  # v4 has a camera config, v5 none
    ("HalfCheetah-v4", {"width": 320, "height": 240}, {}),
    ("Walker2d-v4", {"width": 101, "height": 77}, {}),
    ("Swimmer-v5", {"width": 800, "height": 600}, {}),
    ("Ant-v5", {"camera_name": "track"}, {}),
    ("Ant-v4", {"camera_id": 0, "width": 200, "height": 160}, {}),
    ("Humanoid-v5", {"camera_id": 1, "width": 240, "height": 240}, {}),
    (
        "HalfCheetah-v5",
        {"default_camera_config": {"distance": 3.0, "azimuth": 120, "elevation": -10.0, "lookat": [0.5, 0.0, 0.3]}},
        {"steps": 2},
    ),
    ("Reacher-v5", {"default_camera_config": {"trackbodyid": 0, "distance": 1.0, "elevation": -90.0}}, {"steps": 2}),
    # gymnasium's visual_options (mjvOption flags: contact points and forces, centres of mass) and max_geom
    ("Ant-v5", {"visual_options": {14: True, 16: True, 9: True}, "max_geom": 400, "width": 240, "height": 240}, {}),
    # Several envs on two stepping threads: each thread renders in its own context (its helper
    # process's, on Mesa's software rasterizer), or in the thread itself.
    ("HalfCheetah-v5", {"width": 240, "height": 240}, {"num_envs": 8, "num_threads": 2, "steps": 3}),
    ("HalfCheetah-v5", {"width": 240, "height": 240, "render_processes": "off"}, {"num_envs": 4, "num_threads": 2}),
    ("Ant-v5", {"camera_name": "track", "render_processes": "on"}, {"num_envs": 2, "num_threads": 2}),
    ("Humanoid-v5", {"width": 160, "height": 120, "render_processes": False}, {}),
]


# from_pixels: task, options (img size, camera, frame_stack)
PIXEL_CASES = [
    ("HalfCheetah-v4", {}),
    ("HalfCheetah-v4", {"render_processes": "off"}),
    ("Hopper-v5", {"img_height": 48, "img_width": 64, "frame_stack": 3}),
    ("Ant-v5", {"camera_name": "track", "frame_stack": 2}),
]


def _check_backend(**env: str) -> None:
    results = _compare(CASES, PIXEL_CASES, **env)
    _assert_pixel_equal(CASES, results["render"])
    for (task_id, kwargs), r in zip(PIXEL_CASES, results["pixels"], strict=True):
        k, h, w = kwargs.get("frame_stack", 1), kwargs.get("img_height", 84), kwargs.get("img_width", 84)
        assert r["shape"] == [2, 3 * k, h, w] and r["dtype"] == "uint8", (task_id, r)
        assert r["space"] == [[3 * k, h, w], "uint8"], (task_id, r)
        assert r["frame"] == 0 and r["stack"] == 0 and r["state"] == 0 and r["frames"] == 10, (task_id, kwargs, r)


@pytest.mark.slow
@osmesa
def test_frames_equal_gymnasium_osmesa() -> None:
    _check_backend(MUJOCO_GL="osmesa", PYOPENGL_PLATFORM="osmesa")


@pytest.mark.slow
@pytest.mark.skipif(not HAVE_EGL, reason="no libEGL")
def test_frames_equal_gymnasium_egl() -> None:
    """The same cases through EGL: Mesa's software device on a CPU machine where its EGL works,
    the NVIDIA driver on a GPU machine (tests/gpu_check.sh)."""
    probe = _run(
        "import envpool\ne = envpool.make('Reacher-v5', env_type='gymnasium', render_mode='rgb_array', width=8,"
        " height=8)\ne.reset()\ne.render()",
        MUJOCO_GL="egl",
    )
    if probe.returncode != 0:
        pytest.skip(f"EGL is not usable here: {probe.stderr.strip().splitlines()[-1:]}")
    _check_backend(MUJOCO_GL="egl", PYOPENGL_PLATFORM="egl")


@osmesa
def test_every_interface_and_repeated_renders() -> None:
    """gym and dm pools render too; rendering twice gives the same frame (the GL state is
    per thread, shared by the envs of a model); frames follow the state; metadata."""
    code = """
import numpy as np, envpool
for env_type in ("gym", "dm", "gymnasium"):
    e = envpool.make("Hopper-v5", env_type=env_type, num_envs=3, num_threads=2, render_mode="rgb_array",
                     width=64, height=48)
    e.reset()
    a = e.render(env_ids=[0, 1, 2]); b = e.render(env_ids=[2, 0])
    assert a.shape == (3, 48, 64, 3) and a.dtype == np.uint8, a.shape
    assert np.array_equal(b[0], a[2]) and np.array_equal(b[1], a[0])
    if env_type != "dm":
        assert e.metadata["render_fps"] == 125 and e.metadata["render_modes"] == ["rgb_array"]
    act = np.ones((3, 3), np.float32)
    e.step(act) if env_type != "dm" else e.step(act, np.arange(3))
    assert not np.array_equal(e.render(env_ids=[0])[0], a[0])
    e.close()
print("OK")
"""
    out = _run(code, MUJOCO_GL="osmesa")
    assert out.returncode == 0 and "OK" in out.stdout, out.stderr[-4000:]


_PROCESS_CODE = """
import os, signal, threading, time, numpy as np, envpool

MAIN = str(threading.get_native_id())

def servers():
    # this process's children, as (pid, thread that started it); render servers are its only ones
    out = []
    for task in os.listdir(f"/proc/{os.getpid()}/task"):
        with open(f"/proc/{os.getpid()}/task/{task}/children") as f:
            out += [(int(pid), task) for pid in f.read().split()]
    return sorted(out)

def make(mode, **kw):
    e = envpool.make("Hopper-v5", env_type="gymnasium", num_envs=4, num_threads=2, render_mode="rgb_array",
                     render_env_ids=[0, 1, 2, 3], width=64, height=48, render_processes=mode, seed=3, **kw)
    e.reset()
    return e

frames = {}
for mode in ("off", "on", "auto", None, True, False):
    before = servers()
    e = make(mode)
    frames[mode] = e.render()
    new = [s for s in servers() if s not in before]
    names = {open(f"/proc/{pid}/comm").read().strip() for pid, _ in new}
    print("SERVERS", repr(mode), len(new), sorted(names))
    e.close()
    # the workers' servers end with them; the calling thread's (it helps render while it
    # waits) lives as long as that thread
    print("AFTER_CLOSE", repr(mode), len([s for s in servers() if s[1] != MAIN]))
print("EQUAL", all(np.array_equal(frames["off"], f) for f in frames.values()))

# A server that dies: the render that needed it raises, the next one starts a new server.
e = make("on")
first = e.render()
for pid, _ in servers():
    os.kill(pid, signal.SIGKILL)
time.sleep(0.2)
try:
    e.render()
    print("NO_ERROR")
except RuntimeError as err:
    print("ERROR", str(err).splitlines()[0])
print("RECOVERED", np.array_equal(e.render(), first), len(servers()) > 0)
e.close()
print("END", len([s for s in servers() if s[1] != MAIN]))
"""


@osmesa
def test_render_processes() -> None:
    """render_processes: "on"/True renders in one helper process per thread that renders
    (the stepping threads, and the calling thread, which helps while it waits), "off"/False
    on the thread, "auto"/None in helpers on Mesa's software rasterizer (OSMesa here), with
    the same frames every way; close() ends the workers' helpers. A helper that dies makes
    the render that needed it raise a RuntimeError, and the next render starts a new one."""
    out = _run(_PROCESS_CODE, MUJOCO_GL="osmesa")
    assert out.returncode == 0, out.stderr[-4000:]
    lines = out.stdout.splitlines()
    servers = {ln.split()[1]: ln for ln in lines if ln.startswith("SERVERS")}
    for mode in ("'on'", "'auto'", "None", "True"):
        fields = servers[mode].split(maxsplit=3)
        # one per thread that rendered: 1 to 3 (two workers, the caller) the first time
        assert 1 <= int(fields[2]) <= 3 and fields[3] == "['envpool_render_']", servers[mode]
    for mode in ("'off'", "False"):
        assert servers[mode].split()[2] == "0", servers[mode]
    assert all(ln.split()[2] == "0" for ln in lines if ln.startswith("AFTER_CLOSE")), lines
    assert "EQUAL True" in lines, lines
    error = next(ln for ln in lines if ln.startswith(("ERROR", "NO_ERROR")))
    assert "render process" in error and "killed by signal 9" in error, error
    assert "RECOVERED True True" in lines and "END 0" in lines, lines


@osmesa
def test_render_server_missing_is_an_exception() -> None:
    code = """
import envpool
for mode in ("on", "auto"):
    e = envpool.make("Hopper-v5", env_type="gymnasium", num_envs=1, render_mode="rgb_array", render_processes=mode)
    e.reset()
    try:
        e.render()
        print("RENDERED", mode)
    except RuntimeError as err:
        print("ERROR", mode, str(err).splitlines()[0])
"""
    out = _run(code, MUJOCO_GL="osmesa", ENVPOOL_RENDER_SERVER="/nonexistent/envpool_render_server")
    assert out.returncode == 0, out.stderr[-4000:]
    errors = [ln for ln in out.stdout.splitlines() if ln.startswith("ERROR")]
    assert len(errors) == 2 and all("cannot start the MuJoCo render server" in ln for ln in errors), out.stdout


# ---------------------------------------------------------------------------
# Bad input: ValueError / TypeError at make, before any GL is touched.


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"camera_name": "no_such_camera"}, ValueError, "not a camera of the model.*'track'"),
        ({"camera_id": 1}, ValueError, r"camera_id must be -1 .* in \[0, 1\), got 1"),
        ({"camera_id": -2}, ValueError, "camera_id must be -1"),
        ({"camera_id": 0, "camera_name": "track"}, ValueError, "Both `camera_id` and `camera_name`"),
        ({"width": 0}, ValueError, "width and height must be in"),
        ({"height": -480}, ValueError, "width and height must be in"),
        ({"width": 100000}, ValueError, "width and height must be in"),
        ({"width": 1.5}, TypeError, "'width' must be an int"),
        ({"default_camera_config": {"zoom": 2.0}}, ValueError, "unknown key 'zoom'"),
        ({"default_camera_config": {"lookat": [1.0, 2.0]}}, ValueError, "lookat must be three numbers"),
        ({"default_camera_config": {"trackbodyid": 0.5}}, ValueError, "trackbodyid must be an integer"),
        ({"default_camera_config": {"distance": "far"}}, TypeError, "default_camera_config values must be numbers"),
        ({"default_camera_config": "distance"}, ValueError, "expected key=value"),
        ({"camera_name": 3}, TypeError, "'camera_name' must be a str"),
        ({"visual_options": {99: True}}, ValueError, r"mjtVisFlag index in \[0, "),
        ({"visual_options": {"contacts": True}}, TypeError, "visual_options must map mjtVisFlag indices"),
        ({"max_geom": 0}, ValueError, "max_geom must be in"),
        ({"render_processes": "sometimes"}, ValueError, "render_processes must be"),
    ],
)
def test_bad_render_options(kwargs, error, match) -> None:
    with pytest.raises(error, match=match):
        envpool.make("HalfCheetah-v5", env_type="gymnasium", render_mode="rgb_array", **kwargs)


def test_render_options_in_config() -> None:
    e = envpool.make("Humanoid-v5", env_type="gymnasium", num_envs=1)
    assert (e.config["width"], e.config["height"], e.config["camera_id"], e.config["camera_name"]) == (480, 480, -1, "")
    assert e.config["default_camera_config"] == "trackbodyid=1;distance=4.0;lookat=0.0,0.0,2.0;elevation=-20.0"
    # gymnasium's None, and a dict as its text
    e = envpool.make(
        "Humanoid-v5",
        env_type="gymnasium",
        camera_id=None,
        camera_name=None,
        default_camera_config={"distance": np.float64(3), "lookat": np.array([0, 0, 1]), "type": 1.0},
    )
    assert e.config["camera_id"] == -1 and e.config["camera_name"] == ""
    assert e.config["default_camera_config"] == "distance=3.0;lookat=0.0,0.0,1.0;type=1"
    e = envpool.make("Swimmer-v5", env_type="gymnasium", default_camera_config=None, visual_options=None)
    assert e.config["default_camera_config"] == "" and e.config["visual_options"] == ""
    e = envpool.make("Swimmer-v5", env_type="gymnasium", visual_options={np.int64(14): 1, 9: False}, max_geom=50)
    assert e.config["visual_options"] == "14=1;9=0" and e.config["max_geom"] == 50
    assert envpool.make("Humanoid-v5", env_type="gymnasium", camera_name="track").config["camera_name"] == "track"


def test_render_a_closed_pool_raises() -> None:
    e = envpool.make("HalfCheetah-v5", env_type="gymnasium", num_envs=2, render_mode="rgb_array")
    e.reset()
    e.close()
    with pytest.raises(RuntimeError, match="closed"):
        e.render()


def test_render_needs_render_mode() -> None:
    e = envpool.make("HalfCheetah-v5", env_type="gymnasium", num_envs=1)
    e.reset()
    with pytest.raises(RuntimeError, match="render_mode='rgb_array'"):
        e.render()


# ---------------------------------------------------------------------------
# GL availability: import and stepping never load GL; no usable GL is an exception.

_STEP_AND_RENDER = """
import numpy as np, envpool
e = envpool.make("Reacher-v5", env_type="gymnasium", num_envs=2, num_threads=2, render_mode="rgb_array")
e.reset()
for attempt in range(2):
    try:
        e.render()
    except Exception as err:
        print("ERROR", type(err).__name__, err)
    else:
        print("RENDERED")
e.step(np.zeros((2, 2), np.float32))  # the pool still works
maps = open("/proc/self/maps").read()
print("LOADED", "libOSMesa" in maps, "libEGL" in maps)
"""


def test_import_and_stepping_load_no_gl() -> None:
    code = """
import numpy as np, envpool
e = envpool.make("Ant-v5", env_type="gymnasium", num_envs=2, render_mode="rgb_array")
e.reset(); e.step(np.zeros((2, 8), np.float32))
maps = open("/proc/self/maps").read()
print("LOADED", "libOSMesa" in maps, "libEGL" in maps, "libGL" in maps)
"""
    out = _run(code)
    assert out.returncode == 0, out.stderr[-4000:]
    assert "LOADED False False False" in out.stdout, out.stdout


def test_no_gl_available_is_an_exception() -> None:
    out = _run(
        _STEP_AND_RENDER,
        MUJOCO_GL=None,
        ENVPOOL_EGL_LIBRARY="libNoSuchEGL.so.1",
        ENVPOOL_OSMESA_LIBRARY="libNoSuchOSMesa.so.8",
    )
    assert out.returncode == 0, out.stderr[-4000:]
    errors = [line for line in out.stdout.splitlines() if line.startswith("ERROR")]
    assert len(errors) == 2 and "RENDERED" not in out.stdout, out.stdout
    assert errors[0].startswith("ERROR RuntimeError") and "none is usable" in errors[0], errors[0]
    assert "libNoSuchEGL.so.1" in errors[0] and "libNoSuchOSMesa.so.8" in errors[0] and "libosmesa6" in errors[0]
    assert "LOADED False False" in out.stdout


@pytest.mark.parametrize(
    "env, error, match",
    [
        ({"MUJOCO_GL": "glfw"}, "ValueError", "MUJOCO_GL must be 'egl' or 'osmesa'"),
        ({"MUJOCO_GL": "osmesa", "ENVPOOL_OSMESA_LIBRARY": "libNoSuch.so"}, "RuntimeError", "MUJOCO_GL=osmesa, but"),
        ({"MUJOCO_GL": "egl", "MUJOCO_EGL_DEVICE_ID": "99"}, "RuntimeError", "MUJOCO_GL=egl, but EGL is not usable"),
    ],
)
def test_unusable_backend_is_an_exception(env, error, match) -> None:
    out = _run(_STEP_AND_RENDER, **env)
    assert out.returncode == 0, out.stderr[-4000:]
    errors = [line for line in out.stdout.splitlines() if line.startswith("ERROR")]
    assert len(errors) == 2 and errors[0].startswith(f"ERROR {error}") and match in errors[0], out.stdout


@osmesa
def test_default_backend_renders_and_exit_is_clean() -> None:
    """MUJOCO_GL unset: EGL if usable, else OSMesa. Pools left open at exit (their threads'
    GL contexts alive), closed ones, and a render on the main thread: the process exits 0."""
    code = """
import numpy as np, envpool
a = envpool.make("Ant-v5", env_type="gymnasium", num_envs=4, num_threads=2, render_mode="rgb_array",
                 render_env_ids=[0, 1, 2, 3], width=64, height=64)
a.reset(); f = a.render()
assert f.shape == (4, 64, 64, 3) and f.mean() > 20
b = envpool.make("Walker2d-v5", env_type="gymnasium", num_envs=1, render_mode="rgb_array", width=32, height=32)
b.reset(); b.render(); b.close()
del b
print("OK")
"""
    out = _run(code, MUJOCO_GL=None)
    assert out.returncode == 0 and "OK" in out.stdout, out.stderr[-4000:]


# ---------------------------------------------------------------------------
# from_pixels: the observation is the frame (channel first), rendered on the stepping threads.


def test_pixel_spec_and_bad_sizes() -> None:
    spec = envpool.make_spec("Walker2d-v5", from_pixels=True, img_height=32, img_width=40, frame_stack=4)
    assert spec.observation_space.shape == (12, 32, 40) and spec.observation_space.dtype == np.uint8
    assert spec.observation_space.low.min() == 0 and spec.observation_space.high.max() == 255
    spec = envpool.make_spec("Walker2d-v5", from_pixels=True, state_in_info=True)
    assert spec.observation_space.shape == (3, 84, 84)
    assert ("info:state", "float64", (17,)) in [s[:3] for s in spec.state_spec]
    for bad in ({"img_height": 0}, {"img_width": -84}, {"img_width": 5000}):
        with pytest.raises(ValueError, match="img_width and img_height must be in"):
            envpool.make("Walker2d-v5", env_type="gymnasium", from_pixels=True, **bad)


@pytest.mark.slow  # ~10 s; test_render_processes stays fast
@osmesa
def test_pixel_pool_steps_like_the_state_pool() -> None:
    """Rewards, terminations, info and the state (info["state"]) of a pixel pool equal a state
    pool's (same seed, actions), over autoresets, in every interface."""
    code = """
import numpy as np, envpool
kw = dict(num_envs=4, num_threads=2, seed=3, max_episode_steps=15)
pix = envpool.make("Hopper-v5", env_type="gymnasium", from_pixels=True, state_in_info=True, img_height=24,
                   img_width=24, **kw)
st = envpool.make("Hopper-v5", env_type="gymnasium", **kw)
(po, pi), (so, si) = pix.reset(), st.reset()
assert po.shape == (4, 3, 24, 24) and np.array_equal(pi["state"], so)
rng = np.random.default_rng(0)
for t in range(40):
    a = rng.uniform(-1, 1, (4, 3)).astype(np.float32)
    po, pr, pt, ptr, pi = pix.step(a)
    so, sr, stt, str_, si = st.step(a)
    assert np.array_equal(pi["state"], so) and np.array_equal(pr, sr) and np.array_equal(pt, stt)
    assert np.array_equal(ptr, str_) and po.std() > 1
    for k, v in si.items():  # info arrays (not the "players" dict)
        assert isinstance(v, dict) or np.array_equal(pi[k], v), k
for env_type in ("gym", "dm"):
    e = envpool.make("Reacher-v5", env_type=env_type, num_envs=2, from_pixels=True, frame_stack=2)
    r = e.reset()
    obs = r.observation.obs if env_type == "dm" else r[0]
    assert obs.shape == (2, 6, 84, 84) and obs.dtype == np.uint8, obs.shape
print("OK")
"""
    out = _run(code, MUJOCO_GL="osmesa")
    assert out.returncode == 0 and "OK" in out.stdout, out.stderr[-4000:]


def test_pixels_without_gl_raise_at_reset() -> None:
    code = """
import envpool
e = envpool.make("HalfCheetah-v5", env_type="gymnasium", num_envs=2, from_pixels=True)
try:
    e.reset()
except RuntimeError as err:
    print("ERROR", err)
print("ALIVE")
"""
    out = _run(code, MUJOCO_GL="osmesa", ENVPOOL_OSMESA_LIBRARY="libNoSuchOSMesa.so.8")
    assert out.returncode == 0 and "ALIVE" in out.stdout, out.stderr[-4000:]
    assert "ERROR" in out.stdout and "MUJOCO_GL=osmesa, but OSMesa is not usable" in out.stdout, out.stdout
