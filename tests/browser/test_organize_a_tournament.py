"""An organizer runs a tournament in the browser, signed in with her account: she creates an account
tournament on the page, inviting two people and one of the server's bots; the bot is registered at once and
the tournament's page shows its registration (not an error); one person accepts in a second browser, the
other over the API; she seats round 1, withdraws a player, adjudicates the game, seats round 2, ends the
tournament and downloads the crosstable, all from the page and without the organizer token. The pages are
accessible (axe, labels, Tab) and fit a 390 px phone."""

from __future__ import annotations

import csv
import io
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.conftest import Visit, screenshot
from tests.browser.test_keyboard_and_labels import accessibility_problems
from tests.browser.test_phone_width import OVERFLOW, WIDTH

pytestmark = [pytest.mark.e2e, pytest.mark.db]

BOT = "random-bazaar"


async def sign_in(page: Any, token: str) -> None:
    """Sign the page's browser in with an account token on the home page's form."""
    await page.goto("/")
    await page.fill("#sign-in-token", token)
    await page.click("#sign-in button")
    await page.wait_for_selector("#signed-in-as")


async def checked(page: Any, name: str) -> None:
    """The page fits a phone's width and has no accessibility problem; kept as screenshots (taken first,
    before Tab walks the page's focus about)."""
    await screenshot(page, f"organizer-{name}")
    viewport = page.viewport_size
    await page.set_viewport_size({"width": WIDTH, "height": 844})
    found = await page.evaluate(OVERFLOW, WIDTH)
    assert found["wide"] <= 0, f"{name} is wider than a {WIDTH}px phone: {found}"
    await screenshot(page, f"organizer-{name}-phone")
    await page.set_viewport_size(viewport)
    problems, _ = await accessibility_problems(page)
    assert not problems, problems


async def test_an_organizer_runs_an_account_tournament_from_her_browser(
    visit: Visit, browser: Any, web: str, tmp_path: Path
) -> None:
    suffix = uuid.uuid4().hex[:6]
    async with httpx.AsyncClient(base_url=web, timeout=30) as http:
        accounts = {
            who: (await http.post("/v1/accounts", json={"name": f"{who} {suffix}"})).json()
            for who in ("Olga", "Pia", "Quinn")
        }
    olga, pia, quinn = (accounts[w]["name"] for w in ("Olga", "Pia", "Quinn"))
    page = visit.page
    await sign_in(page, accounts["Olga"]["token"])

    await page.click("nav >> text=Tournaments")
    await page.wait_for_url("**/tournaments")
    await page.click("#organize")
    await page.wait_for_selector("#new-tournament")
    await checked(page, "new")
    await page.fill("#t-name", f"Winter cup {suffix}")
    await page.select_option("#t-game", "bazaar")
    await page.fill("#t-rounds", "2")
    await page.uncheck("#t-plays")
    await page.fill("#t-invite", f"{pia}\n{quinn}\n{BOT}")
    await page.click("#create-tournament")
    await page.wait_for_selector("#organizer-token")
    organizer_token = await page.text_content("#organizer-token")
    assert organizer_token
    await page.click("#tournament-link")
    await page.wait_for_selector("#entries")
    tournament_path = page.url.removeprefix(web)
    tournament_id = tournament_path.rsplit("/", 1)[-1]
    entries = await page.text_content("#entries") or ""
    assert f"{BOT}: registered" in entries and f"{pia}: invited" in entries, entries
    await checked(page, "registration")

    second = await browser.new_context(viewport={"width": 1000, "height": 900}, base_url=web)
    try:
        pias_page = await second.new_page()
        await sign_in(pias_page, accounts["Pia"]["token"])
        await pias_page.goto(tournament_path)
        await pias_page.click("text=Accept the invitation")
        await pias_page.wait_for_selector("#my-registration >> text=You are registered.")
    finally:
        await second.close()
    async with httpx.AsyncClient(base_url=web, timeout=30) as http:
        accepted = await http.post(
            f"/v1/tournaments/{tournament_id}/join",
            headers={"Authorization": f"Bearer {accounts['Quinn']['token']}"},
        )
        assert accepted.status_code == 200, accepted.text

    await page.reload()
    await page.click("#seat-round")
    await page.wait_for_selector("#crosstable")
    assert "playing" in (await page.text_content("#tournament-status") or "")
    assert await page.locator("#crosstable td.cell-playing").count() == 3
    await checked(page, "round-1")

    await page.select_option("#withdraw-name", quinn)
    await page.click("#withdraw")
    await page.wait_for_selector(f"#crosstable th >> text={quinn} (withdrawn)")
    await page.click("#adjudicate")
    await page.wait_for_selector("#crosstable td.cell-game")
    assert await page.locator("#crosstable td.cell-game").count() == 3
    assert "adjudicated" in (await page.text_content("#rounds-h + section") or "")

    await page.click("#seat-round")  # round 2: the two players left, the withdrawn one absent
    await page.wait_for_selector("#crosstable th >> text=R2")
    quinns = await page.locator(f"#crosstable tr:has(th:has-text('{quinn}')) td").all_text_contents()
    assert quinns[-1] == "—"
    assert await page.locator("#crosstable td.cell-playing").count() == 2

    await page.click("#terminate")
    await page.click("#terminate-yes")
    await page.wait_for_selector("#tournament-status >> text=terminated")
    assert await page.locator("#organizer-panel").count() == 0, "nothing left to organize"
    await checked(page, "ended")

    async with page.expect_download() as downloading:
        await page.click("#download-csv")
    download = await downloading.value
    saved = tmp_path / download.suggested_filename
    await download.save_as(saved)
    assert saved.name == f"crosstable-{tournament_id}.csv"
    rows = list(csv.DictReader(io.StringIO(saved.read_text())))
    assert sorted(row["name"] for row in rows) == sorted([pia, quinn, BOT])
    assert all(row["round_1_place"].endswith("/3") for row in rows)
    assert {row["name"]: row["round_2_place"] for row in rows} == {pia: "playing", BOT: "playing", quinn: ""}
    assert next(row for row in rows if row["name"] == quinn)["withdrawn"] == "true"

    await page.goto("/tournaments")
    await page.wait_for_selector(f"#latest >> text=Winter cup {suffix}")
    await checked(page, "index")
    page_text = await page.content()
    assert organizer_token not in page_text
    assert not [url for url in visit.requests if organizer_token in url], "the organizer token is in no URL"
    assert olga  # she organized it all with her account's session


async def test_a_tournament_of_named_players_hands_out_tokens_once_and_takes_a_late_entry(
    visit: Visit, web: str
) -> None:
    suffix = uuid.uuid4().hex[:6]
    async with httpx.AsyncClient(base_url=web, timeout=30) as http:
        made = (await http.post("/v1/accounts", json={"name": f"Rita {suffix}"})).json()
    page = visit.page
    await sign_in(page, made["token"])
    await page.goto("/tournaments/new")
    await page.fill("#t-name", f"Club night {suffix}")
    await page.select_option("#t-game", "johari")
    await page.fill("#t-rounds", "2")
    await page.select_option("#t-kind", "named")
    assert await page.is_hidden("#t-invite") and await page.is_visible("#t-names")
    await page.fill("#t-names", "Ada\nBo\nCyd\nDot")
    await page.select_option("#t-clock", "untimed")
    await page.click("#create-tournament")
    await page.wait_for_selector("#player-tokens")
    tokens = await page.locator("#player-tokens code").all_text_contents()
    assert len(tokens) == 4 and all(len(token) > 20 for token in tokens)
    await page.click("#tournament-link")
    await page.wait_for_selector("#organizer-panel")
    assert not [t for t in tokens if t in await page.content()], "the players' tokens were shown once only"

    await page.click("#seat-round")
    await page.wait_for_selector("#crosstable td.cell-playing")
    await page.fill("#enter-name", "Eve")
    await page.click("#enter")
    await page.wait_for_selector("#late-entry-token")
    late_token = await page.text_content("#late-entry-token")
    assert late_token and late_token not in tokens
    await page.click("#continue")
    await page.wait_for_selector("#crosstable th >> text=Eve")
    cells = await page.locator("#crosstable tr:has(th:has-text('Eve')) td").all_text_contents()
    assert cells[-1] == "—", "Eve was not seated in round 1"

    await page.fill("#enter-name", "Ada")  # a name the tournament has: refused in words, nothing changes
    await page.click("#enter")
    await page.wait_for_selector("#action-error >> text=Refused")
    assert await page.is_enabled("#enter")
    async with httpx.AsyncClient(base_url=web, timeout=30) as http:
        tournament_id = page.url.rsplit("/", 1)[-1]
        overview = (await http.get(f"/v1/tournaments/{tournament_id}")).json()
    assert overview["entered"] == ["Eve"]


async def invitational(web: str, suffix: str) -> tuple[dict[str, Any], str]:
    """A registering Johari tournament of one round, "Invitational <suffix>": its host's account plays, a
    guest's account is invited; the guest's account (name, token) and the tournament's id."""
    async with httpx.AsyncClient(base_url=web, timeout=30) as http:
        host = (await http.post("/v1/accounts", json={"name": f"Host {suffix}"})).json()
        guest = (await http.post("/v1/accounts", json={"name": f"Guest {suffix}"})).json()
        created = await http.post(
            "/v1/tournaments",
            json={
                "name": f"Invitational {suffix}",
                "game": "johari",
                "rounds": 1,
                "players": [{"account": "me"}, {"invite": guest["name"]}],
            },
            headers={"Authorization": f"Bearer {host['token']}"},
        )
        assert created.status_code == 201, created.text
    tournament_id: str = created.json()["tournament_id"]
    return guest, tournament_id


async def test_a_registering_tournament_page_answers_an_invitation(visit: Visit, web: str) -> None:
    suffix = uuid.uuid4().hex[:6]
    guest, tournament_id = await invitational(web, suffix)
    page = visit.page
    response = await page.goto(f"/tournaments/{tournament_id}")
    assert response is not None and response.status == 200
    assert await page.locator("#organizer-panel").count() == 0, "not signed in: no organizer's actions"
    await sign_in(page, guest["token"])
    await page.goto(f"/tournaments/{tournament_id}")
    assert await page.locator("#organizer-panel").count() == 0, "a guest is no organizer"
    await page.click("text=Decline")
    await page.wait_for_selector(f"#entries >> text={guest['name']}: declined")
    await page.goto("/tournaments")
    assert f"Invitational {suffix}" in (await page.text_content("#registering") or "")


async def test_signed_out_an_account_tournament_says_to_sign_in(visit: Visit) -> None:
    """Signed out, a tournament of accounts is refused with what to do (sign in, or name the players), not
    with the API's words about an Authorization header."""
    page = visit.page
    await page.goto("/tournaments/new")
    await page.fill("#t-name", "Spring cup")
    await page.click("#create-tournament")
    await page.wait_for_function("() => document.getElementById('new-tournament-error').textContent")
    said = await page.text_content("#new-tournament-error") or ""
    assert "Authorization" not in said and "not signed in" in said, said
    await page.click("#sign-in-first")
    await page.wait_for_selector("#sign-up-name")
