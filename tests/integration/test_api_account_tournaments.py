"""Tournaments of accounts over the API against a real PostgreSQL: the organizer invites, players accept,
decline or join an open tournament, the first round closes registration, every player acts in every game
with their own account token, and the games are rated."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from tests.support.accounts import account, bearer, refused, unlimited_client
from tests.support.client_play import play_existing

pytestmark = pytest.mark.db


@pytest.fixture(scope="module")
async def client(database_url: str) -> AsyncIterator[AsyncTestClient[Any]]:
    """The app wired to the test database (sign-up limit off: these tests sign up many accounts)."""
    async with unlimited_client(database_url) as test_client:
        yield test_client


async def test_a_tournament_of_accounts_end_to_end(client: AsyncTestClient[Any]) -> None:
    organizer_name, organizer_token = await account(client, "org")
    invited = [await account(client, "inv") for _ in range(4)]
    walk_in = await account(client, "walk")
    declining = invited[3]
    body = {
        "name": "Account cup",
        "game": "basari",
        "players": [{"account": "me"}] + [{"invite": name} for name, _token in invited],
        "rounds": 2,
        "open": True,
    }
    refused(await client.post("/v1/tournaments", json=body), 401, "token_required")
    created = await client.post("/v1/tournaments", json=body, headers=bearer(organizer_token))
    assert created.status_code == 201, created.text
    assert created.json()["registering"] is True and created.json()["players"] == []
    tid = created.json()["tournament_id"]
    organizer = bearer(created.json()["organizer_token"])
    refused(await client.get(f"/v1/tournaments/{tid}"), 409, "tournament_registering")

    for _name, token in invited[:3]:
        accepted = await client.post(f"/v1/tournaments/{tid}/join", headers=bearer(token))
        assert accepted.status_code == 200, accepted.text
    refused(
        await client.post(f"/v1/tournaments/{tid}/join", headers=bearer(invited[0][1])),
        409,
        "already_registered",
    )
    declined = await client.post(f"/v1/tournaments/{tid}/decline", headers=bearer(declining[1]))
    assert declined.status_code == 200
    assert (await client.post(f"/v1/tournaments/{tid}/join", headers=bearer(walk_in[1]))).status_code == 200
    registration = (await client.get(f"/v1/tournaments/{tid}/registration")).json()
    statuses = {entry["name"]: entry["status"] for entry in registration["entries"]}
    assert statuses[declining[0]] == "declined" and statuses[walk_in[0]] == "joined"
    assert registration["status"] == "registering" and registration["organizer"] == organizer_name
    players = {organizer_name: organizer_token, walk_in[0]: walk_in[1]} | {n: t for n, t in invited[:3]}

    # a player's account token cannot seat rounds (the organizer's account could: test_organizer_by_account);
    # the organizer's token seats round 1 and closes registration
    refused(
        await client.post(f"/v1/tournaments/{tid}/rounds", headers=bearer(walk_in[1])),
        403,
        "not_organizer",
    )
    first = await client.post(f"/v1/tournaments/{tid}/rounds", headers=organizer)
    assert first.status_code == 201, first.text
    assert sorted(s["name"] for t in first.json()["tables"] for s in t["seats"]) == sorted(players)
    refused(
        await client.post(f"/v1/tournaments/{tid}/join", headers=bearer(declining[1])),
        409,
        "registration_closed",
    )
    assert (await client.get(f"/v1/tournaments/{tid}/registration")).json()["status"] == "started"

    games_played = 0
    for seated in (first.json(), None):
        if seated is None:
            second = await client.post(f"/v1/tournaments/{tid}/rounds", headers=organizer)
            assert second.status_code == 201, second.text
            seated = second.json()
        for table in seated["tables"]:
            tokens = [players[seat["name"]] for seat in table["seats"]]
            for seat, token in enumerate(tokens):  # each player's own account token acts for its seat
                assert (await client.get(f"/v1/games/{table['game_id']}", headers=bearer(token))).json()[
                    "you"
                ] == seat
            await play_existing(client, table["game_id"], tokens, seed=table["game_id"])
            games_played += 1
    overview = (await client.get(f"/v1/tournaments/{tid}")).json()
    assert overview["status"] == "completed"
    results = (await client.get(f"/v1/tournaments/{tid}/results")).json()
    assert len(results) == games_played
    for row in results:
        assert (await client.get(f"/v1/games/{row['game_id']}/export")).json()["rated"] is True
    mine = (await client.get("/v1/me/games", headers=bearer(organizer_token))).json()["games"]
    assert {g["game_id"] for g in mine} <= {row["game_id"] for row in results}
    assert all(g["tournament"] in (tid, None) for g in mine)


async def test_a_closed_tournament_admits_only_invited_accounts(client: AsyncTestClient[Any]) -> None:
    _org, org_token = await account(client, "org")
    guest, guest_token = await account(client, "guest")
    _stranger, stranger_token = await account(client, "stranger")
    body = {
        "name": "Closed",
        "game": "johari",
        "players": [{"account": "me"}, {"invite": guest}],
        "rounds": 1,
    }
    tid = (await client.post("/v1/tournaments", json=body, headers=bearer(org_token))).json()["tournament_id"]
    refused(
        await client.post(f"/v1/tournaments/{tid}/join", headers=bearer(stranger_token)), 403, "not_invited"
    )
    refused(
        await client.post(f"/v1/tournaments/{tid}/leave", headers=bearer(guest_token)), 409, "not_registered"
    )
    assert (await client.post(f"/v1/tournaments/{tid}/join", headers=bearer(guest_token))).status_code == 200
    assert (await client.post(f"/v1/tournaments/{tid}/leave", headers=bearer(guest_token))).status_code == 200


@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({"players": [{"account": "me"}, {"name": "x"}]}, "bad_player"),
        ({"players": [{"open": True}]}, "bad_player"),
        ({"players": [{"invite": "nobody-" + "z" * 20}]}, "unknown_account"),
        ({"rounds": 0}, "bad_rounds"),
    ],
)
async def test_bad_account_tournaments_are_refused(
    client: AsyncTestClient[Any], changes: dict[str, Any], code: str
) -> None:
    _org, org_token = await account(client, "org")
    body = {"name": "Bad", "game": "basari", "players": [{"account": "me"}], "rounds": 1, **changes}
    refused(await client.post("/v1/tournaments", json=body, headers=bearer(org_token)), 422, code)


async def test_too_few_registrations_leave_registration_open(client: AsyncTestClient[Any]) -> None:
    _org, org_token = await account(client, "org")
    body = {"name": "Tiny", "game": "basari", "players": [{"account": "me"}], "rounds": 1, "open": True}
    created = (await client.post("/v1/tournaments", json=body, headers=bearer(org_token))).json()
    tid = created["tournament_id"]
    refused(
        await client.post(f"/v1/tournaments/{tid}/rounds", headers=bearer(created["organizer_token"])),
        422,
        "bad_player_count",
    )
    assert (await client.get(f"/v1/tournaments/{tid}/registration")).json()["status"] == "registering"


async def test_a_game_whose_tournament_seed_the_organizer_chose_shows_no_head_while_it_runs(
    client: AsyncTestClient[Any],
) -> None:
    """The organizer who chose the seed can derive each game's seed, hence its chain key, and would test
    guesses of a hidden pick against two heads in a row: such a game shows no head while it runs (a game of
    a tournament whose seed the server chose does)."""
    for seed, shown in (("organizer-knows-this", False), (None, True)):
        _organizer, organizer_token = await account(client, "headorg")
        body: dict[str, Any] = {
            "name": "Heads",
            "game": "basari",
            "players": [{"account": "me"}],
            "rounds": 1,
            "open": True,
        }
        if seed is not None:  # unrated: it may be untimed (a rated tournament is timed)
            body["seed"], body["untimed"] = seed, True
        created = await client.post("/v1/tournaments", json=body, headers=bearer(organizer_token))
        assert created.status_code == 201, created.text
        tournament = created.json()
        for _ in range(2):
            _name, token = await account(client, "headplayer")
            joined = await client.post(
                f"/v1/tournaments/{tournament['tournament_id']}/join", headers=bearer(token)
            )
            assert joined.status_code == 200, joined.text
        seated = await client.post(
            f"/v1/tournaments/{tournament['tournament_id']}/rounds",
            headers=bearer(tournament["organizer_token"]),
        )
        assert seated.status_code == 201, seated.text
        game_id = seated.json()["tables"][0]["game_id"]
        view = (await client.get(f"/v1/games/{game_id}")).json()
        assert view["status"] == "active" and (view["head"] is not None) is shown, (seed, view["head"])


async def organizer_against(
    client: AsyncTestClient[Any], opponent: str, organizer_token: str
) -> dict[str, Any]:
    """A rated one-round Bazaar tournament of the organizer and ``opponent`` (joined), its round seated."""
    body = {
        "name": "Own cup",
        "game": "bazaar",
        "players": [{"account": "me"}, {"invite": opponent}],
        "rounds": 1,
    }
    created = await client.post("/v1/tournaments", json=body, headers=bearer(organizer_token))
    assert created.status_code == 201, created.text
    return created.json()


@pytest.mark.parametrize("action", ["withdrawal", "adjudication"])
async def test_a_game_the_organizer_decides_moves_no_rating(
    client: AsyncTestClient[Any], action: str
) -> None:
    """docs/api.md "Ratings": an organizer who plays in his own rated tournament and withdraws his opponent
    (whose seat resigns: he wins) or adjudicates the game is not rated for it, nor is the opponent."""
    organizer_name, organizer_token = await account(client, "org")
    opponent_name, opponent_token = await account(client, "opp")
    created = await organizer_against(client, opponent_name, organizer_token)
    tid, organizer = created["tournament_id"], bearer(created["organizer_token"])
    joined = await client.post(f"/v1/tournaments/{tid}/join", headers=bearer(opponent_token))
    assert joined.status_code == 200, joined.text
    seated = await client.post(f"/v1/tournaments/{tid}/rounds", headers=organizer)
    assert seated.status_code == 201, seated.text
    (table,) = seated.json()["tables"]
    if action == "withdrawal":
        response = await client.post(
            f"/v1/tournaments/{tid}/withdrawals", json={"name": opponent_name}, headers=organizer
        )
    else:
        response = await client.post(
            f"/v1/tournaments/{tid}/adjudications", json={"game_id": table["game_id"]}, headers=organizer
        )
    assert response.status_code == 200, response.text
    game = (await client.get(f"/v1/games/{table['game_id']}")).json()
    assert game["status"] == "finished"
    assert (await client.get(f"/v1/games/{table['game_id']}/export")).json()["rated"] is True  # created rated
    for name in (organizer_name, opponent_name):
        assert (await client.get(f"/v1/players/{name}")).json()["ratings"] == []
    listed = {
        row["name"]
        for row in (await client.get("/v1/ratings/bazaar", params={"limit": 200})).json()["players"]
    }
    assert organizer_name not in listed and opponent_name not in listed
