"""Box2D tasks: gymnasium's ids, keywords, episode lengths and thresholds, and
EnvPool 1.2.5's older ids for the same families.

The envs run in C++ (cpp/box2d/) on Box2D 2.3 with gymnasium's names and defaults for
every keyword. Extra option: ``report_draws=True`` adds ``info["draws"]`` /
``info["num_draws"]`` (the values of the random draws of the step or reset, in
gymnasium's call order) so that a run can be replayed in gymnasium's env. Frames
(``render_mode="rgb_array"``) are drawn as gymnasium's pygame draws them. See
docs/box2d.md.
"""

import warnings
from typing import Any

from envpool.registration import register


def _prepare_lander(merged: dict[str, Any], user: dict[str, Any]) -> None:
    """gymnasium's lander makes its exhaust particles (decoration, drawn in the frames)
    only when it has a render_mode: so do ours (``particles``). gymnasium's warnings on
    wind_power and turbulence_power outside their recommended ranges."""
    if "particles" not in user:
        merged["particles"] = user.get("render_mode") is not None
    for key, high in (("wind_power", 20.0), ("turbulence_power", 2.0)):
        value = merged.get(key)
        if isinstance(value, (int, float)) and not 0.0 <= value <= high:
            warnings.warn(
                f"{key} value is recommended to be between 0.0 and {high}, (current value: {value})", stacklevel=4
            )


_LANDER: dict[str, Any] = {
    "prepare": _prepare_lander,
    "max_episode_steps": 1000,
    "reward_threshold": 200.0,
    "render_fps": 50,
}

# gymnasium 1.4's ids (gymnasium/envs/__init__.py); render_fps: the envs' metadata.
register("LunarLander-v3", "LunarLander", **_LANDER)
register("LunarLanderContinuous-v3", "LunarLander", continuous=True, **_LANDER)

# EnvPool 1.2.5's older ids: gymnasium documents LunarLander v2 -> v3 as a reset fix (a new
# world each reset), a deterministic wind seed and wider observation bounds; they run the
# current dynamics.
register("LunarLander-v2", "LunarLander", reference="LunarLander-v3", **_LANDER)
register("LunarLanderContinuous-v2", "LunarLander", reference="LunarLanderContinuous-v3", continuous=True, **_LANDER)

register("BipedalWalker-v3", "BipedalWalker", max_episode_steps=1600, reward_threshold=300.0, render_fps=50)
register(
    "BipedalWalkerHardcore-v3",
    "BipedalWalker",
    hardcore=True,
    max_episode_steps=2000,
    reward_threshold=300.0,
    render_fps=50,
)

# CarRacing: gymnasium 1.4's CarRacing-v3, and EnvPool 1.2.5's CarRacing-v2 with the one
# difference gymnasium documents for v2 -> v3: finishing the lap truncated the episode.
register("CarRacing-v3", "CarRacing", max_episode_steps=1000, reward_threshold=900, render_fps=50)
register(
    "CarRacing-v2",
    "CarRacing",
    reference="CarRacing-v3",
    lap_truncates=True,
    max_episode_steps=1000,
    reward_threshold=900,
    render_fps=50,
)
