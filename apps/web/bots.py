"""Which bots a table can seat, and a new game from the JSON of ``POST /api/games``.

Bots are named as everywhere else (:func:`sam_env.agents.registry.load_bot`): a registry name (``random``,
``heuristic``, ``ppo``, ``ppo_search`` …) or, for a network of one's own, ``checkpoint:<path>``
with the path relative to the folder given to ``sam-web --checkpoints`` (nothing outside it).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sam_env.agents.registry import available, can_play, load_bot

from sam_env.bot import Bot
from sam_env.core import RuleConfig, RuleConfigError
from sam_env.core.rules import (
    BAO1_CHOICES,
    FINISH_ON_TWO_CHOICES,
    FIRST_LEADER_CHOICES,
    INSTANT_WIN_TYPES,
    MAX_PLAYERS,
    MIN_PLAYERS,
)

from .errors import BadRequest
from .files import resolve_under
from .games import HUMAN, Game

CHECKPOINT_PREFIX = "checkpoint:"
GAME_KEYS = ("players", "rules", "seat", "opponents", "seed")
DEFAULT_OPPONENT = "heuristic"


class BotCatalogue:
    """The bots the page offers: every registry name and the checkpoints under ``checkpoints``."""

    def __init__(self, checkpoints: Path | None = None) -> None:
        self.checkpoints = None if checkpoints is None else checkpoints.resolve()
        self._listing: list[dict[str, Any]] | None = None

    def listing(self) -> list[dict[str, Any]]:
        """``[{"name", "players": [seat counts it can play]}]``, registry names first (built once: loads networks)."""
        if self._listing is None:
            names: list[str | Path] = list(available())
            labels = list(available())
            for json_path in self._checkpoint_files():
                names.append(json_path)
                labels.append(CHECKPOINT_PREFIX + json_path.relative_to(self.checkpoints).as_posix())
            out = []
            for spec, label in zip(names, labels, strict=True):
                seats = [n for n in range(MIN_PLAYERS, MAX_PLAYERS + 1) if _fits(spec, n)]
                if seats:
                    out.append({"name": label, "players": seats})
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
        if name not in available():
            raise BadRequest(
                f"unknown bot {name!r}; known: {', '.join(available())}"
                + (", or checkpoint:<path under the checkpoint folder>" if self.checkpoints else "")
            )
        return name


def _fits(spec: str | Path, n_players: int) -> bool:
    try:
        return can_play(spec, RuleConfig(n_players=n_players))
    except (ValueError, OSError):
        return False


def rules_options() -> dict[str, Any]:
    """The rule options the page's form offers, with their defaults."""
    return {
        "defaults": RuleConfig().to_dict(),
        "choices": {
            "n_players": list(range(MIN_PLAYERS, MAX_PLAYERS + 1)),
            "first_leader": list(FIRST_LEADER_CHOICES),
            "bao1": list(BAO1_CHOICES),
            "finish_on_two": list(FINISH_ON_TWO_CHOICES),
            "instant_wins": list(INSTANT_WIN_TYPES),
        },
    }


def new_game(body: object, catalogue: BotCatalogue) -> tuple[Game, int | None]:
    """A game (not started yet) and its seed, from ``{players, rules, seat, opponents, seed}``.

    Every field is optional: 4 players, the default rules, seat 0, three heuristic bots, a fresh seed.
    ``opponents``: ``n - 1`` bot names in turn order after the person's seat, or one name for all.
    """
    if not isinstance(body, Mapping):
        raise BadRequest(f"the body must be a JSON object with some of {list(GAME_KEYS)}, got {body!r}")
    unknown = sorted(str(k) for k in body if k not in GAME_KEYS)
    if unknown:
        raise BadRequest(f"unknown field(s) {unknown}; a new game takes some of {list(GAME_KEYS)}")
    rules = _rules(body.get("rules", {}), body.get("players"))
    n = rules.n_players
    seat = body.get("seat", 0)
    if not _is_int(seat) or not 0 <= seat < n:
        raise BadRequest(f"seat must be a seat from 0 to {n - 1} for {n} players, got {seat!r}")
    seed = body.get("seed")
    if seed is not None and (not _is_int(seed) or seed < 0):
        raise BadRequest(f"seed must be a non-negative int or null (a fresh random table), got {seed!r}")
    names = body.get("opponents", [DEFAULT_OPPONENT])
    if isinstance(names, str):
        names = [names]
    if not isinstance(names, list) or not names:
        raise BadRequest(f"opponents must be a list of bot names (or one name for every other seat), got {names!r}")
    lineup = names * (n - 1) if len(names) == 1 else names
    if len(lineup) != n - 1:
        raise BadRequest(
            f"opponents needs {n - 1} names for {n} players (or one name for every seat), got {len(names)}"
        )
    players, bots = [HUMAN] * n, [None] * n
    bot_seeds = secrets.randbits(31) if seed is None else seed
    for j, name in enumerate(lineup, start=1):
        spec = catalogue.spec(name)
        players[(seat + j) % n] = name
        bots[(seat + j) % n] = _bot(name, spec, bot_seeds + j, rules)
    return Game(rules, seat, players, bots), seed


def _bot(name: str, spec: str | Path, seed: int, rules: RuleConfig) -> Bot:
    try:
        return load_bot(spec, seed, rules)
    except (ValueError, OSError) as err:
        fitting = ", ".join(n for n in available() if can_play(n, rules))
        reason = " ".join(str(err).split())
        raise BadRequest(
            f"bot {name!r} cannot play this {rules.n_players}-player table: {reason}. Bots that fit: {fitting}"
        ) from None


def _rules(options: object, players: object) -> RuleConfig:
    if not isinstance(options, Mapping):
        raise BadRequest(f'rules must be a JSON object of rule options (e.g. {{"bao1": "forced"}}), got {options!r}')
    options = dict(options)
    if players is not None:
        if "n_players" in options and options["n_players"] != players:
            raise BadRequest(f"players={players!r} and rules.n_players={options['n_players']!r} disagree; give one")
        options["n_players"] = players
    try:
        return RuleConfig.from_dict(options)
    except (RuleConfigError, TypeError) as err:
        raise BadRequest(f"bad rules: {err}") from None


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
