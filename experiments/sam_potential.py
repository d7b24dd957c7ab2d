"""How often a Sâm could be won at all: the ceiling on what declaring Sâm is worth.

For random deals, seat 0's hand is checked two ways with :mod:`sam_env.agents.heuristic.analysis`:

* **proof** — what the heuristic bot declares on: a partition of the hand into leads that no
  combination of the unseen cards (pooled) can beat, not ending on 2s alone (``sam_plan``);
* **hindsight** — the same, but each lead need only survive every other seat's *actual* hand,
  one seat at a time (during a Sâm the others only pass or block, so their hands do not change).

The hindsight rate bounds any declaring policy from above: a declaration outside it is blocked by
some seat that answers whenever it can. Declaring exactly those hands at n seats would win at most
``rate × (n − 1) × sam_unit`` X per hand, less what those strong hands win without a Sâm.

    python experiments/sam_potential.py [--deals 20000] [--players 4] [--seed 0]
"""

from __future__ import annotations

import argparse

import numpy as np

from sam_env.agents.heuristic.analysis import PLAYABLE_KINDS, beatable, beaters, safe_partition, sam_plan
from sam_env.core import COMBOS, RuleConfig
from sam_env.core.cards import N_RANKS
from sam_env.core.combos import LEADS
from sam_env.core.rule_masks import rule_masks
from sam_env.core.rules import CARDS_PER_HAND


def counts_of(cards: np.ndarray) -> tuple[int, ...]:
    return tuple(int(x) for x in np.bincount(cards // 4, minlength=N_RANKS))


def hindsight_sam(hand: tuple[int, ...], others: list[tuple[int, ...]], rules: RuleConfig) -> bool:
    """Whether ``hand`` splits into leads none of the ``others`` could beat, not all 2s."""
    allowed = rule_masks(rules).allowed
    possible = [beaters(other, rules) for other in others]
    safe = frozenset(
        c.id
        for c in COMBOS
        if c.kind in PLAYABLE_KINDS and LEADS[c.id] and allowed[c.id] and not any(beatable(c.id, p) for p in possible)
    )
    found = safe_partition(hand, safe)
    return found is not None and any(not COMBOS[c].only_twos for c in found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=20_000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rules = RuleConfig(n_players=args.players)
    rng = np.random.default_rng(args.seed)
    proof = hindsight = 0
    for _ in range(args.deals):
        deck = rng.permutation(52)
        hands = [counts_of(deck[CARDS_PER_HAND * s : CARDS_PER_HAND * (s + 1)]) for s in range(args.players)]
        unseen = counts_of(deck[CARDS_PER_HAND:])
        proof += sam_plan(hands[0], unseen, rules) is not None
        hindsight += hindsight_sam(hands[0], hands[1:], rules)
    stake = (args.players - 1) * rules.sam_unit
    print(f"{args.deals} deals, {args.players} seats, seed {args.seed}, seat 0's hand:")
    print(f"  proof (the heuristic's test): {proof / args.deals:.3%}")
    print(f"  hindsight (beats every actual hand): {hindsight / args.deals:.3%}")
    print(f"  ceiling of declaring: {hindsight / args.deals * stake:+.2f} X/hand ({stake} X a won Sâm)")


if __name__ == "__main__":
    main()
