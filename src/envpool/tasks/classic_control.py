"""Classic-control tasks: gymnasium's ids, episode lengths and thresholds."""

from envpool.registration import register

# EnvPool 1.2.5's other ids, registered first (a family's newest id stays its last): its
# aliases of CartPole-v0/-v1 and Pendulum under gymnasium's names for the JAX functional
# envs, and Pendulum-v0, which gymnasium documents as v1 with "no difference in behavior".
register(
    "phys2d/CartPole-v0",
    "CartPole",
    reference="CartPole-v0",
    max_episode_steps=200,
    reward_threshold=195.0,
    render_fps=50,
)
register(
    "phys2d/CartPole-v1",
    "CartPole",
    reference="CartPole-v1",
    max_episode_steps=500,
    reward_threshold=475.0,
    render_fps=50,
)
register("Pendulum-v0", "Pendulum", reference="Pendulum-v1", max_episode_steps=200, render_fps=30)
register("phys2d/Pendulum-v0", "Pendulum", reference="Pendulum-v1", max_episode_steps=200, render_fps=30)
register("CartPole-v0", "CartPole", max_episode_steps=200, reward_threshold=195.0, render_fps=50)
register("CartPole-v1", "CartPole", max_episode_steps=500, reward_threshold=475.0, render_fps=50)
register("Pendulum-v1", "Pendulum", max_episode_steps=200, render_fps=30)
register("MountainCar-v0", "MountainCar", max_episode_steps=200, reward_threshold=-110.0, render_fps=30)
register(
    "MountainCarContinuous-v0", "MountainCarContinuous", max_episode_steps=999, reward_threshold=90.0, render_fps=30
)
register("Acrobot-v1", "Acrobot", max_episode_steps=500, reward_threshold=-100.0, render_fps=15)
