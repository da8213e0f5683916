"""The idle-audience phase of `make bench`: the database work of a server whose live streams are all quiet.

A quiet stream sends keep-alives and nothing else; what the server does for it must not touch the database
(the game's one reader wakes on NOTIFY or every STREAM_POLL_SECONDS, however many streams follow it). For
each audience (AUDIENCES spectators of one game, on a server of its own, one worker) this phase opens the
streams, waits SETTLE_SECONDS, then counts the database's transactions (``pg_stat_database``
xact_commit + xact_rollback) over WINDOW_SECONDS: the idle figure, which should not grow with the audience.

PostgreSQL reports a connection's statistics up to 10 s late when idle and up to 60 s late when many flush at
once, so the window starts a minute after the streams are open (the transactions of opening them would
otherwise land in it). The count includes the
server's background workers (projector, bot runner, clocks), which run whoever watches, and the bench's one
read of the statistics at the window's start.

``python -m tests.bench.idle`` runs this phase alone; BENCH_IDLE_AUDIENCES (default ``10,1000``) sets the
audiences, BENCH_IDLE_SETTLE_SECONDS the wait before the window, BENCH_SCALE the window (30 s at 1, never
under 10 s).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from typing import Any

import asyncpg
import httpx

from tests.bench.spectators import Stream, follow
from tests.e2e.conftest import start_server
from tests.support.client_play import create_game

AUDIENCES = tuple(int(n) for n in os.environ.get("BENCH_IDLE_AUDIENCES", "10,1000").split(",") if n)
# From the last stream open to the window's start (BENCH_IDLE_SETTLE_SECONDS): past PostgreSQL's lag in
# reporting a connection's statistics, 10 s when idle and up to 60 s when many connections flush at once,
# as after opening 1,000 streams (with 20 s, 1,000 streams measured 2.5 transactions/s against 10's 2.0;
# with 70 s, 1.9 against 2.1).
SETTLE_SECONDS = float(os.environ.get("BENCH_IDLE_SETTLE_SECONDS", "65"))
OPEN_WAIT = 60.0  # seconds a batch of streams may take to open before the bench gives up
SERVER_SETTINGS = {
    "STREAMS_PER_CLIENT": "100000",  # every stream comes from 127.0.0.1, one client to the server's cap
    "STREAMS_PER_ADDRESS": "100000",
    "STREAM_KEEPALIVE_SECONDS": "1",  # quiet streams keep alive many times within the window
    "DB_POOL_MAX": "20",
}
XACTS = "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()"


async def transactions(database_url: str) -> int:
    """The database's transactions so far, read on a connection of its own (one transaction)."""
    connection = await asyncpg.connect(database_url)
    try:
        count: int = await connection.fetchval(XACTS)
        return count
    finally:
        await connection.close()


async def audience(database_url: str, base: str, spectators: int, window: float) -> dict[str, float]:
    """``spectators`` quiet streams of one game: the database's transactions per second once settled."""
    async with httpx.AsyncClient(base_url=base, timeout=OPEN_WAIT) as client:
        game = await create_game(client, "basari", 3, seed=f"idle-{spectators}")
    streams = [Stream(game["game_id"]) for _ in range(spectators)]
    for start in range(0, len(streams), 100):  # opened 100 at a time: the server's accept backlog
        batch = streams[start : start + 100]
        for stream in batch:
            stream.task = asyncio.create_task(follow(base, stream))
        async with asyncio.timeout(OPEN_WAIT):
            await asyncio.gather(*(s.opened.wait() for s in batch))
    try:
        await asyncio.sleep(SETTLE_SECONDS)  # a bench's settling time, not a wait for an event
        before = await transactions(database_url)
        await asyncio.sleep(window)
        after = await transactions(database_url)
        closed = sum(1 for s in streams if s.task is not None and s.task.done())
        return {"xacts_per_s": (after - before) / window, "streams_closed": float(closed)}
    finally:
        for stream in streams:
            if stream.transport is not None:
                stream.transport.close()
            if stream.task is not None:
                stream.task.cancel()
        await asyncio.gather(*(s.task for s in streams if s.task is not None), return_exceptions=True)


async def idle(database_url: str, scale: float) -> dict[str, Any]:
    """Each audience on a server of its own: the measures keyed ``idle_<spectators>_<measure>``."""
    window = max(10.0, 30.0 * scale)
    results: dict[str, Any] = {"idle_window_s": window}
    for spectators in AUDIENCES:
        process, base = start_server(database_url, 1, settings=SERVER_SETTINGS)
        try:
            measured = await audience(database_url, base, spectators, window)
        except Exception as exc:  # e.g. streams refused: reported in the table, the other audiences go on
            measured = {}
            print(f"idle {spectators}: {exc!r}"[:300], file=sys.stderr)
        finally:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)
        results.update({f"idle_{spectators}_{key}": value for key, value in measured.items()})
    return results


async def main() -> None:
    """This phase alone, on a fresh database of DATABASE_URL's server (or an embedded one)."""
    from tests.bench.__main__ import SCALE, fresh_databases, quiet_logging

    quiet_logging()
    async with fresh_databases(1) as (database_url,):
        print(json.dumps(await idle(database_url, SCALE), indent=1))


if __name__ == "__main__":
    asyncio.run(main())
