"""Command-line options shared by the play and evaluation entry points: which rules, and which bots."""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from sam_env.agents.bot_objects import probe_bot
from sam_env.agents.code_specs import BotSpecError, is_code_spec
from sam_env.agents.registry import available, can_play, load_bot
from sam_env.core import RuleConfig, RuleConfigError
from sam_env.core.rules import MAX_PLAYERS, MIN_PLAYERS
from sam_env.utils.config_files import read_mapping


def add_rules_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("rules")
    group.add_argument(
        "--rules",
        metavar="FILE",
        type=Path,
        help="YAML or JSON file with RuleConfig options (e.g. 'bao1: forced'); defaults are docs/rules.md's",
    )
    group.add_argument(
        "--players",
        type=int,
        metavar="N",
        help=f"seats at the table, {MIN_PLAYERS}-{MAX_PLAYERS} (overrides n_players from --rules; default 4)",
    )


def rules_from_args(args: argparse.Namespace) -> RuleConfig:
    """The RuleConfig the options describe; raises ``ValueError`` with a readable message."""
    options: dict[str, object] = {}
    if args.rules is not None:
        options = load_rules_file(args.rules)
    if args.players is not None:
        options["n_players"] = args.players
    try:
        return RuleConfig.from_dict(options)
    except RuleConfigError as err:
        raise ValueError(f"bad rules: {err}") from None


def load_rules_file(path: Path) -> dict[str, object]:
    """Read a mapping of rule options from a YAML or JSON file."""
    return read_mapping(path, "rules file")


class BotDoesNotFit(ValueError):
    """A requested bot cannot sit at the table; the message is one line naming the bot, the table and
    the bots that would fit."""


@contextmanager
def refusals_reported(parser: argparse.ArgumentParser) -> Iterator[None]:
    """Turn a refusal of the options into the parser's exit: a bot that does not fit in one line with
    no usage (the options were well formed), any other ``ValueError`` as a usage error."""
    try:
        yield
    except BotDoesNotFit as err:
        parser.exit(2, f"{parser.prog}: error: {err}\n")
    except ValueError as err:
        parser.error(str(err))


def describe_table(rules: RuleConfig) -> str:
    """The table in a few words: its seat count and the rule options that differ from the defaults."""
    defaults = RuleConfig(n_players=rules.n_players).to_dict()
    changed = [f"{k}={v}" for k, v in rules.to_dict().items() if defaults[k] != v]
    return f"the {rules.n_players}-player table" + (f" ({', '.join(changed)})" if changed else " (default rules)")


def check_bots(names: Sequence[str], rules: RuleConfig | None = None) -> None:
    """Build each named bot once for ``rules``, so that an unknown name, a checkpoint that does not
    load, a network made for another table or a bot of your own (``package.module:attr``,
    ``path/to/file.py:attr``) that does not import or fails its first decision is refused before play
    starts, with one line that says which bot, which table, and which bots would fit (:class:`BotDoesNotFit`)."""
    rules = RuleConfig() if rules is None else rules
    for name in dict.fromkeys(names):
        try:
            bot = load_bot(name, rules=rules)
            if is_code_spec(name) and name not in available():
                probe_bot(bot, rules, name)
        except BotSpecError as err:  # names the spec, the module and the error: nothing to add
            raise BotDoesNotFit(" ".join(str(err).split())) from None
        except (ValueError, OSError) as err:
            fitting = ", ".join(n for n in available() if can_play(n, rules))
            reason = " ".join(str(err).split())  # one line, whatever the error's own layout
            raise BotDoesNotFit(
                f"bot {name!r} cannot play {describe_table(rules)}: {reason}. Bots that fit this table: {fitting}"
            ) from None


def opponent_lineup(names: Sequence[str], n_players: int) -> list[str]:
    """The ``--opponents`` of one seat: ``n - 1`` names in turn order, or one name for every other seat."""
    lineup = list(names) * (n_players - 1) if len(names) == 1 else list(names)
    if len(lineup) != n_players - 1:
        raise ValueError(
            f"--opponents needs {n_players - 1} names for {n_players} players (or one name for every seat), "
            f"got {len(names)}"
        )
    return lineup
