"""``sam-mcp``: a Model Context Protocol server (stdio) through which a tool-using agent plays a seat against our bots.

Five tools, built on :mod:`sam_env.text_views`, so the agent sees its own seat's view and nothing else:

* ``new_game(players=4, opponents="heuristic", seat=0, seed=None)`` deals a hand (the bots play until the agent's
  turn) and returns its ``game_id`` with the seat's view;
* ``observe(game_id)``: the seat's view as JSON, with the same facts as text;
* ``legal_moves(game_id)``: the names of its legal moves (``pair:K``, ``pass`` …);
* ``play(game_id, move)``: plays a move named as ``legal_moves`` names it (read forgivingly, never as an illegal
  move: :func:`sam_env.text_views.parse_move`), then the bots until the agent's turn or the hand's end;
* ``result(game_id)``: whether the hand is over and, once it is, every seat's money in X.

A bad call (an unknown game, a move that is not legal, a move after the hand's end, a table the opponents cannot
play) is a tool error whose message says what was wrong and what was expected; nothing changes. The games live in
the server's process, at most :data:`MAX_GAMES` at once (the oldest is dropped). The server speaks MCP over stdin
and stdout, through the ``mcp`` package's :class:`~mcp.server.mcpserver.MCPServer` (the ``mcp`` extra).
"""

from __future__ import annotations

import argparse
import functools
import itertools
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import sam_env
from sam_env.core import RuleConfig
from sam_env.text_views import parse_move, seat_json, seat_text
from sam_env.utils.extras import MissingExtra, import_extra

MAX_GAMES = 1000
"""Games kept at once; a new game beyond it drops the oldest."""


@dataclass
class Game:
    """One hand: the environment, the agent's seat and the bots of the other seats."""

    env: Any
    seat: int
    bots: dict[int, Any]

    def play_bots(self) -> None:
        """The bots' moves until the agent's turn or the hand's end."""
        while not self.env.unwrapped.over and self.env.unwrapped.seat_to_act != self.seat:
            agent = self.env.agent_selection
            observation = self.env.last()[0]
            seat = self.env.unwrapped.seat_of(agent)
            self.env.step(self.bots[seat].act(observation, self.env.unwrapped.seat_view(agent)))

    def view(self) -> dict[str, Any]:
        """The agent's seat's view: JSON, and the same as text."""
        view = self.env.unwrapped.seat_view(self.env.unwrapped.agent_of_seat(self.seat))
        return {"over": self.env.unwrapped.over, "view": seat_json(view), "text": seat_text(view)}


class Games:
    """The games of one server, by id."""

    def __init__(self) -> None:
        self.games: OrderedDict[str, Game] = OrderedDict()
        self.ids = itertools.count(1)

    def new(self, players: int, opponents: str, seat: int, seed: int | None) -> tuple[str, Game]:
        if not isinstance(seat, int) or not 0 <= seat < players:
            raise ValueError(f"seat must be 0 to {players - 1} at a {players}-seat table, got {seat!r}")
        rules = RuleConfig(n_players=players)  # a RuleConfigError (a ValueError) says which counts are allowed
        bots = {
            s: sam_env.load_bot(opponents, seed=None if seed is None else seed + s, rules=rules)
            for s in range(players)
            if s != seat
        }
        env = sam_env.env(rules=rules)
        env.reset(seed=seed)
        game = Game(env, seat, bots)
        game.play_bots()
        game_id = f"g{next(self.ids)}"
        self.games[game_id] = game
        while len(self.games) > MAX_GAMES:
            self.games.popitem(last=False)
        return game_id, game

    def get(self, game_id: str) -> Game:
        if game_id not in self.games:
            known = ", ".join(list(self.games)[-5:]) or "none yet: call new_game"
            raise ValueError(f"no game {game_id!r}; the games are: {known}")
        return self.games[game_id]


def build_server(games: Games | None = None) -> Any:
    """The MCP server with the five tools (see the module docstring)."""
    mcpserver = import_extra("mcp.server.mcpserver", extra="mcp", needs=("mcp",), what="sam-mcp")
    tool_error = import_extra("mcp.server.mcpserver.exceptions", extra="mcp", needs=("mcp",), what="sam-mcp").ToolError
    games = games if games is not None else Games()

    def refusals(tool: Callable[..., Any]) -> Callable[..., Any]:
        """A bad call's ``ValueError`` as a tool error with its message (the SDK hides any other exception's)."""

        @functools.wraps(tool)
        def checked(*args: Any, **kwargs: Any) -> Any:
            try:
                return tool(*args, **kwargs)
            except ValueError as err:  # a bad argument, an unknown game, an illegal move: said to the agent
                raise tool_error(str(err)) from err

        return checked

    server = mcpserver.MCPServer(
        "sam-env",
        instructions="Play Sâm Lốc (a Vietnamese climbing card game) against sam-env's bots: new_game, then observe "
        "and play until result says the hand is over. Moves are named as legal_moves names them.",
    )

    @server.tool()
    @refusals
    def new_game(
        players: int = 4, opponents: str = "heuristic", seat: int = 0, seed: int | None = None
    ) -> dict[str, Any]:
        """Deal a new hand: you sit at ``seat`` of a ``players``-seat table (2-5), the other seats are ``opponents``
        (a bot name: heuristic, greedy, random, best, ...); the bots play until your turn. Returns the game id and
        your view."""
        game_id, game = games.new(players, opponents, seat, seed)
        return {"game_id": game_id, "seat": seat, **game.view()}

    @server.tool()
    @refusals
    def observe(game_id: str) -> dict[str, Any]:
        """Your seat's view of the game: your hand, the table, the history, the money, your legal moves."""
        return games.get(game_id).view()

    @server.tool()
    @refusals
    def legal_moves(game_id: str) -> list[str]:
        """The names of your legal moves now (empty once the hand is over)."""
        view = games.get(game_id).view()["view"]
        return [] if view["phase"] == "over" else view["legal_moves"]

    @server.tool()
    @refusals
    def play(game_id: str, move: str) -> dict[str, Any]:
        """Play ``move``, named as legal_moves names it (e.g. 'pair:K', 'straight:10-Q', 'pass'); then the bots play
        until your turn or the end of the hand. Returns your view."""
        game = games.get(game_id)
        if game.env.unwrapped.over:
            raise ValueError(f"game {game_id} is over: call result, or new_game for another hand")
        game.env.step(parse_move(move, game.env.unwrapped.legal_moves()))
        game.play_bots()
        return game.view()

    @server.tool()
    @refusals
    def result(game_id: str) -> dict[str, Any]:
        """Whether the hand is over and, once it is, every seat's money in X and yours."""
        game = games.get(game_id)
        if not game.env.unwrapped.over:
            return {"over": False}
        money = list(game.env.unwrapped.result.net)
        return {"over": True, "money": money, "your_money": money[game.seat]}

    return server


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="sam-mcp",
        description="A Model Context Protocol server (stdio) for playing Sâm Lốc against sam-env's bots: tools "
        "new_game, observe, legal_moves, play and result (docs/clients.md).",
    )
    parser.parse_args(argv)
    try:
        server = build_server()
    except MissingExtra as err:
        parser.exit(2, f"sam-mcp: error: {err}\n")
    server.run("stdio")
    return 0
