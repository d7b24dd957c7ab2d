"""Opponent suites: who a bot is measured against.

Every line-up of opponents that the code seats around a bot is here, each defined once and named by what it
is for; the modules that play them read them from here:

* :data:`BASELINES` — the rule-based baselines ``random``, ``greedy`` and ``heuristic`` (docs/baselines.md);
* :data:`HELD_OUT_PANEL` — the names of the held-out panel, and :data:`PANEL_BASELINE`, the bot whose margin
  against each is the one a candidate's is compared with (:mod:`.panel`, docs/panel.md). The panel bots
  themselves are :mod:`sam_env.agents.panel`'s: this module only names them;
* protocol v1's suite (:mod:`.protocol`, docs/protocol.md): :data:`PROTOCOL_V1_BASELINES`,
  :data:`PROTOCOL_V1_PANEL`, the networks of each seat count (:data:`PROTOCOL_V1_NETWORKS`), the search tier's
  opponents (:data:`PROTOCOL_V1_SEARCH`, :data:`PROTOCOL_V1_SEARCH_NETWORK`), the networks' pinned weights
  (:data:`PROTOCOL_V1_WEIGHTS`), and the rows of a track in a results file's order (:func:`protocol_v1`);
* :data:`TRAINING_BASELINES` — the rule bots a training config mixes into its opponents and meets in its final
  evaluation, and :data:`TRAINING_EVAL_OPPONENTS`, those it meets in the evaluations during a run
  (:mod:`sam_env.training.config`);
* the shipped-bot targets (``benchmarks/shipped_bots.py``): the shipped networks of a table size, from the
  catalogue (:func:`shipped_bot_networks`), and the opponents of their strength targets
  (:func:`shipped_bot_opponents`).

Protocol v1's suite is frozen: changing it, its order or its pinned weights makes another protocol version,
never an edit here (``tests/evaluation/test_suites.py`` holds it to the names docs/protocol.md lists).
Evaluation never imports training: training reads its line-ups from here.
"""

from __future__ import annotations

from dataclasses import dataclass

from sam_env.agents.panel import PANEL

BASELINES: tuple[str, ...] = ("random", "greedy", "heuristic")
"""The rule-based baselines, weakest first: the uniform random player, the greedy bot and the heuristic."""

HELD_OUT_PANEL: tuple[str, ...] = PANEL
"""The held-out panel's registry names (:data:`sam_env.agents.panel.PANEL`, the same tuple): rule bots of other
styles than the heuristic's that no training config may seat."""
PANEL_BASELINE = "heuristic"
"""The bot whose margin against each panel bot a candidate's is compared with (the generalization margin)."""

# Protocol v1 ---------------------------------------------------------------------------------------------------

PROTOCOL_V1_BASELINES: tuple[str, ...] = BASELINES
"""Protocol v1's baseline rows, in order."""
PROTOCOL_V1_PANEL: tuple[str, ...] = HELD_OUT_PANEL
"""Protocol v1's panel rows, in order."""
PROTOCOL_V1_NETWORKS: dict[int, tuple[str, ...]] = {
    2: ("ppo_2p",),
    3: ("ppo_3p",),
    4: ("ppo", "ppo_v1", "ppo_v2", "ppo_selfplay"),
    5: ("ppo_5p",),
}
"""The shipped networks each track seats: the policy networks shipped when v1 was fixed, by the names they had
then (``ppo`` is the catalogue's ``ppo_v3``, the same weights). Networks shipped later (the Deep Monte-Carlo
``dmc``) are measured as candidates; seating them would make another version."""
PROTOCOL_V1_SEARCH: tuple[str, ...] = ("ppo_search",)
"""The opponents of the search tier: the seat count's ``ppo`` network with determinized search."""
PROTOCOL_V1_SEARCH_NETWORK: dict[int, str] = {2: "ppo_2p", 3: "ppo_3p", 4: "ppo", 5: "ppo_5p"}
"""The network ``ppo_search`` plays at each seat count
(:func:`sam_env.agents.networks.catalogue.shipped_network_for` of ``ppo``)."""
PROTOCOL_V1_TEXT: tuple[str, ...] = ("greedy", "heuristic")
"""The text tier's baselines; its network is the seat count's ``ppo`` (:data:`PROTOCOL_V1_SEARCH_NETWORK`): a short
suite, so that a language model is measured on few decisions (docs/llm.md)."""
PROTOCOL_V1_WEIGHTS: dict[str, str] = {
    "ppo": "533d9e200f25ef9e618aad2e08b0ea2afbb43ac32e85e0040280c56d1cab7bd6",
    "ppo_2p": "7441516a9716d72c7e595934586608f1a0d44f7302e50c9fb450a92bfc865906",
    "ppo_3p": "092a31b9599b5685abf47d7983db3958a8769f26d777c522e54619ede193462b",
    "ppo_5p": "b597c8790a6c0e04d4e76dfb523562d307d87efaf0ae3d66dcb4288d149387b5",
    "ppo_selfplay": "8d05795d558746b1bc9fef7a018e6601efa2e88129465b278407a0d33133b871",
    "ppo_v1": "6f98861c08723efccd8148f33fbb210881b8b850611b3bacb8a2a0a3a8fdeb54",
    "ppo_v2": "51f63708bebe0a24cbaa4aedb3ef0f885eee6b0af545796b64fa3ad151e7de11",
}
"""SHA-256 of the safetensors weights of every network protocol v1 seats (``ppo_search`` plays ``ppo``,
or ``ppo_<n>p``): a run refuses an install whose networks differ (:func:`.protocol.check_opponent_weights`)."""


@dataclass(frozen=True)
class Opponent:
    """One row of a suite: the candidate against ``n - 1`` copies of ``name``; ``group`` says which suite part."""

    name: str
    group: str
    """``baseline``, ``panel``, ``network`` or ``search``."""


def protocol_v1(players: int, suite: str = "main") -> tuple[Opponent, ...]:
    """Protocol v1's rows at ``players`` seats, in a results file's order: for the ``main`` suite the baselines, the
    panel and the track's networks; for ``search`` (the search tier) the search opponents alone; for ``text`` (the
    text tier) :data:`PROTOCOL_V1_TEXT` and the seat count's ``ppo`` network.

    :func:`.protocol.suite` is the checked way in (a track and a tier by name); ``KeyError`` here for a seat
    count protocol v1 has no track for."""
    if suite == "search":
        return tuple(Opponent(name, "search") for name in PROTOCOL_V1_SEARCH)
    if suite == "text":
        return (
            *(Opponent(name, "baseline") for name in PROTOCOL_V1_TEXT),
            Opponent(PROTOCOL_V1_SEARCH_NETWORK[players], "network"),
        )
    return (
        *(Opponent(name, "baseline") for name in PROTOCOL_V1_BASELINES),
        *(Opponent(name, "panel") for name in PROTOCOL_V1_PANEL),
        *(Opponent(name, "network") for name in PROTOCOL_V1_NETWORKS[players]),
    )


# Training ------------------------------------------------------------------------------------------------------

TRAINING_BASELINES: tuple[str, ...] = BASELINES
"""The rule bots a training config may mix into the learner's opponents (besides self-play) and the default
opponents of its final evaluation (:data:`sam_env.training.config.BASELINES`). Never a panel bot."""
TRAINING_EVAL_OPPONENTS: tuple[str, ...] = ("heuristic",)
"""The bots a run meets in its evaluations during training unless its config names others (the default of
``eval_opponents``, :class:`sam_env.training.config.EvalRunConfig`); the first one's result is on the progress
bar."""

# The shipped-bot targets (benchmarks/shipped_bots.py) -----------------------------------------------------------

SHIPPED_BOT_REFERENCE = "ppo_v1"
"""The first 4-seat network: beside the heuristic, the opponent of the 4-seat networks' strength targets."""


def shipped_bot_networks(n_players: int) -> tuple[str, ...]:
    """Every shipped network made for ``n_players`` seats, by its own catalogue name (not an alias), in the
    catalogue's order: the recommended one first, then by family, newest generation first."""
    from sam_env.agents.networks.catalogue import entries  # the catalogue only when a benchmark asks

    return tuple(e.name for e in entries() if e.seats == n_players)


def shipped_bot_opponents(n_players: int) -> tuple[str, ...]:
    """The fixed opponents of the shipped networks' strength table: the heuristic, and
    :data:`SHIPPED_BOT_REFERENCE` at the table size it plays."""
    from sam_env.agents.networks.catalogue import entry

    if entry(SHIPPED_BOT_REFERENCE).seats == n_players:
        return (PANEL_BASELINE, SHIPPED_BOT_REFERENCE)
    return (PANEL_BASELINE,)
