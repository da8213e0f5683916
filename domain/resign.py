"""Resigning, the same in every game: one command, one event, one wrapper around a game's decider.

The rules, for every game and player count:

- A seat still playing may resign at any time, on its own decision or not (as on Lichess); ``legal`` lists
  ``resign`` for every seat still playing while the game runs.
- The game ends once fewer than two seats still play: in a two-player game the opponent wins; in solitaire
  the game ends unsolved (no winner); in a larger game, when all but one have resigned, the last one wins.
- Otherwise the resigned seat stays in the game, played by a stand-in: whenever it owes a decision, the
  decider itself picks a uniformly random entry of the game's ``legal`` list for it (the ``random`` bot
  level of ``domain.bots``) with the command's own generator, so its decisions are ordinary events of the
  same append and the game always reaches its end without any seat waiting on a player who left.
- Ranking: every seat that did not resign ranks above every seat that did (among themselves by the game's
  own ranking); resigned seats rank by order of resignation, the first to resign last. Scores stay as
  played. The score sheet gains a ``resigned`` row naming the resigned seats in order; once the game is
  over it comes right before the final row, which names the result's winners (the sheet is drawn from the
  result, ``GameSpec.scoresheet``), however the game ended.
- Adjudication (a tournament organizer's, docs/api.md): ``Adjudicate``, sent by the service only (never
  accepted from a client), ends a running game as it stands: ``Adjudicated``; its result is the one above on
  the state reached, and nothing more is played.

``resignable(spec)`` applies these rules to a game declared with ``GameSpec``; its state needs ``players``
(one entry per seat), ``resigned`` (the resigned seats in order, folded from ``SeatResigned``) and
``adjudicated`` (folded from ``Adjudicated``). Why one wrapper for every game:
docs/decisions/0001-resign-and-clocks.md.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, Protocol, TypeVar

import msgspec

from domain.core import Command, Event, GameSpec, Pending, Rejected, Result, Rng, ScoreSheet

__all__ = ["Adjudicate", "Adjudicated", "Resign", "SeatResigned", "decisions", "playing", "resignable"]


class Resign(Command, frozen=True, kw_only=True, tag="resign"):
    """Leave the game at any time: a stand-in plays the seat, ranked last; fewer than two left ends the game."""


class SeatResigned(Event, frozen=True, kw_only=True, tag="seat_resigned"):
    """A seat resigned: from now on a stand-in plays it (or the game ended: fewer than two seats play)."""

    seat: int


class Adjudicate(Command, frozen=True, kw_only=True, tag="adjudicate"):
    """The service's statement that the tournament organizer adjudicated the game (never from a client)."""


class Adjudicated(Event, frozen=True, kw_only=True, tag="adjudicated"):
    """The game was adjudicated: it ends as it stands."""


class Resigns(Protocol):
    """What the resign rules read from a game's state."""

    @property
    def players(self) -> tuple[Any, ...]: ...

    @property
    def resigned(self) -> tuple[int, ...]: ...

    @property
    def adjudicated(self) -> bool: ...


S = TypeVar("S", bound=Resigns)


def playing(state: Resigns) -> list[int]:
    """The seats that have not resigned, in seat order."""
    return [seat for seat in range(len(state.players)) if seat not in state.resigned]


def _ended_by_resignation(state: Resigns) -> bool:
    """The game ends once a resignation leaves fewer than two seats playing."""
    return bool(state.resigned) and len(playing(state)) < 2


def _name(player: Any) -> str:
    """A seat's name: games keep either the name itself or a player record with ``name``."""
    return player if isinstance(player, str) else str(player.name)


def resignable(spec: GameSpec[S]) -> GameSpec[S]:
    """``spec`` with the resign command, the stand-in and the resign ranking of this module's rules."""

    def is_over(state: S) -> bool:
        """Over by the game's own rules, once fewer than two seats play, or once adjudicated."""
        return spec.is_over(state) or _ended_by_resignation(state) or state.adjudicated

    game_evolve = spec.evolve

    def evolve(state: S, event: Event) -> S:
        """A resignation appends the seat to ``resigned``; every other event is the game's own (one type check)."""
        if type(event) is SeatResigned:
            return msgspec.structs.replace(state, resigned=(*state.resigned, event.seat))  # type: ignore[type-var]
        if type(event) is Adjudicated:
            return msgspec.structs.replace(state, adjudicated=True)  # type: ignore[type-var]
        return game_evolve(state, event)

    def stand_in(state: S, rng: Rng) -> list[Event]:
        """The stand-in's decisions for every resigned seat owing one, until a playing seat owes one."""
        events: list[Event] = []
        while not is_over(state):
            owing = [p.seat for p in spec.pending(state) if p.seat in state.resigned]
            if not owing:
                break
            seat = owing[0]
            more = spec.decide(state, seat, rng.choice(spec.legal(state, seat)), rng)
            for event in more:
                state = evolve(state, event)
            events += more
        return events

    def decide(state: S, seat: int, command: Command, rng: Rng) -> list[Event]:
        """A resignation from a seat still playing, or the game's own command; then the stand-in's turns. An
        adjudication ends a running game."""
        if isinstance(command, Adjudicate):
            if is_over(state):
                raise Rejected("game_over", detail="the game is over")
            return [Adjudicated()]
        if state.adjudicated:
            raise Rejected("game_over", detail="the game was adjudicated: it is over")
        if not state.resigned and not isinstance(command, Resign):  # nobody to stand in for: the game's own
            return spec.decide(state, seat, command, rng)
        if _ended_by_resignation(state):
            raise Rejected("game_over", detail="the game is over: fewer than two seats still play")
        if seat in state.resigned and not spec.is_over(state):
            raise Rejected("resigned", detail=f"seat {seat} has resigned; a stand-in plays it")
        if isinstance(command, Resign) and not spec.is_over(state):
            if not 0 <= seat < len(state.players):
                raise Rejected("no_such_seat", detail=f"seat {seat} does not play in this game")
            events: list[Event] = [SeatResigned(seat=seat)]
        else:
            events = spec.decide(state, seat, command, rng)
        for event in events:
            state = evolve(state, event)
        return events + stand_in(state, rng)

    def pending(state: S) -> Sequence[Pending[str]]:
        """The game's own pending decisions, none once it is over."""
        return [] if is_over(state) else spec.pending(state)

    def legal(state: S, seat: int) -> list[Command]:
        """The game's own commands plus ``resign`` for a seat still playing; nothing for a resigned seat."""
        if is_over(state) or seat in state.resigned or not 0 <= seat < len(state.players):
            return []
        return [*spec.legal(state, seat), Resign()]

    def result(state: S) -> Result:
        """The game's result re-ranked: playing seats first (own order), then the resigned, the first last."""
        base = spec.result(state)
        if not state.resigned:
            return base
        still = playing(state)
        ranks = list(base.ranks)
        for seat in still:
            ranks[seat] = 1 + sum(base.ranks[other] < base.ranks[seat] for other in still)
        for order, seat in enumerate(state.resigned):
            ranks[seat] = len(still) + len(state.resigned) - order
        names = ", ".join(_name(state.players[seat]) for seat in state.resigned)
        note = f"resigned: {names}" + (f"; {base.note}" if base.note and spec.is_over(state) else "")
        return msgspec.structs.replace(
            base,
            ranks=tuple(ranks),
            winners=tuple(seat for seat in still if ranks[seat] == 1),
            note=note,
            solved=False if base.solved is not None and not still else base.solved,
        )

    def sheet(state: S, outcome: Result | None) -> ScoreSheet:
        """The game's score sheet with a ``resigned`` row: last while the game runs, then just before the
        final row (which names the outcome's winners, the resign ranking's)."""
        drawn = spec.sheet(state, outcome)
        if not state.resigned:
            return drawn
        names = ", ".join(_name(state.players[seat]) for seat in state.resigned)
        row = ("resigned", names, *([None] * (len(drawn.columns) - 2)))
        at = len(drawn.rows) - 1 if drawn.final else len(drawn.rows)
        return msgspec.structs.replace(drawn, rows=(*drawn.rows[:at], row, *drawn.rows[at:]))

    return dataclasses.replace(
        spec,
        decide=decide,
        evolve=evolve,
        pending=pending,
        legal=legal,
        is_over=is_over,
        result=result,
        sheet=sheet,
    )


def decisions(commands: Sequence[Command]) -> list[Command]:
    """A ``legal`` list without ``resign``: the game's own decisions (what a bot or a stand-in chooses from)."""
    return [command for command in commands if not isinstance(command, Resign)]
