"""Live games of the web app: one table each, a person in one seat and bots in the others.

A :class:`Game` drives the environment seat by seat (``seat_to_act``, ``legal_moves``, ``observe``,
``seat_view``, ``step``, the hand's ``result``): the person's move is checked against the legal
moves before anything changes, then the bots answer until it is the person's turn again or the
hand is over. Everything a response shows is built by :mod:`.views` from what the person's seat
may know; the other seats' cards are read only once the hand is over.

Bots can be slow (``ppo_search`` thinks for a fraction of a second per decision, more on a busy
machine), so the server calls :meth:`Game.play` and friends in worker threads. A game takes one
request at a time: a second move sent while the bots are still answering the first is refused
(409), not queued behind it, and ``GET`` returns the view published by the last finished request.
A request applies whole or not at all: should anything fail inside it (a bot, the settlement, writing
a recorded hand), the table, the score and the history are put back as they were before it.

A game may have a coach (:mod:`.coach`): at each of the person's decisions the legal moves' values,
computed from the person's observation only, and after the hand a review of their decisions. A game
may be recorded (:mod:`.recordings`): each finished hand is written once, as the last step of the
request that finished it.

:class:`GameStore` keeps the live games in memory under unguessable ids
(``secrets.token_urlsafe``), at most ``max_games`` at once and at most ``per_client`` for one
client (its address), so that one client cannot take every seat of the server; a game unused for
``idle_seconds`` expires, the page deletes its game when it deals a new one or closes, and a
deleted or expired id answers 404.
"""

from __future__ import annotations

import copy
import secrets
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import sam_env
from sam_env.bot import Bot, table_encoding_version
from sam_env.core import COMBOS, N_COMBOS, RuleConfig, SeatView, combo_index

from .coach import Coach, Review, searcher, think
from .errors import BadRequest, Conflict, NotFound, TooManyGames, Unavailable
from .recordings import Recordings, hand_record
from .views import cards_for, cards_json, illegal_reason, move_entry, seat_view_json

if TYPE_CHECKING:
    from sam_env.agents.search import SearchBot

HUMAN = "you"


class Game:
    """One table: the rules, the person's seat, a bot in every other seat, the running score.

    ``players[seat]`` is the label each seat shows (``"you"`` for the person's); ``bots[seat]`` the
    bot of every other seat (``None`` at the person's). ``coach``: values the person's moves (None: no
    coach); ``recording``: where finished hands are kept and under which token (None: not kept).
    """

    def __init__(
        self,
        rules: RuleConfig,
        seat: int,
        players: Sequence[str],
        bots: Sequence[Bot | None],
        coach: Coach | None = None,
        recording: tuple[Recordings, str] | None = None,
    ) -> None:
        self.rules = rules
        self.rules_json = rules.to_dict()
        self.seat = seat
        self.players = list(players)
        self.bots = list(bots)
        self.coach = coach
        self.recording = recording
        readers = [*self.bots, *([] if coach is None else [coach.bot])]  # the coach reads the table's observation too
        self.env = sam_env.raw_env(rules=rules, encoding_version=table_encoding_version(readers))
        self.totals = [0] * rules.n_players
        """Each seat's money over the finished hands of this table."""
        self.hand_number = 0
        self.history: list[dict[str, Any]] = []
        """Every move of the current hand, as :func:`.views.move_entry` shows it (public)."""
        self.answer_from = 0
        """Index in ``history`` of the first bot move since the person's last decision."""
        self.lock = threading.Lock()
        self.snapshot: dict[str, Any] = {}
        """The view published by the last finished request (what ``GET`` returns)."""
        self.last_used = 0.0
        self._last_view: SeatView | None = None
        """The person's view after the last move (the public state the next move starts from)."""
        self.advice: dict[int, float] | None = None
        """The coach's value (X) of each legal move of the person's decision now; None when not theirs or no coach."""
        self.review: Review | None = None
        """The coach's notes on the person's decisions of this hand (None without a coach)."""
        self.recorded = 0
        """Hands of this game written to its recording."""
        self._recorded_hand = 0
        """The number of the last hand written (a hand is written once)."""
        self.search_seed: int | None = None
        """Seeds the deals *think longer* samples (None: fresh ones; tests fix it)."""
        self._search: SearchBot | None = None
        """The coach's search, made on the first *think longer* (with its own generator)."""

    # ------------------------------------------------------------------ requests (worker threads)

    def start(self, seed: int | None, deal: dict[str, Any] | None = None) -> dict[str, Any]:
        """Deal the table's first hand (``seed``: the deals; None for a fresh random table). ``deal``: an
        explicit first deal instead, as the environment's reset options take it (``{"hands", "leader"}``)."""
        with self._busy(), self._whole():
            self.env.reset(seed=seed, options=deal)
            return self._begin_hand()

    def play(self, action: object) -> dict[str, Any]:
        """The person's move (an action id or name), then the bots' answer; the view after it."""
        with self._busy():
            raw = self.env
            if raw.over:
                raise Conflict(
                    "the hand is over: no move can be made; POST /api/games/{id}/next deals the next hand", legal=[]
                )
            legal = raw.legal_moves()
            names = [COMBOS[a].name for a in legal]
            index = parse_action(action, names)
            if index not in legal:
                view = raw.seat_view(raw.agent_of_seat(self.seat))
                raise Conflict(f"illegal move {COMBOS[index].name}: {illegal_reason(view, index)}", legal=names)
            with self._whole():
                self.answer_from = len(self.history) + 1
                if self.review is not None and self.advice is not None:
                    hand = raw.seat_view(raw.agent_of_seat(self.seat)).hand
                    self.review.add(len(self.history), self.advice, index, lambda a: cards_for(hand, a))
                self._step(self.seat, index)
                self._bots_answer()
                return self._publish()

    def next_hand(self) -> dict[str, Any]:
        """Deal the next hand of the same table (the previous winner leads it)."""
        with self._busy():
            if not self.env.over:
                names = [COMBOS[a].name for a in self.env.legal_moves()] if self._your_turn() else []
                raise Conflict("the hand is not over yet: finish it before dealing the next one", legal=names)
            with self._whole():
                self.env.reset()
                return self._begin_hand()

    def think(self) -> dict[str, Any]:
        """*Think longer*: a search's values of the network's preferred moves at the person's decision now
        (:func:`.coach.think`); changes nothing of the game."""
        with self._busy():
            if self.coach is None:
                raise Conflict('thinking longer is the coach\'s: deal a game with "coach": true')
            if not self._your_turn() or self.advice is None:
                raise Conflict("it is not your turn: the coach thinks about your decisions only")
            if self._search is None:
                self._search = searcher(self.coach, self.search_seed)
            agent = self.env.agent_of_seat(self.seat)
            observation, view = self.env.observe(agent)["observation"], self.env.seat_view(agent)
            return think(self._search, observation, view, self.advice) | {"network": self.coach.network}

    def view(self) -> dict[str, Any]:
        """The last published view, and whether a request is being answered now."""
        return {**self.snapshot, "busy": self.lock.locked()}

    # ------------------------------------------------------------------ internals

    def _busy(self) -> _Busy:
        return _Busy(self.lock)

    @contextmanager
    def _whole(self) -> Iterator[None]:
        """Put the game back as it was if the request fails midway (the caller holds the lock)."""
        saved = {name: copy.deepcopy(getattr(self, name)) for name in _REQUEST_STATE}
        try:
            yield
        except BaseException:
            for name, value in saved.items():
                setattr(self, name, value)
            raise

    def _your_turn(self) -> bool:
        return not self.env.over and self.env.seat_to_act == self.seat

    def _begin_hand(self) -> dict[str, Any]:
        self.hand_number += 1
        self.history = []
        self._last_view = None
        self.answer_from = 0
        self.review = None if self.coach is None else Review()
        self._bots_answer()
        return self._publish()

    def _bots_answer(self) -> None:
        raw = self.env
        while not raw.over and raw.seat_to_act != self.seat:
            seat = raw.seat_to_act
            agent = raw.agent_of_seat(seat)
            bot = self.bots[seat]
            assert bot is not None
            self._step(seat, bot.act(raw.observe(agent), raw.seat_view(agent)))

    def _step(self, seat: int, action: int) -> None:
        raw = self.env
        me = raw.agent_of_seat(self.seat)  # the played cards of every seat are public: the person's view shows them
        before = (self._last_view or raw.seat_view(me)).played[seat]
        raw.step(action)
        view = self._last_view = raw.seat_view(me)
        cards = cards_json(view.played[seat] ^ before)
        self.history.append(move_entry(view, seat, self.players[seat], action, cards, self.history))
        if raw.over:
            result = raw.result
            self.totals = [t + x for t, x in zip(self.totals, result.net, strict=True)]

    def _publish(self) -> dict[str, Any]:
        """The view after a request: the coach's values first when it is the person's turn, the hand written
        last when it has just ended (nothing can fail after the write, so a hand is never written twice)."""
        self.advice = None
        if self.recording is not None and self.recording[0].deleted(self.recording[1]):
            self.recording = None  # the person deleted their recordings: this game keeps nothing more
        if self.coach is not None and self._your_turn():
            observation = self.env.observe(self.env.agent_of_seat(self.seat))  # the person's seat's own view only
            self.advice = self.coach.values(observation["observation"], observation["action_mask"])
        finished = self.recording is not None and self.env.over and self._recorded_hand != self.hand_number
        if finished:
            self.recorded += 1
        self.snapshot = seat_view_json(self)
        if finished:
            self._write_hand()
        return self.snapshot

    def _write_hand(self) -> None:
        assert self.recording is not None
        store, token = self.recording
        network = None if self.coach is None else self.coach.network
        record = hand_record(self.env.hand, self.players, self.seat, network, self.hand_number)
        try:
            if not store.write(token, record):  # deleted since this request began: nothing kept, nothing more to keep
                self.recording, self.recorded = None, self.recorded - 1
                self.snapshot = seat_view_json(self)
        except OSError as err:
            raise Unavailable(
                f"could not keep this hand in the recording ({err.strerror or err}); nothing was changed: send "
                "the move again, or deal a game without recording"
            ) from None
        self._recorded_hand = self.hand_number


_REQUEST_STATE = (
    *("env", "totals", "hand_number", "history", "answer_from", "snapshot", "_last_view"),
    *("advice", "review", "recorded", "_recorded_hand"),
)
"""What a request may change: the table, the score, the hand's moves, the coach's notes, the recording's count
and the published view."""


class _Busy:
    """Holds a game's lock for one request, refusing (409) instead of waiting when it is taken."""

    def __init__(self, lock: threading.Lock) -> None:
        self.lock = lock

    def __enter__(self) -> None:
        if not self.lock.acquire(blocking=False):
            raise Conflict("the bots are still answering this game's previous request; wait for its response")

    def __exit__(self, *exc: object) -> None:
        self.lock.release()


def parse_action(action: object, legal_names: list[str]) -> int:
    """An action id (int) or name (``"pair:K"``) as an action index; :class:`BadRequest` naming the legal moves."""
    if isinstance(action, bool) or not isinstance(action, (int, str)):
        raise BadRequest(
            f'"action" must be an action id (an int in 0..{N_COMBOS - 1}) or a name such as "pair:K", got {action!r}',
            legal=legal_names,
        )
    if isinstance(action, int):
        if not 0 <= action < N_COMBOS:
            raise BadRequest(f"action id {action} is out of range 0..{N_COMBOS - 1}", legal=legal_names)
        return action
    try:
        return combo_index(action)
    except ValueError as err:
        raise BadRequest(str(err), legal=legal_names) from None


class GameStore:
    """The live games by id: at most ``max_games``, at most ``per_client`` of one client, each expiring
    after ``idle_seconds`` unused.

    ``clock``: seconds, monotonic (tests pass a fake one to expire games without waiting).
    """

    def __init__(
        self,
        max_games: int = 64,
        idle_seconds: float = 3600.0,
        clock: Callable[[], float] = time.monotonic,
        per_client: int = 8,
    ) -> None:
        if max_games < 1 or per_client < 1 or not idle_seconds > 0:
            raise ValueError(
                f"max_games and per_client must be >= 1 and idle_seconds > 0, got {max_games}, {per_client} "
                f"and {idle_seconds}"
            )
        self.max_games = max_games
        self.per_client = per_client
        self.idle_seconds = idle_seconds
        self.clock = clock
        self._games: dict[str, Game] = {}
        self._owners: dict[str, str] = {}
        """The client (address) that created each game."""
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            self._expire()
            return len(self._games)

    def require_room(self, client: str = "") -> None:
        """:class:`Unavailable` or :class:`TooManyGames` if ``client`` cannot add a game now (checked before a
        new game loads its bots)."""
        with self._lock:
            self._require_room(client)

    def _require_room(self, client: str) -> None:
        self._expire()
        held = sum(owner == client for owner in self._owners.values())
        if held >= self.per_client:
            raise TooManyGames(
                f"you have {held} live games, the most one client may hold; end one with DELETE /api/games/{{id}} "
                f"(the page does when it deals a new game or closes), or wait: a game expires after "
                f"{self.idle_seconds:g} s without a request"
            )
        if len(self._games) >= self.max_games:
            raise Unavailable(
                f"too many live games ({self.max_games}); a game expires after {self.idle_seconds:g} s "
                "without a request — try again later"
            )

    def add(self, game: Game, client: str = "") -> str:
        """Keep ``game`` under a new unguessable id; :class:`Unavailable` or :class:`TooManyGames` when full."""
        with self._lock:
            self._require_room(client)
            game_id = secrets.token_urlsafe(18)
            game.last_used = self.clock()
            self._games[game_id] = game
            self._owners[game_id] = client
            return game_id

    def get(self, game_id: str) -> Game:
        """The live game ``game_id`` (its idle time restarts); :class:`NotFound` if unknown or expired."""
        with self._lock:
            self._expire()
            game = self._games.get(game_id)
            if game is None:
                raise NotFound(
                    f"no live game {game_id!r}: unknown, ended, or expired after {self.idle_seconds:g} s idle"
                )
            game.last_used = self.clock()
            return game

    def delete(self, game_id: str) -> None:
        """End a game (:class:`NotFound` if there is none); a request it is answering finishes unseen."""
        with self._lock:
            if self._games.pop(game_id, None) is None:
                raise NotFound(f"no live game {game_id!r}: unknown, already ended, or expired")
            self._owners.pop(game_id, None)

    def discard(self, game_id: str) -> None:
        """Forget a game (one whose first hand could not be dealt)."""
        with self._lock:
            self._games.pop(game_id, None)
            self._owners.pop(game_id, None)

    def _expire(self) -> None:
        now = self.clock()
        for game_id, game in list(self._games.items()):
            if now - game.last_used > self.idle_seconds and not game.lock.locked():
                del self._games[game_id]
                self._owners.pop(game_id, None)
