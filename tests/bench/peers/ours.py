"""This service's side of the peers' comparison: concurrent Basari games over HTTP, each game's commands
scripted in advance (tests.bench.workload.basari_script) and sent one after the other as soon as the last
answer comes, a new game created (POST /v1/games) when one ends; the same for the never-ending Bazaar game
of the latency-growth run."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from dataclasses import dataclass, field
from typing import Any

import msgspec

from tests.bench import workload
from tests.bench.http_load import Connection

SCRIPTED_GAMES = 24  # distinct Basari games (seeds) the clients cycle through


class _Created(msgspec.Struct):
    game_id: str
    seats: list[dict[str, Any]]


class _Answer(msgspec.Struct):
    version: int


@dataclass
class Played:
    """What a load run measured: moves answered, its seconds, each move's latency (ms), the latencies by move
    number within its game, and each game's acknowledged versions (what a kill -9 may lose)."""

    moves: int = 0
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    by_move: dict[int, list[float]] = field(default_factory=dict)
    acknowledged: dict[str, list[int]] = field(default_factory=dict)


class Scripts:
    """Whole Basari games to play, computed once; each new game takes the next (label, script)."""

    def __init__(self, count: int = SCRIPTED_GAMES) -> None:
        labels = [f"peers-{n}" for n in range(count)]
        self._games = itertools.cycle([(label, workload.basari_script(label)) for label in labels])

    def next(self) -> tuple[str, list[tuple[int, dict[str, Any]]]]:
        """The next game's label and commands."""
        return next(self._games)


async def play(
    base: str,
    games: int,
    seconds: float,
    next_game: Any,
    game: str = "basari",
    players: tuple[str, ...] = workload.BASARI_PLAYERS,
    repeat: bool = True,
) -> Played:
    """``games`` clients for ``seconds``, each playing ``next_game()``'s (label, script) on its own keep-alive
    connection, then another (one game only unless ``repeat``); stops early, without failing, when the server
    goes away (the kill -9 run). Each client's first game is created before the clock starts, as load.js
    does; later ones count."""
    played = Played()

    async def create(connection: Connection) -> tuple[str, list[str], list[tuple[int, dict[str, Any]]]]:
        """A new game: its id, seat tokens and commands."""
        label, commands = next_game()
        body = msgspec.json.encode(workload.create_body(label, game, players))
        status, answer = await connection.post("/v1/games", body)
        assert status == 201, answer
        created = msgspec.json.decode(answer, type=_Created)
        return created.game_id, [seat["token"] for seat in created.seats], commands

    async def opened() -> tuple[Connection, Any]:
        """A client's connection and first game."""
        connection = Connection(base)
        await connection.open()
        return connection, await create(connection)

    async def client(connection: Connection, first: Any) -> None:
        current = first
        try:
            while True:
                game_id, tokens, commands = current
                acknowledged = played.acknowledged.setdefault(game_id, [])
                path = f"/v1/games/{game_id}/commands"
                for number, (seat, command) in enumerate(commands, start=1):
                    if time.perf_counter() >= deadline:
                        return
                    sent = time.perf_counter()
                    status, answer = await connection.post(
                        path, msgspec.json.encode(command), {"Authorization": f"Bearer {tokens[seat]}"}
                    )
                    latency = (time.perf_counter() - sent) * 1000
                    assert status == 200, answer
                    acknowledged.append(msgspec.json.decode(answer, type=_Answer).version)
                    played.latencies.append(latency)
                    played.by_move.setdefault(number, []).append(latency)
                    played.moves += 1
                if not repeat or time.perf_counter() >= deadline:
                    return
                current = await create(connection)
        except (OSError, asyncio.IncompleteReadError):
            return  # the server was killed
        finally:
            with contextlib.suppress(OSError):
                await connection.close()

    clients = await asyncio.gather(*(opened() for _ in range(games)))
    started = time.perf_counter()
    deadline = started + seconds
    await asyncio.gather(*(client(connection, first) for connection, first in clients))
    played.seconds = time.perf_counter() - started
    return played
