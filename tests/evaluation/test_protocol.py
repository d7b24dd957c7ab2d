"""Protocol v1: pinned deal sets, the suites, a run's rows and headline, and results files refused field by field."""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sam_env.agents.networks.catalogue import entry, shipped_checkpoint, shipped_network_for
from sam_env.agents.registry import load_bot
from sam_env.apps import evaluate
from sam_env.evaluation import protocol
from sam_env.evaluation.fingerprints import file_sha256, fingerprint, shipped_weights_sha256
from sam_env.evaluation.protocol import (
    DEAL_SET_SHA256,
    NETWORKS,
    OPPONENT_WEIGHTS,
    PLAYERS,
    SEARCH_NETWORK,
    TIERS,
    ProtocolError,
    Track,
    canonical_deal_lines,
    deal_set_sha256,
    rules_for,
)
from sam_env.evaluation.protocol_run import run_track
from sam_env.evaluation.results import ResultsError, build_results, dumps, validate, write_results

ROOT = Path(__file__).resolve().parents[2]


def test_every_deal_set_hash_is_the_pinned_one_and_the_docs_print_them() -> None:
    for players in PLAYERS:
        for name, tier in TIERS.items():
            assert deal_set_sha256(players, tier.deals[players]) == DEAL_SET_SHA256[players, name]
    page = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    for players in PLAYERS:
        row = re.search(rf"^\| {players} seats \|(.*)$", page, re.MULTILINE)
        assert row is not None
        assert re.findall(r"`([0-9a-f]{64})`", row[1]) == [DEAL_SET_SHA256[players, t] for t in TIERS]


def test_the_hash_covers_the_cards_written_out_as_the_docs_show() -> None:
    first = next(iter(canonical_deal_lines(rules_for(4), 1)))
    assert first in (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    head, *hands = first.rstrip("\n").split(" | ")
    assert re.fullmatch(r"0 leader=[0-3]", head) and len(hands) == 4
    assert all(re.fullmatch(r"([0-9JQKA]+[SCDH] ){9}[0-9JQKA]+[SCDH]", hand) for hand in hands)


def test_the_hash_is_the_same_in_a_fresh_process_with_another_hash_seed() -> None:
    code = "from sam_env.evaluation.protocol import deal_set_sha256; print(deal_set_sha256(3, 50))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "12345"}
    )
    assert out.stdout.strip() == deal_set_sha256(3, 50)


def test_a_quick_tier_is_the_start_of_the_full_tier() -> None:
    for players in PLAYERS:
        full = list(canonical_deal_lines(rules_for(players), TIERS["quick"].deals[players] + 1))
        assert full[:-1] == list(canonical_deal_lines(rules_for(players), TIERS["quick"].deals[players]))


def test_the_suites_seat_at_their_tables_and_their_networks_are_pinned() -> None:
    for players in PLAYERS:
        rules = rules_for(players)
        for tier in TIERS:
            track = Track(players, tier)
            names = [o.name for o in track.opponents]
            assert len(set(names)) == len(names)
            for name in names:
                load_bot(name, rules=rules)  # every opponent plays its table
            assert "random" not in track.headline_opponents
            assert set(track.headline_opponents) == set(names) - {"random"}
        # ppo_search plays the catalogue's name for it (ppo_v3_2p), v1 pins the old one (ppo_2p): one network
        assert entry(shipped_network_for("ppo", rules)) is entry(SEARCH_NETWORK[players])
        for name in NETWORKS[players]:
            assert shipped_checkpoint(name).rules.n_players == players
            assert shipped_weights_sha256(name) == OPPONENT_WEIGHTS[name]
    protocol.check_opponent_weights(OPPONENT_WEIGHTS)


def test_unknown_tracks_and_tiers_are_refused_by_name() -> None:
    with pytest.raises(ProtocolError, match="2, 3, 4, 5 players, not 6"):
        Track(6, "full")
    with pytest.raises(ProtocolError, match="full, quick, search, text, not 'fast'"):
        Track(4, "fast")


@pytest.fixture
def two_seat_run(tiny_quick: None) -> tuple[Track, list]:
    track = Track(2, "quick")
    return track, run_track(track, ["greedy", "heuristic"], workers=1, progress=False)


def test_a_run_gives_the_rows_margins_and_headline_the_protocol_defines(two_seat_run: tuple[Track, list]) -> None:
    track, (greedy, heuristic) = two_seat_run
    assert [r.opponent for r in greedy.rows] == [o.name for o in track.opponents]
    assert all(r.deals == TIERS["quick"].deals[2] and r.hands == 2 * TIERS["quick"].deals[2] for r in greedy.rows)
    heuristic_by = {r.opponent: r for r in heuristic.rows}
    for row in greedy.rows:
        if row.group == "panel":  # the margin: greedy's X/hand minus the heuristic's on the same deals
            assert row.margin["heuristic_x_per_hand"] == pytest.approx(heuristic_by[row.opponent].x_per_hand)
            assert row.margin["margin"] == pytest.approx(row.x_per_hand - heuristic_by[row.opponent].x_per_hand)
            assert heuristic_by[row.opponent].margin["margin"] == 0.0
        else:
            assert row.margin is None
    headline_rows = [r.x_per_hand for r in greedy.rows if r.opponent != "random"]
    assert greedy.headline.score == pytest.approx(np.mean(headline_rows), abs=1e-6)
    assert len(greedy.headline.per_deal) == TIERS["quick"].deals[2]
    assert greedy.headline.ci_low < greedy.headline.score < greedy.headline.ci_high


def test_a_candidate_scores_the_same_alone_as_beside_another(two_seat_run: tuple[Track, list]) -> None:
    track, (greedy, _) = two_seat_run
    [alone] = run_track(track, ["greedy"], workers=1, progress=False)
    assert alone.rows == greedy.rows and alone.headline == greedy.headline


@pytest.fixture
def document(two_seat_run: tuple[Track, list]) -> dict:
    track, (greedy, _) = two_seat_run
    built = build_results(track, greedy, "sam-eval --protocol v1 --quick --players 2 --candidates greedy")
    return json.loads(dumps(built))  # as read back from a file


def test_a_run_writes_a_file_that_validates_and_is_never_overwritten(document: dict, tmp_path: Path) -> None:
    validate(document)
    assert document["environment"]["name"] == "sam_v1" and document["candidate"]["fingerprint"]["kind"] == "rule bot"
    path = write_results(tmp_path / "a.results.json", document)
    before = path.read_bytes()
    with pytest.raises(FileExistsError):
        write_results(path, document)
    assert path.read_bytes() == before
    assert evaluate.main(["--validate", str(path)]) == 0


def _broken(document: dict, change) -> dict:
    out = copy.deepcopy(document)
    change(out)
    return out


@pytest.mark.parametrize(
    ("field", "change"),
    [
        ("protocol.deal_set_sha256", lambda d: d["protocol"].update(deal_set_sha256="0" * 64)),
        ("protocol.version", lambda d: d["protocol"].update(version=2)),
        ("protocol.id", lambda d: d["protocol"].update(id="another-benchmark")),
        ("protocol.deals", lambda d: d["protocol"].update(deals=5)),
        ("protocol.seed", lambda d: d["protocol"].update(seed=0)),
        ("rows[3].ci_low", lambda d: d["rows"][3].pop("ci_low")),
        ("candidate.fingerprint", lambda d: d["candidate"].pop("fingerprint")),
        ("machine", lambda d: d.pop("machine")),
        ("environment.name", lambda d: d["environment"].update(name="sam_v0")),
        ("rules.bao1", lambda d: d["rules"].update(bao1="forced")),
        ("rows", lambda d: d["rows"].pop()),
        ("rows[0].opponent", lambda d: d["rows"].insert(0, d["rows"].pop(1))),
        ("rows[2].deals", lambda d: d["rows"][2].update(deals=5)),
        ("rows[2].x_per_hand", lambda d: d["rows"][2].update(x_per_hand=d["rows"][2]["ci_high"] + 1)),
        ("headline.score", lambda d: d["headline"].update(score=d["headline"]["score"] + 0.01)),
        ("headline.per_deal", lambda d: d["headline"]["per_deal"].pop()),
        ("headline.opponents", lambda d: d["headline"]["opponents"].append("random")),
        ("rows[4].margin", lambda d: d["rows"][4].pop("margin")),
        ("created", lambda d: d.pop("created")),
    ],
)
def test_a_wrong_file_is_refused_with_the_field_named(document: dict, field: str, change) -> None:
    with pytest.raises(ResultsError) as refused:
        validate(_broken(document, change))
    assert refused.value.field == field, str(refused.value)


def test_validate_on_the_command_line_names_the_file_and_field(
    document: dict, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(dumps(document), encoding="utf-8")
    bad.write_text(dumps(_broken(document, lambda d: d["protocol"].update(version=2))), encoding="utf-8")
    (tmp_path / "nan.json").write_text(good.read_text().replace('"score": ', '"score": NaN, "x": ', 1))
    assert evaluate.main(["--validate", str(good), str(bad), str(tmp_path / "nan.json")]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{good}: valid protocol v1 result: greedy, 2 players, quick tier, headline")
    assert out[1].startswith(f"{bad}: INVALID: protocol.version: a result of protocol 'sam-env-protocol' version 2")
    assert out[2].startswith(f"{tmp_path / 'nan.json'}: INVALID:") and "NaN" in out[2]


def test_compare_pairs_two_entries_deal_by_deal_and_refuses_another_tier(
    capsys: pytest.CaptureFixture[str],
) -> None:
    board = Path(__file__).resolve().parents[2] / "leaderboard"
    heuristic, greedy = board / "heuristic.v1-4p-quick.results.json", board / "greedy.v1-4p-quick.results.json"
    a, b = (json.loads(f.read_text(encoding="utf-8"))["headline"] for f in (heuristic, greedy))
    difference = np.subtract(a["per_deal"], b["per_deal"])
    half = 1.959964 * difference.std(ddof=1) / np.sqrt(difference.size)
    assert evaluate.main(["--compare", str(heuristic), str(greedy)]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    mean = difference.mean()
    assert last == (
        f"heuristic - greedy, paired over the 400 deals of protocol v1 (4 players, quick tier): "
        f"{mean:+.2f} X/hand [{mean - half:+.2f}, {mean + half:+.2f}]"
    )
    assert evaluate.main(["--compare", str(heuristic), str(board / "greedy.v1-4p-full.results.json")]) == 1
    assert "protocol.tier: differs ('quick' and 'full')" in capsys.readouterr().out


def test_the_protocol_page_quotes_what_compare_prints(capsys: pytest.CaptureFixture[str]) -> None:
    root = Path(__file__).resolve().parents[2]
    page = (root / "docs" / "protocol.md").read_text(encoding="utf-8")
    command = re.search(r"^sam-eval --compare (\S+) (\S+)$", page, re.MULTILINE)
    assert command, "docs/protocol.md shows a sam-eval --compare command"
    assert evaluate.main(["--compare", str(root / command[1]), str(root / command[2])]) == 0
    assert capsys.readouterr().out.splitlines()[-1] in page


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--protocol", "v1", "--candidates", "greedy", "--deals", "10"], "fixes the deals, seed, rules and opponents"),
        (["--protocol", "v1", "--candidates", "greedy", "--rules", "x.yaml"], "drop --rules"),
        (["--protocol", "v1", "--candidates", "greedy", "--players", "6"], "not 6"),
        (["--protocol", "v1", "--candidates", "greedy", "--quick", "--tier", "full"], "--quick is the quick tier"),
        (["--protocol", "v1"], "needs --candidates"),
        (["--quick", "--candidates", "greedy"], "go with --protocol v1"),
        (["--validate", "x.json", "--candidates", "greedy"], "takes no --candidates"),
        (["--compare", "x.json", "y.json", "--protocol", "v1"], "--compare reads files; it takes no --protocol"),
        (["--protocol", "v1", "--candidates", "no_such_bot"], "no_such_bot"),
    ],
)
def test_the_protocol_options_refuse_what_it_fixes(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        evaluate.main([*argv, "--no-progress"])
    assert exited.value.code == 2
    assert message in capsys.readouterr().err


def test_a_run_whose_file_exists_is_refused_before_any_hand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    taken = tmp_path / "greedy.v1-4p-quick.results.json"
    taken.write_text("an earlier result", encoding="utf-8")
    with pytest.raises(SystemExit):
        evaluate.main(["--protocol", "v1", "--quick", "--candidates", "greedy", "--out", str(tmp_path)])
    assert "exist already, and are kept" in capsys.readouterr().err
    assert taken.read_text(encoding="utf-8") == "an earlier result"


def test_fingerprints_hash_what_decides_the_moves(tmp_path: Path, checkpoint: Path) -> None:
    rules = rules_for(4)
    bot_file = tmp_path / "mine.py"
    bot_file.write_text("import sam_env\nclass Mine(sam_env.RandomBot):\n    pass\n", encoding="utf-8")
    mine = fingerprint(f"{bot_file}:Mine", rules)
    assert mine["kind"] == "code" and mine["of"] == "the source file mine.py; the built bot holds no arrays or numbers"
    module = fingerprint("sam_env.agents.greedy_bot:GreedyBot", rules)
    assert module["of"] == (
        "the source file greedy_bot.py of module sam_env.agents.greedy_bot; the built bot holds no arrays or numbers"
    )
    assert fingerprint("ppo", rules)["sha256"] == OPPONENT_WEIGHTS["ppo"]
    assert fingerprint("ppo", rules_for(2))["sha256"] == OPPONENT_WEIGHTS["ppo_2p"]
    assert fingerprint("ppo_search", rules)["sha256"] == OPPONENT_WEIGHTS["ppo"]
    assert fingerprint(str(checkpoint), rules)["sha256"] == file_sha256(checkpoint.with_suffix(".safetensors"))
    heuristic = fingerprint("heuristic", rules)
    assert heuristic["kind"] == "rule bot" and "sam_env.agents.heuristic" in heuristic["of"]
    assert fingerprint("greedy", rules)["sha256"] == file_sha256(ROOT / "agents" / "greedy_bot.py")
