"""`python -m tests.bench.api_layers`: the CPU the API's own layers spend per command, in process.

The app (api.app.create_app, on a fresh database) is driven through ASGI by CLIENTS concurrent clients, each
posting the first command of its own game again and again, with no sockets and no uvicorn. The service runs
each game's command once; from then on its answer is handed back from memory, so what is timed
is everything between the server and the service: the middleware, Litestar (routing, arguments, the answer),
the access log line, the game's key and seat lookups. Prints, as its last line, one JSON object: the CPU µs
per command of the fastest, the first-quartile and the median of ROUNDS rounds of COMMANDS commands each.

Compare two versions by alternating runs, PYTHONPATH set to each tree (``python tests/bench/api_layers.py``
runs this file against the tree PYTHONPATH names): docs/performance.md, "Where the time goes".
BENCH_API_ROUNDS and BENCH_API_COMMANDS set the sizes (25 and 1,600).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from typing import Any

import msgspec
import uvloop

from api.app import create_app
from service.games.service import GameService
from service.runtime.database import create_pool
from service.runtime.settings import Settings
from tests.bench.__main__ import Scripts, create_games, fresh_databases, new_service, quiet_logging

CLIENTS = 16
ROUNDS = int(os.environ.get("BENCH_API_ROUNDS", "25"))
COMMANDS = int(os.environ.get("BENCH_API_COMMANDS", "1600"))  # per round, spread over the clients


class Lifespan:
    """The app's ASGI lifespan, started and stopped as a server does."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.incoming: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.outgoing: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Run the lifespan until the app has started."""
        scope = {"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}
        self.task = asyncio.create_task(self.app(scope, self.incoming.get, self.outgoing.put))
        await self.incoming.put({"type": "lifespan.startup"})
        started = await self.outgoing.get()
        assert started["type"] == "lifespan.startup.complete", started

    async def stop(self) -> None:
        """Stop the app."""
        await self.incoming.put({"type": "lifespan.shutdown"})
        if self.task is not None:
            await self.task


def command_scope(client: int, game_id: str, token: str, body: bytes) -> dict[str, Any]:
    """The scope uvicorn would give a command's POST."""
    path = f"/v1/games/{game_id}/commands"
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 50000 + client),
        "scheme": "http",
        "method": "POST",
        "root_path": "",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": [
            (b"host", b"127.0.0.1:8000"),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"authorization", f"Bearer {token}".encode()),
        ],
        "state": {},
    }


async def post(app: Any, scope: dict[str, Any], body: bytes) -> int:
    """One request through the app; its status."""
    sent = False
    status = 0

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.Event().wait()  # the client stays connected
        raise AssertionError("unreachable")

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]

    await app(scope, receive, send)
    return status


def answer_from_memory(service: GameService) -> None:
    """From now on each game's command is decided once by the service and its answer handed back after."""
    execute = service.commands.execute
    answers: dict[str, Any] = {}

    async def remembered(game_id: str, seat: int, data: dict[str, Any], **options: Any) -> Any:
        if game_id not in answers:
            answers[game_id] = await execute(game_id, seat, data, **options)
        return answers[game_id]

    service.commands.execute = remembered  # type: ignore[method-assign, assignment]


async def measure() -> dict[str, float]:
    """Start the app on a fresh database and time the rounds."""
    quiet_logging()
    async with fresh_databases(1) as (url,):
        os.environ.update(DATABASE_URL=url, LOG_FORMAT="json", LOG_LEVEL="info")
        with open(os.devnull, "w") as sink, contextlib.redirect_stderr(sink):
            app = create_app()
            labels = [f"layers-{client}" for client in range(CLIENTS)]
            pool = await create_pool(url, Settings.from_env())
            try:
                scripts = Scripts(await create_games(new_service(pool), labels), labels, 1)
            finally:
                await pool.close()
            lifespan = Lifespan(app)
            await lifespan.start()
            try:
                requests = []
                for client in range(CLIENTS):
                    step = scripts.take(client)
                    assert step is not None
                    game_id, _seat, data, token = step
                    body = msgspec.json.encode(data)
                    requests.append((command_scope(client, game_id, token, body), body))
                answer_from_memory(app.state.services.games)

                async def client_loop(client: int, count: int) -> None:
                    scope, body = requests[client]
                    for _ in range(count):
                        status = await post(app, dict(scope), body)
                        assert status == 200, status

                await asyncio.gather(*(client_loop(c, 20) for c in range(CLIENTS)))  # warm up
                per_round = COMMANDS // CLIENTS
                rounds = []
                for _ in range(ROUNDS):
                    started = time.process_time()
                    await asyncio.gather(*(client_loop(c, per_round) for c in range(CLIENTS)))
                    rounds.append((time.process_time() - started) * 1e6 / (per_round * CLIENTS))
            finally:
                await lifespan.stop()
    rounds.sort()
    return {"min_us": rounds[0], "q1_us": rounds[len(rounds) // 4], "median_us": rounds[len(rounds) // 2]}


if __name__ == "__main__":
    outcome = uvloop.run(measure())
    print(json.dumps({key: round(value, 1) for key, value in outcome.items()}))
