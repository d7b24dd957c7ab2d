"""An independent, deliberately plain model of one hand of Sâm Lốc, written from docs/rules.md.

It shares nothing with ``sam_env.core`` but the card ids (``rank * 4 + suit``) and the action
names: plays are found by enumerating every sub-multiset of a hand's ranks and classifying it,
beating follows the words of §4, and turns, tricks, chops and settlement are recomputed from
scratch. The property tests step it side by side with the engine and compare everything.

It also carries the engine's documented choices where docs/rules.md is silent: no báo 1 in a Sâm hand;
no winner after a ``pay_played`` finish or a failed Sâm (the offender or declarer leads next); under
``lose_and_continue`` the last seat standing wins, chop money on an offender's final 2s applies and
the offender's own penalty is never moved onto a responsible seat; responsibility needs the one-card
seat's very next action to be its winning play.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from functools import lru_cache

RANKS = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")
TWO, ACE = 12, 11
LINE = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
WORDS = {1: "single", 2: "pair", 3: "triple", 4: "quad"}
INSTANT_ORDER = ("dragon", "four_twos", "same_colour", "three_triples", "five_pairs")


@dataclass(frozen=True)
class Play:
    kind: str  # single, pair, triple, quad, straight, double_quad
    size: int
    high: int  # the rank (same-rank kinds), the highest line position (straights), the higher quad
    rank: int  # the rank of a same-rank play, else -1
    twos: int  # 2s in the play
    name: str
    counts: tuple[int, ...]  # how many cards of each rank it takes


def _line_positions(ranks: list[int], ace_at: int) -> list[int]:
    out = []
    for r in ranks:
        if r == ACE:
            out.append(ace_at)
        elif r == TWO:
            out.append(1)
        else:
            out.append(r + 2)  # 3 -> 2, …, K -> 12
    return sorted(out)


def classify(counts: tuple[int, ...]) -> Play | None:
    """What combination a multiset of ranks is (docs/rules.md §3), or None."""
    ranks = [r for r in range(13) if counts[r]]
    size = sum(counts)
    twos = counts[TWO]
    if len(ranks) == 1:
        r = ranks[0]
        return Play(WORDS[size], size, r, r, twos, f"{WORDS[size]}:{RANKS[r]}", counts)
    if len(ranks) == 2 and all(counts[r] == 4 for r in ranks):
        lo, hi = ranks
        return Play("double_quad", 8, hi, -1, twos, f"double_quad:{RANKS[lo]}+{RANKS[hi]}", counts)
    if 3 <= size <= 10 and all(counts[r] == 1 for r in ranks):
        for ace_at in (0, 13):
            pos = _line_positions(ranks, ace_at)
            if pos == list(range(pos[0], pos[0] + size)):
                name = f"straight:{LINE[pos[0]]}-{LINE[pos[-1]]}"
                return Play("straight", size, pos[-1], -1, twos, name, counts)
    return None


@lru_cache(maxsize=1 << 16)
def plays_of(counts: tuple[int, ...]) -> dict[str, Play]:
    """Every combination a hand with these rank counts can form, by brute force over sub-multisets."""
    out = {}
    for sub in itertools.product(*(range(c + 1) for c in counts)):
        if any(sub):
            p = classify(sub)
            if p is not None:
                out[p.name] = p
    return out


def beats(p: Play, t: Play) -> bool:
    """docs/rules.md §4, word for word."""
    if p.kind == t.kind and p.size == t.size and p.kind != "double_quad":
        return p.high > t.high
    if p.kind == "quad" and t.kind == "single" and t.rank == TWO:
        return True
    return p.kind == "double_quad" and t.kind == "pair" and t.rank == TWO


def instant_type(cards: list[int], enabled: frozenset[str], straights_with_two: bool) -> str | None:
    counts = [0] * 13
    for c in cards:
        counts[c // 4] += 1
    suits = {c % 4 for c in cards}
    p = classify(tuple(counts))
    found = {
        "dragon": p is not None and p.kind == "straight" and p.size == 10 and (straights_with_two or p.twos == 0),
        "four_twos": counts[TWO] == 4,
        "same_colour": suits <= {0, 1} or suits <= {2, 3},
        "three_triples": sum(c >= 3 for c in counts) >= 3,
        "five_pairs": sum(c // 2 for c in counts) >= 5,
    }
    for kind in INSTANT_ORDER:
        if kind in enabled and found[kind]:
            return kind
    return None


@dataclass
class Outcome:
    reason: str
    winner: int | None
    next_leader: int
    responsible: int | None = None
    sam_blocker: int | None = None
    instant_win: str | None = None


@dataclass
class RefHand:
    rules: object
    dealt: list[list[int]]
    leader: int
    counts: list[list[int]] = field(init=False)
    ledger: list[tuple[int, int, int, str]] = field(default_factory=list)
    outcome: Outcome | None = None

    def __post_init__(self) -> None:
        r = self.rules
        self.n = r.n_players
        self.counts = [[0] * 13 for _ in range(self.n)]
        for s, cards in enumerate(self.dealt):
            for c in cards:
                self.counts[s][c // 4] += 1
        self.played = [0] * self.n
        self.out = [False] * self.n
        self.offenders: list[tuple[int, int]] = []
        self.passed = [False] * self.n
        self.table: Play | None = None
        self.owner = self.leader
        self.received = [0] * self.n
        self.declarer: int | None = None
        self.asked = 0
        self.last_undersized_by: int | None = None
        self.phase = "sam" if r.allow_sam else "play"
        self.to_act = self.leader
        best = None
        for k in range(self.n):
            seat = (self.leader + k) % self.n
            kind = instant_type(self.dealt[seat], r.instant_wins, r.straights_with_two)
            if kind is not None and (best is None or INSTANT_ORDER.index(kind) < INSTANT_ORDER.index(best[1])):
                best = (seat, kind)
        self.instant = best
        if best is not None:  # the winner acts first; its one move, decline_sam, reveals the instant win
            self.phase, self.to_act = "sam", best[0]

    # ---------------------------------------------------------------- queries

    def cards(self, seat: int) -> int:
        return sum(self.counts[seat])

    def next_in_hand(self, seat: int) -> int:
        for k in range(1, self.n + 1):
            t = (seat + k) % self.n
            if not self.out[t]:
                return t
        return seat

    def upper_of_one_card_seat(self, seat: int) -> bool:
        """§7: ``seat`` sits right before a seat holding one card (not in a Sâm hand)."""
        if self.declarer is not None:
            return False
        nxt = self.next_in_hand(seat)
        return nxt != seat and self.cards(nxt) == 1

    def highest_rank(self, seat: int) -> int:
        return max(r for r in range(13) if self.counts[seat][r])

    def legal(self) -> set[str]:
        if self.phase == "over":
            return set()
        if self.phase == "sam":
            return {"decline_sam"} if self.instant is not None else {"declare_sam", "decline_sam"}
        seat = self.to_act
        plays = plays_of(tuple(self.counts[seat]))
        out = set()
        for name, p in plays.items():
            if p.kind == "straight" and p.twos and not self.rules.straights_with_two:
                continue
            if self.table is None:
                if p.kind != "double_quad":
                    out.add(name)
            elif beats(p, self.table):
                out.add(name)
        if self.rules.bao1 == "forced" and self.upper_of_one_card_seat(seat):
            top = self.highest_rank(seat)
            out = {m for m in out if not (plays[m].kind == "single" and plays[m].rank < top)}
        if self.table is not None:
            out.add("pass")
        return out

    # ---------------------------------------------------------------- moves

    def step(self, name: str) -> None:
        if name not in self.legal():
            raise ValueError(f"reference: {name} is not legal for seat {self.to_act}")
        seat = self.to_act
        if self.instant is not None:
            kind = self.instant[1]
            for o in range(self.n):
                if o != seat:
                    self._pay(o, seat, self.rules.instant_win_unit, "instant_win")
            self._end(Outcome("instant_win", seat, seat, instant_win=kind))
            return
        if self.phase == "sam":
            if name == "declare_sam":
                self.declarer = seat
                self.phase = "play"
                self.owner = seat
                return
            self.asked += 1
            if self.asked == self.n:
                self.phase = "play"
                self.to_act = self.owner = self.leader
            else:
                self.to_act = (seat + 1) % self.n
            return
        undersized_before = self.last_undersized_by
        self.last_undersized_by = None
        if name == "pass":
            self.passed[seat] = True
            self._next_turn(seat)
            return
        p = plays_of(tuple(self.counts[seat]))[name]
        undersized = (
            p.kind == "single"
            and self.rules.bao1 == "penalty"
            and self.upper_of_one_card_seat(seat)
            and p.rank < self.highest_rank(seat)
        )
        self._remove(seat, p)
        if self.declarer is not None and seat != self.declarer:
            self._pay(self.declarer, seat, self.rules.sam_unit * (self.n - 1), "sam_blocked")
            self._end(Outcome("sam_blocked", seat, seat, sam_blocker=seat))
            return
        t = self.table
        if t is not None and ((t.kind in ("single", "pair") and t.rank == TWO) or t.kind == "quad"):
            # A chop (§4): the chopped play's value — even when that stake is 0 — plus the chain.
            value = self.rules.chop_per_two * t.size if t.kind != "quad" else self.rules.chop_per_quad
            value += self.received[self.owner]
            self._pay(self.owner, seat, value, "chop")
            self.received[seat] += value
        self.table, self.owner = p, seat
        if undersized:
            self.last_undersized_by = seat
        if self.cards(seat) == 0:
            responsible = None
            if undersized_before is not None and self.next_in_hand(undersized_before) == seat:
                responsible = undersized_before
            self._finish(seat, p, responsible)
        else:
            self._next_turn(seat)

    def _remove(self, seat: int, p: Play) -> None:
        for r in range(13):
            assert self.counts[seat][r] >= p.counts[r]
            self.counts[seat][r] -= p.counts[r]
        self.played[seat] += p.size

    def _next_turn(self, seat: int) -> None:
        others = [s for s in range(self.n) if s != self.owner and not self.out[s]]
        if all(self.passed[s] for s in others):
            leader = self.owner if not self.out[self.owner] else self.next_in_hand(self.owner)
            self.table = None
            self.passed = [False] * self.n
            self.received = [0] * self.n
            self.owner = self.to_act = leader
            return
        for k in range(1, self.n + 1):
            t = (seat + k) % self.n
            if t in others and not self.passed[t]:
                self.to_act = t
                return
        raise AssertionError("reference: nobody to act")

    def _finish(self, seat: int, p: Play, responsible: int | None) -> None:
        r = self.rules
        only_twos = p.kind in WORDS.values() and p.rank == TWO
        if seat == self.declarer:
            for o in range(self.n):
                if o != seat:
                    if only_twos:
                        self._pay(seat, o, r.sam_unit, "sam_failed")
                    else:
                        self._pay(o, seat, r.sam_unit, "sam_won")
            self._end(Outcome("sam_failed", None, seat) if only_twos else Outcome("sam_won", seat, seat))
            return
        if only_twos and r.finish_on_two == "pay_played":
            for o in range(self.n):
                if o != seat:
                    self._pay(seat, o, r.card_value * self.played[o], "finish_on_two")
            self.offenders.append((seat, p.size))
            self._end(Outcome("finish_on_two", None, seat))
            return
        if only_twos:
            self.out[seat] = True
            self.offenders.append((seat, p.size))
            left = [s for s in range(self.n) if not self.out[s]]
            if len(left) == 1:
                self._settle(left[0], None)
            else:
                self._next_turn(seat)
            return
        self._settle(seat, responsible)

    def _settle(self, winner: int, responsible: int | None) -> None:
        r = self.rules
        owed = []
        for s in range(self.n):
            if s == winner or self.out[s]:
                continue
            if self.played[s] == 0:
                owed.append((s, r.cong_cards * r.card_value, "cong"))
            else:
                owed.append((s, self.cards(s) * r.card_value, "cards"))
                owed.append((s, self.counts[s][TWO] * r.thoi_per_two, "thoi_2"))
        if responsible is not None:
            self._pay(responsible, winner, sum(a for _, a, _ in owed), "responsibility")
        else:
            for s, a, why in owed:
                self._pay(s, winner, a, why)
        for s, twos in self.offenders:
            self._pay(s, winner, twos * r.thoi_per_two, "finish_on_two")
        self._end(Outcome("normal", winner, winner, responsible=responsible))

    def _pay(self, payer: int, payee: int, amount: int, why: str) -> None:
        if amount:
            self.ledger.append((payer, payee, amount, why))

    def _end(self, outcome: Outcome) -> None:
        self.phase = "over"
        self.outcome = outcome

    def net(self) -> list[int]:
        out = [0] * self.n
        for payer, payee, amount, _ in self.ledger:
            out[payer] -= amount
            out[payee] += amount
        return out
