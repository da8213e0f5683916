"""The scale-out phase of `make bench`: commands/s and p99 with one, two and three app processes on one primary.

Each app process is what a host runs (docs/operations.md): ``python -m service serve`` with WORKERS=1 on a
port of its own, all on one database and one SIGNING_KEY. The three are started once; a configuration of
``n`` processes sends HTTP_CLIENTS keep-alive clients' commands (each client on its own Bazaar game, the next
command as soon as the last is answered) to the first ``n`` of them, client ``c`` to process ``c % n``, and
the three configurations take turns, ROUNDS slices each (tests/bench/__main__.py ``side_by_side``), so they
see the same background load. Processes without load in a configuration keep running their background
readers (projections, bots, clocks), as idle hosts of a cluster do.

For each configuration: commands/s, p50/p99, the ratio to one process, each process's CPU per command (its
/proc utime + stime), every app process's together (the idle ones too: one of them may be the read models'
leader, docs/decisions/0006-read-models.md), the database server's, and the cores each used (CPU seconds
per second of the slice), the machine's busy cores from /proc/stat (every process, other work on the
machine included), and what the database's active backends waited on (pg_stat_activity, sampled every
SAMPLE_SECONDS; the advisory lock always shown): where PostgreSQL binds.

On a machine of two cores the app processes, PostgreSQL and this load generator share them: a third process
cannot add a core, so read the ratios and the CPU per command, not the rates.

``python -m tests.bench.scaleout`` runs this phase alone (BENCH_SCALE scales the slices).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import asyncpg
import httpx
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from service.runtime.settings import PROJECT_ROOT
from tests.bench.__main__ import (
    HTTP_CLIENTS,
    PHASE_SECONDS,
    Meter,
    Scripts,
    command_post,
    create_games,
    database_server_pid,
    new_service,
    percentile_ms,
    side_by_side,
)
from tests.bench.http_load import Connection
from tests.bench.processes import cpu_seconds
from tests.e2e.conftest import free_port

HOSTS = 3  # app processes started; configurations of 1..HOSTS take turns
SAMPLE_SECONDS = 0.1  # how often the database's active backends are sampled during a slice
READY_WAIT = 90.0  # seconds an app process may take to migrate, check its key and answer /ready
# Near-linear growth, printed as met / not met: two processes at least 1.8 times one
# process's commands/s, three at least 2.7 times.
LINEAR_TARGETS = {2: 1.8, 3: 2.7}


@functools.cache
def signing_key_pem() -> str:
    """An Ed25519 private key as PEM text, made once a run: the one SIGNING_KEY every app process is given
    (the first to start records its public half in the database, and the others must sign with it)."""
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return pem.decode()


@contextlib.contextmanager
def app_processes(
    database_url: str, count: int, settings: dict[str, str] | None = None
) -> Iterator[list[tuple[subprocess.Popen[bytes], str]]]:
    """``count`` app processes as hosts run them (``python -m service serve``, WORKERS=1, each on a port of
    its own, one shared SIGNING_KEY, one database), each ready (/ready 200); stopped on exit."""
    key = signing_key_pem()
    started: list[tuple[subprocess.Popen[bytes], str]] = []
    try:
        for _ in range(count):
            port = free_port()
            env = {
                **os.environ,
                "DATABASE_URL": database_url,
                "SIGNING_KEY": key,
                "PORT": str(port),
                "WORKERS": "1",
                "DATA_DIR": tempfile.mkdtemp(prefix="bench-host-"),
                "LOG_FORMAT": "json",
                "LOG_LEVEL": "info",
                **(settings or {}),
            }
            process = subprocess.Popen(
                [sys.executable, "-m", "service", "serve"],
                cwd=PROJECT_ROOT,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            started.append((process, f"http://127.0.0.1:{port}"))
        for process, base in started:
            wait_ready(process, base)
        yield started
    finally:
        for process, _ in started:
            process.terminate()
        for process, _ in started:
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)


def wait_ready(process: subprocess.Popen[bytes], base: str) -> None:
    """Wait until the app process at ``base`` answers /ready with 200 (it migrates and checks its key first)."""
    deadline = time.monotonic() + READY_WAIT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"app process at {base} exited during start-up ({process.returncode})")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(base + "/ready", timeout=1).status_code == 200:
                return
        time.sleep(0.2)
    raise RuntimeError(f"app process at {base} not ready within {READY_WAIT} s")


def machine_busy_seconds() -> float:
    """CPU seconds every core of the machine has spent busy so far (/proc/stat: all but idle and iowait),
    whoever's processes ran."""
    fields = [int(value) for value in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait (proc(5))
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")  # user .. steal; guest is within user


class WaitSampler:
    """What the database's active client backends wait on, sampled while a slice runs (pg_stat_activity):
    ``CPU`` for a backend running, else its wait event type and name."""

    QUERY = """
        SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU') FROM pg_stat_activity
        WHERE backend_type = 'client backend' AND state = 'active' AND pid <> pg_backend_pid()
    """

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool
        self.counts: collections.Counter[str] = collections.Counter()
        self.samples = 0

    async def sample_until(self, stop: asyncio.Event) -> None:
        """Sample every SAMPLE_SECONDS until ``stop`` is set."""
        async with self.pool.acquire() as connection:
            while not stop.is_set():
                rows = await connection.fetch(self.QUERY)
                self.counts.update(row[0] for row in rows)
                self.samples += 1
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), SAMPLE_SECONDS)

    def busiest(self, count: int = 4) -> str:
        """The most frequent states, as the mean number of active backends in each per sample."""
        return ", ".join(
            f"{state} {seen / max(1, self.samples):.2f}" for state, seen in self.counts.most_common(count)
        )

    def mean(self, state: str) -> float:
        """The mean number of active backends in ``state`` per sample."""
        return self.counts[state] / max(1, self.samples)

    def active(self) -> float:
        """The mean number of active client backends per sample."""
        return self.counts.total() / max(1, self.samples)


class HostsMeter(Meter):
    """HTTP_CLIENTS keep-alive clients spread over the first ``hosts`` app processes, each client sending its
    game's next scripted command as soon as the last is answered (every answer must be 200)."""

    def __init__(
        self,
        hosts: int,
        servers: list[tuple[subprocess.Popen[bytes], str]],
        scripts: Scripts,
        clocks: dict[str, Any],
        pool: asyncpg.Pool,
    ) -> None:
        super().__init__(HTTP_CLIENTS, self.send, clocks)
        self.hosts = hosts
        self.scripts = scripts
        self.connections = [Connection(servers[client % hosts][1]) for client in range(HTTP_CLIENTS)]
        self.waits = WaitSampler(pool)

    async def prepare(self, seconds: float) -> None:
        """Fresh connections outside the slice's time (uvicorn closes a keep-alive idle for 5 s)."""
        for connection in self.connections:
            await connection.close()
            await connection.open()

    async def slice(self, seconds: float) -> tuple[int, float, list[float]]:
        """The clients' slice, with the database's backends sampled meanwhile."""
        stop = asyncio.Event()
        sampler = asyncio.create_task(self.waits.sample_until(stop))
        try:
            return await super().slice(seconds)
        finally:
            stop.set()
            await sampler

    async def send(self, client: int) -> int:
        """The client's next command; 0 when its script ran out."""
        step = self.scripts.take(client)
        if step is None:
            return 0
        post = command_post(step)
        status, answer = await self.connections[client].post(post.path, post.body, post.headers)
        if status != 200:
            raise RuntimeError(f"{post.path} answered {status}: {answer[:300]!r}")
        return 1


async def scale_out(database_url: str, pool: asyncpg.Pool) -> dict[str, Any]:
    """One, two and three app processes on one primary, in turns: the measures keyed ``scale_<n>_<measure>``."""
    service = new_service(pool)
    database_pid = await database_server_pid(pool)
    results: dict[str, Any] = {"scale_clients": HTTP_CLIENTS}
    with app_processes(database_url, HOSTS, {"DB_POOL_MAX": "20"}) as servers:
        clocks: dict[str, Any] = {
            f"app{index}": functools.partial(cpu_seconds, process.pid)
            for index, (process, _) in enumerate(servers)
        }
        if database_pid is not None:
            clocks["database"] = functools.partial(cpu_seconds, database_pid)
        clocks["load_generator"] = time.process_time
        clocks["machine"] = machine_busy_seconds
        meters = []
        for hosts in range(1, HOSTS + 1):
            labels = [f"scale-{hosts}-{client}" for client in range(HTTP_CLIENTS)]
            # more commands than a client can send in the phase: about 1,000/s over every client at most
            scripts = Scripts(await create_games(service, labels), labels, int(PHASE_SECONDS * 150) + 200)
            meters.append(HostsMeter(hosts, servers, scripts, clocks, pool))
        await side_by_side(*meters, warm_up=1.5)
    one = meters[0].rate
    for meter in meters:
        key = f"scale_{meter.hosts}"
        app_seconds = sum(meter.cpu_seconds[f"app{index}"] for index in range(meter.hosts))
        # the idle processes too: the background work (projection, clocks) may run in one outside the slice's
        every_app_seconds = sum(meter.cpu_seconds[f"app{index}"] for index in range(HOSTS))
        results |= {
            f"{key}_commands_per_s": meter.rate,
            f"{key}_ratio": meter.rate / one,
            f"{key}_p50_ms": percentile_ms(meter.latencies, 0.5),
            f"{key}_p99_ms": percentile_ms(meter.latencies, 0.99),
            f"{key}_app_us_per_command": app_seconds * 1e6 / meter.operations,
            f"{key}_app_cores": app_seconds / meter.seconds,
            f"{key}_every_app_us_per_command": every_app_seconds * 1e6 / meter.operations,
            f"{key}_load_generator_us_per_command": meter.us_per_operation("load_generator"),
            f"{key}_machine_cores": meter.cpu_seconds["machine"] / meter.seconds,
            f"{key}_database_active_backends": meter.waits.active(),
            f"{key}_database_waits": meter.waits.busiest(),
            f"{key}_database_advisory_lock": meter.waits.mean("Lock:advisory"),
        }
        for index in range(meter.hosts):
            results[f"{key}_app{index}_us_per_command"] = meter.us_per_operation(f"app{index}")
        if "database" in meter.cpu_seconds:
            results[f"{key}_database_us_per_command"] = meter.us_per_operation("database")
            results[f"{key}_database_cores"] = meter.cpu_seconds["database"] / meter.seconds
    return results


def scale_out_table(results: dict[str, Any]) -> str:
    """The phase's lines of the bench's table, with the near-linear targets met or not met."""
    lines = [
        f"scale-out: {results['scale_clients']} closed-loop clients over 1..{HOSTS} app processes"
        f" (WORKERS=1 each) on one primary, {os.cpu_count()} cores shared by all"
    ]
    for hosts in range(1, HOSTS + 1):
        key = f"scale_{hosts}"
        if f"{key}_commands_per_s" not in results:
            continue
        ratio = results[f"{key}_ratio"]
        verdict = ""
        if hosts in LINEAR_TARGETS:
            met = ratio >= LINEAR_TARGETS[hosts]
            verdict = f" (target >= {LINEAR_TARGETS[hosts]}: {'met' if met else 'not met'})"
        per_host = " / ".join(f"{results[f'{key}_app{i}_us_per_command']:,.0f}" for i in range(hosts))
        lines += [
            f"  {hosts} process(es): {results[f'{key}_commands_per_s']:,.0f} commands/s, ratio {ratio:.2f}{verdict},"
            f" p50 {results[f'{key}_p50_ms']:.1f} ms, p99 {results[f'{key}_p99_ms']:.1f} ms",
            f"    app CPU per command {results[f'{key}_app_us_per_command']:,.0f} us (per process: {per_host} us),"
            f" every app process (idle ones too) {results[f'{key}_every_app_us_per_command']:,.0f} us,"
            f" database {results.get(f'{key}_database_us_per_command', float('nan')):,.0f} us,"
            f" load generator {results[f'{key}_load_generator_us_per_command']:,.0f} us",
            f"    cores used: app {results[f'{key}_app_cores']:.2f}, database"
            f" {results.get(f'{key}_database_cores', float('nan')):.2f}, machine (everything)"
            f" {results[f'{key}_machine_cores']:.2f} of {os.cpu_count()}",
            f"    database backends active {results[f'{key}_database_active_backends']:.2f}:"
            f" {results[f'{key}_database_waits']} (Lock:advisory {results[f'{key}_database_advisory_lock']:.2f})",
        ]
    return "\n".join(lines)


async def main() -> None:
    """This phase alone, on a fresh database of DATABASE_URL's server (or an embedded one)."""
    from service.runtime.database import create_pool
    from service.runtime.settings import Settings
    from tests.bench.__main__ import fresh_databases, quiet_logging

    quiet_logging()
    async with fresh_databases(1) as (database_url,):
        pool = await create_pool(database_url, Settings.from_env())
        try:
            results = await scale_out(database_url, pool)
        finally:
            await pool.close()
    print(scale_out_table(results))
    print(json.dumps({k: round(v, 3) if isinstance(v, float) else v for k, v in results.items()}))


if __name__ == "__main__":
    asyncio.run(main())
