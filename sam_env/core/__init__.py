"""The rules of Sâm Lốc (docs/rules.md), with no reinforcement-learning dependency.

Only the standard library and numpy are used here; the environment and everything above it
adapt this package and never the other way round.
"""

from .cards import CardError, format_card, format_cards, parse_card
from .combos import COMBOS, N_COMBOS, Combo, Kind, combo_index, combo_name
from .deal import DealError
from .game import NO_PLAY, REVEAL_INSTANT_WIN, Hand, IllegalMoveError, Phase
from .ledger import EndReason, HandResult, Reason, Transfer
from .rules import CARDS_PER_HAND, RuleConfig, RuleConfigError
from .table import Table
from .view import SeatView

__all__ = [
    "CARDS_PER_HAND",
    "COMBOS",
    "NO_PLAY",
    "N_COMBOS",
    "REVEAL_INSTANT_WIN",
    "CardError",
    "Combo",
    "DealError",
    "EndReason",
    "Hand",
    "HandResult",
    "IllegalMoveError",
    "Kind",
    "Phase",
    "Reason",
    "RuleConfig",
    "RuleConfigError",
    "SeatView",
    "Table",
    "Transfer",
    "combo_index",
    "combo_name",
    "format_card",
    "format_cards",
    "parse_card",
]
