"""The online audit against an operator who rewrites the database: with the triggers switched off
as the tables' owner, the history rewritten and the whole hash chain recomputed with the game's chain key,
every tampering is still caught, by re-deciding each stored move, and named."""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import asyncpg
import msgspec
import pytest
from litestar.testing import AsyncTestClient

from api.app import create_app
from domain.registry import all_games
from eventstore import GENESIS_HASH, event_hash
from service.integrity.audit import check_receipts, read_export, read_receipts, verify_export, verify_file
from service.integrity.signing import SignedHead, verify_head
from service.runtime.settings import Settings
from tests.support.client_play import create_game, play_existing, play_to_end
from tests.support.databases import fresh_database, superuser_pool_on

pytestmark = pytest.mark.db

Row = dict[str, Any]  # an event row: version, type, schema_version, data (decoded), cause (bytes or None)


@pytest.fixture(scope="module")
async def own_database(server_url: str) -> AsyncIterator[str]:
    """A database of its own: the rewritten histories would otherwise reach the other tests' projections."""
    async with fresh_database(server_url) as url:
        yield url


@pytest.fixture(scope="module")
async def pool(own_database: str, server_url: str) -> AsyncIterator[asyncpg.Pool]:
    """A connection pool as the server's superuser: the operator."""
    async with superuser_pool_on(own_database, server_url) as created:
        yield created


@pytest.fixture(scope="module")
async def client(own_database: str) -> AsyncIterator[AsyncTestClient[Any]]:
    """The app wired to that database, lifespan included."""
    settings = dataclasses.replace(Settings.from_env(), database_url=own_database)
    async with AsyncTestClient(app=create_app(settings)) as test_client:
        yield test_client


async def play_some(client: AsyncTestClient[Any], created: dict[str, Any], moves: int, seed: str) -> None:
    """Post ``moves`` random legal commands of pending seats."""
    chooser = random.Random(seed)
    tokens = [seat["token"] for seat in created["seats"]]
    for _ in range(moves):
        detail = (await client.get(f"/v1/games/{created['game_id']}")).json()
        seat = chooser.choice(detail["pending"])["seat"]
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        legal = (await client.get(f"/v1/games/{created['game_id']}", headers=auth)).json()["legal"][
            :-1
        ]  # never resign
        response = await client.post(
            f"/v1/games/{created['game_id']}/commands", json=chooser.choice(legal), headers=auth
        )
        assert response.status_code == 200, response.text


async def rewrite(
    pool: asyncpg.Pool, game_id: str, edit: Callable[[list[Row]], None], rewind_row: bool = True
) -> None:
    """What an operator with the owner's rights could do: switch the triggers off, rewrite the events with
    ``edit``, recompute every hash with the stream's chain key and (``rewind_row``) make the stream's row
    agree."""
    async with pool.acquire() as connection, connection.transaction():
        await connection.execute("SET LOCAL session_replication_role = replica")
        key = await connection.fetchval("SELECT chain_key FROM streams WHERE stream_id = $1", game_id)
        rows = [
            {**dict(r), "data": json.loads(r["data"])}
            for r in await connection.fetch(
                "SELECT version, type, schema_version, data::text AS data, cause FROM events"
                " WHERE stream_id = $1 ORDER BY version",
                game_id,
            )
        ]
        edit(rows)
        await connection.execute("DELETE FROM events WHERE stream_id = $1", game_id)
        previous = GENESIS_HASH
        for version, row in enumerate(rows, start=1):
            data = json.dumps(row["data"], separators=(",", ":")).encode()
            previous = event_hash(previous, game_id, version, row["type"], row["schema_version"], data, key)
            await connection.execute(
                "INSERT INTO events (stream_id, version, type, schema_version, data, hash, cause)"
                " VALUES ($1, $2, $3, $4, $5::json, $6, $7)",
                game_id,
                version,
                row["type"],
                row["schema_version"],
                data.decode(),
                previous,
                row["cause"],
            )
        if rewind_row:
            await connection.execute(
                "UPDATE streams SET version = $2, head_hash = $3 WHERE stream_id = $1",
                game_id,
                len(rows),
                previous,
            )


async def audit(client: AsyncTestClient[Any], game_id: str) -> dict[str, Any]:
    """GET /audit (200)."""
    response = await client.get(f"/v1/games/{game_id}/audit")
    assert response.status_code == 200, response.text
    report: dict[str, Any] = response.json()
    return report


def failure(report: dict[str, Any]) -> str:
    """The name of the first failure an audit reports."""
    assert not report["ok"] and report["problems"], report
    return str(report["problems"][0].split(":", 1)[0])


async def test_an_untouched_game_passes_with_every_move_re_decided(client: AsyncTestClient[Any]) -> None:
    played = await play_to_end(client, "bazaar", 2, seed="audit-clean")
    report = await audit(client, played.game_id)
    assert report["ok"] and report["moves_ok"] and report["moves_checked"] == played.commands, report
    running = await create_game(client, "bazaar", 3, seed="audit-clean-running")
    report = await audit(client, running["game_id"])  # at its opening: nothing to re-decide, nothing missing
    assert report["ok"] and report["moves_ok"] and report["moves_checked"] == 0 and not report["notes"], (
        report
    )
    await play_some(client, running, 6, "audit-clean-running")
    report = await audit(client, running["game_id"])
    assert report["ok"] and report["moves_ok"] and report["moves_checked"] == 6 and report["seed"] is None


async def test_a_score_rewritten_with_the_chain_recomputed_is_caught(
    client: AsyncTestClient[Any], pool: asyncpg.Pool
) -> None:
    played = await play_to_end(client, "basari", 3, seed="audit-score")

    def raise_score(rows: list[Row]) -> None:
        scored = next(r for r in reversed(rows) if r["type"] == "points_scored")
        number = next(k for k, v in scored["data"].items() if k != "seat" and isinstance(v, int))
        scored["data"][number] += 5

    await rewrite(pool, played.game_id, raise_score)
    report = await audit(client, played.game_id)
    assert report["chain_ok"] and report["setup_ok"]  # the forger kept everything consistent ...
    assert (
        failure(report) == "events_differ" and report["moves_ok"] is False
    )  # ... but the move says otherwise


async def test_a_rigged_roll_in_a_running_game_is_caught_without_revealing_the_seed(
    client: AsyncTestClient[Any], pool: asyncpg.Pool
) -> None:
    created = await create_game(client, "bazaar", 2, seed="audit-rigged-roll")
    await play_some(client, created, 12, "audit-rigged-roll")

    def rig(rows: list[Row]) -> None:
        roll = next(r for r in rows if r["type"] == "die_rolled")
        faces = ["red", "green", "blue", "yellow", "white", "choice"]
        roll["data"]["face"] = next(f for f in faces if f != roll["data"]["face"])

    await rewrite(pool, created["game_id"], rig)
    report = await audit(client, created["game_id"])
    assert report["chain_ok"] and failure(report) == "events_differ"
    assert report["seed"] is None and "audit-rigged-roll" not in json.dumps(report)


async def test_a_deleted_tail_of_a_running_game_is_caught(
    client: AsyncTestClient[Any], pool: asyncpg.Pool
) -> None:
    created = await create_game(client, "bazaar", 2, seed="audit-tail")
    await play_some(client, created, 8, "audit-tail")
    await rewrite(pool, created["game_id"], lambda rows: rows.__delitem__(slice(-3, None)), rewind_row=False)
    assert failure(await audit(client, created["game_id"])) == "history_truncated"


async def test_a_move_credited_to_another_seat_is_caught(
    client: AsyncTestClient[Any], pool: asyncpg.Pool
) -> None:
    created = await create_game(client, "bazaar", 2, seed="audit-seat")
    await play_some(client, created, 4, "audit-seat")

    def other_seat(rows: list[Row]) -> None:
        moved = next(r for r in rows if r["cause"] is not None)
        cause = json.loads(moved["cause"])
        moved["cause"] = json.dumps({**cause, "seat": 1 - cause["seat"]}).encode()

    await rewrite(pool, created["game_id"], other_seat)
    assert failure(await audit(client, created["game_id"])) in ("illegal_move", "events_differ")


async def test_a_missing_move_is_caught(client: AsyncTestClient[Any], pool: asyncpg.Pool) -> None:
    created = await create_game(client, "bazaar", 2, seed="audit-missing")
    await play_some(client, created, 10, "audit-missing")

    def drop_a_move(rows: list[Row]) -> None:
        starts = [i for i, r in enumerate(rows) if r["cause"] is not None]
        del rows[starts[3] : starts[4]]

    await rewrite(pool, created["game_id"], drop_a_move)
    assert failure(await audit(client, created["game_id"])) in ("illegal_move", "events_differ")


async def test_an_event_slipped_in_without_a_command_is_caught(
    client: AsyncTestClient[Any], pool: asyncpg.Pool
) -> None:
    created = await create_game(client, "bazaar", 2, seed="audit-slipped")
    await play_some(client, created, 6, "audit-slipped")

    def slip_in(rows: list[Row]) -> None:
        roll = next(r for r in rows if r["type"] == "die_rolled")
        rows.append({**roll, "cause": None})

    await rewrite(pool, created["game_id"], slip_in)
    assert failure(await audit(client, created["game_id"])) == "undecided_event"


async def test_every_command_stripped_to_hide_a_rigged_roll_is_caught_and_not_exported_as_unchecked(
    client: AsyncTestClient[Any], pool: asyncpg.Pool
) -> None:
    """A roll rigged and every stored command dropped, so that no move can be re-decided: the game was
    created with commands stored (its write-once metadata says so), so the audit requires them rather than
    noting a game played before they were stored, and its export claims them and fails verification."""
    played = await play_to_end(client, "bazaar", 2, seed="audit-stripped")

    def strip_and_rig(rows: list[Row]) -> None:
        rolls = [r for r in rows if r["type"] == "die_rolled"]
        rigged = next(r for r in rolls if r["data"]["face"] != rolls[0]["data"]["face"])
        rigged["data"]["face"] = rolls[0]["data"]["face"]
        for row in rows:
            row["cause"] = None

    await rewrite(pool, played.game_id, strip_and_rig)
    report = await audit(client, played.game_id)
    assert report["chain_ok"] and report["setup_ok"] and failure(report) == "undecided_event", report
    assert report["notes"] == [] and report["moves_ok"] is False
    export = read_export((await client.get(f"/v1/games/{played.game_id}/export")).content)
    assert export.commands_recorded and verify_export(export, all_games()).failures == ["undecided_event"]


# Receipts: signed heads a client keeps


async def test_every_view_and_command_answer_carries_a_signed_head(client: AsyncTestClient[Any]) -> None:
    key = (await client.get("/v1/signing-key")).json()
    assert (
        key["algorithm"] == "Ed25519" and (await client.get("/.well-known/bazaar-signing-key")).json() == key
    )
    created = await create_game(client, "bazaar", 2, seed="receipts-shown")
    auth = {"Authorization": f"Bearer {created['seats'][0]['token']}"}
    detail = (await client.get(f"/v1/games/{created['game_id']}", headers=auth)).json()
    head = msgspec.convert(detail["head"], SignedHead)
    assert (head.game_id, head.version, head.public_key) == (
        created["game_id"],
        detail["version"],
        key["public_key"],
    )
    assert verify_head(head) and detail["seed_commitment"] == created["seed_commitment"]
    assert detail["seed_chosen"] is True  # the client chose "receipts-shown": shown as such
    served = await create_game(client, "bazaar", 2)
    assert (await client.get(f"/v1/games/{served['game_id']}")).json()["seed_chosen"] is False
    command = detail["legal"][0]
    answer = (
        await client.post(f"/v1/games/{created['game_id']}/commands", json=command, headers=auth)
    ).json()
    signed = msgspec.convert(answer["head"], SignedHead)
    assert signed.version == answer["version"] and verify_head(signed)
    spectator = (await client.get(f"/v1/games/{created['game_id']}")).json()
    assert spectator["head"] == answer["head"]  # the same head for everybody, without the seed
    forged = msgspec.structs.replace(signed, head_hash="00" * 32)
    assert not verify_head(forged)


async def test_receipts_kept_by_a_client_expose_a_history_rewritten_consistently(
    client: AsyncTestClient[Any], pool: asyncpg.Pool, own_database: str, tmp_path: Path
) -> None:
    """The operator cuts the last moves of a running game and rewinds the stream row, chain and all: the
    audit cannot tell (what is left is a legal game), but the heads the players were shown can."""
    created = await create_game(client, "bazaar", 2, seed="receipts-rewritten")
    game_id, tokens = created["game_id"], [seat["token"] for seat in created["seats"]]
    receipts = []
    chooser = random.Random("receipts")
    for _ in range(8):
        detail = (await client.get(f"/v1/games/{game_id}")).json()
        seat = detail["pending"][0]["seat"]
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        legal = (await client.get(f"/v1/games/{game_id}", headers=auth)).json()["legal"][:-1]  # never resign
        answer = await client.post(f"/v1/games/{game_id}/commands", json=chooser.choice(legal), headers=auth)
        receipts.append(answer.json()["head"])

    def cut_last_two_moves(rows: list[Row]) -> None:
        starts = [i for i, r in enumerate(rows) if r["cause"] is not None]
        del rows[starts[-2] :]

    await rewrite(pool, game_id, cut_last_two_moves)
    settings = dataclasses.replace(Settings.from_env(), database_url=own_database)
    async with AsyncTestClient(app=create_app(settings)) as restarted:  # the operator restarts the service
        report = await audit(restarted, game_id)
        assert report["ok"], report  # consistent: nothing the stored history alone can show
        await play_existing(restarted, game_id, tokens, seed="receipts-rewritten")
        exported = (await restarted.get(f"/v1/games/{game_id}/export")).content
    export = read_export(exported)
    assert verify_export(export, all_games()).ok
    kept = read_receipts(json.dumps(receipts).encode())
    problems = check_receipts(export, kept, public_key=kept[0].public_key)
    assert problems and all(
        p.startswith("receipt_contradicted: the service signed another head") for p in problems
    )
    # at most the two heads of the cut moves (a move played again the same way gives the same head back)
    assert 1 <= len(problems) <= 2
    game_file, receipt_file = tmp_path / "game.json", tmp_path / "receipts.ndjson"
    game_file.write_bytes(exported)
    receipt_file.write_text("\n".join(json.dumps({"head": r}) for r in receipts))
    assert verify_file(game_file) == 0
    assert verify_file(game_file, receipt_file) == 1
    assert verify_file(game_file, receipt_file, public_key="ab" * 32) == 1  # not the given key: foreign
