"""``sam-web``: the browser app — play against the bots, replays, leaderboard (docs/web.md).

* :mod:`.server` — the Starlette app: the page and the JSON API;
* :mod:`.games` — live games, seat by seat, in memory under unguessable ids;
* :mod:`.views` — what a response shows from the person's seat;
* :mod:`.bots` — the bots a table can seat, and a new game from a request;
* :mod:`.coach` — each legal move's value from a Q-network reading the person's observation, and the review;
* :mod:`.recordings` — the hands of the games people choose to keep, by token;
* :mod:`.replays`, :mod:`.files` — hand records and summaries, read only under the served folder;
* :mod:`.cli` — the ``sam-web`` command; ``static/`` — the page (plain HTML, CSS, JavaScript).
"""
