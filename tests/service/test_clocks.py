"""Clocks in the service on fake time: the clock chosen at creation (422 for a bad one), each seat's
deadline and bank in ``pending``, the view and the live stream, every command stamped with the service's time
(so an audit re-decides it), a late answer refused, and the service's timeout handing the seat to the stand-in.
On the in-memory event store and keys, no database."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import timedelta
from typing import Any

import msgspec
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from domain.clock import Timed, TimeOut
from domain.registry import all_games
from domain.resign import decisions
from eventstore import InMemoryEventStore, InMemoryKeyStore
from service.games.clocks import from_ms, to_ms
from service.games.schemas import CreateGame, GameDetail
from service.games.service import GameService
from service.integrity.audit import Move, read_export, verify_export
from service.integrity.signing import Signer
from service.readmodels.live import LiveGames, follow_game
from service.runtime import errors
from tests.support.fake_time import FakeTime


def service(now: FakeTime) -> GameService:
    """A game service on the twins and fake time (signing its exports)."""
    signer = Signer(Ed25519PrivateKey.generate())
    return GameService(InMemoryEventStore(), InMemoryKeyStore(), all_games(), signer=signer, now=now)


async def create(
    games: GameService, clock: dict[str, Any] | None, players: int = 3, game: str = "basari"
) -> str:
    """A new hot-seat game with that clock; its id."""
    body = {"game": game, "players": [{"name": f"p{i}"} for i in range(players)], "clock": clock}
    return (await games.commands.create(msgspec.convert(body, CreateGame))).game_id


@pytest.mark.parametrize(
    "clock",
    [
        {"decision_seconds": 0},
        {"decision_seconds": 10, "bank_seconds": -1},
        {"bank_seconds": 10},
        {"days_per_decision": 0},
        {"days_per_decision": 3, "decision_seconds": 10},
        {"decision_seconds": 10, "max_timeouts": 0},
    ],
)
async def test_a_bad_clock_is_refused_with_422_and_creates_nothing(clock: dict[str, Any]) -> None:
    """A clock outside what the service offers is 422 ``bad_clock``; no game is created."""
    games = service(FakeTime())
    await create(games, {"decision_seconds": 10})
    before = await games.store.list_streams(limit=100)
    with pytest.raises(errors.RuleViolation) as refused:
        await create(games, clock)
    assert refused.value.code == "bad_clock"
    assert await games.store.list_streams(limit=100) == before


async def test_an_untimed_game_shows_no_clock() -> None:
    """No clock is the default: no deadline, no bank, no clock in the view."""
    games = service(FakeTime())
    game_id = await create(games, None)
    detail = games.queries.detail(await games.loader.load(game_id), 0)
    assert detail.clock is None
    assert all(p.deadline is None and p.bank_seconds is None for p in detail.pending)


async def test_pending_and_the_view_show_each_seats_deadline_and_bank() -> None:
    """Every seat of a simultaneous pick is due from creation; one that answers late is charged
    its overtime from the bank and owes nothing more, the others keep running."""
    now = FakeTime()
    games = service(now)
    start = now()
    game_id = await create(games, {"decision_seconds": 30, "bank_seconds": 120})
    loaded = await games.loader.load(game_id)
    detail = games.queries.detail(loaded, 0)
    assert (
        detail.clock is not None and detail.clock.decision_seconds == 30 and detail.clock.bank_seconds == 120
    )
    assert [(p.seat, p.deadline, p.bank_seconds) for p in detail.pending] == [
        (seat, start + timedelta(seconds=150), 120.0) for seat in range(3)
    ]
    now.advance(40)
    pick = decisions(loaded.legal(1))[0]
    await games.commands.execute(game_id, 1, msgspec.to_builtins(pick))
    detail = games.queries.detail(await games.loader.load(game_id), 1)
    assert detail.clock is not None
    assert detail.clock.seats[1].bank_seconds == 110.0 and detail.clock.seats[1].deadline is None
    assert {p.seat: p.deadline for p in detail.pending} == {
        0: start + timedelta(seconds=150),
        2: start + timedelta(seconds=150),
    }
    cause = [e.cause for e in await games.store.read_stream(game_id) if e.cause is not None][-1]
    stored = msgspec.json.decode(msgspec.json.decode(cause, type=Move).command, type=Timed)
    assert stored.at == int((start + timedelta(seconds=40)).timestamp() * 1000)
    assert (await games.exporter.audit(game_id)).ok


async def test_a_late_answer_is_refused_and_the_timeout_plays_the_seat() -> None:
    """Past its deadline a seat's answer is 422 ``out_of_time``; the service's timeout (with the
    version it decided on and a key naming it) appends the timeout and the stand-in's pick, once."""
    now = FakeTime()
    games = service(now)
    game_id = await create(games, {"decision_seconds": 10})
    loaded = await games.loader.load(game_id)
    pick = decisions(loaded.legal(0))[0]
    now.advance(11)
    with pytest.raises(errors.RuleViolation) as refused:
        await games.commands.execute(game_id, 0, msgspec.to_builtins(pick))
    assert refused.value.code == "out_of_time"
    key = f"clock-v{loaded.version}-s0"
    first = await games.commands.execute(game_id, 0, None, loaded.version, key, command=TimeOut())
    assert [e.type for e in first.events][:2] == ["seat_timed_out", "action_chosen"]
    again = await games.commands.execute(game_id, 0, None, loaded.version, key, command=TimeOut())
    assert again.version == first.version  # the same decision: answered, nothing appended
    with pytest.raises(errors.PreconditionFailed):  # another process's timeout of the same decision
        await games.commands.execute(game_id, 0, None, loaded.version, "clock-other", command=TimeOut())
    assert (await games.loader.load(game_id)).version == first.version


async def test_a_silent_seat_times_out_to_a_finished_game_that_verifies() -> None:
    """A two-player game whose seat 1 never answers ends after three timeouts (the seat resigns,
    the opponent wins); the audit re-decides every stamped command and the export verifies offline."""
    now = FakeTime()
    games = service(now)
    game_id = await create(games, {"decision_seconds": 5, "bank_seconds": 5}, players=2, game="johari")
    for _ in range(500):
        loaded = await games.loader.load(game_id)
        if loaded.finished:
            break
        pending = [p.seat for p in loaded.game.pending(loaded.state)]
        if 0 in pending:
            now.advance(1)
            command = decisions(loaded.legal(0))[0]
            await games.commands.execute(game_id, 0, msgspec.to_builtins(command))
        else:
            clock = loaded.state.clock
            deadline = clock.seats[1].deadline
            assert deadline is not None
            now.moment = max(now.moment, from_ms(deadline))
            await games.commands.execute(game_id, 1, None, loaded.version, command=TimeOut())
    loaded = await games.loader.load(game_id)
    assert loaded.finished
    assert loaded.result().winners == (0,)
    types = [e.type for e in await games.store.read_stream(game_id)]
    assert types.count("seat_timed_out") == 3
    report = await games.exporter.audit(game_id)
    assert report.ok and report.moves_ok, report.problems
    exported = read_export(msgspec.json.encode(await games.exporter.export(game_id)))
    assert exported.clock is not None
    assert verify_export(exported, all_games()).ok


async def test_the_live_stream_shows_the_clock_and_its_stamps() -> None:
    """A timed game's stream starts with a snapshot holding the clock and the deadlines, and each
    move arrives with its ``clock_stamped`` event (every seat's clock after it)."""
    now = FakeTime()
    store = InMemoryEventStore()
    await store.start()
    try:
        games = GameService(store, InMemoryKeyStore(), all_games(), now=now)
        game_id = await create(games, {"decision_seconds": 20})
        loaded = await games.loader.load(game_id)
        live = follow_game(LiveGames(games), loaded, 0, None, 60.0, 600.0)
        async with contextlib.aclosing(live):
            snapshot = await asyncio.wait_for(anext(live), 20)
            assert snapshot.kind == "snapshot" and isinstance(snapshot.body, GameDetail)
            assert snapshot.body.clock is not None and snapshot.body.clock.decision_seconds == 20
            assert all(p.deadline == now() + timedelta(seconds=20) for p in snapshot.body.pending)
            now.advance(3)
            pick = decisions(loaded.game.legal(loaded.state, 1))[0]
            await games.commands.execute(game_id, 1, msgspec.to_builtins(pick))
            while True:
                message = await asyncio.wait_for(anext(live), 20)
                if message.kind == "event" and message.body.type == "clock_stamped":
                    break
            stamped = message.body.data
            assert stamped.at == to_ms(now()) and stamped.seats[1].deadline is None
            assert stamped.seats[0].deadline == to_ms(now() - timedelta(seconds=3)) + 20_000
    finally:
        await store.stop()
