"""The prompt templates of the language-model agent, by name and version: what the model is asked at a decision.

A template is named ``<view>-<version>``: ``json-1`` shows the seat as the JSON document of
:func:`sam_env.text_views.seat_json`, ``text-1`` as the lines of :func:`sam_env.text_views.seat_text`. Both send a
system message (the game, the seat, the answer expected) and one user message (the seat's view); on the withheld
track (:data:`.spec.LEGAL_MOVES`) the view has no legal moves and the system message says so. A reply that names
no legal move is answered in the same conversation with what was wrong (:func:`retry_message`), without listing
the legal moves where they are withheld.

The reply itself is read by :func:`sam_env.text_views.parse_move` (:data:`PARSER_VERSION` names its rules): it
must name exactly one move, and a legal one.

A template is never edited once results were measured with it: a changed prompt is a new version, so that a
results file's ``template`` names the prompt its moves came from, word for word.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sam_env.core import SeatView
from sam_env.text_views import VIEW_VERSION, MoveParseError, seat_json_text, seat_text


@dataclass(frozen=True)
class Template:
    """A prompt template: its system message and how it writes the seat's view."""

    name: str
    view: Callable[[SeatView, bool], str]
    view_version: int
    about: str


PARSER_VERSION = 1
"""The version of how a reply is read (:func:`sam_env.text_views.parse_move`): one move named, no more."""

SYSTEM = """You are playing Sâm Lốc, the Vietnamese climbing card game, as seat {seat} of {players}. \
Each time it is your turn you are shown what your seat knows, {how}. Choose your move to win money: \
{choose}

Moves are named like this: pass; single:7; pair:K; triple:10; quad:9; straight:3-7 (lowest-highest, \
A-2-3 is written straight:A-3); double_quad:5+9; declare_sam and decline_sam before play.

Answer with the move's name and nothing else, for example: pair:K"""

CHOOSE_LISTED = "pick one of the legal moves it lists."
CHOOSE_WITHHELD = (
    "the legal moves are not listed; work them out from your hand, the play to beat and the rules in the view."
)


def _json_view(view: SeatView, legal_moves: bool) -> str:
    return seat_json_text(view, legal_moves)


def _text_view(view: SeatView, legal_moves: bool) -> str:
    return seat_text(view, legal_moves)


TEMPLATES: dict[str, Template] = {
    t.name: t
    for t in (
        Template("json-1", _json_view, VIEW_VERSION, "the seat's JSON view (sam_env.text_views.seat_json)"),
        Template("text-1", _text_view, VIEW_VERSION, "the seat's text view (sam_env.text_views.seat_text)"),
    )
}
"""Templates by name: the default is ``json-1``."""


def messages(view: SeatView, template: str, legal_moves: bool) -> list[dict[str, str]]:
    """The chat messages of a decision: the system message and the seat's view (see the module docstring)."""
    chosen = TEMPLATES[template]
    how = "as a JSON document" if template.startswith("json") else "as lines of text"
    system = SYSTEM.format(
        seat=view.seat,
        players=view.rules.n_players,
        how=how,
        choose=CHOOSE_LISTED if legal_moves else CHOOSE_WITHHELD,
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": chosen.view(view, legal_moves)}]


RETRY = "That is not a legal move ({reason}). {ask}"
ASK_LISTED = "Answer with one of the legal moves listed, by its name only."
ASK_WITHHELD = "Answer with one legal move's name only."
"""The retry message (:func:`retry_message`) and its two endings, by track."""


def retry_message(error: MoveParseError | str, legal_moves: bool) -> str:
    """What the model is told after a reply that names no legal move (or an empty one): the reason, and the legal
    moves again only where the track lists them."""
    reason = error if isinstance(error, str) else f"{error.why}: {error.reply[:200]!r}"
    return RETRY.format(reason=reason, ask=ASK_LISTED if legal_moves else ASK_WITHHELD)
