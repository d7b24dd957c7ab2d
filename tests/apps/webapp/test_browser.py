"""The page in a real browser: Debian's headless Chromium, driven by Playwright for Python, against a
live sam-web on 127.0.0.1. It plays a whole hand against ``ppo`` by clicking cards and moves, steps
a recorded hand forward and back, sorts the leaderboard, and checks the screenshots for content.

Playwright launches the system's Chromium (``executable_path``); its own browser download
(``playwright install``) is never used. They are the ``browser`` tier (tests/tiers.py): without
Chromium they skip and say so, except under CI, where they fail; ``.ci/run`` installs it first.
``SAM_WEB_SCREENSHOTS=DIR`` also saves the screenshots there (docs/web.md's figures:
``SAM_WEB_SCREENSHOTS=docs pytest tests/apps/webapp/test_browser.py``).
"""

from __future__ import annotations

import io
import os
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import numpy as np
import pytest
from PIL import Image

from sam_env.apps.web.cli import running
from sam_env.apps.web.server import create_app

CHROMIUM = Path("/usr/bin/chromium")  # the browser tier's file in tests/tiers.py
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
SUIT_COLOURS = {"heart": (200, 16, 46), "diamond": (0, 87, 184), "club": (19, 115, 51)}


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: object) -> Iterator[object]:
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    yield page
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def check_screenshot(page: object, name: str, suits: int = 3, selector: str = "main") -> None:
    """A screenshot with real content: many colours, not one flat background, and at least ``suits`` of
    the red, blue and green suits' colours (cards drawn, not just text)."""
    png = page.locator(selector).screenshot()
    pixels = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).reshape(-1, 3).astype(int)
    colours, counts = np.unique(pixels, axis=0, return_counts=True)
    assert counts.max() < 0.9 * len(pixels), f"{name}: the screenshot is mostly one colour"
    assert len(colours) > 200, f"{name}: {len(colours)} colours, too few for a page of cards"
    found = [s for s, c in SUIT_COLOURS.items() if (np.abs(colours - c).sum(axis=1) < 40).any()]
    assert len(found) >= suits, f"{name}: suit colours found {found}, expected {suits} of {list(SUIT_COLOURS)}"
    folder = os.environ.get("SAM_WEB_SCREENSHOTS")
    if folder:
        page.locator(selector).screenshot(path=str(Path(folder) / f"web_{name}.png"))


def test_a_whole_hand_against_ppo_by_clicking(page: object, live: str) -> None:
    page.goto(f"{live}/?pace=20")
    page.wait_for_selector("select.opponent option[value=best]", state="attached")
    assert page.locator("select.opponent >> nth=0").input_value() == "best"  # the page offers the best bot first
    for j in range(3):  # the deal and the moves this test clicks through are those of the ppo_v3 network
        page.select_option(f"select.opponent >> nth={j}", "ppo_v3")
    page.fill("#seed", "12")
    page.click("#deal")
    refused_shown = played_by_cards = 0
    pictured = False
    for _ in range(200):
        page.wait_for_selector("#legal button:not([disabled]), #result:not([hidden])")
        if page.is_visible("#result"):
            break
        moves = page.locator("#legal button")
        actions = [moves.nth(i).get_attribute("data-action") for i in range(moves.count())]
        if "decline_sam" in actions:
            page.click("#legal button[data-action=decline_sam]")
            continue
        hand = page.locator("#hand .card")
        ranks = [c[:-1] for c in (hand.nth(i).get_attribute("data-card") for i in range(hand.count()))]
        if not refused_shown and len(set(ranks)) > 1 and "pass" not in actions:
            # two cards of different ranks form no combination: the page says so and nothing is sent
            first, other = hand.nth(0), hand.nth(ranks.index(next(r for r in ranks if r != ranks[0])))
            first.click()
            other.click()
            page.click("#play-selected")
            assert "is not a combination" in page.inner_text("#message")
            first.click()
            other.click()
            refused_shown += 1
        if played_by_cards < 3 and actions[-1] != "pass":
            cards = moves.nth(len(actions) - 1).get_attribute("data-cards").split()
            for card in cards:
                page.click(f'#hand .card[data-card="{card}"]')
            page.click("#play-selected")
            played_by_cards += 1
        else:
            page.click("#legal button >> nth=0")
        if played_by_cards == 1 and not pictured:
            page.wait_for_selector("#legal button:not([disabled]), #result:not([hidden])")
            check_screenshot(page, "play", suits=2)
            pictured = True
    assert page.is_visible("#result"), "the hand did not end"
    assert played_by_cards >= 1 and refused_shown == 1
    assert page.locator("#result .reveal tr").count() == 5  # a header and every seat, revealed
    assert page.locator("#result .reveal .card[data-card]").count() >= 40  # the deal of every seat, face up
    assert "Ledger" in page.inner_text("#result") and "ppo_v3" in page.inner_text("#others")
    check_screenshot(page, "result")
    page.click("#next-hand")
    page.wait_for_function(
        "document.querySelector('#status').textContent.startsWith('Hand 2 over') || "
        "document.querySelector('#result').hidden"
    )
    assert "total" in page.inner_text("#my-info") or page.is_visible("#result")


def test_a_recorded_hand_steps_forward_and_back(page: object, live: str, served: Path) -> None:
    page.goto(f"{live}/#replay")
    page.click('#served-replays button[data-path="eval/hands.jsonl"]')
    page.wait_for_selector("#replay-view:not([hidden])")
    assert page.locator("#replay-hand option").count() == 72
    assert page.locator("#replay-table .seat .card[data-card]").count() == 40  # every hand face up at the deal
    assert "the deal" in page.inner_text("#step-label")
    for _ in range(6):
        page.click("#step-forward")
    assert page.inner_text("#step-label").startswith("move 6 of")
    shown = page.locator("#replay-table .seat .card[data-card]").count()
    page.click("#step-back")
    assert page.inner_text("#step-label").startswith("move 5 of")
    assert page.locator("#replay-table .seat .card[data-card]").count() >= shown
    page.click("#step-last")
    assert page.is_visible("#replay-result") and "payer" in page.inner_text("#replay-result")
    page.click("#step-first")
    check_screenshot(page, "replay")
    page.set_input_files("#replay-file", str(served / "eval" / "hands.jsonl"))
    page.wait_for_function("document.querySelector('#replay-source').textContent.startsWith('hands.jsonl')")


def test_the_leaderboard_sorts_and_shows_the_plots(page: object, live: str, served: Path) -> None:
    page.goto(f"{live}/#leaderboard")
    page.click("#show-summaries")
    page.wait_for_selector("#board:not([hidden]) #matches tr >> nth=6")

    def column(key: str) -> list[float]:
        index = page.locator("#matches th").all_inner_texts().index(key)
        return [float(row.split("\t")[index]) for row in page.locator("#matches tr").all_inner_texts()[1:]]

    assert column("X/hand") == sorted(column("X/hand"), reverse=True)
    page.click("#matches th[data-key=x_per_hand]")
    assert column("X/hand") == sorted(column("X/hand"))
    page.click("#matches th[data-key=hands]")
    assert page.locator("#ratings tr").count() == 4
    page.wait_for_function("[...document.querySelectorAll('#plots img')].every(i => i.complete && i.naturalWidth > 0)")
    assert page.locator("#plots img").count() == 1
    check_screenshot(page, "leaderboard", suits=0)
    page.set_input_files("#summary-files", str(served / "eval" / "summary.json"))
    page.wait_for_selector("#matches tr >> nth=6")


def test_no_empty_table_before_the_first_deal(page: object, live: str) -> None:
    page.goto(f"{live}/")
    page.wait_for_selector("select.opponent option", state="attached")
    # `hidden` beats the table's display: grid (the felt, the disabled buttons and the move list stayed drawn)
    assert page.is_hidden("#table") and page.is_hidden("#pass") and page.is_hidden("text=Moves of this hand")
    assert page.locator("#table").bounding_box() is None
    page.fill("#seed", "3")
    page.click("#deal")
    page.wait_for_selector("#table:not([hidden]) #status:not(:empty)")
    assert page.is_visible("text=Moves of this hand")


def straight_with_a_two(live: str) -> tuple[int, int, str, list[str]]:
    """A seed whose first hand the person leads (seat = the leader) holding a straight with a 2 (``A-2-3``,
    ``2-3-4``…): its seed, seat, name and cards in the straight's order, found through the API."""
    with httpx.Client(base_url=live, timeout=60) as client:
        for seed in range(300):
            body = {"seed": seed, "opponents": "random", "rules": {"allow_sam": False}}
            created = client.post("/api/games", json=body).json()
            view = created["view"]
            client.delete(f"/api/games/{created['game_id']}", headers={"content-type": "application/json"})
            if view["history"]:
                continue  # a bot led
            for move in view["legal"]:
                if move["name"].startswith("straight:") and any(card.startswith("2") for card in move["cards"]):
                    return seed, view["seat"], move["name"], move["cards"]
    pytest.fail("no deal of 300 let the person lead a straight with a 2")


def test_a_straight_is_shown_in_its_own_order(page: object, live: str) -> None:
    seed, seat, name, cards = straight_with_a_two(live)
    low, high = name.removeprefix("straight:").split("-")
    assert (cards[0][:-1], cards[-1][:-1]) == (low, high)  # the API's order: A 2 3 …, not 3 … A 2
    page.goto(f"{live}/?pace=0")
    page.wait_for_selector("select.opponent option[value=random]", state="attached")
    page.fill("#seed", str(seed))
    page.select_option("#seat", str(seat))
    page.uncheck("#rule-allow_sam")
    for select in page.locator("select.opponent").all():
        select.select_option("random")
    page.click("#deal")
    button = page.locator(f'#legal button[data-action="{name}"]')
    button.wait_for()
    assert button.get_attribute("data-cards").split() == cards
    button.click()
    page.wait_for_selector("#log li")
    first = page.locator("#log li").first.locator(".card[data-card]")
    shown = [first.nth(i).get_attribute("data-card") for i in range(first.count())]
    assert shown == cards, f"{name} shown as {shown}: by rank, not along the straight"


def test_the_page_ends_its_game_on_a_new_deal_and_when_it_closes(browser: object, served: Path) -> None:
    app = create_app(serve=served)
    with running(app) as url:
        context = browser.new_context()
        page = context.new_page()
        page.goto(f"{url}/?pace=0")
        page.wait_for_selector("select.opponent option", state="attached")
        for _ in range(3):
            page.click("#deal")
            page.wait_for_selector("#table:not([hidden]) #status:not(:empty)")
            page.wait_for_function("!document.querySelector('#deal').disabled")
            assert len(app.state.games) == 1  # the last deal's game ended when the new one was dealt
        page.close()
        context.close()
        deadline = time.monotonic() + 10
        while len(app.state.games) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(app.state.games) == 0, "closing the page left its game live"


def test_a_coached_hand_shows_values_and_a_review_and_is_kept_then_deleted(page: object, tmp_path: Path) -> None:
    """With the coach on, every legal move shows its value and one is starred as the network's choice, and *think
    longer* adds a search's values; the hand ends with the review; "Keep my games" keeps it on the server, the
    Replays tab opens it with the person's seat labelled human, and one click (confirmed) deletes it."""
    folder = tmp_path / "recordings"
    with running(create_app(record_dir=folder)) as url:
        page.goto(f"{url}/?pace=0")
        page.wait_for_selector("select.opponent option[value=random]", state="attached")
        assert "dmc_v2" in page.inner_text("#coach-network")
        page.fill("#seed", "5")
        for select in page.locator("select.opponent").all():
            select.select_option("random")
        page.uncheck("#rule-allow_sam")  # a random bot's báo Sâm could end the hand before the person plays
        page.check("#coach")
        page.check("#record")
        page.click("#deal")
        choices, pictured = 0, False
        for _ in range(100):
            page.wait_for_selector("#legal button:not([disabled]), #result:not([hidden])")
            if page.is_visible("#result"):
                break
            moves = page.locator("#legal button")
            values = [moves.nth(i).get_attribute("data-value") for i in range(moves.count())]
            assert all(v is not None for v in values), "a legal move without its value"
            assert moves.locator(".value").count() == moves.count() and "X" in moves.nth(0).inner_text()
            starred = page.locator("#legal button.coach-choice")
            assert starred.count() == 1
            assert float(starred.get_attribute("data-value")) == max(map(float, values))
            choices += moves.count() > 1
            if not pictured and moves.count() > 2:
                page.click("#think")  # a search over the same network: its values join the network's
                page.wait_for_selector("#legal button .search")
                assert "searched its" in page.inner_text("#message")
                page.mouse.move(0, 0)  # no card lit by the pointer resting on a move
                check_screenshot(page, "coach", suits=1, selector="#me")
                pictured = True
            page.click("#legal button >> nth=-1")
        assert page.is_visible("#result") and page.is_visible("#review") and pictured
        rows = page.locator("#review table.review tr")
        assert rows.count() == choices + 2  # the header, one row per decision with a choice, the total
        assert "total" in page.inner_text("#review") and "regret" in page.inner_text("#review")
        assert "Kept on this server: 1 hand(s)" in page.inner_text("#recorded")
        assert len(list(folder.rglob("hands.jsonl"))) == 1
        page.click("button[data-tab=replay]")
        page.wait_for_selector("#my-recordings:not([hidden])")
        page.click("#open-recordings")
        page.wait_for_selector("#replay-view:not([hidden])")
        assert "your recorded games: 1 hand(s)" in page.inner_text("#replay-source")
        assert "human" in page.inner_text("#replay-table")
        page.once("dialog", lambda dialog: dialog.accept())
        page.click("#delete-recordings")
        page.wait_for_function("document.querySelector('#replay-message').textContent.includes('Deleted 1')")
        assert page.is_hidden("#my-recordings") and not list(folder.rglob("hands.jsonl"))
