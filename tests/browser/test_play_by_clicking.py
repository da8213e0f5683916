"""A person plays a whole game of each game by clicking on its page, against the server's bots:
the game is created with the other seats played by the server's bots (greedy and random), the person sits
down with their seat token and decides with the controls built from ``legal``; the bots answer on their
own, and the page follows them live."""

from __future__ import annotations

import random
from typing import Any

import httpx
import pytest

from tests.browser.clicking import click_until_over
from tests.browser.conftest import Visit, screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.db]

PLAYERS = {"basari": 3, "bazaar": 2, "johari": 2}
BOTS = [{"bot": "greedy", "name": "Max"}, {"bot": "random", "name": "Sarah"}]  # the server plays these seats


@pytest.mark.parametrize("game", ["basari", "bazaar", "johari"])
async def test_a_person_plays_a_whole_game_by_clicking(visit: Visit, web: str, game: str) -> None:
    page = visit.page
    async with httpx.AsyncClient(base_url=web, timeout=30) as http:
        created = (
            await http.post(
                "/v1/games",
                json={"game": game, "players": [{"name": "Hanna"}, *BOTS[: PLAYERS[game] - 1]]},
            )
        ).json()
    game_id = created["game_id"]
    tokens = {seat["seat"]: seat["token"] for seat in created["seats"]}

    await page.goto(f"/games/{game_id}")
    await page.wait_for_selector("#board > *")
    assert "spectator" in await page.text_content("#seat-picker")
    await page.fill("#seat-token", tokens[0])  # Hanna sits down with her seat token
    await page.click("#seat-token-form button")
    await page.wait_for_function("() => document.getElementById('play-as')?.value === '0'")

    marks = {1: "start", 10: "early", 40: "middle"}

    async def shots(clicks: int) -> None:
        if clicks in marks:
            await screenshot(page, f"{game}-{marks[clicks]}")

    clicks = await click_until_over(page, web, game_id, tokens[0], game, random.Random(game), shots)
    await screenshot(page, f"{game}-end")
    async with httpx.AsyncClient(base_url=web, timeout=30) as http:
        final: dict[str, Any] = (await http.get(f"/v1/games/{game_id}")).json()
    assert final["status"] == "finished"
    assert [seat["bot"] for seat in final["seats"]] == [False] + [True] * (PLAYERS[game] - 1)
    assert clicks > 5, "Hanna made her decisions by clicking"
    board = await page.text_content("#board")
    assert "over" in board.lower()
    assert await page.get_attribute("#game", "data-version") == str(final["version"])
    # the token was never put in a URL: not in any request the page made
    assert not [url for url in visit.requests if tokens[0] in url]
