"""Exploitability probed by search: a determinized search that models the target network in every other seat.

A best response trained by PPO (``sam-exploit``) is a lower bound on how exploitable a network is *for that
learner*; a weak learner finds little and proves little. A search at decision time is a learner of another
kind: :class:`~sam_env.agents.search.SearchBot` over the target's own network, with that network as the model
of every other seat (``opponent_models=()``), ranks its candidates by the target's policy, plays its own seat
in rollouts as the target would, and assumes that every other seat *is* the target — which, in this
measurement, it is. So it looks for the moves that beat the target's replies on deals that agree with what
the seat has seen, and its margin in duplicate against ``n - 1`` copies of the target is what one-step
lookahead against a known opponent wins from it.

The margin is a paired difference by construction: the target against ``n - 1`` copies of itself plays the
same hand in every rotation of a deal (its moves are deterministic), so its own per-deal mean is exactly 0,
and the searcher's per-deal means are the differences over the same deals.
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

from sam_env.agents.ppo.bot import PPOBot
from sam_env.agents.ppo.checkpoint import CheckpointError, PolicyCheckpoint
from sam_env.agents.registry import BotSpec, label_of, load_bot
from sam_env.agents.search import SearchBot

from sam_env.core import RuleConfig

from .matches import Match
from .tournament import MatchResult, run_matches


class SearchBudget(NamedTuple):
    """How much the probing search looks at each decision (:class:`~sam_env.agents.search.SearchBot`'s arguments)."""

    determinizations: int = 64
    candidates: int = 8
    proposals: int = 0
    """With inference: proposed deals weighed by how well the target explains the others' past moves (0: none)."""

    def describe(self) -> str:
        inference = f", inference from {self.proposals} proposals" if self.proposals else ""
        return f"{self.determinizations} deals x {self.candidates} candidates{inference}"


DEFAULT_BUDGET = SearchBudget()
"""``ppo_search``'s budget without its inference: 64 deals, 8 candidates."""


def target_network(spec: BotSpec, rules: RuleConfig) -> PolicyCheckpoint:
    """The policy checkpoint of a network bot (shipped name, path, or a spec that builds a ``PPOBot``) for ``rules``."""
    bot = load_bot(spec, rules=rules)
    if not isinstance(bot, PPOBot):
        raise CheckpointError(f"{label_of(spec)!r} is not a policy network; the search probe searches over one")
    return bot.checkpoint


def probe_bot(target: PolicyCheckpoint, budget: SearchBudget = DEFAULT_BUDGET, name: str = "search probe") -> partial:
    """A factory ``seed -> SearchBot`` of the probing search over ``target`` (it pickles to evaluation workers)."""
    return partial(
        SearchBot,
        target,
        determinizations=budget.determinizations,
        candidates=budget.candidates,
        proposals=budget.proposals,
        name=name,
    )


def search_probe(
    target: BotSpec,
    rules: RuleConfig,
    deals: int,
    seed: int,
    budget: SearchBudget = DEFAULT_BUDGET,
    workers: int | None = None,
    progress: bool = True,
) -> MatchResult:
    """The probing search (slot 0) against ``n - 1`` copies of ``target``, every rotation of ``deals`` deals
    of ``seed``.

    ``result.summary()`` is the margin (X/hand with its 95 % interval over deals); ``result.metrics`` the
    per-deal values, for paired comparisons with other probes on the same deals.
    """
    checkpoint = target_network(target, rules)
    label = f"search over {label_of(target)}"
    match = Match(probe_bot(checkpoint, budget, label), (target,) * (rules.n_players - 1), label=label)
    [result] = run_matches([match], rules, deals, seed=seed, workers=workers, progress=progress)
    return result
