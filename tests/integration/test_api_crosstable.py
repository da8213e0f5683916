"""The crosstable over the API, against the real app and PostgreSQL: every player's standings line with a
cell per seated round (a game still playing, a decided game's place and points, a bye, absent after a
withdrawal), the same figures as the standings, as JSON and as a CSV download."""

from __future__ import annotations

import csv
import dataclasses
import io
from collections.abc import AsyncIterator
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from api.app import create_app
from service.runtime.settings import Settings
from tests.integration.test_api_tournaments import assert_problem, bearer

pytestmark = pytest.mark.db


@pytest.fixture(scope="module")
async def client(database_url: str) -> AsyncIterator[AsyncTestClient[Any]]:
    """The app wired to the test database, lifespan included."""
    settings = dataclasses.replace(Settings.from_env(), database_url=database_url)
    async with AsyncTestClient(app=create_app(settings)) as test_client:
        yield test_client


def by_name(crosstable: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The crosstable's rows by player name."""
    return {row["name"]: row for row in crosstable["players"]}


async def test_the_crosstable_follows_the_tournament_round_by_round(client: AsyncTestClient[Any]) -> None:
    first = ["Ann", "Ben", "Cy", "Dan"]
    body = {
        "name": "Crosstable cup",
        "game": "johari",
        "players": [{"name": n} for n in first],
        "rounds": 2,
        "duplicate": True,  # equal tables only: with a fifth player, four sit at one table and one has a bye
        "seed": "crosstable-cup",
        "untimed": True,
    }
    created = (await client.post("/v1/tournaments", json=body)).json()
    tid, organizer = created["tournament_id"], bearer(created["organizer_token"])
    url = f"/v1/tournaments/{tid}/crosstable"

    empty = (await client.get(url)).json()
    assert empty["format"] == "bazaar-games/crosstable" and empty["format_version"] == 1
    assert empty["rounds"] == 2 and empty["rounds_seated"] == 0
    assert all(row["rounds"] == [] for row in empty["players"])

    (table,) = (await client.post(f"/v1/tournaments/{tid}/rounds", headers=organizer)).json()["tables"]
    playing = by_name((await client.get(url)).json())
    for name in first:
        (cell,) = playing[name]["rounds"]
        assert cell["kind"] == "playing" and cell["game_id"] == table["game_id"] and cell["place"] is None
        assert cell["opponents"] == [s["name"] for s in table["seats"] if s["name"] != name]
    late = await client.post(f"/v1/tournaments/{tid}/entries", json={"name": "Eve"}, headers=organizer)
    assert late.status_code == 201, late.text
    adjudicated = await client.post(
        f"/v1/tournaments/{tid}/adjudications", json={"game_id": table["game_id"]}, headers=organizer
    )
    assert adjudicated.status_code == 200, adjudicated.text
    ranks = {s["name"]: s["rank"] for s in adjudicated.json()["seats"]}

    second = (await client.post(f"/v1/tournaments/{tid}/rounds", headers=organizer)).json()
    (bye,) = second["byes"]
    withdrawn_name = second["tables"][0]["seats"][0]["name"]
    withdrawn = await client.post(
        f"/v1/tournaments/{tid}/withdrawals", json={"name": withdrawn_name}, headers=organizer
    )
    assert withdrawn.status_code == 200, withdrawn.text

    crosstable = (await client.get(url)).json()
    assert crosstable["rounds_seated"] == 2 and crosstable["status"] == "playing"
    rows = by_name(crosstable)
    for name in first:
        cell = rows[name]["rounds"][0]
        assert cell["kind"] == "game" and cell["adjudicated"] and cell["place"] == ranks[name]
        assert cell["size"] == 4 and cell["score"] is not None
    assert rows["Eve"]["rounds"][0]["kind"] == "absent"
    assert rows[bye]["rounds"][1] == {
        "round": 2,
        "kind": "bye",
        "table": None,
        "place": None,
        "size": None,
        "score": None,
        "points": 1.5,
        "opponents": [],
        "game_id": None,
        "adjudicated": False,
    }
    assert rows[withdrawn_name]["withdrawn"] and rows[withdrawn_name]["rounds"][1]["kind"] == "playing"
    standings = (await client.get(f"/v1/tournaments/{tid}/standings")).json()
    assert [(r["rank"], r["name"]) for r in crosstable["players"]] == [
        (r["rank"], r["name"]) for r in standings
    ]
    for row in standings:  # each line carries the standings' figures, and its points are its cells' points
        cells = rows[row["name"]]["rounds"]
        assert sum(c["points"] or 0 for c in cells) == row["points"]
        assert {k: rows[row["name"]][k] for k in row} == row

    download = await client.get(url, params={"download": "csv"})
    assert download.status_code == 200 and download.headers["content-type"].startswith("text/csv")
    assert download.headers["content-disposition"] == f'attachment; filename="crosstable-{tid}.csv"'
    lines = list(csv.DictReader(io.StringIO(download.text)))
    assert list(lines[0]) == [
        *("rank", "name", "points", "buchholz", "firsts", "games", "byes", "withdrawn", "relative_score"),
        *("round_1_place", "round_1_points", "round_2_place", "round_2_points"),
    ]
    assert [line["name"] for line in lines] == [row["name"] for row in standings]
    line = next(line for line in lines if line["name"] == withdrawn_name)
    assert line["round_1_place"] == f"{ranks[withdrawn_name]}/4" and line["round_2_place"] == "playing"
    assert line["withdrawn"] == "true"
    eve = next(line for line in lines if line["name"] == "Eve")
    assert eve["round_1_place"] == "" and eve["round_1_points"] == ""
    assert next(line for line in lines if line["name"] == bye)["round_2_place"] == "bye"
    by_accept = await client.get(url, headers={"Accept": "text/csv"})
    assert by_accept.text == download.text and "content-disposition" not in by_accept.headers

    as_file = await client.get(url, params={"download": "json"})
    assert as_file.json() == crosstable and as_file.headers["content-disposition"].endswith('.json"')


async def test_a_crosstable_refuses_what_it_cannot_answer(client: AsyncTestClient[Any]) -> None:
    assert_problem(await client.get("/v1/tournaments/nope/crosstable"), 404, "tournament_not_found")
    bad = await client.get("/v1/tournaments/nope/crosstable", params={"download": "xlsx"})
    assert bad.status_code == 400, bad.text
