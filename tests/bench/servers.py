"""`python -m tests.bench.servers`: the game server under granian against uvicorn (httptools on uvloop, as
``python -m service serve`` runs it), the HTTP phase's commands from 32 keep-alive clients, in turns.

granian is not a dependency: this bench runs only where it is installed (``pip install granian``), and says
so otherwise. Prints each server's commands/s, server CPU per command (its process tree, /proc) and p50/p99,
and, last, one JSON line. BENCH_SCALE as in ``python -m tests.bench``.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import subprocess
import sys

from service.runtime.database import create_pool
from service.runtime.settings import PROJECT_ROOT, Settings
from tests.bench.__main__ import (
    HTTP_CLIENTS,
    PHASE_SECONDS,
    HttpMeter,
    Meter,
    Scripts,
    command_post,
    create_games,
    fresh_databases,
    new_service,
    percentile_ms,
    quiet_logging,
    side_by_side,
)
from tests.bench.http_load import Post
from tests.e2e.conftest import free_port, start_server, wait_ready


def start_granian(database_url: str) -> tuple[subprocess.Popen[bytes], str]:
    """The app factory under granian (ASGI, uvloop, HTTP/1.1, one worker, no access log), ready."""
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "granian",
            "--interface",
            "asgi",
            "--factory",
            "--loop",
            "uvloop",
            "--http",
            "1",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--workers",
            "1",
            "--no-access-log",
            "api.app:create_app",
        ],
        cwd=PROJECT_ROOT,
        env={**os.environ, "DATABASE_URL": database_url, "LOG_FORMAT": "json", "LOG_LEVEL": "info"},
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    wait_ready(process, base)
    return process, base


async def compare(database_url: str) -> dict[str, float]:
    """uvicorn and granian, in turns, each on its own scripted games."""
    pool = await create_pool(database_url, Settings.from_env())
    service = new_service(pool)
    servers = {"uvicorn": start_server(database_url), "granian": start_granian(database_url)}
    meters: dict[str, Meter] = {}
    try:
        for name, server in servers.items():
            labels = [f"{name}-{c}" for c in range(HTTP_CLIENTS)]
            scripts = Scripts(await create_games(service, labels), labels, int(PHASE_SECONDS * 300) + 1000)

            def command(client: int, scripts: Scripts = scripts) -> Post | None:
                step = scripts.take(client)
                return None if step is None else command_post(step)

            meters[name] = HttpMeter(server, command)
        await side_by_side(*meters.values(), warm_up=1.5)
    finally:
        for process, _ in servers.values():
            process.terminate()
            process.wait(10)
        await pool.close()
    results: dict[str, float] = {}
    for name, meter in meters.items():
        results[f"{name}_per_s"] = meter.rate
        results[f"{name}_server_us_per_request"] = meter.us_per_operation("server")
        results[f"{name}_p50_ms"] = percentile_ms(meter.latencies, 0.5)
        results[f"{name}_p99_ms"] = percentile_ms(meter.latencies, 0.99)
    results["granian_ratio_vs_uvicorn"] = results["granian_per_s"] / results["uvicorn_per_s"]
    return results


async def main() -> dict[str, float]:
    """A fresh database, the comparison, dropped after."""
    quiet_logging()
    async with fresh_databases(1) as (database_url,):
        return await compare(database_url)


if __name__ == "__main__":
    if importlib.util.find_spec("granian") is None:
        print("granian is not installed (pip install granian): nothing to compare", file=sys.stderr)
        sys.exit(0)
    outcome = asyncio.run(main())
    for key, value in outcome.items():
        print(f"  {key:<36} {value:>10,.2f}")
    print(json.dumps({key: round(value, 3) for key, value in outcome.items()}))
