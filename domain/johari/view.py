"""What a seat may see (J-18): the public board plus the viewer's own hand and played card; events redacted
likewise (the draw pile, the Noble stack and unrevealed action cards are the only secrets)."""

from __future__ import annotations

from typing import Literal

import msgspec

from domain.core import Event, Result
from domain.johari.actions import protected
from domain.johari.components import COMPONENTS, PALETTE, place_name
from domain.johari.events import ActionCardPlayed, DiscardReshuffled, GameStarted
from domain.johari.state import State, gold_order

HIDDEN = "hidden"


class TurnView(msgspec.Struct, frozen=True, kw_only=True):
    """The action being resolved and its step progress (public)."""

    seat: int
    card: str
    action: str
    cost: int
    stage: str
    selection: tuple[int, ...]
    wild_card: int | None
    wild_colour: str | None
    noble: int | None
    remaining: int
    pay_colour: str | None
    give: int | None


class PlayerView(msgspec.Struct, frozen=True, kw_only=True):
    """One player's board as the viewer may see it (Prestige Cards are public, J-13/J-18)."""

    seat: int
    name: str
    gold: int
    gold_row: Literal["top", "bottom"]  # J-11: the Gold Track row; every turn of the round changes it
    gem_tokens: dict[str, int]
    display: tuple[int, ...]
    trade_card: tuple[int, ...]
    prestige_cards: tuple[int, ...]
    hand: tuple[str, ...] | None  # the viewer's own only
    slots: tuple[str | None, ...]  # "hidden": another player's card played but not yet revealed
    nobles: tuple[int, ...]
    noble_slots: tuple[tuple[int, int], ...]
    protected: bool  # J-13: safe from fake discards (from the reveal of a Bribe's round)
    acted: bool
    cashable: tuple[int, ...]
    owes_fake: bool


class JohariView(msgspec.Struct, frozen=True, kw_only=True):
    """The Johari table as seen by ``viewer`` (None: spectator)."""

    viewer: int | None
    phase: str
    day: int
    round: int
    players: tuple[PlayerView, ...]
    turn_order: tuple[int, ...]  # J-11: most gold first, stack tie-break applied
    market: dict[str, tuple[int, ...]]  # store_red .. store_gold, booth_0 ..
    draw_pile_size: int
    discard: tuple[int, ...]
    noble_track: dict[str, int | None]  # space "1".."5" -> Noble id
    noble_costs: dict[str, int]
    noble_stack_size: int
    turn: TurnView | None
    setup_order: tuple[int, ...]
    scores: tuple[int, ...]
    winners: tuple[int, ...]


def view(state: State, seat: int | None, outcome: Result | None) -> JohariView:
    """J-18: everything public, plus the viewer's own hand and played card; once over, the scores and
    winner(s) of ``outcome`` (J-15)."""
    players = []
    for index, p in enumerate(state.players):
        own = seat == index or state.phase == "over"
        slots = list(p.slots)
        if state.phase == "play" and not own and slots[state.round - 1] is not None:
            slots[state.round - 1] = HIDDEN
        players.append(
            PlayerView(
                seat=index,
                name=p.name,
                gold=p.gold,
                gold_row="bottom" if p.bottom_row else "top",
                gem_tokens=PALETTE.full(p.tokens),
                display=p.display,
                trade_card=p.trade,
                prestige_cards=p.prestige,
                hand=p.hand if own else None,
                slots=tuple(slots),
                nobles=p.nobles,
                noble_slots=p.noble_slots,
                protected=protected(state, index),
                acted=p.acted,
                cashable=p.cashable,
                owes_fake=p.owes_fake,
            )
        )
    t = state.turn
    turn = (
        None
        if t is None
        else TurnView(
            seat=t.seat,
            card=t.card,
            action=t.action,
            cost=t.cost,
            stage=t.stage,
            selection=t.selection,
            wild_card=t.wild_card,
            wild_colour=t.wild_colour,
            noble=t.noble,
            remaining=t.remaining,
            pay_colour=t.pay_colour,
            give=t.give,
        )
    )
    return JohariView(
        viewer=seat,
        phase=state.phase,
        day=state.day,
        round=state.round,
        players=tuple(players),
        turn_order=tuple(gold_order(state)),
        market={place_name(i): cards for i, cards in enumerate(state.market)},
        draw_pile_size=len(state.draw),
        discard=state.discard,
        noble_track={str(i + 1): n for i, n in enumerate(state.noble_track)},
        noble_costs={str(k): v for k, v in COMPONENTS.noble_space_costs.items()},
        noble_stack_size=len(state.noble_stack),
        turn=turn,
        setup_order=state.setup_order,
        scores=state.scores if outcome is None else outcome.scores,
        winners=() if outcome is None else outcome.winners,
    )


def redact(event: Event, seat: int | None) -> Event:
    """J-18: hide the pile and Noble stack order and the action cards not yet revealed."""
    match event:
        case GameStarted():
            return msgspec.structs.replace(event, draw_pile=(), noble_stack=())
        case DiscardReshuffled():
            return msgspec.structs.replace(event, draw_pile=())
        case ActionCardPlayed() if event.seat != seat:
            return msgspec.structs.replace(event, card=None)
    return event
