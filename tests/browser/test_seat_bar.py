"""The game page's seat bar and status line: the seat-token form is for a spectator of a game under way,
so it goes once this browser plays a seat of the game and once the game is over; and a finished game says
that it is over, and who won, once to the eye (in the ending banner on the board), while the status line,
out of sight, still announces it to a screen reader."""

from __future__ import annotations

import re
import uuid
from typing import Any

import httpx
import pytest
from playwright.async_api import expect

from tests.browser.conftest import Visit, screenshot
from tests.support.client_play import create_game

pytestmark = [pytest.mark.e2e, pytest.mark.db]


async def over_once(page: Any, winner: str) -> None:
    """The page shows the game-over sentence exactly once, in the ending banner; the status line, out of
    sight, still says it to a screen reader (its live region announces the end)."""
    sentence = f"The game is over. {winner} wins."
    await page.wait_for_selector("#ending")
    status = page.locator("#status")
    await expect(status).to_have_class(re.compile(r"\bvisually-hidden\b"))
    assert sentence in await status.text_content()
    box = await status.bounding_box()
    assert box is not None and box["width"] <= 1 and box["height"] <= 1, box
    shown = [
        n
        for n in await page.get_by_text(sentence).all()
        if await n.is_visible() and await n.evaluate("n => n.id") != "status"
    ]
    assert len(shown) == 1, [await n.evaluate("n => n.id || n.className") for n in shown]
    assert await page.locator("#ending-text").is_visible()


async def test_the_sit_down_form_goes_for_a_seated_browser_and_a_finished_game(
    visit: Visit, browser: Any, web: str
) -> None:
    page = visit.page
    async with httpx.AsyncClient(base_url=web, timeout=30) as http:
        created = await create_game(http, "johari", 2, seed=f"seat-bar-{uuid.uuid4().hex[:6]}")
        game_id, tokens = created["game_id"], [seat["token"] for seat in created["seats"]]

        await page.goto(f"/games/{game_id}")  # a spectator of a game under way may sit down
        await page.wait_for_selector("#board > *")
        assert await page.locator("#seat-token-form").is_visible()
        await page.fill("#seat-token", tokens[0])
        await page.click("#sit-down")
        await page.wait_for_function("() => document.getElementById('play-as')?.value === '0'")
        assert await page.locator("#seat-token-form").is_hidden(), "this browser plays a seat already"
        # the form went from under the focus: the seat picker takes it
        await page.wait_for_function("() => document.activeElement?.id === 'play-as'")
        await page.reload()
        await page.wait_for_function("() => document.getElementById('play-as')?.value === '0'")
        assert await page.locator("#seat-token-form").is_hidden()

        resigned = await http.post(
            f"/v1/games/{game_id}/commands",
            json={"type": "resign"},
            headers={"Authorization": f"Bearer {tokens[1]}"},
        )
        assert resigned.status_code == 200, resigned.text
    # the game ends with the page open: said once, on the board
    await over_once(page, "player-0")
    assert await page.locator("#seat-token-form").is_hidden()
    await screenshot(page, "game-over-seated")

    # a spectator of the finished game: nothing to sit down in
    other = await browser.new_context(viewport={"width": 1300, "height": 1000}, base_url=web)
    spectator = Visit(other, await other.new_page(), web)
    try:
        await spectator.page.goto(f"/games/{game_id}")
        await over_once(spectator.page, "player-0")
        assert await spectator.page.locator("#seat-token-form").is_hidden()
        assert "Sit down" not in (await spectator.page.text_content("#seat-picker") or "")
    finally:
        await other.close()
    assert not spectator.errors, spectator.errors
