"""Accounts and the lobby in the browser: a person signs up on the home page (the token is shown
once and kept by the browser), signs out and in again with it, opens a table in the lobby; another account
joins it over the API; the person then plays the whole game from their account, by clicking. The account
token lives in an HttpOnly session cookie, never where the page's scripts could read it."""

from __future__ import annotations

import asyncio
import random
import uuid

import httpx
import pytest

from tests.browser.clicking import click_until_over, play_other_seats
from tests.browser.conftest import Visit, screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.db]


async def test_sign_up_open_a_table_and_play_it_from_the_account(visit: Visit, web: str) -> None:
    page = visit.page
    suffix = uuid.uuid4().hex[:6]
    await page.goto("/")
    await page.fill("#sign-up-name", f"Hanna {suffix}")
    await page.click("#sign-up button")
    token = await page.text_content("#account-token")
    assert token
    await page.click("#continue")
    await page.wait_for_selector("#signed-in-as")
    assert f"Hanna {suffix}" in (await page.text_content("#signed-in-as") or "")
    session = {c["name"]: c for c in await visit.context.cookies()}["session"]
    assert session["httpOnly"] and session["sameSite"] == "Lax" and session["value"] == token
    assert "session=" not in await page.evaluate("document.cookie"), "no script of the page can read it"
    assert token not in await page.evaluate("JSON.stringify(localStorage)"), "nor is it kept in storage"
    await page.click("#sign-out")  # a form post with the page's CSRF token
    await page.wait_for_selector("#sign-in-token")
    assert "session" not in {c["name"] for c in await visit.context.cookies()}, "signing out clears it"
    await page.fill("#sign-in-token", token)
    await page.click("#sign-in button")
    await page.wait_for_selector("#signed-in-as")

    await page.select_option("#new-game-kind", "johari")
    while await page.locator("#new-game-seats .seat-row").count() > 2:
        await page.click("#remove-seat")
    # a table whose other seat is the server's bot starts at once: the page goes to it, the account seated
    await page.select_option("#seat-by-1", "greedy")
    await page.click("#open-table")
    await page.wait_for_url("**/games/*")
    await page.wait_for_function("() => document.getElementById('play-as')?.value === '0'")
    assert "your account" in (await page.text_content("#play-as") or "")
    async with httpx.AsyncClient(base_url=web, timeout=30) as http:
        against_bot = (await http.get(page.url.replace("/games/", "/v1/games/"))).json()
    assert against_bot["status"] == "active" and [s["bot"] for s in against_bot["seats"]] == [False, True]
    await page.goto("/")
    await page.select_option("#new-game-kind", "johari")
    while await page.locator("#new-game-seats .seat-row").count() > 2:
        await page.click("#remove-seat")
    await page.click("#open-table")  # seat 2 played by a person: an open seat, waiting in the lobby
    await page.wait_for_selector("#lobby-games li >> text=you are seated")
    await screenshot(page, "home-lobby")

    async with httpx.AsyncClient(base_url=web, timeout=30) as http:
        max_token = (await http.post("/v1/accounts", json={"name": f"Max {suffix}"})).json()["token"]
        waiting = (await http.get("/v1/lobby", params={"game": "johari"})).json()["games"]
        mine = next(g for g in waiting if any(s.get("name") == f"Hanna {suffix}" for s in g["seats"]))
        joined = await http.post(
            f"/v1/games/{mine['game_id']}/join", json={}, headers={"Authorization": f"Bearer {max_token}"}
        )
        assert joined.status_code == 200 and joined.json()["status"] == "started", joined.text
    game_id = mine["game_id"]

    await page.goto("/")
    await page.click(f"#my-games a[href='/games/{game_id}']")
    await page.wait_for_selector("#play-as")  # the first decision may be Max's (J-8: the seed orders set-up)
    assert "your account" in (await page.text_content("#play-as") or "")
    seat = int(await page.eval_on_selector("#play-as", "s => s.value"))
    opponent = asyncio.create_task(
        play_other_seats(web, game_id, {1 - seat: max_token}, "johari", seed="lobby")
    )
    try:
        clicks = await click_until_over(page, web, game_id, token, "johari", random.Random(suffix))
    except BaseException:
        opponent.cancel()
        raise
    await asyncio.wait_for(opponent, 60)  # the other seats see the end and stop
    assert clicks > 5
    await screenshot(page, "johari-account-end")
    assert not [url for url in visit.requests if token in url], "the account token never appears in a URL"
