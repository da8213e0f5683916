"""Clients of the cluster: players posting bursts of commands through HAProxy, each remembering every command
the service acknowledged, and spectators following live streams on each app host directly.

A player posts only entries of its seat's ``legal`` list, each command with an ``Idempotency-Key``. When the
answer does not come (a dropped connection, a 502 or 503 while a host dies or the database fails over) it
sends the same command with the same key again, after a short back-off, until it is answered: a command is
acknowledged when it gets 200, and then its signed head (version and chain hash) must be in the store for
good.
"""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import asyncpg
import httpx
from httpx_sse import aconnect_sse

from tests.support.sse import dispatched

RETRY_STATUSES = {502, 503, 504}  # the balancer's or a host's "not now": retry with the same key
BACK_OFF_SECONDS = (
    0.2  # between attempts of one command: fine enough to time a failover to a fraction of a second
)
ANSWER_DEADLINE_SECONDS = 90.0  # a command still unanswered this long after the burst stops is given up


@dataclass(frozen=True)
class Ack:
    """A command the service answered 200: the version it made and the signed chain hash at that version
    (None for an idempotent retry's stored answer, which carries no head)."""

    game_id: str
    version: int
    head_hash: str | None
    sent_at: float  # monotonic time of the attempt that was answered
    answered_at: float


@dataclass
class Ledger:
    """What a burst's players saw."""

    acks: list[Ack] = field(default_factory=list)
    retried: Counter[str] = field(default_factory=Counter)  # why an attempt was sent again
    refused: Counter[str] = field(default_factory=Counter)  # 4xx answers other than the expected ones
    unavailable: Counter[str] = field(
        default_factory=Counter
    )  # 503s by who answered, and without Retry-After
    unanswered: int = 0  # commands never answered before the deadline (not acknowledged: no promise made)
    games: set[str] = field(default_factory=set)

    def acked_after(self, moment: float) -> list[Ack]:
        """The acknowledged commands first sent (in their answered attempt) after ``moment``."""
        return [ack for ack in self.acks if ack.sent_at > moment]


async def create_game(client: httpx.AsyncClient, body: dict[str, Any]) -> dict[str, Any]:
    """POST /v1/games through the balancer, retried while it answers 502/503 (creation is then retried whole)."""
    while True:
        try:
            response = await client.post("/v1/games", json=body)
        except httpx.TransportError:
            await asyncio.sleep(BACK_OFF_SECONDS)
            continue
        if response.status_code in RETRY_STATUSES:
            await asyncio.sleep(BACK_OFF_SECONDS)
            continue
        assert response.status_code == 201, response.text
        created: dict[str, Any] = response.json()
        return created


class VersionVanished(Exception):
    """The game no longer has the version of this client's own last command (a lossy failover lost it)."""


async def read_game(
    client: httpx.AsyncClient, game_id: str, min_version: int, token: str | None = None
) -> dict[str, Any] | None:
    """GET the game as of this client's own last write (``min_version``: a read replica behind it is not
    used, docs/api.md), None when the cluster answered "not now" (retry later)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        response = await client.get(
            f"/v1/games/{game_id}", params={"min_version": min_version}, headers=headers
        )
    except httpx.TransportError:
        return None
    if response.status_code in RETRY_STATUSES:
        return None
    if response.status_code == 409 and response.json().get("code") == "version_not_reached":
        raise VersionVanished(game_id)
    assert response.status_code == 200, f"GET {game_id}: {response.status_code} {response.text}"
    document: dict[str, Any] = response.json()
    return document


async def post_until_answered(
    client: httpx.AsyncClient, ledger: Ledger, game_id: str, token: str, command: dict[str, Any]
) -> httpx.Response | None:
    """Send one command with one Idempotency-Key until it is answered (other than "not now"); None if the
    deadline passed first."""
    headers = {"Authorization": f"Bearer {token}", "Idempotency-Key": uuid.uuid4().hex}
    deadline = time.monotonic() + ANSWER_DEADLINE_SECONDS
    while time.monotonic() < deadline:
        sent_at = time.monotonic()
        try:
            response = await client.post(f"/v1/games/{game_id}/commands", json=command, headers=headers)
        except httpx.TransportError as failure:
            ledger.retried[type(failure).__name__] += 1
            await asyncio.sleep(BACK_OFF_SECONDS)
            continue
        if response.status_code in RETRY_STATUSES:
            ledger.retried[str(response.status_code)] += 1
            if response.status_code == 503:
                ledger.unavailable[unavailable_from(response)] += 1
            await asyncio.sleep(BACK_OFF_SECONDS)
            continue
        if response.status_code == 200:
            answer = response.json()
            head = answer.get("head")
            ledger.acks.append(
                Ack(game_id, answer["version"], head and head["head_hash"], sent_at, time.monotonic())
            )
        return response
    ledger.unanswered += 1
    return None


def unavailable_from(response: httpx.Response) -> str:
    """Who answered a 503: the balancer (deploy/503.http, no host ready) or a host (the database is down);
    either must say when to retry."""
    if "retry-after" not in response.headers:
        return "without Retry-After"
    return "balancer" if "no app host is ready" in response.text else "host"


async def play(
    client: httpx.AsyncClient, ledger: Ledger, game: str, players: int, stop: asyncio.Event, seed: int
) -> None:
    """Play games of ``game`` one after the other until ``stop`` is set: read who is pending, read that seat's
    legal commands (both reads as of the client's own last write), post one of them (never resigning)."""
    chooser = random.Random(seed)
    while not stop.is_set():
        created = await create_game(
            client, {"game": game, "players": [{"name": f"p{n}"} for n in range(players)]}
        )
        game_id, tokens = created["game_id"], [seat["token"] for seat in created["seats"]]
        ledger.games.add(game_id)
        last = created["version"]  # the version of this client's own last write to the game
        while not stop.is_set():
            mine = None
            try:
                public = await read_game(client, game_id, last)
                if public is not None and public["status"] != "finished":
                    seat = chooser.choice(public["pending"])["seat"]
                    mine = await read_game(client, game_id, last, tokens[seat])
            except VersionVanished:
                ledger.refused["409 version_not_reached"] += 1
                last = 0  # the store lost this client's last write: play on from what it holds
                continue
            if public is not None and public["status"] == "finished":
                break
            if public is None or mine is None:
                await asyncio.sleep(BACK_OFF_SECONDS)
                continue
            legal = [entry for entry in mine["legal"] if entry["type"] != "resign"]
            if not legal:
                continue  # the game moved between the two reads
            response = await post_until_answered(client, ledger, game_id, tokens[seat], chooser.choice(legal))
            if response is not None and response.status_code == 200:
                last = response.json()["version"]
            elif response is not None:
                ledger.refused[f"{response.status_code} {response.json().get('code')}"] += 1


async def wait_until(what: str, condition: Any, seconds: float = 120.0) -> None:
    """Poll ``condition()`` (every 50 ms, an event-loop wait for an event, not a fixed delay) until true."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"timed out after {seconds:.0f} s waiting for {what}"
        await asyncio.sleep(0.05)


@dataclass
class Burst:
    """Players in the background: ``start`` them, wait on the ledger, ``stop`` them (each finishes its command)."""

    base_url: str
    games: int
    game: str = "johari"
    players: int = 2
    ledger: Ledger = field(default_factory=Ledger)
    _stop: asyncio.Event = field(default_factory=asyncio.Event)
    _tasks: list[asyncio.Task[None]] = field(default_factory=list)
    _client: httpx.AsyncClient | None = None

    async def __aenter__(self) -> Burst:
        """Start the players."""
        self._client = httpx.AsyncClient(
            base_url=self.base_url, timeout=httpx.Timeout(30.0), limits=httpx.Limits(max_connections=200)
        )
        self._tasks = [
            asyncio.create_task(play(self._client, self.ledger, self.game, self.players, self._stop, n))
            for n in range(self.games)
        ]
        return self

    async def acks(self, count: int, seconds: float = 180.0) -> None:
        """Wait until the burst has ``count`` acknowledged commands in all (a player's failure fails at once)."""

        def enough() -> bool:
            for task in self._tasks:
                if task.done():
                    task.result()  # raises the player's assertion
            return len(self.ledger.acks) >= count

        await wait_until(f"{count} acknowledged commands", enough, seconds)

    async def __aexit__(self, *exc: object) -> None:
        """Stop the players, let each finish the command it is sending, and close the client."""
        self._stop.set()
        try:
            await asyncio.gather(*self._tasks)
        finally:
            assert self._client is not None
            await self._client.aclose()


async def fetch(database_url: str, sql: str, *arguments: object) -> list[asyncpg.Record]:
    """The rows of one query on a connection of its own (retried while the cluster fails over)."""
    connection = await connect(database_url)
    try:
        rows: list[asyncpg.Record] = await connection.fetch(sql, *arguments)
        return rows
    finally:
        await connection.close()


async def stored_hashes(database_url: str, game_ids: set[str]) -> dict[tuple[str, int], str]:
    """The chain hash (hex) of every stored event of the games, by (game, version)."""
    rows = await fetch(
        database_url,
        "SELECT stream_id, version, hash FROM events WHERE stream_id = ANY($1::text[])",
        sorted(game_ids),
    )
    return {(row["stream_id"], row["version"]): bytes(row["hash"]).hex() for row in rows}


async def lost_acks(database_url: str, acks: list[Ack]) -> list[Ack]:
    """The acknowledged commands the store does not hold: no event at the acknowledged version, or one whose
    chain hash differs from the signed head the client got."""
    stored = await stored_hashes(database_url, {ack.game_id for ack in acks})
    return [
        ack
        for ack in acks
        if (ack.game_id, ack.version) not in stored
        or (ack.head_hash is not None and stored[(ack.game_id, ack.version)] != ack.head_hash)
    ]


async def connect(database_url: str, seconds: float = 60.0) -> asyncpg.Connection:
    """A connection to the primary, retried while the cluster fails over."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            return await asyncpg.connect(database_url, timeout=5)
        except (TimeoutError, OSError, asyncpg.PostgresError):
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(BACK_OFF_SECONDS)


@dataclass
class Spectator:
    """One live stream of one game on one app host: the ``id`` of its snapshot and of every event after it."""

    host: str
    game_id: str
    snapshot: int | None = None
    ids: list[int] = field(default_factory=list)
    ended: bool = False
    task: asyncio.Task[None] | None = None

    async def follow(self, client: httpx.AsyncClient) -> None:
        """Read the stream until it ends (``event: end``) or is cancelled."""
        async with aconnect_sse(
            client, "GET", f"http://{self.host}/v1/games/{self.game_id}/stream"
        ) as source:
            assert source.response.status_code == 200, f"{self.host}: {source.response.status_code}"
            async for event in dispatched(source):
                if event.event == "snapshot":
                    self.snapshot = int(event.id)
                elif event.event == "end":
                    self.ended = True
                    return
                elif event.event == "message":
                    self.ids.append(int(event.id))

    @property
    def last(self) -> int:
        """The newest version this stream has shown."""
        return self.ids[-1] if self.ids else (self.snapshot or 0)

    def fault(self, stored: int) -> str | None:
        """What is wrong with the versions this stream delivered, given the game's stored version."""
        if self.snapshot is None:
            return "no snapshot"
        expected = list(range(self.snapshot + 1, stored + 1))
        if self.ids == expected:
            return None
        duplicates = sorted(v for v, n in Counter(self.ids).items() if n > 1)
        missing = sorted(set(expected) - set(self.ids))
        return (
            f"snapshot {self.snapshot}, stored {stored}: duplicates {duplicates[:10]}, missing {missing[:10]}"
        )
