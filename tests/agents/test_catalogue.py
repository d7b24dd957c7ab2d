"""The catalogue of shipped networks (sam_env.agents.networks.catalogue): one entry per file, names that read one
way, families and ``best`` that load the member for the table, aliases that load the same weights, scores that are
the committed leaderboard's, and both kinds fingerprinted by their weights file."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from policy_files import ROOT

from sam_env import RuleConfig
from sam_env.agents.networks.catalogue import (
    BEST,
    FAMILY_ALIASES,
    SHIPPED_DIR,
    CatalogueError,
    best_for,
    copy_network,
    entries,
    entry,
    families,
    members,
    resolve,
    shipped_bot,
    shipped_checkpoint,
    shipped_names,
)
from sam_env.agents.networks.policy.bot import PPOBot
from sam_env.agents.networks.policy.checkpoint import PolicyCheckpoint
from sam_env.agents.networks.qnet.bot import QBot
from sam_env.agents.networks.qnet.checkpoint import QCheckpoint
from sam_env.agents.registry import available, load_bot, make_agent
from sam_env.evaluation.fingerprints import fingerprint
from sam_env.evaluation.protocol import OPPONENT_WEIGHTS
from sam_env.utils.files import file_sha256

SIZES = (2, 3, 4, 5)
KIND = {"policy": (PolicyCheckpoint, PPOBot), "qnet": (QCheckpoint, QBot)}


def test_every_file_has_one_entry_and_every_entry_its_files() -> None:
    stems = {p.stem for p in SHIPPED_DIR.glob("*.safetensors")}
    assert stems == {p.stem for p in SHIPPED_DIR.glob("*.json")}
    assert sorted(e.name for e in entries()) == sorted(stems)


@pytest.mark.parametrize("name", [e.name for e in entries()])
def test_each_entry_says_what_its_metadata_says(name: str) -> None:
    e = entry(name)
    checkpoint_kind, bot_kind = KIND[e.kind]
    checkpoint = shipped_checkpoint(name)
    assert isinstance(checkpoint, checkpoint_kind)
    assert checkpoint.rules.n_players == e.seats
    assert isinstance(shipped_bot(name), bot_kind)
    assert json.loads((SHIPPED_DIR / f"{name}.json").read_text(encoding="utf-8"))["weights"]["file"] == e.weights.name


@pytest.mark.parametrize("name", [e.name for e in entries()])
def test_names_read_one_way(name: str) -> None:
    """``<line>_v<generation>`` (or a line of its own, ``ppo_selfplay``), ``_<k>p`` off 4 seats; the family is the
    name without its seat suffix, and a newer generation's lineage names an older one of its line."""
    e = entry(name)
    found = re.fullmatch(r"(?P<family>(?P<line>[a-z]+)_(?:v(?P<generation>\d+)|selfplay))(?:_(?P<seats>\d)p)?", name)
    assert found, name
    assert found["family"] == e.family
    assert int(found["seats"] or 4) == e.seats
    for older in re.findall(rf"{found['line']}_v(\d+)", re.sub(r"\(.*?\)", "", e.lineage)):
        assert found["generation"] and int(older) < int(found["generation"]), f"{name} comes from {e.lineage!r}"


def test_one_recommended_network_per_size_and_it_has_the_best_protocol_v1_headline() -> None:
    for players in SIZES:
        recommended = [e for e in entries() if e.seats == players and e.recommended]
        assert len(recommended) == 1, players
        best = recommended[0]
        assert best_for(players) == best
        rivals = [
            e for e in entries() if e.seats == players and e.protocol_v1 and e.protocol_v1.tier == best.protocol_v1.tier
        ]
        assert len(rivals) >= 2, f"nothing to judge {best.name} against at {players} seats"
        assert max(rivals, key=lambda e: e.protocol_v1.x_per_hand) == best


@pytest.mark.parametrize("name", [e.name for e in entries() if e.protocol_v1])
def test_the_score_a_network_shipped_with_is_the_committed_leaderboard_files(name: str) -> None:
    e = entry(name)
    results = json.loads((ROOT / e.protocol_v1.results).read_text(encoding="utf-8"))
    assert results["protocol"]["players"] == e.seats and results["protocol"]["tier"] == e.protocol_v1.tier
    assert results["candidate"]["fingerprint"]["sha256"] == file_sha256(e.weights), "the file measured these weights"
    headline = results["headline"]
    assert (round(headline["score"], 2), round(headline["ci_low"], 2), round(headline["ci_high"], 2)) == (
        e.protocol_v1.x_per_hand,
        e.protocol_v1.ci_low,
        e.protocol_v1.ci_high,
    )


def test_best_loads_the_recommended_network_of_every_size() -> None:
    for players in SIZES:
        bot = load_bot(BEST, seed=0, rules=RuleConfig(n_players=players))
        assert bot.checkpoint.rules.n_players == players
        assert bot.checkpoint.source.endswith(best_for(players).weights.name)
    assert make_agent(BEST).checkpoint.rules.n_players == 4
    assert BEST in available()


def test_a_family_loads_its_member_for_the_table_and_refuses_a_size_it_lacks_listing_those_it_has() -> None:
    refused = 0
    for family in families():
        sizes = {e.seats: e.name for e in members(family)}
        assert sizes, family
        for players in SIZES:
            rules = RuleConfig(n_players=players)
            if players in sizes:
                bot = load_bot(family, rules=rules)
                assert bot.checkpoint.source.endswith(f"{sizes[players]}.safetensors"), (family, players)
                assert bot.name == family
            else:
                refused += 1
                listed = ", ".join(f"{n} ({k} players)" for k, n in sorted(sizes.items()))
                with pytest.raises(
                    CatalogueError, match=re.escape(f"has no network for a {players}-player table; it has {listed}")
                ):
                    load_bot(family, rules=rules)
    assert refused > 0, "some family lacks some size, so the refusal must have been checked"


def test_dmc_v2_at_three_seats_is_refused_and_dmc_loads_its_three_seat_network() -> None:
    with pytest.raises(
        CatalogueError, match=r"'dmc_v2' has no network for a 3-player table; it has dmc_v2_2p \(2 players\)"
    ):
        load_bot("dmc_v2", rules=RuleConfig(n_players=3))
    assert load_bot("dmc", rules=RuleConfig(n_players=3)).checkpoint.source.endswith("dmc_v1_3p.safetensors")


def test_a_network_of_one_size_is_refused_at_another() -> None:
    with pytest.raises(CatalogueError, match="'dmc_v2_5p' plays 5-player tables, not 3-player ones"):
        load_bot("dmc_v2_5p", rules=RuleConfig(n_players=3))
    with pytest.raises(CatalogueError, match="'dmc_2p' plays 2-player tables"):
        resolve("dmc_2p", 4)


@pytest.mark.parametrize("alias", sorted({a for e in entries() for a in e.aliases} | set(FAMILY_ALIASES)))
def test_an_old_name_loads_the_same_weights_as_its_network(alias: str) -> None:
    network = resolve(alias)
    assert alias in network.aliases or FAMILY_ALIASES[alias] == network.family
    old, new = shipped_checkpoint(resolve(alias).name), load_bot(alias).checkpoint
    assert old.tensors.keys() == new.tensors.keys()
    assert all((old.tensors[k] == new.tensors[k]).all() for k in old.tensors)


OLD_DMC_WEIGHTS = {
    "dmc": "2567b353",
    "dmc_2p": "c7ece006",
    "dmc_3p": "047bf09f",
    "dmc_5p": "f6bb1bfb",
}
"""The first digits of the SHA-256 of the weights each old ``dmc`` name loaded before the catalogue (the leaderboard's
``dmc`` entries were measured with them), written out so that an alias pointed at other weights fails."""


def test_the_old_dmc_names_load_the_weights_they_always_loaded() -> None:
    for name, sha256 in OLD_DMC_WEIGHTS.items():
        assert file_sha256(entry(name).weights).startswith(sha256), name
        assert fingerprint(name, RuleConfig(n_players=entry(name).seats))["sha256"].startswith(sha256), name


def test_resolutions_record_what_best_and_a_family_load_by_name_and_weights() -> None:
    from sam_env.agents.networks.catalogue import resolutions

    found = resolutions(["best", "dmc", "heuristic", "dmc_v1_3p", "best"], 3)
    assert found == {
        "best": {"network": "dmc_v1_3p", "sha256": file_sha256(entry("dmc_v1_3p").weights)},
        "dmc": {"network": "dmc_v1_3p", "sha256": file_sha256(entry("dmc_v1_3p").weights)},
    }


@pytest.mark.parametrize("n_players", [2, 3, 4, 5])
def test_a_search_is_recorded_and_fingerprinted_by_the_network_it_searches_over(n_players: int) -> None:
    from sam_env.agents.networks.catalogue import SEARCHES, resolutions
    from sam_env.agents.registry import grouped

    assert set(SEARCHES) == set(dict(grouped())["search"])  # every search the registry lists, and only those
    rules = RuleConfig(n_players=n_players)
    for search, network in SEARCHES.items():
        searched = load_bot(search, rules=rules).network.checkpoint.source
        name = resolve(network, n_players).name
        sha256 = file_sha256(entry(name).weights)
        assert Path(searched).name == entry(name).weights.name
        assert resolutions([search], n_players) == {search: {"network": name, "sha256": sha256}}
        recorded = fingerprint(search, rules)
        assert recorded["sha256"] == sha256 and f"{search} searches over" in recorded["of"]
    assert resolve(SEARCHES["dmc_search"], n_players).name == best_for(n_players).name


def test_every_name_protocol_v1_pins_loads_the_weights_it_pins() -> None:
    for name, sha256 in OPPONENT_WEIGHTS.items():
        assert file_sha256(entry(name).weights) == sha256, name


def test_an_unknown_shipped_name_is_refused_with_the_list() -> None:
    with pytest.raises(CatalogueError, match=r"no shipped network 'dmc_9p'; shipped: .*dmc_v1"):
        shipped_checkpoint("dmc_9p")


@pytest.mark.parametrize("name", [*shipped_names(), BEST])
def test_a_shipped_name_is_fingerprinted_by_the_weights_it_loads(name: str) -> None:
    rules = RuleConfig(n_players=resolve(name).seats)
    stamp = fingerprint(name, rules)
    network = resolve(name, rules.n_players)
    assert stamp["kind"] == "network"
    assert stamp["sha256"] == file_sha256(network.weights)
    assert network.name in stamp["of"], "the name it resolved to is recorded"
    metadata = json.loads((SHIPPED_DIR / f"{network.name}.json").read_text(encoding="utf-8"))
    assert metadata["weights"]["sha256"] == stamp["sha256"], "the metadata records the weights it ships"


def test_copy_network_ships_either_kind_under_a_new_stem(tmp_path) -> None:
    for name in ("ppo_v1", "dmc_v1"):
        copied = copy_network(SHIPPED_DIR / f"{name}.json", tmp_path / f"copy_of_{name}")
        metadata = json.loads(copied.read_text(encoding="utf-8"))
        assert metadata["weights"]["file"] == f"copy_of_{name}.safetensors"
        bot = load_bot(str(copied))
        assert type(bot) is type(shipped_bot(name))
        original = shipped_checkpoint(name).tensors
        assert all((bot.checkpoint.tensors[k] == v).all() for k, v in original.items())


DMC_RECORDS = {
    "dmc_v1": "dmc_long.yaml",
    "dmc_v1_2p": "dmc_2p.yaml",
    "dmc_v1_3p": "dmc_3p.yaml",
    "dmc_v1_5p": "dmc_5p.yaml",
    "dmc_v2": "dmc_more.yaml",
    "dmc_v2_2p": "dmc_2p_more.yaml",
    "dmc_v2_5p": "dmc_5p_more.yaml",
}
"""Each shipped Deep Monte-Carlo network and the record (configs/past_runs/) of the run that made it."""
ADDED_SINCE = {
    "init_from": None,
    "overlap_update": False,
    "tables": "local",
    "table_workers": 1,
    "num_cpus": 2,
    "device": "cpu",
}
"""Config fields added after some shipped runs, at the value every run before them had (their metadata lacks them)."""


@pytest.mark.train  # the training package reads the record
@pytest.mark.parametrize("name", sorted(DMC_RECORDS))
def test_each_shipped_dmc_network_was_made_by_its_record(name: str) -> None:
    """The record is the run that made agents/networks/shipped/<name>: every field its metadata records
    (where the run wrote and whether it drew a progress bar aside; a field the config gained after the run
    must hold the value that every run had before it)."""
    from sam_env.training.trainers import load_config

    record = load_config(ROOT / "configs" / "past_runs" / DMC_RECORDS[name]).to_dict()
    made = json.loads((SHIPPED_DIR / f"{name}.json").read_text(encoding="utf-8"))["training"]
    made = {**ADDED_SINCE, **made}
    aside = {"run_dir", "progress_bar"}
    assert {k: v for k, v in record.items() if k not in aside} == {k: v for k, v in made.items() if k not in aside}


def test_every_shipped_q_network_has_the_record_of_its_run() -> None:
    assert {e.name for e in entries() if e.kind == "qnet"} == set(DMC_RECORDS)


@pytest.mark.parametrize(
    ("page", "tables"), [("docs/networks.md", ("catalogue", "best")), ("README.md", ("best",))], ids=["docs", "readme"]
)
def test_the_pages_show_the_catalogue_as_it_is(page: str, tables: tuple[str, ...]) -> None:
    """docs/networks.md's and the README's tables are written by ``python -m sam_env.agents.networks.catalogue
    --markdown README.md docs/networks.md``: the one list, never a copy that drifts."""
    from sam_env.agents.networks.catalogue import TABLES, markers

    text = (ROOT / page).read_text(encoding="utf-8")
    for name in tables:
        start, end = markers(name)
        assert text.split(start, 1)[1].split(end, 1)[0].strip() == TABLES[name](), name
