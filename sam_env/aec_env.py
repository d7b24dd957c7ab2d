"""
# Sâm Lốc

| Import             | `from sam_env import env, raw_env`                 |
|--------------------|----------------------------------------------------|
| Actions            | Discrete                                           |
| Parallel API       | No                                                 |
| Manual Control     | Yes (`sam-play`)                                   |
| Agents             | `['player_0', …, 'player_3']` (2–5 via `RuleConfig`) |
| Action Shape       | (1,)                                               |
| Action Values      | [0, 200]                                           |
| Observation Shape  | (586,) for 4 players (see below)                   |
| Observation Values | [0, 1]                                             |

Sâm Lốc is a Vietnamese climbing card game: 10 cards each, singles, pairs, triples, quads and
straights beat equal plays of higher rank, quads "chop" 2s, and the first seat to empty its
hand takes money from every other seat. The rules are those of the project's rules page,
`docs/rules.md`, configured with `rules=RuleConfig(...)` (every option, with its defaults).

### Agents

`player_i` sits in seat `i`; seats act in turn order `i → i+1`, but tricks and passes break
round-robin, so always read `env.agent_selection`. Before play, each seat in turn from the
would-be leader may declare Sâm (`declare_sam` / `decline_sam`).

### Action space

One fixed `Discrete(201)` space for every rule configuration; each index has a stable name
(`sam_env.action_name(i)`, `sam_env.action_index(name)`): `pass`, `declare_sam`, `decline_sam`,
`single:7`, `pair:K`, `triple:10`, `quad:9`, `straight:A-3` (lowest to highest along
`A 2 3 … K A`; `Q-A` is Q-K-A), `double_quad:5+9`. Actions are rank-level: suits never decide a
play, and the engine picks the suits that leave the hand.

### Observation space

A dict with `"observation"` (float32 vector, seat-relative: the observer first, then the seats
in turn order) and `"action_mask"` (int8 over the 201 actions: exactly the legal moves of the
agent to act, all zeros for every other agent). The vector is the concatenation of these blocks
(`sam_env.encoding.observation_layout(n)`), rank counts written unary (13 ranks × "at least
1, 2, 3, 4"):

| block | size | meaning |
|---|---|---|
| hand | 52 | own rank counts |
| unseen | 52 | rank counts of cards the observer cannot see |
| played | 52·n | cards each seat has played this hand |
| cards_left | 11·n | one-hot cards left per seat |
| one_card | n | seats with one card left (báo 1) |
| table_play | 201 | the play to beat (zeros on a free lead) |
| table_owner | n | who made it |
| passed | n | seats out of the current trick |
| out | n | seats out of the hand (finished on 2s, `lose_and_continue`) |
| sam_declarer | n | who declared Sâm |
| leader | n | the would-be leader (asked first about Sâm) |
| phase | 3 | Sâm decisions / play / over |
| responsible | 1 | the observer must respect báo 1 (upper seat of a one-card seat) |
| chain_value | 1 | chop money v at stake on the table, as v / (v + 20) |
| declined | 56·(n−1) | encoding version 2 only: per opponent, the plays it passed on (below) |

That is observation encoding version 1, the default. `raw_env(encoding_version=2)` appends a compact
history of the hand: for each opponent in turn order and for single, pair, triple and straight, 14 bits
set from the lowest key (rank, or a straight's highest position) of a play of that kind the opponent
passed on, upwards (`sam_env.encoding`). A version-1 observation is the first numbers of a version-2
one, so a network trained on version 1 reads its prefix.

`state()` returns the perfect-information state (absolute seats, every hand) for centralized
critics; `env.unwrapped.seat_view(agent)` gives the same information as an observation as plain
domain values (`SeatView`) for rule-based bots.

### Rewards

Money in units of the bet X, times `reward_scale`, credited to the seat it belongs to when it
changes hands: chop money at the chop (also to a seat that is not acting), the settlement when
the hand ends. Over a hand each agent's rewards sum to its net in the ledger; the ledger so far
is `env.unwrapped.ledger`, the finished hand's `HandResult` `env.unwrapped.result`. Every hand
is zero-sum.

### Infos

Empty while the hand is played. When it ends, each agent's info holds fixed-shape scalars, so
that libraries which stack infos into arrays (Tianshou, TorchRL) can: `"net"` (the agent's
money in the hand, in X), `"winner"` (the winning seat, -1 for none) and `"reason"` (how the
hand ended, e.g. `"normal"`, `"instant_win"`). `raw_env(result_info=True)` adds `"result"`, the
whole result as a nested dict with its ledger (lists whose length varies from hand to hand).

### Instant wins

A deal with an instant win (`docs/rules.md`) is decided before anyone plays, but no agent is
terminated at `reset()`: the instant winner is the agent to act, in the Sâm-decision phase
(also when `allow_sam` is off), with exactly one legal move, `decline_sam`
(`sam_env.core.REVEAL_INSTANT_WIN`). That move reveals the win and ends the hand: every other
agent pays the winner, as the rules say, and is terminated with that money in its reward. A
learner at that seat sees a one-move decision (nothing to choose, so nothing for a policy to
learn) and its value; the other agents see the hand end before they act.

### Reset

* `reset(seed=s)`: a new table (the first hand follows `first_leader`).
* `reset()`: the next hand of the same table; the previous winner leads.
* `reset(options={"hands": [[card, …], …], "leader": seat})`: an explicit deal in card
  notation (`"10H"`, `"QS"`), and/or a forced would-be leader.
  Unknown keys are ignored with a warning (PettingZoo's `api_test` sends a dummy option; a typo such
  as `"hand"` still shows); pass `strict_options=True` to the constructor to raise `ValueError`
  instead. A known key with a bad value always raises.

A deal with an instant win is no exception: the instant winner is to act (see above).

### Rendering

`render_mode="ansi"` returns the table as text (every hand shown), `"human"` prints it, and
`"rgb_array"` returns a `uint8[640, 960, 3]` picture of the table seen from `render_seat`
(default 0): its cards face up, the others face down unless `reveal_hands=True`, the play to
beat, who passed, báo 1 and báo Sâm, and each seat's money so far (gymnasium's `RecordVideo`
and PettingZoo's `render_test` take it as it is). Drawing needs Pillow, imported on the first
picture.

### Version history

* v1: no agent is terminated at `reset()`: an instant-win deal waits for the winner's one move
  (`decline_sam`), which settles it; infos hold scalars (`net`, `winner`, `reason`) instead of
  the nested result (`result_info=True` restores it); `render_mode="rgb_array"`. Observations,
  the action table and the rewards of every other deal are those of v0, so trained networks
  keep working (same encoding fingerprint).
* v0: initial release. Later changes that keep every observation, reward and legal move of v0
  (so keep the name): unknown reset-option keys warn instead of raising (`strict_options=True`
  raises); a bool or other non-integer action and `last()` after the hand get clear errors.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from .core.fields import is_number
from .core.game import Hand
from .core.ledger import HandResult, Transfer
from .core.render import render_hand
from .core.rules import RuleConfig
from .core.table import Table
from .core.view import SeatView
from .encoding import ENCODING_VERSION, N_ACTIONS, Encoder
from .order_enforcing import OrderEnforcing

RESET_OPTIONS = ("hands", "leader")


def env(**kwargs: Any) -> AECEnv:
    """The environment with PettingZoo's standard order-enforcing wrapper.

    Illegal actions are not turned into penalties (PettingZoo's ``TerminateIllegalWrapper``):
    they raise :class:`~sam_env.core.IllegalMoveError`, since a rules engine that silently
    accepts a bad move corrupts experiments.
    """
    return OrderEnforcing(raw_env(**kwargs))


class raw_env(AECEnv):
    """Sâm Lốc as a PettingZoo AEC environment (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "human", "rgb_array"],
        "name": "sam_v1",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        rules: RuleConfig | None = None,
        render_mode: str | None = None,
        reward_scale: float = 1.0,
        strict_options: bool = False,
        result_info: bool = False,
        render_seat: int = 0,
        reveal_hands: bool = False,
        encoding_version: int = ENCODING_VERSION,
    ) -> None:
        """``result_info``: the final infos also hold ``"result"``, the nested result with its ledger.
        ``render_seat``, ``reveal_hands``: whose side ``"rgb_array"`` pictures are drawn from, and
        whether the other seats' cards are shown face up. ``encoding_version``: the observation
        encoding (:data:`sam_env.encoding.ENCODING_VERSIONS`; version 2 adds the hand's history)."""
        super().__init__()
        rules = RuleConfig() if rules is None else rules
        if not isinstance(rules, RuleConfig):
            raise TypeError(f"rules must be a sam_env.RuleConfig, got {type(rules).__name__}: {rules!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode={render_mode!r} is not supported; expected None, 'ansi', 'human' or 'rgb_array'"
            )
        if not (is_number(reward_scale) and reward_scale > 0):
            raise ValueError(f"reward_scale={reward_scale!r} must be a finite positive number")
        self.rules = rules
        self.render_mode = render_mode
        self.reward_scale = float(reward_scale)
        if not isinstance(strict_options, bool):
            raise ValueError(f"strict_options={strict_options!r} must be True or False")
        self.strict_options = strict_options
        for name, flag in (("result_info", result_info), ("reveal_hands", reveal_hands)):
            if not isinstance(flag, bool):
                raise ValueError(f"{name}={flag!r} must be True or False")
        self.result_info = result_info
        self.reveal_hands = reveal_hands
        n = rules.n_players
        if isinstance(render_seat, bool) or not isinstance(render_seat, (int, np.integer)) or not 0 <= render_seat < n:
            raise ValueError(f"render_seat={render_seat!r} must be a seat in 0..{n - 1}")
        self.render_seat = int(render_seat)
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents = self.possible_agents[:]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self.encoder = Encoder(n, encoding_version)
        self.encoding_version = self.encoder.version
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (self.encoder.size,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (N_ACTIONS,), dtype=np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = {a: spaces.Discrete(N_ACTIONS) for a in self.possible_agents}
        self.state_space = spaces.Box(0.0, 1.0, (self.encoder.state_size,), dtype=np.float32)
        self.table: Table | None = None
        self.hand: Hand | None = None
        self._ledger_seen = 0
        self._rewards_pending = False
        self._no_mask = np.zeros(N_ACTIONS, dtype=np.int8)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ API

    def reset(self, seed: int | None = None, options: Mapping[str, Any] | None = None) -> None:
        hands, leader = self._parse_options(options)
        table = self.table
        if seed is not None or table is None:
            np_random, np_random_seed = seeding.np_random(seed)
            table = Table(self.rules, np_random)
        hand = table.new_hand(deal=hands, leader=leader)  # a bad deal or leader raises before the env changes
        if table is not self.table:
            self.table, self.np_random, self.np_random_seed = table, np_random, np_random_seed
        self.hand = hand
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._ledger_seen = 0
        self._rewards_pending = False
        self.agent_selection = self.possible_agents[hand.to_act]  # an instant winner included: nothing ends here
        if self.render_mode == "human":
            self.render()

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        hand = self.hand
        hand.step(action)  # raises on an illegal action, before anything of the env has changed
        self._cumulative_rewards[agent] = 0.0
        if self._rewards_pending:
            self._clear_rewards()
            self._rewards_pending = False
        if len(hand.ledger) > self._ledger_seen:
            self._credit_new_transfers()
            self._accumulate_rewards()
        if hand.over:
            self._mark_over(hand.result)
        else:
            self.agent_selection = self.possible_agents[hand.to_act]
        if self.render_mode == "human":
            self.render()

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``last``, with a clear error once every agent has stepped out of the hand."""
        if not self.agents:
            raise RuntimeError(
                "the hand is over and every agent has stepped out of it, so there is no agent to report on; "
                "call reset() for the next hand (read the result in env.unwrapped.result)"
            )
        return super().last(observe)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[agent]
        hand = self.hand
        acting = not hand.over and hand.to_act == seat
        return {
            "observation": self.encoder.observe(hand, seat),
            "action_mask": hand.legal_mask().astype(np.int8) if acting else self._no_mask.copy(),
        }

    def state(self) -> np.ndarray:
        return self.encoder.state(self.hand)

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            warnings.warn(
                "render() called without a render_mode; pass render_mode='ansi', 'human' or 'rgb_array'", stacklevel=2
            )
            return None
        if self.render_mode == "rgb_array":
            return self.render_image(self.render_seat, self.reveal_hands)
        text = render_hand(self.hand)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def render_image(self, seat: int, reveal: bool = False) -> np.ndarray:
        """``uint8[H, W, 3]``: the table seen from ``seat`` (:func:`sam_env.table_image.table_image`)."""
        from .table_image import table_image  # Pillow, on the first picture only

        return table_image(self.hand, seat, reveal)

    def close(self) -> None:
        """Nothing to release: pictures are drawn in memory."""

    # ------------------------------------------------------------------ extras
    # A small documented API for code that drives the environment seat by seat (the single-agent
    # view, bots' harnesses), so that it never reaches into the engine's or the encoder's state.

    @property
    def over(self) -> bool:
        """Whether the current hand has ended (every agent is then terminated)."""
        return self.hand.over

    @property
    def seat_to_act(self) -> int:
        """The seat whose decision the environment waits for (``agent_selection`` as a seat)."""
        return self.hand.to_act

    def legal_mask(self) -> np.ndarray:
        """``bool[N_ACTIONS]``: the legal moves of the seat to act (read-only; copy to keep)."""
        return self.hand.legal_mask()

    def legal_moves(self) -> list[int]:
        """The legal action ids of the seat to act, in increasing order."""
        return self.hand.legal_moves()

    def observation_of(self, seat: int) -> np.ndarray:
        """The observation vector of ``seat`` now, whether or not it is to act."""
        return self.encoder.observe(self.hand, seat)

    @property
    def ledger(self) -> list[Transfer]:
        """Every transfer of the current hand so far (payer, payee, amount in X, reason)."""
        return list(self.hand.ledger)

    @property
    def result(self) -> HandResult | None:
        return self.hand.result

    def seat_view(self, agent: str) -> SeatView:
        """What ``agent`` may know now, as plain domain values (for rule-based bots)."""
        return SeatView.of(self.hand, self._seat[agent])

    def agent_of_seat(self, seat: int) -> str:
        return self.possible_agents[seat]

    def seat_of(self, agent: str) -> int:
        return self._seat[agent]

    # ------------------------------------------------------------------ helpers

    def _credit_new_transfers(self) -> None:
        names, scale = self.possible_agents, self.reward_scale
        for t in self.hand.ledger[self._ledger_seen :]:
            self.rewards[names[t.payer]] -= t.amount * scale
            self.rewards[names[t.payee]] += t.amount * scale
        self._ledger_seen = len(self.hand.ledger)
        self._rewards_pending = True

    def _mark_over(self, result: HandResult) -> None:
        winner = -1 if result.winner is None else result.winner
        summary = result.to_dict() if self.result_info else None
        for a in self.agents:
            self.terminations[a] = True
            self.infos[a] = {"net": result.net[self._seat[a]], "winner": winner, "reason": result.reason.value}
            if summary is not None:
                self.infos[a]["result"] = summary

    def _parse_options(self, options: Mapping[str, Any] | None) -> tuple[Any, int | None]:
        if options is None:
            return None, None
        if not isinstance(options, Mapping):
            raise ValueError(f"reset options must be a dict with keys {list(RESET_OPTIONS)}, got {options!r}")
        unknown = sorted((k for k in options if k not in RESET_OPTIONS), key=repr)  # keys of any type
        if unknown:
            message = f"unknown reset option(s) {unknown}; expected some of {list(RESET_OPTIONS)}"
            if self.strict_options:
                raise ValueError(message)
            warnings.warn(message + " (ignored)", stacklevel=3)
        return options.get("hands"), options.get("leader")
