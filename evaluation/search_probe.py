"""Exploitability probed by search: a determinized search that models the target network in every other seat.

A best response trained by PPO (``sam-exploit``) is a lower bound on how exploitable a network is *for that
learner*; a weak learner finds little and proves little. A search at decision time is a learner of another
kind: :class:`~sam_env.agents.search.SearchBot` over the target's own network, with that network as the model
of every other seat (``opponent_models=()``), ranks its candidates by the target's network (a policy's logits,
a Q-network's values), plays its own seat in rollouts as the target would, and assumes that every other seat
*is* the target — which, in this measurement, it is. So it looks for the moves that beat the target's replies on
deals that agree with what the seat has seen, and its margin in duplicate against ``n - 1`` copies of the target
is what one-step lookahead against a known opponent wins from it.

The margin is a paired difference by construction: the target against ``n - 1`` copies of itself plays the
same hand in every rotation of a deal (its moves are deterministic), so its own per-deal mean is exactly 0,
and the searcher's per-deal means are the differences over the same deals.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, NamedTuple

from sam_env.agents.networks.format import CheckpointError
from sam_env.agents.networks.policy.bot import PPOBot
from sam_env.agents.networks.qnet.bot import QBot
from sam_env.agents.registry import BotSpec, label_of, load_bot
from sam_env.agents.search import SearchBot
from sam_env.agents.search.models import Network
from sam_env.core import RuleConfig

from .exploitability import Row as BestResponseRow
from .exploitability import read_figure
from .matches import Match
from .report import read_section
from .tournament import MatchResult, run_matches

SECTION = "search_probe"
"""The section of docs/results/exploitability.md that :func:`probe_table` fills."""
TARGET = 1.0
"""The bound on the search's margin against a network that the strength targets set (X/hand)."""


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


def target_network(spec: BotSpec, rules: RuleConfig) -> Network:
    """The checkpoint of a network bot for ``rules``: a shipped name, a path, or a spec that builds a ``PPOBot``
    (a policy network) or a ``QBot`` (a Q-network, ``dmc``'s kind)."""
    bot = load_bot(spec, rules=rules)
    if not isinstance(bot, (PPOBot, QBot)):
        raise CheckpointError(
            f"{label_of(spec)!r} is not a network (a policy or a Q-network); the search probe searches over one"
        )
    return bot.checkpoint


def probe_bot(target: Network, budget: SearchBudget = DEFAULT_BUDGET, name: str = "search probe") -> partial:
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


@dataclass(frozen=True)
class ProbeRow:
    """One probe as the table shows it: built from a ``sam-exploit --probe search --out`` record, or read back
    off the page's table (:func:`probe_page_rows`), which may hold the only copy of an earlier probe's figures."""

    bot: str
    seats: int
    budget: str
    margin: float
    ci_low: float
    ci_high: float
    deals: int
    minutes: float

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> ProbeRow:
        s, b = record["summary"], SearchBudget(**record["budget"])
        return cls(
            record.get("network", record["bot"]),
            record["players"],
            b.describe(),
            s["x_per_hand"],
            s["ci_low"],
            s["ci_high"],
            s["deals"],
            record["seconds"] / 60,
        )

    @property
    def key(self) -> tuple[int, str]:
        """Identity and sort order in the table: seats, then bot (one probe of each, as the table shows one)."""
        return self.seats, self.bot

    @classmethod
    def from_line(cls, line: str) -> ProbeRow:
        """A row of the table as :meth:`line` writes it (the last cell, the best response's, is the page's to
        recompute); a typographic minus (−) reads as a minus."""
        bot, seats, budget, margin, ci, deals, minutes, _ = (c.strip() for c in line.strip().strip("|").split("|"))
        low, high = (read_figure(x) for x in ci.strip("[]").split(","))
        return cls(
            bot.strip("`"),
            int(seats),
            budget,
            read_figure(margin.split("**")[1]),
            low,
            high,
            int(deals.replace(",", "")),
            float(minutes.removesuffix(" min")),
        )

    def line(self, beside: str = "–") -> str:
        """The table row, its target mark read from the interval, ``beside`` in the best response's cell."""
        margin = f"**{self.margin:+.2f}** {_mark(self.ci_low, self.ci_high)}"
        return (
            f"| `{self.bot}` | {self.seats} | {self.budget} | {margin} | [{self.ci_low:+.2f}, {self.ci_high:+.2f}] | "
            f"{self.deals:,} | {self.minutes:.0f} min | {beside} |"
        )


def probe_page_rows(page: str) -> list[ProbeRow]:
    """The probes already in the page's section (none where it has no section yet)."""
    body = read_section(page, SECTION) or ""
    return [ProbeRow.from_line(line) for line in body.splitlines() if line.startswith("| `")]


def _mark(low: float, high: float) -> str:
    """Against :data:`TARGET`, read on the interval: met by all of it, by none of it, or undecided."""
    return "✓" if round(high, 2) <= TARGET else "✗" if round(low, 2) > TARGET else "?"


def probe_table(probes: Sequence[ProbeRow], best_responses: Sequence[BestResponseRow] = ()) -> str:
    """The table of the probes (by seats, then bot) beside the largest margin a 10M-step PPO best response
    found against the same network (``best_responses``: the rows of the page's PPO table), and its legend."""
    lines = [
        f"| bot | seats | search | its margin vs the bot, X/hand (target ≤ +{TARGET:.1f}) | 95% CI | deals | "
        "wall time | PPO best response's largest margin (10M steps, 2,000 deals) |",
        "|---|---:|---|---:|---|---:|---:|---|",
    ]
    for p in sorted(probes, key=lambda p: p.key):
        found = [r for r in best_responses if r.bot == p.bot and r.seats == p.seats]
        ppo = max(found, key=lambda r: r.margin, default=None)
        lines.append(p.line("–" if ppo is None else f"{ppo.margin:+.2f} [{ppo.ci_low:+.2f}, {ppo.ci_high:+.2f}]"))
    legend = (
        f"✓: the whole 95 % interval is at or below +{TARGET:.1f}; ✗: all of it is above; ?: it straddles the target. "
        "The best response's figure is from the table above, on 2,000 deals of the same seed (the probe's are the "
        "first of them): side by side, not a paired difference."
    )
    return "\n".join(lines) + "\n\n" + legend
