"""Clocks and timeouts in every game (``domain/clock.py``), with time as data (fake milliseconds):
deadlines from a per-decision allowance plus a bank, simultaneous clocks, late answers refused, a timeout
has the stand-in decide, the third resigns the seat, and a seat that never answers still lets its game end."""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest

from domain.basari.commands import ChooseAction
from domain.clock import ClockStamped, ClockStarted, SeatClock, SeatTimedOut, TimeOut, stamp
from domain.core import Event, Game, GameConfig, Rng, TimeControl, fold
from domain.registry import all_games
from domain.resign import SeatResigned, decisions
from tests.support.scenario import given

GAMES = all_games()
COUNTS = [
    (name, n) for name, game in sorted(GAMES.items()) for n in range(game.min_players, game.max_players + 1)
]
START = 1_700_000_000_000  # ms since the epoch: any fixed instant (fake time)
CONTROL = TimeControl(decision_ms=10_000, bank_ms=60_000, max_timeouts=3, start=START)


def opening(game: Game[Any], players: int, control: TimeControl | None = CONTROL) -> list[Event]:
    """A fresh game's opening events, timed by ``control``."""
    config = GameConfig(
        players=tuple(f"p{i}" for i in range(players)), options=game.options_type(), clock=control
    )
    return game.setup(config, Rng("clock", "setup"))


def due(game: Game[Any], state: Any) -> list[int]:
    """The seats owing a decision."""
    return [p.seat for p in game.pending(state)]


def test_an_untimed_game_has_no_clock_and_refuses_stamped_commands() -> None:
    """Without a clock a game plays as before (no clock events); a stamped command is refused."""
    game = GAMES["basari"]
    events = opening(game, 3, control=None)
    assert not any(isinstance(e, ClockStarted) for e in events)
    state = fold(game, events)
    assert state.clock is None
    action = decisions(game.legal(state, 0))[0]
    given(game, events).when(0, stamp(action, START)).rejects(None, "untimed_game")


@pytest.mark.parametrize(("name", "players"), COUNTS)
def test_the_opening_decisions_fall_due_at_the_start(name: str, players: int) -> None:
    """Every seat owing an opening decision is due at the start, deadline allowance + bank."""
    game = GAMES[name]
    events = opening(game, players)
    assert isinstance(events[-1], ClockStarted)
    state = fold(game, events)
    pending = due(game, state)
    assert pending
    for seat, clock in enumerate(state.clock.seats):
        if seat in pending:
            assert clock == SeatClock(bank_ms=60_000, due_at=START, deadline=START + 70_000)
        else:
            assert clock == SeatClock(bank_ms=60_000)


def test_an_unstamped_command_is_refused_in_a_timed_game() -> None:
    """A timed game's commands carry the service's time."""
    game = GAMES["basari"]
    events = opening(game, 3)
    action = decisions(game.legal(fold(game, events), 0))[0]
    given(game, events).when(0, action).rejects(None, "untimed_command")


def test_simultaneous_picks_run_every_clock_at_once_and_overtime_comes_off_the_bank() -> None:
    """B-6's secret picks: one seat's pick leaves the others' clocks running from the start;
    the picker is charged what it took past the allowance."""
    game = GAMES["basari"]
    events = opening(game, 3)
    state = fold(game, events)
    assert due(game, state) == [0, 1, 2]
    pick = next(c for c in game.legal(state, 1) if isinstance(c, ChooseAction))
    new = given(game, events).when(1, stamp(pick, START + 25_000)).decide()
    assert isinstance(new[-1], ClockStamped) and new[-1].at == START + 25_000
    seats = new[-1].seats
    assert seats[1] == SeatClock(bank_ms=45_000)  # 25 s taken, 10 s allowed: 15 s off the bank
    assert seats[0] == seats[2] == SeatClock(bank_ms=60_000, due_at=START, deadline=START + 70_000)


def test_a_seat_that_acts_and_still_owes_starts_a_new_decision() -> None:
    """A decision answered starts the next one due at that moment (a fresh allowance)."""
    game = GAMES["bazaar"]
    events = opening(game, 2)
    state = fold(game, events)
    seat = due(game, state)[0]
    command = decisions(game.legal(state, seat))[0]
    new = given(game, events).when(seat, stamp(command, START + 3_000)).decide()
    after = fold(game, new, state)
    assert seat in due(game, after)  # Z-6, Z-8: a roll, then a purchase or the end of the turn
    assert after.clock.seats[seat] == SeatClock(bank_ms=60_000, due_at=START + 3_000, deadline=START + 73_000)


def test_a_late_answer_is_refused_and_an_early_timeout_too() -> None:
    """An answer after the deadline is refused (out_of_time); a timeout before it (not_timed_out)."""
    game = GAMES["basari"]
    events = opening(game, 3)
    pick = next(c for c in game.legal(fold(game, events), 0) if isinstance(c, ChooseAction))
    given(game, events).when(0, stamp(pick, START + 70_001)).rejects(None, "out_of_time")
    given(game, events).when(0, stamp(TimeOut(), START + 69_999)).rejects(None, "not_timed_out")
    given(game, events).when(0, stamp(pick, START + 70_000)).then()  # the deadline itself is in time


def test_a_timeout_has_the_stand_in_decide_and_empties_the_bank() -> None:
    """The service's timeout appends SeatTimedOut, the stand-in's decision for that seat, then the
    stamp: the seat's bank is spent and its timeouts counted."""
    game = GAMES["basari"]
    events = opening(game, 3)
    new = given(game, events).when(2, stamp(TimeOut(), START + 80_000)).decide()
    assert new[0] == SeatTimedOut(seat=2, at=START + 80_000, timeouts=1)
    assert any(getattr(e, "seat", None) == 2 and type(e).__name__ == "ActionChosen" for e in new)
    stamped = new[-1]
    assert isinstance(stamped, ClockStamped)
    assert stamped.seats[2] == SeatClock(bank_ms=0, timeouts=1)
    assert stamped.seats[0].due_at == START  # the others' decisions still run
    given(game, events).when(2, stamp(TimeOut(), START + 80_000)).then()
    given(game, [*events, *new]).when(2, stamp(TimeOut(), START + 90_000)).rejects(None, "not_due")


def test_a_stamp_never_runs_the_clock_backwards() -> None:
    """A stamp earlier than the last one (another process's slower clock) counts as the last."""
    game = GAMES["basari"]
    events = opening(game, 3)
    pick = next(c for c in game.legal(fold(game, events), 0) if isinstance(c, ChooseAction))
    new = given(game, events).when(0, stamp(pick, START - 5_000)).decide()
    assert new[-1].at == START


def silent_game(game: Game[Any], players: int, silent: int, seed: int) -> tuple[list[Event], Any]:
    """A timed game where ``silent`` never answers: the others answer at random within 5 s, and whenever
    only the silent seat is due, time jumps to its deadline and the service times it out."""
    chooser = random.Random(seed)
    events = opening(game, players)
    state = fold(game, events)
    now = START
    for _ in range(5000):
        if game.is_over(state):
            break
        pending = due(game, state)
        others = [seat for seat in pending if seat != silent]
        if others:
            seat = chooser.choice(others)
            now += chooser.randrange(5_000)
            command = stamp(chooser.choice(decisions(game.legal(state, seat))), now)
        else:
            seat = silent
            now = max(now, state.clock.seats[silent].deadline)
            command = stamp(TimeOut(), now)
        new = game.decide(state, seat, command, Rng("silent", f"v{len(events)}"))
        assert isinstance(new[-1], ClockStamped)
        state = fold(game, new, state)
        events += new
    return events, state


@pytest.mark.parametrize(("name", "players"), COUNTS)
def test_a_seat_that_never_answers_still_lets_its_game_end(name: str, players: int) -> None:
    """Timeouts hand a silent seat to the stand-in (the third resigns it), so every game ends; the
    silent seat ranks last once resigned, and a replay of the events gives the same state."""
    game = GAMES[name]
    events, state = silent_game(game, players, silent=0, seed=players)
    assert game.is_over(state)
    timeouts = [e for e in events if isinstance(e, SeatTimedOut)]
    assert [t.timeouts for t in timeouts] == list(range(1, len(timeouts) + 1))
    assert all(t.seat == 0 for t in timeouts) and len(timeouts) <= CONTROL.max_timeouts
    if len(timeouts) == CONTROL.max_timeouts:
        assert SeatResigned(seat=0) in events
        assert game.result(state).ranks[0] == players
    assert fold(game, events) == state
    assert all(clock.deadline is None for clock in state.clock.seats)


def test_each_seats_first_decision_gets_the_grace_and_a_clock_without_one_plays_as_before() -> None:
    """docs/api.md "Clocks and timeouts": ``first_grace_ms`` is added to each seat's first deadline only (a
    rated game's grace); a clock without a grace marks no seat ``decided``, so older games re-decide alike."""
    game = GAMES["basari"]
    graced = msgspec.structs.replace(CONTROL, first_grace_ms=30_000)
    events = opening(game, 3, graced)
    started = events[-1]
    assert isinstance(started, ClockStarted)
    first = START + 10_000 + 60_000 + 30_000
    assert [seat.deadline for seat in started.seats] == [first, first, first]
    state = fold(game, events)
    action = decisions(game.legal(state, 0))[0]
    stamped = given(game, events).when(0, stamp(action, START + 1_000)).decide()[-1]
    assert isinstance(stamped, ClockStamped)
    assert stamped.seats[0].decided and not stamped.seats[1].decided
    assert stamped.seats[1].deadline == first  # still its first decision
    plain = opening(game, 3)
    plain_stamp = given(game, plain).when(0, stamp(action, START + 1_000)).decide()[-1]
    assert isinstance(plain_stamp, ClockStamped) and not any(seat.decided for seat in plain_stamp.seats)
