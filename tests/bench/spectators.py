"""The spectators phase of `make bench`: SSE streams of ``GET /v1/games/{id}/stream`` on loopback.

Shapes: 1,000 spectators on one game, and 100 games with 10 spectators each. This process opens the
streams (a minimal SSE client on asyncio streams) and plays the games through its own GameService on the
server's database, so the server hears of each move by NOTIFY as any process of a cluster would. For each
shape: whether every event reached every stream, the p99 delivery latency (from just before the command
is sent to the event read off the stream), the server's database statements per event (every statement
of the server process, counted by tests.support.counting_app; its most frequent ones go to stderr) and per
stream opened, its memory per idle stream (RSS growth over the streams opened), and
the CPU time per delivered message of the server and of this client.

``python -m tests.bench.spectators`` runs this phase alone (BENCH_SCALE scales the moves).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import asyncpg
import msgspec

from domain.registry import all_games
from eventstore import PostgresEventStore, PostgresKeyStore
from service.games.schemas import CreateGame
from service.games.service import GameService
from tests.bench import workload
from tests.bench.processes import cpu_seconds, rss_kb
from tests.e2e.conftest import start_server

DELIVERY_WAIT = 60.0  # seconds an event may take to reach every stream before the bench gives up
# (name, games, spectators per game, pause between a game's moves once delivered); 1x1 is the reference
# for the statements per event: a server's own followers (projection, bots, ...) read once per change too
SHAPES = (("1x1", 1, 1, 0.2), ("1x1000", 1, 1000, 0.2), ("100x10", 100, 10, 1.0))
# BENCH_SPECTATORS="1x1000" runs only the named shapes (comma-separated), e.g. while profiling one
ONLY = {name for name in os.environ.get("BENCH_SPECTATORS", "").split(",") if name}
SERVER_SETTINGS = {
    "STREAMS_PER_CLIENT": "100000",  # every stream comes from 127.0.0.1, one client to the server's cap
    "STREAMS_PER_ADDRESS": "100000",
    "STREAM_KEEPALIVE_SECONDS": "600",
    "DB_POOL_MAX": "20",
}


@dataclass
class Stream:
    """One open SSE stream and when each event id arrived on it."""

    game_id: str
    arrivals: dict[int, float] = field(default_factory=dict)
    opened: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None
    transport: asyncio.BaseTransport | None = None
    arrived: asyncio.Event = field(default_factory=asyncio.Event)  # set as events arrive (one per game)


class StreamReading(asyncio.Protocol):
    """The client end of one stream: parses the chunked SSE body as bytes arrive, each event's arrival
    taken when its bytes came in. A protocol, not a task awaiting a reader per chunk: this process reads
    every stream of a shape, so its own CPU per message would add to the latency it measures."""

    def __init__(self, stream: Stream, request: bytes) -> None:
        """Reading ``stream``, opened by sending ``request``."""
        self.stream = stream
        self.request = request
        self.received = b""  # the part of the response not parsed yet
        self.body = b""  # the part of the body not parsed yet (an SSE message not yet whole)
        self.started = False  # the response head has come (200)
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Send the request."""
        assert isinstance(transport, asyncio.WriteTransport)
        transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        """Take the head, then the body's chunks, then its whole SSE messages."""
        arrived = time.perf_counter()
        self.received += data
        if not self.started:
            head, separator, rest = self.received.partition(b"\r\n\r\n")
            if not separator:
                return
            if b" 200 " not in head.split(b"\r\n", 1)[0]:
                self._close(RuntimeError(f"stream refused: {head[:200]!r}"))
                return
            self.started, self.received = True, rest
        while (line_end := self.received.find(b"\r\n")) >= 0:
            size = int(self.received[:line_end].split(b";")[0], 16)
            if size == 0:
                self._close(None)
                return
            if len(self.received) < line_end + size + 4:
                break
            self.body += self.received[line_end + 2 : line_end + 2 + size]
            self.received = self.received[line_end + size + 4 :]
        while b"\r\n\r\n" in self.body:
            message, self.body = self.body.split(b"\r\n\r\n", 1)
            self.message(message.split(b"\r\n"), arrived)

    def message(self, lines: list[bytes], arrived: float) -> None:
        """One whole SSE message of a game's stream (its ``lines``), which came in at ``arrived``: the
        snapshot opens the stream, every other message records its version's arrival."""
        if b"event: snapshot" in lines:
            self.stream.opened.set()
            return
        for line in lines:
            if line.startswith(b"id: "):
                self.stream.arrivals[int(line[4:])] = arrived
                self.stream.arrived.set()

    def connection_lost(self, exc: Exception | None) -> None:
        """The stream is over."""
        self._close(exc)

    def _close(self, error: BaseException | None) -> None:
        """End the reading (with ``error``, if one)."""
        if not self.closed.done():
            if error is None:
                self.closed.set_result(None)
            else:
                self.closed.set_exception(error)


async def follow(base: str, stream: Stream) -> None:
    """Open ``stream`` and record each event's arrival until the connection closes (chunked SSE)."""
    parts = urlsplit(base)
    request = (
        f"GET /v1/games/{stream.game_id}/stream HTTP/1.1\r\nHost: {parts.netloc}\r\n"
        "Accept: text/event-stream\r\n\r\n"
    ).encode()
    transport, reading = await asyncio.get_running_loop().create_connection(
        lambda: StreamReading(stream, request), parts.hostname or "127.0.0.1", parts.port or 80
    )
    stream.transport = transport
    try:
        await reading.closed
    finally:
        transport.close()


def _retrieved(future: asyncio.Future[Any]) -> None:
    """Take a finished future's outcome, so asyncio does not report it as never retrieved."""
    if not future.cancelled():
        future.exception()


async def statements(base: str) -> collections.Counter[str]:
    """The statements the server sent its database so far, by statement (tests.support.counting_app)."""
    parts = urlsplit(base)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    writer.write(
        f"GET /bench/statements HTTP/1.1\r\nHost: {parts.netloc}\r\nConnection: close\r\n\r\n".encode()
    )
    answer = await reader.read()
    writer.close()
    return collections.Counter(json.loads(answer.split(b"\r\n\r\n", 1)[1]))


def report_statements(what: str, spent: collections.Counter[str], per: int) -> None:
    """The statements spent ``what`` (per ``per`` events or streams), most frequent first, on stderr: what
    the bench's count is made of."""
    print(f"server statements {what}", file=sys.stderr)
    for query, count in spent.most_common(8):
        print(f"  {count / max(1, per):7.3f}  {query[:110]}", file=sys.stderr)


async def shape(
    name: str,
    base: str,
    server_pid: int,
    service: GameService,
    games: int,
    per_game: int,
    moves: int,
    pause: float,
) -> dict[str, float]:
    """``games`` games with ``per_game`` spectators each, ``moves`` commands per game (``pause`` seconds
    apart once delivered): the measures."""
    labels = [f"spect-{games}-{g}" for g in range(games)]
    created = []
    for label in labels:
        game = await service.commands.create(msgspec.convert(workload.create_body(label), CreateGame))
        created.append(game)
    scripts = [workload.script(label, moves) for label in labels]
    arrived = {game.game_id: asyncio.Event() for game in created}  # the play waits on it, not polling
    streams = [
        Stream(game.game_id, arrived=arrived[game.game_id]) for game in created for _ in range(per_game)
    ]
    before_kb = rss_kb(server_pid)
    counted_closed = await statements(base)
    for start in range(0, len(streams), 100):  # opened 100 at a time: the server's accept backlog
        batch = streams[start : start + 100]
        for stream in batch:
            stream.task = asyncio.create_task(follow(base, stream))
        opened = asyncio.gather(*(s.opened.wait() for s in batch))
        failed = asyncio.gather(*(s.task for s in batch if s.task is not None))  # raises if one fails
        failed.add_done_callback(_retrieved)  # the streams end cancelled: not an error to report
        waits: set[asyncio.Future[Any]] = {opened, failed}
        done, _ = await asyncio.wait(waits, timeout=DELIVERY_WAIT, return_when="FIRST_COMPLETED")
        if failed in done:
            failed.result()
        if opened not in done:
            raise RuntimeError(f"streams not open after {DELIVERY_WAIT} s")
    await asyncio.sleep(1.0)  # the server settles (its readers' first loads) before memory is read
    per_stream_kb = (rss_kb(server_pid) - before_kb) / len(streams)

    sent_at: dict[tuple[str, int], float] = {}
    by_game: dict[str, list[Stream]] = {}
    for stream in streams:
        by_game.setdefault(stream.game_id, []).append(stream)
    counted_before = await statements(base)
    opening = counted_before - counted_closed
    report_statements(f"per stream opened, {name}", opening, len(streams))
    cpu_before, client_before = cpu_seconds(server_pid), time.process_time()
    appended = 0

    async def play(index: int) -> None:
        """Each move once the previous one reached every stream of the game (or DELIVERY_WAIT passed),
        then a pause: latency is measured at a pace the server keeps up with, not at saturation."""
        nonlocal appended
        game = created[index]
        await asyncio.sleep(pause * index / games)  # the games' moves spread over the pause
        for seat, body in scripts[index]:
            started = time.perf_counter()
            accepted = await service.commands.execute(game.game_id, seat, body)
            for event in accepted.events:
                sent_at[(game.game_id, event.version)] = started
            appended += len(accepted.events)
            deadline = started + DELIVERY_WAIT
            while (left := deadline - time.perf_counter()) > 0:
                arrived[game.game_id].clear()
                if all(accepted.version in s.arrivals for s in by_game[game.game_id]):
                    break
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(arrived[game.game_id].wait(), left)
            await asyncio.sleep(pause)

    await asyncio.gather(*(play(g) for g in range(games)))
    expected = {g.game_id: sorted(v for (gid, v) in sent_at if gid == g.game_id) for g in created}
    deadline = time.perf_counter() + DELIVERY_WAIT  # stragglers (a move whose own wait ran out)
    while time.perf_counter() < deadline and not all(
        all(v in s.arrivals for v in expected[s.game_id]) for s in streams
    ):
        await asyncio.sleep(0.05)
    spent = await statements(base) - counted_before
    report_statements(f"per event, {name}", spent, appended)
    server_cpu, client_cpu = cpu_seconds(server_pid) - cpu_before, time.process_time() - client_before
    latencies = sorted(
        s.arrivals[v] - sent_at[(s.game_id, v)]
        for s in streams
        for v in expected[s.game_id]
        if v in s.arrivals
    )
    deliveries = sum(len(expected[s.game_id]) for s in streams)
    for stream in streams:
        if stream.transport is not None:
            stream.transport.close()
        if stream.task is not None:
            stream.task.cancel()
    await asyncio.gather(*(s.task for s in streams if s.task is not None), return_exceptions=True)
    return {
        "delivered": len(latencies) / deliveries,
        "p50_ms": latencies[len(latencies) // 2] * 1000 if latencies else float("nan"),
        "p99_ms": latencies[int(len(latencies) * 0.99)] * 1000 if latencies else float("nan"),
        "statements_per_event": spent.total() / max(1, appended),
        # opening a stream (its request's load and seat, once): apart from the per-event count above
        "opening_statements_per_stream": opening.total() / len(streams),
        "kb_per_stream": per_stream_kb,
        # CPU per message delivered (an event to one stream), the server's and this client's (which also
        # plays the games): what the latency is made of when both share the machine's cores
        "server_us_per_delivery": server_cpu * 1e6 / max(1, deliveries),
        "client_us_per_delivery": client_cpu * 1e6 / max(1, deliveries),
    }


async def spectators(database_url: str, pool: asyncpg.Pool, scale: float) -> dict[str, Any]:
    """Each of SHAPES on a server of its own (one worker); the measures keyed ``spect_<shape>_<measure>``."""
    moves = max(10, int(40 * scale))
    store = PostgresEventStore(pool)
    await store.start()  # this process's moves are NOTIFYed to the server
    service = GameService(store, PostgresKeyStore(pool), all_games())
    results: dict[str, Any] = {}
    try:
        for name, games, per_game, pause in SHAPES:
            if ONLY and name not in ONLY:
                continue
            # a server of its own per shape, so its memory growth is this shape's streams alone
            process, base = start_server(
                database_url,
                1,
                settings=SERVER_SETTINGS,
                app="tests.support.counting_app:create_counting_app",
            )
            try:
                measured = await shape(name, base, process.pid, service, games, per_game, moves, pause)
            except Exception as exc:  # e.g. streams refused: reported in the table, the other shapes go on
                measured = {"delivered": 0.0}
                print(f"spectators {name}: {exc!r}"[:300], file=sys.stderr)
            finally:
                process.terminate()
                try:
                    process.wait(10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(10)
            results.update({f"spect_{name}_{key}": value for key, value in measured.items()})
    finally:
        await store.stop()
    return results


async def main() -> None:
    """This phase alone, on a fresh database of DATABASE_URL's server (or an embedded one)."""
    from tests.bench.__main__ import SCALE, fresh_databases, quiet_logging

    quiet_logging()

    async with fresh_databases(1) as (database_url,):
        from service.runtime.database import create_pool
        from service.runtime.settings import Settings

        pool = await create_pool(database_url, Settings.from_env())
        try:
            print(json.dumps(await spectators(database_url, pool, SCALE), indent=1))
        finally:
            await pool.close()


if __name__ == "__main__":
    asyncio.run(main())
