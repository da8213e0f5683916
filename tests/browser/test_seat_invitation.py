"""Handing a seat to a friend: the game page makes an invitation link for a seat this browser holds (the
token in the URL's fragment, which no browser sends to a server), shows it once with a Copy button and
gives the seat up; the friend's browser opens the link and sits down in that seat."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

import pytest

from tests.browser.conftest import Visit, screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.db]

HELD = "() => JSON.parse(localStorage.getItem('bazaar.seats') || '{}')"


async def test_a_seat_is_handed_to_a_friend_by_an_invitation_link(
    visit: Visit, browser: Any, web: str
) -> None:
    page = visit.page
    await visit.context.grant_permissions(["clipboard-read", "clipboard-write"])
    await page.goto("/")
    await page.select_option("#new-game-kind", "johari")
    while await page.locator("#new-game-seats .seat-row").count() > 2:
        await page.click("#remove-seat")
    await page.fill("#seat-name-1", "Omar")
    await page.click("#create-game")  # both seats are kept in this browser (hot seat)
    await page.wait_for_url("**/games/*")
    game_id = page.url.rsplit("/", 1)[1]
    await page.wait_for_selector("#invite-seat")
    held = (await page.evaluate(HELD))[game_id]
    assert set(held) == {"0", "1"}

    await page.select_option("#invite-seat", "1")
    await page.click("#make-invite")
    link = await page.input_value("#invite-link")
    assert link == f"{web}/games/{game_id}#seat-token={held['1']}"
    assert await page.evaluate("() => document.activeElement.id") == "invite-link"
    await page.click("#copy-invite")
    await page.wait_for_function("() => document.getElementById('invite-copied').textContent === 'Copied.'")
    assert await page.evaluate("() => navigator.clipboard.readText()") == link
    await screenshot(page, "seat-invitation-link")
    # shown once: this browser has given the seat up, and offers only the seat it keeps
    assert set((await page.evaluate(HELD))[game_id]) == {"0"}
    await page.wait_for_function(
        "() => ![...document.getElementById('play-as').options].some((o) => o.value === '1')"
    )
    assert [await o.get_attribute("value") for o in await page.query_selector_all("#invite-seat option")] == [
        "0"
    ]

    # the friend's browser opens the link and plays Omar's seat
    friend_context = await browser.new_context(viewport={"width": 1300, "height": 1000}, base_url=web)
    friend = Visit(friend_context, await friend_context.new_page(), web)
    try:
        await friend.page.goto(link)
        await friend.page.wait_for_function("() => document.getElementById('play-as')?.value === '1'")
        assert "Omar" in (await friend.page.text_content("#play-as") or "")
        assert await friend.page.evaluate("() => location.hash") == "", "the token left the address bar"
        assert (await friend.page.evaluate(HELD))[game_id] == {"1": held["1"]}
        assert not [url for url in friend.requests if held["1"] in unquote(url)], (
            "the token is in no request's URL"
        )
        assert not friend.errors and not friend.outside()

        # a link whose token opens no seat says so and seats nobody
        await friend.page.goto(
            "/"
        )  # (from the game's own page, a new fragment would not load the page again)
        await friend.page.goto(f"/games/{game_id}#seat-token=not-a-token")
        await friend.page.wait_for_selector("#invite-link-area .error")
        assert "does not open a seat" in (await friend.page.text_content("#invite-link-area") or "")
    finally:
        await friend_context.close()


async def test_a_game_that_ends_with_its_page_open_offers_no_invitation_link(visit: Visit) -> None:
    """A finished game has no seat to hand over: the invitation controls go when it ends, not only on a
    page opened later (a link made then took the seat from this browser for nothing)."""
    page = visit.page
    await page.goto("/")
    await page.select_option("#new-game-kind", "bazaar")
    while await page.locator("#new-game-seats .seat-row").count() > 2:
        await page.click("#remove-seat")
    await page.click("#create-game")
    await page.wait_for_url("**/games/*")
    await page.wait_for_selector("#invite-seat")
    await page.click("#resign")
    await page.click("#resign-yes")
    await page.wait_for_function("() => document.getElementById('status').textContent.includes('over')")
    await page.wait_for_selector("#invite-seat", state="detached")
    assert await page.locator("#make-invite").count() == 0
