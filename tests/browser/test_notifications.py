"""The account's notifications on every page (GET /v1/me/stream through the session cookie): a game that
starts, "your turn" in another game with a count in the tab's title, and an invitation, all without
reloading. (A lobby table that fills takes its creator to the game: test_accounts_and_lobby.)"""

from __future__ import annotations

import uuid

import httpx
import pytest

from tests.browser.conftest import Visit, screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.db]


async def test_a_started_game_your_turn_and_an_invitation_arrive_without_reloading(
    visit: Visit, web: str
) -> None:
    page = visit.page
    suffix = uuid.uuid4().hex[:6]
    async with httpx.AsyncClient(base_url=web, timeout=30) as http:
        hanna = (await http.post("/v1/accounts", json={"name": f"Hanna {suffix}"})).json()
        max_token = (await http.post("/v1/accounts", json={"name": f"Max {suffix}"})).json()["token"]
        await page.goto("/")
        await page.fill("#sign-in-token", hanna["token"])
        await page.click("#sign-in button")
        await page.wait_for_selector("#signed-in-as")
        await page.wait_for_selector("#lobby-body #open-table")
        title = await page.title()
        await page.evaluate("() => { window.stillThisPage = true; }")  # gone if the page reloads
        assert not title.startswith("(")

        # a Basari game against two bots starts at once, and every seat picks an action first (B-6)
        created = await http.post(
            "/v1/games",
            json={"game": "basari", "players": [{"account": "me"}, {"bot": "random"}, {"bot": "greedy"}]},
            headers={"Authorization": f"Bearer {hanna['token']}"},
        )
        assert created.status_code == 201, created.text
        game_id = created.json()["game_id"]
        await page.wait_for_selector(f"#notices .seated a[href='/games/{game_id}']")
        await page.wait_for_selector(f"#notices .your-turn a[href='/games/{game_id}']")
        await page.wait_for_function("(title) => document.title === '(1) ' + title", arg=title)

        # Max invites Hanna to a Johari table
        invited = await http.post(
            "/v1/games",
            json={"game": "johari", "players": [{"account": "me"}, {"invite": f"Hanna {suffix}"}]},
            headers={"Authorization": f"Bearer {max_token}"},
        )
        assert invited.status_code == 201, invited.text
        await page.wait_for_selector("#notices .invited")
        assert f"Max {suffix} invited you to a Johari game" in (
            await page.text_content("#notices .invited") or ""
        )
        await screenshot(page, "notifications")
        assert await page.evaluate("() => window.stillThisPage === true"), "the page was never reloaded"

        # the game's own page does not count itself: its decision is on the page
        await page.click(f"#notices .your-turn a[href='/games/{game_id}']")
        await page.wait_for_selector("#controls .choice")
        await page.wait_for_function("() => document.documentElement.dataset.yourTurn === '0'")
        assert not (await page.title()).startswith("(")
