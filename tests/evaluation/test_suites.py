"""Opponent suites (sam_env.evaluation.suites): every line-up of opponents defined once, protocol v1's unchanged."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from sam_env.agents import panel as agents_panel
from sam_env.agents.networks.catalogue import entries, families, shipped_names
from sam_env.agents.registry import available
from sam_env.evaluation import panel, protocol, suites
from sam_env.training import config as training_config

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("evaluation", "training", "benchmarks")
"""The folders whose modules must read their line-ups of opponents from the suites module."""
SUITES = Path("evaluation") / "suites.py"
NOT_LINE_UPS: dict[tuple[str, str], str] = {}
"""Definitions the scan finds that are known and left where they are (file, name) -> why."""

V1_PANEL = ("panel_shedder", "panel_hoarder", "panel_chopper", "panel_cautious", "panel_noisy")
V1_NETWORKS = {2: ("ppo_2p",), 3: ("ppo_3p",), 4: ("ppo", "ppo_v1", "ppo_v2", "ppo_selfplay"), 5: ("ppo_5p",)}


def test_protocol_v1_suite_is_the_one_it_was_fixed_with() -> None:
    """The rows of every track and tier, in order (docs/protocol.md's table): a change is another version."""
    for players in protocol.PLAYERS:
        for tier in protocol.TIERS:
            rows = [(o.name, o.group) for o in protocol.suite(players, tier)]
            if tier == "search":
                assert rows == [("ppo_search", "search")]
            elif tier == "text":
                ppo = protocol.SEARCH_NETWORK[players]
                assert rows == [("greedy", "baseline"), ("heuristic", "baseline"), (ppo, "network")]
            else:
                assert rows == [
                    *((name, "baseline") for name in ("random", "greedy", "heuristic")),
                    *((name, "panel") for name in V1_PANEL),
                    *((name, "network") for name in V1_NETWORKS[players]),
                ]
    assert protocol.SEARCH_NETWORK == {2: "ppo_2p", 3: "ppo_3p", 4: "ppo", 5: "ppo_5p"}
    assert set(protocol.OPPONENT_WEIGHTS) == {name for names in V1_NETWORKS.values() for name in names}


def test_every_old_name_reads_the_one_definition() -> None:
    assert training_config.BASELINES is suites.TRAINING_BASELINES is suites.BASELINES
    assert protocol.BASELINES is suites.PROTOCOL_V1_BASELINES is suites.BASELINES
    assert training_config.EvalRunConfig.eval_opponents is suites.TRAINING_EVAL_OPPONENTS
    assert protocol.NETWORKS is suites.PROTOCOL_V1_NETWORKS
    assert protocol.SEARCH is suites.PROTOCOL_V1_SEARCH
    assert protocol.SEARCH_NETWORK is suites.PROTOCOL_V1_SEARCH_NETWORK
    assert protocol.OPPONENT_WEIGHTS is suites.PROTOCOL_V1_WEIGHTS
    assert protocol.Opponent is suites.Opponent
    assert panel.PANEL is suites.HELD_OUT_PANEL is suites.PROTOCOL_V1_PANEL is agents_panel.PANEL
    assert panel.BASELINE is suites.PANEL_BASELINE


def test_the_shipped_bot_targets_are_the_catalogues_networks() -> None:
    for players in (2, 3, 4, 5):
        expected = tuple(e.name for e in entries() if e.seats == players)
        assert suites.shipped_bot_networks(players) == expected and expected
        assert len(set(expected)) == len(expected)  # own names only: an alias would play the same weights twice
    assert suites.shipped_bot_opponents(4) == ("heuristic", "ppo_v1")
    assert suites.shipped_bot_opponents(2) == ("heuristic",)
    code = (
        "import shipped_bots as s, panel_table as p\n"
        "from sam_env.evaluation import suites\n"
        "assert s.networks_for(4) == list(suites.shipped_bot_networks(4))\n"
        "assert s.opponents_for(4) == list(suites.shipped_bot_opponents(4))\n"
        "assert s.PANEL is p.PANEL is suites.HELD_OUT_PANEL and p.BASELINE is suites.PANEL_BASELINE\n"
        "assert s.REFERENCE is suites.SHIPPED_BOT_REFERENCE\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT / "benchmarks", capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def bot_names() -> set[str]:
    """Every name that loads a bot: the registry's, the shipped networks' and their families'."""
    return set(available()) | set(shipped_names()) | set(families())


def _strings(node: ast.expr) -> list[str]:
    return [e.value for e in getattr(node, "elts", ()) if isinstance(e, ast.Constant) and isinstance(e.value, str)]


def line_ups(value: ast.expr, names: set[str]) -> list[list[str]]:
    """The literal line-ups of bot names in an assigned value: tuples, lists and sets (also as a dict's values)
    whose string elements are all bot names, and a dict's keys or values when two or more are and all are (a
    one-bot weight such as ``{"heuristic": 1.0}`` is a mix of a benchmark's row, not a line-up)."""
    found = []
    for node in ast.walk(value):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            strings = _strings(node)
        elif isinstance(node, ast.Dict):
            for side in (node.keys, node.values):
                strings = [s.value for s in side if isinstance(s, ast.Constant) and isinstance(s.value, str)]
                if len(strings) >= 2 and len(strings) == len(side) and set(strings) <= names:
                    found.append(strings)
            continue
        else:
            continue
        if strings and set(strings) <= names:
            found.append(strings)
    return found


def definitions(tree: ast.Module) -> list[tuple[str, ast.expr]]:
    """Module-level and class-level assignments: ``(name, value)``, a class's as ``Class.name``."""
    out = []
    for node in tree.body:
        scopes = [("", node)] if not isinstance(node, ast.ClassDef) else [(f"{node.name}.", n) for n in node.body]
        for prefix, stmt in scopes:
            if isinstance(stmt, ast.Assign) and stmt.targets and isinstance(stmt.targets[0], ast.Name):
                out.append((prefix + stmt.targets[0].id, stmt.value))
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None and isinstance(stmt.target, ast.Name):
                out.append((prefix + stmt.target.id, stmt.value))
    return out


def test_no_module_but_the_suites_defines_a_line_up_of_opponents() -> None:
    """A tuple of bot names assigned anywhere in evaluation/, training/ or benchmarks/ other than the suites
    module is a second definition of a line-up: read it from sam_env.evaluation.suites instead."""
    names = bot_names()
    offenders, in_suites = [], []
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT)
            for name, value in definitions(ast.parse(path.read_text(encoding="utf-8"), filename=str(rel))):
                for line_up in line_ups(value, names):
                    if rel == SUITES:
                        in_suites.append(name)
                    elif (rel.as_posix(), name) not in NOT_LINE_UPS:
                        offenders.append(f"{rel}: {name} = {line_up}")
    assert not offenders, offenders
    assert {"BASELINES", "PROTOCOL_V1_NETWORKS", "PROTOCOL_V1_WEIGHTS", "TRAINING_EVAL_OPPONENTS"} <= set(in_suites)


@pytest.mark.parametrize(
    "source",
    [
        'BASELINES = ("random", "greedy", "heuristic")',
        'NETWORKS: dict[int, tuple[str, ...]] = {2: ("ppo_2p",), 4: ("ppo", "ppo_v1")}',
        'SEARCH_NETWORK = {2: "ppo_2p", 4: "ppo"}',
        'WEIGHTS = {"ppo": "533d", "ppo_v1": "6f98"}',
        'class C:\n    eval_opponents: tuple[str, ...] = ("heuristic",)',
    ],
    ids=["tuple", "dict of tuples", "dict values", "dict keys", "class default"],
)
def test_the_scan_sees_a_line_up(source: str) -> None:
    assert any(line_ups(value, bot_names()) for _, value in definitions(ast.parse(source)))


@pytest.mark.parametrize(
    "source",
    [
        'OPPONENT_KINDS = ("self_play", *BASELINES)',  # opponent kinds of a mix, not bots
        "TARGETS = {BASELINE: {4: 4.0}, REFERENCE: {4: 1.5}}",
        'SEATS = (Seats("vs heuristic", 0.0, {"heuristic": 1.0}),)',  # one bot's weight in a benchmark's mix
        'DEVICES = ("cpu", "cuda", "auto")',
    ],
    ids=["opponent kinds", "names by reference", "one-bot mix", "no bot"],
)
def test_the_scan_passes_what_is_not_a_line_up(source: str) -> None:
    assert not any(line_ups(value, bot_names()) for _, value in definitions(ast.parse(source)))
