"""``sam-play`` / ``python -m sam_env.apps.play``: play Sâm Lốc in the terminal against bots.

The game runs through the environment, exactly as bots see it. Before each of your moves the table
is drawn from your seat (your cards, the others' card counts, the play to beat); every move, yours
too, is announced, and so is the winner of every trick; when pass is your only move you pass without
being asked; when a hand ends all hands are shown with the money. Several hands make a table: the
winner of one hand leads the next. The table and the list of moves fit the terminal's width
(``COLUMNS`` where it is set).
"""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

import sam_env
from sam_env.agents.human import HumanPlayer, QuitGame
from sam_env.agents.networks.catalogue import resolutions
from sam_env.agents.registry import listed, load_bot
from sam_env.apps.options import add_rules_arguments, check_bots, opponent_lineup, refusals_reported, rules_from_args
from sam_env.bot import Bot, table_encoding_version
from sam_env.core import COMBOS, NO_PLAY, RuleConfig, SeatView
from sam_env.core.render import render_hand
from sam_env.evaluation.replay import ReplayWriter, record_hand
from sam_env.evaluation.tournament import play_out

PASS = sam_env.action_index("pass")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sam-play",
        description="Play Sâm Lốc in the terminal against bots. Choose each move by its number in the "
        "list of legal moves or by name (single:7, pair:K, straight:10-A, pass; T for 10); "
        "'quit' or end of input stops.",
    )
    parser.add_argument(
        "--opponents",
        nargs="+",
        default=["heuristic"],
        metavar="NAME",
        help=f"bots in the other seats, in turn order after you; one name fills every seat "
        f"(known: {listed()}; a network's own name or a checkpoint path; or a bot of your own: "
        "package.module:attr or path/to/file.py:attr; default heuristic)",
    )
    parser.add_argument("--seat", type=int, default=0, help="your seat, 0 to n-1 (default 0)")
    parser.add_argument("--hands", type=int, default=1, help="hands to play at the same table (default 1)")
    parser.add_argument("--seed", type=int, help="seed of the deals and bots (default: a fresh random game)")
    parser.add_argument("--symbols", action="store_true", help="show suits as ♠ ♣ ♦ ♥")
    parser.add_argument(
        "--record",
        type=Path,
        metavar="FILE",
        help="write every finished hand (rules, deal, each move with seat, player and action, the ledger) to FILE "
        "as JSON Lines; sam-web shows them move by move",
    )
    add_rules_arguments(parser)
    return parser


def _lineup(args: argparse.Namespace, rules: RuleConfig) -> list[str]:
    n = rules.n_players
    check_bots(args.opponents, rules)
    if not 0 <= args.seat < n:
        raise ValueError(f"--seat must be a seat from 0 to {n - 1} for {n} players, got {args.seat}")
    if args.hands < 1:
        raise ValueError(f"--hands must be at least 1, got {args.hands}")
    if args.seed is not None and args.seed < 0:
        raise ValueError(f"--seed must be an int >= 0, got {args.seed}")
    return opponent_lineup(args.opponents, n)


def main(argv: Sequence[str] | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    stdin = stdin if stdin is not None else sys.stdin
    out = stdout if stdout is not None else sys.stdout
    parser = build_parser()
    args = parser.parse_args(argv)
    with refusals_reported(parser):
        rules = rules_from_args(args)
        lineup = _lineup(args, rules)
        writer = None if args.record is None else ReplayWriter(args.record)
    n, me = rules.n_players, args.seat
    width = shutil.get_terminal_size().columns
    human = HumanPlayer(stdin=stdin, stdout=out, width=width)
    players: list[Bot] = [human] * n
    names = ["you"] * n
    for j, name in enumerate(lineup, start=1):
        seed = None if args.seed is None else args.seed + j
        players[(me + j) % n], names[(me + j) % n] = load_bot(name, seed, rules), name
    networks = resolutions(names, n)  # "best" and family names: the network each loads, with its weights' hash
    for name, network in networks.items():
        out.write(f"{name} plays {network['network']} here (weights sha256 {network['sha256'][:12]}…)\n")
    env = sam_env.env(rules=rules, encoding_version=table_encoding_version(players))  # what its networks read
    raw = env.unwrapped
    trick = {"combo": NO_PLAY, "owner": -1}
    """The play to beat before the last move: when the table is clear again, its owner won the trick."""

    def choose(seat: int, observation: dict, view: SeatView) -> int:
        """The seat's player decides; the table is shown before the human's turn; every move is announced."""
        hand = raw.hand
        if trick["combo"] != NO_PLAY and hand.table_combo == NO_PLAY:
            winner, lead = trick["owner"], hand.table_owner
            leads = "and leads" if lead == winner else f"; seat {lead} ({names[lead]}) leads"
            out.write(f"-- seat {winner} ({names[winner]}) wins the trick with {COMBOS[trick['combo']].name} {leads}\n")
        trick.update(combo=hand.table_combo, owner=hand.table_owner)
        player = players[seat]
        if player is human and list(view.legal) == [PASS]:
            beaten = COMBOS[hand.table_combo].name
            out.write(f"seat {seat} (you): pass (your only move: nothing you hold beats {beaten})\n")
            return PASS
        if player is human:
            out.write(render_hand(hand, viewer=me, symbols=args.symbols, width=width) + "\n")
        action = player.act(observation, view)
        out.write(f"seat {seat} ({names[seat]}): {sam_env.action_name(action)}\n")
        return action

    total = 0
    try:
        for number in range(1, args.hands + 1):
            if number == 1:
                env.reset(seed=args.seed)
            else:
                env.reset()
            trick.update(combo=NO_PLAY, owner=-1)
            out.write(f"\n=== hand {number} of {args.hands}: you are seat {me} ===\n")
            total += play_out(env, choose).net[me]
            if writer is not None:
                info = {
                    "app": "sam-play",
                    "hand": number,
                    "seed": args.seed,
                    **({"networks": networks} if networks else {}),
                }
                writer.write(record_hand(raw.hand, names, info))
            out.write(render_hand(raw.hand, viewer=None, symbols=args.symbols, width=width) + "\n")
            out.write(f"you: {raw.result.net[me]:+d}X this hand, {total:+d}X in total\n")
    except QuitGame:
        out.write(f"bye — you stopped with {total:+d}X in total\n")
    finally:
        if writer is not None:
            writer.close()
            out.write(f"recorded {writer.count} hand(s) to {args.record}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
