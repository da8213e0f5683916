"""A control the server renders and a script owns cannot be used before that script has bound it: while the
page's module script is held back (a slow network, a loaded machine), the home page's "Create the game",
the game page's "Sit down", the replay's steps, the new tournament's "Create the tournament" and a
registration's "Accept the invitation" are disabled, and neither a click nor Enter in a field submits their
form natively (which would reload the page); once the script arrives they work. Without JavaScript the pages
say what needs it, and its controls stay disabled (docs/web.md, "Controls wait for their script")."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import httpx
import pytest
from playwright.async_api import expect

from tests.browser.conftest import Visit
from tests.browser.test_organize_a_tournament import invitational, sign_in
from tests.support.client_play import create_game

pytestmark = [pytest.mark.e2e, pytest.mark.db]

# Counts the form submissions of each document (a capture listener, in place before any script of the page)
# and stops the native ones, so a submission made before the page's script ran is seen rather than lost to
# the reload it starts. The page's own submit handlers still run.
COUNT_SUBMITS = """window.submits = 0;
document.addEventListener("submit", (e) => { window.submits += 1; e.preventDefault(); }, true);"""

# Resolves once the page has been drawn (two animation frames): a browser takes no click before that.
PAINTED = "() => new Promise((painted) => requestAnimationFrame(() => requestAnimationFrame(painted)))"


class HeldScript:
    """The page's next request for one static script, held until released: the page is parsed and drawn
    without that script having run."""

    def __init__(self) -> None:
        """Nothing requested yet, nothing released."""
        self.requested = asyncio.Event()
        self.released = asyncio.Event()

    async def hold(self, page: Any, script: str) -> None:
        """Route `/static/<script>` once through this holder."""
        await page.route(f"**/static/{script}", self._route, times=1)

    async def _route(self, route: Any) -> None:
        """Answer the request only once released."""
        self.requested.set()
        await self.released.wait()
        await route.continue_()


async def open_held(page: Any, path: str, script: str) -> HeldScript:
    """Open `path` with its `script` held: returns once the page asked for it and is drawn (the controls
    above it are on the screen, the script has not run)."""
    held = HeldScript()
    await page.add_init_script(script=COUNT_SUBMITS)
    await held.hold(page, script)
    await page.goto(path, wait_until="commit")
    await asyncio.wait_for(held.requested.wait(), 15)
    await page.evaluate(PAINTED)
    return held


async def submits(page: Any) -> int:
    """How many times a form of the page was submitted."""
    count: int = await page.evaluate("window.submits")
    return count


async def test_the_home_pages_form_waits_for_its_script(visit: Visit) -> None:
    page = visit.page
    held = await open_held(page, "/", "home.js")
    for control in ("#create-game", "#add-seat", "#remove-seat"):
        assert await page.is_disabled(control), f"{control} is usable before home.js bound it"
    await page.click("#create-game", force=True)
    assert await submits(page) == 0, "the form was submitted before home.js bound it"

    held.released.set()
    await expect(page.locator("#create-game")).to_be_enabled()
    await page.select_option("#new-game-kind", "johari")
    await expect(page.locator("#new-game-seats .seat-row")).to_have_count(3)
    await page.click("#remove-seat")
    await expect(page.locator("#new-game-seats .seat-row")).to_have_count(2)
    await page.click("#add-seat")
    await expect(page.locator("#new-game-seats .seat-row")).to_have_count(3)
    await page.click("#create-game")
    await page.wait_for_url("**/games/*")


async def test_the_game_pages_seat_form_waits_for_its_script(visit: Visit, web: str) -> None:
    async with httpx.AsyncClient(base_url=web, timeout=30) as http:
        created = await create_game(http, "johari", 2, seed=f"held-{uuid.uuid4().hex[:6]}")
    game_id, token = created["game_id"], created["seats"][1]["token"]
    page = visit.page
    held = await open_held(page, f"/games/{game_id}", "game.js")
    assert await page.is_disabled("#sit-down"), "'Sit down' is usable before game.js bound it"
    await page.fill("#seat-token", token)
    await page.press("#seat-token", "Enter")
    await page.click("#sit-down", force=True)
    assert await submits(page) == 0, "the seat form was submitted before game.js bound it"

    held.released.set()
    await expect(page.locator("#sit-down")).to_be_enabled()
    assert await page.input_value("#seat-token") == token, "the page was not reloaded"
    await page.click("#sit-down")
    await page.wait_for_function("() => document.getElementById('play-as')?.value === '1'")


async def test_the_replays_steps_wait_for_their_script(visit: Visit, web: str) -> None:
    async with httpx.AsyncClient(base_url=web, timeout=30) as http:
        created = await create_game(http, "johari", 2, seed=f"held-{uuid.uuid4().hex[:6]}")
        game_id = created["game_id"]
        tokens = [seat["token"] for seat in created["seats"]]
        for _ in range(3):  # a few moves: the replay has versions to step to
            pending = (await http.get(f"/v1/games/{game_id}")).json()["pending"][0]["seat"]
            auth = {"Authorization": f"Bearer {tokens[pending]}"}
            legal = (await http.get(f"/v1/games/{game_id}", headers=auth)).json()["legal"]
            command = next(c for c in legal if c["type"] != "resign")
            posted = await http.post(f"/v1/games/{game_id}/commands", json=command, headers=auth)
            assert posted.status_code == 200, posted.text
        version = (await http.get(f"/v1/games/{game_id}")).json()["version"]
    page = visit.page
    held = await open_held(page, f"/games/{game_id}/replay", "replay.js")
    steps = ("#first", "#prev-round", "#prev-move", "#prev", "#next", "#next-move", "#next-round", "#last")
    for control in (*steps, "#play", "#at"):
        assert await page.is_disabled(control), f"{control} is usable before replay.js bound it"

    held.released.set()
    await expect(page.locator("#last")).to_be_enabled()
    await page.wait_for_function("() => document.getElementById('replay').dataset.at === '1'")
    await page.click("#last")
    await page.wait_for_function(f"() => document.getElementById('replay').dataset.at === '{version}'")


async def test_the_new_tournament_form_waits_for_its_script(visit: Visit) -> None:
    page = visit.page
    held = await open_held(page, "/tournaments/new", "tournament_new.js")
    assert await page.is_disabled("#create-tournament"), "the form's button is usable before its script ran"
    name = f"Held cup {uuid.uuid4().hex[:6]}"
    await page.fill("#t-name", name)
    await page.press("#t-name", "Enter")  # a form submits on Enter in a field unless its button is disabled
    await page.click("#create-tournament", force=True)
    assert await submits(page) == 0, "the form was submitted before tournament_new.js bound it"

    held.released.set()
    await expect(page.locator("#create-tournament")).to_be_enabled()
    assert await page.input_value("#t-name") == name, "the page was not reloaded"
    await page.select_option("#t-kind", "named")
    await page.select_option("#t-game", "johari")
    await page.fill("#t-names", "Ada\nBo\nCyd\nDot")
    await page.click("#create-tournament")
    await expect(page.locator("#organizer-token")).to_be_visible()
    assert await page.text_content("#new-tournament-error") == ""
    assert await submits(page) == 1


async def test_a_registrations_buttons_wait_for_their_script(visit: Visit, web: str) -> None:
    guest, tournament_id = await invitational(web, uuid.uuid4().hex[:6])
    page = visit.page
    await sign_in(page, guest["token"])
    held = await open_held(page, f"/tournaments/{tournament_id}", "tournament.js")
    accept = page.get_by_role("button", name="Accept the invitation")
    assert await accept.is_disabled(), "'Accept' is usable before tournament.js bound it"
    assert await page.get_by_role("button", name="Decline").is_disabled()

    held.released.set()
    await expect(accept).to_be_enabled()
    await accept.click()
    await page.wait_for_selector(f"#entries >> text={guest['name']}: registered")


async def test_without_javascript_a_page_says_what_needs_it(visit: Visit, browser: Any, web: str) -> None:
    async with httpx.AsyncClient(base_url=web, timeout=30) as http:
        game_id = (await create_game(http, "johari", 2, seed=f"noscript-{uuid.uuid4().hex[:6]}"))["game_id"]
    owned = {
        "/": ("#create-game", "creating a game"),
        f"/games/{game_id}": ("#sit-down", "playing a seat"),
        f"/games/{game_id}/replay": ("#next", "stepping through the replay"),
        "/tournaments/new": ("#create-tournament", "creating a tournament"),
    }
    context = await browser.new_context(java_script_enabled=False, base_url=web)
    try:
        page = await context.new_page()
        for path, (control, words) in owned.items():
            await page.goto(path)
            said = await page.text_content("#without-script") or ""
            assert said.startswith("This browser runs no JavaScript") and words in said, (path, said)
            assert await page.is_disabled(control), (path, control)
        await page.goto("/tournaments")
        assert await page.locator("#without-script").count() == 0, "a page with nothing to bind says nothing"
    finally:
        await context.close()
    await visit.page.goto("/")
    await expect(visit.page.locator("#create-game")).to_be_enabled()
    assert await visit.page.locator("#without-script").count() == 0, "with JavaScript it says nothing"
