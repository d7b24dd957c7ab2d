"""Numbers anyone can verify: a results file's every figure recomputed from its per-deal values, and a file played
again by ``sam-eval --reproduce``, which names every stored value it does not give."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from sam_env.apps import evaluate
from sam_env.evaluation.protocol import Track
from sam_env.evaluation.protocol_run import run_track
from sam_env.evaluation.reproduce import reproduce
from sam_env.evaluation.results import ResultsError, build_results, dumps, read_results, validate, write_results

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def greedy_file(tiny_quick: None, tmp_path: Path) -> Path:
    """A format-2 results file of greedy on the cut 3-player quick tier (3 seats: panel rows and a network row)."""
    track = Track(3, "quick")
    [scores] = run_track(track, ["greedy"], workers=1, progress=False)
    return write_results(tmp_path / "greedy.v1-3p-quick.results.json", build_results(track, scores, "sam-eval ..."))


def stored_numbers(document: dict) -> Iterator[tuple[str, list, object]]:
    """Every number the rows and the headline store, as ``(field, path, value)``; a path is the keys down to it."""

    def walk(value: object, path: list, where: str) -> Iterator[tuple[str, list, object]]:
        if isinstance(value, dict):
            for key, item in value.items():
                yield from walk(item, [*path, key], f"{where}.{key}")
        elif isinstance(value, list):
            for i, item in enumerate(value):
                yield from walk(item, [*path, i], f"{where}[{i}]")
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            yield where, path, value

    for i, row in enumerate(document["rows"]):
        yield from walk(row, ["rows", i], f"rows[{i}]")
    yield from walk(document["headline"], ["headline"], "headline")


def edited(document: dict, path: list, value: object) -> dict:
    out = copy.deepcopy(document)
    target = out
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return out


def test_every_stored_number_edited_alone_is_refused(greedy_file: Path) -> None:
    """No edit of one stored number passes: a figure is named itself, a per-deal value by the figure it moves."""
    document = read_results(greedy_file)
    numbers = list(stored_numbers(document))
    assert len(numbers) > 150  # the per-deal values of every row, and every figure
    for field, path, value in numbers:
        change = 1 if isinstance(value, int) else 0.01
        with pytest.raises(ResultsError) as refused:
            validate(edited(document, path, value + change))
        if "per_deal" not in field:  # a figure: named exactly
            assert refused.value.field == field, (field, str(refused.value))
        else:  # a raw value: named by the figure of its row (or the headline) that no longer follows from it
            row = field.split(".")[0]
            assert refused.value.field.startswith((row, "headline")), (field, str(refused.value))


def test_the_issue_s_edits_are_refused_by_name(greedy_file: Path) -> None:
    """The edits the issue found passing format 1: a win rate, an interval, a panel margin, the random row."""
    document = read_results(greedy_file)
    random = next(i for i, r in enumerate(document["rows"]) if r["opponent"] == "random")
    panel = next(i for i, r in enumerate(document["rows"]) if "margin" in r)
    inside = (document["rows"][random]["x_per_hand"] + document["rows"][random]["ci_high"]) / 2
    for path, value in [
        (["rows", 1, "win_rate"], 0.99),
        (["rows", 2, "ci_low"], document["rows"][2]["ci_low"] - 0.5),
        (["rows", panel, "margin", "margin"], 0.0),
        (["rows", random, "x_per_hand"], inside),  # inside its interval, and not in the headline
    ]:
        with pytest.raises(ResultsError) as refused:
            validate(edited(document, path, value))
        assert refused.value.field == f"rows[{path[1]}].{'.'.join(map(str, path[2:]))}"


def test_per_deal_values_that_do_not_fit_the_track_are_refused(greedy_file: Path) -> None:
    document = read_results(greedy_file)
    cases = [
        ("rows[0].per_deal.net", lambda d: d["rows"][0]["per_deal"]["net"].pop()),
        ("rows[0].per_deal.seatings", lambda d: d["rows"][0]["per_deal"].update(seatings=2)),
        ("rows[0].per_deal.wins[1]", lambda d: d["rows"][0]["per_deal"]["wins"].__setitem__(1, 4)),
        ("rows[0].per_deal.heuristic_net", lambda d: d["rows"][0]["per_deal"].update(heuristic_net=[0, 0, 0, 0])),
        ("rows[0].per_deal", lambda d: d["rows"][0].pop("per_deal")),
        ("rows[0].per_deal.net[0]", lambda d: d["rows"][0]["per_deal"]["net"].__setitem__(0, 0.5)),
    ]
    for field, change in cases:
        broken = copy.deepcopy(document)
        change(broken)
        with pytest.raises(ResultsError) as refused:
            validate(broken)
        assert refused.value.field == field, str(refused.value)


def test_a_format_1_file_is_refused_with_the_way_to_format_2_and_read_as_a_record() -> None:
    legacy = ROOT / "benchmarks" / "algorithms_table" / "dmc__s1" / "dmc__s1.v1-4p-quick.results.json"
    document = json.loads(legacy.read_text(encoding="utf-8"))
    assert document["format_version"] == 1
    with pytest.raises(ResultsError) as refused:
        validate(document)
    assert refused.value.field == "format_version" and "sam-eval --reproduce FILE --out DIR" in str(refused.value)
    assert read_results(legacy, legacy=True)["headline"] == document["headline"]
    with pytest.raises(ResultsError, match=r"headline\.score"):
        validate(edited(document, ["headline", "score"], document["headline"]["score"] + 0.1), legacy=True)


def test_a_file_reproduces_to_every_value_and_its_reproduction_is_the_same_file(
    greedy_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "again"
    assert evaluate.main(["--reproduce", str(greedy_file), "--out", str(out), "--workers", "2", "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "reproduced: every stored value is equal, and so is the fingerprint" in printed
    assert "1 of 1 file(s) reproduced" in printed
    first, second = read_results(greedy_file), read_results(out / greedy_file.name)
    volatile = ("command", "machine", "wall_time_s", "cpu_time_s", "created")
    assert {k: v for k, v in first.items() if k not in volatile} == {
        k: v for k, v in second.items() if k not in volatile
    }
    assert second["command"] == "sam-eval --protocol v1 --players 3 --tier quick --candidates greedy"


def test_a_changed_value_is_named_with_the_paired_shift_and_the_exit_is_1(
    greedy_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file whose per-deal values (and the figures that follow) are not what the candidate plays: a consistent
    forgery passes --validate, and --reproduce names it."""
    document = read_results(greedy_file)
    row = document["rows"][1]
    row["per_deal"]["net"][0] += 3  # every figure redone from the forged value: the file validates
    forged = tmp_path / "forged.v1-3p-quick.results.json"
    track = Track(3, "quick")
    [scores] = run_track(track, ["greedy"], workers=1, progress=False)
    rebuilt = build_results(track, scores, "sam-eval ...")
    rebuilt["rows"][1] = _row_again(row)
    rebuilt = _headline_again(track, rebuilt)
    validate(rebuilt)
    forged.write_text(dumps(rebuilt), encoding="utf-8")
    assert evaluate.main(["--reproduce", str(forged), "--workers", "1", "--no-progress"]) == 1
    printed = capsys.readouterr().out
    assert "NOT reproduced" in printed and "| rows[1].per_deal.net[0] |" in printed
    assert "| rows[1].x_per_hand |" in printed and "headline, reproduced minus stored, paired over the" in printed


def _row_again(row: dict) -> dict:
    from sam_env.evaluation.protocol_run import PerDeal, row_from_per_deal

    values = row["per_deal"]
    per_deal = PerDeal(values["seatings"], values["net"], values["wins"], values.get("heuristic_net"))
    return row_from_per_deal(row["opponent"], row["group"], row["opponents"], per_deal).to_dict()


def _headline_again(track: Track, document: dict) -> dict:
    from sam_env.evaluation.protocol_run import PerDeal, headline_of_rows, row_from_per_deal

    rows = [
        row_from_per_deal(
            r["opponent"],
            r["group"],
            r["opponents"],
            PerDeal(**r["per_deal"]),
        )
        for r in document["rows"]
    ]
    return {**document, "headline": headline_of_rows(rows, track.headline_opponents).to_dict()}


def test_a_sample_compares_its_deals_and_writes_nothing(greedy_file: Path, tmp_path: Path) -> None:
    [item] = reproduce([greedy_file], deals=2, workers=1, progress=False)
    assert item.equal and item.deals == 2 and not item.whole
    with pytest.raises(ValueError, match="not a results file"):
        item.reproduced_document()
    with pytest.raises(SystemExit):
        evaluate.main(["--reproduce", str(greedy_file), "--deals", "2", "--out", str(tmp_path / "x"), "--no-progress"])


def test_a_changed_candidate_is_named_by_its_fingerprint(greedy_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    document = read_results(greedy_file)
    document["candidate"]["fingerprint"]["sha256"] = "0" * 64
    greedy_file.write_text(dumps(document), encoding="utf-8")
    assert evaluate.main(["--reproduce", str(greedy_file), "--workers", "1", "--no-progress"]) == 1
    printed = capsys.readouterr().out
    assert "every value played is equal, but the candidate is not what made the file" in printed
    assert "| candidate.fingerprint.sha256 | " + "0" * 64 in printed


def test_a_candidate_that_cannot_be_rebuilt_is_refused_before_any_hand(
    greedy_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = read_results(greedy_file)
    document["candidate"]["spec"] = document["candidate"]["label"] = "MyAgent"
    greedy_file.write_text(dumps(document), encoding="utf-8")
    with pytest.raises(SystemExit) as exited:
        evaluate.main(["--reproduce", str(greedy_file), "--no-progress"])
    assert exited.value.code == 2
    assert "'MyAgent' cannot be rebuilt here" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--reproduce", "x.json", "--players", "3"], "drop --players"),
        (["--reproduce", "x.json", "--seed", "3"], "drop --seed"),
        (["--reproduce", "x.json", "--deals", "1"], "N >= 2"),
        (["--reproduce", "x.json", "--candidates", "greedy"], "--reproduce reads files; it takes no --candidates"),
        (["--reproduce", "no_such.results.json"], "cannot reproduce"),
    ],
)
def test_reproduce_refuses_what_the_file_fixes(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        evaluate.main([*argv, "--no-progress"])
    assert exited.value.code == 2
    assert message in capsys.readouterr().err


def test_what_the_schema_and_the_protocol_pin_outside_the_figures_is_refused_too(greedy_file: Path) -> None:
    document = read_results(greedy_file)
    cases = [
        ("environment.encoding_version", ["environment", "encoding_version"], 99),
        ("machine", ["machine", "score"], 1.0),
        ("rules.allow_sam", ["rules", "allow_sam"], 1),  # JSON's 1 is not true
        ("rules.n_players", ["rules", "n_players"], 3.0),
    ]
    for field, path, value in cases:
        with pytest.raises(ResultsError) as refused:
            validate(edited(document, path, value))
        assert refused.value.field == field, str(refused.value)


GREEDY = ROOT / "leaderboard" / "greedy.v1-2p-quick.results.json"


def test_the_committed_greedy_file_refuses_any_edited_number_by_name() -> None:
    """The issue's check on a committed file: any one stored number edited (a sample of 300 of them, every kind) is
    refused, and a figure is named itself."""
    document = read_results(GREEDY)
    numbers = list(stored_numbers(document))
    picks = np.random.default_rng(43).choice(len(numbers), size=300, replace=False)
    figures = [n for n in numbers if "per_deal" not in n[0]]  # and every figure, not only a sample
    for field, path, value in [numbers[i] for i in picks] + figures:
        with pytest.raises(ResultsError) as refused:
            validate(edited(document, path, value + (1 if isinstance(value, int) else 0.01)))
        if "per_deal" not in field:
            assert refused.value.field == field, (field, str(refused.value))


def test_the_committed_greedy_file_reproduces_on_its_first_deals(capsys: pytest.CaptureFixture[str]) -> None:
    assert evaluate.main(["--reproduce", str(GREEDY), "--deals", "3", "--workers", "1", "--no-progress"]) == 0
    assert "reproduced on the sample: the values of its 3 deals are equal, and so is the fingerprint" in (
        capsys.readouterr().out
    )


def test_a_file_made_in_a_git_checkout_names_its_commit(greedy_file: Path) -> None:
    """The package version does not fix the code of a checkout: the commit does, and whether files differed from it."""
    import subprocess

    package = read_results(greedy_file)["package"]
    if not (ROOT / ".git").exists():
        assert set(package) == {"name", "version"}
        return
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, check=True)
    assert package["commit"] == head.stdout.strip() and isinstance(package["modified"], bool)
