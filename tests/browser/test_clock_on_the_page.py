"""A timed game's clocks on the game page (docs/api.md, "Clocks and timeouts"): each seat's time left counts
down from the server's deadline, read on the server's clock even when the browser's own is an hour off (the
skew is measured from the answer's Date header); under ten seconds the seat is warned in words; a timeout,
and the timeout that resigns the seat, are said in words; the log tells clock events in words."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest

from tests.browser.conftest import Visit, screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.db]

SECONDS = 12  # each decision's allowance: long enough to load the page, short enough to run out in the test


async def test_the_clock_counts_down_warns_and_tells_timeouts(visit: Visit, web: str) -> None:
    page = visit.page
    # this browser's clock runs an hour fast: the countdown must follow the server's clock anyway
    await page.clock.install(time=datetime.now(UTC) + timedelta(hours=1))
    async with httpx.AsyncClient(base_url=web, timeout=30) as http:
        created = await http.post(
            "/v1/games",
            json={
                "game": "bazaar",
                "players": [{"name": "Hanna"}, {"name": "Bo"}],
                "clock": {"decision_seconds": SECONDS, "max_timeouts": 2},
            },
        )
        assert created.status_code == 201, created.text
    game = created.json()
    game_id = game["game_id"]
    await page.goto(f"/games/{game_id}")
    await page.fill("#seat-token", game["seats"][0]["token"])
    await page.click("#seat-token-form button")
    await page.wait_for_selector("#clocks .clock.running[data-seat='0']")
    running = page.locator("#clocks .clock.running[data-seat='0']")
    # one read of both: the clock is drawn anew each tick, and a tick between two reads could pass ten seconds
    shown, low = await running.evaluate("clock => [clock.dataset.seconds, clock.classList.contains('low')]")
    seconds = int(shown or -1)
    assert 0 < seconds <= SECONDS, f"the countdown reads the server's clock, not the browser's: {seconds}"
    assert low == (seconds < 10)
    assert await page.locator("#clocks .clock[data-seat='1']").text_content() == "Bo: not on the move"

    # under ten seconds: a class and words
    await page.wait_for_selector("#clocks .clock.low[data-seat='0']")
    assert "under 10 seconds" in (await page.text_content("#clocks .clock.low") or "")
    assert "Under 10 seconds left for your decision" in (await page.text_content("#clock-warning") or "")
    await screenshot(page, "bazaar-clock-low")

    # the deadline passes: the server times the seat out, and the page says so
    await page.wait_for_selector("#clocks .clock[data-seat='0'] .timed-out")
    assert "ran out of time once of 2 allowed" in (await page.text_content("#clocks") or "")
    log = await page.text_content("#log") or ""
    assert "Hanna ran out of time (timeout 1)" in log, log
    assert "[object Object]" not in log and "Clock: Hanna must decide by" in log, log

    # the second timeout resigns her: a two-player game ends, and its ending says why
    await page.wait_for_function("() => document.getElementById('status').textContent.includes('over')")
    ending = await page.text_content("#ending") or ""
    assert "Bo wins" in ending and "Hanna let the clock run out twice and so resigned" in ending, ending
    assert await page.locator("#clocks .clock.running").count() == 0
