"""Game clocks in the service: the clock chosen at creation, the time stamped into every command
of a timed game, and each seat's deadline and bank as views and ``pending`` show them.

The rules live in ``domain/clock.py``; the service only brings the time: ``now`` (injected, so tests run on
fake time) in milliseconds since the Unix epoch, wrapped around each command with ``domain.clock.stamp``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec

from domain.clock import Clock, stamp
from domain.core import Command, Game, TimeControl
from service.games.schemas import TOURNAMENT_CLOCK, ClockIn, ClockOut, PendingDecision, SeatClockOut
from service.runtime import errors

__all__ = [
    "DAY_MS",
    "Now",
    "clock_of",
    "clock_out",
    "from_ms",
    "pending_out",
    "rated_clock",
    "system_now",
    "time_control",
    "timed",
    "to_ms",
]

Now = Callable[[], datetime]
DAY_MS = 86_400_000
MAX_DECISION_SECONDS = 86_400
MAX_BANK_SECONDS = 7 * 86_400
MAX_DAYS = 60
MAX_TIMEOUTS = 10
# A rated game is always timed (docs/api.md "Clocks and timeouts"): without a clock it gets the tournaments'
# default; its clock gives each decision at least RATED_MIN_DECISION_SECONDS or a bank of at least
# RATED_MIN_BANK_SECONDS (correspondence always does), and each seat's first decision RATED_FIRST_GRACE_SECONDS
# more, so the seat whose join starts the game is not timed out before it reaches the board.
RATED_MIN_DECISION_SECONDS = 10
RATED_MIN_BANK_SECONDS = 60
RATED_FIRST_GRACE_SECONDS = 30
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MS = timedelta(milliseconds=1)


def system_now() -> datetime:
    """The wall clock, UTC (the service's default; tests inject fake time)."""
    return datetime.now(UTC)


def to_ms(moment: datetime) -> int:
    """A moment as whole milliseconds since the Unix epoch (how the domain takes time), in exact integers."""
    return (moment - EPOCH) // MS


def from_ms(ms: int) -> datetime:
    """Milliseconds since the Unix epoch as a UTC moment (exact)."""
    return EPOCH + ms * MS


def _bad(detail: str) -> errors.RuleViolation:
    """422 ``bad_clock``: the clock choice is not one the service offers."""
    return errors.RuleViolation("bad_clock", detail)


def rated_clock(choice: ClockIn | None) -> ClockIn:
    """A rated game's clock: the one chosen, else ``TOURNAMENT_CLOCK``; 422 ``rated_clock_too_short`` for a
    clock under the rated floor (``time_control`` then checks it as for any game)."""
    if choice is None:
        return TOURNAMENT_CLOCK
    if choice.days_per_decision is None and not (
        (choice.decision_seconds or 0) >= RATED_MIN_DECISION_SECONDS
        or (choice.bank_seconds or 0) >= RATED_MIN_BANK_SECONDS
    ):
        raise errors.RuleViolation(
            "rated_clock_too_short",
            f"a rated game gives each decision at least {RATED_MIN_DECISION_SECONDS} s"
            f" (decision_seconds) or a bank of at least {RATED_MIN_BANK_SECONDS} s (bank_seconds)",
        )
    return choice


def time_control(choice: ClockIn | None, now: datetime, rated: bool = False) -> TimeControl | None:
    """The domain's clock for a creation's ``clock`` choice, started ``now`` (None: untimed; 422 if invalid);
    a rated game's is ``rated_clock``'s, with the first-decision grace."""
    if rated:
        control = time_control(rated_clock(choice), now)
        assert control is not None
        return msgspec.structs.replace(control, first_grace_ms=RATED_FIRST_GRACE_SECONDS * 1000)
    if choice is None:
        return None
    if not 1 <= choice.max_timeouts <= MAX_TIMEOUTS:
        raise _bad(f"max_timeouts is 1-{MAX_TIMEOUTS}")
    start = to_ms(now)
    if choice.days_per_decision is not None:
        if choice.decision_seconds is not None or choice.bank_seconds is not None:
            raise _bad("a clock is either {decision_seconds, bank_seconds} or {days_per_decision}, not both")
        if not 1 <= choice.days_per_decision <= MAX_DAYS:
            raise _bad(f"days_per_decision is 1-{MAX_DAYS}")
        return TimeControl(
            decision_ms=choice.days_per_decision * DAY_MS, max_timeouts=choice.max_timeouts, start=start
        )
    if choice.decision_seconds is None:
        raise _bad("a clock needs decision_seconds (with bank_seconds) or days_per_decision")
    if not 1 <= choice.decision_seconds <= MAX_DECISION_SECONDS:
        raise _bad(f"decision_seconds is 1-{MAX_DECISION_SECONDS}")
    bank = choice.bank_seconds or 0
    if not 0 <= bank <= MAX_BANK_SECONDS:
        raise _bad(f"bank_seconds is 0-{MAX_BANK_SECONDS}")
    return TimeControl(
        decision_ms=choice.decision_seconds * 1000,
        bank_ms=bank * 1000,
        max_timeouts=choice.max_timeouts,
        start=start,
    )


def clock_of(state: Any) -> Clock | None:
    """A game state's clock (None: untimed)."""
    clock: Clock | None = getattr(state, "clock", None)
    return clock


def timed(state: Any, command: Command, now: datetime) -> Command:
    """The command as the game decides it: stamped with ``now`` in a timed game, as it is otherwise."""
    return command if clock_of(state) is None else stamp(command, to_ms(now))


def _maybe(ms: int | None) -> datetime | None:
    """An optional moment."""
    return None if ms is None else from_ms(ms)


def pending_out(game: Game[Any], state: Any) -> list[PendingDecision]:
    """Who must act now, with each seat's deadline and bank left in a timed game."""
    clock = clock_of(state)
    out = []
    for pending in game.pending(state):
        if clock is None or not 0 <= pending.seat < len(clock.seats):
            out.append(PendingDecision(seat=pending.seat, decision=pending.decision))
            continue
        seat = clock.seats[pending.seat]
        out.append(
            PendingDecision(
                seat=pending.seat,
                decision=pending.decision,
                deadline=_maybe(seat.deadline),
                bank_seconds=seat.bank_ms / 1000,
            )
        )
    return out


def clock_out(state: Any) -> ClockOut | None:
    """A timed game's clock as views show it (None: untimed)."""
    clock = clock_of(state)
    if clock is None:
        return None
    control = clock.control
    correspondence = control.bank_ms == 0 and control.decision_ms % DAY_MS == 0
    return ClockOut(
        decision_seconds=control.decision_ms / 1000,
        bank_seconds=control.bank_ms / 1000,
        days_per_decision=control.decision_ms // DAY_MS if correspondence else None,
        max_timeouts=control.max_timeouts,
        at=from_ms(clock.at),
        seats=[
            SeatClockOut(
                seat=seat,
                bank_seconds=clocked.bank_ms / 1000,
                timeouts=clocked.timeouts,
                due_at=_maybe(clocked.due_at),
                deadline=_maybe(clocked.deadline),
            )
            for seat, clocked in enumerate(clock.seats)
        ],
    )
