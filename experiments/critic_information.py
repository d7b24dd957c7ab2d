"""How much of a decision's return a critic can predict, with and without the hidden hands.

The batched trainer's ``critic: oracle`` sees the other seats' hands as well as the seat's
observation (``sam_env.training.batched.network.OracleCritic``). This measures what that is worth to a
critic of the trainer's size, away from PPO: a bot plays rollouts against heuristic seats (the
tables of configs/vs_heuristic.yaml), each of its decisions is labelled with its Monte Carlo return (money to
the end of the hand, the trainer's reward scale; decisions of hands the rollouts cut are dropped),
and two fresh MLPs of the config's ``vf_layers`` are fitted on 80 % of the decisions, one on the
observation, one on the observation and the hidden hands. Their explained variance on the held-out
20 % says how much of the return each can predict.

    python experiments/critic_information.py [--bot ppo] [--rollouts 8] [--epochs 15]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from tqdm import tqdm

from sam_env.agents.networks.policy.network import mlp
from sam_env.training.batched.ppo import advantages
from sam_env.training.batched.trainer import BatchedTrainer
from sam_env.training.trainers import load_config


def returns_dataset(bot: str, rollouts: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Observations, hidden hands and Monte Carlo returns of ``bot``'s decisions whose hands ended."""
    overrides = ["critic=oracle", f"init_from={bot}", "eval_every=0", "progress_bar=false"]
    trainer = BatchedTrainer(load_config("vs_heuristic", overrides))
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    for _ in tqdm(range(rollouts), desc="rollouts"):
        trainer.collector.collect()
        buf = trainer.collector.buffer
        n = buf.size
        buf.value[:n] = 0.0
        buf.boot[:n] = 0.0
        ret = advantages(buf, gamma=1.0, lam=1.0)  # with zero values: the sum of the rewards to come
        last = np.arange(n)  # each decision's trajectory's last decision in the rollout
        for i in range(n - 1, -1, -1):
            if buf.next[i] >= 0:
                last[i] = last[buf.next[i]]
        ended = buf.done[:n][last]
        parts.append((buf.obs[:n][ended], buf.hidden[:n][ended], ret[ended]))
    obs, hidden, ret = (np.concatenate(p) for p in zip(*parts, strict=True))
    return obs, hidden, ret


def fit(x: np.ndarray, y: np.ndarray, layers: tuple[int, ...], activation: str, epochs: int, seed: int) -> list[float]:
    """Held-out explained variance after each epoch of an MLP fitted by Adam (lr 1e-3, batch 512)."""
    gen = np.random.default_rng(seed)
    order = gen.permutation(len(y))
    train, test = order[: int(0.8 * len(y))], order[int(0.8 * len(y)) :]
    torch.manual_seed(seed)
    body = mlp(layers, x.shape[1], activation)
    net = torch.nn.Sequential(body, torch.nn.Linear(layers[-1], 1))
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    variance = float(y[test].var())
    out = []
    for _ in range(epochs):
        shuffled = torch.from_numpy(gen.permutation(train))
        for start in range(0, len(shuffled), 512):
            idx = shuffled[start : start + 512]
            loss = ((net(xt[idx]).squeeze(-1) - yt[idx]) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        with torch.no_grad():
            mse = float(((net(xt[test]).squeeze(-1) - yt[test]) ** 2).mean())
        out.append(1.0 - mse / variance)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bot", default="ppo", help="the bot whose decisions are labelled (a network)")
    parser.add_argument("--rollouts", type=int, default=8, help="rollouts of configs/vs_heuristic.yaml's 512 tables")
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(1)
    started = time.perf_counter()
    obs, hidden, ret = returns_dataset(args.bot, args.rollouts)
    config = load_config("vs_heuristic")
    print(f"{len(ret):,} decisions of {args.bot} against heuristic x3, return variance {ret.var():.3f}")
    for name, x in (("observation", obs), ("observation + hidden hands", np.concatenate([obs, hidden], axis=1))):
        curve = fit(x, ret, config.vf_layers, config.activation, args.epochs, args.seed)
        marks = ", ".join(f"{e}: {curve[e - 1]:.3f}" for e in (1, args.epochs // 3, 2 * args.epochs // 3, args.epochs))
        print(f"{name:28s} held-out explained variance after epochs {marks}")
    print(f"({time.perf_counter() - started:.0f} s, one torch thread)")


if __name__ == "__main__":
    main()
