"""This service's side of the peers' comparison: concurrent Basari games over HTTP, each game's commands
scripted in advance (tests.bench.workload.basari_script) and sent one after the other as soon as the last
answer comes, a new game created (POST /v1/games) when one ends; and the latency-growth run (``paired``),
moves of old and of young games of the never-ending Bazaar sent in turns."""

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
    """What a load run measured: moves answered, its seconds, each move's latency (ms), and each game's
    acknowledged versions (what a kill -9 may lose)."""

    moves: int = 0
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    acknowledged: dict[str, list[int]] = field(default_factory=dict)


@dataclass
class Paired:
    """What a paired growth run measured: moves answered (the old games' first ones too) and each pair's
    latencies (ms), the old game's move and the young game's."""

    moves: int = 0
    pairs: list[tuple[float, float]] = field(default_factory=list)


@dataclass
class Game:
    """A game being played: its id, seat tokens, scripted commands and how many of them were sent."""

    game_id: str
    tokens: list[str]
    commands: list[tuple[int, dict[str, Any]]]
    sent: int = 0

    @property
    def over(self) -> bool:
        """Whether its script ran out."""
        return self.sent >= len(self.commands)


class Scripts:
    """Whole Basari games to play, computed once; each new game takes the next (label, script)."""

    def __init__(self, count: int = SCRIPTED_GAMES) -> None:
        labels = [f"peers-{n}" for n in range(count)]
        self._games = itertools.cycle([(label, workload.basari_script(label)) for label in labels])

    def next(self) -> tuple[str, list[tuple[int, dict[str, Any]]]]:
        """The next game's label and commands."""
        return next(self._games)


async def create(
    connection: Connection,
    label: str,
    commands: list[tuple[int, dict[str, Any]]],
    game: str = "basari",
    players: tuple[str, ...] = workload.BASARI_PLAYERS,
) -> Game:
    """A new game (POST /v1/games) of the bench game ``label``, to be played by ``commands``."""
    body = msgspec.json.encode(workload.create_body(label, game, players))
    status, answer = await connection.post("/v1/games", body)
    assert status == 201, answer
    created = msgspec.json.decode(answer, type=_Created)
    return Game(created.game_id, [seat["token"] for seat in created.seats], commands)


async def move(connection: Connection, game: Game) -> tuple[float, int]:
    """Send ``game``'s next command; its latency (ms) and the version the answer acknowledged."""
    seat, command = game.commands[game.sent]
    sent = time.perf_counter()
    status, answer = await connection.post(
        f"/v1/games/{game.game_id}/commands",
        msgspec.json.encode(command),
        {"Authorization": f"Bearer {game.tokens[seat]}"},
    )
    latency = (time.perf_counter() - sent) * 1000
    assert status == 200, answer
    game.sent += 1
    return latency, msgspec.json.decode(answer, type=_Answer).version


async def play(base: str, games: int, seconds: float, next_game: Any) -> Played:
    """``games`` clients for ``seconds``, each playing ``next_game()``'s (label, Basari script) on its own
    keep-alive connection, then another; stops early, without failing, when the server goes away (the kill -9
    run). Each client's first game is created before the clock starts, as load.js does; later ones count."""
    played = Played()

    async def opened() -> tuple[Connection, Game]:
        """A client's connection and first game."""
        connection = Connection(base)
        await connection.open()
        return connection, await create(connection, *next_game())

    async def client(connection: Connection, first: Game) -> None:
        current = first
        try:
            while True:
                acknowledged = played.acknowledged.setdefault(current.game_id, [])
                while not current.over:
                    if time.perf_counter() >= deadline:
                        return
                    latency, version = await move(connection, current)
                    acknowledged.append(version)
                    played.latencies.append(latency)
                    played.moves += 1
                if time.perf_counter() >= deadline:
                    return
                current = await create(connection, *next_game())
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


async def paired(base: str, games: int, old_moves: int, pairs: int, young_moves: int) -> Paired:
    """The latency-growth run: ``games`` clients, each on its own keep-alive connection with its own old game
    of the never-ending Bazaar. First every old game is played to ``old_moves`` moves (not timed); then each
    client sends ``pairs`` pairs of moves, one on its old game and one on a young game (moves 1 to
    ``young_moves`` of a fresh game, then another), in turns, the pair's order alternating."""
    out = Paired()
    young_script = workload.script("growth-young", young_moves)

    async def client(number: int) -> None:
        connection = Connection(base)
        await connection.open()
        try:
            label = f"growth-{number}"
            old = await create(
                connection, label, workload.script(label, old_moves + pairs), workload.GAME, workload.PLAYERS
            )
            for _ in range(old_moves):
                await move(connection, old)
            out.moves += old_moves
            await ready.wait()  # every old game is old before any pair is timed
            young: Game | None = None
            for n in range(pairs):
                if young is None or young.over:
                    young = await create(
                        connection, "growth-young", young_script, workload.GAME, workload.PLAYERS
                    )
                if (n + number) % 2:
                    young_ms, _ = await move(connection, young)
                    old_ms, _ = await move(connection, old)
                else:
                    old_ms, _ = await move(connection, old)
                    young_ms, _ = await move(connection, young)
                out.pairs.append((old_ms, young_ms))
                out.moves += 2
        finally:
            await connection.close()

    ready = asyncio.Barrier(games)
    await asyncio.gather(*(client(number) for number in range(games)))
    return out
