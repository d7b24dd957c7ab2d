"""A human at the terminal, as an agent: shows the legal moves and reads a choice.

Moves are chosen by number (from the listed legal moves) or by name, as the action table spells
it (``single:7``, ``pair:K``, ``straight:10-A``, ``pass``); case does not matter and ``T`` stands
for 10. The list is laid out in aligned columns that fit the terminal's width (``COLUMNS`` where it
is set), so a terminal never wraps it mid-word. Bad input is answered with the legal choices;
``quit``, ``exit`` or end of input raise :class:`QuitGame` so that the game loop can stop cleanly.
Input and output streams are injectable, which lets tests script a whole game.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Mapping, Sequence
from typing import TextIO

import numpy as np

from sam_env import action_index, action_name
from sam_env.bot import Bot
from sam_env.core import SeatView

QUIT_WORDS = frozenset({"quit", "exit", "q"})
HELP_WORDS = frozenset({"?", "help", "h"})


class QuitGame(Exception):
    """The human asked to stop (``quit`` or end of input)."""


class HumanPlayer(Bot):
    """Asks the person at ``stdin``/``stdout`` for every move of its seat."""

    name = "human"

    def __init__(
        self,
        seed: int | None = None,
        stdin: TextIO | None = None,
        stdout: TextIO | None = None,
        width: int | None = None,
    ) -> None:
        super().__init__(seed)
        self.stdin = stdin if stdin is not None else sys.stdin
        self.stdout = stdout if stdout is not None else sys.stdout
        self.width = width
        """Columns of the list of moves; None: the terminal's, at every move (it may be resized)."""

    def act(self, observation: Mapping[str, np.ndarray], view: SeatView) -> int:
        legal = list(view.legal)
        width = self.width if self.width is not None else shutil.get_terminal_size().columns
        self._write(self.choices(legal, width))
        while True:
            self.stdout.write("your move> ")
            self.stdout.flush()
            line = self.stdin.readline()
            if not line:
                self._write("")
                raise QuitGame("end of input")
            text = line.strip()
            if not _is_terminal(self.stdin):  # scripted input: show it where a terminal would have echoed it
                self._write(text)
            if text.lower() in QUIT_WORDS:
                raise QuitGame(text)
            if not text or text.lower() in HELP_WORDS:
                self._write(self.choices(legal, width))
                continue
            move, problem = parse_move(text, legal)
            if move is not None:
                return move
            self._write(f"{problem}\n{self.choices(legal, width)}")

    @staticmethod
    def choices(legal: Sequence[int], width: int = 80) -> str:
        """The numbered list of legal moves, in aligned columns no wider than ``width``.

        Every entry (``12) straight:10-A``) keeps to one line; entries are padded to the widest, and
        as many columns as fit share a line, so the numbers line up down the list.
        """
        numbers = len(str(len(legal)))
        items = [f"{i:>{numbers}}) {action_name(a)}" for i, a in enumerate(legal, start=1)]
        head, gap = "legal moves: ", "   "
        column = max(map(len, items)) + len(gap)
        per_line = max(1, (width - len(head) + len(gap)) // column)
        rows = [items[i : i + per_line] for i in range(0, len(items), per_line)]
        lines = [head + gap.join(f"{item:<{column - len(gap)}}" for item in row).rstrip() for row in rows]
        lines[1:] = [" " * len(head) + line[len(head) :] for line in lines[1:]]
        return "\n".join(lines) + "\n(type a number or a name; 'quit' to stop)"

    def _write(self, text: str) -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()


def _is_terminal(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def parse_move(text: str, legal: Sequence[int]) -> tuple[int | None, str]:
    """``(action, "")`` for a valid choice, else ``(None, why not)``."""
    if text.isdigit():
        number = int(text)
        if 1 <= number <= len(legal):
            return legal[number - 1], ""
        return None, f"there is no move number {number}; choose 1 to {len(legal)}"
    try:
        action = action_index(text.lower())
    except ValueError:
        return None, f"{text!r} is not a move name"
    if action not in legal:
        return None, f"{action_name(action)} is not legal now"
    return action, ""
