"""An export proves itself (docs/audit.md "The service's signature"): forgeries that keep the chain, the
opening, the result and the score sheet consistent, and that an offline verifier without any client's
receipts used to accept, are refused by ``python -m service verify``; a receipt signed by another key is
named foreign, not taken as the service contradicting itself."""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain.core import fold
from domain.registry import all_games
from eventstore.protocol import GENESIS_HASH, event_hash
from service.__main__ import main
from service.integrity.audit import chain_key, read_export, signed_facts, verify_export, verify_file
from service.integrity.signing import Signer
from tests.support.exports import exported_game

Document = dict[str, Any]
SERVICE = Signer(Ed25519PrivateKey.generate())


@pytest.fixture(scope="module")
def bazaar() -> Document:
    """A finished two-player Bazaar game (dice rolls decide its stones), exported and signed by SERVICE."""
    return json.loads(asyncio.run(exported_game("bazaar", 2, "forgeries", signer=SERVICE)))


def rechain(document: Document) -> None:
    """Recompute every hash and the head as a forger would (the seed, hence the chain key, is revealed)."""
    key = chain_key(document["seed"]) if document.get("chain_keyed") else b""
    previous = GENESIS_HASH
    for event in document["events"]:
        data = msgspec.json.encode(event["data"])
        previous = event_hash(
            previous, document["game_id"], event["version"], event["type"], event["schema_version"], data, key
        )
        event["hash"] = previous.hex()
    document["head_hash"] = previous.hex()


def restate_result(document: Document) -> None:
    """Make the result and score sheet the ones the (forged) events fold to."""
    game = all_games()[document["game"]]
    decoder = msgspec.json.Decoder(game.event_type)
    state = fold(game, [decoder.decode(json.dumps(e["data"])) for e in document["events"]])
    document["result"] = msgspec.to_builtins(game.result(state))
    document["scoresheet"] = msgspec.to_builtins(game.scoresheet(state))


def failures(document: Document, public_key: str | None = None) -> list[str]:
    """The named failures offline verification finds in a document."""
    export = read_export(json.dumps(document).encode())
    return verify_export(export, all_games(), public_key=public_key).failures


def test_the_untouched_export_verifies_and_is_signed_by_the_service(bazaar: Document) -> None:
    assert bazaar["format_version"] == 4 and bazaar["commands_recorded"] is True
    assert bazaar["signature"]["public_key"] == SERVICE.public_key
    assert failures(bazaar) == [] and failures(bazaar, SERVICE.public_key) == []


def test_commands_removed_with_a_rigged_roll_and_rigged_points_are_refused(bazaar: Document) -> None:
    """Every command dropped (the document still claims format 3 or later and a keyed chain), a die roll
    given another stone, the chain recomputed and the points restated: the moves can no longer be
    re-decided, so the document is refused, not verified with "moves NOT re-checked"."""
    forged = copy.deepcopy(bazaar)
    for event in forged["events"]:
        event["command"] = None
    rolls = [e for e in forged["events"] if e["type"] == "die_rolled"]
    rigged = next(r for r in rolls if r["data"]["stone"] != rolls[0]["data"]["stone"])
    rigged["data"]["face"], rigged["data"]["stone"] = rolls[0]["data"]["face"], rolls[0]["data"]["stone"]
    rechain(forged)
    restate_result(forged)
    assert forged["format_version"] >= 3 and forged["chain_keyed"]
    found = failures(forged)
    assert found[0] == "undecided_event" and "signature_invalid" in found, found
    forged["format_version"], forged["signature"] = 3, None  # the forger claims an older, unsigned format
    assert failures(forged) == ["undecided_event", "unsigned"]


def test_seat_names_swapped_in_the_seats_and_the_opening_are_refused(bazaar: Document) -> None:
    """The two players' names exchanged in ``seats`` and in ``game_started``, rechained: the seed deals
    the same cards, the same seat wins, but the winner's name is the other player's."""
    forged = copy.deepcopy(bazaar)
    first, second = forged["seats"][0]["name"], forged["seats"][1]["name"]
    forged["seats"][0]["name"], forged["seats"][1]["name"] = second, first
    started = next(e for e in forged["events"] if e["type"] == "game_started")
    started["data"]["players"] = [second, first]
    rechain(forged)
    restate_result(forged)
    assert failures(forged) == ["signature_invalid"]


def test_another_game_id_is_refused(bazaar: Document) -> None:
    forged = copy.deepcopy(bazaar)
    forged["game_id"] = "00000000-0000-4000-8000-000000000000"
    rechain(forged)
    assert failures(forged) == ["signature_invalid"]


def test_a_document_re_signed_by_another_key_is_refused_against_the_published_key(bazaar: Document) -> None:
    """A forger may sign the forged facts with a key of their own: the signature verifies, so the
    verifier names the key it found, and an auditor who gives the service's key gets the forgery named."""
    forged = copy.deepcopy(bazaar)
    forged["game_id"] = "00000000-0000-4000-8000-000000000000"
    rechain(forged)
    impostor = Signer(Ed25519PrivateKey.generate())
    export = read_export(json.dumps(forged).encode())
    forged["signature"] = msgspec.to_builtins(impostor.sign_game(signed_facts(export)))
    assert failures(forged) == []
    assert failures(forged, SERVICE.public_key) == ["signature_foreign"]


def test_a_receipt_signed_by_another_key_is_named_foreign(
    bazaar: Document, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A "receipt" someone signed with their own key for a head the export does not have is foreign: it
    proves nothing against the service, which never signed it."""
    impostor = Signer(Ed25519PrivateKey.generate())
    receipt = impostor.sign(bazaar["game_id"], 5, b"\x01" * 32)
    game, receipts = tmp_path / "game.json", tmp_path / "receipts.json"
    game.write_text(json.dumps(bazaar))
    receipts.write_text(json.dumps([msgspec.to_builtins(receipt)]))
    assert verify_file(game, receipts) == 1
    _, err = capsys.readouterr()
    assert err.splitlines()[0].startswith(f"{game}: FAILED: receipt_foreign: the receipt for version 5")
    assert "receipt_contradicted" not in err
    genuine = SERVICE.sign(bazaar["game_id"], 5, bytes.fromhex(bazaar["events"][4]["hash"]))
    receipts.write_text(json.dumps([msgspec.to_builtins(genuine)]))
    assert verify_file(game, receipts, public_key=SERVICE.public_key) == 0


def test_receipts_signed_before_a_key_rotation_verify_with_the_retired_key_given_too(
    bazaar: Document, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/operations.md "Rotating the signing key": an export made after a rotation is signed by the new
    key, the receipts a client kept before it by the retired one; ``--public-key`` given for each makes
    both the service's, and a retired key's receipt is still held to the history."""
    retired = Signer(Ed25519PrivateKey.generate())
    kept = retired.sign(bazaar["game_id"], 5, bytes.fromhex(bazaar["events"][4]["hash"]))
    game, receipts = tmp_path / "game.json", tmp_path / "receipts.json"
    game.write_text(json.dumps(bazaar))
    receipts.write_text(json.dumps([msgspec.to_builtins(kept)]))

    def verify(*keys: str) -> int:
        """``python -m service verify game.json --receipts receipts.json --public-key K ...``: its exit code."""
        pinned = [argument for key in keys for argument in ("--public-key", key)]
        with pytest.raises(SystemExit) as exit_:
            main(["verify", str(game), "--receipts", str(receipts), *pinned])
        return int(exit_.value.code or 0)

    assert verify(SERVICE.public_key, retired.public_key) == 0
    assert verify(SERVICE.public_key) == 1  # the retired key not given: its receipts are foreign
    assert "receipt_foreign" in capsys.readouterr().err
    rewritten = retired.sign(bazaar["game_id"], 5, b"\x02" * 32)
    receipts.write_text(json.dumps([msgspec.to_builtins(rewritten)]))
    assert verify(SERVICE.public_key, retired.public_key) == 1
    assert "receipt_contradicted" in capsys.readouterr().err


def test_verify_says_how_many_kept_receipts_it_held_the_export_to(
    bazaar: Document, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A passing ``verify --receipts`` says how many receipts of this game agree, and says so when none of
    those given is of this game (another game's file checks nothing), rather than a bare OK."""
    game, receipts = tmp_path / "game.json", tmp_path / "receipts.json"
    game.write_text(json.dumps(bazaar))
    heads = [
        SERVICE.sign(bazaar["game_id"], v, bytes.fromhex(bazaar["events"][v - 1]["hash"])) for v in (3, 5)
    ]
    other_game = SERVICE.sign("another-game", 5, b"\x01" * 32)
    receipts.write_text(json.dumps([msgspec.to_builtins(head) for head in [*heads, other_game]]))
    assert verify_file(game, receipts) == 0
    out = capsys.readouterr().out
    assert "; 2 kept receipts of this game agree (1 of other games left aside); winners:" in out
    receipts.write_text(json.dumps([msgspec.to_builtins(other_game)]))
    assert verify_file(game, receipts) == 0
    out = capsys.readouterr().out
    assert "none of the receipts given (1) is of this game: nothing was held to them" in out
    assert verify_file(game) == 0
    assert "receipt" not in capsys.readouterr().out
