"""``python -m sam_env``: deal one hand, play it with random legal moves, and print it move by move."""

from __future__ import annotations

import argparse

import numpy as np

from .core import RuleConfig, Table, combo_name
from .core.render import render_hand


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m sam_env", description=__doc__)
    parser.add_argument("--seed", type=int, default=0, help="seed of the deal and of the random moves")
    parser.add_argument("--players", type=int, default=4, help="number of seats (2-5)")
    args = parser.parse_args(argv)
    rules = RuleConfig(n_players=args.players)
    rng = np.random.default_rng(args.seed)
    hand = Table(rules, rng).new_hand()
    print(render_hand(hand))
    while not hand.over:
        legal = hand.legal_moves()
        seat, move = hand.to_act, legal[int(rng.integers(len(legal)))]
        hand.step(move)
        print(f"seat {seat}: {combo_name(move)}")
    print(render_hand(hand))


if __name__ == "__main__":
    main()
