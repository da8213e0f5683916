"""Writers racing on one game over real HTTP: conditional racers append exactly once; unconditional racers
each land exactly once (or are refused by the rules), never twice, never lost."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from tests.support.client_play import create_game
from tests.support.ledger import bearer

pytestmark = [pytest.mark.e2e, pytest.mark.db]

RACERS = 16


async def history_after(http: httpx.AsyncClient, game_id: str, version: int) -> list[dict[str, Any]]:
    """The game's events after ``version`` (as a spectator sees them)."""
    response = await http.get(f"/v1/games/{game_id}/events", params={"after": version})
    assert response.status_code == 200, response.text
    events: list[dict[str, Any]] = response.json()["events"]
    return events


async def test_sixteen_racers_with_the_same_if_match_append_exactly_once(any_server: str) -> None:
    """16 clients post one command with one If-Match: exactly one 200, the rest 412/409, one event stored."""
    async with httpx.AsyncClient(base_url=any_server, timeout=30) as http:
        created = await create_game(http, "basari", 3, seed="racers-if-match")
        game_id, token = created["game_id"], created["seats"][0]["token"]
        version = created["version"]
        legal = (await http.get(f"/v1/games/{game_id}/legal", headers=bearer(token))).json()
        headers = {**bearer(token), "If-Match": f'"{version}"'}
        # one client (one connection) per racer, so the posts really arrive together
        racers = [httpx.AsyncClient(base_url=any_server, timeout=30) for _ in range(RACERS)]
        try:
            responses = await asyncio.gather(
                *(
                    racer.post(f"/v1/games/{game_id}/commands", json=legal[0], headers=headers)
                    for racer in racers
                )
            )
        finally:
            await asyncio.gather(*(racer.aclose() for racer in racers))
        statuses = sorted(r.status_code for r in responses)
        assert statuses.count(200) == 1, statuses
        assert set(statuses) <= {200, 409, 412}, statuses
        for refused in (r for r in responses if r.status_code != 200):
            assert refused.headers["content-type"].startswith("application/problem+json")
        events = await history_after(http, game_id, version)
        assert [e["version"] for e in events] == [version + 1]
        assert (await http.get(f"/v1/games/{game_id}")).json()["version"] == version + 1


async def test_sixteen_racers_with_different_commands_each_land_once(any_server: str) -> None:
    """Basari's secret picks (B-6), all five seats at once, 16 clients: 3 or 4 clients per seat, each picking
    another card, without If-Match, each with its own Idempotency-Key. Every accepted pick is stored exactly
    once (the others are refused by the rules), the history is exactly the accepted answers' events, the
    reveal shows each seat's first accepted pick, and replaying every key appends nothing."""
    async with httpx.AsyncClient(base_url=any_server, timeout=30) as http:
        created = await create_game(http, "basari", 5, seed="racers-different")
        game_id, before = created["game_id"], created["version"]
        tokens = [seat["token"] for seat in created["seats"]]
        legal = [(await http.get(f"/v1/games/{game_id}/legal", headers=bearer(t))).json() for t in tokens]
        plan = []  # (seat, command, key), no two alike
        for racer in range(RACERS):
            seat = racer % len(tokens)
            plan.append((seat, legal[seat][racer // len(tokens)], f"racer-{racer}"))
        assert len({(seat, str(command)) for seat, command, _ in plan}) == RACERS

        async def post(
            client: httpx.AsyncClient, seat: int, command: dict[str, Any], key: str
        ) -> httpx.Response:
            headers = {**bearer(tokens[seat]), "Idempotency-Key": key}
            while True:  # a 409 (the game kept moving) is retried with the same key, as a client should
                response = await client.post(f"/v1/games/{game_id}/commands", json=command, headers=headers)
                if response.status_code != 409:
                    return response

        racers = [httpx.AsyncClient(base_url=any_server, timeout=30) for _ in range(RACERS)]
        try:
            responses = await asyncio.gather(
                *(post(racer, *entry) for racer, entry in zip(racers, plan, strict=True))
            )
        finally:
            await asyncio.gather(*(racer.aclose() for racer in racers))

        accepted = [
            (entry, response.json())
            for entry, response in zip(plan, responses, strict=True)
            if response.status_code == 200
        ]
        refused = [r for r in responses if r.status_code != 200]
        assert all(r.status_code == 422 for r in refused), [r.text for r in refused]
        # Every seat's first pick lands; a seat may land a second one when the picks resolved at once and
        # the next round's picking began while its other clients were still retrying.
        assert {seat for (seat, _, _), _ in accepted} == set(range(len(tokens)))
        for (seat, command, _), answer in accepted:  # each answer is its own pick first
            assert answer["events"][0]["type"] == "action_chosen"
            assert answer["events"][0]["data"] == {**command, "type": "action_chosen", "seat": seat}

        events = await history_after(http, game_id, before)
        claimed = [event["version"] for _, answer in accepted for event in answer["events"]]
        assert sorted(claimed) == [event["version"] for event in events], "a pick lost or stored twice"
        assert sorted(claimed) == list(range(before + 1, before + 1 + len(events)))
        assert sum(event["type"] == "action_chosen" for event in events) == len(accepted)
        first_reveal = next(event for event in events if event["type"] == "actions_revealed")
        first_pick = {}
        for (seat, command, _), _answer in sorted(accepted, key=lambda item: -item[1]["version"]):
            first_pick[seat] = command["action"]
        assert first_reveal["data"]["picks"] == [first_pick[seat] for seat in range(len(tokens))]

        version = (await http.get(f"/v1/games/{game_id}")).json()["version"]
        for (seat, command, key), answer in accepted:  # lost answers, retried: the same answer
            again = await post(http, seat, command, key)
            assert again.status_code == 200 and again.json() == answer
        assert (await http.get(f"/v1/games/{game_id}")).json()["version"] == version
