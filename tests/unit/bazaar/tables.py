"""Histories for Bazaar scenario tests: a known exchange and bazaar, and stones already in hand.

The exchange is always cards 1 and 2 (card 1 is the rulebook's own), so the equations are, by index:

    0: red = blue green yellow white      5: blue = green yellow white
    1: red = white white                  6: blue = red red
    2: yellow = blue green                7: green = yellow white
    3: green white = blue blue blue       8: yellow white = red red red
    4: blue yellow = green green white    9: red green = blue yellow yellow

Stones "in hand" arrive as ``ColourChosen`` events during the players' first turns, as if rolled there
(a history is a fold, so it need not be a legal game; only the command under test is decided).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from domain.bazaar import GAME
from domain.bazaar.components import EDITION
from domain.bazaar.events import (
    BazaarDealt,
    ColourChosen,
    DieRolled,
    ExchangeDrawn,
    GameStarted,
    SolitaireWareDealt,
    TurnEnded,
    TurnStarted,
)
from domain.core import Command, Event, Rng
from tests.support.scenario import given

EXCHANGE = (1, 2)

# Ware ids by their stones (house edition):
#   13 and 23: one of each colour            1: red blue yellow yellow white
#   40: five blue, star                      2: green white x4, star
#   6: red x4 yellow, star                   3: blue blue yellow x3
STALLS: tuple[tuple[int, ...], ...] = (
    (13, 1, 3, 4, 5),
    (40, 6, 7, 8, 9),
    (2, 10, 11, 12, 14),
    (23, 15, 16, 17, 18),
)

ONE_OF_EACH = {"red": 1, "blue": 1, "green": 1, "yellow": 1, "white": 1}


def dealt(stalls: Sequence[Sequence[int]]) -> BazaarDealt:
    """The bazaar with these stalls (top card first); an empty stall is one already sold out."""
    return BazaarDealt(
        displayed=tuple(s[0] if s else 0 for s in stalls),
        sizes=tuple(len(s) for s in stalls),
        face_down=tuple(tuple(s[1:]) for s in stalls),
        set_aside=tuple(w for w in sorted(EDITION.wares) if all(w not in s for s in stalls)),
    )


def opening(
    players: int = 2, stalls: Sequence[Sequence[int]] = STALLS, double: bool = False, solitaire_ware: int = 6
) -> list[Event]:
    """The set-up: players seated, exchange cards 1 and 2, the bazaar dealt (or solitaire's ware)."""
    events: list[Event] = [
        GameStarted(
            players=tuple(f"p{i}" for i in range(players)), double_purchase=double, edition="house-1"
        ),
        ExchangeDrawn(cards=EXCHANGE),
    ]
    if players == 1:
        events.append(SolitaireWareDealt(ware=solitaire_ware, set_aside=()))
    else:
        events.append(dealt(stalls))
    return events


def gifts(seat: int, stones: Mapping[str, int]) -> list[Event]:
    """``seat`` receives ``stones`` from the bank (as if chosen after rolling *choice*)."""
    return [ColourChosen(seat=seat, colour=c) for c, n in stones.items() for _ in range(n)]


def table(
    hands: Mapping[int, Mapping[str, int]] | None = None,
    players: int = 2,
    turn_of: int = 0,
    stalls: Sequence[Sequence[int]] = STALLS,
    double: bool = False,
    solitaire_ware: int = 6,
    turn: int | None = None,
) -> list[Event]:
    """A game after everybody's first turn, holding ``hands``, at the start of ``turn_of``'s turn.

    ``turn`` overrides the number of the turn that starts (the default continues the count).
    """
    hands = hands or {}
    events = opening(players, stalls, double, solitaire_ware)
    count = 0
    for seat in range(players):
        count += 1
        events.append(TurnStarted(turn=count, seat=seat))
        events.extend(gifts(seat, hands.get(seat, {})))
        events.append(TurnEnded(seat=seat, turn=count, stones=sum(hands.get(seat, {}).values())))
    for seat in range(turn_of):
        count += 1
        events += [TurnStarted(turn=count, seat=seat), TurnEnded(seat=seat, turn=count, stones=0)]
    events.append(TurnStarted(turn=turn if turn is not None else count + 1, seat=turn_of))
    return events


def rolled(seat: int, colour: str) -> DieRolled:
    """This turn's roll is already made: ``colour`` came up and the bank paid it."""
    return DieRolled(seat=seat, face=colour, stone=colour, choose=False)


def seed_rolling(face: str, history: Sequence[Event]) -> str:
    """A scenario seed whose die shows ``face`` for the next command after ``history``."""
    for i in range(10_000):
        seed = f"die-{i}"
        if EDITION.die_faces[Rng(seed, f"v{len(history)}").below(len(EDITION.die_faces))] == face:
            return seed
    raise AssertionError(f"no seed rolls {face}")


def act(history: Sequence[Event], seat: int, command: Command, seed: str = "scenario") -> list[Event]:
    """``history`` followed by the events ``command`` causes (it must be accepted)."""
    return [*history, *given(GAME, history, seed).when(seat, command).decide()]
