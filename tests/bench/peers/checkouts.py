"""This service's side of the peers' run for two checkouts of the code, in turns: the server's CPU per move.

``python -m tests.bench.peers.checkouts BEFORE AFTER`` starts one server per checkout (each on a fresh
database of its own, as tests/e2e/conftest.py's ``start_server`` serves: uvicorn, httptools, one worker),
warms both up, then plays ``BENCH_GAMES`` (16) concurrent Basari games against each in turn
(tests/bench/peers/ours.py's clients), ``BENCH_SLICES`` (5) slices of ``BENCH_SLICE_SECONDS`` (6) each, and
prints every slice's moves/s and the server's CPU µs per move (its process tree, from /proc), the load
average, and each checkout's median. With ``BENCH_PROFILE=1`` the last slice of each is recorded by py-spy
(``--native``, every thread) and its main thread's samples are split between the request path and each
background task (``SHARES``), as docs/performance.md's "Where the time goes" reports them.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from tests.bench.__main__ import fresh_databases, quiet_logging
from tests.bench.peers import ours
from tests.bench.processes import cpu_seconds
from tests.e2e.conftest import free_port, wait_ready

GAMES = int(os.environ.get("BENCH_GAMES", "16"))
SLICES = int(os.environ.get("BENCH_SLICES", "5"))
SLICE_SECONDS = float(os.environ.get("BENCH_SLICE_SECONDS", "6"))
PROFILE = os.environ.get("BENCH_PROFILE") == "1"
PY_SPY = Path(sys.executable).with_name("py-spy")

# A main-thread sample belongs to the first of these whose frame is on its stack (the asyncio task it runs
# in); what matches none is the event loop itself.
SHARES = (
    ("bot runner", "BotRunner."),
    ("clock scheduler and deadline index", "ClockScheduler."),
    ("read models (projection, tournament results)", "FeedFollower.run"),
    ("leadership", "leadership.py"),
    ("change relay", "ChangeRelay."),
    ("group-commit writer", "PostgresEventStore._flush"),
    ("requests", "run_asgi"),
    ("requests", "httptools_impl.py"),
    ("requests", "api/http/server.py"),
    ("database replies not yet handed to a task", "asyncpg"),
)


def start(checkout: str, database_url: str) -> tuple[subprocess.Popen[bytes], str]:
    """The server of ``checkout`` on ``database_url``, served as ``start_server`` serves; it and its base."""
    port = free_port()
    env = {**os.environ, "DATABASE_URL": database_url, "LOG_FORMAT": "json", "LOG_LEVEL": "info"}
    env["PYTHONPATH"] = checkout
    process = subprocess.Popen(
        [sys.executable, "-m", "service.runtime.serving", "api.app:create_app", str(port), "1"],
        cwd=checkout,
        env=env,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    wait_ready(process, base)
    return process, base


def shares(raw: Path) -> Counter[str]:
    """The main thread's py-spy samples (``--format raw``) per part of the server (SHARES)."""
    counted: Counter[str] = Counter()
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if "MainThread" not in stack.split(";", 1)[0]:
            continue
        part = next((name for name, frame in SHARES if frame in stack), "event loop")
        counted[part] += int(count)
    return counted


async def one_slice(
    process: subprocess.Popen[bytes], base: str, scripts: ours.Scripts, profile: Path | None
) -> tuple[float, float]:
    """One slice of play against a server: its moves/s and the server's CPU µs per move."""
    spy = None
    if profile is not None:
        command = [str(PY_SPY), "record", "--native", "--threads", "--rate", "200"]
        command += ["--duration", str(int(SLICE_SECONDS)), "--format", "raw", "--output", str(profile)]
        spy = subprocess.Popen(
            [*command, "--pid", str(process.pid)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        await asyncio.sleep(0.5)  # py-spy attached
    before = cpu_seconds(process.pid)
    played = await ours.play(base, GAMES, SLICE_SECONDS, scripts.next)
    used = cpu_seconds(process.pid) - before
    if spy is not None:
        spy.wait()
    return played.moves / played.seconds, used / played.moves * 1e6


async def main(checkouts: list[str]) -> None:
    """Both checkouts' servers, warmed up, then their slices in turns; the figures printed."""
    quiet_logging()
    scripts = ours.Scripts()
    per_move: dict[str, list[float]] = {checkout: [] for checkout in checkouts}
    profiles = Path(tempfile.mkdtemp(prefix="checkouts-"))
    async with fresh_databases(len(checkouts)) as urls:
        servers = {checkout: start(checkout, url) for checkout, url in zip(checkouts, urls, strict=True)}
        try:
            for _, base in servers.values():
                await ours.play(base, GAMES, 2.0, scripts.next)  # warm-up, not counted
            for number in range(SLICES):
                for index, (checkout, (process, base)) in enumerate(servers.items()):
                    last = PROFILE and number == SLICES - 1
                    profile = profiles / f"{index}.txt" if last else None
                    rate, cpu = await one_slice(process, base, scripts, profile)
                    per_move[checkout].append(cpu)
                    load = os.getloadavg()[0]
                    print(f"{checkout}: {rate:,.0f} moves/s, {cpu:,.0f} µs/move (load average {load:.1f})")
        finally:
            for process, _ in servers.values():
                process.terminate()
                process.wait(30)
    for index, (checkout, figures) in enumerate(per_move.items()):
        print(f"{checkout}: median {statistics.median(figures):,.0f} µs/move, {[round(f) for f in figures]}")
        raw = profiles / f"{index}.txt"
        if raw.exists():
            counted = shares(raw)
            total = sum(counted.values())
            for part, samples in counted.most_common():
                print(f"    {samples / total:6.1%}  {part}")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        raise SystemExit("usage: python -m tests.bench.peers.checkouts BEFORE_CHECKOUT AFTER_CHECKOUT")
    started = time.monotonic()
    asyncio.run(main(sys.argv[1:]))
    print(f"({time.monotonic() - started:.0f} s)")
