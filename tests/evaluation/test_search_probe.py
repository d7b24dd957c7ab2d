"""The search probe: a search over the target's network, modelling the target in every other seat, in duplicate."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from policy_files import write_checkpoint

from sam_env import RuleConfig
from sam_env.agents.networks.format import CheckpointError
from sam_env.agents.networks.policy.checkpoint import load_policy
from sam_env.agents.registry import load_bot
from sam_env.agents.search import SearchBot
from sam_env.evaluation.exploitability import Row as BestResponseRow
from sam_env.evaluation.matches import Match
from sam_env.evaluation.report import write_section
from sam_env.evaluation.search_probe import (
    SECTION,
    ProbeRow,
    SearchBudget,
    probe_bot,
    probe_page_rows,
    probe_table,
    search_probe,
)
from sam_env.evaluation.stats import NET, paired_difference
from sam_env.evaluation.tournament import run_matches

RULES = RuleConfig(n_players=2)
SMALL = SearchBudget(determinizations=4, candidates=2)


@pytest.fixture
def target(tmp_path: Path) -> str:
    return str(write_checkpoint(tmp_path, RULES, seed=3))


def test_the_probe_searches_over_the_target_and_models_it_in_every_other_seat(target: str) -> None:
    bot = load_bot(probe_bot(load_policy(target), SMALL, "probe"), seed=1, rules=RULES)
    assert isinstance(bot, SearchBot) and bot.name == "probe"
    assert bot.opponent_models == ()  # the network, which is the target, models every other seat
    assert (bot.determinizations, bot.candidates, bot.proposals) == (4, 2, 0)
    weights = load_policy(target).tensors["action_net.weight"]
    assert np.array_equal(bot.network.checkpoint.tensors["action_net.weight"], weights)


def test_the_margin_is_a_paired_difference_against_the_target_playing_itself(target: str) -> None:
    result = search_probe(target, RULES, 6, seed=5, budget=SMALL, workers=1, progress=False)
    summary = result.summary()
    assert summary.deals == 6 and summary.hands == 12 and summary.opponents.endswith("x1")
    # the target against copies of itself wins nothing on any deal: its moves are deterministic, so every
    # rotation of a deal plays the same hand and the seats' money averages to 0
    [itself] = run_matches([Match(target, (target,))], RULES, 6, seed=5, workers=1, progress=False)
    own = itself.metrics[:, :, 0, NET].mean(axis=1)
    assert np.all(own == 0)
    probe = result.metrics[:, :, 0, NET].mean(axis=1)
    mean, low, high = paired_difference(probe, own)
    assert (mean, low, high) == pytest.approx((summary.x_per_hand, summary.ci_low, summary.ci_high))


def test_a_bot_that_is_not_a_network_is_refused() -> None:
    with pytest.raises(CheckpointError, match="'heuristic' is not a network \\(a policy or a Q-network\\)"):
        search_probe("heuristic", RULES, 1, seed=0, budget=SMALL, workers=1, progress=False)


def test_the_table_lays_out_records_beside_the_best_responses_largest_margin() -> None:
    record = {
        "probe": "search",
        "bot": "ppo",
        "network": "ppo",
        "players": 4,
        "budget": {"determinizations": 64, "candidates": 8, "proposals": 0},
        "seed": 0,
        "seconds": 600.0,
        "summary": {"x_per_hand": 0.8, "ci_low": 0.5, "ci_high": 1.1, "deals": 500},
    }
    ppo = [
        BestResponseRow("ppo", 4, "the bot's weights (`e.yaml`)", "10M (25 min)", 0.18, 0.09, 0.27, "2,000"),
        BestResponseRow("ppo", 4, "fresh network (`x.yaml`)", "10,000,000 (65 min)", 0.25, 0.03, 0.33, "2,000"),
        BestResponseRow("ppo_v1", 4, "fresh network (`x.yaml`)", "10,000,000 (23 min)", 0.9, 0.2, 0.49, "2,000"),
    ]
    table = probe_table([ProbeRow.from_record(record)], ppo)
    row = next(line for line in table.splitlines() if line.startswith("| `ppo`"))
    assert row == (
        "| `ppo` | 4 | 64 deals x 8 candidates | **+0.80** ? | [+0.50, +1.10] | 500 | 10 min | +0.25 [+0.03, +0.33] |"
    )
    record["summary"] = {"x_per_hand": 1.5, "ci_low": 1.2, "ci_high": 1.8, "deals": 500}
    assert "**+1.50** ✗" in probe_table([ProbeRow.from_record(record)])


def _record(bot: str, players: int, margin: float) -> dict:
    return {
        "probe": "search",
        "bot": bot,
        "network": bot,
        "players": players,
        "budget": {"determinizations": 64, "candidates": 8, "proposals": 0},
        "seed": 0,
        "seconds": 1200.0,
        "summary": {
            "x_per_hand": margin,
            "ci_low": round(margin - 0.3, 2),
            "ci_high": round(margin + 0.3, 2),
            "deals": 500,
        },
    }


def test_a_row_reads_back_off_the_page_as_it_was_written(tmp_path: Path) -> None:
    probe = ProbeRow.from_record(_record("dmc", 4, -0.25))
    assert ProbeRow.from_line(probe.line("+0.18 [+0.09, +0.27]")) == probe
    assert ProbeRow.from_line(probe.line().replace("-", "−")) == probe  # the prose's minus reads as one
    page = tmp_path / "page.md"
    assert probe_page_rows(str(page)) == []
    write_section(str(page), SECTION, probe_table([probe]))
    assert probe_page_rows(str(page)) == [probe]


def test_the_script_keeps_the_pages_probes_and_names_the_one_it_replaces(tmp_path: Path) -> None:
    """benchmarks/search_probe_table.py as its docstring says: a new record adds its row, one of the same bot and
    seats replaces the page's, and the others stay (their records are not kept in the repository)."""
    page = tmp_path / "page.md"
    kept, stale = ProbeRow.from_record(_record("ppo_2p", 2, 0.74)), ProbeRow.from_record(_record("dmc", 4, 0.77))
    write_section(str(page), SECTION, probe_table([kept, stale]))
    paths = []
    for name, players, margin in (("dmc", 4, 0.5), ("dmc_v2", 4, 1.6)):
        paths.append(tmp_path / f"{name}.json")
        paths[-1].write_text(json.dumps(_record(name, players, margin)))
    script = Path(__file__).resolve().parents[2] / "benchmarks" / "search_probe_table.py"
    command = [sys.executable, str(script), *map(str, paths), "--markdown", str(page)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr == f"replacing the page's row: {stale.line()}\n"
    assert [(r.bot, r.margin) for r in probe_page_rows(str(page))] == [("ppo_2p", 0.74), ("dmc", 0.5), ("dmc_v2", 1.6)]
    assert "**+1.60** ✗" in done.stdout
    twice = subprocess.run(
        [*command[:-2], str(paths[0]), *command[-2:]], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert twice.returncode == 2 and "two records for the same row" in twice.stderr
