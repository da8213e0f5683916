"""Every page fits a phone: at 390 CSS pixels wide (a current phone held upright) no page scrolls sideways
(the document is no wider than the phone) and nothing sticks out of its panel."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from tests.browser.conftest import Visit, screenshot
from tests.support.client_play import create_game, play_to_end

pytestmark = [pytest.mark.e2e, pytest.mark.db]

WIDTH = 390

# how far the document is wider than the phone, and the outermost elements that stick out (to say which);
# against the phone's width itself: a mobile browser widens its layout viewport to content that overflows
OVERFLOW = """(width) => {
  const wide = document.documentElement.scrollWidth - width;
  const right = (e) => e.getBoundingClientRect().right + window.scrollX;
  const out = [...document.querySelectorAll('body *')].filter((e) => right(e) > width + 1)
    .filter((e) => right(e.parentElement) <= width + 1)
    .slice(0, 6).map((e) => `${e.tagName.toLowerCase()}#${e.id}.${e.className}: ${Math.round(right(e))}px`);
  const panels = [...document.querySelectorAll('.panel, .area')].filter((p) => p.scrollWidth > p.clientWidth + 1)
    .map((p) => `${p.tagName.toLowerCase()}#${p.id}.${p.className}: ${p.scrollWidth - p.clientWidth}px too wide`);
  return {wide: Math.max(wide, panels.length), out: [...out, ...panels]};
}"""


@pytest.fixture
async def phone(browser: Any, web: str) -> AsyncIterator[Visit]:
    """A browser context the size of a phone (390 x 844), with the same checks as ``visit``."""
    context = await browser.new_context(
        viewport={"width": WIDTH, "height": 844}, base_url=web, is_mobile=True
    )
    context.set_default_timeout(15_000)
    page = await context.new_page()
    recorded = Visit(context, page, web)
    yield recorded
    await context.close()
    assert not recorded.outside(), f"requests outside the service: {recorded.outside()}"
    assert not recorded.errors, f"errors in the page: {recorded.errors}"


async def test_every_page_fits_a_390_pixel_wide_phone(phone: Visit, web: str) -> None:
    page = phone.page
    async with httpx.AsyncClient(base_url=web, timeout=30) as http:
        cup = (
            await http.post(
                "/v1/tournaments",
                json={
                    "name": "Phone cup",
                    "game": "basari",
                    "rounds": 1,
                    "players": [{"name": n} for n in "ABC"],
                },
            )
        ).json()
        organizer = {"Authorization": f"Bearer {cup['organizer_token']}"}
        assert (
            await http.post(f"/v1/tournaments/{cup['tournament_id']}/rounds", headers=organizer)
        ).is_success
        finished = await play_to_end(http, "basari", 3, seed="phone-basari")
        games = {
            game: await create_game(
                http, game, {"basari": 5, "bazaar": 6, "johari": 4}[game], seed=f"phone-{game}"
            )
            for game in ("basari", "bazaar", "johari")
        }
    pages = {
        "home": ("/", "#new-game-seats > *"),
        "rules basari": ("/rules/basari", "#document"),
        "rules bazaar": ("/rules/bazaar", "#document"),
        "rules johari": ("/rules/johari", "#document"),
        "problem": ("/problems/not_found", "#document"),
        "tournament": (f"/tournaments/{cup['tournament_id']}", "#crosstable"),
        "player": ("/players/A", "h1"),
        "replay": (f"/games/{finished.game_id}/replay", "#replay[data-at='1']"),
        "error": ("/no-such-page", "#error-detail"),
        **{f"game {game}": (f"/games/{made['game_id']}", "#board > *") for game, made in games.items()},
        "game finished": (f"/games/{finished.game_id}", "#board #ending"),
    }
    wide: dict[str, Any] = {}
    for name, (path, ready) in pages.items():
        await page.goto(path, wait_until="networkidle" if path == "/" else "load")
        await page.wait_for_selector(ready)
        found = await page.evaluate(OVERFLOW, WIDTH)
        if found["wide"] > 0:
            wide[name] = found
        await screenshot(page, f"phone-{name.replace(' ', '-')}")
    assert not wide, f"pages wider than a {WIDTH}px phone: {wide}"
