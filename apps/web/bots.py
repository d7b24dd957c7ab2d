"""Which bots a table can seat, and a new game from the JSON of ``POST /api/games``.

Bots are named as everywhere else (:func:`sam_env.agents.registry.load_bot`): a registry name (``best``,
``random``, ``heuristic``, ``dmc_v2``, ``ppo_search`` …; the page lists them grouped as
:func:`~sam_env.agents.registry.grouped` does, ``best`` first) or, for a network of one's own, ``checkpoint:<path>``
with the path relative to the folder given to ``sam-web --checkpoints`` (nothing outside it). Bots of
one's own are offered by their code spec (``my_agent.py:MyBot``, ``my_package.bots:make``) when the
server is started with ``sam-web --bots SPEC ...``: the page can name no code but those.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sam_env.agents.registry import available, can_play, grouped, load_bot
from sam_env.bot import Bot
from sam_env.core import RuleConfig, RuleConfigError
from sam_env.core.rules import (
    BAO1_CHOICES,
    FINISH_ON_TWO_CHOICES,
    FIRST_LEADER_CHOICES,
    INSTANT_WIN_TYPES,
    INT_RANGES,
    MAX_PLAYERS,
    MIN_PLAYERS,
)

from .coach import coach_for
from .errors import BadRequest, Conflict
from .files import resolve_under
from .games import HUMAN, Game
from .recordings import Recordings
from .schemas import NewGame

CHECKPOINT_PREFIX = "checkpoint:"


class BotCatalogue:
    """The bots the page offers: every registry name, the code specs of ``bots`` (``sam-web --bots``) and the
    checkpoints under ``checkpoints``."""

    def __init__(self, checkpoints: Path | None = None, bots: tuple[str, ...] = ()) -> None:
        self.checkpoints = None if checkpoints is None else checkpoints.resolve()
        self.bots = tuple(dict.fromkeys(bots))
        self._listing: list[dict[str, Any]] | None = None

    def listing(self) -> list[dict[str, Any]]:
        """``[{"name", "group", "players": [seat counts it can play]}]``: the registry's groups (``best`` first),
        then the bots of ``sam-web --bots`` and the checkpoints (built once: loads networks)."""
        if self._listing is None:
            entries: list[tuple[str | Path, str, str]] = [(n, n, group) for group, names in grouped() for n in names]
            entries += [(spec, spec, "your bots") for spec in self.bots]
            for json_path in self._checkpoint_files():
                label = CHECKPOINT_PREFIX + json_path.relative_to(self.checkpoints).as_posix()
                entries.append((json_path, label, "checkpoints"))
            out = []
            for spec, label, group in entries:
                seats = [n for n in range(MIN_PLAYERS, MAX_PLAYERS + 1) if _fits(spec, n)]
                if seats:
                    out.append({"name": label, "group": group, "players": seats})
            self._listing = out
        return self._listing

    def _checkpoint_files(self) -> list[Path]:
        if self.checkpoints is None:
            return []
        return sorted(p for p in self.checkpoints.rglob("*.json") if p.with_suffix(".safetensors").is_file())

    def spec(self, name: object) -> str | Path:
        """The :func:`load_bot` spec of a bot name from a request; :class:`BadRequest` if it names none."""
        if not isinstance(name, str) or not name:
            raise BadRequest(f"a bot is named by a string such as 'ppo' or 'checkpoint:run/final', got {name!r}")
        if name.startswith(CHECKPOINT_PREFIX):
            if self.checkpoints is None:
                raise BadRequest(f"{name!r}: this server has no checkpoint folder (start it with --checkpoints DIR)")
            return resolve_under(self.checkpoints, name[len(CHECKPOINT_PREFIX) :], "checkpoint folder")
        if name in self.bots:
            return name
        if name not in available():
            raise BadRequest(
                f"unknown bot {name!r}; known: {', '.join([*available(), *self.bots])}"
                + (", or checkpoint:<path under the checkpoint folder>" if self.checkpoints else "")
            )
        return name


def _fits(spec: str | Path, n_players: int) -> bool:
    try:
        return can_play(spec, RuleConfig(n_players=n_players))
    except (ValueError, OSError):
        return False


def rules_options() -> dict[str, Any]:
    """The rule options the page's form offers, with their defaults and the ranges of the numeric ones."""
    return {
        "defaults": RuleConfig().to_dict(),
        "ranges": {name: list(bounds) for name, bounds in INT_RANGES.items()},
        "choices": {
            "n_players": list(range(MIN_PLAYERS, MAX_PLAYERS + 1)),
            "first_leader": list(FIRST_LEADER_CHOICES),
            "bao1": list(BAO1_CHOICES),
            "finish_on_two": list(FINISH_ON_TWO_CHOICES),
            "instant_wins": list(INSTANT_WIN_TYPES),
        },
    }


def new_game(
    request: NewGame, catalogue: BotCatalogue, recordings: Recordings | None = None
) -> tuple[Game, int | None]:
    """A game (not started yet) and its seed, from the checked body of ``POST /api/games``.

    Every field is optional: 4 players, the default rules, seat 0, three heuristic bots, a fresh seed, no
    coach, not recorded. ``opponents``: ``n - 1`` bot names in turn order after the person's seat, or one
    name for all. ``record``: kept in ``recordings`` under the token ``recording`` names (a new one if
    None), refused (409) when this server keeps none or cannot write them, before any bot loads.
    """
    rules = _rules(request.rules, request.players)
    n = rules.n_players
    seat = request.seat
    if not 0 <= seat < n:
        raise BadRequest(f"seat must be a seat from 0 to {n - 1} for {n} players, got {seat!r}")
    names = [request.opponents] if isinstance(request.opponents, str) else list(request.opponents)
    if not names:
        raise BadRequest("opponents must name at least one bot (one name for every other seat, or one per seat)")
    lineup = names * (n - 1) if len(names) == 1 else names
    if len(lineup) != n - 1:
        raise BadRequest(
            f"opponents needs {n - 1} names for {n} players (or one name for every seat), got {len(names)}"
        )
    recording = None
    if request.record:
        if recordings is None:
            raise Conflict("this server keeps no recordings (start sam-web with --record-dir DIR)")
        recordings.require_writable()
        recording = (recordings, recordings.token(request.recording))
    coach = coach_for(n) if request.coach else None
    players, bots = [HUMAN] * n, [None] * n
    seed = request.seed
    bot_seeds = secrets.randbits(31) if seed is None else seed
    for j, name in enumerate(lineup, start=1):
        spec = catalogue.spec(name)
        players[(seat + j) % n] = name
        bots[(seat + j) % n] = _bot(name, spec, bot_seeds + j, rules)
    return Game(rules, seat, players, bots, coach, recording), seed


def _bot(name: str, spec: str | Path, seed: int, rules: RuleConfig) -> Bot:
    try:
        return load_bot(spec, seed, rules)
    except (ValueError, OSError) as err:
        fitting = ", ".join(n for n in available() if can_play(n, rules))
        reason = " ".join(str(err).split())
        raise BadRequest(
            f"bot {name!r} cannot play this {rules.n_players}-player table: {reason}. Bots that fit: {fitting}"
        ) from None


def _rules(options: Mapping[str, Any], players: int | None) -> RuleConfig:
    options = dict(options)
    if players is not None:
        if "n_players" in options and options["n_players"] != players:
            raise BadRequest(f"players={players!r} and rules.n_players={options['n_players']!r} disagree; give one")
        options["n_players"] = players
    try:
        return RuleConfig.from_dict(options)
    except (RuleConfigError, TypeError) as err:
        raise BadRequest(f"bad rules: {err}") from None
