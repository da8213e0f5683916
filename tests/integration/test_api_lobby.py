"""The lobby over the API against a real PostgreSQL: seats open, invited and taken by the creator, joins,
leaves, declines, the start on the last seat, account tokens acting for their seats, the lobby listing,
and rated play that cannot be forged (one person playing every seat of a rated game refused at each step)."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import time
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from litestar.testing import AsyncTestClient

from service.games.clocks import RATED_FIRST_GRACE_SECONDS
from tests.support.accounts import account, bearer, refused, unlimited_client
from tests.support.client_play import create_game, play_existing

pytestmark = pytest.mark.db


@pytest.fixture(scope="module")
async def client(database_url: str) -> AsyncIterator[AsyncTestClient[Any]]:
    """The app wired to the test database (sign-up limit off: these tests sign up many accounts)."""
    async with unlimited_client(database_url) as test_client:
        yield test_client


async def create(client: AsyncTestClient[Any], token: str | None, body: dict[str, Any]) -> Any:
    """POST /v1/games with the creator's token."""
    return await client.post("/v1/games", json=body, headers=bearer(token) if token else {})


async def test_a_game_with_an_open_seat_and_an_invitation_starts_when_the_last_seat_is_filled(
    client: AsyncTestClient[Any],
) -> None:
    host, host_token = await account(client, "host")
    guest, guest_token = await account(client, "guest")
    stranger, stranger_token = await account(client, "stranger")
    body = {
        "game": "basari",
        "players": [{"account": "me"}, {"invite": guest}, {"open": True}],
        "rated": True,
    }
    created = await create(client, host_token, body)
    assert created.status_code == 201, created.text
    game = created.json()
    game_id = game["game_id"]
    assert game["status"] == "waiting" and game["version"] == 0
    assert created.headers["location"] == f"/v1/lobby/{game_id}"
    assert [(s["name"], s["token"]) for s in game["seats"]] == [(host, None), (None, None), (None, None)]
    assert game["seats"][1]["invited"] == guest and game["seats"][2]["open"]
    refused(await client.get(f"/v1/games/{game_id}"), 409, "game_not_started")
    listed = (await client.get("/v1/lobby", params={"game": "basari", "rated": "true", "limit": 200})).json()
    assert game_id in [g["game_id"] for g in listed["games"]]
    # the stranger cannot take the invited seat; the guest's invitation shows in their games
    refused(
        await client.post(f"/v1/games/{game_id}/join", json={"seat": 1}, headers=bearer(stranger_token)),
        403,
        "seat_reserved",
    )
    mine = (await client.get("/v1/me/games", headers=bearer(guest_token))).json()["games"]
    assert [(g["game_id"], g["invited"], g["status"]) for g in mine] == [(game_id, True, "waiting")]
    joined = await client.post(f"/v1/games/{game_id}/join", headers=bearer(stranger_token))
    assert joined.status_code == 200 and joined.json()["status"] == "waiting"
    refused(
        await client.post(f"/v1/games/{game_id}/join", headers=bearer(stranger_token)), 409, "already_seated"
    )
    last = await client.post(
        f"/v1/games/{game_id}/join", json={"entropy": "guest dice"}, headers=bearer(guest_token)
    )
    assert last.status_code == 200 and last.json()["status"] == "started"
    assert [s["name"] for s in last.json()["seats"]] == [host, guest, stranger]
    # started: each account's own token acts for its seat, and sees that seat
    for seat, token in enumerate((host_token, guest_token, stranger_token)):
        detail = (await client.get(f"/v1/games/{game_id}", headers=bearer(token))).json()
        assert detail["you"] == seat and detail["legal"]
    assert [s["name"] for s in (await client.get(f"/v1/games/{game_id}")).json()["seats"]] == [
        host,
        guest,
        stranger,
    ]
    refused(await client.post(f"/v1/games/{game_id}/leave", headers=bearer(guest_token)), 409, "game_started")
    outsider = (await account(client))[1]
    refused(await client.get(f"/v1/games/{game_id}", headers=bearer(outsider)), 403, "not_a_seat_token")
    final = await play_existing(client, game_id, [host_token, guest_token, stranger_token], seed="lobby")
    assert final["status"] == "finished"
    audit = (await client.get(f"/v1/games/{game_id}/audit")).json()
    assert audit["ok"], audit


async def test_declining_an_invitation_cancels_the_game(client: AsyncTestClient[Any]) -> None:
    _host, host_token = await account(client, "host")
    guest, guest_token = await account(client, "guest")
    _other, other_token = await account(client)
    body = {"game": "johari", "players": [{"account": "me"}, {"invite": guest}]}
    game_id = (await create(client, host_token, body)).json()["game_id"]
    refused(
        await client.post(f"/v1/games/{game_id}/decline", headers=bearer(other_token)), 409, "not_invited"
    )
    declined = await client.post(f"/v1/games/{game_id}/decline", headers=bearer(guest_token))
    assert declined.status_code == 200 and declined.json()["status"] == "cancelled"
    refused(
        await client.post(f"/v1/games/{game_id}/join", headers=bearer(guest_token)), 409, "game_cancelled"
    )
    refused(await client.get(f"/v1/games/{game_id}"), 409, "game_cancelled")
    listed = (await client.get("/v1/lobby", params={"limit": 200})).json()["games"]
    assert game_id not in [g["game_id"] for g in listed]


async def test_leaving_opens_the_seat_and_the_creator_leaving_cancels(client: AsyncTestClient[Any]) -> None:
    _host, host_token = await account(client, "host")
    _a, a_token = await account(client)
    body = {"game": "basari", "players": [{"account": "me"}, {"open": True}, {"open": True}]}
    game_id = (await create(client, host_token, body)).json()["game_id"]
    taken = await client.post(f"/v1/games/{game_id}/join", json={"seat": 2}, headers=bearer(a_token))
    assert [s["status"] for s in taken.json()["seats"]] == ["taken", "open", "taken"]
    left = await client.post(f"/v1/games/{game_id}/leave", headers=bearer(a_token))
    assert [s["status"] for s in left.json()["seats"]] == ["taken", "open", "open"]
    refused(await client.post(f"/v1/games/{game_id}/leave", headers=bearer(a_token)), 409, "not_seated")
    cancelled = await client.post(f"/v1/games/{game_id}/leave", headers=bearer(host_token))
    assert cancelled.json()["status"] == "cancelled"


async def test_joins_racing_for_the_last_seat_give_it_to_exactly_one(client: AsyncTestClient[Any]) -> None:
    _host, host_token = await account(client, "host")
    racers = [await account(client, "racer") for _ in range(6)]
    body = {"game": "johari", "players": [{"account": "me"}, {"open": True}]}
    game_id = (await create(client, host_token, body)).json()["game_id"]
    answers = await asyncio.gather(
        *(client.post(f"/v1/games/{game_id}/join", headers=bearer(token)) for _name, token in racers)
    )
    statuses = sorted(a.status_code for a in answers)
    assert statuses == [200] + [409] * 5, [a.text for a in answers]
    winner = next(racers[i][0] for i, a in enumerate(answers) if a.status_code == 200)
    game = (await client.get(f"/v1/games/{game_id}")).json()
    assert [s["name"] for s in game["seats"]][1] == winner and game["version"] > 0


async def test_lobby_filters_by_game_options_and_rated_and_pages(client: AsyncTestClient[Any]) -> None:
    _host, token = await account(client, "host")
    ids = []
    for _ in range(3):
        body = {
            "game": "bazaar",
            "players": [{"account": "me"}, {"open": True}],
            "options": {"double_purchase": True},
        }
        created = await create(client, token, body)
        assert created.status_code == 201, created.text
        ids.append(created.json()["game_id"])
    seen: list[str] = []
    cursor = None
    while True:
        params: dict[str, Any] = {
            "game": "bazaar",
            "options": json.dumps({"double_purchase": True}),
            "limit": 2,
        }
        if cursor:
            params["cursor"] = cursor
        page = (await client.get("/v1/lobby", params=params)).json()
        assert all(g["game"] == "bazaar" and g["options"]["double_purchase"] for g in page["games"])
        seen += [g["game_id"] for g in page["games"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert set(ids) <= set(seen) and len(seen) == len(set(seen))
    assert not [
        g
        for g in (await client.get("/v1/lobby", params={"rated": "true"})).json()["games"]
        if g["game_id"] in ids
    ]
    refused(await client.get("/v1/lobby", params={"options": "[1]"}), 400, "bad_options_filter")
    nested = '{"double_purchase": [true]}'  # no game's option is nested
    refused(await client.get("/v1/lobby", params={"options": nested}), 400, "bad_options_filter")
    refused(await client.get("/v1/lobby", params={"cursor": "nonsense"}), 400, "bad_cursor")


async def test_the_forged_rating_attack_is_refused_at_each_step(client: AsyncTestClient[Any]) -> None:
    """A rated game naming the leader, with a chosen seed, played on every seat by one person."""
    leader, leader_token = await account(client, "leader")
    _attacker, attacker_token = await account(client, "attacker")
    # 1. seats as free-text names (the attacker would hold every token): not rated
    hotseat = {"game": "basari", "players": [{"name": leader}, {"name": "b"}, {"name": "c"}], "rated": True}
    refused(await create(client, None, hotseat), 422, "rated_needs_accounts")
    refused(await create(client, attacker_token, hotseat), 422, "rated_needs_accounts")
    # 2. a seed of the attacker's choosing: not rated
    seeded = {
        "game": "basari",
        "players": [{"account": "me"}, {"invite": leader}, {"open": True}],
        "seed": "chosen",
        "rated": True,
    }
    refused(await create(client, attacker_token, seeded), 422, "rated_seed_chosen")
    # 3. the leader's name cannot be taken by another account, in any case or width
    refused(await client.post("/v1/accounts", json={"name": leader.upper()}), 409, "name_taken")
    # 4. the leader's seat is theirs alone: the attacker's token cannot take it or act for it
    fair = {
        "game": "basari",
        "players": [{"account": "me"}, {"invite": leader}, {"open": True}],
        "rated": True,
    }
    game_id = (await create(client, attacker_token, fair)).json()["game_id"]
    _puppet, puppet_token = await account(client, "puppet")
    refused(
        await client.post(f"/v1/games/{game_id}/join", json={"seat": 1}, headers=bearer(puppet_token)),
        403,
        "seat_reserved",
    )
    refused(
        await client.post(f"/v1/games/{game_id}/join", headers=bearer(attacker_token)), 409, "already_seated"
    )
    # 5. a one-player game is never rated
    solo = {"game": "bazaar", "players": [{"account": "me"}], "rated": True}
    refused(await create(client, attacker_token, solo), 422, "rated_needs_opponents")
    # the leader declines: nothing is played, nothing is rated
    assert (
        await client.post(f"/v1/games/{game_id}/decline", headers=bearer(leader_token))
    ).status_code == 200


async def test_hot_seat_games_stay_available_and_unrated(client: AsyncTestClient[Any]) -> None:
    body = {"game": "basari", "players": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}
    created = await create(client, None, body)
    assert created.status_code == 201 and created.json()["status"] == "active"
    assert all(seat["token"] for seat in created.json()["seats"])
    export_like = (await client.get(f"/v1/games/{created.json()['game_id']}")).json()
    assert export_like["version"] > 0


async def test_a_creator_seat_with_hot_seat_seats_starts_at_once(client: AsyncTestClient[Any]) -> None:
    host, token = await account(client, "host")
    body = {"game": "basari", "players": [{"account": "me"}, {"name": "b"}, {"name": "c"}]}
    created = await create(client, token, body)
    assert created.status_code == 201, created.text
    game = created.json()
    assert game["status"] == "active" and game["version"] > 0
    assert [s["token"] is not None for s in game["seats"]] == [False, True, True]
    detail = (await client.get(f"/v1/games/{game['game_id']}", headers=bearer(token))).json()
    assert detail["you"] == 0 and detail["seats"][0]["name"] == host


@pytest.mark.parametrize(
    ("token_needed", "body", "status", "code"),
    [
        (False, {"players": [{"account": "me"}, {"open": True}]}, 401, "token_required"),
        (True, {"players": [{"account": "you"}, {"open": True}]}, 422, "bad_seat"),
        (True, {"players": [{"account": "me", "open": True}, {"open": True}]}, 422, "bad_seat"),
        (True, {"players": [{}, {"open": True}]}, 422, "bad_seat"),
        (True, {"players": [{"account": "me"}, {"account": "me"}]}, 422, "duplicate_account"),
        (True, {"players": [{"account": "me"}, {"invite": "nobody-" + "x" * 20}]}, 422, "unknown_account"),
        (True, {"players": [{"account": "me"}, {"open": True}], "entropy": "x" * 129}, 400, "bad_entropy"),
        (True, {"players": [{"account": "me"}] + [{"open": True}] * 9}, 422, None),  # too many seats
    ],
)
async def test_bad_lobby_bodies_are_refused_and_create_nothing(
    client: AsyncTestClient[Any], token_needed: bool, body: dict[str, Any], status: int, code: str | None
) -> None:
    _name, token = await account(client)
    response = await create(client, token if token_needed else None, {"game": "johari", **body})
    assert response.status_code == status, response.text
    if code is not None:
        assert response.json()["code"] == code
    assert (await client.get("/v1/me/games", headers=bearer(token))).json()["games"] == []


async def test_an_account_page_shows_games_and_ratings(client: AsyncTestClient[Any]) -> None:
    name, token = await account(client, "paged")
    page = await client.get(f"/v1/players/{name.upper()}")
    assert page.status_code == 200 and page.json() == {
        "name": name,
        "kind": "human",
        "ratings": [],
        "games": [],
    }
    await create(client, token, {"game": "johari", "players": [{"account": "me"}, {"open": True}]})
    games = (await client.get(f"/v1/players/{name}")).json()["games"]
    assert [g["status"] for g in games] == ["waiting"]
    refused(await client.get("/v1/players/nobody-at-all-here"), 404, "player_not_found")


async def test_an_account_name_matches_its_own_seats_not_hot_seat_namesakes(
    client: AsyncTestClient[Any],
) -> None:
    """Listings by player follow the account, so strangers who typed the same name into a hot-seat game do
    not merge into its history; a name no account holds still finds the hot-seat seats of that name."""
    name, token = await account(client, "max")
    body = {"game": "basari", "players": [{"name": "x"}, {"account": "me"}, {"name": "y"}]}
    own = await create(client, token, body)
    assert own.status_code == 201, own.text
    namesake = f"hot-{name}"  # a hot-seat name no account holds
    # (one game may not seat names that differ only in case: they look alike, domain/names.py)
    body = {"game": "basari", "players": [{"name": name.upper()}, {"name": "z"}, {"name": namesake}]}
    hot = await create(client, None, body)
    assert hot.status_code == 201, hot.text
    body = {"game": "basari", "players": [{"name": name}, {"name": "x"}, {"name": "y"}]}
    assert (await create(client, None, body)).status_code == 201
    own_id, hot_id = own.json()["game_id"], hot.json()["game_id"]
    for path in (f"/v1/players/{name}/games", f"/v1/players/{name.upper()}/games"):
        games = (await client.get(path)).json()["games"]
        assert [(g["game_id"], g["seat"]) for g in games] == [(own_id, 1)], path
    listed = (await client.get("/v1/games", params={"player": name, "limit": 200})).json()["games"]
    assert [g["game_id"] for g in listed] == [own_id]
    hot_seat = (await client.get(f"/v1/players/{namesake}/games")).json()["games"]
    assert [(g["game_id"], g["seat"]) for g in hot_seat] == [(hot_id, 2)]


async def test_knowing_the_seed_one_chose_forges_no_stream_ticket_for_another_accounts_seat(
    client: AsyncTestClient[Any],
) -> None:
    """A lobby game whose creator chose the seed: the creator knows it, so a stream ticket keyed by the seed
    alone (an account's seat has no token hash) could be forged to watch an opponent's hidden pick live.
    Tickets are keyed by a secret of the service too: a forged one is 401, an issued one still opens."""
    _host, host_token = await account(client, "seedhost")
    guest, guest_token = await account(client, "seedguest")
    _third, third_token = await account(client, "seedthird")
    seed = "the-creator-knows-this-seed"
    body = {"game": "basari", "seed": seed, "players": [{"account": "me"}, {"invite": guest}, {"open": True}]}
    game_id = (await create(client, host_token, body)).json()["game_id"]
    for token in (guest_token, third_token):
        assert (await client.post(f"/v1/games/{game_id}/join", headers=bearer(token))).status_code == 200
    picked = await client.post(
        f"/v1/games/{game_id}/commands",
        json={"type": "choose_action", "action": "C"},
        headers=bearer(guest_token),
    )
    assert picked.status_code == 200, picked.text
    expires = int(time.time()) + 30
    key = hashlib.sha256(f"stream-ticket\x00{seed}\x00".encode()).digest()
    mac = hmac.new(key, f"{game_id}\x00{1}\x00{expires}".encode(), hashlib.sha256).hexdigest()
    forged = await client.get(f"/v1/games/{game_id}/stream", params={"ticket": f"1.{expires}.{mac}"})
    refused(forged, 401, "bad_stream_ticket")
    issued = await client.post(f"/v1/games/{game_id}/stream-ticket", headers=bearer(guest_token))
    assert issued.status_code == 201 and issued.json()["seat"] == 1, issued.text
    opened = await client.head(f"/v1/games/{game_id}/stream", params={"ticket": issued.json()["ticket"]})
    assert opened.status_code == 200, opened.text


async def test_a_stream_ticket_opens_streams_only_where_the_signing_key_that_keyed_it_is(
    client: AsyncTestClient[Any], database_url: str
) -> None:
    """Each app keys its stream tickets with a secret derived from its own signing key, not one shared by
    the process: two apps in one process with different keys refuse each other's tickets, each accepts its
    own."""
    pem = Ed25519PrivateKey.generate().private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    async with unlimited_client(database_url, signing_key=pem.decode()) as other:
        created = await create_game(client, "johari", 2)  # type: ignore[arg-type]
        game_id, token = created["game_id"], created["seats"][1]["token"]
        for issuer, checker in ((client, other), (other, client)):
            issued = await issuer.post(f"/v1/games/{game_id}/stream-ticket", headers=bearer(token))
            assert issued.status_code == 201, issued.text
            ticket = {"ticket": issued.json()["ticket"]}
            # HEAD: a stream wrongly opened answers at once instead of streaming
            foreign = await checker.head(f"/v1/games/{game_id}/stream", params=ticket)
            assert foreign.status_code == 401, foreign.headers
            opened = await issuer.head(f"/v1/games/{game_id}/stream", params=ticket)
            assert opened.status_code == 200, opened.text


async def test_a_game_whose_seed_a_client_chose_shows_no_head_while_it_runs(
    client: AsyncTestClient[Any],
) -> None:
    """The chain is keyed with the seed: whoever chose it could test each guess of a hidden pick against two
    heads in a row (three guesses for a Basari action). Such a game shows its head once it is over only."""
    _host, host_token = await account(client, "headhost")
    guest, guest_token = await account(client, "headguest")
    _third, third_token = await account(client, "headthird")
    seed = "another-seed-the-creator-knows"
    body = {"game": "basari", "seed": seed, "players": [{"account": "me"}, {"invite": guest}, {"open": True}]}
    game_id = (await create(client, host_token, body)).json()["game_id"]
    for token in (guest_token, third_token):
        assert (await client.post(f"/v1/games/{game_id}/join", headers=bearer(token))).status_code == 200
    pick = {"type": "choose_action", "action": "B"}
    assert (
        await client.post(f"/v1/games/{game_id}/commands", json=pick, headers=bearer(guest_token))
    ).is_success
    for token in (None, host_token, guest_token):
        view = (await client.get(f"/v1/games/{game_id}", headers=bearer(token) if token else {})).json()
        assert view["seed_chosen"] is True and view["head"] is None, view["head"]
    for token in (host_token, third_token):  # two of three resign: the game is over
        resigned = await client.post(
            f"/v1/games/{game_id}/commands", json={"type": "resign"}, headers=bearer(token)
        )
        assert resigned.status_code == 200, resigned.text
    finished = (await client.get(f"/v1/games/{game_id}")).json()
    assert finished["status"] == "finished" and finished["head"]["version"] == finished["version"], finished


async def test_the_lobby_shows_a_chosen_seed_before_anybody_joins(client: AsyncTestClient[Any]) -> None:
    """A join that fills the game cannot be undone, so whether the creator chose the seed (and may know the
    deal) is shown in the listing and the lobby detail from creation, not only in the started game."""
    _host, host_token = await account(client, "choosehost")
    chosen = {"game": "bazaar", "seed": "the-creator-knows", "players": [{"account": "me"}, {"open": True}]}
    drawn = {"game": "bazaar", "players": [{"account": "me"}, {"open": True}]}
    chosen_id = (await create(client, host_token, chosen)).json()["game_id"]
    drawn_id = (await create(client, host_token, drawn)).json()["game_id"]
    for game_id, expected in ((chosen_id, True), (drawn_id, False)):
        assert (await client.get(f"/v1/lobby/{game_id}")).json()["seed_chosen"] is expected
    listed = {g["game_id"]: g for g in (await client.get("/v1/lobby?limit=200")).json()["games"]}
    assert listed[chosen_id]["seed_chosen"] is True and listed[drawn_id]["seed_chosen"] is False


async def test_invitations_past_the_invitee_bound_are_429_problems(client: AsyncTestClient[Any]) -> None:
    """INVITATIONS_PER_INVITEE (10 by default): the eleventh open invitation of one account is 429
    problem+json ``invitee_has_too_many_invitations`` with Retry-After, and creates nothing."""
    invitee, _ = await account(client, "invitee")
    _, host = await account(client, "host")
    body = {"game": "johari", "players": [{"account": "me"}, {"invite": invitee}]}
    for _ in range(10):
        assert (await create(client, host, body)).status_code == 201
    mine = (await client.get("/v1/me/games?limit=200", headers=bearer(host))).json()["games"]
    answer = await create(client, host, body)
    refused(answer, 429, "invitee_has_too_many_invitations")
    assert int(answer.headers["retry-after"]) > 0
    assert (await client.get("/v1/me/games?limit=200", headers=bearer(host))).json()["games"] == mine


async def test_a_rated_game_shows_its_clock_to_the_joiner_and_has_a_floor_and_a_grace(
    client: AsyncTestClient[Any],
) -> None:
    """docs/api.md "Clocks and timeouts": a rated game cannot hide a one-second clock. Under the rated floor
    it is refused; without a clock it gets the default one; the lobby, the invitation and the invitee's
    games show the clock before the join, and each seat's first decision has a grace."""
    _host_name, host = await account(client, "clockhost")
    guest_name, guest = await account(client, "clockguest")
    trap = {"decision_seconds": 1, "bank_seconds": 0, "max_timeouts": 1}
    body = {"game": "bazaar", "players": [{"account": "me"}, {"invite": guest_name}], "rated": True}
    refused(await create(client, host, {**body, "clock": trap}), 422, "rated_clock_too_short")

    created = await create(client, host, body)
    assert created.status_code == 201, created.text
    game_id = created.json()["game_id"]
    default = {"decision_seconds": 60, "bank_seconds": 600, "days_per_decision": None, "max_timeouts": 3}
    assert (await client.get(f"/v1/lobby/{game_id}")).json()["clock"] == default
    listed = (await client.get("/v1/lobby", params={"game": "bazaar", "limit": 200})).json()["games"]
    assert next(g for g in listed if g["game_id"] == game_id)["clock"] == default
    invited = (await client.get("/v1/me/games", headers=bearer(guest))).json()["games"]
    assert next(g for g in invited if g["game_id"] == game_id)["clock"] == default

    joined = await client.post(f"/v1/games/{game_id}/join", headers=bearer(guest))
    assert joined.json()["status"] == "started", joined.text
    detail = (await client.get(f"/v1/games/{game_id}", headers=bearer(host))).json()
    (due,) = [seat for seat in detail["clock"]["seats"] if seat["due_at"] is not None]
    started, deadline = (datetime.fromisoformat(due[k]) for k in ("due_at", "deadline"))
    assert (deadline - started).total_seconds() == 60 + 600 + RATED_FIRST_GRACE_SECONDS


async def test_a_rated_tournament_is_timed_and_its_registration_shows_the_clock(
    client: AsyncTestClient[Any],
) -> None:
    _organizer, token = await account(client, "clockorg")
    body: dict[str, Any] = {"name": "Timed", "game": "basari", "players": [{"account": "me"}], "rounds": 1}
    refused(
        await client.post("/v1/tournaments", json={**body, "untimed": True}, headers=bearer(token)),
        422,
        "rated_needs_clock",
    )
    trap = {"decision_seconds": 1, "max_timeouts": 1}
    refused(
        await client.post("/v1/tournaments", json={**body, "clock": trap}, headers=bearer(token)),
        422,
        "rated_clock_too_short",
    )
    created = await client.post(
        "/v1/tournaments", json={**body, "clock": {"decision_seconds": 10}}, headers=bearer(token)
    )
    assert created.status_code == 201, created.text
    registration = await client.get(f"/v1/tournaments/{created.json()['tournament_id']}/registration")
    assert registration.json()["clock"]["decision_seconds"] == 10
