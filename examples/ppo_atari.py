"""PPO on Atari with an envpool gymnasium pool (single file, CleanRL style).

    python examples/ppo_atari.py --env-id Pong-v5 --total-timesteps 10000000 --num-envs 8 --seed 1

The pool does the usual Atari preprocessing in C++ (frame skip 4, 84x84
grayscale, 4-frame stack, noop starts) and is made with
``autoreset_mode="same_step"``, so every stored transition belongs to one
episode. Episodes are whole games: gymnasium's ``RecordEpisodeStatistics``
vector wrapper then logs the real game score. The learner applies the two
usual training tricks itself:

* reward clipping (``--clip-reward``): it learns from ``sign(reward)``;
* life loss as episode end (``--life-loss-done``): when ``info["lives"]``
  drops, the value target does not bootstrap across the lost life (the game
  goes on, as with envpool's ``episodic_life`` option).

The last line printed is a JSON summary (used by tests/integrations/test_examples.py).
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
    p.add_argument("--env-id", default="Pong-v5")
    p.add_argument("--total-timesteps", type=int, default=10_000_000)
    p.add_argument("--num-envs", type=int, default=8)
    p.add_argument("--num-steps", type=int, default=128, help="rollout length per env")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--learning-rate", type=float, default=2.5e-4)
    p.add_argument("--anneal-lr", type=int, default=1, help="1: linearly anneal the learning rate to 0")
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--num-minibatches", type=int, default=4)
    p.add_argument("--update-epochs", type=int, default=4)
    p.add_argument("--clip-coef", type=float, default=0.1)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--max-grad-norm", type=float, default=0.5)
    p.add_argument("--clip-reward", type=int, default=1, help="1: learn from sign(reward)")
    p.add_argument("--life-loss-done", type=int, default=1, help="1: no bootstrapping across a lost life")
    p.add_argument(
        "--num-threads", type=int, default=0, help="threads stepping envs, the recv() thread included (0: one per core)"
    )
    p.add_argument("--torch-threads", type=int, default=0, help="0: torch's default")
    p.add_argument("--device", default="cpu")
    p.add_argument(
        "--log-every",
        type=int,
        default=1,
        help="print every episode, and a summary every N iterations (0: only the final JSON)",
    )
    p.add_argument("--logdir", default=None, help="write TensorBoard scalars here (needs tensorboard)")
    return p.parse_args(argv)


def layer_init(layer: nn.Module, std: float = np.sqrt(2), bias_const: float = 0.0) -> nn.Module:
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    """The Nature-DQN torso with policy and value heads."""

    def __init__(self, in_channels: int, n_actions: int) -> None:
        super().__init__()
        self.network = nn.Sequential(
            layer_init(nn.Conv2d(in_channels, 32, 8, stride=4)),
            nn.ReLU(),
            layer_init(nn.Conv2d(32, 64, 4, stride=2)),
            nn.ReLU(),
            layer_init(nn.Conv2d(64, 64, 3, stride=1)),
            nn.ReLU(),
            nn.Flatten(),
            layer_init(nn.Linear(64 * 7 * 7, 512)),
            nn.ReLU(),
        )
        self.actor = layer_init(nn.Linear(512, n_actions), std=0.01)
        self.critic = layer_init(nn.Linear(512, 1), std=1)

    def get_value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(self.network(x / 255.0))

    def get_action_and_value(self, x: torch.Tensor, action: torch.Tensor | None = None):
        hidden = self.network(x / 255.0)
        probs = Categorical(logits=self.actor(hidden))
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(hidden)


def make_envs(args: argparse.Namespace) -> gym.vector.VectorEnv:
    envs = envpool.make(
        args.env_id,
        env_type="gymnasium",
        num_envs=args.num_envs,
        seed=args.seed,
        num_threads=args.num_threads,
        autoreset_mode="same_step",
        # whole games and raw scores reach the wrapper; the learner clips and
        # cuts at lives itself (see the module docstring)
        episodic_life=False,
        reward_clip=False,
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
    if args.torch_threads:
        torch.set_num_threads(args.torch_threads)
    device = torch.device(args.device)

    envs = make_envs(args)
    writer = make_writer(args)
    assert isinstance(envs.single_action_space, gym.spaces.Discrete), "only discrete actions"
    obs_shape = envs.single_observation_space.shape
    agent = Agent(obs_shape[0], int(envs.single_action_space.n)).to(device)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    n, t_len = args.num_envs, args.num_steps
    batch_size = n * t_len
    minibatch_size = max(1, batch_size // args.num_minibatches)
    num_iterations = max(1, args.total_timesteps // batch_size)

    obs_buf = torch.zeros((t_len, n, *obs_shape), dtype=torch.uint8, device=device)
    actions_buf = torch.zeros((t_len, n), dtype=torch.long, device=device)
    logprobs_buf = torch.zeros((t_len, n), device=device)
    rewards_buf = torch.zeros((t_len, n), device=device)
    cuts_buf = torch.zeros((t_len, n), device=device)  # 1: no bootstrapping from the next obs
    values_buf = torch.zeros((t_len, n), device=device)

    next_obs_np, info = envs.reset(seed=args.seed)
    lives = np.asarray(info.get("lives", np.zeros(n)))
    next_obs = torch.as_tensor(next_obs_np, device=device)

    returns_log: list[tuple[int, float, int]] = []  # (global_step, episodic return, length)
    recent = deque(maxlen=20)
    global_step = 0
    start = time.time()

    for iteration in range(1, num_iterations + 1):
        if args.anneal_lr:
            optimizer.param_groups[0]["lr"] = (1.0 - (iteration - 1.0) / num_iterations) * args.learning_rate

        for step in range(t_len):
            global_step += n
            obs_buf[step] = next_obs
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs.float())
            values_buf[step] = value.flatten()
            actions_buf[step] = action
            logprobs_buf[step] = logprob

            next_obs_np, reward, terminated, truncated, info = envs.step(action.cpu().numpy())
            done = terminated | truncated
            r = np.sign(reward) if args.clip_reward else np.asarray(reward, dtype=np.float64)
            r = torch.as_tensor(r, dtype=torch.float32, device=device)
            # truncation: bootstrap from the real last frame (same-step final_obs)
            trunc_only = np.flatnonzero(truncated & ~terminated)
            if len(trunc_only):
                final = torch.as_tensor(np.stack([info["final_obs"][i] for i in trunc_only]), device=device)
                with torch.no_grad():
                    r[trunc_only] += args.gamma * agent.get_value(final.float()).flatten()
            cut = done.copy()
            if args.life_loss_done and "lives" in info:
                new_lives = np.asarray(info["lives"])
                cut |= new_lives < lives  # the game goes on, the value target stops
                lives = new_lives
            rewards_buf[step] = r
            cuts_buf[step] = torch.as_tensor(cut, dtype=torch.float32, device=device)
            next_obs = torch.as_tensor(next_obs_np, device=device)

            if "episode" in info:
                for i in np.flatnonzero(info["_episode"]):
                    ep_r, ep_l = float(info["episode"]["r"][i]), int(info["episode"]["l"][i])
                    returns_log.append((global_step, ep_r, ep_l))
                    recent.append(ep_r)
                    if args.log_every:
                        print(f"global_step={global_step}, episodic_return={ep_r}, episodic_length={ep_l}")
                    if writer is not None:
                        writer.add_scalar("charts/episodic_return", ep_r, global_step)
                        writer.add_scalar("charts/episodic_length", ep_l, global_step)

        with torch.no_grad():
            next_value = agent.get_value(next_obs.float()).flatten()
            advantages = torch.zeros_like(rewards_buf)
            lastgaelam = torch.zeros(n, device=device)
            for t in reversed(range(t_len)):
                nextvalues = next_value if t == t_len - 1 else values_buf[t + 1]
                nonterminal = 1.0 - cuts_buf[t]
                delta = rewards_buf[t] + args.gamma * nextvalues * nonterminal - values_buf[t]
                lastgaelam = delta + args.gamma * args.gae_lambda * nonterminal * lastgaelam
                advantages[t] = lastgaelam
            returns = advantages + values_buf

        b_obs = obs_buf.reshape(-1, *obs_shape)
        b_actions = actions_buf.reshape(-1)
        b_logprobs = logprobs_buf.reshape(-1)
        b_advantages = advantages.reshape(-1)
        b_returns = returns.reshape(-1)
        b_values = values_buf.reshape(-1)

        b_inds = np.arange(batch_size)
        for _ in range(args.update_epochs):
            np.random.shuffle(b_inds)
            for lo in range(0, batch_size, minibatch_size):
                mb = torch.as_tensor(b_inds[lo : lo + minibatch_size], device=device)
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(b_obs[mb].float(), b_actions[mb])
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

        sps = int(global_step / (time.time() - start))
        mean = np.mean(recent) if recent else float("nan")
        if writer is not None:
            writer.add_scalar("charts/SPS", sps, global_step)
            writer.add_scalar("losses/value_loss", v_loss.item(), global_step)
            writer.add_scalar("losses/policy_loss", pg_loss.item(), global_step)
        if args.log_every and iteration % args.log_every == 0:
            print(
                f"iter={iteration}/{num_iterations} global_step={global_step} mean_return({len(recent)})={mean:.1f} SPS={sps}"
            )

    envs.close()
    if writer is not None:
        writer.close()
    return {
        "env_id": args.env_id,
        "seed": args.seed,
        "global_step": global_step,
        "episodes": len(returns_log),
        "episodic_returns": [r for _, r, _ in returns_log],
        "episodic_lengths": [n for _, _, n in returns_log],
        "mean_return_last20": float(np.mean(recent)) if recent else None,
        "seconds": round(time.time() - start, 1),
    }


def main(argv: list[str] | None = None) -> dict:
    args = parse_args(argv)
    summary = train(args)
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()
