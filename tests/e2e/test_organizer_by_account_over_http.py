"""Organizer actions by account, over real HTTP: the account that organizes a tournament acts on it with its
account token or a signed-in browser's session (with the CSRF header), without the organizer token; any
other account is 403 and changes nothing."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest

from tests.support.accounts import account, bearer

pytestmark = [pytest.mark.e2e, pytest.mark.db]


def named_tournament(names: list[str]) -> dict[str, Any]:
    """A one-round, untimed Johari tournament of ``{name}`` players."""
    return {
        "name": f"club {uuid.uuid4().hex[:6]}",
        "game": "johari",
        "players": [{"name": n} for n in names],
        "rounds": 2,
        "untimed": True,
    }


async def test_the_organizers_account_token_acts_on_her_account_tournament(http: httpx.AsyncClient) -> None:
    _, organizer = await account(http, "org")
    guest, guest_token = await account(http, "guest")
    body = {
        "name": f"cup {uuid.uuid4().hex[:6]}",
        "game": "johari",
        "players": [{"account": "me"}, {"invite": guest}],
        "rounds": 1,
        "seed": uuid.uuid4().hex,
        "untimed": True,
    }
    created = await http.post("/v1/tournaments", json=body, headers=bearer(organizer))
    assert created.status_code == 201, created.text
    tournament_id = created.json()["tournament_id"]  # the organizer token is dropped: lost
    assert (
        await http.post(f"/v1/tournaments/{tournament_id}/join", headers=bearer(guest_token))
    ).status_code == 200

    unauthenticated = await http.post(f"/v1/tournaments/{tournament_id}/rounds")
    assert unauthenticated.status_code == 401 and unauthenticated.json()["code"] == "token_required"
    foreign = await http.post(f"/v1/tournaments/{tournament_id}/rounds", headers=bearer(guest_token))
    assert foreign.status_code == 403 and foreign.json()["code"] == "not_organizer"
    still = (await http.get(f"/v1/tournaments/{tournament_id}/registration")).json()
    assert still["status"] == "registering", "a refused request seats nothing"

    seated = await http.post(f"/v1/tournaments/{tournament_id}/rounds", headers=bearer(organizer))
    assert seated.status_code == 201, seated.text
    game_id = seated.json()["tables"][0]["game_id"]
    adjudicated = await http.post(
        f"/v1/tournaments/{tournament_id}/adjudications", json={"game_id": game_id}, headers=bearer(organizer)
    )
    assert adjudicated.status_code == 200 and adjudicated.json()["adjudicated"], adjudicated.text


async def test_a_signed_in_creator_organizes_her_named_tournament_through_the_session(server: str) -> None:
    async with httpx.AsyncClient(base_url=server, timeout=30) as api:
        _, stranger = await account(api, "stranger")
        anonymous = await api.post("/v1/tournaments", json=named_tournament(["Ann", "Ben", "Cy"]))
        assert anonymous.status_code == 201, anonymous.text
        made_up = await api.post(
            "/v1/tournaments", json=named_tournament(["Ann", "Ben"]), headers=bearer("not-a-token")
        )
        assert made_up.status_code == 401 and made_up.json()["code"] == "unknown_token"
    async with httpx.AsyncClient(base_url=server, timeout=30) as browser:
        _, token = await account(browser, "creator")
        await browser.get("/")
        csrf = browser.cookies["csrftoken"]
        signed_in = await browser.post("/session", data={"token": token, "_csrf_token": csrf})
        assert signed_in.status_code == 303
        created = await browser.post(
            "/v1/tournaments", json=named_tournament(["Ann", "Ben", "Cy"]), headers={"X-CSRFToken": csrf}
        )
        assert created.status_code == 201, created.text
        tournament_id = created.json()["tournament_id"]

        forged = await browser.post(f"/v1/tournaments/{tournament_id}/withdrawals", json={"name": "Cy"})
        assert forged.status_code == 403 and forged.json()["code"] == "csrf_failed"
        withdrawn = await browser.post(
            f"/v1/tournaments/{tournament_id}/withdrawals", json={"name": "Cy"}, headers={"X-CSRFToken": csrf}
        )
        assert withdrawn.status_code == 200 and withdrawn.json()["withdrawn"] == ["Cy"], withdrawn.text
        entered = await browser.post(
            f"/v1/tournaments/{tournament_id}/entries", json={"name": "Dee"}, headers={"X-CSRFToken": csrf}
        )
        assert entered.status_code == 201 and entered.json()["name"] == "Dee", entered.text

        # the creator's account organizes only her own tournament; a stranger's account organizes none
        not_hers = await browser.post(
            f"/v1/tournaments/{anonymous.json()['tournament_id']}/terminate", headers={"X-CSRFToken": csrf}
        )
        assert not_hers.status_code == 403 and not_hers.json()["code"] == "not_organizer"
    async with httpx.AsyncClient(base_url=server, timeout=30) as api:
        refused = await api.post(f"/v1/tournaments/{tournament_id}/terminate", headers=bearer(stranger))
        assert refused.status_code == 403 and refused.json()["code"] == "not_organizer"
        overview = (await api.get(f"/v1/tournaments/{tournament_id}")).json()
        assert overview["status"] != "terminated" and overview["entered"] == ["Dee"]
