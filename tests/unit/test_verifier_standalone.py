"""The offline verifier runs on the standard library and ``cryptography`` alone (issue 12): in a Python where
msgspec and the server's packages cannot be imported, ``python -m service verify`` gives, for finished
games of all three games and for exports tampered with in every way the audit names, exactly what it gives
with every dependency installed, and imports no third-party module but cryptography's."""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from eventstore.protocol import GENESIS_HASH, event_hash
from service.integrity.audit import chain_key
from service.integrity.signing import Signer
from tests.support.exports import exported_game
from tests.support.standalone import run_blocked, run_normally

GAMES = {  # one of each game; Bazaar timed, so its stored commands are the service's stamped ones
    "basari": (3, None),
    "bazaar": (2, {"decision_seconds": 3600, "bank_seconds": 60}),
    "johari": (2, None),
}
# what importing cryptography's Ed25519 brings: the package, its cffi backend and its Rust bindings' OpenSSL
CRYPTOGRAPHY = {"cryptography", "_cffi_backend", "_openssl"}
THIS_REPOSITORY = {"domain", "eventstore", "service"}

Document = dict[str, Any]
SERVICE = Signer(Ed25519PrivateKey.generate())  # the service's key: it signs every export of this module


@pytest.fixture(scope="module")
def exports() -> dict[str, Document]:
    """A finished game of each kind, exported by the service (in-memory store)."""
    return {
        game: json.loads(asyncio.run(exported_game(game, players, f"standalone-{game}", clock, SERVICE)))
        for game, (players, clock) in GAMES.items()
    }


def rechain(document: Document) -> None:
    """Recompute every hash and the head as an operator rewriting the history would (with the chain key)."""
    key = chain_key(document["seed"]) if document["chain_keyed"] else b""
    previous = GENESIS_HASH
    for event in document["events"]:
        data = msgspec.json.encode(event["data"])
        previous = event_hash(
            previous, document["game_id"], event["version"], event["type"], event["schema_version"], data, key
        )
        event["hash"] = previous.hex()
    document["head_hash"] = previous.hex()
    document["version"] = len(document["events"])


def moves(document: Document) -> list[Document]:
    """The events that carry a command, after the first quarter of the game."""
    events = document["events"]
    return [e for e in events[len(events) // 4 :] if e.get("command") is not None]


def rig_a_draw(document: Document) -> None:
    """Change a number in an event a command produced (a roll, a draw, a score) and recompute the chain."""
    for event in moves(document):
        later = [e for e in document["events"] if e["version"] >= event["version"]]
        for candidate in later:
            numbers = [k for k, v in candidate["data"].items() if type(v) is int and k != "seat"]
            if numbers:
                candidate["data"][numbers[0]] += 1
                rechain(document)
                return
    raise AssertionError("no event with a number to change")


def change_a_command(document: Document) -> None:
    """Hand a stored command to another seat (commands are not hashed: the chain still holds)."""
    command = moves(document)[0]["command"]
    command["seat"] = (command["seat"] + 1) % len(document["seats"])


def edit_the_result(document: Document) -> None:
    """Give seat 0 another score."""
    document["result"]["scores"][0] += 1


def edit_without_rechaining(document: Document) -> None:
    """Change an event's data and leave the hashes as they were."""
    document["events"][-1]["data"]["edited"] = True


def drop_every_command(document: Document) -> None:
    """Remove every move's command (the document still claims its format and its keyed chain)."""
    for event in document["events"]:
        event["command"] = None


def move_to_another_game(document: Document) -> None:
    """Give the game another id and recompute the chain: only the service's signature can tell."""
    document["game_id"] = "00000000-0000-4000-8000-000000000000"
    rechain(document)


def cut_the_tail(document: Document) -> None:
    """Delete the last events and recompute the chain: the history no longer finishes the game."""
    del document["events"][-3:]
    rechain(document)


# each tampering and the first failures it may be named by (a changed number may break the replay itself)
TAMPERINGS: dict[str, tuple[Callable[[Document], None], set[str | None]]] = {
    "untouched": (lambda document: None, {None}),
    "rigged draw": (rig_a_draw, {"events_differ", "replay_failed"}),
    "command moved to another seat": (change_a_command, {"illegal_move"}),
    "edited result": (edit_the_result, {"result_mismatch"}),
    "edited without rechaining": (edit_without_rechaining, {"chain_broken"}),
    "cut tail": (cut_the_tail, {"status_mismatch"}),
    "every command dropped": (drop_every_command, {"undecided_event"}),
    "another game id": (move_to_another_game, {"signature_invalid"}),
}


def failures(stderr: bytes) -> list[str]:
    """The named failures a FAILED verdict lists: the first on the FAILED line, the others on "also:" lines."""
    names = []
    for line in stderr.decode().splitlines():
        if ": FAILED: " in line:
            names.append(line.split(": FAILED: ", 1)[1].split(":", 1)[0])
        elif line.startswith("  also: "):
            names.append(line.removeprefix("  also: ").split(":", 1)[0])
    return names


def verify_both_ways(
    *args: str, stdin: bytes | None = None, json_errors: bool = False
) -> tuple[int, list[str]]:
    """Run the verifier with every dependency and on the standard library and cryptography alone; require the
    same exit code, output and messages (only the named failures when ``json_errors``: the JSON parser's
    own wording differs), and the second to import no other third-party module; the exit code and the
    named failures."""
    normal = run_normally("verify", *args, stdin=stdin)
    alone, report = run_blocked("verify", *args, stdin=stdin)
    assert report["msgspec"] == "service.integrity.msgspec_standin", report
    assert set(report["roots"]) <= CRYPTOGRAPHY | THIS_REPOSITORY | {"msgspec"}, report["roots"]
    assert (alone.returncode, alone.stdout) == (normal.returncode, normal.stdout), alone.stderr.decode()
    assert failures(alone.stderr) == failures(normal.stderr), (alone.stderr.decode(), normal.stderr.decode())
    if not json_errors:
        assert alone.stderr.decode() == normal.stderr.decode()
    return normal.returncode, failures(normal.stderr)


@pytest.mark.parametrize("game", sorted(GAMES))
@pytest.mark.parametrize("tampering", sorted(TAMPERINGS))
def test_the_standalone_verifier_agrees_with_the_verifier(
    exports: dict[str, Document], game: str, tampering: str, tmp_path: Path
) -> None:
    document = copy.deepcopy(exports[game])
    tamper, named = TAMPERINGS[tampering]
    tamper(document)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(document, ensure_ascii=False))
    code, names = verify_both_ways(str(path))
    assert code == (0 if tampering == "untouched" else 1)
    assert (names or [None])[0] in named, names


def test_receipts_are_checked_the_same_way(exports: dict[str, Document], tmp_path: Path) -> None:
    document = exports["johari"]
    events = document["events"]
    signer = SERVICE
    impostor = Signer(Ed25519PrivateKey.generate())

    def head(by: Signer, version: int, of: int) -> Any:
        return msgspec.to_builtins(
            by.sign(document["game_id"], version, bytes.fromhex(events[of - 1]["hash"]))
        )

    kept = [
        head(signer, 5, 5),  # genuine
        {"head": head(signer, 6, 7)},  # a saved answer: another head for version 6 (history rewritten)
        head(signer, len(events) + 2, len(events)),  # a version past the end (history cut)
        head(impostor, 8, 8),  # signed by another key: foreign, not a contradiction by the service
    ]
    (tmp_path / "game.json").write_text(json.dumps(document))
    (tmp_path / "receipts.ndjson").write_text("".join(json.dumps(r) + "\n" for r in kept))
    code, names = verify_both_ways(
        str(tmp_path / "game.json"),
        "--receipts",
        str(tmp_path / "receipts.ndjson"),
        "--public-key",
        signer.public_key,
    )
    assert (code, names) == (1, ["receipt_contradicted", "receipt_contradicted", "receipt_foreign"])
    (tmp_path / "genuine.json").write_text(json.dumps([kept[0]]))
    assert verify_both_ways(str(tmp_path / "game.json"), "--receipts", str(tmp_path / "genuine.json")) == (
        0,
        [],
    )


@pytest.mark.parametrize(
    "document",
    [
        b'{"status": 409, "code": "game_not_finished", "detail": "only a finished game can be exported"}',
        b'{"format": "bazaar-games/game-export", "format_version": 99}',
        b'{"format": "bazaar-games/game-export", "format_version": 3, "game_id": 7}',
        b'{"format": "bazaar-games/game-export", "format_version": 3, "game_id": "g", "created_at": "noon"}',
        b"[1, 2]",
    ],
)
def test_documents_that_are_no_export_are_refused_the_same_way(document: bytes) -> None:
    code, names = verify_both_ways("-", stdin=document)
    assert code == 1 and len(names) == 1


def test_a_document_that_is_not_json_is_refused_the_same_way() -> None:
    assert verify_both_ways("-", stdin=b"not json", json_errors=True) == (1, ["not a JSON object"])
