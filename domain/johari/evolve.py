"""Johari's ``evolve`` (J-6..J-15): one event folded into a new state; never validates, never mutates."""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from domain.core import Event
from domain.johari.components import ACTIONS, COLOURS, COMPONENTS, STORES
from domain.johari.events import (
    ActionCardPlayed,
    ActionCardsRevealed,
    ActionSkipped,
    CardDiscardedForAdvance,
    CardsDealt,
    CardsExchanged,
    CardsSold,
    CardsTaken,
    DayEnded,
    DayStarted,
    DiscardReshuffled,
    ExchangeCardChosen,
    FakeDiscarded,
    FakeDiscardsOwed,
    GameEnded,
    GameStarted,
    GemTokenAdvanced,
    GoldCardCashed,
    GoldCardsKept,
    GoldChanged,
    JewelerCardSelected,
    NobleHired,
    NobleHireStarted,
    NoblePaid,
    NoblePlaced,
    NoblesAdvanced,
    ProtectionGained,
    RoundStarted,
    SetupCardPicked,
    TurnEnded,
    TurnStarted,
)
from domain.johari.nobles import is_slot_noble
from domain.johari.state import Player, State, Turn, card, place_index, with_player

__all__ = ["evolve"]

replace = msgspec.structs.replace


def _remove(cards: tuple[int, ...], *gone: int) -> tuple[int, ...]:
    """``cards`` without ``gone``."""
    return tuple(c for c in cards if c not in gone)


def _set_market(state: State, index: int, cards: tuple[int, ...]) -> State:
    """The state with one Store or Booth replaced."""
    market = list(state.market)
    market[index] = cards
    return replace(state, market=tuple(market))


def _player_update(state: State, seat: int, **changes: object) -> State:
    """The state with some fields of one player changed."""
    return with_player(state, seat, replace(state.players[seat], **changes))


def _all_players(state: State, fn: Callable[[Player], Player]) -> State:
    """The state with ``fn`` applied to every player."""
    return replace(state, players=tuple(fn(p) for p in state.players))


def _on_top(state: State, seat: int) -> State:
    """J-11: the seat's Gold Token goes on top of the tokens on its space (a move, or a change of row)."""
    counter = state.stamp_counter + 1
    return replace(_player_update(state, seat, stamp=counter), stamp_counter=counter)


def _change_row(state: State, seat: int) -> State:
    """J-11: the seat's turn came (paid, free or skipped): its Gold Token changes row, landing on top."""
    return _player_update(_on_top(state, seat), seat, bottom_row=not state.players[seat].bottom_row)


def evolve(state: State, event: Event) -> State:
    """Apply one event (never validates, never mutates ``state``)."""
    match event:
        case GameStarted():
            n = len(event.players)
            stamps = {seat: height for height, seat in enumerate(event.gold_stack)}
            players = tuple(
                Player(name=name, gold=COMPONENTS.gold_start, stamp=stamps.get(seat, 0))
                for seat, name in enumerate(event.players)
            )
            return State(
                phase="setup_pick",
                players=players,
                draw=event.draw_pile,
                market=((),) * (len(STORES) + n + 2),
                noble_track=event.noble_track,
                noble_stack=event.noble_stack,
                stamp_counter=n,
                setup_order=event.gold_stack,
            )
        case CardsDealt():
            market = [list(m) for m in state.market]
            for cid, place in zip(event.cards, event.places, strict=False):
                market[place_index(state, place)].append(cid)
            return replace(state, draw=state.draw[len(event.cards) :], market=tuple(tuple(m) for m in market))
        case DiscardReshuffled():
            return replace(state, draw=state.draw + event.draw_pile, discard=())
        case SetupCardPicked():
            index = place_index(state, event.place)
            state = _set_market(
                state, index, _remove(state.market[index], *event.cards, *event.prestige_cards)
            )
            p = state.players[event.seat]
            state = _player_update(
                state, event.seat, display=p.display + event.cards, prestige=p.prestige + event.prestige_cards
            )
            return replace(state, setup_next=state.setup_next + 1)
        case DayStarted():
            return replace(state, day=event.day)
        case NoblesAdvanced():
            return replace(
                state,
                noble_track=(*state.noble_track[1:], event.entering),
                noble_stack=state.noble_stack[1:] if event.entering is not None else state.noble_stack,
            )
        case RoundStarted():
            return replace(
                _all_players(state, lambda p: replace(p, acted=False)),
                round=event.round,
                phase="play",
                turn=None,
            )
        case ActionCardPlayed():
            p = state.players[event.seat]
            slots = list(p.slots)
            slots[event.slot - 1] = event.card
            hand = list(p.hand)
            if event.card in hand:
                hand.remove(event.card)
            return _player_update(state, event.seat, slots=tuple(slots), hand=tuple(hand))
        case ActionCardsRevealed():
            return replace(state, phase="resolve")
        case TurnStarted():
            stage = event.action
            return replace(
                _change_row(state, event.seat),
                turn=Turn(
                    seat=event.seat, card=event.card, action=event.action, cost=event.cost, stage=stage
                ),
            )
        case ActionSkipped():
            return _player_update(_change_row(state, event.seat), event.seat, acted=True)
        case TurnEnded():
            return replace(_player_update(state, event.seat, acted=True), turn=None)
        case GoldChanged():
            p = state.players[event.seat]
            if event.gold == p.gold:
                return state
            # J-11/J-12: a token that moves goes on top of the stack on its new space.
            return _player_update(_on_top(state, event.seat), event.seat, gold=event.gold)
        case CardsTaken():
            index = place_index(state, event.place)
            state = _set_market(
                state, index, _remove(state.market[index], *event.cards, *event.prestige_cards)
            )
            p = state.players[event.seat]
            if event.to == "trade":
                # J-13 Trade: every card taken, Prestige and Gold Cards included, waits on the Trade card.
                p = replace(p, trade=p.trade + event.cards + event.prestige_cards)
            else:
                gold_cards = tuple(c for c in event.cards if card(c).kind == "gold")
                p = replace(
                    p,
                    display=p.display + event.cards,
                    prestige=p.prestige + event.prestige_cards,
                    cashable=p.cashable + gold_cards,
                )
            return with_player(state, event.seat, p)
        case GoldCardCashed():
            p = state.players[event.seat]
            state = _player_update(
                state,
                event.seat,
                display=_remove(p.display, event.card),
                cashable=_remove(p.cashable, event.card),
            )
            return replace(state, discard=(*state.discard, event.card))
        case GoldCardsKept():
            return _player_update(state, event.seat, cashable=())
        case JewelerCardSelected():
            turn = state.turn
            if turn is None:
                return state
            chosen = replace(turn, stage="jeweler", selection=(*turn.selection, event.card))
            if event.as_colour is not None:
                chosen = replace(chosen, wild_card=event.card, wild_colour=event.as_colour)
            return replace(state, turn=chosen)
        case CardsSold():
            p = state.players[event.seat]
            state = _player_update(state, event.seat, display=_remove(p.display, *event.cards))
            return replace(state, discard=state.discard + event.cards)
        case GemTokenAdvanced():
            p = state.players[event.seat]
            tokens = list(p.tokens)
            tokens[COLOURS.index(event.colour)] = event.position
            return _player_update(state, event.seat, tokens=tuple(tokens))
        case FakeDiscardsOwed():
            for seat in event.seats:
                state = _player_update(state, seat, owes_fake=True)
            return state
        case FakeDiscarded() | CardDiscardedForAdvance():
            p = state.players[event.seat]
            state = _player_update(state, event.seat, display=_remove(p.display, event.card), owes_fake=False)
            return replace(state, discard=(*state.discard, event.card))
        case ProtectionGained():
            return _player_update(state, event.seat, protected=True)
        case NobleHireStarted():
            if state.turn is None:
                return state
            turn = replace(state.turn, stage="pay_noble", noble=event.noble, remaining=event.cost)
            return replace(state, turn=turn)
        case NoblePaid():
            if event.card is not None:
                p = state.players[event.seat]
                state = _player_update(state, event.seat, display=_remove(p.display, event.card))
                state = replace(state, discard=(*state.discard, event.card))
            if state.turn is None:
                return state
            paying = replace(state.turn, remaining=event.remaining)
            if event.card is not None and card(event.card).kind == "gem":
                paying = replace(paying, pay_colour=card(event.card).colour)
            return replace(state, turn=paying)
        case NobleHired():
            track = tuple(None if n == event.noble else n for n in state.noble_track)
            p = state.players[event.seat]
            state = _player_update(state, event.seat, nobles=(*p.nobles, event.noble))
            turn = state.turn
            if turn is not None and is_slot_noble(event.noble):
                turn = replace(turn, stage="place_noble")
            return replace(state, noble_track=track, turn=turn)
        case NoblePlaced():
            p = state.players[event.seat]
            return _player_update(state, event.seat, noble_slots=(*p.noble_slots, (event.noble, event.slot)))
        case ExchangeCardChosen():
            if state.turn is None:
                return state
            return replace(state, turn=replace(state.turn, stage="exchange_take", give=event.card))
        case CardsExchanged():
            taken = event.taken
            p = state.players[event.seat]
            p = replace(p, display=_remove(p.display, event.given), prestige=_remove(p.prestige, event.given))
            if card(taken).kind == "prestige":
                p = replace(p, prestige=(*p.prestige, taken))
            else:
                p = replace(p, display=(*p.display, taken))
            source = place_index(state, event.place)
            state = _set_market(state, source, _remove(state.market[source], taken))
            target = place_index(state, event.given_to)
            state = _set_market(state, target, (*state.market[target], event.given))
            return with_player(state, event.seat, p)
        case DayEnded():

            def end_day(p: Player) -> Player:
                """J-14: the Trade card's cards join the display (Prestige Cards the Prestige Cards)."""
                gold_cards = tuple(c for c in p.trade if card(c).kind == "gold")
                prestige = tuple(c for c in p.trade if card(c).kind == "prestige")
                return replace(
                    p,
                    hand=ACTIONS,
                    slots=(None, None, None),
                    display=p.display + _remove(p.trade, *prestige),
                    prestige=p.prestige + prestige,
                    trade=(),
                    cashable=p.cashable + gold_cards,
                    protected=False,
                    acted=False,
                )

            return replace(_all_players(state, end_day), phase="day_end", turn=None)
        case GameEnded():
            return replace(state, phase="over", scores=event.scores, winners=event.winners)
    return state
