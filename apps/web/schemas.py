"""One schema per endpoint: what each request body may hold, and what an uploaded summary must.

Every body is parsed by pydantic's JSON parser straight from its bytes, into the endpoint's model
and nothing else: strict UTF-8 (a byte sequence that is not UTF-8, or an escaped lone surrogate
such as ``"\\ud800"``, is refused), no ``NaN`` or ``Infinity``, nesting stopped by the parser (and a
model accepts at most three levels), strict types (``true`` is not a seat, ``"4"`` not a count), and
no field the model does not name. Every field a handler reads is one of the model's, so nothing
unchecked reaches a game, a file or a response. A refusal is :class:`~.errors.BadRequest` naming
the field, what it held and what it may hold (the field's ``description``).
"""

from __future__ import annotations

from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr, ValidationError, model_validator

from sam_env.core import N_COMBOS
from sam_env.core.rules import MAX_PLAYERS, MIN_PLAYERS

from .errors import BadRequest

MAX_NAME = 1_000
"""Characters in a file name or path of a request."""
MAX_FILES = 100
"""Paths or uploads one leaderboard request may name."""
MAX_SEED = 2**63 - 1
TOKEN_PATTERN = r"^[A-Za-z0-9_-]{24}$"
"""A recording token as the server issues it (``secrets.token_urlsafe(18)``)."""
TOKEN_DESCRIPTION = "a recording token as POST /api/games returned it (24 characters: letters, digits, - and _)"

FiniteFloat = Annotated[float, Field(allow_inf_nan=False)]
RuleScalar = StrictBool | StrictInt | FiniteFloat | StrictStr | None
RuleValue = RuleScalar | Annotated[list[RuleScalar], Field(max_length=16)]
"""A rule option's value as JSON gives it; ``RuleConfig`` then checks it against the option's range."""

Model = TypeVar("Model", bound=BaseModel)


class Request(BaseModel):
    """A request body: strict types, no unknown field, no NaN or infinity."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, frozen=True)


class NewGame(Request):
    """``POST /api/games``"""

    players: StrictInt | None = Field(
        None, description=f"seats at the table, an int from {MIN_PLAYERS} to {MAX_PLAYERS}"
    )
    rules: dict[StrictStr, RuleValue] = Field(
        default_factory=dict,
        max_length=32,
        description='an object of rule options (docs/rules.md §14) with JSON values, e.g. {"bao1": "forced"}',
    )
    seat: StrictInt = Field(0, description="your seat, an int from 0 to players - 1")
    opponents: StrictStr | Annotated[list[StrictStr], Field(max_length=MAX_PLAYERS)] = Field(
        "heuristic", description="a bot name for every other seat, or a list of players - 1 names"
    )
    seed: StrictInt | None = Field(
        None, ge=0, le=MAX_SEED, description=f"null (a fresh table) or an int from 0 to {MAX_SEED}"
    )
    coach: StrictBool = Field(False, description="true (each legal move's value and a review) or false")
    record: StrictBool = Field(False, description="true (keep this game's hands on the server) or false")
    recording: Annotated[str, Field(strict=True, pattern=TOKEN_PATTERN)] | None = Field(
        None, description=f"null (a new recording) or {TOKEN_DESCRIPTION}, to keep this game under it too"
    )

    @model_validator(mode="after")
    def _recording_needs_record(self) -> NewGame:
        if self.recording is not None and not self.record:
            raise ValueError('"recording" names where a recorded game is kept: send it with "record": true')
        return self


class Recording(Request):
    """``POST /api/recordings/replay``, ``DELETE /api/recordings``"""

    token: Annotated[str, Field(strict=True, pattern=TOKEN_PATTERN)] = Field(description=TOKEN_DESCRIPTION)


class Move(Request):
    """``POST /api/games/{id}/moves``"""

    action: StrictInt | Annotated[str, Field(strict=True, max_length=64)] = Field(
        description=f'an action id (an int from 0 to {N_COMBOS - 1}) or a name such as "pair:K"'
    )


class NextHand(Request):
    """``POST /api/games/{id}/next``"""


class OpenReplay(Request):
    """``POST /api/replays``"""

    path: StrictStr | None = Field(
        None, max_length=MAX_NAME, description="a file of hand records, relative to the served folder"
    )
    name: StrictStr | None = Field(None, max_length=MAX_NAME, description="the uploaded file's name")
    text: StrictStr | None = Field(None, description="the uploaded file's content (JSON Lines)")

    @model_validator(mode="after")
    def _one_source(self) -> OpenReplay:
        if (self.path is None) == (self.text is None) or (self.path is not None and self.name is not None):
            raise ValueError(
                'open a file of hand records with {"path": <relative to the served folder>} or {"name", "text"}'
            )
        return self


class Upload(Request):
    """An uploaded summary"""

    name: StrictStr = Field("upload", max_length=MAX_NAME, description="the file's name")
    text: StrictStr = Field(description="the file's content")


class Leaderboard(Request):
    """``POST /api/leaderboard``"""

    paths: list[Annotated[str, Field(strict=True, max_length=MAX_NAME)]] = Field(
        default_factory=list, max_length=MAX_FILES, description="summary.json paths under the served folder"
    )
    files: list[Upload] = Field(
        default_factory=list, max_length=MAX_FILES, description='uploaded summaries, [{"name", "text"}]'
    )

    @model_validator(mode="after")
    def _something(self) -> Leaderboard:
        if not self.paths and not self.files:
            raise ValueError(
                'a leaderboard takes {"paths": [summary.json paths under the served folder], '
                '"files": [{"name", "text"}]}'
            )
        return self


class SummaryPart(BaseModel):
    """A part of a ``sam-eval`` ``summary.json``: the fields the leaderboard reads, checked; others ignored.
    ``NaN`` (an interval over one deal) is allowed and shown as empty."""

    model_config = ConfigDict(extra="ignore", strict=True, allow_inf_nan=True)


Number = float | None


class SummaryMatch(SummaryPart):
    agent: StrictStr = Field(max_length=MAX_NAME, description="the candidate's name")
    opponents: StrictStr = Field(max_length=MAX_NAME, description="its opponents, e.g. 'greedy x3'")
    deals: StrictInt = Field(ge=0, description="deals played, an int >= 0")
    hands: StrictInt = Field(ge=0, description="hands played, an int >= 0")
    x_per_hand: Number = Field(description="a number")
    ci_low: Number = Field(description="a number")
    ci_high: Number = Field(description="a number")
    win_rate: Number = Field(description="a number")


class SummaryRating(SummaryPart):
    agent: StrictStr = Field(max_length=MAX_NAME, description="the bot's name")
    x_per_hand: Number = Field(description="a number")
    mu: Number = Field(description="a number")
    sigma: Number = Field(description="a number")
    ordinal: Number = Field(description="a number")
    games: StrictInt = Field(ge=0, description="games played, an int >= 0")


class SummaryRules(SummaryPart):
    n_players: StrictInt | None = Field(None, description="the seat count")


class SummaryConfig(SummaryPart):
    rules: SummaryRules = Field(default_factory=SummaryRules, description="the rules")
    deals: StrictInt | None = Field(None, description="deals per match")
    seed: StrictInt | None = Field(None, description="the deals' seed")


class Summary(SummaryPart):
    """A ``sam-eval`` ``summary.json`` as the leaderboard reads it."""

    matches: list[SummaryMatch] = Field(description="a list of matches (sam-eval --out writes them)")
    ratings: list[SummaryRating] = Field(default_factory=list, description="a list of ratings")
    config: SummaryConfig = Field(default_factory=SummaryConfig, description="the evaluation's config")


def parse(model: type[Model], body: bytes | str, what: str = "the body", **extra: Any) -> Model:
    """``body`` as ``model``; :class:`BadRequest` naming the first wrong field (``extra`` goes into the
    refusal's JSON, e.g. the legal moves). An empty body is an empty object."""
    if not body.strip():
        body = b"{}"
    try:
        return model.model_validate_json(body)
    except ValidationError as err:
        raise BadRequest(f"{what}: {describe(err, model)}", **extra) from None


def describe(error: ValidationError, model: type[BaseModel]) -> str:
    """The first error of ``error`` in a sentence: where, what it held, what is allowed."""
    first = error.errors(include_url=False)[0]
    kind, loc, value = first["type"], first["loc"], first.get("input")
    if kind == "json_invalid":
        reason = first["msg"].removeprefix("Invalid JSON: ")
        if "hex escape" in reason or "surrogate" in reason:
            reason += "; an escape \\uD800-\\uDFFF is half of a surrogate pair, never a character alone"
        return f"not JSON ({reason})"
    unknown = kind == "extra_forbidden"
    path, description, owner = _field_of(model, loc, unknown)
    fields = list(owner.model_fields)
    if unknown:
        takes = f"some of {fields}" if fields else "no field: send {} or no body"
        return f"unknown field {path!r}; {_title(owner)} takes {takes}"
    if kind == "model_type" and not path:
        return f"expected a JSON object with some of {fields}, got {_short(value)}"
    if kind == "value_error":
        return str(first["msg"]).removeprefix("Value error, ")
    if kind == "missing":
        return f"{path} is missing; expected {description}"
    return f"{path} = {_short(value)} is not allowed; expected {description}"


def _title(model: type[BaseModel]) -> str:
    return (model.__doc__ or model.__name__).strip().splitlines()[0].replace("``", "")


def _field_of(
    model: type[BaseModel], loc: tuple[int | str, ...], unknown: bool = False
) -> tuple[str, str, type[BaseModel]]:
    """The dotted path of ``loc`` through ``model``'s fields (with the key of a mapping field), the
    description of the last field met and the model that holds it; pydantic adds the tags of union
    members to ``loc``: they end it. ``unknown``: the last part of ``loc`` is a key no model names."""
    path, description, current, owner = "", "", model, model
    parts = list(loc)
    while parts:
        part = parts.pop(0)
        if isinstance(part, int):
            path += f"[{part}]"
            continue
        fields = getattr(current, "model_fields", {})
        if part not in fields:
            if unknown:
                path += ("." if path else "") + part
            break
        owner = current
        info = fields[part]
        path += ("." if path else "") + part
        description = info.description or "a value of the right type"
        inner = info.annotation
        if getattr(inner, "__origin__", None) is dict and parts and isinstance(parts[0], str):
            path += "." + str(parts.pop(0))
        args = getattr(inner, "__args__", ())
        current = next((a for a in (inner, *args) if isinstance(a, type) and issubclass(a, BaseModel)), None)
        if current is None:
            break
        if unknown:
            owner = current
    return path, description, owner


def _short(value: object, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
