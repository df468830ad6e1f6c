"""The DeepMind Control Suite: ``<Domain><Task>-v1`` ids (EnvPool's names), one C++
family per domain (``Dmc<Domain>``, its tasks selected by ``task_name``).

The models are dm_control's own XML files, read from the installed ``dm_control``
package (found by path: importing it would import the mujoco bindings and a GL
backend). For the domains whose XML dm_control edits in Python (cartpole's extra
poles, ...), the edits are made here, as dm_control makes them, and the XML goes to
the engine as ``model_xml``; ``tests/families/dmc/test_dmc.py`` checks that the compiled model
equals ``suite.load``'s.

Options (besides the engine's): ``task_name``, ``time_limit`` (seconds, as
dm_control's; ``max_episode_steps`` follows it unless given, and a
``max_episode_steps`` given alone sets the episode length, as in EnvPool),
``n_sub_steps`` (physics steps per control step), ``expose_state`` (info
``qpos0``/``qvel0`` and the task's random draws), rendering and pixel options
(see the README).
"""

from __future__ import annotations

import importlib.util
import math
import os
from typing import Any

from envpool.registration import PythonSide, register, set_family_python
from envpool.tasks import _frame_stack, _model_randomization


def _suite_dir() -> str:
    spec = importlib.util.find_spec("dm_control")
    if spec is None or not spec.submodule_search_locations:
        return ""
    return os.path.join(list(spec.submodule_search_locations)[0], "suite")


_SUITE = _suite_dir()


def _read(name: str) -> bytes:
    with open(os.path.join(_SUITE, name), "rb") as f:
        return f.read()


def _cartpole_xml(n_poles: int) -> bytes:
    """dm_control.suite.cartpole._make_model."""
    from lxml import etree

    xml_string = _read("cartpole.xml")
    mjcf = etree.fromstring(xml_string)
    parent = mjcf.find("./worldbody/body/body")
    for pole_index in range(2, n_poles + 1):
        child = etree.Element("body", name=f"pole_{pole_index}", pos="0 0 1", childclass="pole")
        etree.SubElement(child, "joint", name=f"hinge_{pole_index}")
        etree.SubElement(child, "geom", name=f"pole_{pole_index}")
        parent.append(child)
        parent = child
    floor = mjcf.find("./worldbody/geom")
    floor.set("pos", f"0 0 {1 - n_poles - 0.05}")
    cameras = mjcf.findall("./worldbody/camera")
    cameras[0].set("pos", f"0 {-1 - 2 * n_poles} 1")
    cameras[1].set("pos", f"0 {-2 * n_poles} 2")
    return etree.tostring(mjcf, pretty_print=True)


def _swimmer_xml(n_bodies: int) -> bytes:
    """dm_control.suite.swimmer._make_model."""
    from lxml import etree

    if n_bodies < 3:
        raise ValueError(f"At least 3 bodies required. Received {n_bodies}")
    mjcf = etree.fromstring(_read("swimmer.xml"))
    head_body = mjcf.find("./worldbody/body")
    actuator = etree.SubElement(mjcf, "actuator")
    sensor = etree.SubElement(mjcf, "sensor")
    parent = head_body
    for body_index in range(n_bodies - 1):
        site_name = f"site_{body_index}"
        child = etree.Element("body", name=f"segment_{body_index}")
        child.set("pos", "0 .1 0")
        etree.SubElement(child, "geom", {"class": "visual", "name": f"visual_{body_index}"})
        etree.SubElement(child, "geom", {"class": "inertial", "name": f"inertial_{body_index}"})
        child.append(etree.Element("site", name=site_name))
        joint_name = f"joint_{body_index}"
        joint_limit = 360.0 / n_bodies
        child.append(etree.Element("joint", {"name": joint_name, "range": f"{-joint_limit} {joint_limit}"}))
        actuator.append(etree.Element("motor", name=f"motor_{body_index}", joint=joint_name))
        sensor.append(etree.Element("velocimeter", name=f"velocimeter_{body_index}", site=site_name))
        sensor.append(etree.Element("gyro", name=f"gyro_{body_index}", site=site_name))
        parent.append(child)
        parent = child
    scale = n_bodies / 6.0
    for cam in mjcf.findall("./worldbody/body/camera"):
        if cam.get("mode") == "trackcom":
            cam.set("pos", " ".join(str(float(dim) * scale) for dim in cam.get("pos").split(" ")))
    return etree.tostring(mjcf, pretty_print=True)


def _manipulator_xml(args: tuple[bool, bool]) -> bytes:
    """dm_control.suite.manipulator.make_model(use_peg, insert)."""
    from lxml import etree

    use_peg, insert = args
    mjcf = etree.XML(_read("manipulator.xml"), etree.XMLParser(remove_blank_text=True))
    required = ["peg", "target_peg"] if use_peg else ["ball", "target_ball"]
    if insert:
        required.append("slot" if use_peg else "cup")
    for unused in sorted({"ball", "target_ball", "cup", "peg", "target_peg", "slot"} - set(required)):
        prop = mjcf.find(f".//body[@name='{unused}']")
        prop.getparent().remove(prop)
    return etree.tostring(mjcf, pretty_print=True)


def _stacker_xml(n_boxes: int) -> bytes:
    """dm_control.suite.stacker.make_model(n_boxes)."""
    from lxml import etree

    mjcf = etree.XML(_read("stacker.xml"), etree.XMLParser(remove_blank_text=True))
    for b in range(n_boxes, 4):
        box = mjcf.find(f".//body[@name='box{b}']")
        box.getparent().remove(box)
    return etree.tostring(mjcf, pretty_print=True)


def _quadruped_xml(args: tuple[Any, bool, bool, bool]) -> bytes:
    """dm_control.suite.quadruped.make_model(floor_size, terrain, rangefinders,
    walls_and_ball)."""
    from lxml import etree

    floor_size, terrain, rangefinders, walls_and_ball = args
    mjcf = etree.XML(_read("quadruped.xml"), etree.XMLParser(remove_blank_text=True))

    def remove(tag: str, name: str) -> None:
        element = mjcf.find(f".//{tag}[@name='{name}']")
        element.getparent().remove(element)

    if floor_size is not None:
        mjcf.find(".//geom[@name='floor']").attrib["size"] = f"{floor_size} {floor_size} .5"
    if not walls_and_ball:
        for wall in ("wall_px", "wall_py", "wall_nx", "wall_ny"):
            remove("geom", wall)
        remove("body", "ball")
        remove("site", "target")
    if not terrain:
        remove("geom", "terrain")
    if not rangefinders:
        for rf in mjcf.findall(".//rangefinder"):
            rf.getparent().remove(rf)
    return etree.tostring(mjcf, pretty_print=True)


def _lqr_xml(args: tuple[int, int], random: Any = None) -> bytes:
    """dm_control.suite.lqr._make_model(n_bodies, n_actuators, random). The engine
    draws each env's stiffness (and zero damping) from the env's seed, as dm_control
    draws them from the task's RandomState; without ``random`` the XML holds
    placeholders."""
    from lxml import etree

    n_bodies, n_actuators = args
    mjcf = etree.XML(_read("lqr.xml"), etree.XMLParser(remove_blank_text=True))
    parent = mjcf.find("./worldbody")
    actuator = etree.SubElement(mjcf, "actuator")
    tendon = etree.SubElement(mjcf, "tendon")
    for body in range(n_bodies):
        child = etree.Element("body", name=f"body_{body}")
        child.set("pos", ".25 0 0")
        joint = etree.SubElement(child, "joint", name=f"joint_{body}")
        child.append(etree.Element("geom", name=f"geom_{body}"))
        joint.set("stiffness", str(random.uniform(15, 25)) if random is not None else "20")
        joint.set("damping", str(random.uniform(0, 0)) if random is not None else "0.0")
        site_name = f"site_{body}"
        child.append(etree.Element("site", name=site_name))
        if body == 0:
            child.set("pos", ".25 0 .1")
        if body < n_actuators:
            actuator.append(etree.Element("motor", name=f"motor_{body}", joint=f"joint_{body}"))
        if body < n_bodies - 1:
            spatial = etree.SubElement(tendon, "spatial", name=f"tendon_{body}")
            spatial.append(etree.Element("site", site=site_name))
            spatial.append(etree.Element("site", site=f"site_{body + 1}"))
        parent.append(child)
        parent = child
    return etree.tostring(mjcf, pretty_print=True)


def _dog_xml(args: tuple[Any, bool]) -> bytes:
    """dm_control.suite.dog.make_model(floor_size, remove_ball)."""
    from lxml import etree

    floor_size, remove_ball = args
    mjcf = etree.XML(_read("dog.xml"), etree.XMLParser(remove_blank_text=True))

    def find(tag: str, name: str) -> Any:
        return mjcf.find(f".//{tag}[@name='{name}']")

    find("geom", "floor").attrib["size"] = str(floor_size) + " " + str(floor_size) + " .1"
    if remove_ball:
        for tag, name in [("body", "ball"), ("geom", "target"), ("camera", "ball"), ("camera", "head")] + [
            ("geom", f"wall_{w}") for w in ("px", "nx", "py", "ny")
        ]:
            element = find(tag, name)
            element.getparent().remove(element)
    return etree.tostring(mjcf, pretty_print=True)


def _by_task(build: Any, **args: Any) -> Any:
    """An XML builder by task name: ``build(args[task])``, None (the file as it is)
    for the other tasks (an unknown task name is refused by the engine)."""
    return lambda task: build(args[task]) if task in args else None


# domain -> (the model's physics timestep, its tasks {task_name: (time_limit,
# n_sub_steps)}: dm_control's defaults per task, an XML builder taking the task name or
# None when dm_control uses the file as it is). The C++ family of a domain is
# "Dmc" + its CamelCase name (cpp/mujoco/register.cc).
_DOMAINS: dict[str, tuple[float, dict[str, tuple[float, int]], Any]] = {
    "acrobot": (0.01, {"swingup": (10.0, 1), "swingup_sparse": (10.0, 1)}, None),
    "ball_in_cup": (0.002, {"catch": (20.0, 10)}, None),
    "cartpole": (
        0.01,
        {
            "balance": (10.0, 1),
            "balance_sparse": (10.0, 1),
            "swingup": (10.0, 1),
            "swingup_sparse": (10.0, 1),
            "two_poles": (10.0, 1),
            "three_poles": (10.0, 1),
        },
        _by_task(_cartpole_xml, two_poles=2, three_poles=3),
    ),
    "cheetah": (0.01, {"run": (10.0, 1)}, None),
    "dog": (
        0.005,
        {"stand": (15.0, 3), "walk": (15.0, 3), "trot": (15.0, 3), "run": (15.0, 3), "fetch": (15.0, 3)},
        _by_task(
            _dog_xml,
            stand=(1 * 15, True),
            walk=(1 * 15, True),
            trot=(3 * 15, True),
            run=(9 * 15, True),
            fetch=(10, False),
        ),
    ),
    "finger": (0.01, {"spin": (20.0, 2), "turn_easy": (20.0, 2), "turn_hard": (20.0, 2)}, None),
    "fish": (0.004, {"upright": (40.0, 10), "swim": (40.0, 10)}, None),
    "hopper": (0.005, {"stand": (20.0, 4), "hop": (20.0, 4)}, None),
    "humanoid": (0.005, {"stand": (25.0, 5), "walk": (25.0, 5), "run": (25.0, 5), "run_pure_state": (25.0, 5)}, None),
    "humanoid_CMU": (0.002, {"stand": (20.0, 10), "walk": (20.0, 10), "run": (20.0, 10)}, None),
    "lqr": (
        0.03,
        {"lqr_2_1": (math.inf, 1), "lqr_6_2": (math.inf, 1)},
        _by_task(_lqr_xml, lqr_2_1=(2, 1), lqr_6_2=(6, 2)),
    ),
    "manipulator": (
        0.001,
        {"bring_ball": (10.0, 10), "bring_peg": (10.0, 10), "insert_ball": (10.0, 10), "insert_peg": (10.0, 10)},
        _by_task(
            _manipulator_xml,
            bring_ball=(False, False),
            bring_peg=(True, False),
            insert_ball=(False, True),
            insert_peg=(True, True),
        ),
    ),
    "pendulum": (0.02, {"swingup": (20.0, 1)}, None),
    "point_mass": (0.02, {"easy": (20.0, 1), "hard": (20.0, 1)}, None),
    "quadruped": (
        0.005,
        {"walk": (20.0, 4), "run": (20.0, 4), "escape": (20.0, 4), "fetch": (20.0, 4)},
        _by_task(
            _quadruped_xml,
            walk=(20 * 0.5, False, False, False),
            run=(20 * 5, False, False, False),
            escape=(40, True, True, False),
            fetch=(None, False, False, True),
        ),
    ),
    "reacher": (0.02, {"easy": (20.0, 1), "hard": (20.0, 1)}, None),
    "stacker": (0.001, {"stack_2": (10.0, 10), "stack_4": (10.0, 10)}, _by_task(_stacker_xml, stack_2=2, stack_4=4)),
    "swimmer": (
        0.002,
        {"swimmer6": (30.0, 15), "swimmer15": (30.0, 15)},
        _by_task(_swimmer_xml, swimmer6=6, swimmer15=15),
    ),
    "walker": (0.0025, {"stand": (25.0, 10), "walk": (25.0, 10), "run": (25.0, 10)}, None),
}


def _camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def task_id(domain: str, task: str) -> str:
    """EnvPool's id of a dm_control task: ``("ball_in_cup", "catch")`` -> ``BallInCupCatch-v1``."""
    return f"{_camel(domain)}{_camel(task)}-v1"


def suite_task(family: str, task_name: str) -> tuple[str, str]:
    """dm_control's (domain, task) for one of our families and its task_name."""
    for domain in _DOMAINS:
        if family_of(domain) == family:
            return domain, task_name
    raise ValueError(f"{family!r} is not a dm_control family")


def family_of(domain: str) -> str:
    """The C++ family of a domain: ``"ball_in_cup"`` -> ``"DmcBallInCup"``."""
    return "Dmc" + _camel(domain)


def max_steps(time_limit: float, control_timestep: float) -> int:
    """control.Environment's episode length in control steps (0: unlimited)."""
    if math.isinf(time_limit):
        return 0
    return math.ceil(time_limit / control_timestep)


def _prepare(domain: str) -> Any:
    timestep, _, build_xml = _DOMAINS[domain]

    def prepare(merged: dict[str, Any], user: dict[str, Any]) -> None:
        _model_randomization.prepare(merged)
        if not _SUITE:
            raise ModuleNotFoundError(
                "the dm_control tasks read their models from dm_control: pip install 'envpool[dmc]' (dm-control==1.0.50)"
            )
        if build_xml is not None and not merged.get("model_xml"):
            xml = build_xml(merged["task_name"])
            if xml is not None:
                merged["model_xml"] = xml.decode()
        if "max_episode_steps" in user and "time_limit" not in user:
            # EnvPool's way to set the episode length: the engine's limit alone
            # (LAST with discount 1, as dm_control's time limit).
            merged["time_limit"] = math.inf
        elif "max_episode_steps" not in user and ("time_limit" in user or "n_sub_steps" in user):
            try:
                limit, n = float(merged["time_limit"]), int(merged["n_sub_steps"])
            except (TypeError, ValueError, OverflowError):
                return  # the engine refuses the bad value with its own message
            if limit > 0 and n > 0:
                merged["max_episode_steps"] = max_steps(limit, timestep * n)

    return prepare


for _domain, (_timestep, _tasks, _) in _DOMAINS.items():
    # A user's task on the domain's family: frame_stack, without the suite's per-task edits.
    set_family_python(
        family_of(_domain),
        PythonSide(
            defaults=_frame_stack.DEFAULTS,
            check=_frame_stack.check,
            prepare=_model_randomization.prepare,
            state_spec=_frame_stack.state_spec,
            results=_frame_stack.results,
        ),
    )
    for _task, (_time_limit, _n_sub_steps) in _tasks.items():
        register(
            task_id(_domain, _task),
            family_of(_domain),
            python=PythonSide(
                defaults=_frame_stack.DEFAULTS,
                check=_frame_stack.check,
                prepare=_prepare(_domain),
                state_spec=_frame_stack.state_spec,
                results=_frame_stack.results,
            ),
            task_name=_task,
            model_dir=_SUITE,
            time_limit=_time_limit,
            n_sub_steps=_n_sub_steps,
            max_episode_steps=max_steps(_time_limit, _timestep * _n_sub_steps),
        )
