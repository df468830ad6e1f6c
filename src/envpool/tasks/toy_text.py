"""Toy-text tasks: gymnasium's ids, keywords, episode lengths and thresholds, and
EnvPool 1.2.5's older ids for the same families.

The envs run in C++ (cpp/toy_text/) with gymnasium's names and defaults for every
keyword. Extra options: ``report_draws=True`` adds ``info["draws"]`` /
``info["num_draws"]`` (the random draws of the step or reset, in gymnasium's call
order; FrozenLake also ``info["desc"]``, its map) so that a run can be replayed in
gymnasium's env. Frames (``render_mode="rgb_array"``) are drawn from gymnasium's own
art, which we hand the family as ``img_dir``. See docs/toy_text.md.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from envpool import _envpool, _keys
from envpool.registration import PythonSide, register


def _img_dir() -> str:
    # By path, not by importing gymnasium.envs.toy_text (that imports every env module).
    import gymnasium

    return os.path.join(os.path.dirname(gymnasium.__file__), "envs", "toy_text", "img")


_IMG = _img_dir()

# Images each family's frames are drawn from (a frame reads more): gymnasium 1.4's
# toy-text art, which earlier releases (1.2.2, the one ray[rllib] pins) do not ship.
_ART = {
    "FrozenLake": ("tile_ice.png", "tile_hole.png", "tile_ice_crack_a.png", "agent.png", "goal_flag.png"),
    "CliffWalking": ("cliff_walking/tile_ground.png", "cliff_walking/tile_cliff_left.png", "cliff_walking/agent.png"),
    "Taxi": ("taxi/background.png", "taxi/passenger.png", "taxi/marker_destination.png", "taxi/house.png"),
    "Blackjack": ("blackjack/label_dealer.png", "blackjack/label_player.png", "blackjack/card_back.png"),
}


def _needs_art(family: str, then: Any = None) -> Any:
    """A prepare hook (after ``then``'s) that refuses, at make, a rendering pool whose
    ``img_dir`` lacks the family's images, rather than failing its first render()."""

    def prepare(merged: dict[str, Any], user: dict[str, Any]) -> None:
        if then is not None:
            then(merged, user)
        if user.get("render_mode") is None:
            return
        missing = [f for f in _ART[family] if not os.path.isfile(os.path.join(merged["img_dir"], f))]
        if missing:
            import gymnasium

            raise RuntimeError(
                f"{family} frames are drawn from gymnasium 1.4's toy-text images, and "
                f"{os.path.join(merged['img_dir'], missing[0])} is missing (gymnasium {gymnasium.__version__} "
                "is installed): pip install 'gymnasium>=1.4', or make the pool without render_mode"
            )

    return prepare


def _prepare_frozen_lake(merged: dict[str, Any], user: dict[str, Any]) -> None:
    """gymnasium's desc (rows of tiles, None: map_name) and map_name (None with desc
    None: a random 8x8 map) as the engine's strings ("" for None, rows joined by '\\n').
    EnvPool 1.2.5's ``size`` (4 or 8) names the map as map_name does."""
    if "size" in merged:
        size = merged.pop("size")
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)):
            raise TypeError(f"config 'size' must be an int, got {type(size).__name__} {size!r}")
        if size not in (4, 8):
            raise ValueError(f"size must be 4 or 8 (EnvPool's FrozenLake maps), got {size}")
        if "map_name" not in user:
            merged["map_name"] = f"{size}x{size}"
    desc = merged.get("desc")
    if desc is None:
        merged["desc"] = ""
    elif isinstance(desc, str) and (desc == "" or "\n" in desc):
        pass  # the engine's form, as config["desc"] reports it: make(**env.config) makes the same map
    elif not isinstance(desc, str):
        try:
            rows = [r.decode() if isinstance(r, bytes) else r for r in np.asarray(desc).tolist()]
        except Exception:  # noqa: BLE001
            rows = None
        if rows and all(isinstance(r, list) for r in rows):  # an array of single tiles, as gymnasium keeps it
            rows = ["".join(t.decode() if isinstance(t, bytes) else t for t in r) for r in rows]
        if not rows or not all(isinstance(r, str) for r in rows):
            raise TypeError(f"config 'desc' must be None or a list of rows of tiles (str), got {desc!r}")
        if any("\n" in r for r in rows):
            raise ValueError(f"desc rows cannot hold newlines, got {desc!r}")
        merged["desc"] = "\n".join(rows)
    else:
        raise TypeError(f"config 'desc' must be None or a list of rows of tiles (str), got the str {desc!r}")
    if merged.get("map_name", "4x4") is None:
        merged["map_name"] = ""


_FROZEN = {"prepare": _needs_art("FrozenLake", _prepare_frozen_lake), "img_dir": _IMG, "render_fps": 4}

# gymnasium 1.4's ids (gymnasium/envs/__init__.py).
register("FrozenLake-v1", "FrozenLake", map_name="4x4", max_episode_steps=100, reward_threshold=0.70, **_FROZEN)
register("FrozenLake8x8-v1", "FrozenLake", map_name="8x8", max_episode_steps=200, reward_threshold=0.85, **_FROZEN)
_MASK = _keys.name(_keys.INFO, "action_mask")


def _int8_mask_spec(specs: list[tuple], config: Any) -> list[tuple]:
    """Taxi's ``info["action_mask"]`` as gymnasium's int8, so that ``action_space.sample(mask)``
    takes it: the engine, which has no int8 arrays, writes the mask's 0/1 bytes as uint8, and the
    pool hands them out as int8 (a view, as for any key whose spec dtype differs in name only)."""
    return [(s[0], "int8", *s[2:]) if s[0] == _MASK else s for s in specs]


_TAXI = {
    "python": PythonSide(state_spec=_int8_mask_spec),
    "max_episode_steps": 200,
    "reward_threshold": 8.0,
    "img_dir": _IMG,
    "render_fps": 4,
    "prepare": _needs_art("Taxi"),
}
register("Taxi-v4", "Taxi", **_TAXI)
# CliffWalking and Blackjack have no time limit in gymnasium (max_episode_steps=0: none).
_CLIFF = {"img_dir": _IMG, "render_fps": 4, "prepare": _needs_art("CliffWalking")}
register("CliffWalking-v1", "CliffWalking", **_CLIFF)
register("CliffWalkingSlippery-v1", "CliffWalking", is_slippery=True, **_CLIFF)


def _check_tuple_obs(options: dict[str, Any]) -> None:
    if not isinstance(options["tuple_obs"], (bool, np.bool_)):
        raise TypeError(f"config 'tuple_obs' must be a bool, got {options['tuple_obs']!r}")
    options["tuple_obs"] = bool(options["tuple_obs"])


def _tuple_state_spec(specs: list[tuple], config: Any) -> list[tuple]:
    """With tuple_obs, the observation row (player sum, dealer's card, usable ace) as
    three scalars ``obs:0`` .. ``obs:2``: gymnasium's Tuple of three Discrete spaces."""
    if not config.get("tuple_obs"):
        return specs
    out = []
    for spec in specs:
        if spec[0] != _keys.OBS:
            out.append(spec)
            continue
        _, dtype, shape, low, high = spec
        out += [(_keys.name(_keys.OBS, str(i)), dtype, (), [low[i]], [high[i]]) for i in range(shape[0])]
    return out


def _tuple_results(spec: Any, num_envs: int) -> Any:
    """With tuple_obs, each batch's (n, 3) observation as gymnasium's vector envs batch a
    Tuple space: a tuple of three (n,) arrays (views of the batch's columns, no copy)."""
    if not spec.config.get("tuple_obs"):
        return None

    def columns(obs: np.ndarray) -> tuple:
        return tuple(obs[:, i] for i in range(obs.shape[1]))

    def apply(result: Any) -> Any:
        final = result.final
        if final is not None:
            final = (columns(final[0]), final[1])
        return _envpool.Batch(
            (
                columns(result.obs),
                result.reward,
                result.terminated,
                result.truncated,
                result.discount,
                result.info,
                final,
            )
        )

    return apply


# gymnasium's Tuple(Discrete(32), Discrete(11), Discrete(2)) observation, as an option: by
# default the observation is EnvPool 1.2.5's int32 row of the same three values.
_BLACKJACK = PythonSide(
    defaults={"tuple_obs": False}, check=_check_tuple_obs, state_spec=_tuple_state_spec, results=_tuple_results
)
_BLACKJACK_ART = {"img_dir": _IMG, "render_fps": 4, "prepare": _needs_art("Blackjack")}
register("Blackjack-v1", "Blackjack", python=_BLACKJACK, sab=True, natural=False, **_BLACKJACK_ART)

# EnvPool 1.2.5's older ids: gymnasium documents Taxi v3 -> v4 as fixes to is_rainy and
# fickle_passenger (both off by default) and CliffWalking v0 -> v1 as the added
# is_slippery (off by default), so these run the current dynamics.
register("Taxi-v3", "Taxi", reference="Taxi-v4", **_TAXI)
register("CliffWalking-v0", "CliffWalking", reference="CliffWalking-v1", **_CLIFF)
# EnvPool 1.2.5's names for gymnasium's functional (JAX) tabular envs, which it runs as
# CliffWalking-v1 and Blackjack-v1 (its aliases): so do we.
register("tabular/CliffWalking-v0", "CliffWalking", reference="CliffWalking-v1", **_CLIFF)
register(
    "tabular/Blackjack-v0",
    "Blackjack",
    python=_BLACKJACK,
    reference="Blackjack-v1",
    sab=True,
    natural=False,
    **_BLACKJACK_ART,
)

# EnvPool 1.2.5's own toy-text tasks, which gymnasium never had: gym 0.20's NChain-v0 and
# bsuite's Catch (EnvPool's keywords height, width; no time limit: the ball lands).
register("NChain-v0", "NChain", max_episode_steps=1000)
register("Catch-v0", "Catch", height=10, width=5)
