"""Deprecations: the names 0.2.0 removed are gone (CHANGELOG.md, "Removed"), what it deprecates still
works with a DeprecationWarning naming its replacement, and the mechanism says so in the same words.

Imports run in a fresh interpreter: this process has long imported the packages.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import sam_env
from sam_env.utils.deprecation import deprecated_names

ROOT = Path(__file__).resolve().parents[1]

REMOVED = [
    # (an import of 0.1.0's era, kept for one release with a warning, removed in 0.2.0)
    "from sam_env import Policy",
    "from sam_env.policy import Policy",
    "from agents.base import Agent",
    "from agents.random_bot import RandomAgent",
    "from agents.greedy_bot import GreedyAgent",
    "from agents.heuristic.bot import HeuristicAgent",
    "from agents.human import HumanAgent",
    "from agents.ppo_bot import PPOAgent",
    "from agents.checkpoint import load_policy",
    "from agents.rules_options import check_bots",
    "from agents.play import main",
    "from evaluation.cli import main",
    "import evaluation.__main__",
]


def _program() -> str:
    """One interpreter tries every removed import and reports the error each one raised."""
    lines = ["import json", "report = {}"]
    for statement in REMOVED:
        lines += [
            "try:",
            f"    {statement}",
            f"    report[{statement!r}] = None",
            "except ImportError as err:",
            f"    report[{statement!r}] = type(err).__name__",
        ]
    lines.append("print(json.dumps(report))")
    return "\n".join(lines)


@pytest.fixture(scope="module")
def errors_by_statement() -> dict[str, str | None]:
    done = subprocess.run([sys.executable, "-c", _program()], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("statement", REMOVED)
def test_a_name_removed_in_0_2_0_no_longer_imports(errors_by_statement: dict[str, str | None], statement: str) -> None:
    assert errors_by_statement[statement] in ("ImportError", "ModuleNotFoundError")


def test_the_hand_has_no_hands_attribute_any_more() -> None:
    from sam_env.core import RuleConfig, Table

    hand = Table(RuleConfig(), 0).new_hand()
    assert not hasattr(hand, "hands") and len(hand.cards) == 4


def test_python_m_evaluation_is_gone_and_python_m_apps_evaluate_runs_sam_eval() -> None:
    gone = subprocess.run([sys.executable, "-m", "evaluation"], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert gone.returncode != 0 and "cannot be directly executed" in gone.stderr
    done = subprocess.run(
        [sys.executable, "-m", "sam_env.apps.evaluate", "--help"], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert done.returncode == 0 and "sam-eval" in done.stdout


@pytest.mark.train
def test_an_old_config_with_backend_warns_on_the_command_line_naming_the_new_key(tmp_path: Path) -> None:
    """train.py shows the warning (Python hides DeprecationWarnings outside ``__main__`` by default)."""
    old = tmp_path / "old.yaml"
    text = (ROOT / "tests/training/configs/rllib_smoke.yaml").read_text(encoding="utf-8")
    old.write_text(text.replace("trainer: rllib", "backend: rllib") + "num_epochs: 0\n", encoding="utf-8")
    command = [sys.executable, str(ROOT / "train.py"), "--config", str(old)]
    out = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert out.returncode == 2
    assert "DeprecationWarning: config key 'backend: rllib' is deprecated" in out.stderr
    assert "use 'trainer: rllib'" in out.stderr
    assert "num_epochs = 0 is not allowed" in out.stderr  # read as an rllib config, and checked as one


def test_an_old_name_kept_by_deprecated_names_works_and_says_where_it_went() -> None:
    module_getattr = deprecated_names("old.place", {"Old": (int, "new.place.New")})
    with pytest.warns(
        DeprecationWarning, match=r"^old\.place\.Old is deprecated .* next release; use new\.place\.New$"
    ):
        assert module_getattr("Old") is int
    with pytest.raises(AttributeError, match=r"module 'old\.place' has no attribute 'Other'"):
        module_getattr("Other")


def test_the_rule_tables_are_rule_masks_and_the_old_names_say_so() -> None:
    """``sam_env.core.rule_tables`` (beside the game's ``Table``, these are masks) is ``rule_masks`` since 0.3.0."""
    from sam_env.core import rule_masks, rule_tables

    old = r"rule_tables\.rule_tables is deprecated .* use sam_env\.core\.rule_masks\.rule_masks$"
    with pytest.warns(DeprecationWarning, match=old):
        assert rule_tables.rule_tables is rule_masks.rule_masks
    with pytest.warns(DeprecationWarning, match=r"use sam_env\.core\.rule_masks\.RuleMasks$"):
        from sam_env.core.rule_tables import RuleTables
    assert RuleTables is rule_masks.RuleMasks
    assert rule_masks.rule_masks(sam_env.RuleConfig()).answers.shape == (sam_env.N_ACTIONS + 1, sam_env.N_ACTIONS)


def test_the_vector_engines_arrays_are_its_layout_and_the_old_module_says_so() -> None:
    """``sam_env.vector.tables`` (a "table" is a game at which seats play) is ``sam_env.vector.layout`` since 0.3.0."""
    program = (
        "import warnings\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    from sam_env.vector.tables import O_HAND, observation_offsets\n"
        "from sam_env.vector import layout\n"
        "assert O_HAND == layout.O_HAND and observation_offsets is layout.observation_offsets\n"
        "print([str(w.message) for w in caught if w.category is DeprecationWarning])\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "sam_env.vector.tables" in done.stdout and "use sam_env.vector.layout" in done.stdout, done.stdout


def test_the_networks_old_homes_still_import_and_say_where_they_went() -> None:
    """0.3's ``sam_env.agents.ppo``, ``.qnet`` and ``.shipped`` are ``sam_env.agents.networks.*`` since 0.4.0: the
    same modules (one class of each name), with a warning naming the new place."""
    program = (
        "import json, warnings\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    from sam_env.agents.ppo.bot import PPOBot, pretrained_checkpoint\n"
        "    from sam_env.agents.ppo.checkpoint import check_table, load_policy\n"
        "    from sam_env.agents.qnet.bot import QBot\n"
        "    from sam_env.agents.shipped import shipped_network_for\n"
        "    from sam_env.agents.search import SearchBot\n"
        "    search = SearchBot.pretrained('ppo')\n"
        "    from sam_env.agents.qnet.features import move_features\n"
        "    from sam_env.agents.qnet.checkpoint import CheckpointError\n"
        "    old_bot = PPOBot.pretrained('ppo')\n"
        "from sam_env.agents.networks import catalogue, format, policy, qnet\n"
        "from sam_env.agents.networks.policy.bot import PPOBot as New\n"
        "from sam_env.agents.networks.qnet.bot import QBot as NewQ\n"
        "from sam_env import RuleConfig\n"
        "assert PPOBot is New and QBot is NewQ and check_table is format.check_seat_count\n"
        "assert pretrained_checkpoint('ppo') is catalogue.shipped_checkpoint('ppo_v3')\n"
        "assert shipped_network_for('dmc', RuleConfig(n_players=3)) == 'dmc_v1_3p' and search.name == 'ppo_search'\n"
        "import sam_env.move_features as features\n"
        "assert move_features is features.move_features and CheckpointError is format.CheckpointError\n"
        "assert old_bot.checkpoint is catalogue.shipped_checkpoint('ppo_v3')\n"
        "print(json.dumps([str(w.message) for w in caught if w.category is DeprecationWarning]))\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout)
    for old, new in [
        ("the package 'sam_env.agents.ppo'", "'sam_env.agents.networks.policy'"),
        ("the package 'sam_env.agents.qnet'", "'sam_env.agents.networks.qnet'"),
        ("sam_env.agents.ppo.bot.pretrained_checkpoint", "sam_env.agents.networks.catalogue.shipped_checkpoint"),
        ("sam_env.agents.ppo.checkpoint.check_table", "sam_env.agents.networks.format.check_seat_count"),
        ("the module 'sam_env.agents.qnet.features'", "'sam_env.move_features'"),
        ("sam_env.agents.qnet.checkpoint.CheckpointError", "sam_env.agents.networks.format.CheckpointError"),
        ("PPOBot.pretrained", "sam_env.load_bot(name)"),
        ("sam_env.agents.shipped.shipped_network_for", "sam_env.agents.networks.catalogue.shipped_network_for"),
        ("SearchBot.pretrained", "SearchBot.over_shipped"),
    ]:
        assert any(m.startswith(f"{old} is deprecated") and f"use {new}" in m for m in said), (old, said)
