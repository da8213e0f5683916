"""Commit-reveal seeds of lobby games on the in-memory twins, no database (service/integrity/seeds.py): a
seat that gave no entropy counts as the empty one, the revealed seed mixes the server's committed half with
every seat's entropy in seat order, and an export whose seed parts were tampered with fails verification,
named. What only PostgreSQL keeps (write-once secrets and seats) and what HTTP shows are tested in
tests/integration/test_seed_commit_reveal.py."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain.core import commitment
from domain.registry import all_games
from service.games.schemas import CreateGame, PlayerIn
from service.integrity.audit import read_export, verify_export
from service.integrity.seeds import mixed_seed
from service.integrity.signing import Signer
from service.lobby.schemas import JoinIn
from tests.support.finished_games import finish
from tests.support.twins import World, twins


async def a_finished_lobby_game(world: World, entropies: tuple[str | None, str | None], seed: str) -> str:
    """A rated two-seat Bazaar game: the host creates it with ``entropies[0]``, a guest joins the open seat
    with ``entropies[1]`` (which starts it), and it is played to its end; its id."""
    _host, host_token = await world.accounts.create("Host")
    _guest, guest_token = await world.accounts.create("Guest")
    created = await world.lobby.create(
        CreateGame(
            game="bazaar",
            players=[PlayerIn(account="me"), PlayerIn(open=True)],
            rated=True,
            entropy=entropies[0],
        ),
        host_token,
    )
    joined = await world.lobby.join(created.game_id, guest_token, JoinIn(entropy=entropies[1]))
    assert joined.status == "started"
    await finish(world.games, created.game_id, seed)
    return created.game_id


async def test_no_entropy_counts_as_empty_and_every_entropy_changes_the_seed(world: World) -> None:
    game_id = await a_finished_lobby_game(world, (None, None), "no-entropy")
    report = await world.games.exporter.audit(game_id)
    committed = await world.games.keys.committed(game_id)
    assert committed is not None and report.seed is not None
    secret = committed.secret
    assert report.seed.entropies == ["", ""] and report.seed.seed == mixed_seed(secret, ["", ""])
    assert report.seed.server_seed == secret and report.seed.matches
    # the last joiner's entropy, the order of the seats and the server's half each change the seed;
    # entropies are length-prefixed, so moving characters from one to the next does too
    seeds = {
        mixed_seed(secret, ["", ""]),
        mixed_seed(secret, ["", "x"]),
        mixed_seed(secret, ["x", ""]),
        mixed_seed(secret, ["ab", "c"]),
        mixed_seed(secret, ["a", "bc"]),
        mixed_seed("another half", ["", ""]),
    }
    assert len(seeds) == 6


@pytest.fixture(scope="module")
async def finished_export() -> dict[str, Any]:
    """The export of a finished commit-reveal game (entropies "one" and "two"), as its JSON document."""
    world = twins(signer=Signer(Ed25519PrivateKey.generate()))  # an export verifies only when signed
    game_id = await a_finished_lobby_game(world, ("one", "two"), "tamper")
    document: dict[str, Any] = msgspec.json.decode(
        msgspec.json.encode(await world.games.exporter.export(game_id))
    )
    exported = read_export(json.dumps(document).encode())
    assert exported.entropies == ["one", "two"] and verify_export(exported, all_games()).ok
    return document


@pytest.mark.parametrize(
    ("edit", "named"),
    [
        (lambda doc: doc["entropies"].__setitem__(1, "steered"), "seed_mismatch"),
        (lambda doc: doc.__setitem__("server_seed", "0" * 64), "seed_mismatch"),
        (lambda doc: doc.__setitem__("entropies", list(reversed(doc["entropies"]))), "seed_mismatch"),
        (lambda doc: doc.__setitem__("seed_commitment", commitment(doc["seed"])), "seed_mismatch"),
        (lambda doc: doc.update(server_seed=None, entropies=None), "seed_mismatch"),
    ],
    ids=[
        "an entropy changed",
        "another server half",
        "seats' entropies swapped",
        "commitment to the seed",
        "parts dropped",
    ],
)
async def test_an_export_whose_seed_parts_were_tampered_with_fails_verification(
    edit: Any, named: str, finished_export: dict[str, Any]
) -> None:
    document = json.loads(json.dumps(finished_export))
    edit(document)
    findings = verify_export(read_export(json.dumps(document).encode()), all_games())
    assert findings.failures[:1] == [named], findings.problems
