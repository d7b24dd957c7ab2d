"""``RuleConfig``: every option and stake of docs/rules.md, validated on construction."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from .fields import is_int, require

CARDS_PER_HAND = 10
MIN_PLAYERS, MAX_PLAYERS = 2, 5

FIRST_LEADER_CHOICES = ("lowest_card", "host", "random")
BAO1_CHOICES = ("penalty", "forced")
FINISH_ON_TWO_CHOICES = ("pay_played", "lose_and_continue")
INSTANT_WIN_TYPES = ("dragon", "four_twos", "same_colour", "three_triples", "five_pairs")
"""Instant-win types, strongest first (docs/rules.md §9 priority order)."""

MAX_STAKE = 1000
"""The largest stake of §12, in units of the bet X."""
MAX_CONG_CARDS = 100
"""The most cards a "cóng" loser may be charged (§10)."""
INT_RANGES: dict[str, tuple[int, int]] = {
    "n_players": (MIN_PLAYERS, MAX_PLAYERS),
    "cong_cards": (0, MAX_CONG_CARDS),
    **{
        name: (0, MAX_STAKE)
        for name in ("card_value", "thoi_per_two", "chop_per_two", "chop_per_quad", "sam_unit", "instant_win_unit")
    },
}
"""Every numeric option and its inclusive range (docs/rules.md §14).

The bounds keep every amount a hand can move (at most a few hundred thousand X: a responsible
seat paying four cóng losers at the top stakes) exact in the float32 rewards of the environments
and far from the int64 ledgers' limits, so that no stake can overflow the settlement; they are far
above any house's stakes.
"""


class RuleConfigError(ValueError):
    """A rule option with a value docs/rules.md does not allow."""


@dataclass(frozen=True)
class RuleConfig:
    """The rules of one table. Defaults are the ones docs/rules.md marks **default**.

    Attributes:
        n_players: seats at the table, an int from 2 to 5 (§1).
        straights_with_two: 2s may sit in straights (``A-2-3``, ``2-3-4-5``) (§3).
        first_leader: who leads the first hand of a table: ``lowest_card``, ``host`` or ``random`` (§6).
        bao1: the responsibility rule when the next seat has one card: ``penalty`` (an undersized
            single is legal but costly) or ``forced`` (it is illegal) (§7).
        allow_sam: whether the báo Sâm phase takes place (§8).
        instant_wins: which instant-win hands count (§9), a subset of ``INSTANT_WIN_TYPES``.
        finish_on_two: what happens to a seat whose last play is only 2s: ``pay_played`` or
            ``lose_and_continue`` (§11).
        cong_cards: cards charged to a loser that never played ("cóng"), an int from 0 to
            ``MAX_CONG_CARDS`` (§10).
        card_value, thoi_per_two, chop_per_two, chop_per_quad, sam_unit, instant_win_unit:
            the stakes of §12, in units of the bet X, each an int from 0 to ``MAX_STAKE``.

    Every numeric option's range is in :data:`INT_RANGES`.
    """

    n_players: int = 4
    straights_with_two: bool = True
    first_leader: str = "lowest_card"
    bao1: str = "penalty"
    allow_sam: bool = True
    instant_wins: frozenset[str] = field(default_factory=lambda: frozenset({"four_twos"}))
    finish_on_two: str = "pay_played"
    cong_cards: int = 10
    card_value: int = 1
    thoi_per_two: int = 4
    chop_per_two: int = 4
    chop_per_quad: int = 4
    sam_unit: int = 20
    instant_win_unit: int = 20

    def __post_init__(self) -> None:
        for name, (low, high) in INT_RANGES.items():
            value = getattr(self, name)
            if not is_int(value) or not low <= value <= high:
                unit = " (cards)" if name == "cong_cards" else "" if name == "n_players" else " (units of the bet X)"
                _fail(name, value, f"an int from {low} to {high}{unit}")
        for name in ("straights_with_two", "allow_sam"):
            if not isinstance(getattr(self, name), bool):
                _fail(name, getattr(self, name), "True or False")
        for name, choices in (
            ("first_leader", FIRST_LEADER_CHOICES),
            ("bao1", BAO1_CHOICES),
            ("finish_on_two", FINISH_ON_TWO_CHOICES),
        ):
            if getattr(self, name) not in choices:
                _fail(name, getattr(self, name), "one of " + ", ".join(repr(c) for c in choices))
        wins = self.instant_wins
        # A mapping would be read as its keys: {"four_twos": False} would turn four_twos on.
        if isinstance(wins, (str, Mapping)) or not isinstance(wins, Iterable):
            _fail("instant_wins", wins, f"a set drawn from {list(INSTANT_WIN_TYPES)}")
        wins = list(wins)
        # Checked before hashing or sorting, so that a stray int or list gets this message too.
        unknown = [w for w in wins if not isinstance(w, str) or w not in INSTANT_WIN_TYPES]
        if unknown:
            _fail("instant_wins", wins, f"a set drawn from {list(INSTANT_WIN_TYPES)} (unknown: {unknown})")
        object.__setattr__(self, "instant_wins", frozenset(wins))

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON/YAML-friendly dict (``instant_wins`` as a sorted list)."""
        out = asdict(self)
        out["instant_wins"] = sorted(self.instant_wins)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RuleConfig:
        """Build from a dict such as :meth:`to_dict` gives; unknown keys are an error."""
        if not isinstance(data, Mapping):
            raise RuleConfigError(f"rules must be a mapping of option names to values, got {data!r}")
        known = {f.name for f in fields(cls)}
        unknown = sorted((k for k in data if k not in known), key=repr)
        if unknown:
            raise RuleConfigError(f"unknown rule option(s) {unknown}; expected some of {sorted(known)}")
        return cls(**data)


def _fail(name: str, value: object, allowed: str) -> None:
    require(False, RuleConfigError, f"RuleConfig.{name}", value, allowed)
