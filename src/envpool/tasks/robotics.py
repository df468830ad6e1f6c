"""Gymnasium-Robotics tasks on the MuJoCo family: EnvPool 1.2.5's ids, the reference's
keyword options, and each pool's ``compute_reward`` (for HER relabelling).

The models are gymnasium-robotics' own XML files and meshes, read at make time from the
installed ``gymnasium_robotics`` package (found by path: importing it imports the mujoco
bindings, whose timer callback every mj_step would then call); nothing of them is in
envpool. The maze models are built here as ``Maze.make_maze`` builds them (point.xml plus a
box per wall cell and the target site) and written to a file of this user's temporary
folder named by its contents; the maze layouts are read from the package's ``maps.py``.

PointMaze (``PointMaze_<maze>[Dense]-v3``, family ``PointMaze``): options ``maze_map`` (a
list of rows of ``0``, ``1``, ``"r"``, ``"g"``, ``"c"`` as the reference takes it, or the
name of one of its maps, e.g. ``"U_MAZE"`` as EnvPool 1.2.5 takes it), ``reward_type``
(``"sparse"``/``"dense"``), ``continuing_task``, ``reset_target``, and EnvPool 1.2.5's
``maze_size_scaling``, ``maze_height`` and ``position_noise_range``. ``report_draws=True``
reports the random draws (info ``draws``/``num_draws``) for replaying an episode in the
reference.

FrankaKitchen (``FrankaKitchen-v1``, family ``Kitchen``): options ``tasks_to_complete`` (a list
of ``KITCHEN_TASKS``' names, handed to the engine comma-joined), ``terminate_on_tasks_completed``,
``remove_task_when_completed``, ``object_noise_ratio``, ``robot_noise_ratio``; its goals are
(17,) arrays sliced per task by ``KITCHEN_GOAL_SLICES``. See docs/robotics.md.
"""

from __future__ import annotations

import ast
import collections.abc
import hashlib
import importlib.util
import os
import tempfile
import xml.etree.ElementTree as ET
from typing import Any

import numpy as np

from envpool.registration import PythonSide, register, set_family_python
from envpool.tasks import mujoco as _mujoco


def _package_dir() -> str:
    spec = importlib.util.find_spec("gymnasium_robotics")
    if spec is None or not spec.submodule_search_locations:
        return ""
    return list(spec.submodule_search_locations)[0]


_PACKAGE = _package_dir()
_ASSETS = os.path.join(_PACKAGE, "envs", "assets") if _PACKAGE else ""


def _need_package() -> None:
    if not _PACKAGE:
        raise ImportError(
            "the Gymnasium-Robotics tasks read their models from the gymnasium-robotics package: "
            "pip install --no-deps gymnasium-robotics==1.4.2"
        )


# -- PointMaze ------------------------------------------------------------------------

_CELL_NAMES = {"R": "r", "G": "g", "C": "c", "RESET": "r", "GOAL": "g", "COMBINED": "c"}
_MAPS: dict[str, list[list[Any]]] | None = None


def _maps() -> dict[str, list[list[Any]]]:
    """The reference's maze layouts (gymnasium_robotics/envs/maze/maps.py), read without
    importing the package: its module-level lists, R/G/C as "r"/"g"/"c"."""
    global _MAPS
    if _MAPS is None:
        _need_package()
        with open(os.path.join(_PACKAGE, "envs", "maze", "maps.py")) as f:
            tree = ast.parse(f.read())
        maps: dict[str, list[list[Any]]] = {}

        def value(node: ast.AST) -> Any:
            if isinstance(node, ast.Name) and node.id in _CELL_NAMES:
                return _CELL_NAMES[node.id]
            if isinstance(node, ast.List):
                return [value(e) for e in node.elts]
            return ast.literal_eval(node)

        for stmt in tree.body:
            if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.List):
                for target in stmt.targets:
                    if isinstance(target, ast.Name):
                        maps[target.id] = value(stmt.value)
        _MAPS = maps
    return _MAPS


def _maze_rows(maze_map: Any) -> list[list[Any]]:
    """A maze_map option as the reference's list of rows (a map name looked up)."""
    if isinstance(maze_map, str):
        if maze_map in _maps():
            return _maps()[maze_map]
        raise ValueError(f"maze_map: unknown map name {maze_map!r}; the reference's maps are {sorted(_maps())}")
    if isinstance(maze_map, np.ndarray):
        maze_map = maze_map.tolist()
    if not isinstance(maze_map, collections.abc.Sequence) or not maze_map:
        raise ValueError(f"maze_map must be a non-empty list of rows or a map name, got {maze_map!r}")
    rows = []
    for row in maze_map:
        if isinstance(row, str) or not isinstance(row, collections.abc.Sequence) or len(row) == 0:
            raise ValueError(f"maze_map rows must be non-empty lists of cells, got {row!r}")
        cells: list[int | str] = []
        for cell in row:
            if isinstance(cell, (bool, np.bool_)):
                raise ValueError(f"maze_map: unknown cell {cell!r} (cells are 0, 1, 'r', 'g' and 'c')")
            if isinstance(cell, (int, np.integer)) and int(cell) in (0, 1):
                cells.append(int(cell))
            elif isinstance(cell, str) and cell in ("r", "g", "c"):
                cells.append(cell)
            else:
                raise ValueError(f"maze_map: unknown cell {cell!r} (cells are 0, 1, 'r', 'g' and 'c')")
        rows.append(cells)
    if len({len(r) for r in rows}) != 1:
        raise ValueError("maze_map rows must all have the same length")
    return rows


def _number(config: dict[str, Any], key: str, default: float) -> float:
    v = config.get(key, default)
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise TypeError(f"{key} must be a number, got {v!r}")
    return float(v)


def _maze_xml(rows: list[list[Any]], scaling: float, height: float) -> str:
    """Maze.make_maze's model (gymnasium_robotics/envs/maze/maze_v4.py): point.xml, a box
    geom per wall cell and the target site, written to a file named by its contents."""
    tree = ET.parse(os.path.join(_ASSETS, "point", "point.xml"))
    worldbody = tree.find(".//worldbody")
    assert worldbody is not None
    x_center = len(rows[0]) / 2 * scaling
    y_center = len(rows) / 2 * scaling
    for i, row in enumerate(rows):
        for j, cell in enumerate(row):
            if cell != 1:
                continue
            x = (j + 0.5) * scaling - x_center
            y = y_center - (i + 0.5) * scaling
            ET.SubElement(
                worldbody,
                "geom",
                name=f"block_{i}_{j}",
                pos=f"{x} {y} {height / 2 * scaling}",
                size=f"{0.5 * scaling} {0.5 * scaling} {height / 2 * scaling}",
                type="box",
                material="",
                contype="1",
                conaffinity="1",
                rgba="0.7 0.5 0.3 1.0",
            )
    ET.SubElement(
        worldbody,
        "site",
        name="target",
        pos=f"0 0 {height / 2 * scaling}",
        size=f"{0.2 * scaling}",
        rgba="1 0 0 0.7",
        type="sphere",
    )
    text = ET.tostring(tree.getroot())
    folder = os.path.join(tempfile.gettempdir(), f"envpool-robotics-{os.getuid() if hasattr(os, 'getuid') else 0}")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"point_maze_{hashlib.sha256(text).hexdigest()[:24]}.xml")
    if not os.path.exists(path):
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "wb") as f:
            f.write(text)
        os.replace(tmp, path)
    return path


def _prepare_maze(config: dict[str, Any], user: collections.abc.Mapping[str, Any]) -> None:
    _need_package()
    rows = _maze_rows(config.get("maze_map", "U_MAZE"))
    scaling = _number(config, "maze_size_scaling", 1.0)
    height = _number(config, "maze_height", 0.4)
    if not (np.isfinite(scaling) and scaling > 0 and np.isfinite(height) and height > 0):
        raise ValueError(f"maze_size_scaling and maze_height must be positive, got {scaling} and {height}")
    config["maze_map"] = "/".join("".join(str(c) for c in row) for row in rows)
    if "xml_file" not in user:
        config["xml_file"] = _maze_xml(rows, scaling, height)
    if user.get("default_camera_config") is None and "default_camera_config" not in user:
        # PointMazeEnv's camera: farther out for the large mazes.
        config["default_camera_config"] = f"distance={12.5 if len(rows) > 8 else 8.8}"
    _mujoco.prepare_camera_keys(config, user)


def _pool_option(pool: Any, key: str) -> Any:
    """A pool's option that compute_reward reads: one value for all its envs."""
    values = {repr(pool.config[key])}
    # a pool of envs of different configs (env_options): each config's value
    for config in getattr(pool.spec, "task_configs", None) or ():
        values.add(repr(config.get(key)))
    if len(values) != 1:
        raise ValueError(f"compute_reward: the pool's envs differ in {key}; make a pool per {key}")
    return pool.config[key]


def _maze_compute_reward(pool: Any, achieved_goal: Any, desired_goal: Any, info: Any = None) -> np.ndarray:
    """MazeEnv.compute_reward on a batch (rows of achieved/desired goals): float64."""
    distance = np.linalg.norm(np.asarray(achieved_goal) - np.asarray(desired_goal), axis=-1)
    if _pool_option(pool, "reward_type") == "dense":
        return np.exp(-distance)
    return (distance <= 0.45).astype(np.float64)


MAZE_PYTHON = PythonSide(prepare=_prepare_maze, methods={"compute_reward": _maze_compute_reward})

# id, maze (the reference's map name), max_episode_steps (gymnasium-robotics' and EnvPool 1.2.5's)
_MAZES = (
    ("PointMaze_UMaze", "U_MAZE", 300),
    ("PointMaze_Open", "OPEN", 300),
    ("PointMaze_Open_Diverse_G", "OPEN_DIVERSE_G", 300),
    ("PointMaze_Open_Diverse_GR", "OPEN_DIVERSE_GR", 300),
    ("PointMaze_Medium", "MEDIUM_MAZE", 600),
    ("PointMaze_Medium_Diverse_G", "MEDIUM_MAZE_DIVERSE_G", 600),
    ("PointMaze_Medium_Diverse_GR", "MEDIUM_MAZE_DIVERSE_GR", 600),
    ("PointMaze_Large", "LARGE_MAZE", 800),
    ("PointMaze_Large_Diverse_G", "LARGE_MAZE_DIVERSE_G", 800),
    ("PointMaze_Large_Diverse_GR", "LARGE_MAZE_DIVERSE_GR", 800),
)

set_family_python("PointMaze", MAZE_PYTHON)
for _name, _maze, _steps in _MAZES:
    for _suffix, _reward in (("", "sparse"), ("Dense", "dense")):
        register(
            f"{_name}{_suffix}-v3",
            "PointMaze",
            python=MAZE_PYTHON,
            max_episode_steps=_steps,
            maze_map=_maze,
            reward_type=_reward,
            render_fps=50,
        )


# -- Fetch ----------------------------------------------------------------------------


def _prepare_assets(config: dict[str, Any], user: collections.abc.Mapping[str, Any]) -> None:
    """The tasks whose model is a file of the package's assets (Fetch, Adroit)."""
    _need_package()
    if not config.get("assets_dir"):
        config["assets_dir"] = _ASSETS
    _mujoco.prepare_camera_keys(config, user)


def _prepare_fetch(config: dict[str, Any], user: collections.abc.Mapping[str, Any]) -> None:
    for key in ("target_offset", "initial_slide", "initial_object"):
        if key in config and not isinstance(config[key], str):
            config[key] = [float(v) for v in np.ravel(config[key])]
    _prepare_assets(config, user)


def _fetch_compute_reward(pool: Any, achieved_goal: Any, desired_goal: Any, info: Any = None) -> np.ndarray:
    """BaseFetchEnv.compute_reward on a batch: sparse float32 -1/0, dense float64 -d."""
    d = np.linalg.norm(np.asarray(achieved_goal) - np.asarray(desired_goal), axis=-1)
    threshold = float(_pool_option(pool, "distance_threshold"))
    if _pool_option(pool, "reward_type") == "sparse":
        return -(d > threshold).astype(np.float32)
    return -d


FETCH_PYTHON = PythonSide(prepare=_prepare_fetch, methods={"compute_reward": _fetch_compute_reward})

# The reference's constants per class (gymnasium_robotics/envs/fetch/*.py, Mujoco*Env).
_FETCH: dict[str, dict[str, Any]] = {
    "FetchReach": {
        "xml_file": "fetch/reach.xml",
        "has_object": False,
        "block_gripper": True,
        "target_in_the_air": True,
        "gripper_extra_height": 0.2,
        "target_offset": [0.0, 0.0, 0.0],
        "obj_range": 0.15,
        "target_range": 0.15,
        "initial_slide": [0.4049, 0.48, 0.0],
    },
    "FetchPush": {
        "xml_file": "fetch/push.xml",
        "has_object": True,
        "block_gripper": True,
        "target_in_the_air": False,
        "gripper_extra_height": 0.0,
        "target_offset": [0.0, 0.0, 0.0],
        "obj_range": 0.15,
        "target_range": 0.15,
        "initial_slide": [0.405, 0.48, 0.0],
        "initial_object": [1.25, 0.53, 0.4, 1.0, 0.0, 0.0, 0.0],
    },
    "FetchSlide": {
        "xml_file": "fetch/slide.xml",
        "has_object": True,
        "block_gripper": True,
        "target_in_the_air": False,
        "gripper_extra_height": -0.02,
        "target_offset": [0.4, 0.0, 0.0],
        "obj_range": 0.1,
        "target_range": 0.3,
        "initial_slide": [0.05, 0.48, 0.0],
        "initial_object": [1.7, 1.1, 0.41, 1.0, 0.0, 0.0, 0.0],
    },
    "FetchPickAndPlace": {
        "xml_file": "fetch/pick_and_place.xml",
        "has_object": True,
        "block_gripper": False,
        "target_in_the_air": True,
        "gripper_extra_height": 0.2,
        "target_offset": [0.0, 0.0, 0.0],
        "obj_range": 0.15,
        "target_range": 0.15,
        "initial_slide": [0.405, 0.48, 0.0],
        "initial_object": [1.25, 0.53, 0.4, 1.0, 0.0, 0.0, 0.0],
    },
}

set_family_python("Fetch", FETCH_PYTHON)
for _name, _constants in _FETCH.items():
    for _suffix, _reward in (("", "sparse"), ("Dense", "dense")):
        # v1 (mujoco-py's, which does not run on mujoco 3) runs the v4 env, as in EnvPool 1.2.5.
        for _version in ("v4", "v1"):
            register(
                f"{_name}{_suffix}-{_version}",
                "Fetch",
                python=FETCH_PYTHON,
                max_episode_steps=50,
                reward_type=_reward,
                distance_threshold=0.05,
                assets_dir=_ASSETS,
                render_fps=25,
                **_constants,
            )


# -- Adroit ---------------------------------------------------------------------------


ADROIT_PYTHON = PythonSide(prepare=_prepare_assets)

# task -> its env's DEFAULT_CAMERA_CONFIG
_ADROIT_CAMERAS = {
    "door": "distance=1.5;azimuth=90.0",
    "hammer": "distance=2.0;azimuth=45.0",
    "pen": "distance=1.0;azimuth=-45.0",
    "relocate": "distance=1.5;azimuth=90.0",
}

set_family_python("Adroit", ADROIT_PYTHON)
for _task, _camera in _ADROIT_CAMERAS.items():
    for _suffix, _reward in (("", "dense"), ("Sparse", "sparse")):
        register(
            f"AdroitHand{_task.capitalize()}{_suffix}-v1",
            "Adroit",
            python=ADROIT_PYTHON,
            max_episode_steps=200,
            adroit_task=_task,
            reward_type=_reward,
            xml_file=f"adroit_hand/adroit_{_task}.xml",
            assets_dir=_ASSETS,
            default_camera_config=_camera,
            render_fps=100,
        )


# -- Shadow Hand ----------------------------------------------------------------------


def _prepare_hand(config: dict[str, Any], user: collections.abc.Mapping[str, Any]) -> None:
    if "target_position_range" in config and not isinstance(config["target_position_range"], str):
        config["target_position_range"] = [float(v) for v in np.ravel(config["target_position_range"])]
    _prepare_assets(config, user)


def _hand_reach_compute_reward(pool: Any, achieved_goal: Any, desired_goal: Any, info: Any = None) -> np.ndarray:
    """BaseHandReachEnv.compute_reward on a batch: sparse float32 -1/0, dense float64 -d."""
    return _fetch_compute_reward(pool, achieved_goal, desired_goal, info)


def _quat_mul(q0: np.ndarray, q1: np.ndarray) -> np.ndarray:
    w0, x0, y0, z0 = q0[..., 0], q0[..., 1], q0[..., 2], q0[..., 3]
    w1, x1, y1, z1 = q1[..., 0], q1[..., 1], q1[..., 2], q1[..., 3]
    return np.stack(
        [
            w0 * w1 - x0 * x1 - y0 * y1 - z0 * z1,
            w0 * x1 + x0 * w1 + y0 * z1 - z0 * y1,
            w0 * y1 + y0 * w1 + z0 * x1 - x0 * z1,
            w0 * z1 + z0 * w1 + x0 * y1 - y0 * x1,
        ],
        axis=-1,
    )


def _quat2euler(q: np.ndarray) -> np.ndarray:
    """rotations.quat2euler (quat2mat then mat2euler)."""
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    nq = np.sum(q * q, axis=-1)
    s = 2.0 / nq
    X, Y, Z = x * s, y * s, z * s
    wX, wY, wZ, xX, xY, xZ, yY, yZ, zZ = w * X, w * Y, w * Z, x * X, x * Y, x * Z, y * Y, y * Z, z * Z
    m = np.empty(q.shape[:-1] + (3, 3))
    m[..., 0, 0], m[..., 0, 1], m[..., 0, 2] = 1.0 - (yY + zZ), xY - wZ, xZ + wY
    m[..., 1, 0], m[..., 1, 1], m[..., 1, 2] = xY + wZ, 1.0 - (xX + zZ), yZ - wX
    m[..., 2, 0], m[..., 2, 1], m[..., 2, 2] = xZ - wY, yZ + wX, 1.0 - (xX + yY)
    m = np.where((nq > np.finfo(np.float64).eps)[..., None, None], m, np.eye(3))
    cy = np.sqrt(m[..., 2, 2] * m[..., 2, 2] + m[..., 1, 2] * m[..., 1, 2])
    cond = cy > np.finfo(np.float64).eps * 4.0
    e = np.empty(q.shape[:-1] + (3,))
    e[..., 2] = np.where(cond, -np.arctan2(m[..., 0, 1], m[..., 0, 0]), -np.arctan2(-m[..., 1, 0], m[..., 1, 1]))
    e[..., 1] = -np.arctan2(-m[..., 0, 2], cy)
    e[..., 0] = np.where(cond, -np.arctan2(m[..., 1, 2], m[..., 2, 2]), 0.0)
    return e


def _euler2quat(e: np.ndarray) -> np.ndarray:
    ai, aj, ak = e[..., 2] / 2, -e[..., 1] / 2, e[..., 0] / 2
    si, sj, sk = np.sin(ai), np.sin(aj), np.sin(ak)
    ci, cj, ck = np.cos(ai), np.cos(aj), np.cos(ak)
    cc, cs, sc, ss = ci * ck, ci * sk, si * ck, si * sk
    return np.stack([cj * cc + sj * ss, cj * cs - sj * sc, -(cj * ss + sj * cc), cj * sc - sj * cs], axis=-1)


def _hand_manipulate_compute_reward(pool: Any, achieved_goal: Any, desired_goal: Any, info: Any = None) -> np.ndarray:
    """BaseManipulateEnv.compute_reward on a batch: sparse float32 -1/0 (position and
    rotation both within their thresholds), dense float64 -(10 d_pos + d_rot)."""
    a = np.asarray(achieved_goal, dtype=np.float64)
    b = np.asarray(desired_goal, dtype=np.float64)
    d_pos = np.zeros_like(a[..., 0])
    if _pool_option(pool, "target_position") != "ignore":
        d_pos = np.linalg.norm(a[..., :3] - b[..., :3], axis=-1)
    qa, qb = a[..., 3:], b[..., 3:]
    if _pool_option(pool, "ignore_z_target_rotation"):
        ea, eb = _quat2euler(qa), _quat2euler(qb)
        # the reference's indexing: the z angle of one goal, but on a batch the
        # third goal's whole row (docs/robotics.md)
        ea[2] = eb[2]
        qa = _euler2quat(ea)
    conj = qb * np.array([1.0, -1.0, -1.0, -1.0])
    d_rot = 2 * np.arccos(np.clip(_quat_mul(qa, conj)[..., 0], -1.0, 1.0))
    if _pool_option(pool, "reward_type") == "sparse":
        ok_pos = (d_pos < float(_pool_option(pool, "distance_threshold"))).astype(np.float32)
        ok_rot = (d_rot < float(_pool_option(pool, "rotation_threshold"))).astype(np.float32)
        return (ok_pos * ok_rot).astype(np.float32) - 1.0
    return -(10.0 * d_pos + d_rot)


HAND_REACH_PYTHON = PythonSide(prepare=_prepare_hand, methods={"compute_reward": _hand_reach_compute_reward})
HAND_MANIPULATE_PYTHON = PythonSide(prepare=_prepare_hand, methods={"compute_reward": _hand_manipulate_compute_reward})

set_family_python("HandReach", HAND_REACH_PYTHON)
set_family_python("HandManipulate", HAND_MANIPULATE_PYTHON)
for _suffix, _reward in (("", "sparse"), ("Dense", "dense")):
    # v0 (mujoco-py's, which does not run on mujoco 3) runs the v3 env, as in EnvPool 1.2.5.
    for _version in ("v3", "v0"):
        register(
            f"HandReach{_suffix}-{_version}",
            "HandReach",
            python=HAND_REACH_PYTHON,
            max_episode_steps=50,
            reward_type=_reward,
            xml_file="hand/reach.xml",
            assets_dir=_ASSETS,
            render_fps=25,
        )

# object -> (its constants, {variant: (target_position, target_rotation)}) as
# gymnasium-robotics' registry and Mujoco{Block,Egg,Pen}Env set them.
_HAND_OBJECTS: dict[str, tuple[dict[str, Any], dict[str, tuple[str, str]]]] = {
    "Block": (
        {},
        {
            "": ("random", "xyz"),
            "Full": ("random", "xyz"),
            "RotateZ": ("ignore", "z"),
            "RotateParallel": ("ignore", "parallel"),
            "RotateXYZ": ("ignore", "xyz"),
        },
    ),
    "Egg": ({}, {"": ("random", "xyz"), "Full": ("random", "xyz"), "Rotate": ("ignore", "xyz")}),
    "Pen": (
        {"randomize_initial_rotation": False, "ignore_z_target_rotation": True, "distance_threshold": 0.05},
        {"": ("random", "xyz"), "Full": ("random", "xyz"), "Rotate": ("ignore", "xyz")},
    ),
}
# touch variant -> (id infix, touch_get_obs); the "Full" variants have none.
_HAND_TOUCH = (("", ""), ("_BooleanTouchSensors", "boolean"), ("_ContinuousTouchSensors", "sensordata"))

for _object, (_constants, _variants) in _HAND_OBJECTS.items():
    for _variant, (_position, _rotation) in _variants.items():
        for _touch, _touch_obs in _HAND_TOUCH:
            if _touch and _variant == "Full":
                continue
            _xml = f"hand/manipulate_{_object.lower()}{'_touch_sensors' if _touch else ''}.xml"
            for _suffix, _reward in (("", "sparse"), ("Dense", "dense")):
                # v0 (mujoco-py's) runs the v1 env, as in EnvPool 1.2.5.
                for _version in ("v1", "v0"):
                    register(
                        f"HandManipulate{_object}{_variant}{_touch}{_suffix}-{_version}",
                        "HandManipulate",
                        python=HAND_MANIPULATE_PYTHON,
                        max_episode_steps=100,
                        reward_type=_reward,
                        target_position=_position,
                        target_rotation=_rotation,
                        touch_get_obs=_touch_obs,
                        xml_file=_xml,
                        assets_dir=_ASSETS,
                        render_fps=25,
                        **_constants,
                    )

# -- Franka Kitchen -------------------------------------------------------------------

# KitchenEnv's tasks (OBS_ELEMENT_GOALS), in the order of the info masks and obs keys.
KITCHEN_TASKS = (
    "bottom burner",
    "top burner",
    "light switch",
    "slide cabinet",
    "hinge cabinet",
    "microwave",
    "kettle",
)


def _prepare_kitchen(config: dict[str, Any], user: collections.abc.Mapping[str, Any]) -> None:
    """tasks_to_complete, a list of task names as the reference takes it, reaches the
    engine as one comma-separated string (which the engine checks name by name)."""
    tasks = config.get("tasks_to_complete")
    if tasks is not None and not isinstance(tasks, str):
        if not isinstance(tasks, collections.abc.Iterable) or not all(isinstance(t, str) for t in tasks):
            raise ValueError(f"tasks_to_complete must be a list of task names {list(KITCHEN_TASKS)}, got {tasks!r}")
        tasks = list(tasks)
        for t in tasks:
            if t not in KITCHEN_TASKS:
                raise ValueError(f"tasks_to_complete: unknown task {t!r} (the tasks: {list(KITCHEN_TASKS)})")
        config["tasks_to_complete"] = ",".join(tasks)
    _prepare_assets(config, user)


# Each task's slice of the observation's achieved_goal/desired_goal (17 values).
KITCHEN_GOAL_SLICES: dict[str, slice] = {}
_offset = 0
for _task, _dim in zip(KITCHEN_TASKS, (2, 2, 2, 1, 2, 1, 7)):
    KITCHEN_GOAL_SLICES[_task] = slice(_offset, _offset + _dim)
    _offset += _dim


def _kitchen_goal(goals: Any, task: str) -> np.ndarray:
    """A task's goals from a (..., 17) array, or a dict keyed by task name (the reference's)."""
    if isinstance(goals, collections.abc.Mapping):
        return np.asarray(goals[task], dtype=np.float64)
    return np.asarray(goals, dtype=np.float64)[..., KITCHEN_GOAL_SLICES[task]]


def _kitchen_compute_reward(pool: Any, achieved_goal: Any, desired_goal: Any, info: Any = None) -> np.ndarray:
    """KitchenEnv.compute_reward on a batch: per row, the number (float64) of tasks whose
    achieved goal lies within 0.3 of the desired one. The reference counts the tasks it has
    not yet removed; here the pool's ``tasks_to_complete``, or per row the tasks of
    ``info["tasks_to_complete"]`` (a (..., 7) mask, e.g. the previous step's) if given."""
    text = _pool_option(pool, "tasks_to_complete")
    names = [t for t in str(text).split(",") if t]
    mask = None if not info or "tasks_to_complete" not in info else np.asarray(info["tasks_to_complete"])
    total: Any = 0.0
    for task in names:
        d = np.linalg.norm(_kitchen_goal(achieved_goal, task) - _kitchen_goal(desired_goal, task), axis=-1)
        done = (d < 0.3).astype(np.float64)
        if mask is not None:
            done = done * (mask[..., KITCHEN_TASKS.index(task)] != 0)
        total = total + done
    return np.asarray(total, dtype=np.float64)


KITCHEN_PYTHON = PythonSide(prepare=_prepare_kitchen, methods={"compute_reward": _kitchen_compute_reward})
set_family_python("Kitchen", KITCHEN_PYTHON)
register(
    "FrankaKitchen-v1",
    "Kitchen",
    python=KITCHEN_PYTHON,
    max_episode_steps=280,
    assets_dir=_ASSETS,
    render_fps=12,
)
