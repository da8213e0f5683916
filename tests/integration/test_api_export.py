"""Exports and offline verification against the real app and PostgreSQL: a finished game's history is the
same bytes for everybody; its export is self-contained, holds no token, and re-verifies without a database,
while any change to it is found and named."""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest
from litestar.testing import AsyncTestClient

from api.app import create_app
from domain.core import fold
from domain.registry import all_games
from service.integrity.audit import (
    LEGACY_NOTE,
    NotAnExport,
    chain_key,
    read_export,
    signed_facts,
    verify_export,
    verify_file,
)
from service.integrity.signing import Signer
from service.runtime.settings import Settings
from tests.support.client_play import create_game, play_to_end

pytestmark = pytest.mark.db

NDJSON = {"Accept": "application/x-ndjson"}


@pytest.fixture(scope="module")
async def client(database_url: str) -> AsyncIterator[AsyncTestClient[Any]]:
    """The app wired to the test database, lifespan included."""
    settings = dataclasses.replace(Settings.from_env(), database_url=database_url)
    async with AsyncTestClient(app=create_app(settings)) as test_client:
        yield test_client


@pytest.fixture(scope="module")
async def finished(client: AsyncTestClient[Any]) -> dict[str, Any]:
    """A Basari game (pile reshuffles mid-game) played to its end: its id, seat tokens and export document."""
    played = await play_to_end(client, "basari", 3, seed="export-seed")
    response = await client.get(f"/v1/games/{played.game_id}/export")
    assert response.status_code == 200, response.text
    return {"game_id": played.game_id, "tokens": played.tokens, "raw": response.content}


def problems_of(document: dict[str, Any]) -> list[str]:
    """The problems offline verification finds in an export document."""
    return verify_export(read_export(json.dumps(document).encode()), all_games()).problems


async def test_a_finished_history_is_the_same_bytes_for_spectators_and_every_seat(
    client: AsyncTestClient[Any], finished: dict[str, Any]
) -> None:
    game_id = finished["game_id"]
    callers = [{}, *({"Authorization": f"Bearer {token}"} for token in finished["tokens"])]
    as_json = [(await client.get(f"/v1/games/{game_id}/events", headers=h)).content for h in callers]
    as_ndjson = [
        (await client.get(f"/v1/games/{game_id}/events", headers={**h, **NDJSON})).content for h in callers
    ]
    assert len(set(as_json)) == 1 and len(set(as_ndjson)) == 1
    lines = as_ndjson[0].decode().splitlines()
    assert [json.loads(line) for line in lines] == json.loads(as_json[0])["events"]
    assert all(json.loads(line)["hash"] for line in lines)


async def test_the_export_is_self_contained_and_holds_no_token(
    client: AsyncTestClient[Any], finished: dict[str, Any]
) -> None:
    game_id, raw = finished["game_id"], finished["raw"]
    document = json.loads(raw)
    assert document["format"] == "bazaar-games/game-export" and document["format_version"] == 4
    assert document["commands_recorded"] is True
    key = (await client.get("/v1/signing-key")).json()["public_key"]
    assert document["signature"]["public_key"] == key  # signed with the published key
    assert document["server_seed"] is None and document["entropies"] is None  # a seed the client chose
    assert (document["game_id"], document["game"], document["seed"]) == (game_id, "basari", "export-seed")
    assert [seat["name"] for seat in document["seats"]] == ["player-0", "player-1", "player-2"]
    assert all(token not in raw.decode() for token in finished["tokens"])
    history = (await client.get(f"/v1/games/{game_id}/events")).json()
    assert [(e["version"], e["type"], e["hash"]) for e in document["events"]] == [
        (e["version"], e["type"], e["hash"]) for e in history["events"]
    ]
    assert document["version"] == history["version"] == len(document["events"])
    audit = (await client.get(f"/v1/games/{game_id}/audit")).json()
    assert audit["ok"] and document["head_hash"] == audit["head_hash"]
    assert document["seed_commitment"] == audit["seed"]["commitment"]
    detail = (await client.get(f"/v1/games/{game_id}")).json()
    assert document["result"] == detail["result"]
    assert (
        document["scoresheet"]["rows"] == (await client.get(f"/v1/games/{game_id}/scoresheet")).json()["rows"]
    )
    assert document["chain_keyed"] is True
    assert document["events"][0]["command"] is None  # the opening: dealt from the seed, by no command
    moves = [e for e in document["events"] if e["command"] is not None]
    assert moves and all(set(e["command"]) == {"seat", "command"} for e in moves)
    findings = verify_export(read_export(raw), all_games())
    assert findings.problems == [] and findings.moves_ok and findings.moves_checked == len(moves)


async def test_a_running_game_cannot_be_exported(client: AsyncTestClient[Any]) -> None:
    running = await create_game(client, "basari", 3, seed="secret-while-running")
    response = await client.get(f"/v1/games/{running['game_id']}/export")
    assert response.status_code == 409
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.json()["code"] == "game_not_finished"
    assert "secret-while-running" not in response.text
    unknown = await client.get("/v1/games/no-such-game/export")
    assert unknown.status_code == 404 and unknown.json()["code"] == "game_not_found"


def _set(path: list[Any], value: Any) -> Callable[[dict[str, Any]], None]:
    """A tampering: put ``value`` at ``path`` in the document."""

    def tamper(document: dict[str, Any]) -> None:
        target = document
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return tamper


def _edit_event_data(document: dict[str, Any]) -> None:
    """Change one field of a mid-game event's body."""
    data = document["events"][5]["data"]
    key = next(k for k, v in data.items() if isinstance(v, int) and not isinstance(v, bool))
    data[key] += 1


def _rechain(document: dict[str, Any]) -> None:
    """Recompute every hash and the head as the forger would (the seed, hence the chain key, is public)."""
    from eventstore import GENESIS_HASH, event_hash

    key = chain_key(document["seed"])
    previous = GENESIS_HASH
    for version, event in enumerate(document["events"], start=1):
        event["version"] = version
        data = json.dumps(event["data"], separators=(",", ":"), ensure_ascii=False).encode()
        previous = event_hash(
            previous, document["game_id"], version, event["type"], event["schema_version"], data, key
        )
        event["hash"] = previous.hex()
    document["version"] = len(document["events"])
    document["head_hash"] = previous.hex()


def _restate_result(document: dict[str, Any]) -> None:
    """Make the result and score sheet the ones the (forged) events replay to."""
    game = all_games()[document["game"]]
    decoder = msgspec.json.Decoder(game.event_type)
    state = fold(game, [decoder.decode(json.dumps(e["data"])) for e in document["events"]])
    document["result"] = msgspec.to_builtins(game.result(state))
    document["scoresheet"] = msgspec.to_builtins(game.scoresheet(state))


def _rewrite_history_tail(document: dict[str, Any]) -> None:
    """Drop the last event and make the hashes and head consistent again: the chain holds, the replay does
    not reach the end the document claims."""
    document["events"].pop()
    _rechain(document)


def _forged(edit: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    """``edit``, then the chain, head, result and score sheet recomputed to fit: only re-deciding the moves
    can tell."""

    def forge(document: dict[str, Any]) -> None:
        edit(document)
        _rechain(document)
        _restate_result(document)

    return forge


def _rig_a_draw(document: dict[str, Any]) -> None:
    """Swap two cards of the first reshuffle after the opening (a draw decided by a move's Rng)."""
    opening = next(i for i, e in enumerate(document["events"]) if e["command"] is not None)
    for event in document["events"][opening:]:
        if event["type"] != "pile_shuffled":
            continue
        for value in event["data"].values():
            if isinstance(value, list) and len(set(map(str, value))) > 1:
                value[0], value[-1] = value[-1], value[0]
                return
    raise AssertionError("no draw to rig")


def _raise_a_score(document: dict[str, Any]) -> None:
    """Add one to the first number of the last event that carries one (a score at the end of the game)."""
    for event in reversed(document["events"]):
        for key, value in event["data"].items():
            if isinstance(value, int) and not isinstance(value, bool) and key not in ("seat", "round"):
                event["data"][key] = value + 1
                return
    raise AssertionError("no number to change")


def _wrong_seat(document: dict[str, Any]) -> None:
    """Credit a move to the next seat."""
    move = next(e for e in document["events"] if e["command"] is not None)
    move["command"]["seat"] = (move["command"]["seat"] + 1) % len(document["seats"])


def _drop_a_move(document: dict[str, Any]) -> None:
    """Remove a whole move (its command and every event it produced) from the middle of the game."""
    events = document["events"]
    starts = [i for i, e in enumerate(events) if e["command"] is not None]
    first, after = starts[len(starts) // 2], starts[len(starts) // 2 + 1]
    del events[first:after]


def _drop_a_command(document: dict[str, Any]) -> None:
    """Keep a move's events but not the command that produced them."""
    next(e for e in document["events"] if e["command"] is not None)["command"] = None


def _replace_a_command(document: dict[str, Any]) -> None:
    """Store something that is no command of the game as a move's command."""
    next(e for e in document["events"] if e["command"] is not None)["command"]["command"] = {"type": "nope"}


TAMPERINGS: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    ("event data", _edit_event_data, "chain_broken: at version 6: version 6 does not match its hash"),
    ("event hash", _set(["events", 3, "hash"], "00" * 32), "chain_broken: at version 4"),
    ("event type", _set(["events", 2, "type"], "something_else"), "chain_broken: at version 3"),
    ("schema version", _set(["events", 2, "schema_version"], 2), "chain_broken: at version 3"),
    ("head hash", _set(["head_hash"], "ab" * 32), "head_mismatch: the stream's head hash does not match"),
    ("unkeyed", _set(["chain_keyed"], False), "chain_broken: at version 1"),
    ("seed", _set(["seed"], "another-seed"), "seed_mismatch: the seed does not match the published"),
    ("seed commitment", _set(["seed_commitment"], "00" * 32), "seed_mismatch"),
    ("player name", _set(["seats", 0, "name"], "mallory"), "setup_mismatch: the opening events do not"),
    ("removed seat", lambda d: d["seats"].pop(), "setup_mismatch: the game cannot be set up with these"),
    ("unknown option", _set(["options", "turbo"], True), "unknown field `turbo`"),
    ("result", _set(["result", "scores", 0], 999), "result_mismatch: the result does not follow"),
    ("winners", _set(["result", "winners"], [2, 1]), "result_mismatch: the result does not follow"),
    ("score sheet", _set(["scoresheet", "winners"], ["mallory"]), "result_mismatch: the score sheet"),
    ("removed event", lambda d: d["events"].pop(7), "chain_broken: at version 8: version 8 is missing"),
    ("removed last event", lambda d: d["events"].pop(), "history_truncated: the stream is at version"),
    ("rewritten tail", _rewrite_history_tail, "status_mismatch: the events say the game is not over"),
    # Forgeries that keep the chain, the head, the result and the score sheet consistent:
    ("rigged draw, rechained", _forged(_rig_a_draw), "events_differ: version"),
    ("raised score, rechained, result restated", _forged(_raise_a_score), "events_differ: version"),
    ("command by the wrong seat", _wrong_seat, "the command of seat 1 stored at version"),
    ("missing move, rechained", _forged(_drop_a_move), "stored at version"),
    ("event without its command", _drop_a_command, "undecided_event: version"),
    ("command replaced", _replace_a_command, "bad_command: the command stored at version"),
]


@pytest.mark.parametrize(
    ("tamper", "expected"), [(t, e) for _, t, e in TAMPERINGS], ids=[name for name, _, _ in TAMPERINGS]
)
async def test_any_change_to_an_export_is_found_and_named(
    finished: dict[str, Any], tamper: Callable[[dict[str, Any]], None], expected: str
) -> None:
    document = copy.deepcopy(json.loads(finished["raw"]))
    tamper(document)
    problems = problems_of(document)
    assert problems and expected in problems[0], problems


async def test_a_forged_history_is_caught_by_re_deciding_its_moves(finished: dict[str, Any]) -> None:
    """A score rewritten with the chain, result and score sheet made to fit: the seed, the chain and the
    opening check out, the re-decision names the rewritten event, and the service's signature does not
    cover the new head."""
    document = copy.deepcopy(json.loads(finished["raw"]))
    _forged(_raise_a_score)(document)
    findings = verify_export(read_export(json.dumps(document).encode()), all_games())
    assert findings.chain.ok and findings.setup_ok and findings.seed_matches
    assert findings.failures == ["events_differ", "signature_invalid"], findings.problems


def test_an_export_of_a_game_played_before_commands_were_stored_says_its_moves_were_not_checked(
    client: AsyncTestClient[Any], finished: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A game without stored commands is exported with ``commands_recorded: false``, which the service
    signs; the same document unsigned, as format 1 had it, proves nothing and is refused."""
    document = json.loads(finished["raw"])
    for event in document["events"]:
        event.pop("command")
    document["commands_recorded"] = False
    signer: Signer = client.app.state.signer
    document["signature"] = msgspec.to_builtins(
        signer.sign_game(signed_facts(read_export(json.dumps(document).encode())))
    )
    findings = verify_export(read_export(json.dumps(document).encode()), all_games())
    assert findings.ok and findings.moves_ok is None and findings.notes == [LEGACY_NOTE]
    legacy = tmp_path / "legacy.json"
    legacy.write_text(json.dumps(document))
    assert verify_file(legacy) == 0
    out, _ = capsys.readouterr()
    assert "moves NOT re-checked" in out and f"note: {LEGACY_NOTE}" in out
    document["format_version"], document["signature"] = 1, None
    assert problems_of(document)[0].startswith("unsigned: the export carries no signature of the service")


@pytest.mark.parametrize(
    ("document", "expected"),
    [
        (b"not json", "not a JSON object"),
        (b'{"format": "something"}', "not a game export"),
        (
            b'{"status": 409, "code": "game_not_finished", "detail": "only a finished game can be exported"}',
            "the server answered 409 game_not_finished: only a finished game can be exported",
        ),
        (b'{"format": "bazaar-games/game-export", "format_version": 99}', "format_version 99"),
        (b'{"format": "bazaar-games/game-export", "format_version": 2}', "malformed export"),
    ],
)
def test_a_document_that_is_not_an_export_is_refused_with_the_reason(document: bytes, expected: str) -> None:
    with pytest.raises(NotAnExport, match=expected):
        read_export(document)


def test_the_verify_command_answers_with_one_line_and_its_exit_code(
    finished: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "good.json"
    good.write_bytes(finished["raw"])
    assert verify_file(good) == 0
    out, err = capsys.readouterr()
    assert out.startswith(f"{good}: OK: basari game {finished['game_id']}") and out.count("\n") == 1
    assert " moves re-decided, result re-derived" in out
    assert err == ""
    assert verify_file(tmp_path / "missing.json") == 1
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"{tmp_path / 'missing.json'}: FAILED: ") and "No such file" in err
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**json.loads(finished["raw"]), "seed": "guess"}))
    assert verify_file(bad) == 1
    out, err = capsys.readouterr()
    first, *rest = err.splitlines()
    assert first == f"{bad}: FAILED: seed_mismatch: the seed does not match the published commitment"
    assert rest == [
        "  also: chain_broken: at version 1: version 1 does not match its hash",
        "  also: setup_mismatch: the opening events do not follow from the seed",
    ]
