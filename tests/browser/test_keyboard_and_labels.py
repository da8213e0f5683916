"""Every control of the pages is labelled and reachable by keyboard (issue 15): Tab reaches every button,
link, field and list box of the home page and of a game page with decisions, each with an accessible name;
a decision can be made with the keyboard alone."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.browser.conftest import Visit

pytestmark = [pytest.mark.e2e, pytest.mark.db]

CONTROLS = """() => [...document.querySelectorAll('a[href], button, input, select, textarea, summary')]
  .filter((e) => e.offsetParent !== null || e.getClientRects().length)
  .map((e) => {
    const labelled = (e.labels && e.labels.length ? [...e.labels].map((l) => l.textContent).join(' ') : '')
      || e.getAttribute('aria-label') || e.textContent;
    return {key: e.id || e.outerHTML.slice(0, 80), name: (labelled || '').trim(), tag: e.tagName};
  })"""

FOCUSED = (
    """() => { const e = document.activeElement; return e ? (e.id || e.outerHTML.slice(0, 80)) : null; }"""
)


async def tab_through(page: Any, limit: int = 400) -> set[str]:
    """Every element Tab reaches from the top of the page."""
    await page.focus("body")
    reached: set[str] = set()
    for _ in range(limit):
        await page.keyboard.press("Tab")
        key = await page.evaluate(FOCUSED)
        if key is None or (key in reached and key.startswith('<a class="skip"')):
            break
        reached.add(key)
    return reached


async def assert_labelled_and_reachable(page: Any) -> int:
    """Each visible control has a name and is reached by Tab; returns how many there are."""
    controls = await page.evaluate(CONTROLS)
    unnamed = [c["key"] for c in controls if not c["name"]]
    assert not unnamed, f"controls without a label: {unnamed}"
    reached = await tab_through(page)
    missed = [c["key"] for c in controls if c["key"] not in reached]
    assert not missed, f"not reachable by Tab: {missed}"
    return len(controls)


async def test_every_control_is_labelled_and_reachable_by_keyboard(visit: Visit, web: str) -> None:
    page = visit.page
    await page.goto("/")
    await page.wait_for_selector("#new-game-seats input")
    assert await assert_labelled_and_reachable(page) >= 8

    async with httpx.AsyncClient(base_url=web, timeout=30) as http:
        created = (
            await http.post(
                "/v1/games", json={"game": "basari", "players": [{"name": n} for n in ("Kim", "Lou", "Mia")]}
            )
        ).json()
    # the keyboard-only player creates nothing by mouse: seat token typed, Enter to sit down
    await page.goto(f"/games/{created['game_id']}")
    await page.wait_for_selector("#board > *")
    await page.focus("#seat-token")
    await page.keyboard.type(created["seats"][0]["token"])
    await page.keyboard.press("Enter")
    await page.wait_for_selector("#controls .choice")
    assert await assert_labelled_and_reachable(page) >= 5
    version = await page.get_attribute("#game", "data-version")
    await page.focus("#controls .choice")
    await page.keyboard.press("Enter")
    await page.wait_for_function(f"document.getElementById('game').dataset.version !== '{version}'")
    assert "picks action" in (await page.text_content("#log") or "")


async def test_a_game_created_on_the_home_page_is_played_hot_seat(visit: Visit) -> None:
    page = visit.page
    await page.goto("/")
    await page.select_option("#new-game-kind", "basari")
    await page.fill("#seat-name-0", "Kim")
    await page.click("#create-game")
    await page.wait_for_url("**/games/*")
    await page.wait_for_selector("#controls .choice")
    assert await page.is_checked("#follow-turn"), "every seat is kept here: the page follows the turn"
    for picker in ("Kim", "Max", "Sarah"):  # B-6: each seat picks in secret; the page hands over to the next
        await page.wait_for_function(f"document.getElementById('status').textContent.includes('{picker}')")
        version = await page.get_attribute("#game", "data-version")
        await page.click("#controls .choice >> nth=0")
        await page.wait_for_function(f"document.getElementById('game').dataset.version !== '{version}'")
    await page.wait_for_function(
        "document.getElementById('log').textContent.includes('The picks are revealed')"
    )
