"""``sam-play``'s screen in a terminal of 80 columns (``COLUMNS=80``), played from a script: nothing wider
than the terminal, the legal moves in whole entries and aligned columns, the table's columns aligned, the
player's own moves echoed, every trick's winner named, and no question asked when pass is the only move."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import sam_env
from sam_env.agents.human import HumanPlayer
from sam_env.apps import play
from sam_env.core.render import count_of_cards, render_hand

WIDTH = 80
ENTRY = re.compile(r"\d+\) (\S+)")
"""One entry of the list of legal moves: its number and the move's name."""


def screen(argv: list[str], answers: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("COLUMNS", str(WIDTH))
    out = io.StringIO()
    assert play.main(argv, stdin=io.StringIO(answers), stdout=out) == 0
    return out.getvalue()


@pytest.fixture(scope="module")
def transcript(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Three hands at 4 seats without báo Sâm, the player always taking the first listed move (pass
    where it may, else its lowest play)."""
    rules = tmp_path_factory.mktemp("rules") / "no_sam.yaml"
    rules.write_text("allow_sam: false\n", encoding="utf-8")
    argv = ["--opponents", "heuristic", "--seed", "5", "--hands", "3", "--rules", str(rules)]
    with pytest.MonkeyPatch.context() as monkeypatch:
        return screen(argv, "1\n" * 400, monkeypatch)


def test_no_line_is_wider_than_the_terminal(transcript: str) -> None:
    wide = [line for line in transcript.splitlines() if len(line) > WIDTH]
    assert not wide, wide


def test_the_legal_moves_are_whole_entries_in_aligned_columns(transcript: str) -> None:
    lines = transcript.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("legal moves: ")]
    assert starts
    for start in starts:
        end = next(i for i in range(start, len(lines)) if lines[i].startswith("(type a number"))
        block = lines[start:end]
        for row in block:  # every move name whole: it names an action
            assert all(sam_env.action_index(name) >= 0 for name in ENTRY.findall(row)), row
        closes = [{m.end() for m in re.finditer(r"\d+\)", row)} for row in block]
        assert all(row <= closes[0] for row in closes), block  # the numbers line up down the list


def test_the_tables_columns_line_up(transcript: str) -> None:
    lines = transcript.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Sâm Lốc, "):
            seats = []
            for row in lines[i + 1 :]:
                if not row.startswith("  seat "):
                    break
                seats.append(row)
            columns = {row.index("played:") for row in seats if "played:" in row}
            assert len(columns) == 1, seats
            assert len({row.index("X  ") for row in seats}) == 1, seats


def test_own_moves_are_echoed_and_only_real_choices_are_asked(transcript: str) -> None:
    asked = transcript.count("your move> ")
    echoed = re.findall(r"^seat 0 \(you\): (\S+)( \(your only move)?", transcript.replace("your move> 1\n", ""), re.M)
    assert asked == sum(1 for _, forced in echoed if not forced) > 0
    forced = [move for move, why in echoed if why]
    assert forced and set(forced) == {"pass"}, "an automatic pass, announced"


def test_every_tricks_winner_is_named(transcript: str) -> None:
    line = r"^-- seat (\d) \((\w+)\) wins the trick with (\S+) (and leads|; seat \d \(\w+\) leads)$"
    won = re.findall(line, transcript, re.M)
    assert len(won) >= 3


def test_a_hidden_hand_of_one_card_is_one_card() -> None:
    assert (count_of_cards(1), count_of_cards(2)) == ("[1 card]", "[2 cards]")
    env, rng, seen = sam_env.env(), np.random.default_rng(0), False
    for seed in range(20):
        env.reset(seed=seed)
        for _ in env.agent_iter():
            hand = env.unwrapped.hand
            if 1 in hand.n_cards and not hand.over:
                seat = int(np.flatnonzero(np.asarray(hand.n_cards) == 1)[0])
                text = render_hand(hand, viewer=(seat + 1) % hand.n_players)
                assert "[1 card]" in text and "[1 cards]" not in text
                seen = True
            observation, _, termination, truncation, _ = env.last()
            done = termination or truncation
            env.step(None if done else int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    assert seen


def test_the_list_of_moves_fits_any_width() -> None:
    legal = list(range(60))
    for width in (40, 80, 132):
        text = HumanPlayer.choices(legal, width)
        assert max(len(line) for line in text.splitlines()[:-1]) <= width
        assert len(re.findall(r"\d+\) ", text)) == 60


def test_the_command_itself_in_80_columns(tmp_path: object) -> None:
    """The installed entry point, as a person would run it with a script on its standard input."""
    env = {**os.environ, "COLUMNS": str(WIDTH)}
    command = [sys.executable, "-m", "sam_env.apps.play", "--seed", "5", "--players", "3"]
    done = subprocess.run(command, input="1\n" * 200, capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert max(len(line) for line in done.stdout.splitlines()) <= WIDTH
    assert "seat 0 (you): " in done.stdout and "you: " in done.stdout
