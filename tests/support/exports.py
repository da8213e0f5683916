"""Finished games exported without a database: played through the service's own command handling on the
in-memory store (every command stored with its events, as the service stores them), then exported."""

from __future__ import annotations

import random
from typing import Any

import msgspec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain.registry import all_games
from domain.resign import decisions
from eventstore import InMemoryEventStore, InMemoryKeyStore
from service.games.schemas import CreateGame
from service.games.service import GameService
from service.integrity.signing import Signer


async def exported_game(
    game: str, players: int, seed: str, clock: dict[str, Any] | None = None, signer: Signer | None = None
) -> bytes:
    """The export document (JSON) of a ``game`` of ``players`` hot seats created with ``seed`` (and
    ``clock``), played to its end by random legal commands of random pending seats, never resigning; signed
    by ``signer`` (a new key if None)."""
    signer = signer or Signer(Ed25519PrivateKey.generate())
    service = GameService(InMemoryEventStore(), InMemoryKeyStore(), all_games(), signer=signer)
    body: dict[str, Any] = {
        "game": game,
        "players": [{"name": f"Player {seat}"} for seat in range(players)],
        "seed": seed,
    }
    if clock is not None:
        body["clock"] = clock
    game_id = (await service.commands.create(msgspec.convert(body, CreateGame))).game_id
    chooser = random.Random(seed)
    loaded = await service.loader.load(game_id)
    while not loaded.finished:
        seat = chooser.choice(loaded.game.pending(loaded.state)).seat
        choices = [c for c in decisions(loaded.legal(seat)) if type(c).__name__ != "Resign"]
        await service.commands.execute(game_id, seat, msgspec.to_builtins(chooser.choice(choices)))
        loaded = await service.loader.load(game_id)
    return msgspec.json.encode(await service.exporter.export(game_id))
