"""Plain-text pictures of a hand, for the environment's ``render`` and the terminal player."""

from __future__ import annotations

from .cards import format_cards
from .combos import COMBOS
from .game import NO_PLAY, Hand, Phase


def count_of_cards(n: int) -> str:
    """``[1 card]``, ``[7 cards]``: a hidden hand's size."""
    return f"[{n} card{'' if n == 1 else 's'}]"


def render_hand(hand: Hand, viewer: int | None = None, symbols: bool = False, width: int = 80) -> str:
    """Describe the table: each seat's cards (hidden from ``viewer`` unless its own), the play
    to beat, passes and money so far. ``viewer=None`` shows every hand.

    One line per seat, its columns aligned across seats (money, cards, then what the seat played
    and its tags); a seat line longer than ``width`` (the terminal's columns) carries its played
    cards and tags on a second line under its cards, so a terminal never wraps it mid-column.
    """
    lines = []
    rules = hand.rules
    phase = {Phase.SAM_DECISION: "báo Sâm decisions", Phase.PLAY: "play", Phase.OVER: "hand over"}[hand.phase]
    sam = f", Sâm declared by seat {hand.sam_declarer}" if hand.sam_declarer is not None else ""
    lines.append(f"Sâm Lốc, {rules.n_players} seats, phase: {phase}{sam}")
    net = hand.net()
    rows = []
    for seat in range(hand.n_players):
        if viewer is None or viewer == seat:
            cards = format_cards(hand.cards[seat], symbols) or "-"
        else:
            cards = count_of_cards(hand.n_cards[seat])
        tags = []
        if not hand.over and seat == hand.to_act:
            tags.append("to act")
        if hand.phase is Phase.PLAY and hand.table_combo != NO_PLAY and hand.passed[seat]:
            tags.append("passed")
        if hand.out[seat]:
            tags.append("out (finished on 2s)")
        if hand.n_cards[seat] == 1:
            tags.append("báo 1")
        tag = f"  ({', '.join(tags)})" if tags else ""
        played = format_cards(hand.played[seat], symbols) or "-"
        rows.append((f"  seat {seat}: {f'{net[seat]:+d}X':>5}  ", cards, f"played: {played}{tag}"))
    cards_width = max(len(cards) for _, cards, _ in rows)
    for head, cards, rest in rows:
        line = f"{head}{cards:<{cards_width}}  {rest}"
        if len(line) <= width:
            lines.append(line)
        else:
            lines += [f"{head}{cards}", " " * len(head) + rest]
    winner = hand.instant_winner
    if winner is not None and not hand.over and viewer in (None, winner):
        lines.append(f"  seat {winner} was dealt an instant win ({hand.instant_win}): its one move reveals it")
    if hand.phase is Phase.PLAY:
        if hand.table_combo == NO_PLAY:
            lines.append(f"  table: free lead for seat {hand.table_owner}")
        else:
            chain = hand.chain_value()
            extra = f", chop chain worth {chain}X" if chain else ""
            lines.append(f"  table: {COMBOS[hand.table_combo].name} by seat {hand.table_owner}{extra}")
    if hand.result is not None:
        res = hand.result
        winner = f"seat {res.winner}" if res.winner is not None else "nobody"
        lines.append(f"  result: {res.reason.value}, winner {winner}, net " + " ".join(f"{x:+d}" for x in res.net))
        for t in res.ledger:
            lines.append(f"    seat {t.payer} -> seat {t.payee}: {t.amount}X ({t.reason.value})")
    return "\n".join(lines)
