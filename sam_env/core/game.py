"""One hand of Sâm Lốc as a state machine: whose turn, what is legal, what a move does.

The state is a handful of small integers and lists (card masks per seat, the play to beat, pass
flags, the chop chain) so that a step costs a few microseconds. Legal moves are a boolean mask
over the combination table of :mod:`.combos`, computed once per decision and cached. The rules it
plays are those of docs/rules.md; a "§N" below names a section of that page.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np

from .cards import N_RANKS, NIBBLE_POPCOUNT, Rank, format_cards, unary_of_cards
from .combos import (
    COMBOS,
    DECLARE_SAM,
    DECLINE_SAM,
    IS_QUAD,
    LINE_RANKS,
    N_COMBOS,
    PASS,
    SINGLE_RANK,
    TWOS_CHOPPED,
    Kind,
    formable_combos,
)
from .deal import instant_win_type
from .ledger import EndReason, HandResult, Reason, Transfer, net_of
from .rule_masks import rule_masks
from .rules import INSTANT_WIN_TYPES, RuleConfig

NO_PLAY = -1
"""``table_combo`` when the trick is open for a free lead."""

REVEAL_INSTANT_WIN = DECLINE_SAM
"""The one legal move of a seat dealt an instant win (§9): it reveals the hand, which ends with its settlement.

An instant win is decided at the deal, but the hand waits for this move so that an environment
never starts an episode that is already over (every agent terminated at ``reset``, which
PettingZoo's checks and its clients refuse). The winner is asked first, in the Sâm-decision
phase (also when ``allow_sam`` is off): an instant win outranks Sâm, so declining is its only answer.
"""


class Phase(IntEnum):
    SAM_DECISION = 0  # seats are asked, in turn, to báo Sâm or not (§8)
    PLAY = 1
    OVER = 2


class IllegalMoveError(ValueError):
    """A move that the seat to act may not make now."""


def _lowest_bits(nibble: int, k: int) -> int:
    """The ``k`` lowest suits of a rank's 4 suit bits: the cards that leave when ``k`` of that rank are played."""
    out = 0
    for _ in range(k):
        low = nibble & -nibble
        out |= low
        nibble ^= low
    return out


_TAKE = tuple(tuple(_lowest_bits(n, k) for k in range(5)) for n in range(16))
_UNARY = tuple((1 << c) - 1 for c in range(5))
_NEEDS = tuple(c.needs for c in COMBOS)
_SIZE = tuple(c.size for c in COMBOS)
_ONLY_TWOS = tuple(c.only_twos for c in COMBOS)
_TWOS = tuple(c.twos for c in COMBOS)
_SINGLE_RANK = tuple(int(r) for r in SINGLE_RANK)
_TWOS_CHOPPED = tuple(int(x) for x in TWOS_CHOPPED)
_IS_QUAD = tuple(bool(x) for x in IS_QUAD)
_REVEAL_MASK = np.zeros(N_COMBOS, dtype=bool)
_REVEAL_MASK[REVEAL_INSTANT_WIN] = True
_REVEAL_MASK.flags.writeable = False
_SINGLES_BELOW = np.zeros((N_RANKS + 1, N_COMBOS), dtype=bool)
for _r in range(N_RANKS + 1):
    _SINGLES_BELOW[_r] = (SINGLE_RANK >= 0) & (SINGLE_RANK < _r)

DECLINED_KINDS = (Kind.SINGLE, Kind.PAIR, Kind.TRIPLE, Kind.STRAIGHT)
"""The kinds of play whose declines :attr:`Hand.declined` records (quads are rarely there to decline)."""
DECLINED_KEYS = len(LINE_RANKS)
"""Keys of a declined play: a rank (0–12) for same-rank kinds, the highest line position (2–13) for straights."""
DECLINE_BITS: tuple[int, ...] = tuple(
    (((1 << DECLINED_KEYS) - 1) ^ ((1 << c.key) - 1)) << (DECLINED_KEYS * DECLINED_KINDS.index(c.kind))
    if c.kind in DECLINED_KINDS
    else 0
    for c in COMBOS
)
"""Per combination: the bits a seat that passes on it gets in :attr:`Hand.declined`: its kind's keys from its own up."""


class Hand:
    """A single hand ("ván") from the deal to the settlement.

    Build one with :meth:`sam_env.core.table.Table.new_hand` (which picks the leader), or directly
    from validated card masks and the would-be leader. Read the public attributes; change the
    state only through :meth:`step`.
    """

    def __init__(self, rules: RuleConfig, cards: list[int], leader: int) -> None:
        n = rules.n_players
        self.rules = rules
        self.n_players = n
        self.leader = leader
        """The would-be leader of §6, who is asked first about Sâm."""
        self.dealt: tuple[int, ...] = tuple(cards)
        self.cards: list[int] = list(cards)
        """Each seat's cards now (a card mask per seat; the hand itself is the whole round, "ván")."""
        self.unary: list[int] = [unary_of_cards(h) for h in cards]
        self.n_cards: list[int] = [h.bit_count() for h in cards]
        self.played: list[int] = [0] * n
        self.played_unary: list[int] = [0] * n
        """Rank counts of ``played`` in unary form (:func:`.cards.unary_of_cards`; for observations)."""
        self.all_played: int = 0
        """Every card played this hand, by any seat (the union of ``played``; for observations)."""
        self.n_played: list[int] = [0] * n
        self.out: list[bool] = [False] * n
        """Seats that finished on 2s under ``lose_and_continue`` and left the hand as losers."""
        self.sam_declarer: int | None = None
        self.table_combo: int = NO_PLAY
        self.table_owner: int = leader
        self.passed: list[bool] = [False] * n
        self.declined: list[int] = [0] * n
        """Per seat, the plays it has passed on this hand, as bits (:data:`DECLINE_BITS`): for each of
        :data:`DECLINED_KINDS`, :data:`DECLINED_KEYS` bits, set from the lowest key it declined upwards.
        A seat that would not beat a single 9 probably holds no single above it (or keeps it): the history
        of a hand that observations of encoding version 2 show."""
        self.chain: list[int] = [0] * n
        """Chop money each seat has received in the current trick (for chặt đè)."""
        self.ledger: list[Transfer] = []
        self.history: list[tuple[int, int]] = []
        """Every move so far as ``(seat, combo id)``."""
        self.result: HandResult | None = None
        self._masks = rule_masks(rules)
        self._mask: np.ndarray | None = None
        self._formable: list[np.ndarray | None] = [None] * n
        """Per seat: the combinations its cards can form; changes only when the seat plays."""
        self._undersized_by: int | None = None
        self.finished_on_two: list[int] = []
        """Seats whose last play was only 2s (§11), in order."""
        self._final_twos: list[int] = [0] * n
        self._sam_asked = 0
        self.instant_winner: int | None = None
        """The seat dealt an instant win (§9): it acts first, and its one legal move
        (:data:`REVEAL_INSTANT_WIN`) ends the hand with the instant win's settlement."""
        self.instant_win: str | None = None
        """The kind of that instant win (``"four_twos"``, …)."""
        self.to_act = leader
        self.phase = Phase.SAM_DECISION if rules.allow_sam else Phase.PLAY
        self._check_instant_wins()

    # ------------------------------------------------------------------ queries

    @property
    def over(self) -> bool:
        return self.phase is Phase.OVER

    def legal_mask(self) -> np.ndarray:
        """``bool[N_COMBOS]`` of the moves the seat to act may make (read-only, cached)."""
        if self._mask is None:
            self._mask = self._compute_mask()
        return self._mask

    def legal_moves(self) -> list[int]:
        return np.flatnonzero(self.legal_mask()).tolist()

    def responsible(self, seat: int) -> bool:
        """Whether ``seat`` is the upper seat of a one-card seat (báo 1, §7) outside a Sâm hand."""
        if self.sam_declarer is not None:
            return False
        nxt = self.next_in_hand(seat)
        return nxt != seat and self.n_cards[nxt] == 1

    def highest_rank(self, seat: int) -> int:
        return (self.unary[seat].bit_length() - 1) >> 2

    def next_in_hand(self, seat: int) -> int:
        """The next seat in turn order that is still in the hand."""
        n = self.n_players
        for k in range(1, n + 1):
            t = (seat + k) % n
            if not self.out[t]:
                return t
        return seat

    def twos_held(self, seat: int) -> int:
        return NIBBLE_POPCOUNT[(self.cards[seat] >> (4 * Rank.TWO)) & 0xF]

    def chain_value(self) -> int:
        """What the owner of the play on the table would pay if it were chopped now."""
        t = self.table_combo
        if t == NO_PLAY or not (_TWOS_CHOPPED[t] or _IS_QUAD[t]):
            return 0
        return self._chop_value(t) + self.chain[self.table_owner]

    def net(self) -> list[int]:
        return net_of(self.ledger, self.n_players)

    # ------------------------------------------------------------------ moves

    def step(self, move: int) -> None:
        """Make ``move`` (a combination id) for the seat to act; raise on an illegal move."""
        mask = self.legal_mask()
        if isinstance(move, bool) or not (isinstance(move, (int, np.integer)) and 0 <= move < N_COMBOS and mask[move]):
            self._reject(move)
        move = int(move)
        seat = self.to_act
        self._mask = None
        self.history.append((seat, move))
        if self.instant_winner is not None:
            self._reveal_instant_win(seat)
        elif self.phase is Phase.SAM_DECISION:
            self._sam_decision(seat, move)
        elif move == PASS:
            self._undersized_by = None
            self.passed[seat] = True
            self.declined[seat] |= DECLINE_BITS[self.table_combo]
            self._advance(seat)
        else:
            self._play(seat, move)

    def _reject(self, move: object) -> None:
        if self.over:
            raise IllegalMoveError(f"the hand is over ({self.result.reason.value}); no move {move!r} can be made")
        legal = ", ".join(COMBOS[i].name for i in self.legal_moves())
        if isinstance(move, (bool, np.bool_)) or not isinstance(move, (int, np.integer)):
            if move is None:
                kind = "None, which only an agent whose hand is over steps"
            else:
                kind = "a bool" if isinstance(move, (bool, np.bool_)) else f"a {type(move).__name__}"
            raise IllegalMoveError(
                f"illegal move: {move!r} is {kind}, not an action; an action is an int id in 0..{N_COMBOS - 1}"
                f" (sam_env.action_index(name) gives one); legal moves: {legal}"
            )
        what = COMBOS[move].name if isinstance(move, (int, np.integer)) and 0 <= move < N_COMBOS else repr(move)
        if isinstance(move, (int, np.integer)) and 0 <= move < N_COMBOS:
            held = format_cards(self.cards[self.to_act])
            detail = f"seat {self.to_act} (holding {held}) may not play {what} now"
        else:
            detail = f"move {what} is not a combination id in 0..{N_COMBOS - 1}"
        raise IllegalMoveError(f"illegal move: {detail}; legal moves: {legal}")

    def _sam_decision(self, seat: int, move: int) -> None:
        if move == DECLARE_SAM:
            self.sam_declarer = seat
            self._start_play(seat)
            return
        self._sam_asked += 1
        if self._sam_asked == self.n_players:
            self._start_play(self.leader)
        else:
            self.to_act = (seat + 1) % self.n_players

    def _start_play(self, leader: int) -> None:
        self.phase = Phase.PLAY
        self.table_owner = leader
        self.to_act = leader

    def _play(self, seat: int, move: int) -> None:
        pending_undersized = self._undersized_by
        self._undersized_by = None
        rank = _SINGLE_RANK[move]
        if rank >= 0 and self.rules.bao1 == "penalty" and rank < self.highest_rank(seat) and self.responsible(seat):
            self._undersized_by = seat
        self._remove_cards(seat, move)
        table, owner = self.table_combo, self.table_owner
        if self.sam_declarer is not None and seat != self.sam_declarer:
            self._transfer(self.sam_declarer, seat, self.rules.sam_unit * (self.n_players - 1), Reason.SAM_BLOCKED)
            self._end(EndReason.SAM_BLOCKED, winner=seat, next_leader=seat, sam_blocker=seat)
            return
        if table != NO_PLAY and (_TWOS_CHOPPED[table] or _IS_QUAD[table]):
            value = self._chop_value(table) + self.chain[owner]
            self._transfer(owner, seat, value, Reason.CHOP)
            self.chain[seat] += value
        self.table_combo, self.table_owner = move, seat
        if self.n_cards[seat] == 0:
            responsible = None
            if pending_undersized is not None and seat == self.next_in_hand(pending_undersized):
                responsible = pending_undersized
            self._finish(seat, move, responsible)
        else:
            self._advance(seat)

    def _remove_cards(self, seat: int, move: int) -> None:
        cards, unary, played, played_unary = (
            self.cards[seat],
            self.unary[seat],
            self.played[seat],
            self.played_unary[seat],
        )
        for r, k in _NEEDS[move]:
            shift = 4 * r
            nib = (cards >> shift) & 0xF
            taken = _TAKE[nib][k] << shift
            cards ^= taken
            c = NIBBLE_POPCOUNT[nib]
            unary -= (_UNARY[c] - _UNARY[c - k]) << shift
            p = NIBBLE_POPCOUNT[(played >> shift) & 0xF]
            played_unary += (_UNARY[p + k] - _UNARY[p]) << shift
            played |= taken
        self.cards[seat], self.unary[seat] = cards, unary
        self._formable[seat] = None
        self.played[seat], self.played_unary[seat] = played, played_unary
        self.all_played |= played
        size = _SIZE[move]
        self.n_cards[seat] -= size
        self.n_played[seat] += size

    def _advance(self, seat: int) -> None:
        """Pass the turn on; close the trick when the turn comes back round to its owner."""
        n, owner = self.n_players, self.table_owner
        for k in range(1, n + 1):
            t = (seat + k) % n
            if t == owner:
                leader = owner if not self.out[owner] else self.next_in_hand(owner)
                self.table_combo = NO_PLAY
                self.table_owner = leader
                self.passed = [False] * n
                self.chain = [0] * n
                self.to_act = leader
                return
            if not self.out[t] and not self.passed[t]:
                self.to_act = t
                return
        raise AssertionError("unreachable: the turn always reaches the owner of the trick")

    def _finish(self, seat: int, move: int, responsible: int | None) -> None:
        rules, n = self.rules, self.n_players
        others = [s for s in range(n) if s != seat]
        if seat == self.sam_declarer:
            if _ONLY_TWOS[move]:
                for o in others:
                    self._transfer(seat, o, rules.sam_unit, Reason.SAM_FAILED)
                self._end(EndReason.SAM_FAILED, winner=None, next_leader=seat)
            else:
                for o in others:
                    self._transfer(o, seat, rules.sam_unit, Reason.SAM_WON)
                self._end(EndReason.SAM_WON, winner=seat, next_leader=seat)
            return
        if _ONLY_TWOS[move]:
            if rules.finish_on_two == "pay_played":
                for o in others:
                    self._transfer(seat, o, rules.card_value * self.n_played[o], Reason.FINISH_ON_TWO)
                self.finished_on_two.append(seat)
                self._end(EndReason.FINISH_ON_TWO, winner=None, next_leader=seat)
                return
            self.out[seat] = True
            self.finished_on_two.append(seat)
            self._final_twos[seat] = _TWOS[move]
            remaining = [s for s in range(n) if not self.out[s]]
            if len(remaining) == 1:
                self._settle(remaining[0], None)
            else:
                self._advance(seat)
            return
        self._settle(seat, responsible)

    def _settle(self, winner: int, responsible: int | None) -> None:
        """Normal settlement (§10), the responsibility rule (§7) and offenders of §11."""
        rules = self.rules
        owed: list[tuple[int, int, Reason]] = []
        for s in range(self.n_players):
            if s == winner or self.out[s]:
                continue
            if self.n_played[s] == 0:
                owed.append((s, rules.cong_cards * rules.card_value, Reason.CONG))
            else:
                owed.append((s, self.n_cards[s] * rules.card_value, Reason.CARDS))
                owed.append((s, self.twos_held(s) * rules.thoi_per_two, Reason.THOI_2))
        if responsible is not None:
            self._transfer(responsible, winner, sum(a for _, a, _ in owed), Reason.RESPONSIBILITY)
        else:
            for payer, amount, reason in owed:
                self._transfer(payer, winner, amount, reason)
        for s in self.finished_on_two:
            self._transfer(s, winner, self._final_twos[s] * rules.thoi_per_two, Reason.FINISH_ON_TWO)
        self._end(EndReason.NORMAL, winner=winner, next_leader=winner, responsible=responsible)

    def _check_instant_wins(self) -> None:
        if not self.rules.instant_wins:
            return
        best: tuple[int, int, str] | None = None
        for k in range(self.n_players):
            seat = (self.leader + k) % self.n_players
            kind = instant_win_type(self.rules, self.cards[seat], self.unary[seat])
            if kind is not None:
                order = INSTANT_WIN_TYPES.index(kind)
                if best is None or order < best[0]:
                    best = (order, seat, kind)
        if best is None:
            return
        _, seat, self.instant_win = best
        self.instant_winner = self.to_act = seat
        self.phase = Phase.SAM_DECISION

    def _reveal_instant_win(self, seat: int) -> None:
        """The instant winner's one move: every other seat pays it (§9) and the hand ends."""
        for o in range(self.n_players):
            if o != seat:
                self._transfer(o, seat, self.rules.instant_win_unit, Reason.INSTANT_WIN)
        self._end(EndReason.INSTANT_WIN, winner=seat, next_leader=seat, instant_win=self.instant_win)

    # ------------------------------------------------------------------ helpers

    def _compute_mask(self) -> np.ndarray:
        if self.phase is Phase.OVER:
            return self._masks.no_moves
        if self.phase is Phase.SAM_DECISION:
            return self._masks.sam_mask if self.instant_winner is None else _REVEAL_MASK
        seat = self.to_act
        can_form = self._formable[seat]
        if can_form is None:
            can_form = self._formable[seat] = formable_combos(self.unary[seat])
        mask = can_form & self._masks.answers[self.table_combo + 1]
        if self.rules.bao1 == "forced" and self.responsible(seat):
            mask &= ~_SINGLES_BELOW[self.highest_rank(seat)]
        mask.flags.writeable = False  # cached and trusted by step(): callers must not edit it
        return mask

    def _chop_value(self, table: int) -> int:
        return self.rules.chop_per_two * _TWOS_CHOPPED[table] + self.rules.chop_per_quad * _IS_QUAD[table]

    def _transfer(self, payer: int, payee: int, amount: int, reason: Reason) -> None:
        if amount:
            self.ledger.append(Transfer(payer, payee, amount, reason))

    def _end(self, reason: EndReason, winner: int | None, next_leader: int, **extra: object) -> None:
        self.phase = Phase.OVER
        self._mask = None
        self.result = HandResult(
            reason=reason,
            winner=winner,
            next_leader=next_leader,
            ledger=tuple(self.ledger),
            net=tuple(self.net()),
            sam_declarer=self.sam_declarer,
            finished_on_two=tuple(self.finished_on_two),
            **extra,
        )
