"""What a response of the web app shows: the table from the person's seat, as plain JSON.

Cards are strings in the engine's notation (``"10D"``, ``"QS"``), actions names (``"pair:K"``).
Before the hand ends the view holds the person's own cards and public information only: how many
cards each seat holds, the cards played, passes, báo Sâm, báo 1, the play to beat and the money
that already moved (chops). :func:`seat_view_json` reads another seat's cards only when the hand is
over, when every hand is revealed with the ledger and its reasons.

A coached game's view adds what the coach (:mod:`.coach`) computed from the person's observation: a
``value`` (X) on each legal move, ``coach`` (the network, and its ``choice`` now), and once the hand is
over its ``review``; a recorded game's adds ``recorded``, the hands of this game kept so far. A game
with neither shows none of these keys.
"""

from __future__ import annotations

from typing import Any, Protocol

from sam_env.aec_env import raw_env
from sam_env.core import COMBOS, NO_PLAY, Phase, RuleConfig, SeatView
from sam_env.core.cards import card_rank, cards_of, format_card, parse_card, unary_of_cards
from sam_env.core.combos import BEATS, LEADS, LINE_RANKS, STRAIGHT_WITH_TWO, Kind, combo_index, formable_combos

from .coach import Coach, Review, choice


class GameState(Protocol):
    """What a view reads of a game (:class:`.games.Game`): its table, the person's seat, the players'
    names, the running score and the hand's moves so far."""

    env: raw_env
    rules: RuleConfig
    rules_json: dict[str, Any]
    seat: int
    players: list[str]
    totals: list[int]
    hand_number: int
    history: list[dict[str, Any]]
    answer_from: int
    coach: Coach | None
    advice: dict[int, float] | None
    review: Review | None
    recording: object | None
    recorded: int


def cards_json(mask: int) -> list[str]:
    """A card mask as card strings, lowest first."""
    return [format_card(c) for c in cards_of(mask)]


def play_order(action: int | str, cards: list[str]) -> list[str]:
    """The cards of a play in the order a player lays them: a straight along its line (``A-2-3``,
    ``Q-K-A``, ``2-3-4-5``: the 2 and the ace where the straight puts them, not where rank order
    does), anything else lowest first."""
    combo = COMBOS[action if isinstance(action, int) else combo_index(action)]
    if combo.kind is not Kind.STRAIGHT:
        return cards
    line = LINE_RANKS[combo.key - combo.size + 1 : combo.key + 1]
    return sorted(cards, key=lambda card: line.index(card_rank(parse_card(card))))


def cards_for(hand: int, action: int) -> list[str]:
    """The cards of ``hand`` that ``action`` would play (the lowest suits of each rank, as the engine picks),
    in :func:`play_order`."""
    held = cards_of(hand)
    out: list[int] = []
    for rank, count in COMBOS[action].needs:
        out += [c for c in held if card_rank(c) == rank][:count]
    return play_order(action, [format_card(c) for c in sorted(out)])


def table_json(view: SeatView, history: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The play to beat (``None`` on a free lead): its action, cards and seat."""
    if view.phase is not Phase.PLAY or view.table_combo == NO_PLAY:
        return None
    last = next(m for m in reversed(history) if m["cards"])
    return {"action": COMBOS[view.table_combo].name, "cards": last["cards"], "seat": view.table_owner}


def move_entry(
    view: SeatView, seat: int, player: str, action: int, cards: list[str], history: list[dict[str, Any]]
) -> dict[str, Any]:
    """One move as the history shows it, with the public table right after it (for the page to replay)."""
    entry = {"seat": seat, "player": player, "action": COMBOS[action].name, "cards": play_order(action, cards)}
    entry["cards_left"] = view.n_cards[seat]
    entry["table"] = table_json(view, [*history, entry])
    entry["passed"] = list(view.passed)
    return entry


def seat_view_json(game: GameState) -> dict[str, Any]:
    """The view of ``game`` from the person's seat (see the module docstring)."""
    raw, me, n = game.env, game.seat, game.rules.n_players
    view = raw.seat_view(raw.agent_of_seat(me))
    over = raw.over
    seats = []
    for s in range(n):
        entry: dict[str, Any] = {
            "seat": s,
            "player": game.players[s],
            "you": s == me,
            "n_cards": view.n_cards[s],
            "played": cards_json(view.played[s]),
            "passed": view.phase is Phase.PLAY and view.table_combo != NO_PLAY and view.passed[s],
            "out": view.out[s],
            "one_card": view.n_cards[s] == 1,
            "sam": view.sam_declarer == s,
            "net": view.net[s],
            "total": game.totals[s],
        }
        if s == me or over:  # another seat's cards only once the hand is over, when every hand is revealed
            held = view.hand if s == me else raw.seat_view(raw.agent_of_seat(s)).hand
            entry["cards"] = cards_json(held)
            if over:
                entry["dealt"] = cards_json(held | view.played[s])
        seats.append(entry)
    your_turn = not over and raw.seat_to_act == me
    result = raw.result.to_dict() if over else None
    moves = view.legal if your_turn else []
    legal = [{"id": a, "name": COMBOS[a].name, "cards": cards_for(view.hand, a)} for a in moves]
    out = {
        "hand_number": game.hand_number,
        "players": n,
        "rules": game.rules_json,
        "seat": me,
        "phase": view.phase.name.lower(),
        "to_act": None if over else raw.seat_to_act,
        "your_turn": your_turn,
        "leader": view.leader,
        "sam_declarer": view.sam_declarer,
        "table": table_json(view, game.history),
        "chain_value": view.chain_value,
        "responsible": view.responsible,
        "seats": seats,
        "legal": legal,
        "history": game.history,
        "moves": game.history[game.answer_from :],
        "ledger": [t.to_dict() for t in raw.ledger],
        "result": result,
    }
    if game.coach is not None:
        advice = game.advice if your_turn else None
        for move in legal if advice is not None else []:
            move["value"] = advice[move["id"]]
        out["coach"] = game.coach.info() | {"choice": None if advice is None else COMBOS[choice(advice)].name}
        if over and game.review is not None:
            out["review"] = game.review.to_json()
    if game.recording is not None:
        out["recorded"] = game.recorded
    return out


def illegal_reason(view: SeatView, action: int) -> str:
    """Why ``action`` is not legal for the seat of ``view`` now, in the rules' words (docs/rules.md)."""
    combo = COMBOS[action]
    name = combo.name
    if view.phase is Phase.SAM_DECISION:
        return "before play, each seat in turn only says whether it declares Sâm: declare_sam or decline_sam"
    if combo.kind in (Kind.DECLARE_SAM, Kind.DECLINE_SAM):
        return "báo Sâm is decided before the first play of the hand, not during play"
    table = view.table_combo
    if combo.kind is Kind.PASS:
        return "you lead this trick, and a free lead cannot be passed"
    if not formable_combos(unary_of_cards(view.hand))[action]:
        return f"you do not hold the cards for {name}"
    if combo.kind is Kind.STRAIGHT and STRAIGHT_WITH_TWO[action] and not view.rules.straights_with_two:
        return "these rules do not allow a 2 in a straight"
    if table == NO_PLAY and not LEADS[action]:
        return f"{name} cannot open a trick"
    if table != NO_PLAY and not BEATS[action, table]:
        return f"{name} does not beat {COMBOS[table].name}, the play on the table"
    if view.responsible and view.rules.bao1 == "forced" and combo.kind is Kind.SINGLE:
        return "báo 1: the next seat has one card left, so a single must be your highest card"
    return "not a legal move now"
