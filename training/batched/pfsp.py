"""Opponents that teach: prioritized fictitious self-play (``opponent_sampling: pfsp``).

AlphaStar's league draws each opponent with a weight ``f(p)`` of the learner's probability ``p`` of beating
it: with ``f(p) = (1 − p)²`` ("hard") the opponents the learner does not beat yet come back most, those it
beats every time fade away; with ``p(1 − p)`` ("variance") the ones it beats about half the time do. Here the
pool holds every kind of opponent the batched trainer can seat in batch: the learner's snapshots and the
fixed networks, the compiled heuristic and heuristics with randomized thresholds
(:class:`~sam_env.agents.heuristic.bot.HeuristicParams`; never the held-out panel, which no training seats),
the greedy bot and the random one. Each is drawn, per seat and per hand, with its kind's ``opponents`` weight
(shared by the members of the kind) times ``f(p)``.

``p`` for an opponent is the learner's rate of ending a hand with more money than that opponent's seat (a
tie counts a half), over every pair of a learner seat and one of that opponent's seats at a finished hand;
each result counts with weight ``1 − 1/memory`` less than the next, so ``p`` follows the learner as it changes,
and a Beta(1, 1) prior makes a new opponent start at ``p = 0.5``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from sam_env import RuleConfig
from sam_env.agents.greedy_bot import BatchedGreedy
from sam_env.agents.heuristic.bot import HeuristicParams
from sam_env.agents.heuristic.compiled import BatchedHeuristic

from ..common.seating import HEURISTIC, LEARNER, RANDOM, Seating
from .config import BatchedConfig

GREEDY = -4
FIRST_VARIANT = -5
"""Occupant codes of the greedy bot and of the heuristic variants (``FIRST_VARIANT - j``); see :mod:`.rollout`."""

WEIGHTINGS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "hard": lambda p: (1.0 - p) ** 2,
    "variance": lambda p: p * (1.0 - p),
    "uniform": lambda p: np.ones_like(p),
}
"""AlphaStar's ``f`` of the probability that the learner beats an opponent."""


class PrioritizedSeating(Seating):
    """:class:`~sam_env.training.common.seating.Seating` whose other seats are drawn by PFSP (module docstring).

    Args:
        kind_weights: the ``opponents`` weights: which kinds are in the pool and their shares.
        weighting: ``f``'s name in :data:`WEIGHTINGS`.
        memory: about how many of its latest results an opponent's ``p`` weighs.
        variants: the thresholds of the heuristic variants in the pool.
    """

    def __init__(
        self,
        num_tables: int,
        rules: RuleConfig,
        learner_share: float,
        kind_weights: dict[str, float],
        rng: np.random.Generator,
        weighting: str = "hard",
        memory: int = 2000,
        variants: Sequence[HeuristicParams] = (),
    ) -> None:
        super().__init__(num_tables, rules.n_players, learner_share, kind_weights, rng)
        self.kind_weights = {k: float(v) for k, v in kind_weights.items()}
        self.f = WEIGHTINGS[weighting]
        self.decay = 1.0 - 1.0 / memory
        self.extra[GREEDY] = BatchedGreedy()
        self.variants = list(variants)
        for j, params in enumerate(self.variants):
            self.extra[FIRST_VARIANT - j] = BatchedHeuristic(rules, params)
        self.wins: dict[int, float] = {}
        self.games: dict[int, float] = {}

    # ------------------------------------------------------------------ the pool and its weights

    def members(self) -> list[tuple[int, str]]:
        """Every opponent that may be drawn now, as ``(occupant code, kind)``."""
        w = self.kind_weights
        out = [(code, "self_play") for code in self.drawable] if w.get("self_play", 0) > 0 or self.fixed else []
        if w.get("heuristic", 0) > 0:
            out += [(HEURISTIC, "heuristic")] + [(FIRST_VARIANT - j, "heuristic") for j in range(len(self.variants))]
        if w.get("greedy", 0) > 0:
            out.append((GREEDY, "greedy"))
        if w.get("random", 0) > 0:
            out.append((RANDOM, "random"))
        return out

    def p_beats(self, codes: Sequence[int]) -> np.ndarray:
        """The learner's estimated rate of beating each opponent (Beta(1, 1) prior: 0.5 before any result)."""
        return np.array([(self.wins.get(c, 0.0) + 1.0) / (self.games.get(c, 0.0) + 2.0) for c in codes])

    def probabilities(self) -> tuple[np.ndarray, np.ndarray]:
        """``(codes, probabilities)`` of drawing each member for a seat that is not the learner's."""
        members = self.members()
        if not members:
            return np.array([RANDOM]), np.ones(1)
        codes = np.array([code for code, _ in members])
        kinds = [kind for _, kind in members]
        share = np.array([self.kind_weights.get(k, 0.0) or 1.0 for k in kinds]) / np.array(
            [kinds.count(k) for k in kinds]
        )  # fixed networks without a self_play weight still share one
        weights = share * self.f(self.p_beats(codes))
        if not weights.sum() > 0:  # the learner beats everyone every time: draw by the shares alone
            weights = share
        return codes, weights / weights.sum()

    def opponents(self, k: int) -> np.ndarray:
        """Occupant codes for every seat of ``k`` tables, each drawn from :meth:`probabilities`."""
        codes, probabilities = self.probabilities()
        return codes[self.rng.choice(len(codes), size=(k, self.n_players), p=probabilities)]

    # ------------------------------------------------------------------ results

    def record(self, table: int, net: Sequence[float]) -> None:
        """A hand ended at ``table`` with money ``net`` per seat: every (learner seat, opponent seat) pair is
        one result for that opponent (1: the learner ended with more money, 0.5: as much, 0: less)."""
        occupant = self.occupant[table]
        mine = [net[s] for s in range(self.n_players) if occupant[s] == LEARNER]
        for s in range(self.n_players):
            code = int(occupant[s])
            if code == LEARNER:
                continue
            for money in mine:
                outcome = 1.0 if money > net[s] else 0.5 if money == net[s] else 0.0
                self.wins[code] = self.decay * self.wins.get(code, 0.0) + outcome
                self.games[code] = self.decay * self.games.get(code, 0.0) + 1.0

    def forget_unused(self) -> None:
        super().forget_unused()
        kept = {code for code, _ in self.members()}
        for stats in (self.wins, self.games):
            for code in [c for c in stats if c >= 0 and c not in kept]:
                del stats[code]

    def describe(self) -> dict[str, tuple[float, float, float]]:
        """Per opponent now in the pool: ``(p, results weighed, probability of being drawn)``, by name."""
        codes, probabilities = self.probabilities()
        p = self.p_beats(codes)
        return {
            self.name_of(int(c)): (float(p[i]), self.games.get(int(c), 0.0), float(probabilities[i]))
            for i, c in enumerate(codes)
        }

    def name_of(self, code: int) -> str:
        if code >= 0:
            return f"fixed_{self.fixed.index(code)}" if code in self.fixed else f"snapshot_{code}"
        if code <= FIRST_VARIANT:
            v = self.variants[FIRST_VARIANT - code]
            return f"heuristic_g{v.follow_gain:.2f}_c{v.contest_cards}_k{v.critical_cards}"
        return {HEURISTIC: "heuristic", GREEDY: "greedy", RANDOM: "random"}[code]


def seating_for(config: BatchedConfig, rng: np.random.Generator) -> Seating:
    """The seating a config asks for: the ``opponents`` mix, or PFSP over the pool."""
    rules = config.rule_config
    if config.opponent_sampling != "pfsp":
        return Seating(config.num_tables, rules.n_players, config.learner_share, config.opponents.weights(), rng)
    variants_rng = np.random.default_rng([config.seed, 7])  # the variants depend on the seed alone
    variants = [HeuristicParams.random(variants_rng) for _ in range(config.heuristic_variants)]
    return PrioritizedSeating(
        config.num_tables,
        rules,
        config.learner_share,
        config.opponents.weights(),
        rng,
        config.pfsp_weighting,
        config.pfsp_memory,
        variants,
    )
