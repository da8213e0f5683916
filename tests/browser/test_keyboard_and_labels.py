"""Every page is accessible by keyboard and labelled: on the home page (signed out: the account
forms), the lobby (signed in), a game being played and one being watched, a replay, a tournament, a player
page, a finished game, a timed game, a rule page and the error page, axe-core (WCAG 2.1 A and AA rules, run
in the page from the package's bundled script: no network) finds no violation, every visible control has an
accessible name, and Tab reaches every one of them; a decision can be made with the keyboard alone."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest
from axe_playwright_python.async_playwright import Axe

from tests.browser.clicking import moved_on
from tests.browser.conftest import Visit
from tests.support.client_play import create_game, play_existing

pytestmark = [pytest.mark.e2e, pytest.mark.db]

CONTROLS = """() => [...document.querySelectorAll('a[href], button, input, select, textarea, summary')]
  .filter((e) => e.type !== 'hidden' && (e.offsetParent !== null || e.getClientRects().length))
  .map((e) => {
    const labelled = (e.labels && e.labels.length ? [...e.labels].map((l) => l.textContent).join(' ') : '')
      || e.getAttribute('aria-label') || e.textContent;
    return {key: e.id || e.outerHTML.slice(0, 80), name: (labelled || '').trim(), tag: e.tagName};
  })"""

FOCUSED = (
    """() => { const e = document.activeElement; return e ? (e.id || e.outerHTML.slice(0, 80)) : null; }"""
)

AXE_RULES = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}}


async def tab_through(page: Any, limit: int) -> set[str]:
    """Every element Tab reaches from the top of the page (until focus comes round again)."""
    await page.focus("body")
    reached: list[str] = []
    for _ in range(limit):
        await page.keyboard.press("Tab")
        key = await page.evaluate(FOCUSED)
        if key is None or (reached and key == reached[0]):
            break
        reached.append(key)
    return set(reached)


async def accessibility_problems(page: Any) -> tuple[list[str], int]:
    """What axe (WCAG 2.1 A/AA) finds, the visible controls without a name and those Tab does not reach,
    with how many controls there are."""
    problems: list[str] = []
    results = await Axe().run(page, options={**AXE_RULES, "resultTypes": ["violations"]})
    if results.violations_count:
        problems.append(results.generate_report())
    controls = await page.evaluate(CONTROLS)
    problems += [f"no label: {c['key']}" for c in controls if not c["name"]]
    reached = await tab_through(page, limit=len(controls) + 40)
    problems += [f"not reachable by Tab: {c['key']}" for c in controls if c["key"] not in reached]
    return problems, len(controls)


async def sign_up(page: Any, name: str) -> None:
    """Sign up on the home page and continue, signed in."""
    await page.goto("/")
    await page.fill("#sign-up-name", name)
    await page.click("#sign-up button")
    await page.click("#continue")
    await page.wait_for_selector("#signed-in-as")


async def test_every_page_is_labelled_and_reachable_by_keyboard(visit: Visit, web: str) -> None:
    page = visit.page
    suffix = uuid.uuid4().hex[:6]
    async with httpx.AsyncClient(base_url=web, timeout=30) as http:
        # fixed seeds: the same deals (and so the same colours on the boards) every run
        # a tournament with its first round seated, and one of its games played to the end (results)
        made = await http.post(
            "/v1/tournaments",
            json={
                "name": f"Cup {suffix}",
                "game": "basari",
                "rounds": 2,
                "seed": "a11y",
                "players": [{"name": n} for n in "ABC"],
            },
        )
        assert made.status_code == 201, made.text
        cup = made.json()
        organizer = {"Authorization": f"Bearer {cup['organizer_token']}"}
        seated = await http.post(f"/v1/tournaments/{cup['tournament_id']}/rounds", headers=organizer)
        assert seated.status_code == 201, seated.text
        table = seated.json()["tables"][0]
        tokens = {p["name"]: p["token"] for p in cup["players"]}
        await play_existing(http, table["game_id"], [tokens[s["name"]] for s in table["seats"]], seed="a11y")
        watched = await create_game(http, "johari", 2, seed="a11y-johari")
        bazaar = await create_game(http, "bazaar", 2, seed="a11y-bazaar")
        timed = await http.post(
            "/v1/games",
            json={
                "game": "bazaar",
                "players": [{"name": "Ann"}, {"name": "Bo"}],
                "clock": {"decision_seconds": 600},
            },
        )
        assert timed.status_code == 201, timed.text
        played = await create_game(http, "basari", 3, seed="a11y-basari")
        other = (await http.post("/v1/accounts", json={"name": f"Omar {suffix}"})).json()["token"]
        waiting = await http.post(
            "/v1/games",
            json={"game": "bazaar", "players": [{"account": "me"}, {"open": True}]},
            headers={"Authorization": f"Bearer {other}"},
        )
        assert waiting.status_code == 201, waiting.text

    counted: dict[str, int] = {}
    found: dict[str, list[str]] = {}

    async def check(name: str) -> None:
        """Record the page's problems and its number of controls."""
        found[name], counted[name] = await accessibility_problems(page)

    pages = {
        "home, signed out": ("/", "#sign-in-token"),
        "tournament": (f"/tournaments/{cup['tournament_id']}", "#crosstable"),
        "player": ("/players/A", "h1"),
        "watch johari": (f"/games/{watched['game_id']}", "#board > *"),
        "watch bazaar": (f"/games/{bazaar['game_id']}", "#board > *"),
        "replay": (f"/games/{table['game_id']}/replay", "#replay[data-at='1']"),
        "finished game": (f"/games/{table['game_id']}", "#board #ending"),
        "timed game": (f"/games/{timed.json()['game_id']}", "#clocks .clock.running"),
        "rules": ("/rules/johari", "#document"),
        "error": ("/no-such-page", "#error-detail"),
    }
    for name, (path, ready) in pages.items():
        await page.goto(path)
        await page.wait_for_selector(ready)
        await check(name)

    await sign_up(page, f"Hanna {suffix}")  # the account pages: signed in, the lobby
    await page.wait_for_selector("#lobby-games button.join")
    await check("lobby")

    # play: the keyboard-only player creates nothing by mouse: seat token typed, Enter to sit down
    await page.goto(f"/games/{played['game_id']}")
    await page.wait_for_selector("#board > *")
    await page.focus("#seat-token")
    await page.keyboard.type(played["seats"][0]["token"])
    await page.keyboard.press("Enter")
    await page.wait_for_selector("#controls .choice")
    await check("play")
    version = await page.get_attribute("#game", "data-version")
    await page.focus("#controls .choice")
    await page.keyboard.press("Enter")
    await moved_on(page, version)
    # the page draws the new version from its own command's answer; the log line comes from the stream
    await page.wait_for_function("() => document.getElementById('log').textContent.includes('picks action')")
    assert not any(found.values()), "\n".join(f"{k}: {p}" for k, v in found.items() for p in v)
    assert counted["home, signed out"] >= 8 and counted["lobby"] >= 10 and counted["play"] >= 5, counted


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
        await page.wait_for_function(
            f"() => document.getElementById('status').textContent.includes('{picker}')"
        )
        version = await page.get_attribute("#game", "data-version")
        await page.click("#controls .choice >> nth=0")
        await moved_on(page, version)
    await page.wait_for_function(
        "() => document.getElementById('log').textContent.includes('The picks are revealed')"
    )
