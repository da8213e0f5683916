"""Tournament administration over the API: withdraw, late entry, byes, terminate, adjudicate, with the
organizer token, against the real app and PostgreSQL."""

from __future__ import annotations

import csv
import dataclasses
import io
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest
from litestar.testing import AsyncTestClient

from api.app import create_app
from domain.registry import all_games
from domain.tournament import TOURNAMENT, RoundSeated, SeatNextRound, seating_rng
from eventstore import PostgresEventStore, PostgresKeyStore, PostgresTournamentKeyStore
from service.games.service import GameService
from service.runtime.settings import Settings
from service.runtime.streams import new_event
from service.tournaments.tournaments import TournamentService
from tests.integration.test_api_tournaments import NAMES, assert_problem, bearer, create, tournament_body
from tests.support.client_play import play_existing

pytestmark = pytest.mark.db


@pytest.fixture(scope="module")
async def client(database_url: str) -> AsyncIterator[AsyncTestClient[Any]]:
    """The app wired to the test database, lifespan included."""
    settings = dataclasses.replace(Settings.from_env(), database_url=database_url, max_body_bytes=16_384)
    async with AsyncTestClient(app=create_app(settings)) as test_client:
        yield test_client


class Organizer:
    """A created tournament and its organizer's requests."""

    def __init__(self, client: AsyncTestClient[Any], created: dict[str, Any]) -> None:
        self.client = client
        self.tid = created["tournament_id"]
        self.auth = bearer(created["organizer_token"])
        self.tokens: dict[str, str] = {p["name"]: p["token"] for p in created["players"]}

    async def post(self, action: str, body: dict[str, Any] | None = None) -> Any:
        """POST /v1/tournaments/{id}/{action} with the organizer token."""
        return await self.client.post(f"/v1/tournaments/{self.tid}/{action}", json=body, headers=self.auth)

    async def seat(self) -> dict[str, Any]:
        """Seat the next round (asserting 201)."""
        response = await self.post("rounds")
        assert response.status_code == 201, response.text
        seated: dict[str, Any] = response.json()
        return seated

    async def get(self, what: str = "") -> Any:
        """GET the tournament (or its standings/results) as JSON."""
        return (await self.client.get(f"/v1/tournaments/{self.tid}{what}")).json()

    async def play(self, table: dict[str, Any]) -> dict[str, Any]:
        """Play a table's game to its end with the players' tokens (a withdrawn seat is the stand-in's)."""
        seat_tokens = [self.tokens.get(seat["name"], "") for seat in table["seats"]]
        return await play_existing(self.client, table["game_id"], seat_tokens, seed=table["game_id"])


async def organizer(client: AsyncTestClient[Any], **changes: Any) -> Organizer:
    """A new tournament (six Basari players, two rounds at tables of three unless changed)."""
    return Organizer(client, await create(client, **changes))


@pytest.mark.parametrize(
    ("action", "body"),
    [
        ("withdrawals", {"name": "Ada"}),
        ("entries", {"name": "Gus"}),
        ("terminate", None),
        ("adjudications", {"game_id": "whatever"}),
    ],
)
async def test_administration_needs_the_organizer_token_and_changes_nothing_without_it(
    client: AsyncTestClient[Any], action: str, body: dict[str, Any] | None
) -> None:
    mine = await organizer(client)
    other = await organizer(client)
    path = f"/v1/tournaments/{mine.tid}/{action}"
    before = await mine.get()
    assert_problem(await client.post(path, json=body), 401, "token_required")
    assert_problem(await client.post(path, json=body, headers=other.auth), 403, "not_organizer")
    assert_problem(
        await client.post(path, json=body, headers=bearer(mine.tokens["Ada"])), 403, "not_organizer"
    )
    assert await mine.get() == before


async def test_malformed_administration_bodies_are_400(client: AsyncTestClient[Any]) -> None:
    mine = await organizer(client)
    assert_problem(await mine.post("withdrawals", {"nom": "Ada"}), 400)
    assert_problem(await mine.post("entries", {}), 400)
    assert_problem(await mine.post("adjudications", {"game_id": 3}), 400)


async def test_a_withdrawn_player_is_resigned_in_their_running_game_and_skipped_after(
    client: AsyncTestClient[Any],
) -> None:
    mine = await organizer(client, seed="withdrawal")
    first = await mine.seat()
    table = first["tables"][0]
    leaver = table["seats"][1]["name"]

    response = await mine.post("withdrawals", {"name": leaver})
    assert response.status_code == 200, response.text
    assert response.json()["withdrawn"] == [leaver]
    # their seat resigned in the running game: a stand-in plays it, it is never theirs to play again
    events = (await client.get(f"/v1/games/{table['game_id']}/events")).json()["events"]
    assert {"type": "seat_resigned", "seat": 1} in [
        {"type": e["type"], **({"seat": e["data"]["seat"]} if e["type"] == "seat_resigned" else {})}
        for e in events
    ]
    mine_view = (
        await client.get(f"/v1/games/{table['game_id']}", headers=bearer(mine.tokens[leaver]))
    ).json()
    assert mine_view["legal"] == []

    assert_problem(await mine.post("withdrawals", {"name": leaver}), 409, "already_withdrawn")
    assert_problem(await mine.post("withdrawals", {"name": "Nobody"}), 422, "unknown_player")

    for seated in first["tables"]:
        final = await mine.play(seated)
        assert final["status"] == "finished"
    results = await mine.get("/results")
    resigned_row = next(r for r in results if r["game_id"] == table["game_id"])
    # ranked below every seat that did not resign
    assert next(s["rank"] for s in resigned_row["seats"] if s["name"] == leaver) == 3

    second = await mine.seat()  # five left: one table of five
    assert [len(t["seats"]) for t in second["tables"]] == [5]
    assert leaver not in {s["name"] for t in second["tables"] for s in t["seats"]}
    standings = await mine.get("/standings")
    assert [r["name"] for r in standings if r["withdrawn"]] == [leaver]
    assert next(r for r in standings if r["name"] == leaver)["games"] == 1


async def test_a_late_entry_gets_a_token_that_plays_their_seat_from_the_next_round(
    client: AsyncTestClient[Any],
) -> None:
    mine = await organizer(client, seed="late-entry", players=[{"name": n} for n in NAMES[:5]])
    first = await mine.seat()
    response = await mine.post("entries", {"name": " Gus "})
    assert response.status_code == 201, response.text
    entry = response.json()
    assert entry["name"] == "Gus" and len(entry["token"]) > 30
    mine.tokens["Gus"] = entry["token"]
    overview = await mine.get()
    assert overview["players"][-1] == "Gus" and overview["entered"] == ["Gus"]
    assert "Gus" not in {s["name"] for t in first["tables"] for s in t["seats"]}
    assert_problem(await mine.post("entries", {"name": "Gus"}), 422, "duplicate_player_name")
    assert_problem(await mine.post("entries", {"name": ""}), 422, "bad_player_name")

    for table in first["tables"]:
        await mine.play(table)
    second = await mine.seat()  # six now: two tables of three
    assert [len(t["seats"]) for t in second["tables"]] == [3, 3]
    table = next(t for t in second["tables"] if "Gus" in {s["name"] for s in t["seats"]})
    seat = next(s["seat"] for s in table["seats"] if s["name"] == "Gus")
    view = (await client.get(f"/v1/games/{table['game_id']}", headers=bearer(entry["token"]))).json()
    assert view["you"] == seat
    assert_problem(await mine.post("entries", {"name": "Hal"}), 409, "no_rounds_left")
    row = next(r for r in await mine.get("/standings") if r["name"] == "Gus")
    assert row["games"] == 0  # nothing for the round missed; the second still runs


async def test_byes_when_the_active_players_cannot_be_seated(client: AsyncTestClient[Any]) -> None:
    eight = [{"name": f"E{i}"} for i in range(8)]
    mine = await organizer(client, seed="byes", players=eight, table_size=4, duplicate=True, rounds=3)
    assert (await mine.post("withdrawals", {"name": "E7"})).status_code == 200
    seated = await mine.seat()  # seven cannot sit at equal tables of 3-5: six at two tables of 3, one bye
    assert [len(t["seats"]) for t in seated["tables"]] == [3, 3]
    (bye,) = seated["byes"]
    overview = await mine.get()
    assert overview["schedule"][0]["byes"] == [bye]
    standings = await mine.get("/standings")
    row = next(r for r in standings if r["name"] == bye)
    assert (row["points"], row["games"], row["byes"]) == (1.0, 0, 1)  # half of a table of 3's 2 points
    response = await client.get(f"/v1/tournaments/{mine.tid}/standings", headers={"Accept": "text/csv"})
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert list(rows[0]) == [
        "rank",
        "name",
        "points",
        "buchholz",
        "firsts",
        "games",
        "byes",
        "withdrawn",
        "relative_score",
    ]
    assert {r["name"]: (r["byes"], r["withdrawn"]) for r in rows}[bye] == ("1", "false")
    assert {r["name"]: r["withdrawn"] for r in rows}["E7"] == "true"


async def test_termination_freezes_the_standings_and_refuses_what_follows(
    client: AsyncTestClient[Any],
) -> None:
    mine = await organizer(client, seed="terminate")
    first = await mine.seat()
    await mine.play(first["tables"][0])
    standings = await mine.get("/standings")
    response = await mine.post("terminate")
    assert response.status_code == 200, response.text
    assert response.json()["status"] == "terminated"
    assert_problem(await mine.post("terminate"), 409, "tournament_terminated")
    assert_problem(await mine.post("rounds"), 409, "tournament_terminated")
    assert_problem(await mine.post("withdrawals", {"name": "Ada"}), 409, "tournament_terminated")
    assert_problem(await mine.post("entries", {"name": "Gus"}), 409, "tournament_terminated")
    # a game finishing afterwards no longer counts
    await mine.play(first["tables"][1])
    assert await mine.get("/standings") == standings
    assert len(await mine.get("/results")) == 1
    assert (await mine.get())["status"] == "terminated"


async def test_adjudication_records_the_current_standing_and_closes_the_round(
    client: AsyncTestClient[Any],
) -> None:
    mine = await organizer(client, seed="adjudicate")
    first = await mine.seat()
    played, stuck = first["tables"]
    await mine.play(played)
    assert_problem(
        await mine.post("adjudications", {"game_id": played["game_id"]}), 409, "game_already_decided"
    )
    assert_problem(await mine.post("adjudications", {"game_id": "not-a-game"}), 422, "wrong_game")

    # a seat can neither adjudicate nor pass for the organizer's action
    path, seat_token = (
        f"/v1/games/{stuck['game_id']}/commands",
        bearer(mine.tokens[stuck["seats"][0]["name"]]),
    )
    assert_problem(
        await client.post(path, json={"type": "adjudicate"}, headers=seat_token), 400, "service_command"
    )
    keyed = {**seat_token, "Idempotency-Key": f"organizer-withdrawn-{mine.tid}"}
    assert_problem(
        await client.post(path, json={"type": "resign"}, headers=keyed), 400, "bad_idempotency_key"
    )

    response = await mine.post("adjudications", {"game_id": stuck["game_id"]})
    assert response.status_code == 200, response.text
    row = response.json()
    assert row["adjudicated"] is True and row["game_id"] == stuck["game_id"]
    game = (await client.get(f"/v1/games/{stuck['game_id']}")).json()
    assert game["status"] == "finished" and game["pending"] == []  # the game ends as it stands
    # Basari (B-10): ranks by points as they stand, equal points share a rank
    scores = [s["score"] for s in row["seats"]]
    assert [s["rank"] for s in row["seats"]] == [1 + sum(o > score for o in scores) for score in scores]
    assert [s["name"] for s in row["seats"]] == [s["name"] for s in stuck["seats"]]

    overview = await mine.get()
    assert overview["status"] == "ready" and overview["schedule"][0]["closed"] is True
    assert [t["adjudicated"] for t in overview["schedule"][0]["tables"]] == [False, True]
    results = await mine.get("/results")
    assert [(r["table"], r["adjudicated"]) for r in results] == [(1, False), (2, True)]
    assert results[0]["head"] is not None and results[1]["head"] is None  # no receipt: not played to its end
    assert_problem(
        await mine.post("adjudications", {"game_id": stuck["game_id"]}), 409, "game_already_decided"
    )

    # nothing more is played in it: its seed, and the tournament's, decide nothing any more
    token = mine.tokens[stuck["seats"][0]["name"]]
    refused = await client.post(
        f"/v1/games/{stuck['game_id']}/commands", json={"type": "resign"}, headers=bearer(token)
    )
    assert_problem(refused, 409, "game_finished")
    assert await mine.get("/results") == results


async def test_adjudicating_the_last_running_game_reveals_the_seed_of_no_game_still_played(
    client: AsyncTestClient[Any],
) -> None:
    """The tournament's seed (every game's seed follows from it) is shown once the tournament completes;
    adjudicating its last running game ends that game first, so no game is still played when it is."""
    mine = await organizer(client, seed="adjudicate-last", rounds=1)
    played, stuck = (await mine.seat())["tables"]
    await mine.play(played)
    assert (await mine.get())["seed"] is None
    response = await mine.post("adjudications", {"game_id": stuck["game_id"]})
    assert response.status_code == 200, response.text
    overview = await mine.get()
    assert overview["status"] == "completed" and overview["seed"] == "adjudicate-last"
    listed = (await client.get("/v1/games", params={"tournament": mine.tid})).json()["games"]
    assert sorted(g["status"] for g in listed) == ["finished", "finished"]
    audit = (await client.get(f"/v1/games/{stuck['game_id']}/audit")).json()
    assert audit["ok"] and audit["seed"]["matches"] and audit["moves_ok"]
    token = mine.tokens[stuck["seats"][0]["name"]]
    detail = (await client.get(f"/v1/games/{stuck['game_id']}", headers=bearer(token))).json()
    assert detail["legal"] == [] and detail["pending"] == []


async def test_tournament_games_get_the_tournaments_clock_by_default(client: AsyncTestClient[Any]) -> None:
    mine = await organizer(client, seed="clocked")
    assert (await mine.get())["clock"] == {
        "decision_seconds": 60,
        "bank_seconds": 600,
        "days_per_decision": None,
        "max_timeouts": 3,
    }
    table = (await mine.seat())["tables"][0]
    clock = (await client.get(f"/v1/games/{table['game_id']}")).json()["clock"]
    assert (clock["decision_seconds"], clock["bank_seconds"], clock["max_timeouts"]) == (60, 600, 3)


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"clock": {"days_per_decision": 2, "max_timeouts": 1}}, (2, 1)),
        ({"untimed": True}, None),
    ],
)
async def test_a_tournament_chooses_its_games_clock_or_none(
    client: AsyncTestClient[Any], changes: dict[str, Any], expected: tuple[int, int] | None
) -> None:
    mine = await organizer(client, **changes)
    table = (await mine.seat())["tables"][0]
    clock = (await client.get(f"/v1/games/{table['game_id']}")).json()["clock"]
    if expected is None:
        assert clock is None and (await mine.get())["clock"] is None
    else:
        assert (clock["days_per_decision"], clock["max_timeouts"]) == expected


@pytest.mark.parametrize(
    "changes",
    [
        {"clock": {"decision_seconds": 0}},
        {"clock": {"bank_seconds": 10}},
        {"clock": {"decision_seconds": 5}, "untimed": True},
    ],
)
async def test_a_bad_tournament_clock_is_422(client: AsyncTestClient[Any], changes: dict[str, Any]) -> None:
    response = await client.post("/v1/tournaments", json={**tournament_body(), **changes})
    assert_problem(response, 422, "bad_clock")


async def test_a_player_withdrawn_while_a_round_is_being_seated_resigns_in_its_new_game(
    client: AsyncTestClient[Any], pool: asyncpg.Pool
) -> None:
    """A round seated whose games are not created yet (a crash between the two appends): the player withdrawn
    then is still at its table; the games the next request creates have their seat resigned at once."""
    mine = await organizer(client, seed="seating-withdrawal")
    store = PostgresEventStore(pool)
    games = GameService(store, PostgresKeyStore(pool), all_games())
    service = TournamentService(store, PostgresTournamentKeyStore(pool), games)  # this loop's, no recorder
    loaded = await service.load(mine.tid)
    (seated_event,) = TOURNAMENT.decide(loaded.state, SeatNextRound(), seating_rng(loaded.state))
    assert isinstance(seated_event, RoundSeated)
    await service.store.append(mine.tid, loaded.version, [new_event(seated_event)])
    assert (await mine.get())["status"] == "seating"
    leaver = seated_event.tables[0].players[0]
    assert (await mine.post("withdrawals", {"name": leaver})).status_code == 200

    seated = await mine.seat()  # creates the seated round's games
    table = seated["tables"][0]
    assert table["seats"][0]["name"] == leaver
    events = (await client.get(f"/v1/games/{table['game_id']}/events")).json()["events"]
    assert [e["data"]["seat"] for e in events if e["type"] == "seat_resigned"] == [0]
