"""Z-1..Z-13: Bazaar's ``evolve``: one event folded into a new state; never validates, never mutates."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from domain.bazaar.components import PALETTE
from domain.bazaar.events import (
    BazaarDealt,
    ColourChosen,
    DieRolled,
    ExcessReturned,
    ExchangeDrawn,
    GameEnded,
    GameStarted,
    HandLimitBroken,
    PurchaseScored,
    SolitaireWareDealt,
    Traded,
    TurnEnded,
    TurnStarted,
    WareBought,
)
from domain.bazaar.state import UNKNOWN_WARE, Player, ScoreRow, State, Unscored
from domain.core import Event
from domain.counts import Counts, minus, plus

__all__ = ["evolve"]

_replace = msgspec.structs.replace


def _with_player(state: State, seat: int, **changes: Any) -> tuple[Player, ...]:
    """The players with ``changes`` made to ``seat``'s record (a seat out of range: unchanged)."""
    players = state.players
    if not 0 <= seat < len(players):
        return players
    return (*players[:seat], _replace(players[seat], **changes), *players[seat + 1 :])


def evolve(state: State, event: Event) -> State:
    """Apply one event to a new state; never validates, never fails on a stored event, never mutates."""
    # One dict look-up by the event's type in place of a match over every event class: the fold of a long
    # game is mostly this function (a third of the time the match statement took, measured).
    apply = _APPLY.get(type(event))
    return state if apply is None else apply(state, event)


def _game_started(state: State, event: GameStarted) -> State:
    """Z-1: the players sit down with empty hands, no wares and no points."""
    return State(
        players=tuple(Player(name=name, hand=PALETTE.none) for name in event.players),
        double_purchase=event.double_purchase,
    )


def _exchange_drawn(state: State, event: ExchangeDrawn) -> State:
    """Z-3: the two exchange cards are known."""
    return _replace(state, exchange=tuple(event.cards))


def _bazaar_dealt(state: State, event: BazaarDealt) -> State:
    """Z-4: the stalls, top card first (face-down cards unknown to a fold of redacted events)."""
    face_down = event.face_down
    stalls: list[tuple[int, ...]] = []
    for index, (top, size) in enumerate(zip(event.displayed, event.sizes, strict=False)):
        hidden = face_down[index] if face_down is not None and index < len(face_down) else None
        below = tuple(hidden) if hidden is not None else (UNKNOWN_WARE,) * max(size - 1, 0)
        stalls.append((top, *below) if size > 0 else ())
    return _replace(state, stalls=tuple(stalls))


def _solitaire_ware_dealt(state: State, event: SolitaireWareDealt) -> State:
    """Z-12: the solitaire target ware."""
    return _replace(state, solitaire_ware=event.ware)


def _turn_started(state: State, event: TurnStarted) -> State:
    """Z-6: the seat's turn begins: nothing rolled, bought or owed yet."""
    seat = event.seat
    turns = state.players[seat].turns + 1 if 0 <= seat < len(state.players) else 0
    return _replace(
        state,
        turn=event.turn,
        current=seat,
        players=_with_player(state, seat, turns=turns),
        phase="roll_or_trade",
        last_roll=None,
        purchases=0,
        unscored=(),
        offender=None,
        chooser=None,
    )


def _die_rolled(state: State, event: DieRolled) -> State:
    """Z-5, Z-7: the face rolled, and the stone taken (on *choice*, the colour is chosen next)."""
    phase = "choose_colour" if event.choose else "buy_or_end"
    if event.stone is None:
        return _replace(state, last_roll=event.face, phase=phase)
    return _moved(state, event.seat, PALETTE.one(event.stone), None, last_roll=event.face, phase=phase)


def _colour_chosen(state: State, event: ColourChosen) -> State:
    """Z-7: the seat takes a stone of the chosen colour."""
    return _moved(state, event.seat, PALETTE.one(event.colour), None, phase="buy_or_end")


def _traded(state: State, event: Traded) -> State:
    """Z-7: the seat gives one side of an equation to the bank and takes the other."""
    gives, takes = PALETTE.of(event.gave), PALETTE.of(event.took)
    return _moved(state, event.seat, takes, gives, phase="buy_or_end")


def _ware_bought(state: State, event: WareBought) -> State:
    """Z-8: the seat pays, takes the stall's top ware (the next card turns up), to be scored."""
    seat, stall, revealed = event.seat, event.stall, event.revealed
    paid_state = _moved(state, seat, None, PALETTE.of(event.paid))
    stalls_now = list(paid_state.stalls)
    if 0 <= stall < len(stalls_now):
        rest = stalls_now[stall][1:]
        if revealed is not None:  # the turned-up card, known even to a fold of redacted events
            rest = (revealed, *rest[1:])
        stalls_now[stall] = rest
    wares = (*paid_state.players[seat].wares, event.ware) if 0 <= seat < len(paid_state.players) else ()
    return _replace(
        paid_state,
        stalls=tuple(stalls_now),
        players=_with_player(paid_state, seat, wares=wares),
        purchases=paid_state.purchases + 1,
        unscored=(*paid_state.unscored, Unscored(ware=event.ware, stars=event.stars)),
    )


def _purchase_scored(state: State, event: PurchaseScored) -> State:
    """Z-9, Z-11, Z-14: a purchase scores its points onto the sheet."""
    seat, ware, gained = event.seat, event.ware, event.points
    score = state.players[seat].score + gained if 0 <= seat < len(state.players) else 0
    row = ScoreRow(
        turn=event.turn, seat=seat, ware=ware, stars=event.stars, stones_left=event.stones_left, points=gained
    )
    return _replace(
        state,
        players=_with_player(state, seat, score=score),
        sheet=(*state.sheet, row),
        unscored=tuple(u for u in state.unscored if u.ware != ware),
    )


def _turn_ended(state: State, _event: TurnEnded) -> State:
    """Z-6: the turn is over."""
    return _replace(state, phase="turn_over")


def _hand_limit_broken(state: State, event: HandLimitBroken) -> State:
    """Z-10: the offender is over the hand limit; the chooser trims it."""
    return _replace(state, phase="discard_excess", offender=event.offender, chooser=event.chooser)


def _excess_returned(state: State, event: ExcessReturned) -> State:
    """Z-10: the offender's excess stones go back to the bank."""
    return _moved(state, event.offender, None, PALETTE.of(event.stones))


def _game_ended(state: State, event: GameEnded) -> State:
    """Z-12, Z-13: the game is over."""
    return _replace(state, phase="over", end_reason=event.reason)


_APPLY: dict[type[Any], Callable[[State, Any], State]] = {
    GameStarted: _game_started,
    ExchangeDrawn: _exchange_drawn,
    BazaarDealt: _bazaar_dealt,
    SolitaireWareDealt: _solitaire_ware_dealt,
    TurnStarted: _turn_started,
    DieRolled: _die_rolled,
    ColourChosen: _colour_chosen,
    Traded: _traded,
    WareBought: _ware_bought,
    PurchaseScored: _purchase_scored,
    TurnEnded: _turn_ended,
    HandLimitBroken: _hand_limit_broken,
    ExcessReturned: _excess_returned,
    GameEnded: _game_ended,
}


def _moved(state: State, seat: int, takes: Counts | None, gives: Counts | None, **changes: Any) -> State:
    """``seat`` takes ``takes`` from the bank and returns ``gives`` to it (None: nothing), with ``changes``
    made in the same copy of the state (a seat out of range moves no stones)."""
    if 0 <= seat < len(state.players):
        bank, hand = state.bank, state.players[seat].hand
        if takes is not None:
            bank, hand = minus(bank, takes), plus(hand, takes)
        if gives is not None:
            bank, hand = plus(bank, gives), minus(hand, gives)
        changes["bank"], changes["players"] = bank, _with_player(state, seat, hand=hand)
    return _replace(state, **changes) if changes else state
