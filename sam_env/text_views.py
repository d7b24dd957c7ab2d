"""A seat as text and as JSON: what a language model or a tool-using agent is shown, and its moves read back.

:func:`seat_json` is what one seat knows at a decision (a :class:`~sam_env.core.SeatView`): its own hand, every
seat's card count, the cards each seat has played, the play to beat and whose it is, who has passed or gone out,
the Sâm declarer, the money so far, the hand's history as ``{seat, move}``, the rules in force (as options and as
a short summary, :func:`rules_summary`), and the legal moves by their stable names (``pair:K``, ``straight:A-3``,
``pass``; :func:`sam_env.action_name`). :func:`seat_text` writes the same facts as lines of text, with the legal
moves listed or, for a track that withholds them, not.
Both are deterministic (the same view gives the same text, byte for byte) and both are built from the seat's view
alone, which holds no other seat's unplayed card, so neither can show one (``tests/env/test_text_views.py`` checks
it over thousands of random hands of every table size).

:func:`parse_move` reads a move back forgivingly — case, spacing, a ``T`` for ``10``, a few words around the name —
into the action index it names, and never into an illegal move: a name that is not among the legal moves, or text
that names none or several of them, is a :class:`MoveParseError` saying which moves were legal.

Cards are written in the engine's notation (``10H``, ``KS``; docs/rules.md §2), seats as numbers counted from 0 in
turn order, money in X (the stake unit).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from .core import NO_PLAY, Phase, RuleConfig, SeatView, combo_name, format_cards
from .core.cards import mask_of
from .core.combos import combo_index

VIEW_VERSION = 1
"""The version of :func:`seat_json`'s keys and :func:`seat_text`'s lines: a prompt built on them names it."""


NOT_LEGAL_NOW = "is not a legal move now"


class MoveParseError(ValueError):
    """A reply that names no legal move (or several); the message lists the legal ones."""

    def __init__(self, reply: str, legal: Sequence[int], why: str) -> None:
        self.reply, self.legal, self.why = reply, tuple(legal), why
        names = ", ".join(combo_name(a) for a in legal)
        super().__init__(f"{why}: {reply[:200]!r}; the legal moves are: {names}")

    @property
    def names_illegal_move(self) -> bool:
        """Whether the reply named a move, but one that is not legal now (else it named none, or several)."""
        return self.why.endswith(NOT_LEGAL_NOW)


def rules_summary(rules: RuleConfig) -> str:
    """The rules of Sâm Lốc in force at ``rules``' table, in a few lines (docs/rules.md has them in full): what an agent
    that is not shown its legal moves must know, with this table's stakes and options."""
    straights = "A-2-3 up to Q-K-A, no wrap" if rules.straights_with_two else "3 up to A, no 2s"
    lines = [
        f"Sâm Lốc, {rules.n_players} seats, 10 cards each. Ranks low to high: 3 4 5 6 7 8 9 10 J Q K A 2; suits never "
        "decide which play beats which.",
        f"Plays: single, pair, triple, quad, straight of 3 to 10 consecutive ranks ({straights}). A play beats the "
        "table's with the same type and number of cards and a strictly higher rank (a straight by its top).",
        "Chops: a quad beats a single 2, two quads beat a pair of 2s, a higher quad a lower one; the chopped seat "
        f"pays {rules.chop_per_two} X per 2 or {rules.chop_per_quad} X per quad at once.",
        "The trick's leader plays anything but two quads; the others beat or pass, and a seat that passes is out of "
        "the trick. The last to play leads the next trick. The first seat out of cards wins the hand.",
        f"Each loser pays the winner {rules.card_value} X per card left and {rules.thoi_per_two} X more per 2 left; a "
        f"seat that never played pays for {rules.cong_cards} cards instead.",
    ]
    if rules.bao1 == "forced":
        lines.append("Báo 1: while the next seat holds one card, a single you play must be your highest.")
    else:
        lines.append(
            "Báo 1: while the next seat holds one card, play your highest single or a bigger play; if a lower single "
            "lets it go out, you pay what every loser would have paid."
        )
    if rules.allow_sam:
        lines.append(
            f"Sâm: before play, a seat may declare it will go out unbeaten: it then leads every trick; unbeaten it "
            f"takes {rules.sam_unit} X from each seat, beaten it pays the blocker {rules.sam_unit} X per other seat."
        )
    ending = (
        f"pays each other seat {rules.card_value} X per card that seat has played"
        if rules.finish_on_two == "pay_played"
        else f"loses and owes the winner {rules.thoi_per_two} X per 2 of that play"
    )
    lines.append(f"A seat whose last play is only 2s {ending}.")
    return "\n".join(lines)


def seat_json(view: SeatView, legal_moves: bool = True) -> dict[str, Any]:
    """What ``view``'s seat knows, as JSON-ready data (see the module docstring); ``legal_moves=False`` leaves the
    legal moves out, for an agent that must know the rules."""
    n = view.rules.n_players
    out: dict[str, Any] = {
        "view_version": VIEW_VERSION,
        "seat": view.seat,
        "players": n,
        "phase": Phase(view.phase).name.lower(),
        "your_hand": format_cards(view.hand).split(),
        "cards_left": list(view.n_cards),
        "played": {str(s): format_cards(view.played[s]).split() for s in range(n)},
        "to_beat": None
        if view.table_combo == NO_PLAY
        else {"move": combo_name(view.table_combo), "by": view.table_owner},
        "to_lead": view.table_owner if view.table_combo == NO_PLAY else None,
        "passed": [s for s in range(n) if view.passed[s]],
        "out": [s for s in range(n) if view.out[s]],
        "leader": view.leader,
        "sam_declarer": view.sam_declarer,
        "money": list(view.net),
        "bao_1": view.responsible,
        "chop_value": view.chain_value,
        "history": [{"seat": seat, "move": combo_name(move)} for seat, move in view.history],
        "rules": view.rules.to_dict(),
        "rules_summary": rules_summary(view.rules),
    }
    if legal_moves:
        out["legal_moves"] = [combo_name(a) for a in view.legal]
    return out


def seat_view_from_json(data: dict[str, Any]) -> SeatView:
    """The :class:`~sam_env.core.SeatView` a :func:`seat_json` document was written from (with its legal moves), so
    that a harness holding only the JSON can ask sam-env's own bots for their move; ``ValueError`` naming the key when
    the document is not one."""
    if not isinstance(data, dict):
        raise ValueError(
            f"a seat's JSON view is a JSON object (sam_env.text_views.seat_json), not {type(data).__name__}"
        )
    try:
        rules = RuleConfig.from_dict(data["rules"])
        n = rules.n_players
        return SeatView(
            seat=int(data["seat"]),
            rules=rules,
            phase=Phase[str(data["phase"]).upper()],
            hand=mask_of(data["your_hand"]),
            n_cards=tuple(int(c) for c in data["cards_left"]),
            played=tuple(mask_of(data["played"][str(s)]) for s in range(n)),
            table_combo=NO_PLAY if data["to_beat"] is None else combo_index(data["to_beat"]["move"]),
            table_owner=int(data["to_lead"] if data["to_beat"] is None else data["to_beat"]["by"]),
            passed=tuple(s in data["passed"] for s in range(n)),
            out=tuple(s in data["out"] for s in range(n)),
            leader=int(data["leader"]),
            sam_declarer=data["sam_declarer"],
            chain_value=int(data["chop_value"]),
            responsible=bool(data["bao_1"]),
            legal=tuple(combo_index(name) for name in data["legal_moves"]),
            net=tuple(int(m) for m in data["money"]),
            history=tuple((int(h["seat"]), combo_index(h["move"])) for h in data["history"]),
        )
    except KeyError as err:
        raise ValueError(
            f"not a seat's JSON view (sam_env.text_views.seat_json, with its legal moves): no {err}"
        ) from None
    except (TypeError, ValueError, AttributeError) as err:  # a key of the wrong type, a phase or a move of no name
        raise ValueError(
            f"not a seat's JSON view (sam_env.text_views.seat_json, with its legal moves): {type(err).__name__}: {err}"
        ) from None


def seat_json_text(view: SeatView, legal_moves: bool = True) -> str:
    """:func:`seat_json` as one JSON document, keys in a fixed order (deterministic)."""
    return json.dumps(seat_json(view, legal_moves), ensure_ascii=False, separators=(",", ":"))


def seat_text(view: SeatView, legal_moves: bool = True) -> str:
    """What ``view``'s seat knows, as lines of text (see the module docstring)."""
    data = seat_json(view, legal_moves)
    n = data["players"]
    lines = [
        f"You are seat {data['seat']} of {n} (seats count from 0 in turn order). Phase: {data['phase']}.",
        f"Your hand ({len(data['your_hand'])} cards): {' '.join(data['your_hand']) or '(empty)'}",
        "Cards left per seat: " + ", ".join(f"seat {s}: {c}" for s, c in enumerate(data["cards_left"])),
        "Money so far (X): " + ", ".join(f"seat {s}: {m:+d}" for s, m in enumerate(data["money"])),
    ]
    to_beat = data["to_beat"]
    lines.append(
        (
            "To beat: nothing, you lead freely."
            if data["to_lead"] == data["seat"]
            else f"To beat: nothing; seat {data['to_lead']} leads freely."
        )
        if to_beat is None
        else f"To beat: {to_beat['move']} by seat {to_beat['by']}."
    )
    if data["passed"]:
        lines.append("Passed this round: " + ", ".join(f"seat {s}" for s in data["passed"]))
    if data["out"]:
        lines.append("Out of cards: " + ", ".join(f"seat {s}" for s in data["out"]))
    if data["sam_declarer"] is not None:
        lines.append(f"Sâm declared by seat {data['sam_declarer']}.")
    if data["bao_1"]:
        bound = (
            "a single you play must be your highest"
            if data["rules"]["bao1"] == "forced"
            else "play your highest single or a bigger play, or pay if a lower single lets it go out"
        )
        lines.append(f"Báo 1: the next seat holds one card; {bound} (see the rules).")
    if data["chop_value"]:
        lines.append(f"Chopping the play to beat would make its owner pay {data['chop_value']} X.")
    history = [f"seat {h['seat']} {h['move']}" for h in data["history"]]
    lines.append("History: " + ("; ".join(history) if history else "(none yet)"))
    for s in range(n):
        if data["played"][str(s)]:
            lines.append(f"Played by seat {s}: {' '.join(data['played'][str(s)])}")
    options = ", ".join(f"{k}={v}" for k, v in data["rules"].items() if k != "n_players")
    lines += ["Rules:", data["rules_summary"], f"Options in force: {options}."]
    if legal_moves:
        lines.append("Legal moves: " + ", ".join(data["legal_moves"]))
    return "\n".join(lines) + "\n"


_SPACES = re.compile(r"\s+")
_NAME = re.compile(r"[a-z_]+(?::[0-9a-z]+(?:[-+][0-9a-z]+)*)?")


def parse_move(reply: str, legal: Sequence[int]) -> int:
    """The legal action ``reply`` names (see the module docstring); :class:`MoveParseError` otherwise."""
    if not isinstance(reply, str):
        raise MoveParseError(repr(reply), legal, "a move is named by text")
    text = _SPACES.sub(" ", reply.strip().lower().strip("`'\".")).replace(" : ", ":").replace(": ", ":")
    text = re.sub(r"\s*([-+])\s*", r"\1", text)
    legal_set = set(legal)
    whole = _index(text)
    if whole is not None:
        if whole in legal_set:
            return whole
        raise MoveParseError(reply, legal, f"{combo_name(whole)} {NOT_LEGAL_NOW}")
    named = {index for word in _NAME.findall(text) if (index := _index(word)) is not None}
    if len(named) > 1:  # never picked among them by legality: that would choose for an agent not shown the moves
        raise MoveParseError(reply, legal, "the reply names several moves; name exactly one")
    if named:
        (index,) = named
        if index in legal_set:
            return index
        raise MoveParseError(reply, legal, f"{combo_name(index)} {NOT_LEGAL_NOW}")
    raise MoveParseError(reply, legal, "the reply names no move")


def _index(name: str) -> int | None:
    """The action a name stands for (:func:`~sam_env.core.combo_index`: ``T`` or ``10``, any case), None if none."""
    try:
        return combo_index(name)
    except ValueError:
        return None
