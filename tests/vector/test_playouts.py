"""``Playouts`` (sam_env.vector.playouts) against ``VectorEnv``, the engine it is built from.

Both deal the same hands and make the same moves; at every step, at every table still in its hand,
they must show the same seat to act, mask, observation and money so far (the ledger's net), and a
hand must end at the same move with the ``HandResult.net`` that ``VectorEnv.results()`` reports.
Copies are checked the same way: a ``VectorEnv`` table that was dealt the same hand and made the
same moves stands in for the copy. ``advance`` is checked against ``VectorEnv`` tables that make
their forced moves one step at a time.
"""

from __future__ import annotations

import numpy as np
import pytest

from sam_env import IllegalMoveError, RuleConfig
from sam_env.core.cards import mask_of
from sam_env.core.deal import random_deal
from sam_env.core.ledger import net_of
from sam_env.core.rules import INSTANT_WIN_TYPES
from sam_env.vector import VectorEnv
from sam_env.vector.playouts import Playouts
from sam_env.vector.reference_check import random_actions, random_rules

FOUR_TWOS = ["2S", "2C", "2D", "2H", "3S", "4S", "5S", "6S", "7S", "8S"]


class Lockstep:
    """``VectorEnv`` tables ``t`` and ``n + t`` are dealt the same hand; ``Playouts`` deals table ``t``
    and makes table ``n + t`` a copy of it after ``copy_at[t]`` moves. Until then both of the
    ``VectorEnv`` pair make the same moves; afterwards each its own."""

    def __init__(self, rules: RuleConfig, seed: int, n: int, forced: bool, encoding_version: int = 1) -> None:
        self.rng = rng = np.random.default_rng(seed)
        self.n, self.forced, self.rules = n, forced, rules
        deals = np.array([random_deal(rules, rng) for _ in range(n)], dtype=np.int64)
        if "four_twos" in rules.instant_wins:  # a deal whose hand is the instant winner's one move
            deals[0] = [mask_of(FOUR_TWOS), *_rest_of_deck(rules, mask_of(FOUR_TWOS), rng)]
        leaders = rng.integers(rules.n_players, size=n)
        self.venv = VectorEnv(2 * n, rules, seed=seed, encoding_version=encoding_version)
        self.play = Playouts(2 * n, rules, encoding_version=encoding_version)
        self.venv.reset(options={"hands": [*deals.tolist()] * 2, "leader": [*leaders.tolist()] * 2})
        self.play.deal(np.arange(n), deals, leaders, observe=True)
        self.copy_at = rng.integers(1, 30, size=n)
        self.live_venv = np.ones(2 * n, dtype=bool)  # in its first hand
        self.live_play = np.arange(2 * n) < n  # dealt or copied, hand not over
        self.tracked = self.live_play.copy()  # dealt or copied
        self.forced_moves = 0
        self.final = np.zeros((2 * n, rules.n_players), dtype=np.int64)
        self.moves = 0
        self.compared = 0
        self.copied_transfers = 0  # transfers (chops) compared at copies whose hand goes on
        self._ended(self.venv.batch.terminated)
        self.live_play &= self.play.n_legal > 0
        if forced:
            self._play_forced_moves()
            self._play_forced_in_playouts_at_deal()

    def _play_forced_in_playouts_at_deal(self) -> None:
        """A dealt table may start on a forced move: ``advance`` only plays those after a move, so the
        test makes them here, as the ``VectorEnv`` side did."""
        while True:
            rows = self.live_play & (self.play.n_legal == 1)
            if not rows.any():
                return
            self.play.step(np.argmax(self.play.action_mask, axis=1), rows, observe=True)
            self.live_play &= self.play.n_legal > 0

    def _ended(self, terminated: np.ndarray) -> None:
        results = self.venv.results()
        for t in np.flatnonzero(terminated & self.live_venv).tolist():
            self.final[t] = results[t][0].result.net
        self.live_venv &= ~terminated

    def _play_forced_moves(self) -> None:
        while True:
            mask = self.venv.batch.action_mask
            rows = self.live_venv & (mask.sum(axis=1) == 1)
            if not rows.any():
                return
            self.forced_moves += int(rows.sum())
            self._ended(self.venv.step(np.argmax(mask, axis=1), active=rows).terminated.copy())

    def step(self) -> None:
        n = self.n
        actions = random_actions(self.rng, self.venv.batch.action_mask)
        twin = np.arange(n)[self.moves < self.copy_at]
        actions[n + twin] = actions[twin]
        batch = self.venv.step(actions, active=self.live_venv.copy())
        self._ended(batch.terminated.copy())
        if self.forced:
            self._play_forced_moves()
            self.play.advance(actions, self.live_play.copy(), observe=True)
        else:
            self.play.step(actions, self.live_play.copy(), observe=True)
        self.live_play &= self.play.n_legal > 0
        self.moves += 1
        copying = np.flatnonzero((self.copy_at == self.moves) & self.live_play[:n])
        self.play.copy(copying, n + copying)
        self.live_play[n + copying] = True
        self.tracked[n + copying] = True

    def compare(self) -> None:
        """Every table the ``Playouts`` play must match its ``VectorEnv`` stand-in."""
        tables = np.flatnonzero(self.tracked)
        over = self.play.n_legal[tables] == 0
        assert np.array_equal(over, ~self.live_venv[tables]), "a hand ended in one engine only"
        net = self.play.net()
        for t in tables.tolist():
            if not self.live_venv[t]:
                assert net[t].tolist() == self.final[t].tolist(), f"table {t}: money of the finished hand"
                continue
            assert self.play.current_seat[t] == self.venv.batch.current_seat[t], f"table {t}: seat to act"
            assert np.array_equal(self.play.action_mask[t], self.venv.batch.action_mask[t]), f"table {t}: mask"
            assert np.array_equal(self.play.observation[t], self.venv.batch.observation[t]), f"table {t}: observation"
            assert self.play.ledger(t) == self.venv.ledger(t), f"table {t}: ledger"
            assert net[t].tolist() == net_of(self.venv.ledger(t), self.rules.n_players), f"table {t}: money"
            self.copied_transfers += len(self.venv.ledger(t)) if t >= self.n else 0
            self.compared += 1

    def run(self, steps: int) -> None:
        self.compare()
        for _ in range(steps):
            if not self.live_venv.any():
                break
            self.step()
            self.compare()


def _rest_of_deck(rules: RuleConfig, first: int, rng: np.random.Generator) -> list[int]:
    """Hands for the other seats from the cards ``first`` does not hold."""
    cards = rng.permutation([c for c in range(52) if not first >> c & 1])
    return [int(sum(1 << int(c) for c in cards[10 * k : 10 * k + 10])) for k in range(rules.n_players - 1)]


@pytest.mark.parametrize("forced", [False, True], ids=["step", "advance"])
@pytest.mark.parametrize("seed", range(6))
def test_playouts_play_as_the_vector_env_under_random_rules(seed: int, forced: bool) -> None:
    rules = random_rules(np.random.default_rng(seed))
    if seed % 2:  # every instant win on, so that the test deals one (it ends at the winner's one move)
        rules = RuleConfig(**{**rules.to_dict(), "instant_wins": frozenset(INSTANT_WIN_TYPES)})
    lockstep = Lockstep(rules, seed, n=16, forced=forced)
    lockstep.run(120)
    assert lockstep.compared > 100 and lockstep.tracked[16:].sum() > 4, "copies were made and played to the end"
    assert not lockstep.live_venv.any(), "every hand ended within the steps run"
    if "four_twos" in rules.instant_wins:
        assert lockstep.final[0].any() and lockstep.play.n_legal[0] == 0, (
            "the instant win was settled at its winner's move"
        )


@pytest.mark.parametrize("forced", [False, True], ids=["step", "advance"])
@pytest.mark.parametrize("seed", range(2))
def test_playouts_write_encoding_version_2_as_the_vector_env(seed: int, forced: bool) -> None:
    """The history block (each opponent's declined plays) is dealt empty, grows with passes and is carried
    by copies, as in the ``VectorEnv`` of version 2 (which the differential test holds to the reference)."""
    rules = random_rules(np.random.default_rng(60 + seed))
    lockstep = Lockstep(rules, seed, n=16, forced=forced, encoding_version=2)
    v1_size = VectorEnv(1, rules).observation_size
    assert lockstep.play.observation.shape[1] > v1_size
    history = 0.0
    lockstep.compare()
    while lockstep.live_venv.any() and lockstep.moves < 120:
        lockstep.step()
        lockstep.compare()
        history += float(lockstep.play.observation[lockstep.live_play, v1_size:].sum())
    assert history > 0, "passes were recorded in the history block"
    assert lockstep.compared > 100 and lockstep.tracked[16:].sum() > 4, "copies were made and played to the end"
    assert not lockstep.live_venv.any(), "every hand ended within the steps run"


def test_copies_carry_the_money_of_the_hand_so_far() -> None:
    """Copies made late in hands, after chops: their ledgers must carry over."""
    lockstep = Lockstep(RuleConfig(), 5, n=160, forced=False)
    lockstep.copy_at = lockstep.rng.integers(10, 40, size=160)
    lockstep.run(200)
    assert lockstep.copied_transfers > 0 and not lockstep.live_venv.any()


def test_advance_stops_only_where_a_seat_has_a_choice() -> None:
    lockstep = Lockstep(RuleConfig(), 3, n=32, forced=True)
    while lockstep.live_venv.any():
        lockstep.step()
        assert (lockstep.play.n_legal[lockstep.live_play] > 1).all()
    assert lockstep.moves > 10 and lockstep.forced_moves > 20, "forced moves were met (and made by advance)"


def test_bad_moves_and_deals_are_refused_and_change_nothing() -> None:
    rules = RuleConfig()
    play = Playouts(2, rules)
    deal = np.array([random_deal(rules, np.random.default_rng(s)) for s in range(2)], dtype=np.int64)
    play.deal(np.arange(2), deal, np.array([0, 1]))
    before = play.net().copy(), play.action_mask.copy()
    illegal = int(np.flatnonzero(~play.action_mask[1])[0])
    with pytest.raises(IllegalMoveError, match="table 1: seat 1 may not play"):
        play.step(np.array([int(np.argmax(play.action_mask[0])), illegal]), np.array([True, True]))
    assert np.array_equal(play.net(), before[0]) and np.array_equal(play.action_mask, before[1])
    for bad, message in (
        (deal[:, :3], "hands must have shape"),
        (np.array([[1, 2, 4, 8]] * 2), "every hand must be 10 cards"),
        (np.array([[deal[0, 0]] * 4, deal[1]]), "a card is dealt twice"),
    ):
        with pytest.raises(ValueError, match=message):
            play.deal(np.arange(2), bad, np.array([0, 1]))
    with pytest.raises(ValueError, match="leaders must be one seat"):
        play.deal(np.arange(2), deal, np.array([0, 4]))
    with pytest.raises(ValueError, match=r"table indices must be in 0\.\.1"):
        play.copy(np.array([0]), np.array([2]))
