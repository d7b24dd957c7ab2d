"""The catalogue of shipped networks: the only list of them, what each is, and which one to use at each table size.

Every network shipped in ``agents/networks/shipped/`` (``<name>.json`` + ``<name>.safetensors``) has one
:class:`ShippedNetwork` entry here: its kind, its table size, its family and generation, what it was
trained from, the protocol-v1 headline score it shipped with, and whether it is the one recommended for
its table size. ``tests/agents/test_catalogue.py`` holds the entries to the files (kind and seats from the
metadata, one file per entry, one entry per file) and the scores to the committed leaderboard.

Names read one way. A network's name is its family, ``<line>_v<generation>`` (or a line of its own such as
``ppo_selfplay``), plus ``_<k>p`` off 4 seats:
``dmc_v2`` is newer than ``dmc_v1``, ``ppo_v3`` than ``ppo_v2``. Three kinds of name load a network:

* a network's own name (``dmc_v2_5p``), or an old name kept as its alias (``dmc_5p``): that network;
* a family name (``dmc_v2``, ``ppo_v3``, or the alias families ``dmc`` and ``ppo``): its member for the
  table's seat count, refused with a message listing the sizes the family has;
* ``best``: the recommended network for the table's seat count, judged by protocol v1's headline score.
  ``best`` moves when a stronger network ships, so results files, replays and logs record what it
  resolved to (:func:`resolutions`; a results file's fingerprint names it too).

The old names load the same weights forever: protocol v1 pins ``ppo``, ``ppo_2p``, ``ppo_3p``, ``ppo_5p``,
``ppo_v1``, ``ppo_v2`` and ``ppo_selfplay`` by the SHA-256 of their weights, and leaderboard entries are
named ``dmc``, ``dmc_v2`` and ``ppo``.

``python -m sam_env.agents.networks.catalogue`` prints the catalogue as a Markdown table.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from sam_env.bot import Bot
from sam_env.core import RuleConfig

from .format import CheckpointError, NetworkCheckpoint, checkpoint_files, checkpoint_format, write_checkpoint
from .policy.bot import PPOBot
from .policy.checkpoint import PolicyCheckpoint
from .qnet.bot import QBot
from .qnet.checkpoint import FORMAT as QNET_FORMAT
from .qnet.checkpoint import QCheckpoint

SHIPPED_DIR = Path(__file__).resolve().parent / "shipped"
"""Where the shipped networks' files are (package data)."""

BEST = "best"
"""The name that loads the recommended network for a table's seat count."""


@dataclass(frozen=True)
class ProtocolScore:
    """A protocol-v1 headline score (mean X/hand over the suite but ``random``) with its 95 % interval."""

    tier: str
    x_per_hand: float
    ci_low: float
    ci_high: float
    results: str
    """The committed results file it comes from (``leaderboard/…``)."""

    def __str__(self) -> str:
        return f"{self.x_per_hand:+.2f} [{self.ci_low:+.2f}, {self.ci_high:+.2f}] ({self.tier})"


SEATS_SUFFIX = re.compile(r"_(\d)p$")
"""The end of a network's name off 4 seats (``dmc_v2_5p``)."""


@dataclass(frozen=True)
class ShippedNetwork:
    """One shipped network: the catalogue's entry for it."""

    name: str
    """Its file stem and its name for :func:`sam_env.load_bot`."""
    kind: str
    """``policy`` (a PPO policy, :mod:`.policy`) or ``qnet`` (a Q-network, :mod:`.qnet`)."""
    lineage: str
    """What trained it, and from what."""
    aliases: tuple[str, ...] = ()
    """Older names that load the same weights."""
    protocol_v1: ProtocolScore | None = None
    """The protocol-v1 headline score it shipped with (``None``: not measured as a candidate)."""
    recommended: bool = False
    """Whether :data:`BEST` loads it at its table size."""

    @property
    def seats(self) -> int:
        """The only table size it plays (its observation layout depends on it), as its name says: ``_<k>p``, else 4."""
        found = SEATS_SUFFIX.search(self.name)
        return 4 if found is None else int(found[1])

    @property
    def family(self) -> str:
        """The family and generation it belongs to (``dmc_v2``): its name without the seats, the name that loads
        it at its seat count."""
        return SEATS_SUFFIX.sub("", self.name)

    @property
    def weights(self) -> Path:
        return SHIPPED_DIR / f"{self.name}.safetensors"


def _score(name: str, tier: str, players: int, x: float, low: float, high: float) -> ProtocolScore:
    return ProtocolScore(tier, x, low, high, f"leaderboard/{name}.v1-{players}p-{tier}.results.json")


CATALOGUE: tuple[ShippedNetwork, ...] = (
    ShippedNetwork(
        "dmc_v2",
        "qnet",
        "dmc_v1 trained 120M moves further (configs/past_runs/dmc_more.yaml)",
        protocol_v1=_score("dmc_v2", "full", 4, 3.91, 3.80, 4.01),
        recommended=True,
    ),
    ShippedNetwork(
        "dmc_v2_2p",
        "qnet",
        "dmc_v1_2p trained 100M moves further (configs/past_runs/dmc_2p_more.yaml)",
        protocol_v1=_score("dmc_v2", "quick", 2, 2.83, 2.66, 3.00),
        recommended=True,
    ),
    ShippedNetwork(
        "dmc_v2_5p",
        "qnet",
        "dmc_v1_5p trained 100M moves further (configs/past_runs/dmc_5p_more.yaml)",
        protocol_v1=_score("dmc_v2", "quick", 5, 4.47, 4.12, 4.83),
        recommended=True,
    ),
    ShippedNetwork(
        "dmc_v1",
        "qnet",
        "Deep Monte-Carlo from scratch, 100M moves (configs/past_runs/dmc_long.yaml)",
        ("dmc",),
        protocol_v1=_score("dmc", "full", 4, 3.51, 3.41, 3.61),
    ),
    ShippedNetwork(
        "dmc_v1_2p",
        "qnet",
        "Deep Monte-Carlo from scratch, 60M moves (configs/past_runs/dmc_2p.yaml)",
        ("dmc_2p",),
        protocol_v1=_score("dmc", "quick", 2, 2.67, 2.49, 2.84),
    ),
    ShippedNetwork(
        "dmc_v1_3p",
        "qnet",
        "Deep Monte-Carlo from scratch, 60M moves (configs/past_runs/dmc_3p.yaml)",
        ("dmc_3p",),
        protocol_v1=_score("dmc", "quick", 3, 3.56, 3.35, 3.76),
        recommended=True,
    ),
    ShippedNetwork(
        "dmc_v1_5p",
        "qnet",
        "Deep Monte-Carlo from scratch, 100M moves (configs/past_runs/dmc_5p.yaml)",
        ("dmc_5p",),
        protocol_v1=_score("dmc", "quick", 5, 4.00, 3.69, 4.32),
    ),
    ShippedNetwork(
        "ppo_v3",
        "policy",
        "batched PPO, 20M moves against heuristic seats, then 4M with past selves (configs/past_runs/pretrained.yaml)",
        ("ppo",),
        protocol_v1=_score("ppo", "full", 4, 1.63, 1.58, 1.68),
    ),
    ShippedNetwork(
        "ppo_v3_2p",
        "policy",
        "batched PPO at 2 seats against heuristic seats and past selves",
        ("ppo_2p",),
        protocol_v1=_score("ppo", "quick", 2, 1.85, 1.74, 1.96),
    ),
    ShippedNetwork(
        "ppo_v3_3p",
        "policy",
        "batched PPO at 3 seats against heuristic seats and past selves",
        ("ppo_3p",),
        protocol_v1=_score("ppo", "quick", 3, 2.10, 1.97, 2.23),
    ),
    ShippedNetwork(
        "ppo_v3_5p",
        "policy",
        "batched PPO at 5 seats against heuristic seats and past selves",
        ("ppo_5p",),
        protocol_v1=_score("ppo", "quick", 5, 2.04, 1.77, 2.31),
    ),
    ShippedNetwork("ppo_v2", "policy", "ppo_v1 fine-tuned 5M moves by batched PPO against itself and the heuristic"),
    ShippedNetwork(
        "ppo_v1",
        "policy",
        "sb3-contrib's MaskablePPO, 6M moves against rule bots and itself (configs/past_runs/ppo_v1.yaml)",
    ),
    ShippedNetwork(
        "ppo_selfplay",
        "policy",
        "batched PPO by pure self-play from scratch, never seating a rule bot (docs/self_play.md)",
    ),
)
"""Every shipped network: the recommended ones first, then by family, newest generation first."""

FAMILY_ALIASES: dict[str, str] = {"dmc": "dmc_v1", "ppo": "ppo_v3"}
"""Old family names: each loads the family it named when it was the only one (the same weights forever)."""


class CatalogueError(CheckpointError, KeyError):
    """A name the catalogue does not know, or a network that does not play the table asked for."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


def entries() -> tuple[ShippedNetwork, ...]:
    """The catalogue, in its order."""
    return CATALOGUE


@cache
def _by_name() -> dict[str, ShippedNetwork]:
    table = {e.name: e for e in CATALOGUE}
    table.update({alias: e for e in CATALOGUE for alias in e.aliases})
    return table


def shipped_names() -> list[str]:
    """Every name that loads one shipped network — the networks' own names and their aliases — sorted."""
    return sorted(_by_name())


def families() -> list[str]:
    """Every family name (the generations, then the alias families), each loading its member for a table."""
    return sorted({e.family for e in CATALOGUE} | set(FAMILY_ALIASES))


def entry(name: str) -> ShippedNetwork:
    """The entry of a network by its name or an alias; :class:`CatalogueError` listing the names otherwise."""
    try:
        return _by_name()[name]
    except KeyError:
        raise CatalogueError(f"no shipped network {name!r}; shipped: {', '.join(shipped_names())}") from None


def members(family: str) -> list[ShippedNetwork]:
    """The networks of ``family`` (a generation such as ``dmc_v2``, or an alias family such as ``dmc``), by seats."""
    family = FAMILY_ALIASES.get(family, family)
    return sorted((e for e in CATALOGUE if e.family == family), key=lambda e: e.seats)


def best_for(n_players: int) -> ShippedNetwork:
    """The recommended network for a table of ``n_players`` seats."""
    for e in CATALOGUE:
        if e.recommended and e.seats == n_players:
            return e
    sizes = sorted(e.seats for e in CATALOGUE if e.recommended)
    raise CatalogueError(
        f"no shipped network plays a {n_players}-player table; {BEST!r} has one for {_sizes(sizes)} seats. "
        "Rule-based bots (random, greedy, heuristic) play every table"
    )


def is_shipped(name: object) -> bool:
    """Whether ``name`` is a name the catalogue resolves: a network, an alias, a family or :data:`BEST`."""
    return isinstance(name, str) and (name == BEST or name in _by_name() or bool(members(name)))


def resolve(name: str, n_players: int | None = None) -> ShippedNetwork:
    """The network ``name`` loads at a table of ``n_players`` seats (``None``: the name's own network, or a
    family's 4-seat member).

    Raises :class:`CatalogueError` naming what was asked and what there is: an unknown name, a network made
    for another seat count, a family or :data:`BEST` without a member for this one.
    """
    if name == BEST:
        return best_for(4 if n_players is None else n_players)
    family = members(name)
    if family and (name not in _by_name() or n_players not in (None, _by_name()[name].seats)):
        seats = 4 if n_players is None else n_players
        for e in family:
            if e.seats == seats:
                return e
        raise CatalogueError(
            f"the shipped family {name!r} has no network for a {seats}-player table; it has "
            f"{', '.join(f'{e.name} ({e.seats} players)' for e in family)}. {BEST!r} loads the recommended network "
            "of every size, rule-based bots (random, greedy, heuristic) play every table, or train one with "
            f"train.py --set rules.n_players={seats}"
        )
    found = entry(name)
    if n_players is not None and found.seats != n_players:
        raise CatalogueError(
            f"the shipped network {name!r} plays {found.seats}-player tables, not {n_players}-player ones; "
            f"for {n_players} players: {BEST!r} or a family with one ({', '.join(_families_with(n_players))})"
        )
    return found


def shipped_network_for(name: str, rules: RuleConfig) -> str:
    """The name of the shipped network ``name`` loads at a table of ``rules`` (:func:`resolve`)."""
    return resolve(name, rules.n_players).name


def shipped_checkpoint(name: str) -> PolicyCheckpoint | QCheckpoint:
    """A shipped network's checkpoint (by its name or an alias), read and checked once per process."""
    return _load(entry(name))


@cache
def _load(found: ShippedNetwork) -> PolicyCheckpoint | QCheckpoint:
    path = SHIPPED_DIR / f"{found.name}.json"
    return QCheckpoint.load(path) if found.kind == "qnet" else PolicyCheckpoint.load(path)


def shipped_bot(name: str, seed: int | None = None, *, label: str | None = None) -> Bot:
    """The bot that plays the shipped network ``name`` (``label``: its name in reports, default ``name``)."""
    checkpoint = shipped_checkpoint(name)
    if isinstance(checkpoint, QCheckpoint):
        return QBot(checkpoint, seed=seed, name=label or name)
    return PPOBot(checkpoint, seed=seed, name=label or name)


SEARCHES: dict[str, str] = {"ppo_search": "ppo", "dmc_search": BEST}
"""The registry's searches at decision time (:mod:`sam_env.agents.search`), each by the shipped name of the network it
searches over at every table size: what :func:`resolutions` and a results file's fingerprint record of them."""


def resolutions(names: Iterable[object], n_players: int) -> dict[str, dict[str, str]]:
    """What each shipped name among ``names`` loads at a table of ``n_players``, where that is not the name itself:
    ``{"best": {"network": "dmc_v2", "sha256": …}}`` — the record a results file, replay or log keeps of it; for a
    search (:data:`SEARCHES`), the network it searches over."""
    out: dict[str, dict[str, str]] = {}
    for name in names:
        if isinstance(name, str) and (is_shipped(name) or name in SEARCHES) and name not in out:
            found = resolve(SEARCHES.get(name, name), n_players)
            if found.name != name:
                # the hash the metadata records, checked against the file when the network loaded
                recorded = shipped_checkpoint(found.name).metadata["weights"]["sha256"]
                out[name] = {"network": found.name, "sha256": recorded}
    return out


def copy_network(source: str | Path, destination: str | Path) -> Path:
    """Check a checkpoint of either kind and write it under a new stem (how a network is shipped:
    ``copy_network("runs/<run>/final", "agents/networks/shipped/dmc_v3")``, then an entry here); return the
    new JSON path. Renaming the files by hand would leave the metadata naming the old weights file."""
    checkpoint = load_network(source)
    metadata = {k: v for k, v in checkpoint.metadata.items() if k != "weights"}
    json_path, weights_path = checkpoint_files(destination)
    type(checkpoint).in_memory(checkpoint.tensors, metadata, str(json_path))
    return write_checkpoint(json_path, weights_path, checkpoint.tensors, metadata)


def load_network(path: str | Path, n_players: int | None = None) -> PolicyCheckpoint | QCheckpoint:
    """The checkpoint ``path`` names, checked: a policy, or a Q-network when its metadata says so."""
    kind: type[NetworkCheckpoint] = QCheckpoint if checkpoint_format(path) == QNET_FORMAT else PolicyCheckpoint
    return kind.load(path, n_players)  # type: ignore[return-value]


def markdown_table() -> str:
    """The catalogue as a Markdown table: the docs' and the README's list of networks."""
    rows = ["| name | kind | seats | family | protocol v1 headline X/hand | recommended | also loads as | trained |"]
    rows.append("|---|---|---:|---|---|:---:|---|---|")
    for e in CATALOGUE:
        score = "—" if e.protocol_v1 is None else str(e.protocol_v1)
        aliases = ", ".join(f"`{a}`" for a in e.aliases) or "—"
        star = f"`{BEST}`" if e.recommended else ""
        kind = "Q-network" if e.kind == "qnet" else "policy"
        rows.append(f"| `{e.name}` | {kind} | {e.seats} | `{e.family}` | {score} | {star} | {aliases} | {e.lineage} |")
    return "\n".join(rows)


def _families_with(n_players: int) -> list[str]:
    """The family names (alias families included) that have a network for ``n_players`` seats."""
    return [f for f in families() if any(e.seats == n_players for e in members(f))]


def _sizes(sizes: list[int]) -> str:
    return ", ".join(map(str, sizes[:-1])) + (" and " if len(sizes) > 1 else "") + str(sizes[-1])


def best_table() -> str:
    """``best`` at each table size as a Markdown table: the README's and the docs' "which bot for which table"."""
    rows = ['| seats | `load_bot("best", rules=RuleConfig(n_players=k))` loads | protocol v1 headline X/hand |']
    rows.append("|---:|---|---:|")
    for players in sorted({e.seats for e in CATALOGUE}):
        best = best_for(players)
        score = "—" if best.protocol_v1 is None else f"{best.protocol_v1.x_per_hand:+.2f}"
        rows.append(f"| {players} | `{best.name}` | {score} |")
    return "\n".join(rows)


TABLES = {"catalogue": markdown_table, "best": best_table}
"""The tables :func:`main` writes into a page, each between its ``<!-- name:start -->``/``<!-- name:end -->`` markers
(docs/networks.md holds both, the README ``best``), so that no page keeps a copy of the catalogue by hand."""


def markers(name: str) -> tuple[str, str]:
    return f"<!-- {name}:start -->", f"<!-- {name}:end -->"


def main(argv: list[str] | None = None) -> None:
    """Print the catalogue's table, or write every table of :data:`TABLES` whose markers ``--markdown PAGE`` has."""
    import argparse

    parser = argparse.ArgumentParser(description="The shipped networks, as Markdown tables.")
    parser.add_argument("--markdown", type=Path, nargs="+", help="write the tables into these pages, between markers")
    args = parser.parse_args(argv)
    if args.markdown is None:
        print(markdown_table())
        return
    for page in args.markdown:
        text = page.read_text(encoding="utf-8")
        found = [name for name in TABLES if all(m in text for m in markers(name))]
        if not found:
            parser.error(f"{page} has none of the markers {', '.join(markers(n)[0] for n in TABLES)}")
        for name in found:
            start, end = markers(name)
            head, rest = text.split(start, 1)
            text = f"{head}{start}\n{TABLES[name]()}\n{end}{rest.split(end, 1)[1]}"
        page.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
