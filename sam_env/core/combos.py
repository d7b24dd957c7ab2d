"""The fixed table of rank-level combinations (docs/rules.md §3–§4), built once at import.

Suits never decide a play, so every move of the game is one of ~200 *rank-level*
combinations: pass, the two Sâm decisions, 13 singles, pairs, triples and quads, every straight
along ``A 2 3 … K A`` of length 3–10 and every double quad. A combination's id is its action
index everywhere (engine, environment, checkpoints), in the spirit of OpenSpiel's fixed action
tables. "Can this hand form it" and "does it beat that" are then array look-ups:

* a hand is a *unary rank mask*: for a rank held ``c`` times, bits ``4r … 4r+c-1`` are set, so
  a combination is formable iff ``req & hand == req`` (one vectorised test over all combos);
* ``BEATS[c, t]`` says whether ``c`` may be played on top of ``t``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from .cards import N_RANKS, RANK_NAMES, Rank, parse_rank


class Kind(IntEnum):
    """What a combination is; the Vietnamese names are in docs/rules.md §3."""

    PASS = 0
    DECLARE_SAM = 1
    DECLINE_SAM = 2
    SINGLE = 3  # lẻ
    PAIR = 4  # đôi
    TRIPLE = 5  # sám cô
    QUAD = 6  # tứ quý
    STRAIGHT = 7  # sảnh
    DOUBLE_QUAD = 8  # 2 tứ quý


SAME_RANK_KINDS = {1: Kind.SINGLE, 2: Kind.PAIR, 3: Kind.TRIPLE, 4: Kind.QUAD}
_SAME_RANK_WORDS = {Kind.SINGLE: "single", Kind.PAIR: "pair", Kind.TRIPLE: "triple", Kind.QUAD: "quad"}

# Positions on the straight line A 2 3 … K A: position 0 is the low ace, 13 the high ace.
LINE_RANKS: tuple[int, ...] = (Rank.ACE, Rank.TWO, *range(Rank.THREE, Rank.ACE + 1))
MIN_STRAIGHT, MAX_STRAIGHT = 3, 10


@dataclass(frozen=True)
class Combo:
    """One rank-level combination.

    ``needs`` lists ``(rank, count)`` pairs; ``key`` orders combinations of the same kind and
    size (the rank for same-rank kinds, the highest line position for straights).
    """

    id: int
    kind: Kind
    needs: tuple[tuple[int, int], ...]
    key: int
    name: str

    @property
    def size(self) -> int:
        return sum(k for _, k in self.needs)

    @property
    def twos(self) -> int:
        return sum(k for r, k in self.needs if r == Rank.TWO)

    @property
    def only_twos(self) -> bool:
        """A play made only of 2s (docs/rules.md §11): single, pair or triple of 2s."""
        return self.size > 0 and self.twos == self.size


def _build() -> tuple[Combo, ...]:
    rows: list[tuple[Kind, tuple[tuple[int, int], ...], int, str]] = [
        (Kind.PASS, (), 0, "pass"),
        (Kind.DECLARE_SAM, (), 0, "declare_sam"),
        (Kind.DECLINE_SAM, (), 0, "decline_sam"),
    ]
    for count, kind in SAME_RANK_KINDS.items():
        for r in range(N_RANKS):
            rows.append((kind, ((r, count),), r, f"{_SAME_RANK_WORDS[kind]}:{RANK_NAMES[r]}"))
    for length in range(MIN_STRAIGHT, MAX_STRAIGHT + 1):
        for start in range(len(LINE_RANKS) - length + 1):
            ranks = LINE_RANKS[start : start + length]
            name = f"straight:{RANK_NAMES[ranks[0]]}-{RANK_NAMES[ranks[-1]]}"
            needs = tuple(sorted((r, 1) for r in ranks))
            rows.append((Kind.STRAIGHT, needs, start + length - 1, name))
    for low in range(N_RANKS):
        for high in range(low + 1, N_RANKS):
            name = f"double_quad:{RANK_NAMES[low]}+{RANK_NAMES[high]}"
            rows.append((Kind.DOUBLE_QUAD, ((low, 4), (high, 4)), high, name))
    return tuple(Combo(i, kind, needs, key, name) for i, (kind, needs, key, name) in enumerate(rows))


COMBOS: tuple[Combo, ...] = _build()
N_COMBOS = len(COMBOS)
PASS, DECLARE_SAM, DECLINE_SAM = 0, 1, 2
_BY_NAME = {c.name: c.id for c in COMBOS}


def combo_name(index: int) -> str:
    """Stable name of a combination id, e.g. ``"straight:A-3"``."""
    if not isinstance(index, (int, np.integer)) or not 0 <= index < N_COMBOS:
        raise ValueError(f"combination index {index!r} is out of range; expected an int in 0..{N_COMBOS - 1}")
    return COMBOS[index].name


def combo_index(name: str) -> int:
    """Inverse of :func:`combo_name`; also accepts ``T`` for 10 and lower case."""
    if name in _BY_NAME:
        return _BY_NAME[name]
    head, _, tail = str(name).strip().partition(":")
    head = head.lower()
    if not tail and head in _BY_NAME:
        return _BY_NAME[head]
    try:
        if tail:
            sep = "-" if head == "straight" else "+"
            ranks = [RANK_NAMES[parse_rank(p)] for p in tail.split(sep)]
            canonical = f"{head}:{sep.join(ranks)}"
            if canonical in _BY_NAME:
                return _BY_NAME[canonical]
    except ValueError:
        pass
    raise ValueError(
        f"unknown action name {name!r}; expected 'pass', 'declare_sam', 'decline_sam' or a "
        "combination such as 'single:7', 'pair:K', 'triple:10', 'quad:9', 'straight:A-3', "
        "'double_quad:5+9'"
    )


def unary_mask(counts: list[int] | tuple[int, ...]) -> int:
    """Unary rank mask of a hand given its 13 rank counts (see module docstring)."""
    return sum(((1 << c) - 1) << (4 * r) for r, c in enumerate(counts))


def _tables() -> dict[str, np.ndarray]:
    kind = np.array([c.kind for c in COMBOS], dtype=np.int8)
    key = np.array([c.key for c in COMBOS])
    size = np.array([c.size for c in COMBOS])
    req = np.array([unary_mask([dict(c.needs).get(r, 0) for r in range(N_RANKS)]) for c in COMBOS], dtype=np.uint64)
    playable = (kind >= Kind.SINGLE) & (kind <= Kind.DOUBLE_QUAD)
    same = (kind[:, None] == kind[None, :]) & (size[:, None] == size[None, :]) & (key[:, None] > key[None, :])
    beats = same & playable[:, None] & (kind[:, None] != Kind.DOUBLE_QUAD)
    single_two = np.array([c.kind == Kind.SINGLE and c.key == Rank.TWO for c in COMBOS])
    pair_two = np.array([c.kind == Kind.PAIR and c.key == Rank.TWO for c in COMBOS])
    quad = kind == Kind.QUAD
    beats |= quad[:, None] & single_two[None, :]
    beats |= (kind == Kind.DOUBLE_QUAD)[:, None] & pair_two[None, :]
    contains_two = np.array([c.twos > 0 for c in COMBOS]) & (kind == Kind.STRAIGHT)
    twos_chopped = np.where(single_two, 1, 0) + np.where(pair_two, 2, 0)
    return {
        "req": req,
        "beats": beats,
        "leads": playable & (kind != Kind.DOUBLE_QUAD),
        "straight_with_two": contains_two,
        "single_rank": np.where(kind == Kind.SINGLE, key, -1),
        "twos_chopped": twos_chopped,
        "is_quad": quad,
        "size": size,
    }


_T = _tables()
REQ: np.ndarray = _T["req"]
"""``uint64[N_COMBOS]``: unary rank mask each combination needs."""
BEATS: np.ndarray = _T["beats"]
"""``bool[N_COMBOS, N_COMBOS]``: ``BEATS[c, t]`` — ``c`` may be played on ``t`` (chops included)."""
LEADS: np.ndarray = _T["leads"]
"""``bool[N_COMBOS]``: may open a trick (everything playable but a double quad)."""
STRAIGHT_WITH_TWO: np.ndarray = _T["straight_with_two"]
SINGLE_RANK: np.ndarray = _T["single_rank"]
"""``int[N_COMBOS]``: the rank of a single, -1 for every other combination."""
TWOS_CHOPPED: np.ndarray = _T["twos_chopped"]
"""``int[N_COMBOS]``: 2s lost when this play on the table is chopped (1 for a single 2, 2 for a pair)."""
IS_QUAD: np.ndarray = _T["is_quad"]
SIZE: np.ndarray = _T["size"]
"""``int[N_COMBOS]``: cards in each combination."""
for _arr in (REQ, BEATS, LEADS, STRAIGHT_WITH_TWO, SINGLE_RANK, TWOS_CHOPPED, IS_QUAD, SIZE):
    _arr.flags.writeable = False


def formable_combos(unary: int) -> np.ndarray:
    """``bool[N_COMBOS]``: the combinations a hand with these unary rank counts can form."""
    return (REQ & np.uint64(unary)) == REQ
