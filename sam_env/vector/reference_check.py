"""The differential check: a ``VectorEnv`` and ``sam_env.env()`` driven in lockstep must agree.

Every table of a :class:`~.vector_env.VectorEnv` is shadowed by one AEC environment built on the
reference engine. The AEC envs get the vector engine's deals (``reset(options={"hands": …})``) and
the same actions; at every step the two must show the same seat to act, mask, observations (the
acting seat's, and every seat's on demand), perfect-information state, ledger so far, rewards
per seat, and — when a hand ends — the same :class:`~sam_env.core.HandResult`. Who leads each
hand is left to the reference's own table logic (docs/rules.md §6) and compared, except for the random first
leader, which comes from each engine's own generator.

Used by ``tests/vector/test_differential.py`` (a sample in the suite) and by
``experiments/differential_vector.py`` (a million hands).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..core.combos import DECLARE_SAM, DECLINE_SAM
from ..core.rules import BAO1_CHOICES, FINISH_ON_TWO_CHOICES, FIRST_LEADER_CHOICES, INSTANT_WIN_TYPES, RuleConfig
from ..encoding import UNARY, state_layout
from .results import FinishedHand
from .vector_env import Batch, VectorEnv


class Mismatch(AssertionError):
    """The vector engine and the reference disagree (the message says where and on what)."""


def random_rules(rng: np.random.Generator) -> RuleConfig:
    """A rule configuration with every option and stake drawn at random (stakes include 0)."""
    wins = [w for w in INSTANT_WIN_TYPES if rng.random() < 0.4]
    return RuleConfig(
        n_players=int(rng.integers(2, 6)),
        straights_with_two=bool(rng.random() < 0.5),
        first_leader=str(rng.choice(FIRST_LEADER_CHOICES)),
        bao1=str(rng.choice(BAO1_CHOICES)),
        allow_sam=bool(rng.random() < 0.5),
        instant_wins=frozenset(wins),
        finish_on_two=str(rng.choice(FINISH_ON_TWO_CHOICES)),
        cong_cards=int(rng.choice([10, 15, 20, 0])),
        card_value=int(rng.integers(0, 3)),
        thoi_per_two=int(rng.integers(0, 6)),
        chop_per_two=int(rng.integers(0, 6)),
        chop_per_quad=int(rng.integers(0, 6)),
        sam_unit=int(rng.integers(0, 30)),
        instant_win_unit=int(rng.integers(0, 30)),
    )


def random_actions(rng: np.random.Generator, mask: np.ndarray, declare_probability: float = 0.2) -> np.ndarray:
    """A uniformly random legal action per row, except that Sâm is declared with the given probability
    (uniform play would declare half the time, and most hands would end at the first block)."""
    counts = mask.sum(axis=1)
    picks = np.minimum((rng.random(len(mask)) * counts).astype(np.int64), counts - 1)
    actions = np.argmax(np.cumsum(mask, axis=1) > picks[:, None], axis=1)
    sam = mask[:, DECLARE_SAM]
    actions[sam] = np.where(rng.random(int(sam.sum())) < declare_probability, DECLARE_SAM, DECLINE_SAM)
    return actions


def _hands_offset(n_players: int) -> int:
    """Where the reference state's ``hands`` block starts (every seat's hand, absolute seats)."""
    at = 0
    for name, size in state_layout(n_players):
        if name == "hands":
            return at
        at += size
    raise AssertionError("the state layout has no hands block")


_HANDS_AT = {n: _hands_offset(n) for n in range(2, 6)}


class ShadowTables:
    """One ``sam_env.env()`` per table of ``venv``, kept on the same deals and actions.

    At every step the seat to act, its mask and observation, every seat's rewards and the results of
    finished hands (ledgers included) are compared. Every ``full_every`` steps also every seat's
    observation, the env's own mask, the state, every seat's hidden hands and the running ledger (1: at
    every step).
    """

    def __init__(self, venv: VectorEnv, full_every: int = 1) -> None:
        import sam_env  # the AEC env: only this checker needs pettingzoo

        self.venv = venv
        self.full_every = full_every
        self.steps = 0
        version = venv.encoding_version
        self.envs = [sam_env.env(rules=venv.rules, encoding_version=version) for _ in range(venv.num_tables)]
        self._fresh = [True] * venv.num_tables
        self._forced: list[int | None] = [None] * venv.num_tables
        """A leader given to ``reset``: it applies to the first hand dealt there."""
        self.hands = 0
        self.decisions = 0

    # ------------------------------------------------------------------ driving both

    def reset(self, seed: int | None = None, options: dict[str, list] | None = None) -> Batch:
        """Reset the vector env (``options`` as for :meth:`VectorEnv.reset`) and the shadows to its deals."""
        batch = self.venv.reset(seed=seed, options=options)
        if seed is not None:
            self._fresh = [True] * self.venv.num_tables
        forced = (options or {}).get("leader") or [None] * self.venv.num_tables
        self._check(not batch.terminated.any(), int(np.argmax(batch.terminated)), "a hand ended at reset", True, False)
        for t in range(self.venv.num_tables):
            self._forced[t] = forced[t]
            self._check(not batch.rewards[t].any(), t, "rewards at reset", batch.rewards[t], 0)
            self._start_current(t)
        self.compare(batch)
        return batch

    def step(self, batch: Batch, actions: np.ndarray) -> Batch:
        batch = self.venv.step(actions)
        self.decisions += len(actions)
        self.steps += 1
        results = self.venv.results()
        for t, env in enumerate(self.envs):
            env.step(int(actions[t]))
            raw = env.unwrapped
            expected = np.array([raw.rewards[a] for a in raw.possible_agents])
            finished = results.get(t, [])
            self._check(len(finished) <= 1, t, "hands ended in one step", len(finished), 1)
            if finished:
                self._check_result(t, finished[0])
                self._start_current(t)
            else:
                self._check(not raw.over, t, "hand over", False, raw.result)
            self._check(np.array_equal(batch.rewards[t], expected), t, "rewards", batch.rewards[t], expected)
        self.compare(batch)
        return batch

    def run(self, steps: int, rng: np.random.Generator, on_step: Callable[[int], None] | None = None) -> None:
        """Random play for ``steps`` batch steps (reset first), comparing everything at every step."""
        batch = self.reset(seed=int(rng.integers(2**31)))
        for _ in range(steps):
            before = self.hands
            batch = self.step(batch, random_actions(rng, batch.action_mask))
            if on_step is not None:
                on_step(self.hands - before)

    # ------------------------------------------------------------------ comparisons

    def compare(self, batch: Batch) -> None:
        """The acting seat, mask and observation of every table; every ``full_every`` steps all of it."""
        venv, n = self.venv, self.venv.n_players
        raws = [env.unwrapped for env in self.envs]
        seats = np.array([raw.seat_to_act for raw in raws])
        self._check_all(batch.current_seat, seats, "current seat")
        obs = np.stack([raw.observation_of(s) for raw, s in zip(raws, seats.tolist(), strict=True)])
        self._check_all(batch.observation, obs, "observation of the acting seat")
        masks = np.stack([raw.legal_mask() for raw in raws])
        self._check_all(batch.action_mask, masks, "action mask")
        if self.steps % self.full_every:
            return
        for t, env in enumerate(self.envs):
            agent_mask = env.observe(env.agent_selection)["action_mask"]
            same = np.array_equal(agent_mask, batch.action_mask[t])
            self._check(same, t, "env mask", batch.action_mask[t], agent_mask)
        for s in range(n):
            want = np.stack([env.observe(f"player_{s}")["observation"] for env in self.envs])
            self._check_all(venv.observe(s), want, f"observation of seat {s}")
        state = np.stack([env.state() for env in self.envs])
        self._check_all(venv.state(), state, "state")
        at = _HANDS_AT[n]
        hands = state[:, at : at + n * UNARY].reshape(len(self.envs), n, UNARY)  # absolute seats
        for s in range(n):
            want = hands[:, [(s + k) % n for k in range(1, n)]].reshape(len(self.envs), -1)
            self._check_all(venv.hidden_hands(s), want, f"hidden hands of seat {s}")
        for t, raw in enumerate(raws):
            got, want = venv.ledger(t), raw.ledger
            self._check(got == want, t, "ledger so far", got, want)

    def _check_result(self, t: int, hand: FinishedHand) -> None:
        raw = self.envs[t].unwrapped
        self._check(raw.over, t, "hand over", True, False)
        self._check(hand.result == raw.result, t, "result", hand.result, raw.result)
        ref = raw.hand  # the deal and the leader: no public accessor on the env
        self._check(hand.deal == ref.dealt, t, "deal", hand.deal, ref.dealt)
        self._check(hand.leader == ref.leader, t, "leader", hand.leader, ref.leader)
        self.hands += 1

    def _start_current(self, t: int) -> None:
        venv = self.venv
        self._start_hand(t, tuple(venv.dealt()[t].tolist()), int(venv.leaders()[t]))
        raw = self.envs[t].unwrapped
        self._check(not raw.over, t, "the new hand is playable", True, raw.result)
        leader = raw.hand.leader
        self._check(leader == venv.leaders()[t], t, "leader of the new hand", venv.leaders()[t], leader)

    def _start_hand(self, t: int, deal: tuple[int, ...], leader: int) -> None:
        options: dict[str, object] = {"hands": list(deal)}
        if self._forced[t] is not None:
            options["leader"] = self._forced[t]
        elif self._fresh[t] and self.venv.rules.first_leader == "random":
            options["leader"] = leader  # drawn from each engine's own generator: not comparable
        self._forced[t] = None
        self.envs[t].reset(seed=0 if self._fresh[t] else None, options=options)
        self._fresh[t] = False

    def _check_all(self, got: np.ndarray, want: np.ndarray, what: str) -> None:
        if not np.array_equal(got, want):
            rows = np.flatnonzero((np.asarray(got) != np.asarray(want)).reshape(len(got), -1).any(axis=1))
            t = int(rows[0])
            self._check(False, t, what, got[t], want[t])

    def _check(self, ok: bool, t: int, what: str, got: object, want: object) -> None:
        if ok:
            return
        if isinstance(got, np.ndarray) and isinstance(want, np.ndarray) and got.shape == want.shape:
            where = np.flatnonzero(got != want)[:10]
            detail = f"differs at {where.tolist()}: vector {got[where].tolist()}, reference {want[where].tolist()}"
        else:
            detail = f"vector {got!r}, reference {want!r}"
        history = self.envs[t].unwrapped.hand.history
        raise Mismatch(f"table {t} ({self.venv.rules}): {what} {detail}; moves of the hand: {history}")
