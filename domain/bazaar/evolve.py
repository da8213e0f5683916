"""Z-1..Z-13: Bazaar's ``evolve``: one event folded into a new state; never validates, never mutates."""

from __future__ import annotations

import msgspec

from domain.bazaar.components import EDITION, Stones, minus, plus
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
from domain.bazaar.state import UNKNOWN_WARE, ScoreRow, State, Unscored
from domain.core import Event

__all__ = ["evolve"]

_replace = msgspec.structs.replace


def _one(colour: str) -> Stones:
    """A single stone of ``colour``."""
    return tuple(1 if c == colour else 0 for c in EDITION.colours)


def _set(items: tuple[Stones, ...], index: int, value: Stones) -> tuple[Stones, ...]:
    """``items`` with entry ``index`` replaced (out of range: unchanged)."""
    if not 0 <= index < len(items):
        return items
    return (*items[:index], value, *items[index + 1 :])


def evolve(state: State, event: Event) -> State:
    """Apply one event to a new state; never validates, never fails on a stored event, never mutates."""
    match event:
        case GameStarted(players=players, double_purchase=double):
            none = EDITION.none()
            return State(
                players=tuple(players),
                double_purchase=double,
                hands=tuple(none for _ in players),
                wares=tuple(() for _ in players),
                scores=tuple(0 for _ in players),
                turns_played=tuple(0 for _ in players),
            )
        case ExchangeDrawn(cards=cards):
            return _replace(state, exchange=tuple(cards))
        case BazaarDealt(displayed=displayed, sizes=sizes, face_down=face_down):
            stalls: list[tuple[int, ...]] = []
            for index, (top, size) in enumerate(zip(displayed, sizes, strict=False)):
                hidden = face_down[index] if face_down is not None and index < len(face_down) else None
                below = tuple(hidden) if hidden is not None else (UNKNOWN_WARE,) * max(size - 1, 0)
                stalls.append((top, *below) if size > 0 else ())
            return _replace(state, stalls=tuple(stalls))
        case SolitaireWareDealt(ware=ware):
            return _replace(state, solitaire_ware=ware)
        case TurnStarted(turn=turn, seat=seat):
            played = tuple(n + 1 if i == seat else n for i, n in enumerate(state.turns_played))
            return _replace(
                state,
                turn=turn,
                current=seat,
                turns_played=played,
                phase="roll_or_trade",
                last_roll=None,
                purchases=0,
                unscored=(),
                offender=None,
                chooser=None,
            )
        case DieRolled(seat=seat, face=face, stone=stone, choose=choose):
            rolled = _replace(state, last_roll=face, phase="choose_colour" if choose else "buy_or_end")
            return _take(rolled, seat, _one(stone)) if stone is not None else rolled
        case ColourChosen(seat=seat, colour=colour):
            return _take(_replace(state, phase="buy_or_end"), seat, _one(colour))
        case Traded(seat=seat, gave=gave, took=took):
            gives, takes = EDITION.stones(gave), EDITION.stones(took)
            traded = _take(_replace(state, phase="buy_or_end"), seat, takes)
            return _give(traded, seat, gives)
        case WareBought(seat=seat, ware=ware, stall=stall, paid=paid, stars=stars, revealed=revealed):
            paid_state = _give(state, seat, EDITION.stones(paid))
            stalls_now = list(paid_state.stalls)
            if 0 <= stall < len(stalls_now):
                rest = stalls_now[stall][1:]
                if revealed is not None:  # the turned-up card, known even to a fold of redacted events
                    rest = (revealed, *rest[1:])
                stalls_now[stall] = rest
            wares = tuple((*w, ware) if i == seat else w for i, w in enumerate(paid_state.wares))
            return _replace(
                paid_state,
                stalls=tuple(stalls_now),
                wares=wares,
                purchases=paid_state.purchases + 1,
                unscored=(*paid_state.unscored, Unscored(ware=ware, stars=stars)),
            )
        case PurchaseScored(seat=seat, turn=turn, ware=ware, stars=stars, stones_left=left, points=gained):
            scores = tuple(s + gained if i == seat else s for i, s in enumerate(state.scores))
            row = ScoreRow(turn=turn, seat=seat, ware=ware, stars=stars, stones_left=left, points=gained)
            return _replace(
                state,
                scores=scores,
                sheet=(*state.sheet, row),
                unscored=tuple(u for u in state.unscored if u.ware != ware),
            )
        case TurnEnded():
            return _replace(state, phase="turn_over")
        case HandLimitBroken(offender=offender, chooser=chooser):
            return _replace(state, phase="discard_excess", offender=offender, chooser=chooser)
        case ExcessReturned(offender=offender, stones=stones):
            return _give(state, offender, EDITION.stones(stones))
        case GameEnded(reason=reason):
            return _replace(state, phase="over", end_reason=reason)
    return state


def _take(state: State, seat: int, stones: Stones) -> State:
    """``seat`` takes ``stones`` from the bank."""
    if not 0 <= seat < len(state.hands):
        return state
    return _replace(
        state, bank=minus(state.bank, stones), hands=_set(state.hands, seat, plus(state.hands[seat], stones))
    )


def _give(state: State, seat: int, stones: Stones) -> State:
    """``seat`` returns ``stones`` to the bank."""
    if not 0 <= seat < len(state.hands):
        return state
    return _replace(
        state, bank=plus(state.bank, stones), hands=_set(state.hands, seat, minus(state.hands[seat], stones))
    )
