"""Basari's negotiation on the page (B-8): a bid is composed with a stepper per colour, the page says
whether it beats the bid on the table before it is sent (from the server's `legal` list), one button sends
it and one accepts. Hanna plays on the page; Omar and Lea over the API, so the negotiation is certain."""

from __future__ import annotations

from itertools import product
from typing import Any

import httpx
import pytest

from tests.browser.clicking import BID_ORDER, compose_bid, moved_on
from tests.browser.conftest import Visit, screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.db]

DRAWN = "(version) => document.getElementById('game').dataset.version === version"  # the page shows it


MUTED = "rgb(107, 100, 90)"  # style.css --muted: hints
REFUSAL_RED = "rgb(176, 0, 32)"  # style.css .error, play.css .verdict.no: refusals


async def colour(page: Any, selector: str) -> str:
    """The text colour the page shows ``selector`` in."""
    shown: str = await page.eval_on_selector(selector, "(n) => getComputedStyle(n).color")
    return shown


def key(gems: dict[str, int]) -> tuple[int, ...]:
    """A bid's counts in value order."""
    return tuple(gems.get(colour, 0) for colour in BID_ORDER)


def not_beating(owned: dict[str, int], legal: list[dict[str, Any]]) -> dict[str, int]:
    """A non-empty bid from ``owned`` that ``legal`` does not list: one that does not beat the table's."""
    listed = {key(c["gems"]) for c in legal if c["type"] == "bid"}
    for counts in product(*(range(owned.get(colour, 0) + 1) for colour in BID_ORDER)):
        if sum(counts) and counts not in listed:
            return dict(zip(BID_ORDER, counts, strict=True))
    raise AssertionError("every bid beats the table's")


def weakest(legal: list[dict[str, Any]]) -> dict[str, int]:
    """The first (weakest) whole bid ``legal`` lists."""
    gems: dict[str, int] = next(c["gems"] for c in legal if c["type"] == "bid")
    return gems


async def test_a_bid_is_composed_with_steppers_checked_sent_and_accepted(visit: Visit, web: str) -> None:
    page = visit.page
    async with httpx.AsyncClient(base_url=web, timeout=30) as http:
        created = (
            await http.post(
                "/v1/games",
                json={"game": "basari", "players": [{"name": n} for n in ("Hanna", "Omar", "Lea")]},
            )
        ).json()
        game_id = created["game_id"]
        auth = {seat["seat"]: {"Authorization": f"Bearer {seat['token']}"} for seat in created["seats"]}

        async def detail(seat: int) -> dict[str, Any]:
            answer: dict[str, Any] = (await http.get(f"/v1/games/{game_id}", headers=auth[seat])).json()
            return answer

        async def command(seat: int, body: dict[str, Any]) -> None:
            answer = await http.post(f"/v1/games/{game_id}/commands", json=body, headers=auth[seat])
            assert answer.status_code == 200, answer.text

        await page.goto(f"/games/{game_id}")
        await page.fill("#seat-token", created["seats"][0]["token"])
        await page.click("#seat-token-form button")
        await page.wait_for_function("() => document.getElementById('play-as')?.value === '0'")
        # Omar wants action A as Hanna does: they negotiate for it
        await command(1, {"type": "choose_action", "action": "A"})
        await command(2, {"type": "choose_action", "action": "B"})
        before = str((await detail(0))["version"])  # the page shows both picks before Hanna makes hers
        await page.wait_for_function(DRAWN, arg=before)
        await page.click('#controls button.choice[data-command=\'{"type":"choose_action","action":"A"}\']')
        await moved_on(page, before)

        seen_beating = seen_not_beating = accepted = False
        for _ in range(20):
            hanna = await detail(0)
            talks = hanna["view"]["negotiation"]
            if talks is None:
                break
            if talks["to_move"] == 1:
                omar = await detail(1)
                bids = [c for c in omar["legal"] if c["type"] == "bid"]
                await command(1, bids[0] if bids else {"type": "accept"})
                continue
            await page.wait_for_selector("#bid-composer")
            await page.wait_for_function(DRAWN, arg=str(hanna["version"]))
            owned = hanna["view"]["players"][0]["gems"]
            # before any gem is added the composer prompts in the hint's colour, not in the refusal's red
            assert await page.text_content("#bid-verdict") == "Add gems to make a bid."
            assert await colour(page, "#bid-verdict") == MUTED
            if talks["current_bid"] is None:
                # nothing composed yet: nothing to send
                assert await page.get_attribute("#bid-verdict", "data-beats") == "false"
                assert await page.is_disabled("#send-bid")
                assert "open the bidding" in await page.text_content("#bid-composer")
            elif not seen_not_beating:
                low = not_beating(owned, hanna["legal"])
                assert await compose_bid(page, low) == "false"
                assert "does not beat" in await page.text_content("#bid-verdict")
                assert await colour(page, "#bid-verdict") == REFUSAL_RED
                assert await page.is_disabled("#send-bid")
                seen_not_beating = True
            else:
                # the second time a bid is on the table, Hanna takes it with the one accept button
                await page.click("#accept-bid")
                accepted = True
                await moved_on(page, str(hanna["version"]))
                continue
            bid = weakest(hanna["legal"])
            assert await compose_bid(page, bid) == "true"
            assert "beats" in await page.text_content("#bid-verdict")
            await screenshot(page, "basari-bid-composer")
            await page.click("#send-bid")
            seen_beating = True
            await moved_on(page, str(hanna["version"]))
        assert seen_beating and seen_not_beating
        events = (await http.get(f"/v1/games/{game_id}/events", headers=auth[0])).json()["events"]
    placed = [e["data"] for e in events if e["data"]["type"] == "bid_placed" and e["data"]["seat"] == 0]
    assert placed, "Hanna's composed bid was placed"
    took = [e["data"] for e in events if e["data"]["type"] == "bid_accepted"]
    assert took, "the negotiation ended with an accepted bid"
    if accepted:
        assert took[-1]["seat"] == 0
    assert await page.text_content("#command-error") == ""
