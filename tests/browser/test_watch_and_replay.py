"""Watching and replaying in the browser: a spectator follows a game live while it is played
over the API; a finished game is stepped through version by version with its words, score sheet and audit;
the home page lists both; the API docs render with no network."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from tests.browser.clicking import play_other_seats
from tests.browser.conftest import Visit, screenshot
from tests.support.client_play import create_game, play_to_end

pytestmark = [pytest.mark.e2e, pytest.mark.db]


async def test_a_spectator_watches_a_game_live(visit: Visit, web: str) -> None:
    page = visit.page
    async with httpx.AsyncClient(base_url=web, timeout=30) as http:
        created = (
            await http.post(
                "/v1/games", json={"game": "johari", "players": [{"name": "Ada"}, {"name": "Bo"}]}
            )
        ).json()
    game_id = created["game_id"]
    await page.goto(f"/games/{game_id}")
    await page.wait_for_selector("#board > *")
    assert await page.locator("#decision").is_hidden(), "a spectator has no decisions"
    start = int(await page.get_attribute("#game", "data-version") or 0)
    tokens = {seat["seat"]: seat["token"] for seat in created["seats"]}
    play = asyncio.create_task(play_other_seats(web, game_id, tokens, "johari", seed="watch"))
    # the page moves on by itself (Server-Sent Events), without a reload
    await page.wait_for_function(
        f"() => Number(document.getElementById('game').dataset.version) > {start + 20}"
    )
    await screenshot(page, "johari-watched-live")
    await play
    async with httpx.AsyncClient(base_url=web, timeout=30) as http:
        final: dict[str, Any] = (await http.get(f"/v1/games/{game_id}")).json()
    await page.wait_for_function(
        f"() => document.getElementById('game').dataset.version === '{final['version']}'", timeout=30_000
    )
    await page.wait_for_function("() => document.getElementById('status').textContent.includes('over')")
    log = await page.text_content("#log")
    assert "The game is over" in log
    assert "plays an action card face down" in log, "a spectator saw secret picks as secret"
    assert not [url for url in visit.requests if any(t in url for t in tokens.values())]


async def test_a_replay_is_stepped_through(visit: Visit, web: str) -> None:
    page = visit.page
    async with httpx.AsyncClient(base_url=web, timeout=30) as http:
        played = await play_to_end(http, "basari", 3, seed="replayed")
    await page.goto(f"/games/{played.game_id}/replay")
    await page.wait_for_function("() => document.getElementById('replay').dataset.at === '1'")
    assert "Verified" in await page.text_content("#audit-verdict")
    assert await page.locator("#scoresheet tbody tr").count() > 0
    assert "The game starts" in await page.text_content("#told")
    told = set()
    for _ in range(6):  # by keyboard: the Next button, pressed with Enter
        await page.focus("#next")
        await page.keyboard.press("Enter")
        await page.wait_for_function(
            f"() => document.getElementById('replay').dataset.at === '{len(told) + 2}'"
        )
        told.add(await page.text_content("#told"))
    assert len(told) == 6, "each version is told in its own words"
    await screenshot(page, "basari-replay-v7")
    await page.fill("#at", "60")
    await page.press("#at", "Enter")
    await page.wait_for_function("() => document.getElementById('replay').dataset.at === '60'")
    assert (await page.text_content("#told") or "").startswith("Version 60:")
    await page.click("#last")
    last = played.final["version"]
    await page.wait_for_function(f"() => document.getElementById('replay').dataset.at === '{last}'")
    assert "The game is over" in (await page.text_content("#told") or "")
    await page.click("#events li:nth-child(10) button")
    await page.wait_for_function("() => document.getElementById('replay').dataset.at === '10'")
    await screenshot(page, "basari-replay")
    # the home page lists it among the results, linked to this replay
    await page.goto("/")
    await page.click(f"a[href='/games/{played.game_id}/replay']")
    await page.wait_for_function("() => document.getElementById('replay')?.dataset.at === '1'")


async def test_the_score_sheet_is_headed_in_words(visit: Visit, web: str) -> None:
    """The score sheet's columns are the API's field names (``stones_left``); the page heads them in words."""
    page = visit.page
    async with httpx.AsyncClient(base_url=web, timeout=30) as http:
        created = await create_game(http, "bazaar", 2, seed="sheet-words")
        token = created["seats"][0]["token"]
        answer = await http.post(
            f"/v1/games/{created['game_id']}/commands",
            json={"type": "resign"},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert answer.status_code == 200, answer.text
    await page.goto(f"/games/{created['game_id']}/replay")
    headings = await page.eval_on_selector_all("#scoresheet th", "(cells) => cells.map((c) => c.textContent)")
    assert "stones left" in headings, headings
    assert not [words for words in headings if "_" in words], headings


async def test_the_api_docs_render_offline(visit: Visit) -> None:
    page = visit.page
    # a 1.5 MB script and the whole document: slow on a busy machine, so a generous wait
    await page.goto("/schema", timeout=60_000, wait_until="domcontentloaded")
    await page.wait_for_selector(".swagger-ui .info .title", timeout=60_000)
    assert "Bazaar games" in (await page.text_content(".swagger-ui .info .title") or "")
    await page.get_by_text("/v1/games/{game_id}/stream-ticket").first.wait_for()
