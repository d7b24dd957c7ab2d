"""The leaderboard: its committed results files are valid protocol v1 results, and the docs page is the one
they give (rebuilt here from the files; a mismatch fails with the command that rebuilds it)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from sam_env.evaluation import leaderboard
from sam_env.evaluation.leaderboard import Entry, page_differs, read_entries, render
from sam_env.evaluation.results import SUFFIX, ResultsError, file_name

ROOT = Path(__file__).resolve().parents[2]
FOLDER, PAGE = ROOT / "leaderboard", ROOT / "docs" / "leaderboard.md"


def test_the_page_is_the_one_the_results_files_give() -> None:
    assert page_differs(FOLDER, PAGE) is None


def test_the_reference_rows_are_there_under_the_full_protocol() -> None:
    entries = read_entries(FOLDER)  # every file validated against the schema and the protocol
    assert entries, "no results file in leaderboard/"
    full_4p = {e.label for e in entries if e.players == 4 and e.tier == "full"}
    assert {"random", "greedy", "heuristic", "ppo"} <= full_4p
    for entry in entries:
        assert entry.name == file_name(entry.label, entry.players, entry.tier)


def test_rows_are_sorted_by_the_headline_and_link_to_their_details() -> None:
    page = PAGE.read_text(encoding="utf-8")
    entries = read_entries(FOLDER)
    for players, tier in {(e.players, e.tier) for e in entries}:
        table = page.split(f"### {players} players, {tier} tier\n", 1)[1].split("\n\n###", 1)[0]
        ranked = [line for line in table.splitlines() if re.match(r"\| \d+ \|", line)]
        scores = [float(line.split(" | ")[2].replace("−", "-")) for line in ranked]
        assert scores == sorted(scores, reverse=True)
        header = next(line for line in table.splitlines() if line.startswith("| # |"))
        for line in ranked:
            anchor = re.search(r"\(#([a-z0-9_-]+)\)", line)[1]
            assert f"{{#{anchor}}}" in page  # the details heading the row links to
            assert line.count(" | ") == header.count(" | "), f"a cell missing under {header}: {line}"


def test_a_file_added_without_rebuilding_the_page_is_caught(tmp_path: Path) -> None:
    folder, page = tmp_path / "leaderboard", tmp_path / "leaderboard.md"
    shutil.copytree(FOLDER, folder)
    shutil.copy(PAGE, page)
    assert page_differs(folder, page) is None
    source = next(folder.glob(f"*{SUFFIX}"))
    document = json.loads(source.read_text(encoding="utf-8"))
    document["candidate"]["label"] = "newcomer"
    (folder / f"newcomer.v1-{document['protocol']['players']}p-{document['protocol']['tier']}{SUFFIX}").write_text(
        json.dumps(document), encoding="utf-8"
    )
    assert "rebuild it with python -m sam_env.evaluation.leaderboard" in page_differs(folder, page)
    assert leaderboard.main(["--folder", str(folder), "--page", str(page), "--check"]) == 1
    assert leaderboard.main(["--folder", str(folder), "--page", str(page)]) == 0
    assert page_differs(folder, page) is None and "`newcomer`" in page.read_text(encoding="utf-8")


def test_a_tampered_file_stops_the_page_with_the_file_and_field_named(tmp_path: Path) -> None:
    shutil.copytree(FOLDER, tmp_path / "leaderboard")
    target = sorted((tmp_path / "leaderboard").glob(f"*{SUFFIX}"))[0]
    document = json.loads(target.read_text(encoding="utf-8"))
    document["rows"][1]["x_per_hand"] += 0.5
    document["rows"][1]["ci_high"] += 0.5
    target.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(ResultsError, match=re.escape(target.name)) as refused:
        read_entries(tmp_path / "leaderboard")
    assert refused.value.field == "rows[1].x_per_hand"  # recomputed from the row's per-deal values (format 2)


def test_an_empty_folder_says_so() -> None:
    assert "No entries yet" in render([])
    assert Entry("a.b.v1-4p-full.results.json", {}).anchor == "a-b-v1-4p-full"


COMMITTED = sorted(FOLDER.glob(f"*{SUFFIX}")) + sorted((ROOT / "benchmarks").glob(f"**/*{SUFFIX}"))
"""Every results file the repository keeps: the leaderboard's and the algorithms table's."""


@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_committed_file_s_fingerprint_is_what_its_candidate_is_today(path: Path) -> None:
    """A committed file whose candidate this checkout can build carries the fingerprint that candidate has today
    (a bot whose code or weights changed is played again: sam-eval --reproduce FILE --out DIR), unless it is a
    format-1 file of an earlier sam-env, which the leaderboard marks as such until it is played again. A file whose
    candidate is a trained run's checkpoint, which the repository does not keep, cannot be held to it: it is
    marked by the package version that made it, and its run's record (run.json) names the run."""
    from sam_env.evaluation.fingerprints import fingerprint
    from sam_env.evaluation.protocol import rules_for
    from sam_env.evaluation.results import LEGACY_FORMAT_VERSION, package_version, read_results

    document = read_results(path, legacy=True)
    spec = document["candidate"]["spec"]
    if not (ROOT / spec).exists() and spec.startswith("runs/"):
        assert re.fullmatch(r"\d+\.\d+\.\d+", document["package"]["version"])
        assert (path.parent / "run.json").is_file(), f"{path}: a run's checkpoint, but no run.json beside the file"
        return
    today = fingerprint(spec, rules_for(document["protocol"]["players"]))
    if document["format_version"] == LEGACY_FORMAT_VERSION:
        assert document["package"]["version"] != package_version(), f"{path}: format 1 from this very version"
        return
    assert document["candidate"]["fingerprint"] == today, f"{path}: play it again (sam-eval --reproduce)"
