"""sam-mcp: an MCP client from the ``mcp`` package plays whole hands through the five tools alone, sees no card its seat
may not see, and has every bad call refused with what was wrong; once over the real stdio wire."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from sam_env.apps.mcp_server import Games, build_server
from sam_env.core.cards import cards_of, format_card

CARD = re.compile(r"(?<![0-9A-Za-z_-])(?:10|[2-9JQKA])[SCDH](?![0-9A-Za-z_-])")


async def call(client: Client, tool: str, **arguments: Any) -> Any:
    """A tool's structured answer; a tool error fails the test with its message."""
    answer = await client.call_tool(tool, arguments)
    assert not answer.is_error, answer.content[0].text
    content = answer.structured_content
    return content["result"] if set(content) == {"result"} else content


async def play_hand(client: Client, games: Games | None, **new_game: Any) -> tuple[dict, int]:
    """One hand played with the tools alone (the last legal move each time); its result and the decisions made.
    With ``games`` (the server's own, in process), every answer is searched for cards the seat may not see."""
    started = await call(client, "new_game", **new_game)
    game_id, seat, decisions = started["game_id"], started["seat"], 0
    dealt = None if games is None else games.get(game_id).env.unwrapped.hand.cards[seat]
    while not (result := await call(client, "result", game_id=game_id))["over"]:
        observed = await call(client, "observe", game_id=game_id)
        moves = await call(client, "legal_moves", game_id=game_id)
        assert moves == observed["view"]["legal_moves"] and observed["view"]["seat"] == seat
        if games is not None:
            hand = games.get(game_id).env.unwrapped.hand
            seen = dealt
            for played in hand.played:
                seen |= played
            visible = {format_card(c) for c in cards_of(seen)}
            assert set(CARD.findall(json.dumps(observed))) <= visible
        await call(client, "play", game_id=game_id, move=moves[-1])
        decisions += 1
    return result, decisions


def test_an_mcp_client_plays_whole_hands_of_every_table_size_with_the_tools_alone() -> None:
    async def run() -> None:
        games = Games()
        async with Client(build_server(games)) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            assert names == {"new_game", "observe", "legal_moves", "play", "result"}
            for players in (2, 3, 4, 5):
                for seed in range(5):
                    result, _ = await play_hand(
                        client, games, players=players, seat=seed % players, seed=seed, opponents="greedy"
                    )
                    assert len(result["money"]) == players and sum(result["money"]) == 0
                    assert result["your_money"] == result["money"][seed % players]
            default, _ = await play_hand(client, games)  # new_game() with its defaults: 4 seats, the heuristic
            assert len(default["money"]) == 4

    asyncio.run(run())


@pytest.mark.parametrize(
    ("tool", "arguments", "message"),
    [
        ("observe", {"game_id": "nope"}, "no game 'nope'"),
        ("play", {"game_id": "g1", "move": "pair:Z"}, "the reply names no move"),
        ("play", {"game_id": "g1", "move": "quad:3"}, "is not a legal move now"),
        ("new_game", {"players": 7}, "n_players = 7 is not allowed"),
        ("new_game", {"seat": 4}, "seat must be 0 to 3 at a 4-seat table"),
        ("new_game", {"opponents": "no_such_bot"}, "unknown agent name"),
    ],
)
def test_a_bad_call_is_refused_with_what_was_wrong_and_changes_nothing(
    tool: str, arguments: dict, message: str
) -> None:
    async def run() -> None:
        games = Games()
        async with Client(build_server(games)) as client:
            await call(client, "new_game", seed=1)
            before = json.dumps(await call(client, "observe", game_id="g1"))
            answer = await client.call_tool(tool, arguments)
            assert answer.is_error and message in answer.content[0].text, answer.content[0].text
            assert json.dumps(await call(client, "observe", game_id="g1")) == before

    asyncio.run(run())


def test_a_move_after_the_end_is_refused() -> None:
    async def run() -> None:
        async with Client(build_server()) as client:
            await play_hand(client, None, seed=2)
            answer = await client.call_tool("play", {"game_id": "g1", "move": "pass"})
            assert answer.is_error and "game g1 is over" in answer.content[0].text
            assert await call(client, "legal_moves", game_id="g1") == []

    asyncio.run(run())


def test_sam_mcp_plays_a_hand_over_stdio() -> None:
    """The console entry point as an MCP host starts it: a subprocess speaking MCP on its stdin and stdout."""
    server = StdioServerParameters(command=str(Path(sys.executable).parent / "sam-mcp"), args=[])

    async def run() -> None:
        async with Client(server) as client:
            result, decisions = await play_hand(client, None, seed=5)
            assert result["over"] and decisions > 0

    asyncio.run(run())
