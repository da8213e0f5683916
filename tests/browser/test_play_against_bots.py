"""A person plays a whole game against the server's bot from the pages: the game is created on
the home page with a seat played by the server's greedy bot; the person clicks their decisions and the bot
answers on its own (the server's bot runner), until the game is over."""

from __future__ import annotations

import json
import random

import httpx
import pytest

from tests.browser.clicking import click_until_over
from tests.browser.conftest import Visit, screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.db]


async def test_a_person_plays_a_whole_game_against_a_server_bot(visit: Visit, web: str) -> None:
    page = visit.page
    await page.goto("/")
    await page.select_option("#new-game-kind", "johari")
    while await page.locator("#new-game-seats .seat-row").count() > 2:
        await page.click("#remove-seat")
    await page.fill("#seat-name-0", "Hanna")
    await page.fill("#seat-name-1", "Greta")
    await page.select_option("#seat-by-1", "greedy")
    await page.click("#create-game")
    await page.wait_for_url("**/games/*")
    game_id = page.url.rstrip("/").rsplit("/", 1)[-1]
    kept = json.loads(await page.evaluate("localStorage.getItem('bazaar.seats')"))[game_id]
    assert list(kept) == ["0"], "only the person's seat is kept in the browser; the server plays the bot's"
    await page.wait_for_function("() => document.getElementById('play-as')?.value === '0'")
    assert await page.locator("#follow-turn").count() == 0, "one seat here: nothing to hand over"

    clicks = await click_until_over(page, web, game_id, kept["0"], "johari", random.Random("bot"))
    await screenshot(page, "johari-against-bot-end")
    async with httpx.AsyncClient(base_url=web, timeout=30) as http:
        final = (await http.get(f"/v1/games/{game_id}")).json()
        events = (await http.get(f"/v1/games/{game_id}/events", params={"limit": 1000})).json()["events"]
    assert final["status"] == "finished"
    assert [s["bot"] for s in final["seats"]] == [False, True] and final["seats"][1]["name"] == "Greta"
    assert clicks > 5, "Hanna made her decisions by clicking"
    by_bot = [e for e in events if e["data"].get("seat") == 1 or e["data"].get("player") == 1]
    assert by_bot, "the server's bot made Greta's moves"
    assert "over" in (await page.text_content("#status") or "")
