"""The HTTP load from wrk (Debian's ``wrk``, C), for a ratio the bench's own Python client does not flatten.

On two shared cores the Python client (tests/bench/http_load.py) takes CPU the server would otherwise have,
so both sides' rates meet near the client's ceiling. wrk spends a fraction of it. Each connection has a
thread and a request list of its own (tests/bench/wrk_requests.lua), so each can play its own game.
"""

from __future__ import annotations

import asyncio
import json
import math
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tests.bench.http_load import Post

SCRIPT = Path(__file__).with_name("wrk_requests.lua")


@dataclass(frozen=True)
class WrkSlice:
    """What one wrk run measured."""

    responses: int
    seconds: float
    latencies: list[float]  # seconds, one per response


def available() -> bool:
    """Whether wrk is installed."""
    return shutil.which("wrk") is not None


async def run_wrk(base: str, requests: list[list[Post]], seconds: float) -> WrkSlice:
    """Run wrk against ``base`` for ``seconds`` (whole seconds, at least one) with one connection per list in
    ``requests``, each sending its list in order; any answer but 200 or any socket error raises."""
    with tempfile.TemporaryDirectory(prefix="bench-wrk-") as directory:
        for connection, each in enumerate(requests):
            lines = (f"{r.path}\t{r.token}\t{r.body.decode()}\n" for r in each)
            Path(directory, f"{connection}.tsv").write_text("".join(lines))
        process = await asyncio.create_subprocess_exec(
            "wrk",
            f"--threads={len(requests)}",
            f"--connections={len(requests)}",
            f"--duration={max(1, math.ceil(seconds))}s",
            "--timeout=10s",
            f"--script={SCRIPT}",
            base,
            "--",
            directory,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await process.communicate()
    if process.returncode != 0:
        raise RuntimeError(f"wrk failed: {err.decode()[-300:]}")
    report = json.loads(out.decode().strip().splitlines()[-1])
    if report["failed"] or report["socket_errors"]:
        raise RuntimeError(
            f"wrk against {base}: {report['failed']} answers other than 200 (one: {report['failure']!r}),"
            f" {report['socket_errors']} socket errors"
        )
    latencies = [value / 1e6 for value, count in report["latency_us"] for _ in range(count)]
    return WrkSlice(report["responses"], report["seconds"], latencies)
