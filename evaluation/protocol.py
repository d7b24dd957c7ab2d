"""Protocol v1: the named, versioned evaluation every published sam-env number is measured under.

A protocol fixes everything a score depends on, so that two results files of it can be compared
(docs/protocol.md is the definition users read; this module is the one the code reads):

* **the table**: 2, 3, 4 or 5 seats under the default rules (docs/rules.md) — one *track* per seat count;
* **the deals**: deal ``i`` of :data:`SEED` (:func:`sam_env.evaluation.deals.make_deal`), ``i = 0 … D-1``
  with ``D`` fixed per tier and seat count (:data:`TIERS`), and the SHA-256 of their dealt cards
  (:func:`deal_set_sha256`, pinned in :data:`DEAL_SET_SHA256`: the same on every machine and run);
* **the opponents** (:func:`suite`, defined in :mod:`.suites`): the baselines ``random``, ``greedy`` and
  ``heuristic``, the held-out panel (:mod:`sam_env.agents.panel`) and the shipped networks made for the seat count,
  each as ``n - 1`` copies around the candidate in every rotation of every deal; the ``search`` tier
  replaces them by ``ppo_search``, on fewer deals, as a search for every decision makes its hands far slower;
* **the seeds**: every bot, the candidate included, is reseeded for every hand from
  ``(SEED, deal, seating, slot)`` (:func:`sam_env.evaluation.tournament.hand_seed`);
* **the metrics**: X/hand with its 95 % interval over deals, win rate, the panel rows' margin over the
  heuristic's own X/hand paired over deals (:mod:`.panel`), and the headline score
  (:mod:`.protocol_run`): the mean over :func:`headline_opponents` of the candidate's X/hand, with the
  interval of the per-deal means.

Changing any of these is a new protocol version, never an edit of this one: a shipped network that is
retrained would move every score, so the opponents' weights are pinned too (:data:`OPPONENT_WEIGHTS`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from sam_env.core import RuleConfig
from sam_env.core.cards import format_cards
from sam_env.core.rules import MAX_PLAYERS, MIN_PLAYERS

from . import suites
from .deals import make_deal
from .suites import Opponent

PROTOCOL_ID = "sam-env-protocol"
"""What a results file says it was measured under, with :data:`VERSION`."""
VERSION = 1
NAME = f"v{VERSION}"
"""The protocol's short name, as ``sam-eval --protocol`` takes it."""
SEED = 20_240_601
"""The seed of protocol v1's deals and of every bot's draws."""
PLAYERS: tuple[int, ...] = tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1))
"""The seat counts protocol v1 has a track for."""

# The suite is defined in .suites, with every other line-up of opponents; these are its names here.
BASELINES = suites.PROTOCOL_V1_BASELINES
"""The baseline rows (:data:`.suites.PROTOCOL_V1_BASELINES`)."""
NETWORKS = suites.PROTOCOL_V1_NETWORKS
"""The shipped networks each track seats (:data:`.suites.PROTOCOL_V1_NETWORKS`): the policy networks shipped
when v1 was fixed. Networks shipped later (the Deep Monte-Carlo ``dmc``) are measured as candidates."""
SEARCH = suites.PROTOCOL_V1_SEARCH
"""The opponents of the search tier (:data:`.suites.PROTOCOL_V1_SEARCH`): ``ppo_search``."""
SEARCH_NETWORK = suites.PROTOCOL_V1_SEARCH_NETWORK
"""The network ``ppo_search`` plays at each seat count (:data:`.suites.PROTOCOL_V1_SEARCH_NETWORK`), and the text
tier's network."""
TEXT = suites.PROTOCOL_V1_TEXT
"""The text tier's baselines (:data:`.suites.PROTOCOL_V1_TEXT`)."""
OPPONENT_WEIGHTS = suites.PROTOCOL_V1_WEIGHTS
"""SHA-256 of the weights of every network protocol v1 seats (:data:`.suites.PROTOCOL_V1_WEIGHTS`): a run
refuses an install whose networks differ (:func:`check_opponent_weights`)."""


@dataclass(frozen=True)
class Tier:
    """How much of the protocol a run plays: deals per seat count, and which suite."""

    name: str
    deals: dict[int, int]
    suite: str = "main"
    """Which opponents: ``main`` (:data:`BASELINES`, the panel, :data:`NETWORKS`), ``search`` (:data:`SEARCH`) or
    ``text`` (:data:`TEXT` and the seat count's ``ppo``: short, for language models)."""
    about: str = ""

    @property
    def search(self) -> bool:
        return self.suite == "search"


TIERS: dict[str, Tier] = {
    tier.name: tier
    for tier in (
        Tier("full", {2: 10000, 3: 6000, 4: 4000, 5: 3000}, about="the numbers to publish"),
        Tier(
            "quick", {2: 1000, 3: 800, 4: 400, 5: 300}, about="the full tier's first deals, a check in about a minute"
        ),
        Tier("search", {2: 100, 3: 60, 4: 40, 5: 30}, "search", about="ppo_search opponents, on fewer deals, slower"),
        Tier(
            "text",
            {2: 100, 3: 60, 4: 50, 5: 40},
            "text",
            about="greedy, heuristic and ppo on few deals, for language models (docs/llm.md)",
        ),
    )
}
"""Tiers by name. A tier's deals are the first ones of the same sequence, so the quick tier's deal set
is the start of the full tier's; its score is an estimate of the full one with a wider interval."""

DEAL_SET_SHA256: dict[tuple[int, str], str] = {
    (2, "full"): "9ecbc2a0f1f2a29f1ff73df5fd49b22770bc2f1938296b9c482ee38b68bb3a0b",
    (2, "quick"): "792641468145dda93bad0acdf396c125d5bdffa9d0313d902bb46dcd7d3aa6e4",
    (2, "search"): "7e4436ce59f03a85be127f51037087d8f2309ba76669f18f6b14a5df6762c5ee",
    (2, "text"): "7e4436ce59f03a85be127f51037087d8f2309ba76669f18f6b14a5df6762c5ee",
    (3, "full"): "a8d589a708a4f5933181cda476dfbf000f3777221b568ee9aae539ac2296764c",
    (3, "quick"): "a6b33f1e2b232acbd52f002a1d8d1f159051fe33e0e006e733fe9641443074e0",
    (3, "search"): "3fad3fd1d7f6bcf926d3b8e1f137acba2ae948b02016c0ec41dc226b00be26c0",
    (3, "text"): "3fad3fd1d7f6bcf926d3b8e1f137acba2ae948b02016c0ec41dc226b00be26c0",
    (4, "full"): "e2f8247cbc557291b54c9972b15ebc47c0eca0846e63e6977c3644175dceafdb",
    (4, "quick"): "33faa1bc7238416e0a8a9b81c402d3249c5fd1baa1f29465d4bed19dd81edef3",
    (4, "search"): "9dce64be4927aada7e2da110cbe91fa1d852eb10515b2bcfce2290727fe68994",
    (4, "text"): "946882b1366eddd70713fe9bccb3579ff7d79bbb1d75a89a2e788153b79a149f",
    (5, "full"): "129470d2d3424cf19e319a05e355d3aada15a41a53c5e6966cc63d0ea7d31ebb",
    (5, "quick"): "7d4b9f3a1c9e24e83177f4c532384d7601760a7c3d4f8e9bf030b3b757ec0513",
    (5, "search"): "a6a021e7a776423efe6dede2e4093716d464959e7213e20b2f73d87dd3dbfc19",
    (5, "text"): "5aaef18798c284f2fc35a10bcf3a38b6bc259fbd53ba928bf5c5c410a96786e4",
}
"""``(players, tier) -> SHA-256`` of the tier's deal set (:func:`deal_set_sha256`), pinned; a results file
and this sam-env's own dealing must both agree with it."""


class ProtocolError(ValueError):
    """A run or a file that does not fit protocol v1: the message names what and what v1 expects."""


def rules_for(players: int) -> RuleConfig:
    """The table of a track: ``players`` seats, every other rule at its default."""
    if players not in PLAYERS:
        raise ProtocolError(f"protocol {NAME} has tracks for {', '.join(map(str, PLAYERS))} players, not {players!r}")
    return RuleConfig(n_players=players)


def tier_named(name: str) -> Tier:
    """The tier ``name``; :class:`ProtocolError` listing the tiers otherwise."""
    if name not in TIERS:
        raise ProtocolError(f"protocol {NAME} has the tiers {', '.join(TIERS)}, not {name!r}")
    return TIERS[name]


def suite(players: int, tier: str) -> tuple[Opponent, ...]:
    """The opponents of a track and tier, in the order of a results file's rows (:func:`.suites.protocol_v1`)."""
    rules_for(players)
    return suites.protocol_v1(players, tier_named(tier).suite)


def headline_opponents(players: int, tier: str) -> tuple[str, ...]:
    """The opponents the headline score averages over: the whole suite but ``random``.

    ``random`` is a sanity row, not a test of strength: strong bots take an order of magnitude more
    money from it than from any competent opponent, so it would dominate the mean and its interval and
    reward exploiting a bot that does not play, which no other opponent does.
    """
    return tuple(o.name for o in suite(players, tier) if o.name != "random")


def canonical_deal_lines(rules: RuleConfig, deals: int, seed: int = SEED) -> Iterable[str]:
    """The text the deal-set hash covers, one line per deal: its index, the would-be leader and every
    seat's cards in the notation of docs/rules.md §2 (``"0 leader=2 | 4S 5D … | …"``)."""
    for index in range(deals):
        deal = make_deal(rules, seed, index)
        yield f"{index} leader={deal.leader} | " + " | ".join(format_cards(hand) for hand in deal.hands) + "\n"


@cache
def deal_set_sha256(players: int, deals: int, seed: int = SEED) -> str:
    """SHA-256 of the dealt cards of ``deals`` deals of ``seed`` at the default table of ``players`` seats.

    It hashes the cards themselves, written out (:func:`canonical_deal_lines`, UTF-8), not a Python
    hash or a bit mask: anyone can recompute it from docs/protocol.md, and it changes exactly when
    the deals a bot is scored on do.
    """
    digest = hashlib.sha256()
    for line in canonical_deal_lines(rules_for(players), deals, seed):
        digest.update(line.encode("utf-8"))
    return digest.hexdigest()


@dataclass(frozen=True)
class Track:
    """One seat count at one tier of protocol v1: what a results file is measured on."""

    players: int
    tier: str

    def __post_init__(self) -> None:
        rules_for(self.players)
        tier_named(self.tier)

    @property
    def rules(self) -> RuleConfig:
        return rules_for(self.players)

    @property
    def deals(self) -> int:
        return TIERS[self.tier].deals[self.players]

    @property
    def opponents(self) -> tuple[Opponent, ...]:
        return suite(self.players, self.tier)

    @property
    def headline_opponents(self) -> tuple[str, ...]:
        return headline_opponents(self.players, self.tier)

    @property
    def networks(self) -> tuple[str, ...]:
        """The shipped networks this track seats (the search and text tiers: the seat count's ppo network)."""
        return NETWORKS[self.players] if TIERS[self.tier].suite == "main" else (SEARCH_NETWORK[self.players],)

    @property
    def pinned_sha256(self) -> str:
        """The deal-set hash protocol v1 pins for this track."""
        return DEAL_SET_SHA256[self.players, self.tier]

    def check_deals(self) -> None:
        """Refuse to play when this sam-env deals other cards than protocol v1 pins (a changed dealer
        or deck): every score measured here would be on other deals than everyone else's."""
        found = deal_set_sha256(self.players, self.deals)
        if found != self.pinned_sha256:
            raise ProtocolError(
                f"this sam-env deals other cards for protocol {NAME}'s {self.players}-player {self.tier} tier than the "
                f"protocol fixes: SHA-256 {found} instead of {self.pinned_sha256}; its numbers would not be comparable"
            )


def check_opponent_weights(names: Iterable[str]) -> None:
    """Refuse shipped networks whose weights are not the ones protocol v1 pins (:data:`OPPONENT_WEIGHTS`)."""
    from .fingerprints import shipped_weights_sha256  # reads files: only when a run is about to start

    for name in names:
        if name in OPPONENT_WEIGHTS and shipped_weights_sha256(name) != OPPONENT_WEIGHTS[name]:
            raise ProtocolError(
                f"the shipped network {name!r} has other weights than protocol {NAME} seats (SHA-256 "
                f"{shipped_weights_sha256(name)}, pinned {OPPONENT_WEIGHTS[name]}); its scores would not be comparable"
            )
