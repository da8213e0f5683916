"""Resigning and the ends of games on the game page: resigning is apart from the moves and takes a
confirming second click; every ending says who won, the scores and why the game ended, in words, and links
the score sheet and the replay."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.browser.clicking import bazaar_choice
from tests.browser.conftest import Visit, screenshot
from tests.support.client_play import create_game, play_to_end

pytestmark = [pytest.mark.e2e, pytest.mark.db]

STATUS_OVER = "() => document.getElementById('status').textContent.includes('over')"


async def sit_down(page: Any, game_id: str, token: str) -> None:
    """Open the game page and sit down with a seat token."""
    await page.goto(f"/games/{game_id}")
    await page.wait_for_selector("#board > *")
    await page.fill("#seat-token", token)
    await page.click("#seat-token-form button")
    await page.wait_for_selector("#resign-area:not([hidden])")


async def test_resigning_is_apart_from_the_moves_confirmed_and_then_shows_the_result(
    visit: Visit, web: str
) -> None:
    page = visit.page
    async with httpx.AsyncClient(base_url=web, timeout=30) as http:
        created = await create_game(http, "bazaar", 2, seed="resign-page")
        game_id = created["game_id"]
        names = [seat["name"] for seat in created["seats"]]
        await sit_down(page, game_id, created["seats"][0]["token"])
        await page.wait_for_selector("#controls .choice")
        assert await page.locator("#decision [data-type='resign']").count() == 0, "resign is not a move"
        assert await page.locator("#resign-area #resign").is_visible()
        assert await page.locator("#resign-yes").is_hidden()

        await page.click("#resign")  # the first click only asks
        await page.wait_for_selector("#resign-yes", state="visible")
        assert "Really resign" in (await page.text_content("#resign-confirm") or "")
        assert (await http.get(f"/v1/games/{game_id}")).json()["status"] == "active"
        await page.click("#resign-no")  # and can be taken back
        await page.wait_for_selector("#resign", state="visible")
        assert (await http.get(f"/v1/games/{game_id}")).json()["status"] == "active"

        await page.click("#resign")
        await page.click("#resign-yes")
        await page.wait_for_function(STATUS_OVER)
        final = (await http.get(f"/v1/games/{game_id}")).json()
    assert final["status"] == "finished" and final["result"]["winners"] == [1]
    status = await page.text_content("#status") or ""
    assert f"The game is over. {names[1]} wins." in status, status
    ending = await page.text_content("#board #ending") or ""
    assert f"{names[1]} wins" in ending and f"{names[0]} resigned" in ending, ending
    assert await page.locator(f"#ending a[href='/games/{game_id}/replay']").count() == 1
    assert await page.locator(f"#ending a[href='/games/{game_id}/replay#sheet-h']").count() == 1
    assert await page.locator("#resign-area").is_hidden() and await page.locator("#decision").is_hidden()
    # the page ends the game from its own command's answer; the log line comes from the stream
    await page.wait_for_function("() => document.getElementById('log').textContent.includes('resigns')")
    await screenshot(page, "bazaar-resigned")


def greedy_bazaar(mine: dict[str, Any], chooser: Any) -> dict[str, Any]:
    """Bazaar's greedy buyer (a game of it ends in a few dozen turns)."""
    picked = bazaar_choice(mine["view"], mine["you"], mine["legal"])
    return picked if picked is not None else chooser.choice(mine["legal"])


@pytest.mark.parametrize("game", ["bazaar", "basari", "johari"])
async def test_a_game_s_own_end_says_who_won_the_scores_and_why(visit: Visit, web: str, game: str) -> None:
    page = visit.page
    async with httpx.AsyncClient(base_url=web, timeout=30) as http:
        strategy = greedy_bazaar if game == "bazaar" else None
        players = {"bazaar": 2, "basari": 3, "johari": 2}[game]
        played = await play_to_end(http, game, players, seed=f"ending-{game}", strategy=strategy)
    result = played.final["result"]
    names = [seat["name"] for seat in played.final["seats"]]
    why = {
        "bazaar": "the wares of two stalls were sold out",
        "basari": "the third stage was scored",
        "johari": "market day 10 ended",
    }[game]
    await page.goto(f"/games/{played.game_id}")
    await page.wait_for_function(STATUS_OVER)
    text = await page.text_content("#board #ending") or ""
    assert why in text and "Scores:" in text, text
    for seat, score in enumerate(result["scores"]):
        assert f"{names[seat]} {score}" in text, text
    won = (
        [f"{names[w]} wins" for w in result["winners"]] if len(result["winners"]) == 1 else ["share the win"]
    )
    assert won[0] in text and won[0] in (await page.text_content("#status") or ""), text
    assert "_" not in text, f"an internal code in the ending: {text}"
    await screenshot(page, f"{game}-ended")
    assert await page.locator(f"#ending a[href='/games/{played.game_id}/replay#sheet-h']").count() == 1
    # the replay's last version tells the same ending
    await page.goto(f"/games/{played.game_id}/replay")
    await page.wait_for_function("() => document.getElementById('replay').dataset.at === '1'")
    await page.click("#last")
    await page.wait_for_selector("#board #ending")
    assert why in (await page.text_content("#board #ending") or "")
    log = await page.text_content("#events") or ""
    assert "two_stalls_empty" not in log and "[object Object]" not in log
