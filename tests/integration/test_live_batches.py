"""A live stream that is behind sends what waits for it at once (service/readmodels/live.py,
api/routes/streams.py), on the in-memory twin and on PostgreSQL: one batch, in order, one SSE chunk, each
message encoded once for every stream that sends it."""

from __future__ import annotations

import asyncio
import random
import time

import msgspec

from api.routes.streams import StreamLimiter, sse_bytes, sse_chunks, sse_message
from domain.resign import decisions
from service.games.schemas import CreateGame, PlayerIn
from service.games.service import GameService
from service.readmodels.live import LiveGames, follow_game_batches

NEVER_POLL = 600.0  # events seen within the test's wait came by a wake-up, not by polling
WAIT = 20.0
COMMANDS = 6


async def test_a_stream_behind_sends_what_waits_in_one_chunk(service: GameService) -> None:
    """Two spectators take nothing while COMMANDS commands are played: each then gets every new event in
    one batch, in order, as the same messages (one redaction for spectators), and its SSE chunk is those
    messages' SSE encodings joined, each encoded once for both."""
    created = await service.commands.create(
        CreateGame(game="basari", players=[PlayerIn(name=f"p{i}") for i in range(3)], seed="batches-1")
    )
    game_id = created.game_id
    loaded = await service.loader.load(game_id)
    limiter = StreamLimiter(2, 60.0, NEVER_POLL)  # room for the two streams, no more
    live = LiveGames(service)
    streams = [
        sse_chunks(follow_game_batches(live, loaded, None, None, 60.0, NEVER_POLL), limiter.acquire("a"))
        for _ in range(2)
    ]
    for stream in streams:
        assert b"event: snapshot" in await anext(stream)
    feed = live.feeds[game_id]
    chooser = random.Random(1)
    for _ in range(COMMANDS):
        now = await service.loader.load(game_id)
        seat = chooser.choice(now.game.pending(now.state)).seat
        command = chooser.choice(decisions(now.legal(seat)))
        await service.commands.execute(game_id, seat, msgspec.to_builtins(command))
    final = (await service.loader.load(game_id)).version
    deadline = time.monotonic() + WAIT
    while feed.position < final and time.monotonic() < deadline:  # the reader fans them out meanwhile
        await asyncio.sleep(0.01)
    queued = [list(subscriber.queue) for subscriber in feed.subscribers]
    assert [[m.id for m in queue] for queue in queued] == [list(range(loaded.version + 1, final + 1))] * 2
    assert all(a is b for a, b in zip(*queued, strict=True))  # one message for both spectators

    chunks = [await asyncio.wait_for(anext(stream), WAIT) for stream in streams]
    assert chunks[0] == chunks[1] == b"".join(sse_message(message).encode() for message in queued[0])
    assert all(message.wire(sse_bytes) is message.wire(sse_bytes) for message in queued[0])
    for stream in streams:
        await stream.aclose()
    assert not live.feeds  # the reader stopped with its last stream
    limiter.acquire("a"), limiter.acquire("a")  # both slots came back (a third would be a 429)
