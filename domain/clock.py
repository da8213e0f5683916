"""Clocks and timeouts, the same in every game: time is data the service stamps into commands.

The rules, for every game and player count, when the game was created with a ``TimeControl``:

- Every decision a seat owes has a deadline: ``due_at + decision_ms + bank``, where ``due_at`` is when it
  fell due and ``bank`` what is left of the seat's bank; a seat's first decision gets ``first_grace_ms``
  more (a clock with a grace marks each seat ``decided`` once it has acted). Answering takes
  ``used = at - due_at``; whatever exceeds ``decision_ms`` comes off the bank (a per-decision allowance
  plus a bank, Fischer-like: each decision starts with a fresh allowance). Correspondence is an allowance
  of whole days and no bank.
- Simultaneous decisions (secret picks) run every pending seat's clock at once; a seat whose decision is
  still open when another seat acts keeps its ``due_at``; a seat that acts and still owes a decision owes a
  new one, due at that moment.
- An answer after the deadline is refused (``out_of_time``): the seat has timed out.
- ``TimeOut`` (sent by the service for a seat whose deadline has passed, never by a client) appends
  ``SeatTimedOut``, empties the seat's bank and has the stand-in (``domain.resign``: a uniformly random
  decision of ``legal``, from the command's generator) take that one decision for the seat. The
  ``max_timeouts``-th timeout resigns the seat instead: the stand-in plays it to the end and it ranks as
  a resigned seat (``domain.resign``).
- The service wraps every command of a timed game in ``Timed`` with its own time in milliseconds since the
  Unix epoch (never earlier than the previous stamp, so clocks of several processes cannot run a decision
  backwards); each append ends with ``ClockStamped``: every seat's clock after it. An audit re-decides the
  stored ``Timed`` commands and gets the same stamps.

``clocked(spec)`` applies these rules to a game declared with ``GameSpec`` (after ``resignable``); its state
needs ``players``, ``resigned`` and ``clock`` (a ``Clock``, None for an untimed game). Why time is data:
docs/decisions/0001-resign-and-clocks.md.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, Protocol, TypeVar, Union

import msgspec

from domain.core import Command, Event, GameSpec, Rejected, Rng, TimeControl
from domain.resign import Adjudicate, Resign, Resigns, decisions

__all__ = [
    "Clock",
    "ClockStamped",
    "ClockStarted",
    "SeatClock",
    "SeatTimedOut",
    "TimeOut",
    "Timed",
    "clocked",
    "stamp",
    "stored_command_type",
]


class TimeOut(Command, frozen=True, kw_only=True, tag="time_out"):
    """The service's claim that the seat's deadline has passed (never accepted from a client)."""


class Timed(Command, frozen=True, kw_only=True, tag="timed"):
    """A command of a timed game as the service decided it: ``at`` (ms since the epoch) and the command's JSON."""

    at: int
    command: msgspec.Raw


class SeatClock(msgspec.Struct, frozen=True, kw_only=True):
    """One seat's clock: its bank left, its timeouts so far, and while it owes a decision when that fell due
    and its deadline (ms since the epoch)."""

    bank_ms: int
    timeouts: int = 0
    due_at: int | None = None
    deadline: int | None = None
    decided: bool = False  # the seat has acted (kept only by a clock with a first-decision grace)


class Clock(msgspec.Struct, frozen=True, kw_only=True):
    """A timed game's clock: its control, the last stamp and every seat's clock, folded from the events."""

    control: TimeControl
    at: int
    seats: tuple[SeatClock, ...]


class ClockStarted(Event, frozen=True, kw_only=True, tag="clock_started"):
    """The clock of a timed game, set at creation: the control and every seat's clock after the opening."""

    control: TimeControl
    at: int
    seats: tuple[SeatClock, ...]


class ClockStamped(Event, frozen=True, kw_only=True, tag="clock_stamped"):
    """The last event of every append to a timed game: the service's time and every seat's clock after it."""

    at: int
    seats: tuple[SeatClock, ...]


class SeatTimedOut(Event, frozen=True, kw_only=True, tag="seat_timed_out"):
    """A seat let its deadline pass: the stand-in decides for it (at ``max_timeouts`` the seat resigns)."""

    seat: int
    at: int
    timeouts: int


class Clocks(Resigns, Protocol):
    """What the clock rules read from a game's state."""

    @property
    def clock(self) -> Clock | None: ...


S = TypeVar("S", bound=Clocks)


def stored_command_type(command_type: Any) -> Any:
    """The commands a timed game stores: the game's own, or ``Timed`` wrapping one (for audits)."""
    return Union[command_type, Timed]  # noqa: UP007 -- a runtime union of a runtime type


def stamp(command: Command, at: int) -> Timed:
    """``command`` as the service decides it in a timed game: at ``at`` ms since the epoch."""
    return Timed(at=at, command=msgspec.Raw(msgspec.json.encode(command)))


def deadline(control: TimeControl, due_at: int | None, bank_ms: int, first: bool = False) -> int | None:
    """When a decision due at ``due_at`` times out: its allowance plus the bank left (plus the grace of a
    seat's ``first`` decision)."""
    if due_at is None:
        return None
    return due_at + control.decision_ms + bank_ms + (control.first_grace_ms if first else 0)


def _due(spec: GameSpec[S], state: S) -> set[int]:
    """The seats that owe a decision (none once the game is over)."""
    return set() if spec.is_over(state) else {p.seat for p in spec.pending(state)}


def _restamp(
    clock: Clock, at: int, actor: int, before: set[int], after: set[int], timeouts: int
) -> tuple[SeatClock, ...]:
    """Every seat's clock after ``actor`` acted at ``at``: the actor is charged for its decision (if it owed
    one) and owes a new one if still due; a seat newly due starts at ``at``; a seat still due keeps running."""
    seats = []
    for seat, old in enumerate(clock.seats):
        bank, due = old.bank_ms, old.due_at
        if seat == actor and seat in before and due is not None:
            bank = max(0, bank - max(0, at - due - clock.control.decision_ms))
            due = at if seat in after else None
        elif seat in after:
            due = due if seat in before and due is not None else at
        else:
            due = None
        count = timeouts if seat == actor else old.timeouts
        decided = old.decided or (clock.control.first_grace_ms > 0 and seat == actor)
        first = clock.control.first_grace_ms > 0 and not decided
        seats.append(
            SeatClock(
                bank_ms=bank,
                timeouts=count,
                due_at=due,
                deadline=deadline(clock.control, due, bank, first),
                decided=decided,
            )
        )
    return tuple(seats)


def clocked(spec: GameSpec[S]) -> GameSpec[S]:
    """``spec`` with the clock rules of this module (untimed games play exactly as ``spec``)."""
    inner_commands = msgspec.json.Decoder(Union[spec.command_type, TimeOut])  # noqa: UP007

    def deal(config: Any, rng: Rng) -> list[Event]:
        """The game's opening; with a clock, then ``ClockStarted``: the opening decisions fall due at start."""
        events = spec.deal(config, rng)
        control: TimeControl | None = config.clock
        if control is None:
            return events
        state = spec.initial()
        for event in events:
            state = spec.evolve(state, event)
        due = _due(spec, state)
        seats = tuple(
            SeatClock(
                bank_ms=control.bank_ms,
                due_at=control.start if seat in due else None,
                deadline=deadline(
                    control, control.start if seat in due else None, control.bank_ms, first=True
                ),
            )
            for seat in range(len(config.players))
        )
        return [*events, ClockStarted(control=control, at=control.start, seats=seats)]

    game_evolve = spec.evolve

    def started(state: S, event: ClockStarted) -> S:
        """``ClockStarted`` sets the clock."""
        clock = Clock(control=event.control, at=event.at, seats=event.seats)
        return msgspec.structs.replace(state, clock=clock)  # type: ignore[type-var]

    def stamped(state: S, event: ClockStamped) -> S:
        """``ClockStamped`` sets the clock's stamp and seats (a stamp only follows a start)."""
        assert state.clock is not None
        clock = msgspec.structs.replace(state.clock, at=event.at, seats=event.seats)
        return msgspec.structs.replace(state, clock=clock)  # type: ignore[type-var]

    def timed_out(state: S, _event: SeatTimedOut) -> S:
        """``SeatTimedOut`` changes nothing: the stamp after it carries the count."""
        return state

    own: dict[type, Callable[[S, Any], S]] = {
        ClockStarted: started,
        ClockStamped: stamped,
        SeatTimedOut: timed_out,
    }
    own_evolve = own.get

    def evolve(state: S, event: Event) -> S:
        """The clock events set the clock; every other event is the game's own (one lookup, then the game's)."""
        clock_evolve = own_evolve(type(event))
        return game_evolve(state, event) if clock_evolve is None else clock_evolve(state, event)

    def decide(state: S, seat: int, command: Command, rng: Rng) -> list[Event]:
        """An untimed game's command as the game decides it; a timed game's ``Timed`` command (or timeout)
        decided at its time, followed by the stamp of every seat's clock."""
        clock = state.clock
        if clock is None:
            if isinstance(command, Timed):
                raise Rejected("untimed_game", detail="this game has no clock")
            return spec.decide(state, seat, command, rng)
        if not isinstance(command, Timed):
            raise Rejected("untimed_command", detail="a timed game's commands carry the service's time")
        try:
            inner: Command = inner_commands.decode(command.command)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise Rejected("malformed_command", detail=f"not a {spec.name} command: {exc}") from None
        at = max(command.at, clock.at)  # several processes' clocks: a stamp never goes back
        before = _due(spec, state)
        mine = clock.seats[seat] if 0 <= seat < len(clock.seats) else None
        timeouts = mine.timeouts if mine is not None else 0
        if isinstance(inner, TimeOut):
            if mine is None or seat not in before or mine.deadline is None:
                raise Rejected("not_due", detail=f"seat {seat} owes no decision")
            if at < mine.deadline:
                raise Rejected("not_timed_out", detail=f"seat {seat} has until {mine.deadline} ms")
            timeouts += 1
            events: list[Event] = [SeatTimedOut(seat=seat, at=at, timeouts=timeouts)]
            if timeouts >= clock.control.max_timeouts:
                events += spec.decide(state, seat, Resign(), rng)
            else:
                events += spec.decide(state, seat, rng.choice(decisions(spec.legal(state, seat))), rng)
        else:
            late = mine is not None and seat in before and mine.deadline is not None and at > mine.deadline
            if late and not isinstance(inner, Adjudicate):  # an adjudication is no decision of the seat's
                raise Rejected("out_of_time", detail=f"seat {seat}'s deadline passed; it has timed out")
            events = spec.decide(state, seat, inner, rng)
        after = state
        for event in events:
            after = spec.evolve(after, event)
        seats = _restamp(clock, at, seat, before, _due(spec, after), timeouts)
        return [*events, ClockStamped(at=at, seats=seats)]

    return dataclasses.replace(
        spec,
        event_type=Union[spec.event_type, ClockStarted, ClockStamped, SeatTimedOut],  # noqa: UP007
        deal=deal,
        decide=decide,
        evolve=evolve,
    )
