"""Histories for Basari scenario tests: chosen players, gems and draw pile, and a way to play commands on.

A history is a fold, so it need not come from ``setup``: tests seat players with any gems (the stock gets
the rest, so every colour still makes 22) and stack the draw pile in a chosen order. Handy house cards:

     1: 1 worker, 7 points, 2 red + 1 green + 1 blue       2: 1 worker, 7 points, 2 green + 2 blue
    11: 2 workers, 6 points, 2 red + 1 yellow              15: 2 workers, 5 points, 2 red + 1 yellow + 1 blue
    22: 3 workers, 5 points, 1 red + 2 blue                32..39: 4 workers each
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from msgspec.structs import replace

from domain.basari import GAME
from domain.basari.commands import ChooseAction
from domain.basari.components import COLOURS, COMPONENTS, PALETTE, Action, Gems
from domain.basari.events import CardsDealt, GameStarted, PileShuffled
from domain.basari.state import State
from domain.core import Command, Event, Rng, fold
from domain.counts import Counts
from tests.support.scenario import Scenario, given

NAMES = ("Hanna", "Max", "Sarah", "Tom", "Uli")
HANNA, MAX, SARAH = 0, 1, 2
EACH = Gems(red=3, yellow=3, green=3, blue=3)


def gems(**counts: int) -> Gems:
    """Gems by colour name: ``gems(red=1, blue=3)``."""
    return Gems(**counts)


def held(**counts: int) -> Counts:
    """Gems by colour name as a state holds them, counts in value order: ``held(red=1, blue=3)``."""
    return PALETTE.of(counts)


def stacked(*top: int) -> tuple[int, ...]:
    """A draw pile with ``top`` on top (first card first) and every other card below, in id order."""
    return (*top, *(card for card in COMPONENTS.card_ids() if card not in top))


def started(
    players: int = 3,
    holdings: Sequence[Gems] | None = None,
    pile: Sequence[int] | None = None,
) -> list[Event]:
    """Players seated with ``holdings`` (default 3 of each) and ``pile`` (top first), round 1 dealt."""
    held = tuple(holdings) if holdings is not None else (EACH,) * players
    order = tuple(pile) if pile is not None else COMPONENTS.card_ids()
    stock = Gems.of([22 - sum(h.counts()[i] for h in held) for i in range(len(COLOURS))])
    return [
        GameStarted(players=NAMES[:players], edition=COMPONENTS.edition, gems=held, stock=stock),
        PileShuffled(stage=1, size=len(order), order=order),
        CardsDealt(stage=1, round=1, cards=order[:players]),
    ]


def play(history: Sequence[Event], *moves: tuple[int, Command], seed: str = "tables") -> list[Event]:
    """``history`` followed by the events of each (seat, command), decided in turn."""
    events = list(history)
    state = fold(GAME, events)
    for seat, command in moves:
        new = GAME.decide(state, seat, command, Rng(seed, f"v{len(events)}"))
        for event in new:
            state = GAME.evolve(state, event)
        events.extend(new)
    return events


def picks(actions: Iterable[Action]) -> list[tuple[int, Command]]:
    """Moves picking ``actions`` for seats 0, 1, 2, ... in order (the last one reveals them all)."""
    return [(seat, ChooseAction(action=action)) for seat, action in enumerate(actions)]


def after(history: Sequence[Event], *moves: tuple[int, Command]) -> Scenario:
    """A scenario standing right after ``moves`` were played on ``history``."""
    return given(GAME, play(history, *moves))


def state_of(history: Sequence[Event]) -> State:
    """The state a history folds to."""
    state: State = fold(GAME, history)
    return state


def new_events(before: Sequence[Event], after_: Sequence[Event]) -> list[Event]:
    """The events ``after_`` adds to ``before``."""
    return list(after_[len(before) :])


def of_type(events: Iterable[Event], kind: type[Any]) -> list[Any]:
    """The events of one kind."""
    return [event for event in events if isinstance(event, kind)]


def with_points(history: Sequence[Event], points: Mapping[int, int]) -> State:
    """The state of ``history`` with some seats' victory points set (for the B-8 and B-10 tie-breaks)."""
    state = state_of(history)
    players = tuple(
        replace(player, points=points.get(seat, player.points)) for seat, player in enumerate(state.players)
    )
    return replace(state, players=players)
