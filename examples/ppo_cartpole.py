"""PPO on CartPole-v1 with an envpool gymnasium pool (single file, CleanRL style).

    python examples/ppo_cartpole.py --total-timesteps 200000 --num-envs 8 --seed 1

The pool is made with ``autoreset_mode="same_step"``: a finished env is reset
inside the step that ends its episode, so every stored transition belongs to
one episode, and the last observation of a truncated episode comes back in
``info["final_obs"]`` for bootstrapping. Episodic returns come from gymnasium's
``RecordEpisodeStatistics`` vector wrapper. The last line printed is a JSON
summary (used by tests/integrations/test_examples.py).
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections import deque

import gymnasium as gym
import numpy as np
import torch
import torch.nn as nn
from torch.distributions.categorical import Categorical

import envpool


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--env-id", default="CartPole-v1")
    p.add_argument("--total-timesteps", type=int, default=200_000)
    p.add_argument("--num-envs", type=int, default=8)
    p.add_argument("--num-steps", type=int, default=128, help="rollout length per env")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--learning-rate", type=float, default=2.5e-3)
    p.add_argument("--anneal-lr", type=int, default=1, help="1: linearly anneal the learning rate to 0")
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--num-minibatches", type=int, default=4)
    p.add_argument("--update-epochs", type=int, default=4)
    p.add_argument("--clip-coef", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.0)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--max-grad-norm", type=float, default=0.5)
    p.add_argument("--num-threads", type=int, default=1, help="threads stepping envs, the recv() thread included")
    p.add_argument("--torch-threads", type=int, default=1)
    p.add_argument("--window", type=int, default=20, help="episodes in the rolling mean of returns")
    p.add_argument(
        "--target-return",
        type=float,
        default=None,
        help="stop once the rolling mean of episodic returns reaches this",
    )
    p.add_argument(
        "--log-every",
        type=int,
        default=10,
        help="print every episode, and a summary every N iterations (0: only the final JSON)",
    )
    p.add_argument("--logdir", default=None, help="write TensorBoard scalars here (needs tensorboard)")
    return p.parse_args(argv)


def layer_init(layer: nn.Linear, std: float = np.sqrt(2), bias_const: float = 0.0) -> nn.Linear:
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    def __init__(self, obs_dim: int, n_actions: int) -> None:
        super().__init__()
        self.critic = nn.Sequential(
            layer_init(nn.Linear(obs_dim, 64)),
            nn.Tanh(),
            layer_init(nn.Linear(64, 64)),
            nn.Tanh(),
            layer_init(nn.Linear(64, 1), std=1.0),
        )
        self.actor = nn.Sequential(
            layer_init(nn.Linear(obs_dim, 64)),
            nn.Tanh(),
            layer_init(nn.Linear(64, 64)),
            nn.Tanh(),
            layer_init(nn.Linear(64, n_actions), std=0.01),
        )

    def get_value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x)

    def get_action_and_value(self, x: torch.Tensor, action: torch.Tensor | None = None):
        logits = self.actor(x)
        probs = Categorical(logits=logits)
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(x)


def make_envs(args: argparse.Namespace) -> gym.vector.VectorEnv:
    envs = envpool.make(
        args.env_id,
        env_type="gymnasium",
        num_envs=args.num_envs,
        seed=args.seed,
        num_threads=args.num_threads,
        autoreset_mode="same_step",
    )
    return gym.wrappers.vector.RecordEpisodeStatistics(envs)


def make_writer(args: argparse.Namespace):
    if not args.logdir:
        return None
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(args.logdir)
    writer.add_text("hyperparameters", "\n".join(f"{k}: {v}" for k, v in vars(args).items()))
    return writer


def train(args: argparse.Namespace) -> dict:
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)

    envs = make_envs(args)
    writer = make_writer(args)
    assert isinstance(envs.single_action_space, gym.spaces.Discrete), "only discrete actions"
    obs_dim = int(np.prod(envs.single_observation_space.shape))
    agent = Agent(obs_dim, int(envs.single_action_space.n))
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    n, t_len = args.num_envs, args.num_steps
    batch_size = n * t_len
    minibatch_size = batch_size // args.num_minibatches
    num_iterations = max(1, args.total_timesteps // batch_size)

    obs_buf = torch.zeros((t_len, n, obs_dim))
    actions_buf = torch.zeros((t_len, n), dtype=torch.long)
    logprobs_buf = torch.zeros((t_len, n))
    rewards_buf = torch.zeros((t_len, n))
    dones_buf = torch.zeros((t_len, n))  # 1 where the episode ended at this step (term or trunc)
    values_buf = torch.zeros((t_len, n))

    next_obs_np, _ = envs.reset(seed=args.seed)
    next_obs = torch.as_tensor(next_obs_np, dtype=torch.float32)

    recent = deque(maxlen=args.window)
    curve: list[tuple[int, float]] = []  # (global_step, rolling mean) per iteration
    episodes = 0
    best_mean = -np.inf
    reached_at = None
    global_step = 0
    start = time.time()

    for iteration in range(1, num_iterations + 1):
        if args.anneal_lr:
            optimizer.param_groups[0]["lr"] = (1.0 - (iteration - 1.0) / num_iterations) * args.learning_rate

        for step in range(t_len):
            global_step += n
            obs_buf[step] = next_obs
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs)
            values_buf[step] = value.flatten()
            actions_buf[step] = action
            logprobs_buf[step] = logprob

            next_obs_np, reward, terminated, truncated, info = envs.step(action.numpy())
            reward = torch.as_tensor(reward, dtype=torch.float32)
            # Truncated (time-limit) episodes: bootstrap from the value of the
            # real last observation, which same-step autoreset puts in final_obs.
            trunc_only = np.flatnonzero(truncated & ~terminated)
            if len(trunc_only):
                final = np.stack([info["final_obs"][i] for i in trunc_only]).astype(np.float32)
                with torch.no_grad():
                    reward[trunc_only] += args.gamma * agent.get_value(torch.as_tensor(final)).flatten()
            rewards_buf[step] = reward
            dones_buf[step] = torch.as_tensor(terminated | truncated, dtype=torch.float32)
            next_obs = torch.as_tensor(next_obs_np, dtype=torch.float32)

            if "episode" in info:
                for i in np.flatnonzero(info["_episode"]):
                    ep_r, ep_l = float(info["episode"]["r"][i]), int(info["episode"]["l"][i])
                    recent.append(ep_r)
                    episodes += 1
                    if args.log_every:
                        print(f"global_step={global_step}, episodic_return={ep_r}")
                    if writer is not None:
                        writer.add_scalar("charts/episodic_return", ep_r, global_step)
                        writer.add_scalar("charts/episodic_length", ep_l, global_step)

        # GAE. dones_buf[t] == 1 means obs_buf[t+1] starts a new episode.
        with torch.no_grad():
            next_value = agent.get_value(next_obs).flatten()
            advantages = torch.zeros_like(rewards_buf)
            lastgaelam = torch.zeros(n)
            for t in reversed(range(t_len)):
                nextvalues = next_value if t == t_len - 1 else values_buf[t + 1]
                nonterminal = 1.0 - dones_buf[t]
                delta = rewards_buf[t] + args.gamma * nextvalues * nonterminal - values_buf[t]
                lastgaelam = delta + args.gamma * args.gae_lambda * nonterminal * lastgaelam
                advantages[t] = lastgaelam
            returns = advantages + values_buf

        b_obs = obs_buf.reshape(-1, obs_dim)
        b_actions = actions_buf.reshape(-1)
        b_logprobs = logprobs_buf.reshape(-1)
        b_advantages = advantages.reshape(-1)
        b_returns = returns.reshape(-1)
        b_values = values_buf.reshape(-1)

        b_inds = np.arange(batch_size)
        for _ in range(args.update_epochs):
            np.random.shuffle(b_inds)
            for lo in range(0, batch_size, minibatch_size):
                mb = b_inds[lo : lo + minibatch_size]
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(b_obs[mb], b_actions[mb])
                ratio = (newlogprob - b_logprobs[mb]).exp()
                mb_adv = b_advantages[mb]
                mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
                pg_loss = torch.max(
                    -mb_adv * ratio, -mb_adv * torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef)
                ).mean()
                newvalue = newvalue.view(-1)
                v_clipped = b_values[mb] + torch.clamp(newvalue - b_values[mb], -args.clip_coef, args.clip_coef)
                v_loss = 0.5 * torch.max((newvalue - b_returns[mb]) ** 2, (v_clipped - b_returns[mb]) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

        mean_ret = float(np.mean(recent)) if recent else float("nan")
        curve.append((global_step, mean_ret))
        if recent and len(recent) == recent.maxlen:
            best_mean = max(best_mean, mean_ret)
        sps = int(global_step / (time.time() - start))
        if writer is not None:
            writer.add_scalar("charts/mean_return", mean_ret, global_step)
            writer.add_scalar("charts/SPS", sps, global_step)
            writer.add_scalar("losses/value_loss", v_loss.item(), global_step)
            writer.add_scalar("losses/policy_loss", pg_loss.item(), global_step)
        if args.log_every and iteration % args.log_every == 0:
            print(f"iter={iteration} global_step={global_step} mean_return({len(recent)})={mean_ret:.1f} SPS={sps}")
        if reached_at is None and args.target_return is not None and best_mean >= args.target_return:
            reached_at = global_step
            break

    envs.close()
    if writer is not None:
        writer.close()
    return {
        "env_id": args.env_id,
        "seed": args.seed,
        "global_step": global_step,
        "episodes": episodes,
        "final_mean_return": curve[-1][1],
        "best_mean_return": None if best_mean == -np.inf else best_mean,
        "reached_target_at": reached_at,
        "seconds": round(time.time() - start, 1),
        "curve": curve[:: max(1, len(curve) // 20)] + [curve[-1]],
    }


def main(argv: list[str] | None = None) -> dict:
    args = parse_args(argv)
    summary = train(args)
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()
