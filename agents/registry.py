"""Bots by spec: the one function (:func:`load_bot`) that turns a name, a checkpoint path, a
checkpoint in memory or your own code into a bot, for evaluation workers, command lines and training alike.

A registry entry is a factory ``seed -> Bot``. Adding a rule bot is one more entry in ``FACTORIES``; a
shipped network is one more entry of the catalogue (:mod:`.networks.catalogue`), which the registry reads.
A spec is plain data that pickles, so nothing needs registering at run time: a policy being trained is
evaluated by passing its checkpoint, and a bot of your own by ``package.module:attr`` or
``path/to/file.py:attr`` (:mod:`.code_specs`, :mod:`.bot_objects`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import partial

from sam_env.bot import Bot, RandomBot
from sam_env.core import RuleConfig
from sam_env.utils.deprecation import warn_deprecated

from .bot_objects import PickledBot, as_bot, object_label, probe_bot
from .code_specs import is_code_spec, load_code_object
from .greedy_bot import GreedyBot
from .heuristic.bot import HeuristicBot
from .llm import ChatSpec, chat_agent, is_chat_spec
from .llm import parse as parse_chat_spec
from .networks import catalogue
from .networks.catalogue import is_shipped, resolve, shipped_bot
from .networks.format import CheckpointError, check_seat_count, is_checkpoint_path
from .networks.policy.bot import PPOBot
from .networks.policy.checkpoint import PolicyCheckpoint
from .networks.qnet.bot import QBot
from .networks.qnet.checkpoint import QCheckpoint, is_qnet_checkpoint
from .panel import PANEL_BOTS
from .search import SearchBot
from .search.bot import DMC_SEARCH_NAME

BotFactory = Callable[[int | None], Bot]


def _at_four_seats(name: str, seed: int | None = None) -> Bot:
    """A family name or ``best`` with no table given: its 4-seat network (resolved when the bot is made)."""
    return shipped_bot(resolve(name).name, seed, label=name)


FACTORIES: dict[str, BotFactory] = {
    RandomBot.name: RandomBot,
    GreedyBot.name: GreedyBot,
    HeuristicBot.name: HeuristicBot,
}
# The held-out panel (agents/panel): evaluation opponents that no training config may seat.
FACTORIES.update(PANEL_BOTS)
# The shipped networks (agents/networks/catalogue.py): each network by its name and its aliases, each family
# by its name (its 4-seat member where no table is given), and "best" (the recommended network).
FACTORIES.update({name: partial(shipped_bot, name) for name in catalogue.shipped_names()})
FACTORIES.update({name: partial(_at_four_seats, name) for name in [*catalogue.families(), catalogue.BEST]})
# The shipped "ppo" networks with determinized search at decision time (agents/search/).
FACTORIES[SearchBot.name] = partial(SearchBot.over_shipped, "ppo")
# The recommended Q-network of each table size ("best") with search at decision time.
FACTORIES[DMC_SEARCH_NAME] = partial(SearchBot.dmc_search, 4)
BUILT_IN = frozenset(FACTORIES)
"""The names shipped with sam-env; :func:`register` adds others in one process (:func:`registered_at_run_time`)."""


class UnknownAgentError(ValueError):
    """An agent name that the registry does not know."""


def available() -> list[str]:
    """Names :func:`make_agent` accepts, sorted."""
    return sorted(FACTORIES)


def grouped() -> list[tuple[str, list[str]]]:
    """The bots as the apps list them: ``best`` first, then rule bots, the held-out panel, the networks by family
    (the family names, newest generation first: each loads its member for the table), the search bot, and any
    bot registered at run time. Networks' own names and old aliases load too but are not listed."""
    families = list(dict.fromkeys(e.family for e in catalogue.entries()))
    groups = [
        ("recommended", [catalogue.BEST]),
        ("rule bots", [RandomBot.name, GreedyBot.name, HeuristicBot.name]),
        ("held-out panel", list(PANEL_BOTS)),
        ("networks", sorted(families, key=_family_order)),
        ("search", [DMC_SEARCH_NAME, SearchBot.name]),
        ("registered", sorted(registered_at_run_time())),
    ]
    return [(group, names) for group, names in groups if names]


def listed() -> str:
    """The grouped names in one line, for help texts and error messages: ``best; rule bots: random, …; …``."""
    return "; ".join(f"{group}: {', '.join(names)}" for group, names in grouped())


def _family_order(family: str) -> tuple[str, int]:
    """By line (``dmc`` before ``ppo``, alphabetically), then the newest generation first (``dmc_v2``, ``dmc_v1``,
    ``ppo_v3`` …); a line of its own (``ppo_selfplay``) after the generations of its kind."""
    line, _, generation = family.rpartition("_v")
    return (line or family, -int(generation) if generation.isdigit() else 0)


def check_names(names: list[str] | tuple[str, ...]) -> None:
    """Raise :class:`UnknownAgentError` naming every unknown agent and listing the known ones."""
    unknown = [n for n in names if n not in FACTORIES]
    if unknown:
        raise UnknownAgentError(
            f"unknown agent name(s) {', '.join(map(repr, unknown))}; known agents: {listed()}; or a shipped network's "
            "own name or old name (python -m sam_env.agents.networks.catalogue lists them) "
            "(or a checkpoint: a policy.json, its stem, or the folder that holds it)"
        )


def make_agent(name: str, seed: int | None = None) -> Bot:
    """Build the agent registered as ``name``, with its own generator seeded by ``seed``.

    A factory added by :func:`register` may return any bot :func:`~.bot_objects.as_bot` takes (a batched
    policy is wrapped); it is called with ``seed=`` where it takes it, else with the seed alone."""
    check_names([name])
    if name not in BUILT_IN:
        return as_bot(FACTORIES[name], seed, None, name)
    return FACTORIES[name](seed)


def register(name: str, factory: BotFactory, replace: bool = False) -> None:
    """Add a bot under ``name`` in this process.

    A tournament's worker processes are started fresh (``spawn``), so they receive the factories
    registered here by pickle (:func:`registered_at_run_time`): a class or a module-level function
    travels by reference, and a lambda or a closure cannot travel, so matches that seat it are played
    in this process. A spec (``package.module:attr``, ``path/to/file.py:attr``, a checkpoint) needs
    no registering: every process builds the bot from it.
    """
    if name in BUILT_IN:
        raise ValueError(f"{name!r} is a bot shipped with sam-env; register yours under another name")
    if name in FACTORIES and not replace:
        raise ValueError(f"an agent named {name!r} is already registered")
    if is_code_spec(name):
        raise ValueError(f"{name!r} reads as a bot spec (module:attr); register under a name without ':'")
    FACTORIES[name] = factory


def registered_at_run_time() -> dict[str, BotFactory]:
    """The names added by :func:`register` in this process, with their factories."""
    return {name: factory for name, factory in FACTORIES.items() if name not in BUILT_IN}


BotSpec = str | os.PathLike | PolicyCheckpoint | QCheckpoint
"""What names a bot anywhere a bot is asked for: a registered name (``"heuristic"``, ``"ppo"``), a
checkpoint path (see :func:`~sam_env.agents.networks.format.checkpoint_files`; a policy, or a Q-network of
:mod:`sam_env.agents.networks.qnet`), or a checkpoint in memory. All three
pickle, so a tournament sends specs to its worker processes and each builds its own bots.

Your own code: a code spec ``package.module:attr`` or ``path/to/file.py:attr`` (:mod:`.code_specs`), or
an object pickled for worker processes (:class:`~.bot_objects.PickledBot`); both are plain data too."""


def load_bot(spec: BotSpec | object, seed: int | None = None, rules: RuleConfig | None = None) -> Bot:
    """A bot ready to play, from a :data:`BotSpec` or from an object of your own.

    A code spec ``package.module:attr`` / ``path/to/file.py:attr`` names a :class:`~sam_env.Bot` class or
    factory (called with ``seed=`` and ``rules=`` where its signature takes them), a bot instance, or a
    batched policy ``(observations, masks) -> actions``; any of these may also be passed as the object
    itself (:func:`~.bot_objects.as_bot`). A spec that does not import raises
    :class:`~.code_specs.BotSpecError` naming the module and the import error; an object that is not a
    bot, one naming what was expected.

    ``rules``: the table it must fit. Rule-based bots play every table. A network fits only the
    seat count it was trained for (its observation layout depends on it): a shipped family name such as
    ``"dmc_v2"`` loads its member for the table, ``"best"`` the recommended network for it
    (:mod:`~sam_env.agents.networks.catalogue`); a name or checkpoint that does not fit is refused with a
    :class:`~sam_env.agents.networks.format.CheckpointError` naming the table and what would fit. A path's
    metadata is checked against this sam-env before use.
    ``"ppo_search"`` is the shipped ``"ppo"`` network for the table with search at decision time
    (:mod:`sam_env.agents.search`), ``"dmc_search"`` the recommended Q-network (``"best"``) with search.
    """
    n_players = None if rules is None else rules.n_players
    if is_chat_spec(spec) or isinstance(spec, ChatSpec):  # a language model behind an endpoint (agents/llm)
        return chat_agent(spec, seed)  # type: ignore[arg-type]
    if isinstance(spec, PolicyCheckpoint):
        check_seat_count(spec.source, spec.rules.n_players, n_players)
        return PPOBot(spec, seed=seed, name=label_of(spec))
    if isinstance(spec, QCheckpoint):
        check_seat_count(spec.source, spec.rules.n_players, n_players)
        return QBot(spec, seed=seed, name=label_of(spec))
    if isinstance(spec, PickledBot):
        return as_bot(spec.load(), seed, rules, spec.label)
    if not isinstance(spec, (str, os.PathLike)):
        return as_bot(spec, seed, rules)
    if isinstance(spec, str) and spec not in FACTORIES and is_code_spec(spec):
        return as_bot(load_code_object(spec), seed, rules, spec)
    # One rule for paths: a path object always names a checkpoint; a string does unless it is a
    # registered name (which wins over a file of the same name).
    if isinstance(spec, os.PathLike) or (spec not in FACTORIES and is_checkpoint_path(spec)):
        if is_qnet_checkpoint(spec):
            return QBot.from_checkpoint(spec, seed=seed, n_players=n_players, name=label_of(spec))
        return PPOBot.from_checkpoint(spec, seed=seed, n_players=n_players, name=label_of(spec))
    if rules is not None and is_shipped(spec):
        return shipped_bot(resolve(spec, n_players).name, seed=seed, label=spec)
    if rules is not None and spec == SearchBot.name:
        return SearchBot.over_shipped(resolve("ppo", n_players).name, seed=seed)
    if rules is not None and spec == DMC_SEARCH_NAME:
        return SearchBot.dmc_search(rules.n_players, seed=seed)
    if spec in FACTORIES and spec not in BUILT_IN:  # registered at run time: given the rules too, where it takes them
        return as_bot(FACTORIES[spec], seed, rules, spec)
    return make_agent(spec, seed)


def load_network(path: str | os.PathLike, n_players: int | None = None) -> PolicyCheckpoint | QCheckpoint:
    """Deprecated since 0.4.0, removed in the next release: :func:`sam_env.agents.networks.catalogue.load_network`."""
    warn_deprecated("sam_env.agents.registry.load_network", "sam_env.agents.networks.catalogue.load_network")
    return catalogue.load_network(path, n_players)


def label_of(spec: BotSpec | object) -> str:
    """The name a bot spec goes by in reports: the registry name, the path, the code spec as written,
    the checkpoint's source, or an object's name (a bot's own ``name``, else its class or function name)."""
    if isinstance(spec, (PolicyCheckpoint, QCheckpoint)):
        return spec.source
    if isinstance(spec, PickledBot):
        return spec.label
    if isinstance(spec, ChatSpec):
        return spec.label()
    if is_chat_spec(spec):  # the settings that change its moves, in a fixed order: not the spec as written
        return parse_chat_spec(spec).label()  # type: ignore[arg-type]
    if isinstance(spec, (str, os.PathLike)):
        return os.fspath(spec) if isinstance(spec, os.PathLike) else spec
    return object_label(spec)


def can_play(spec: BotSpec | object, rules: RuleConfig) -> bool:
    """Whether the bot can sit at a table with these rules (see :func:`load_bot`). A bot of your own (a
    code spec, an object) must also answer a first decision of the table legally (:func:`~.bot_objects.probe_bot`)."""
    try:
        bot = load_bot(spec, rules=rules)
    except CheckpointError:
        return False
    if (isinstance(spec, str) and spec in BUILT_IN) or isinstance(spec, (os.PathLike, PolicyCheckpoint, QCheckpoint)):
        return True
    try:
        probe_bot(bot, rules, label_of(spec))
    except ValueError:
        return False
    return True
