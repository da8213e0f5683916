"""Histories for Johari scenario tests: a known market, Nobles and boards, reached through events.

A history is a fold, so it need not be a legal game: cards "in hand" arrive as ``SetupCardPicked`` events,
gold as ``GoldChanged``, Gem Tokens as ``GemTokenAdvanced``, Nobles as ``NobleHired`` (only the command
under test, and the plays that lead to it, are decided). Every player starts on 15 gold; on equal gold the
token higher in the opening stack (``top``) acts first (J-8, J-11).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from domain.core import Command, Event, GameConfig, Rng, fold
from domain.johari import GAME
from domain.johari.commands import ActionName, PlayActionCard
from domain.johari.components import COLOURS, COMPONENTS
from domain.johari.events import (
    ActionCardPlayed,
    ActionCardsRevealed,
    CardsDealt,
    CardsSold,
    CardsTaken,
    DayStarted,
    GameStarted,
    GemTokenAdvanced,
    GoldChanged,
    NobleHired,
    NoblePlaced,
    ProtectionGained,
    RoundStarted,
    SetupCardPicked,
)
from domain.johari.state import State, card
from tests.support.scenario import given


def gem(colour: str, gems: int, fake: bool = False, nth: int = 0) -> int:
    """The id of the ``nth`` gem card of that colour, gem count and fakeness."""
    ids = [
        c.id
        for c in COMPONENTS.cards.values()
        if c.kind == "gem" and c.colour == colour and c.gems == gems and c.fake == fake
    ]
    return ids[nth]


def gold_card(amount: int, nth: int = 0) -> int:
    """The id of a Gold Card worth ``amount``."""
    return [c.id for c in COMPONENTS.cards.values() if c.kind == "gold" and c.gold == amount][nth]


def prestige_card(points: int, nth: int = 0) -> int:
    """The id of a Prestige Card worth ``points``."""
    return [c.id for c in COMPONENTS.cards.values() if c.kind == "prestige" and c.prestige == points][nth]


def noble(ability: str) -> int:
    """The id of the Noble with this ability."""
    return next(n.id for n in COMPONENTS.nobles.values() if n.ability == ability)


R1, R2, R3 = gem("red", 1, nth=1), gem("red", 2), gem("red", 3)
B1, B2, B3 = gem("blue", 1, nth=1), gem("blue", 2), gem("blue", 3)
G1, G2, G3 = gem("green", 1, nth=1), gem("green", 2), gem("green", 3)
W1, W2, W3 = gem("white", 1, nth=1), gem("white", 2), gem("white", 3)
RF, BF, GF = gem("red", 1, fake=True), gem("blue", 2, fake=True), gem("green", 3, fake=True)


def opening(
    players: int = 2,
    *,
    market: Mapping[str, Sequence[int]] | None = None,
    draw: Sequence[int] = (),
    track: tuple[int | None, ...] = (None, None, None, None, None),
    stack: Sequence[int] = (),
    top: int | None = 0,
) -> list[Event]:
    """Set-up done (nobody took a card), ``market`` dealt, ``draw`` left face down; the game waits before
    day 1. The gold stack is seat order from the bottom, with ``top`` (default seat 0) on top."""
    market = market or {}
    dealt = [c for cards in market.values() for c in cards]
    places = [place for place, cards in market.items() for _ in cards]
    top = 0 if top is None else top
    stack_order = (*(s for s in range(players) if s != top), top)
    events: list[Event] = [
        GameStarted(
            players=tuple(f"p{i}" for i in range(players)),
            gold_stack=stack_order,
            noble_track=track,
            noble_stack=tuple(stack),
            noble_stack_size=len(stack),
            draw_pile=(*dealt, *draw),
            draw_pile_size=len(dealt) + len(draw),
        )
    ]
    if dealt:
        events.append(CardsDealt(cards=tuple(dealt), places=tuple(places)))
    events += [SetupCardPicked(seat=s, place="store_gold", cards=(), prestige_cards=()) for s in stack_order]
    return events


def table(players: int = 2, *, day: int = 1, round: int = 1, **setup: object) -> list[Event]:
    """``opening(players, **setup)`` then day ``day``, round ``round``: every seat is to play a card."""
    return [*opening(players, **setup), DayStarted(day=day), RoundStarted(round=round)]  # type: ignore[arg-type]


def holding(seat: int, *cards: int) -> SetupCardPicked:
    """``seat`` holds ``cards`` (Prestige Cards among them go to its Prestige Cards)."""
    return SetupCardPicked(
        seat=seat,
        place="store_gold",
        cards=tuple(c for c in cards if card(c).kind != "prestige"),
        prestige_cards=tuple(c for c in cards if card(c).kind == "prestige"),
    )


def gold(seat: int, amount: int, before: int = COMPONENTS.gold_start) -> GoldChanged:
    """``seat``'s Gold Token is on ``amount`` (and on top of that space)."""
    return GoldChanged(seat=seat, delta=amount - before, gold=amount)


def tokens(seat: int, **positions: int) -> list[Event]:
    """``seat``'s Gem Tokens on these positions (from 0)."""
    return [
        GemTokenAdvanced(seat=seat, colour=c, steps=positions[c], position=positions[c])
        for c in COLOURS
        if positions.get(c)
    ]


def hired(seat: int, noble_id: int, slot: int | None = None) -> list[Event]:
    """``seat`` has hired this Noble (a slot Noble placed on ``slot``)."""
    events: list[Event] = [NobleHired(seat=seat, noble=noble_id, space=1)]
    if slot is not None:
        events.append(NoblePlaced(seat=seat, noble=noble_id, slot=slot))
    return events


def played(seat: int, slot: int, action: str) -> ActionCardPlayed:
    """``seat`` played ``action`` into ``slot`` in an earlier round of the day."""
    return ActionCardPlayed(seat=seat, slot=slot, card=action)


def discarded(*cards: int) -> CardsSold:
    """``cards`` lie on the discard pile."""
    return CardsSold(seat=0, buyer="jeweler", cards=tuple(cards))


def protected(seat: int) -> ProtectionGained:
    """``seat`` is safe from fake discards for the rest of the day."""
    return ProtectionGained(seat=seat)


def act(history: Sequence[Event], seat: int, command: Command, seed: str = "scenario") -> list[Event]:
    """``history`` followed by the events ``command`` causes (it must be accepted)."""
    return [*history, *given(GAME, history, seed).when(seat, command).decide()]


def plays(history: Sequence[Event], cards: Mapping[int, str]) -> list[Event]:
    """Every seat plays its card of this round, in seat order; the reveal and turns that follow run."""
    for seat, name in sorted(cards.items()):
        history = act(history, seat, PlayActionCard(card=name))  # type: ignore[arg-type]
    return list(history)


def since(history: Sequence[Event], before: Sequence[Event]) -> list[Event]:
    """The events of ``history`` after its prefix ``before``."""
    assert list(history[: len(before)]) == list(before)
    return list(history[len(before) :])


def on_trade_card(seat: int, *cards: int) -> CardsTaken:
    """``cards`` lie on ``seat``'s Trade card (taken from Store red: the fold does not check where)."""
    return CardsTaken(seat=seat, place="store_red", to="trade", cards=cards, prestige_cards=())


def now(history: Sequence[Event]) -> State:
    """The state the history folds to."""
    return fold(GAME, history)


def turn(
    history: Sequence[Event], seat: int, action: ActionName, previous: ActionName | None = None
) -> tuple[list[Event], list[Event]]:
    """``seat`` plays ``action`` this round (after ``previous`` in the round before), every other seat plays
    Baksheesh (Bribe the round before); returns the history at the seat's first decision (or after its turn
    if nothing is left to decide) and the events since the reveal. The seat must be first in gold order."""
    history = list(history)
    state = now(history)
    if previous is not None:
        history += [
            played(s, state.round - 1, previous if s == seat else "bribe") for s in range(len(state.players))
        ]
    history = plays(history, {s: action if s == seat else "baksheesh" for s in range(len(state.players))})
    revealed = max(i for i, e in enumerate(history) if isinstance(e, ActionCardsRevealed))
    return history, history[revealed + 1 :]


def started(players: int = 2, seed: str = "seed") -> tuple[list[Event], State]:
    """A real set-up from ``seed``: the opening events and the state they fold to."""
    config = GameConfig(players=tuple(f"p{i}" for i in range(players)), options=GAME.options_type())
    events = GAME.setup(config, Rng(seed, "setup"))
    return events, now(events)
