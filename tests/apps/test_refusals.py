"""sam-eval and sam-play refuse a bot that cannot sit at the table before the first hand, in one line
that names the bot, the table and the bots that would fit."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from sam_env.apps import evaluate, play


def _bad_checkpoint(tmp_path: Path) -> str:
    (tmp_path / "policy.json").write_text('{"format": "something else"}', encoding="utf-8")
    return str(tmp_path)


def _three_seat_rules(tmp_path: Path) -> list[str]:
    path = tmp_path / "three.yaml"
    path.write_text("n_players: 3\nbao1: forced\n", encoding="utf-8")
    return ["--rules", str(path)]


CASES = {
    # case: (bot, table options, what the line names as the table, what fits)
    "seat count": (lambda _: "ppo_v1", lambda _: ["--players", "3"], "the 3-player table (default rules)", "heuristic"),
    "rules": (lambda _: "ppo_v1", _three_seat_rules, "the 3-player table (bao1=forced)", "heuristic"),
    "checkpoint that does not load": (_bad_checkpoint, lambda _: [], "the 4-player table (default rules)", "ppo"),
}


def _run(app: str, bot: str, table: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        if app == "sam-eval":
            evaluate.main(["--candidates", "greedy", "--opponents", bot, *table, "--workers", "1", "--no-progress"])
        else:
            play.main(["--opponents", bot, *table], stdin=io.StringIO(""), stdout=io.StringIO())
    captured = capsys.readouterr()
    return exit_info.value.code, captured.out, captured.err


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("app", ["sam-eval", "sam-play"])
def test_refused_in_one_line_before_the_first_hand(
    app: str, case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_bot, make_table, table_words, fits = CASES[case]
    bot = make_bot(tmp_path)
    code, out, err = _run(app, bot, make_table(tmp_path), capsys)
    assert code == 2
    assert out == ""  # nothing was played or printed
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"{app}: error: bot {bot!r} cannot play {table_words}: ")
    assert "Bots that fit this table: " in lines[0] and fits in lines[0].split("Bots that fit this table: ")[1]
