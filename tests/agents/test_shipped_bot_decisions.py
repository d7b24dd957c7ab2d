"""The shipped network plays exactly as it did when these decisions were recorded.

Refactoring the loader, the checkpoint format or the encoder must not change a single move of
``agents/networks/shipped/ppo_v1`` (shipped as ``ppo`` until the batched trainer's bots replaced it): the
test replays a fixed table (the shipped bot in two seats, the random
and heuristic bots in the others, every bot seeded) through ``sam_env.env()`` and compares every
decision of the shipped bot — its seat and action, in order — and a SHA-256 of every observation it
was shown with the file ``data/ppo_decisions.json``, recorded from the code of 2026-12-01 (before
the checkpoint fingerprint, the ``training`` package and the bot-spec evaluation).

To re-record after an *intended* change of play (a new network, a new encoding)::

    python tests/agents/test_shipped_bot_decisions.py --write
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import sam_env
from sam_env.agents.registry import load_bot
from sam_env.core import SeatView
from sam_env.evaluation.tournament import play_out

DATA = Path(__file__).resolve().parent / "data" / "ppo_decisions.json"
LINEUP = ("ppo_v1", "random", "ppo_v1", "heuristic")
SEED = 20261201
MIN_DECISIONS = 1000


def play_recorded_table() -> dict[str, Any]:
    """Hands of one seeded table until the shipped bot has made at least ``MIN_DECISIONS`` decisions."""
    env = sam_env.env()
    bots = [load_bot(name, seed=SEED + seat) for seat, name in enumerate(LINEUP)]
    decisions: list[list[int]] = []
    digest = hashlib.sha256()
    hands = 0

    def recorded(seat: int, observation: dict, view: SeatView) -> int:
        action = bots[seat].act(observation, view)
        if LINEUP[seat] == "ppo_v1":
            decisions.append([seat, action])
            digest.update(observation["observation"].tobytes())
        return action

    env.reset(seed=SEED)
    while len(decisions) < MIN_DECISIONS:
        if hands:
            env.reset()
        hands += 1
        play_out(env, recorded)
    return {
        "lineup": list(LINEUP),
        "seed": SEED,
        "hands": hands,
        "decisions": decisions,
        "observations_sha256": digest.hexdigest(),
    }


def test_shipped_bot_repeats_its_recorded_decisions() -> None:
    recorded = json.loads(DATA.read_text(encoding="utf-8"))
    assert len(recorded["decisions"]) >= MIN_DECISIONS
    replayed = play_recorded_table()
    first_difference = next(
        (i for i, (a, b) in enumerate(zip(recorded["decisions"], replayed["decisions"], strict=False)) if a != b), None
    )
    assert first_difference is None, (
        f"decision {first_difference} differs: recorded (seat, action) {recorded['decisions'][first_difference]}, "
        f"now {replayed['decisions'][first_difference]}"
    )
    assert replayed == recorded


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    DATA.write_text(json.dumps(play_recorded_table(), separators=(",", ":")) + "\n", encoding="utf-8")
