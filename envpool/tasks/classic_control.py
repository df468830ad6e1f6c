"""Classic-control tasks: gymnasium's ids, episode lengths and thresholds."""

from envpool.registration import register

register("CartPole-v0", "CartPole", max_episode_steps=200, reward_threshold=195.0, render_fps=50)
register("CartPole-v1", "CartPole", max_episode_steps=500, reward_threshold=475.0, render_fps=50)
register("Pendulum-v1", "Pendulum", max_episode_steps=200, render_fps=30)
register("MountainCar-v0", "MountainCar", max_episode_steps=200, reward_threshold=-110.0, render_fps=30)
register(
    "MountainCarContinuous-v0", "MountainCarContinuous", max_episode_steps=999, reward_threshold=90.0, render_fps=30
)
register("Acrobot-v1", "Acrobot", max_episode_steps=500, reward_threshold=-100.0, render_fps=15)
