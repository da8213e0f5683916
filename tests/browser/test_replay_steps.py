"""A replay stepped as Lichess steps a game: by move and by round as well as by event, with the arrow keys,
and playing itself. The moves the page stops at are checked against the game's export, which marks the
first event of every move with its command (docs/api.md, the export)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.browser.conftest import Visit, screenshot
from tests.support.client_play import play_to_end

pytestmark = [pytest.mark.e2e, pytest.mark.db]

AT = "(version) => document.getElementById('replay').dataset.at === version"


def move_ends(events: list[dict[str, Any]]) -> list[int]:
    """The last version of each move: the version before each event that carries a command, and the last."""
    ends = [event["version"] - 1 for event in events if event.get("command") and event["version"] > 1]
    return [*ends, events[-1]["version"]]


def round_ends(events: list[dict[str, Any]], moves: list[int]) -> list[int]:
    """The end of each move in which a Basari round is dealt (B-5)."""
    dealt = [event["version"] for event in events if event["type"] == "cards_dealt"]
    return sorted({next(end for end in moves if end >= version) for version in dealt})


async def test_a_replay_steps_by_move_and_round_with_keys_and_plays_itself(visit: Visit, web: str) -> None:
    page = visit.page
    async with httpx.AsyncClient(base_url=web, timeout=30) as http:
        played = await play_to_end(http, "basari", 3, seed="stepped")
        exported = (await http.get(f"/v1/games/{played.game_id}/export")).json()
    events = exported["events"]
    moves, rounds = move_ends(events), round_ends(events, move_ends(events))
    last = played.final["version"]
    assert len(moves) < last, "a move is more than one event"

    async def at(version: int) -> None:
        await page.wait_for_function(AT, arg=str(version))

    await page.goto(f"/games/{played.game_id}/replay")
    await at(1)
    await page.focus("#first")  # the keys work anywhere but in a field
    for expected in moves[:6]:  # → steps a move: the position after it
        await page.keyboard.press("ArrowRight")
        await at(expected)
    assert (await page.text_content("#where") or "").startswith(f"Move 6 of {len(moves)}")
    await page.keyboard.press("ArrowLeft")
    await at(moves[4])
    await page.keyboard.press("Shift+ArrowRight")  # one event
    await at(moves[4] + 1)
    await page.keyboard.press("Shift+ArrowLeft")
    await at(moves[4])
    await page.keyboard.press("Home")
    await at(1)
    for expected in rounds[:3]:  # ↓ steps a round: the deal of the next one
        await page.keyboard.press("ArrowDown")
        await at(expected)
        assert "a card is dealt to each player" in (await page.text_content("#told") or "")
    await page.keyboard.press("ArrowUp")
    await at(rounds[1])
    await page.click("#next-move")  # the buttons step the same way
    await at(next(end for end in moves if end > rounds[1]))
    await screenshot(page, "basari-replay-steps")
    await page.keyboard.press("End")
    await at(last)
    assert "The game is over" in (await page.text_content("#told") or "")

    # autoplay: from three moves before the end it plays move by move to the last, then stops by itself
    await page.fill("#at", str(moves[-4]))
    await page.press("#at", "Enter")
    await at(moves[-4])
    await page.select_option("#pace", "400")
    await page.click("#play")
    assert await page.get_attribute("#play", "aria-pressed") == "true"
    for expected in moves[-3:]:
        await at(expected)
    await page.wait_for_function(
        "() => document.getElementById('play').getAttribute('aria-pressed') === 'false'"
    )
    assert await page.text_content("#play") == "Play"
    # and Pause stops it where it is
    await page.keyboard.press("Home")
    await at(1)
    await page.click("#play")
    await at(moves[0])
    await page.click("#play")
    assert await page.get_attribute("#play", "aria-pressed") == "false"
    stopped = await page.get_attribute("#replay", "data-at")
    assert stopped in {str(moves[0]), str(moves[1])}
