"""Acting on the board: the cards, stores, booths and nobles a Johari decision names are highlighted
controls (from the server's `legal` list), the rest of the board is inert, and a target is reached with
Tab and taken with Enter like any button. The whole games played on the board are in test_play_by_clicking."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.browser.clicking import moved_on
from tests.browser.conftest import Visit, screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.db]

TARGETS = """() => [...document.querySelectorAll('#board .target')].map((t) => ({
  commands: JSON.parse(t.dataset.commands), label: t.getAttribute('aria-label'),
  tabbable: t.tabIndex === 0, role: t.getAttribute('role')}))"""
INERT_CARDS = """() => [...document.querySelectorAll('#board .jcard:not(.target)')]
  .filter((c) => c.tabIndex >= 0 || c.getAttribute('role') === 'button').length"""


async def test_johari_set_up_picks_are_cards_on_the_board_taken_by_keyboard(visit: Visit, web: str) -> None:
    page = visit.page
    async with httpx.AsyncClient(base_url=web, timeout=30) as http:
        created = (
            await http.post(
                "/v1/games",
                json={"game": "johari", "players": [{"name": "Hanna"}, {"bot": "greedy", "name": "Max"}]},
            )
        ).json()
        game_id, token = created["game_id"], created["seats"][0]["token"]

        await page.goto(f"/games/{game_id}")
        await page.fill("#seat-token", token)
        await page.click("#seat-token-form button")
        await page.wait_for_selector("#board .target", timeout=30_000)  # Hanna's set-up pick (J-8)
        detail: dict[str, Any] = (
            await http.get(f"/v1/games/{game_id}", headers={"Authorization": f"Bearer {token}"})
        ).json()
    await page.wait_for_function(
        f"() => document.getElementById('game').dataset.version === '{detail['version']}'"
    )
    legal = [c for c in detail["legal"] if c["type"] != "resign"]
    assert legal and all(c["type"] == "pick_card" for c in legal)
    targets: list[dict[str, Any]] = await page.evaluate(TARGETS)
    # every pick is one card on the board, and nothing else is a target
    assert sorted(json.dumps(c) for t in targets for c in t["commands"]) == sorted(
        json.dumps(c) for c in legal
    )
    assert all(t["tabbable"] and t["role"] == "button" for t in targets)
    assert len({t["label"] for t in targets}) == len(targets), "no two targets read alike"
    assert all(" in booth " in t["label"] or " store" in t["label"] for t in targets), (
        "a pick names its place"
    )
    assert await page.evaluate(INERT_CARDS) == 0, "a card no command names is not a control"
    await screenshot(visit.page, "johari-board-targets")

    # by keyboard: a target takes the focus and Enter acts on it, as on a button
    first = page.locator("#board .target").first
    wanted = json.loads(await first.get_attribute("data-commands") or "[]")[0]
    await page.focus("#controls details.fallback summary")  # the last control before the board
    await page.keyboard.press("Tab")
    assert await first.evaluate("(t) => t === document.activeElement"), "Tab reaches the board's first target"
    await page.keyboard.press("Enter")
    await moved_on(page, str(detail["version"]))
    assert await page.text_content("#command-error") == ""
    async with httpx.AsyncClient(base_url=web, timeout=30) as http:
        events = (
            await http.get(f"/v1/games/{game_id}/events", headers={"Authorization": f"Bearer {token}"})
        ).json()
    picks = [
        e["data"]
        for e in events["events"]
        if e["data"]["type"] == "setup_card_picked" and e["data"]["seat"] == 0
    ]
    assert picks, "Hanna picked a card"
    taken = (*picks[0]["cards"], *picks[0]["prestige_cards"])
    assert wanted["card"] in taken, "the card focused on the board is the card picked"
