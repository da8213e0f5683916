"""The mixed-load phase of `make bench`: what a site operator sizes by.

GAMES concurrent Bazaar games (1,000 at BENCH_SCALE=1) played over HTTP against one app process
(``python -m service serve``, WORKERS=1) as people play them: each player is an account, and waits a think
time drawn from a log-normal distribution (median THINK_MEDIAN_SECONDS, capped at THINK_CAP_SECONDS) before
each command. Four games in five are two accounts playing a scripted game (tests/bench/workload.py); every
fifth is one account against the server's BOT_LEVEL bot, the person learning of its turn from its account
stream and choosing from the game's ``legal`` (a game the bot ends is replaced by a new one). Every game has
SPECTATORS_PER_GAME live streams (``/v1/games/{id}/stream``) and every account its ``/v1/me/stream``, all
on this process's one event loop (protocols, not a task per read: tests/bench/spectators.py).

Over a window of WINDOW_SECONDS, once the games have settled: moves per second (every command stored, the
bot's included, counted from the store), the app process's and the database server's CPU per move (their
process trees' utime + stime from /proc), the load generator's own CPU per move, p50/p99 move latency (a
command sent to its answer read) and delivery latency (the answer read to the event read off each of the
game's spectator streams; an event that reaches a stream before its answer reaches the player counts 0).
Then a quiet window of QUIET_SECONDS with every stream open and nobody moving: what the audience costs by
itself, and by difference what a move adds to it.

Then the capacity search: the game count is doubled (halved while even the first count misses) and each
count measured the same way, until p99 move latency passes LATENCY_TARGET_MS or SEARCH_MAX_GAMES is
reached: the largest count within the target is what one app core carries, reported with the share of a
core the app process used there. Last, tests/bench/scaleout.py: one, two and three app processes.

``python -m tests.bench.mixed`` runs these phases (`make bench` does); BENCH_SCALE scales the games and the
windows (0.05 is the quick mode), BENCH_MIXED_MAX_GAMES caps the search, BENCH_MIXED_PHASES (``mixed``,
``search``, ``scaleout``) runs some of them only, BENCH_MIXED_ACCOUNT_STREAMS=0 leaves the account streams out.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import json
import math
import os
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import asyncpg
import httpx
import msgspec

from tests.bench import workload
from tests.bench.__main__ import SCALE, database_server_pid, fresh_databases, quiet_logging
from tests.bench.http_load import Connection
from tests.bench.processes import cpu_seconds
from tests.bench.scaleout import app_processes, machine_busy_seconds, scale_out, scale_out_table
from tests.bench.spectators import Stream, StreamReading, follow

GAMES = max(10, int(1000 * SCALE))
SPECTATORS_PER_GAME = 5
# BENCH_MIXED_ACCOUNT_STREAMS=0 opens no /v1/me/stream (the person against the bot then reads the game after
# each think time instead of waiting for its turn's notice): what the account streams cost, by difference
ACCOUNT_STREAMS = os.environ.get("BENCH_MIXED_ACCOUNT_STREAMS", "1") != "0"
BOT_EVERY = 5  # every fifth game is a person against the server's bot
BOT_LEVEL = "greedy"
# Think times: log-normal, median 2.5 s (a mean of about 3.4 s), most between 1 and 6 s, at most 30 s: a
# person rolling, choosing a colour and ending a turn in a game of Bazaar.
THINK_MEDIAN_SECONDS = 2.5
THINK_SIGMA = 0.8
THINK_CAP_SECONDS = 30.0
WINDOW_SECONDS = max(10.0, 60.0 * SCALE)
QUIET_SECONDS = max(5.0, 20.0 * SCALE)  # a window with every stream open and nobody moving
SETTLE_SECONDS = 2 * THINK_MEDIAN_SECONDS  # after games are added, before a window: their first moves spread
DELIVERY_GRACE_SECONDS = 2.0  # after a window, for its last events to reach the streams
LATENCY_TARGET_MS = 100.0  # p99 move latency one app core must keep
DELIVERY_TARGET_MS = 250.0  # p99 delivery latency (the spectator phase's target)
SEARCH_MAX_GAMES = int(os.environ.get("BENCH_MIXED_MAX_GAMES", str(8 * GAMES)))
SEARCH_MIN_GAMES = max(1, GAMES // 8)  # fewer games make too few moves in a window for a p99
MIN_MOVES_FOR_P99 = 100  # a count whose window timed fewer of the players' moves sizes nothing
SCRIPT_LENGTH = 64  # commands scripted for a game at a time (extended when played out)
KEEP_ALIVE_SECONDS = 4.0  # a player's connection idle this long is reopened: uvicorn closes it after 5 s
SETUP_CONCURRENCY = 16  # requests in flight while games are set up (outside every window)
OPEN_WAIT = 60.0  # seconds a stream may take to open
BUSY = (429, 503)  # answers a person meets with trying again later (counted as errors in a window)
OPEN_BATCH = 100  # streams opened at a time: the server's accept backlog (as tests/bench/spectators.py)
PHASES = frozenset(os.environ.get("BENCH_MIXED_PHASES", "mixed,search,scaleout").replace(" ", "").split(","))
SERVER_SETTINGS = {
    "STREAMS_PER_CLIENT": "1000000",  # every stream comes from 127.0.0.1
    "STREAMS_PER_ADDRESS": "1000000",
    "ACCOUNT_SIGNUPS_PER_HOUR": "1000000",  # every account signs up from 127.0.0.1
    "DB_POOL_MAX": "20",
}


@dataclass
class Table:
    """One game of the load: its players' account tokens (the scripted game's seats in order; the person
    alone against the bot) and where its play is."""

    label: str
    against_bot: bool
    tokens: list[str]
    game_id: str = ""
    script: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    next: int = 0  # the script's next command
    due: int = -1  # against the bot: the newest version a your_turn notice named
    turn: asyncio.Event = field(default_factory=asyncio.Event)  # a your_turn notice came
    replaced: asyncio.Event = field(default_factory=asyncio.Event)  # set once the game is replaced
    connection: Connection | None = None
    used: float = 0.0  # when the connection last answered
    tasks: list[asyncio.Task[None]] = field(default_factory=list)
    streams: list[Stream] = field(default_factory=list)  # its spectators' streams, past ones included


class Window:
    """What the players saw while a window was open: move latencies and when each event's answer came."""

    def __init__(self) -> None:
        self.open = False
        self.latencies: list[float] = []
        self.answered: dict[tuple[str, int], float] = {}
        self.commands = 0
        self.errors: collections.Counter[str] = collections.Counter()
        self.notices = 0


class AccountReading(StreamReading):
    """The client end of one account's ``/v1/me/stream``: its snapshot and ``your_turn`` notices wake the
    person's play in a game against the bot; every notice is counted."""

    def __init__(self, stream: Stream, request: bytes, notice: Callable[[str, dict[str, Any]], None]) -> None:
        super().__init__(stream, request)
        self.notice = notice

    def message(self, lines: list[bytes], arrived: float) -> None:
        """One SSE message: its event name and JSON data handed to ``notice``."""
        kind, data = "message", b""
        for line in lines:
            if line.startswith(b"event: "):
                kind = line[7:].decode()
            elif line.startswith(b"data: "):
                data += line[6:]
        if kind == "snapshot":
            self.stream.opened.set()
        if data:
            self.notice(kind, json.loads(data))


def think(chooser: random.Random) -> float:
    """A person's think time before a command (seconds)."""
    return min(THINK_CAP_SECONDS, chooser.lognormvariate(math.log(THINK_MEDIAN_SECONDS), THINK_SIGMA))


def percentile(values: list[float], share: float) -> float:
    """The ``share`` percentile of ``values`` (seconds) in milliseconds; nan for none."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))] * 1000


class MixedLoad:
    """The games, players, spectators and account streams loading the app process at ``base``."""

    def __init__(self, base: str, setup: httpx.AsyncClient) -> None:
        self.base = base
        self.setup = setup
        self.tables: list[Table] = []
        self.by_game: dict[str, Table] = {}
        self.window = Window()
        self.account_streams: dict[str, tuple[Stream, asyncio.Task[None]]] = {}  # by account token
        self.limit = asyncio.Semaphore(SETUP_CONCURRENCY)
        self.created = 0
        self.playing = asyncio.Event()  # cleared: the players hold their next command (a quiet window)
        self.playing.set()

    # --- setting games up (outside every window) ---

    async def signed_up(self, name: str) -> str:
        """A new account's token."""
        async with self.limit:
            answer = await self.setup.post("/v1/accounts", json={"name": name})
        answer.raise_for_status()
        token: str = answer.json()["token"]
        return token

    async def new_game(self, table: Table) -> None:
        """Create ``table``'s game (against the bot: started at once; else the second account joins)."""
        me = {"Authorization": f"Bearer {table.tokens[0]}"}
        if table.against_bot:
            body: dict[str, Any] = {"game": workload.GAME, "players": [{"account": "me"}, {"bot": BOT_LEVEL}]}
        else:
            body = {
                "game": workload.GAME,
                "players": [{"account": "me"}, {"invite": f"{table.label}-b"}],
                "seed": workload.seed_of(table.label),  # chosen, so the script's moves are the game's
            }
        async with self.limit:
            answer = await self.setup.post("/v1/games", json=body, headers=me)
            answer.raise_for_status()
            game_id: str = answer.json()["game_id"]
            if not table.against_bot:
                joined = await self.setup.post(
                    f"/v1/games/{game_id}/join",
                    json={},
                    headers={"Authorization": f"Bearer {table.tokens[1]}"},
                )
                joined.raise_for_status()
        table.game_id = game_id
        self.by_game[game_id] = table

    async def set_up(self, index: int) -> Table:
        """Game ``index``: its accounts, its game and (scripted) its commands."""
        label = f"mixed-{index}"
        against_bot = index % BOT_EVERY == BOT_EVERY - 1
        names = [f"{label}-a"] if against_bot else [f"{label}-a", f"{label}-b"]
        tokens = [await self.signed_up(name) for name in names]
        table = Table(label, against_bot, tokens)
        await self.new_game(table)
        if not against_bot:
            table.script = workload.script(label, SCRIPT_LENGTH)
        return table

    async def add(self, count: int) -> None:
        """Add ``count`` games with their players, spectators and account streams, playing."""
        start = self.created
        self.created += count
        tables = await asyncio.gather(*(self.set_up(index) for index in range(start, start + count)))
        tokens = [token for table in tables for token in table.tokens] if ACCOUNT_STREAMS else []
        for first in range(0, len(tokens), OPEN_BATCH):  # a batch at a time: the server's accept backlog
            await asyncio.gather(*(self.open_account_stream(t) for t in tokens[first : first + OPEN_BATCH]))
        per_batch = max(1, OPEN_BATCH // SPECTATORS_PER_GAME)
        for first in range(0, len(tables), per_batch):
            batch = tables[first : first + per_batch]
            for table in batch:
                for _ in range(SPECTATORS_PER_GAME):
                    table.tasks.append(asyncio.create_task(self.watch(table)))
            await asyncio.sleep(0)  # each watcher has made its stream
            async with asyncio.timeout(OPEN_WAIT):  # every spectator's snapshot came
                for table in batch:
                    for stream in list(table.streams):
                        await stream.opened.wait()
        for table in tables:
            chooser = random.Random(table.label)
            play = self.play_against_bot if table.against_bot else self.play_script
            table.tasks.append(asyncio.create_task(self.guarded(play, table, chooser)))
            self.tables.append(table)

    async def remove(self, count: int) -> None:
        """Stop the last ``count`` games' play and close their streams and their accounts' streams."""
        for table in self.tables[-count:]:
            tasks = list(table.tasks)
            for token in table.tokens:
                if token in self.account_streams:
                    stream, task = self.account_streams.pop(token)
                    table.streams.append(stream)
                    tasks.append(task)
            for stream in table.streams:
                if stream.transport is not None:
                    stream.transport.close()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        del self.tables[-count:]

    async def open_account_stream(self, token: str) -> None:
        """Follow one account's ``/v1/me/stream`` until the load stops; wait for its snapshot."""
        parts = urlsplit(self.base)
        request = (
            f"GET /v1/me/stream HTTP/1.1\r\nHost: {parts.netloc}\r\nAccept: text/event-stream\r\n"
            f"Authorization: Bearer {token}\r\n\r\n"
        ).encode()
        stream = Stream("account")

        async def follow_account() -> None:
            transport, reading = await asyncio.get_running_loop().create_connection(
                lambda: AccountReading(stream, request, self.noticed),
                parts.hostname or "127.0.0.1",
                parts.port or 80,
            )
            stream.transport = transport
            try:
                await reading.closed
            finally:
                transport.close()

        task = asyncio.create_task(follow_account())
        self.account_streams[token] = (stream, task)
        async with asyncio.timeout(OPEN_WAIT):
            await stream.opened.wait()

    def noticed(self, kind: str, data: dict[str, Any]) -> None:
        """An account stream's notice: a turn due in a game against the bot wakes its person."""
        if self.window.open and kind != "snapshot":
            self.window.notices += 1
        due = (
            [(g["game_id"], g["version"]) for g in data.get("games", []) if g.get("your_turn")]
            if kind == "snapshot"
            else [(data["game_id"], data["version"])]
            if kind in ("your_turn", "game_finished")
            else []
        )
        for game_id, version in due:
            table = self.by_game.get(game_id)
            if table is not None and table.against_bot:
                table.due = max(table.due, version)
                table.turn.set()

    # --- playing ---

    async def guarded(
        self, play: Callable[[Table, random.Random], Any], table: Table, chooser: random.Random
    ) -> None:
        """Run one game's play; a failure is counted (and the game stops), never raised into the load."""
        try:
            await play(table, chooser)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self.window.errors[f"play stopped: {type(exc).__name__}: {str(exc)[:120]}"] += 1

    async def request(
        self, table: Table, method: str, path: str, body: bytes | None, token: str
    ) -> tuple[int, bytes]:
        """One request on the game's keep-alive connection (reopened when idle near uvicorn's timeout, or
        closed by the server)."""
        headers = {"Authorization": f"Bearer {token}"}
        for attempt in range(2):
            if table.connection is not None and time.perf_counter() - table.used > KEEP_ALIVE_SECONDS:
                await table.connection.close()
                table.connection = None
            if table.connection is None:
                table.connection = Connection(self.base)
                await table.connection.open()
            try:
                answer = await table.connection.send(method, path, body, headers)
                table.used = time.perf_counter()
                return answer
            except (ConnectionError, asyncio.IncompleteReadError):
                with contextlib.suppress(Exception):
                    await table.connection.close()
                table.connection = None
                if attempt == 1:
                    raise
        raise AssertionError("unreachable")

    async def command(self, table: Table, token: str, body: dict[str, Any]) -> int:
        """Post a command; while the window is open, its latency and when each of its events was answered."""
        sent = time.perf_counter()
        status, answer = await self.request(
            table, "POST", f"/v1/games/{table.game_id}/commands", msgspec.json.encode(body), token
        )
        answered = time.perf_counter()
        if not self.window.open:
            return status
        if status != 200:
            self.window.errors[f"command answered {status}"] += 1
            return status
        self.window.commands += 1
        self.window.latencies.append(answered - sent)
        decoded = json.loads(answer)
        version, count = decoded["version"], len(decoded["events"])
        for each in range(version - count + 1, version + 1):
            self.window.answered[(table.game_id, each)] = answered
        return status

    async def play_script(self, table: Table, chooser: random.Random) -> None:
        """Two accounts play the scripted game, each command after a think time."""
        await asyncio.sleep(chooser.uniform(0, THINK_MEDIAN_SECONDS))  # the games' first moves spread
        while True:
            await asyncio.sleep(think(chooser))
            if table.next >= len(table.script):
                table.script = workload.script(table.label, 2 * len(table.script))
            seat, body = table.script[table.next]
            await self.playing.wait()
            status = await self.command(table, table.tokens[seat], body)
            if status in BUSY:
                continue  # the person tries the same command again after another think time
            if status != 200:
                raise RuntimeError(f"scripted command refused ({status})")
            table.next += 1

    async def play_against_bot(self, table: Table, chooser: random.Random) -> None:
        """A person against the server's bot: on each your_turn notice, think, read the game, and send its
        first legal command that is not a purchase; a finished game is replaced by a new one."""
        acted = -1  # the version the person last read the game at
        token = table.tokens[0]
        await asyncio.sleep(chooser.uniform(0, THINK_MEDIAN_SECONDS))
        while True:
            while ACCOUNT_STREAMS and table.due <= acted:
                table.turn.clear()
                with contextlib.suppress(TimeoutError):  # a person looks again now and then
                    await asyncio.wait_for(table.turn.wait(), 10.0)
                if not table.turn.is_set():
                    break
            await asyncio.sleep(think(chooser))
            await self.playing.wait()
            status, answer = await self.request(table, "GET", f"/v1/games/{table.game_id}", None, token)
            if status in BUSY:
                if self.window.open:
                    self.window.errors[f"game read answered {status}"] += 1
                continue  # read again after another think time
            if status != 200:
                raise RuntimeError(f"game read answered {status}")
            detail = json.loads(answer)
            if detail["status"] != "active":
                await self.replace(table)
                acted = -1
                continue
            acted = detail["version"]
            legal = [entry for entry in detail["legal"] if entry["type"] != "resign"]
            if legal:
                choice = next((entry for entry in legal if entry["type"] != "buy"), legal[0])
                await self.command(table, token, choice)  # 409 when the bot moved first: read again

    async def replace(self, table: Table) -> None:
        """A new game against the bot for ``table``'s person; its spectators move to it."""
        await self.new_game(table)
        table.due = 0  # read the new game at once
        table.replaced.set()
        table.replaced = asyncio.Event()

    async def watch(self, table: Table) -> None:
        """One spectator: follows the table's game, and the next one when the bot's game is replaced."""
        while True:
            stream = Stream(table.game_id)
            table.streams.append(stream)
            replaced = table.replaced
            try:
                await follow(self.base, stream)
            except (ConnectionError, RuntimeError) as exc:
                self.window.errors[f"spectator stream: {type(exc).__name__}"] += 1
            if stream.game_id == table.game_id:  # ended with its game: wait for the next one
                await replaced.wait()

    async def stop(self) -> None:
        """Stop every game and close every stream."""
        await self.remove(len(self.tables))

    # --- measuring ---

    def deliveries(self) -> tuple[list[float], int]:
        """The window's delivery latencies (answer read → event read off a spectator stream, at least 0)
        and how many deliveries were expected (each answered event to each spectator of its game)."""
        streams: dict[str, list[Stream]] = collections.defaultdict(list)
        for table in self.tables:
            for stream in table.streams:
                if stream.opened.is_set():
                    streams[stream.game_id].append(stream)
        latencies: list[float] = []
        expected = 0
        for (game_id, version), answered in self.window.answered.items():
            for stream in streams.get(game_id, []):
                expected += 1
                arrived = stream.arrivals.get(version)
                if arrived is not None:
                    latencies.append(max(0.0, arrived - answered))
        return latencies, expected


async def stored_position(pool: asyncpg.Pool) -> int:
    """The store's newest feed position."""
    position: int | None = await pool.fetchval("SELECT max(position) FROM events")
    return position or 0


async def moves_between(pool: asyncpg.Pool, after: int, upto: int) -> tuple[int, int]:
    """Commands and events stored between two feed positions: a command is one append to one stream, in
    one transaction (the bot's moves and the people's alike)."""
    row = await pool.fetchrow(
        "SELECT count(DISTINCT (stream_id, tx_id)), count(*) FROM events WHERE position > $1 AND position <= $2",
        after,
        upto,
    )
    return int(row[0]), int(row[1])


async def measure(
    load: MixedLoad,
    pool: asyncpg.Pool,
    app_pid: int,
    database_pid: int | None,
    seconds: float = WINDOW_SECONDS,
) -> dict[str, Any]:
    """One window of ``seconds`` over the load as it runs: the measures of the mixed phase."""
    clocks: dict[str, Callable[[], float]] = {
        "app": functools.partial(cpu_seconds, app_pid),
        "load_generator": time.process_time,
        "machine": machine_busy_seconds,
    }
    if database_pid is not None:
        clocks["database"] = functools.partial(cpu_seconds, database_pid)
    load.window = Window()
    before = {name: clock() for name, clock in clocks.items()}
    position = await stored_position(pool)
    started = time.perf_counter()
    load.window.open = True
    await asyncio.sleep(seconds)  # the window: the load runs by itself meanwhile
    load.window.open = False
    elapsed = time.perf_counter() - started
    spent = {name: clock() - before[name] for name, clock in clocks.items()}
    moves, events = await moves_between(pool, position, await stored_position(pool))
    await asyncio.sleep(DELIVERY_GRACE_SECONDS)  # the window's last events reach their streams
    delivered, expected = load.deliveries()
    window = load.window
    results: dict[str, Any] = {
        "games": len(load.tables),
        "games_against_bot": sum(1 for t in load.tables if t.against_bot),
        "spectator_streams": len(load.tables) * SPECTATORS_PER_GAME,
        "account_streams": len(load.account_streams),
        "window_s": elapsed,
        "moves_per_s": moves / elapsed,
        "events_per_move": events / max(1, moves),
        "player_commands_per_s": window.commands / elapsed,
        "player_commands": window.commands,
        "account_notices_per_s": window.notices / elapsed,
        "move_p50_ms": percentile(window.latencies, 0.5),
        "move_p99_ms": percentile(window.latencies, 0.99),
        "delivery_p50_ms": percentile(delivered, 0.5),
        "delivery_p99_ms": percentile(delivered, 0.99),
        "delivered": len(delivered) / max(1, expected),
        "errors": dict(window.errors),
    }
    for name, seconds in spent.items():
        results[f"{name}_us_per_move"] = seconds * 1e6 / max(1, moves)
        results[f"{name}_cores"] = seconds / elapsed
    return results


async def mixed(database_url: str, pool: asyncpg.Pool) -> dict[str, Any]:
    """The mixed phase at GAMES games, then the capacity search: the measures keyed ``mixed_<measure>`` and
    ``search``, one entry per game count measured."""
    results: dict[str, Any] = {}
    database_pid = await database_server_pid(pool)
    with app_processes(database_url, 1, SERVER_SETTINGS) as [(process, base)]:
        async with httpx.AsyncClient(base_url=base, timeout=OPEN_WAIT) as setup:
            load = MixedLoad(base, setup)
            try:
                phase(f"mixed: setting up {GAMES} games")
                await load.add(GAMES)
                await asyncio.sleep(SETTLE_SECONDS)  # a bench's settling time: the games' first moves spread
                phase(f"mixed: measuring {GAMES} games for {WINDOW_SECONDS:.0f} s")
                first = await measure(load, pool, process.pid, database_pid)
                results |= {f"mixed_{key}": value for key, value in first.items()}
                phase(
                    f"mixed: {GAMES} games quiet (every stream open, nobody moving) for {QUIET_SECONDS:.0f} s"
                )
                load.playing.clear()
                await asyncio.sleep(DELIVERY_GRACE_SECONDS)  # commands in flight are answered
                quiet = await measure(load, pool, process.pid, database_pid, QUIET_SECONDS)
                load.playing.set()
                for clock in ("app", "database"):
                    if f"{clock}_cores" in quiet:
                        results[f"mixed_quiet_{clock}_cores"] = quiet[f"{clock}_cores"]
                        # what a move adds to the quiet audience's cost, per move
                        marginal = (first[f"{clock}_cores"] - quiet[f"{clock}_cores"]) / first["moves_per_s"]
                        if marginal > 0:  # else the server was still working off the busy window's backlog
                            results[f"mixed_{clock}_marginal_us_per_move"] = marginal * 1e6
                await asyncio.sleep(SETTLE_SECONDS)
                if "search" in PHASES:
                    results["search"] = await search(load, pool, process.pid, database_pid, first)
            finally:
                await load.stop()
    return results


async def search(
    load: MixedLoad, pool: asyncpg.Pool, app_pid: int, database_pid: int | None, first: dict[str, Any]
) -> list[dict[str, Any]]:
    """Step the game count (doubling while p99 move latency keeps within LATENCY_TARGET_MS, halving while
    the first count misses it), measuring each: one entry per count."""
    steps = [first]
    within = first["move_p99_ms"] <= LATENCY_TARGET_MS
    while True:
        games = len(load.tables)
        target = games * 2 if within else games // 2
        if target > SEARCH_MAX_GAMES or target < SEARCH_MIN_GAMES:
            return steps
        if target > games:
            phase(f"search: adding {target - games} games")
            await load.add(target - games)
        else:
            await load.remove(games - target)
        await asyncio.sleep(SETTLE_SECONDS)
        phase(f"search: measuring {target} games")
        step = await measure(load, pool, app_pid, database_pid)
        phase(f"search: {target} games, {step['moves_per_s']:.1f} moves/s, p99 {step['move_p99_ms']:.1f} ms")
        steps.append(step)
        if (step["move_p99_ms"] <= LATENCY_TARGET_MS) != within or step[
            "player_commands"
        ] < MIN_MOVES_FOR_P99:
            return steps


def carried(steps: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The step with the most games within the p99 target, over enough moves (None when none was)."""
    kept = [
        step
        for step in steps
        if step["move_p99_ms"] <= LATENCY_TARGET_MS and step["player_commands"] >= MIN_MOVES_FOR_P99
    ]
    return max(kept, key=lambda step: step["games"]) if kept else None


def phase(name: str) -> None:
    """Say which phase runs (on stderr: stdout is the table and the JSON line)."""
    print(f"[bench {time.strftime('%H:%M:%S')}] {name}", file=sys.stderr, flush=True)


def met(value: float, target: float) -> str:
    """``met`` or ``not met`` for a measure that must stay at or under ``target``."""
    return "met" if value <= target else "not met"


def mixed_table(results: dict[str, Any]) -> str:
    """The mixed phase's and the search's lines of the bench's table."""
    lines = []
    if "mixed_games" in results:
        r = {key.removeprefix("mixed_"): value for key, value in results.items() if key.startswith("mixed_")}
        lines += [
            f"mixed load on one app process (WORKERS=1), {os.cpu_count()} cores shared with PostgreSQL, this"
            " load generator and other work on the machine:",
            f"  {r['games']} games ({r['games_against_bot']} against the {BOT_LEVEL} bot),"
            f" {r['spectator_streams']} spectator streams, {r['account_streams']} account streams,"
            f" think time median {THINK_MEDIAN_SECONDS} s; window {r['window_s']:.0f} s",
            f"  moves {r['moves_per_s']:,.1f}/s ({r['events_per_move']:.2f} events a move),"
            f" account notices {r['account_notices_per_s']:,.1f}/s",
            f"  CPU per move: app {r['app_us_per_move']:,.0f} us, database"
            f" {r.get('database_us_per_move', float('nan')):,.0f} us, load generator"
            f" {r['load_generator_us_per_move']:,.0f} us",
            f"  the same audience quiet (nobody moving): app {r.get('quiet_app_cores', float('nan')):.3f} cores,"
            f" database {r.get('quiet_database_cores', float('nan')):.3f}; a move adds app"
            f" {r.get('app_marginal_us_per_move', float('nan')):,.0f} us, database"
            f" {r.get('database_marginal_us_per_move', float('nan')):,.0f} us",
            f"  one app core's CPU covers {r['games'] / max(r['app_cores'], 1e-9):,.0f} games at this CPU per game"
            " (by CPU alone, on a machine with the core to spare)",
            f"  cores used: app {r['app_cores']:.2f}, database {r.get('database_cores', float('nan')):.2f},"
            f" load generator {r['load_generator_cores']:.2f}, machine (everything) {r['machine_cores']:.2f}",
            f"  move latency p50 {r['move_p50_ms']:.1f} ms, p99 {r['move_p99_ms']:.1f} ms"
            f" (target <= {LATENCY_TARGET_MS:.0f}: {met(r['move_p99_ms'], LATENCY_TARGET_MS)})",
            f"  delivery latency p50 {r['delivery_p50_ms']:.1f} ms, p99 {r['delivery_p99_ms']:.1f} ms"
            f" (target <= {DELIVERY_TARGET_MS:.0f}: {met(r['delivery_p99_ms'], DELIVERY_TARGET_MS)}),"
            f" delivered {r['delivered']:.4f}",
            f"  errors: {r['errors'] or 'none'}",
        ]
    if "search" in results:
        lines.append(f"capacity search (p99 move latency <= {LATENCY_TARGET_MS:.0f} ms on one app process):")
        for step in results["search"]:
            lines.append(
                f"  {step['games']:>6} games: {step['moves_per_s']:7,.1f} moves/s, p99 {step['move_p99_ms']:7.1f} ms,"
                f" delivery p99 {step['delivery_p99_ms']:7.1f} ms, app {step['app_cores']:.2f} cores,"
                f" database {step.get('database_cores', float('nan')):.2f}, machine {step['machine_cores']:.2f},"
                f" app {step['app_us_per_move']:,.0f} us a move, {step['player_commands']} moves timed"
            )
        best = carried(results["search"])
        if best is None:
            lines.append(
                f"  no game count measured kept p99 within the target over {MIN_MOVES_FOR_P99} moves timed or more"
            )
        else:
            top = max(step["games"] for step in results["search"])
            reached = any(s["move_p99_ms"] > LATENCY_TARGET_MS for s in results["search"])
            lines.append(
                f"  one app process carries {best['games']} games within the target"
                f"{'' if reached else f' (the search stopped at {top}, BENCH_MIXED_MAX_GAMES, before missing it)'},"
                f" using {best['app_cores']:.2f} of a core: {best['games'] / max(best['app_cores'], 1e-9):,.0f}"
                " games per core used"
            )
    return "\n".join(lines)


async def main() -> None:
    """The mixed phase, the capacity search and the scale-out phase on a fresh database."""
    from service.runtime.database import create_pool
    from service.runtime.settings import Settings

    quiet_logging()
    results: dict[str, Any] = {"scale": SCALE}
    async with fresh_databases(1) as (database_url,):
        pool = await create_pool(database_url, Settings.from_env())
        try:
            if PHASES & {"mixed", "search"}:
                results |= await mixed(database_url, pool)
            if "scaleout" in PHASES:
                phase("scale-out: one, two and three app processes, in turns")
                results |= await scale_out(database_url, pool)
        finally:
            await pool.close()
    print(mixed_table(results))
    if "scale_clients" in results:
        print(scale_out_table(results))

    def rounded(value: Any) -> Any:
        if isinstance(value, float):
            return round(value, 3)
        if isinstance(value, list):
            return [rounded(each) for each in value]
        if isinstance(value, dict):
            return {key: rounded(each) for key, each in value.items()}
        return value

    print(json.dumps(rounded(results)))


if __name__ == "__main__":
    asyncio.run(main())
