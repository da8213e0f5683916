"""The board catches up whatever becomes of one read of the game: a person's accepted move is drawn before
the page takes clicks again even when the page's reads come back out of order and the later one fails, and
anyone's move is drawn even when the read the live stream's event asked for fails; and a read of a game
that has not moved does not draw the board again (docs/web.md "One command at a time", "The board never
stays behind"). The server is real; a Playwright route holds or fails some of the page's GET /v1/games/{id}."""

from __future__ import annotations

import asyncio
import json
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from tests.browser.clicking import answered
from tests.browser.conftest import Visit

pytestmark = [pytest.mark.e2e, pytest.mark.db]

# Counts the answers of GET /v1/games/{id} the page has read (window.readsTaken): a check made in a later
# task than the count's increase sees what the page did with the answer (its drawing runs in the same task).
COUNT_READS = """(() => {
  const text = Response.prototype.text;
  window.readsTaken = 0;
  Response.prototype.text = function () {
    const read = /^\\/v1\\/games\\/[^/]+$/.test(new URL(this.url).pathname);
    return text.call(this).then((body) => { if (read) window.readsTaken += 1; return body; });
  };
})()"""
UNAVAILABLE = {"type": "about:blank", "title": "Service Unavailable", "status": 503, "detail": "try again"}


async def sit_down(visit: Visit, web: str) -> tuple[str, dict[int, str], int]:
    """A hot-seat Bazaar game of two, its page open as the seat that decides first, once the page has read
    the game after its live stream opened (nothing more of its own is on its way); returns the game's id,
    the seats' tokens and the page's seat."""
    page = visit.page
    async with httpx.AsyncClient(base_url=web, timeout=30) as http:
        created = (
            await http.post(
                "/v1/games", json={"game": "bazaar", "players": [{"name": "Hanna"}, {"name": "Ole"}]}
            )
        ).json()
        game_id = created["game_id"]
        tokens = {seat["seat"]: seat["token"] for seat in created["seats"]}
        first = (await http.get(f"/v1/games/{game_id}")).json()["pending"][0]["seat"]
    await page.goto(f"/games/{game_id}")
    await page.wait_for_selector("#board > *")
    streaming = []
    page.on("request", lambda request: streaming.append(True) if "/stream?" in request.url else None)
    # the stream's snapshot makes the page read the game once more: wait until that read is answered
    async with page.expect_event(
        "requestfinished", lambda request: bool(streaming) and reads_game(game_id)(request.url)
    ):
        await page.fill("#seat-token", tokens[first])
        await page.click("#seat-token-form button")
    return game_id, tokens, first


def reads_game(game_id: str) -> Any:
    """Whether a URL is the page's read of the game itself (GET /v1/games/{id}, not its events or stream)."""
    return lambda url: urlsplit(url).path == f"/v1/games/{game_id}"


async def test_an_accepted_move_is_drawn_when_the_later_read_fails(visit: Visit, web: str) -> None:
    page = visit.page
    game_id, tokens, seat = await sit_down(visit, web)
    version = await page.get_attribute("#game", "data-version")
    # after the click the page reads the game twice (its command's answer, and the stream's event): both
    # reads wait here; then the earlier is answered and the later fails, so the earlier one must be drawn
    held: list[Any] = []
    both = asyncio.Event()

    async def hold_two(route: Any) -> None:
        if len(held) == 2 or route.request.method != "GET":
            await route.continue_()
            return
        held.append(route)
        if len(held) == 2:
            both.set()

    await page.route(reads_game(game_id), hold_two)
    await page.click("""#controls button.choice[data-command='{"type":"roll"}']""")
    await asyncio.wait_for(both.wait(), 15)
    earlier, later = held
    await earlier.continue_()
    await later.fulfill(status=503, content_type="application/problem+json", body=json.dumps(UNAVAILABLE))
    await answered(page, version)
    async with httpx.AsyncClient(base_url=web, timeout=30) as http:
        now = (
            await http.get(f"/v1/games/{game_id}", headers={"Authorization": f"Bearer {tokens[seat]}"})
        ).json()
    assert now["version"] > int(version or 0), "the roll was taken"
    assert await page.get_attribute("#game", "data-version") == str(now["version"])


async def test_a_move_is_drawn_when_the_read_its_event_asked_for_fails(visit: Visit, web: str) -> None:
    page = visit.page
    game_id, tokens, seat = await sit_down(visit, web)
    failed: list[str] = []

    async def fail_once(route: Any) -> None:
        if failed or route.request.method != "GET":
            await route.continue_()
            return
        failed.append(route.request.url)
        await route.fulfill(status=503, content_type="application/problem+json", body=json.dumps(UNAVAILABLE))

    await page.route(reads_game(game_id), fail_once)
    async with httpx.AsyncClient(base_url=web, timeout=30) as http:  # the seat rolls from another device
        rolled = (
            await http.post(
                f"/v1/games/{game_id}/commands",
                json={"type": "roll"},
                headers={"Authorization": f"Bearer {tokens[seat]}"},
            )
        ).json()
    await page.wait_for_function(
        "(version) => Number(document.getElementById('game').dataset.version) >= version",
        arg=rolled["version"],
    )
    assert failed, "the read the stream's event asked for failed"


async def test_a_read_of_an_unchanged_game_does_not_draw_the_board_again(visit: Visit, web: str) -> None:
    """A board drawn again between the press and the release of a mouse button loses the click (the press
    and the release land on different elements): so the board is drawn once per version."""
    page = visit.page
    await page.add_init_script(COUNT_READS)
    game_id, _, _ = await sit_down(visit, web)
    version = await page.get_attribute("#game", "data-version")
    # after the click the page reads the game twice (its command's answer, and the stream's event), both
    # at the version after the roll: the later read waits here until the earlier one is drawn
    reads: list[Any] = []
    later = asyncio.Event()

    async def hold_the_later(route: Any) -> None:
        reads.append(route)
        if len(reads) == 2:
            later.set()
        else:
            await route.continue_()

    await page.route(reads_game(game_id), hold_the_later)
    await page.click("""#controls button.choice[data-command='{"type":"roll"}']""")
    await page.wait_for_function(
        "(version) => document.getElementById('game').dataset.version !== version", arg=version
    )
    drawn = await page.query_selector("#board > *")
    assert drawn is not None
    taken = await page.evaluate("() => window.readsTaken")
    await asyncio.wait_for(later.wait(), 15)
    await reads[1].continue_()
    await page.wait_for_function("(taken) => window.readsTaken > taken", arg=taken)
    assert await drawn.evaluate("(board) => board.isConnected"), "the board was drawn again unchanged"
    await answered(page, version)
