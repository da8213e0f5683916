"""The home page's "New game" form, signed in: seat 1 is offered to the account and chosen at first, so the
game created there is the account's (``{"account": "me"}``) beside the server's bots; the game page plays
that seat through the browser's session, and the lobby lists the game under "Your games"."""

from __future__ import annotations

import random
import uuid

import httpx
import pytest

from tests.browser.clicking import click_until_over
from tests.browser.conftest import Visit, screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.db]


class FirstClick(Exception):
    """The person made a move by clicking: enough here."""


async def stop_after_first(clicks: int) -> None:
    """Stop clicking once a click was answered."""
    raise FirstClick


async def test_signed_in_the_new_game_form_seats_the_account(visit: Visit, web: str) -> None:
    page = visit.page
    name = f"Hanna {uuid.uuid4().hex[:6]}"
    await page.goto("/")
    await page.fill("#sign-up-name", name)
    await page.click("#sign-up button")
    token = await page.text_content("#account-token")
    assert token
    await page.click("#continue")
    await page.wait_for_selector("#signed-in-as")

    await page.select_option("#new-game-kind", "basari")
    await page.wait_for_function("() => document.getElementById('seat-by-0').value === 'me'")
    chosen = await page.eval_on_selector("#seat-by-0", "s => s.selectedOptions[0].textContent")
    assert chosen == f"you (signed in as {name})"
    assert await page.input_value("#seat-name-0") == name and not await page.is_editable("#seat-name-0")
    await page.select_option("#seat-by-1", "random")
    await page.select_option("#seat-by-2", "greedy")
    await screenshot(page, "home-new-game-as-account")
    await page.click("#create-game")
    await page.wait_for_url("**/games/*")
    game_id = page.url.rstrip("/").rsplit("/", 1)[-1]
    await page.wait_for_function("() => document.getElementById('play-as')?.value === '0'")
    assert f"Play as {name} (your account)" in (await page.text_content("#play-as") or "")
    assert (
        await page.evaluate(f"JSON.parse(localStorage.getItem('bazaar.seats') || '{{}}')['{game_id}']")
        is None
    )

    async with httpx.AsyncClient(base_url=web, timeout=30) as http:
        created = (await http.get(f"/v1/games/{game_id}")).json()
    assert created["status"] == "active"
    assert [(s["name"], s["bot"]) for s in created["seats"]] == [
        (name, False),
        ("random-basari", True),
        ("greedy-basari", True),
    ]
    with pytest.raises(FirstClick):
        await click_until_over(
            page, web, game_id, token, "basari", random.Random("account"), stop_after_first
        )

    await page.goto("/")
    await page.wait_for_selector(f"#my-games a[href='/games/{game_id}']")
