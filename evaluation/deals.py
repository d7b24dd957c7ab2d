"""The fixed, seeded deals of a duplicate tournament.

Deal ``i`` of seed ``s`` is drawn from its own generator ``numpy.random.default_rng([s, i])``, so a
deal never depends on how many deals come before it or on which worker process builds it. A deal is
what a fresh table would start with: one card mask per seat and the would-be leader of docs/rules.md §6
(``Table(rules, rng).new_hand()`` applies ``first_leader``). Every seating of a match then replays
exactly these cards from exactly this leader.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sam_env.core import RuleConfig, Table


@dataclass(frozen=True)
class Deal:
    """One deal: ``hands[seat]`` is a card mask; ``leader`` is the seat asked first about Sâm and leading."""

    index: int
    hands: tuple[int, ...]
    leader: int


def make_deal(rules: RuleConfig, seed: int, index: int) -> Deal:
    """Deal number ``index`` of the tournament seeded with ``seed``."""
    hand = Table(rules, np.random.default_rng([seed, index])).new_hand()
    return Deal(index=index, hands=tuple(hand.dealt), leader=hand.leader)
