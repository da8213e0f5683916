"""Johari's ``evolve`` (J-6..J-15): one event folded into a new state; never validates, never mutates."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

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
    # One dict look-up by the event's type (each event's handler below), as in Bazaar's evolve.
    apply = _APPLY.get(type(event))
    return state if apply is None else apply(state, event)


def _game_started(_state: State, event: GameStarted) -> State:
    """J-6..J-8: the boards, the market's places, the Noble track and the gold stack (setup order)."""
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


def _cards_dealt(state: State, event: CardsDealt) -> State:
    """J-7, J-9: cards from the top of the draw pile go to the named places."""
    market = [list(m) for m in state.market]
    for cid, place in zip(event.cards, event.places, strict=False):
        market[place_index(state, place)].append(cid)
    return replace(state, draw=state.draw[len(event.cards) :], market=tuple(tuple(m) for m in market))


def _discard_reshuffled(state: State, event: DiscardReshuffled) -> State:
    """J-7: the discard pile, shuffled, becomes the new draw pile."""
    return replace(state, draw=state.draw + event.draw_pile, discard=())


def _setup_card_picked(state: State, event: SetupCardPicked) -> State:
    """J-8: the seat takes its setup cards from a place; the next seat picks."""
    index = place_index(state, event.place)
    state = _set_market(state, index, _remove(state.market[index], *event.cards, *event.prestige_cards))
    p = state.players[event.seat]
    state = _player_update(
        state, event.seat, display=p.display + event.cards, prestige=p.prestige + event.prestige_cards
    )
    return replace(state, setup_next=state.setup_next + 1)


def _day_started(state: State, event: DayStarted) -> State:
    """J-9: a new day."""
    return replace(state, day=event.day)


def _nobles_advanced(state: State, event: NoblesAdvanced) -> State:
    """J-9: the Noble track moves on one space; a Noble from the stack (if any) enters."""
    return replace(
        state,
        noble_track=(*state.noble_track[1:], event.entering),
        noble_stack=state.noble_stack[1:] if event.entering is not None else state.noble_stack,
    )


def _round_started(state: State, event: RoundStarted) -> State:
    """J-10: a Market Round starts; nobody has acted in it."""
    return replace(
        _all_players(state, lambda p: replace(p, acted=False)), round=event.round, phase="play", turn=None
    )


def _action_card_played(state: State, event: ActionCardPlayed) -> State:
    """J-10: the seat lays an action card face down in a slot."""
    p = state.players[event.seat]
    slots = list(p.slots)
    slots[event.slot - 1] = event.card
    hand = list(p.hand)
    if event.card in hand:
        hand.remove(event.card)
    return _player_update(state, event.seat, slots=tuple(slots), hand=tuple(hand))


def _action_cards_revealed(state: State, _event: ActionCardsRevealed) -> State:
    """J-11: the action cards are turned up; the round is resolved."""
    return replace(state, phase="resolve")


def _turn_started(state: State, event: TurnStarted) -> State:
    """J-11: the seat's turn comes (its Gold Token changes row); its action is resolved next."""
    turn = Turn(seat=event.seat, card=event.card, action=event.action, cost=event.cost, stage=event.action)
    return replace(_change_row(state, event.seat), turn=turn)


def _action_skipped(state: State, event: ActionSkipped) -> State:
    """J-12, J-19: the seat's turn came but it does not act (its Gold Token still changes row)."""
    return _player_update(_change_row(state, event.seat), event.seat, acted=True)


def _turn_ended(state: State, event: TurnEnded) -> State:
    """J-11: the seat has acted in this round."""
    return replace(_player_update(state, event.seat, acted=True), turn=None)


def _gold_changed(state: State, event: GoldChanged) -> State:
    """J-11, J-12: the seat's gold moves; a token that moves goes on top of the stack on its new space."""
    if event.gold == state.players[event.seat].gold:
        return state
    return _player_update(_on_top(state, event.seat), event.seat, gold=event.gold)


def _cards_taken(state: State, event: CardsTaken) -> State:
    """J-13 Purchase/Trade: cards leave a place for the display (or, on Trade, the Trade card)."""
    index = place_index(state, event.place)
    state = _set_market(state, index, _remove(state.market[index], *event.cards, *event.prestige_cards))
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


def _gold_card_cashed(state: State, event: GoldCardCashed) -> State:
    """J-13, J-14: a Gold Card just taken is cashed and discarded."""
    p = state.players[event.seat]
    state = _player_update(
        state, event.seat, display=_remove(p.display, event.card), cashable=_remove(p.cashable, event.card)
    )
    return replace(state, discard=(*state.discard, event.card))


def _gold_cards_kept(state: State, event: GoldCardsKept) -> State:
    """J-13, J-14: the seat keeps the Gold Cards it did not cash."""
    return _player_update(state, event.seat, cashable=())


def _jeweler_card_selected(state: State, event: JewelerCardSelected) -> State:
    """J-13 Jeweler: one more card for the sale (a wild card with the colour it stands for)."""
    turn = state.turn
    if turn is None:
        return state
    chosen = replace(turn, stage="jeweler", selection=(*turn.selection, event.card))
    if event.as_colour is not None:
        chosen = replace(chosen, wild_card=event.card, wild_colour=event.as_colour)
    return replace(state, turn=chosen)


def _cards_sold(state: State, event: CardsSold) -> State:
    """J-13 Sale/Jeweler: the sold cards leave the display for the discard pile."""
    p = state.players[event.seat]
    state = _player_update(state, event.seat, display=_remove(p.display, *event.cards))
    return replace(state, discard=state.discard + event.cards)


def _gem_token_advanced(state: State, event: GemTokenAdvanced) -> State:
    """J-13: the seat's Gem Token of a colour moves to its new position."""
    p = state.players[event.seat]
    tokens = list(p.tokens)
    tokens[COLOURS.index(event.colour)] = event.position
    return _player_update(state, event.seat, tokens=tuple(tokens))


def _fake_discards_owed(state: State, event: FakeDiscardsOwed) -> State:
    """J-13 Sale: these seats must each discard a fake gem card."""
    for seat in event.seats:
        state = _player_update(state, seat, owes_fake=True)
    return state


def _card_discarded(state: State, event: FakeDiscarded | CardDiscardedForAdvance) -> State:
    """J-13 Sale, J-16: the seat discards a card from its display (a fake gem card, or one instead of selling)."""
    p = state.players[event.seat]
    state = _player_update(state, event.seat, display=_remove(p.display, event.card), owes_fake=False)
    return replace(state, discard=(*state.discard, event.card))


def _protection_gained(state: State, event: ProtectionGained) -> State:
    """J-13 Bribe, J-16: the seat is protected until the end of the day."""
    return _player_update(state, event.seat, protected=True)


def _noble_hire_started(state: State, event: NobleHireStarted) -> State:
    """J-13 Trade: the seat starts paying for a Noble."""
    if state.turn is None:
        return state
    return replace(
        state, turn=replace(state.turn, stage="pay_noble", noble=event.noble, remaining=event.cost)
    )


def _noble_paid(state: State, event: NoblePaid) -> State:
    """J-13, J-16: one payment towards the Noble (a card discarded, or none); a gem card fixes the colour."""
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


def _noble_hired(state: State, event: NobleHired) -> State:
    """J-13 Trade: the Noble leaves the track for the seat (a slot Noble is placed next)."""
    track = tuple(None if n == event.noble else n for n in state.noble_track)
    p = state.players[event.seat]
    state = _player_update(state, event.seat, nobles=(*p.nobles, event.noble))
    turn = state.turn
    if turn is not None and is_slot_noble(event.noble):
        turn = replace(turn, stage="place_noble")
    return replace(state, noble_track=track, turn=turn)


def _noble_placed(state: State, event: NoblePlaced) -> State:
    """J-16: a slot Noble goes on one of the seat's slots."""
    p = state.players[event.seat]
    return _player_update(state, event.seat, noble_slots=(*p.noble_slots, (event.noble, event.slot)))


def _exchange_card_chosen(state: State, event: ExchangeCardChosen) -> State:
    """J-13 Exchange: the card to give is chosen; the card to take is chosen next."""
    if state.turn is None:
        return state
    return replace(state, turn=replace(state.turn, stage="exchange_take", give=event.card))


def _cards_exchanged(state: State, event: CardsExchanged) -> State:
    """J-13 Exchange: the given card goes to a place, the taken card joins the display (or Prestige)."""
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


def _end_day(p: Player) -> Player:
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


def _day_ended(state: State, _event: DayEnded) -> State:
    """J-14: every player's day ends (cards back in hand, the Trade card emptied)."""
    return replace(_all_players(state, _end_day), phase="day_end", turn=None)


def _game_ended(state: State, event: GameEnded) -> State:
    """J-15: the game is over."""
    return replace(state, phase="over", scores=event.scores, winners=event.winners)


_APPLY: Final[dict[type[Any], Callable[[State, Any], State]]] = {
    GameStarted: _game_started,
    CardsDealt: _cards_dealt,
    DiscardReshuffled: _discard_reshuffled,
    SetupCardPicked: _setup_card_picked,
    DayStarted: _day_started,
    NoblesAdvanced: _nobles_advanced,
    RoundStarted: _round_started,
    ActionCardPlayed: _action_card_played,
    ActionCardsRevealed: _action_cards_revealed,
    TurnStarted: _turn_started,
    ActionSkipped: _action_skipped,
    TurnEnded: _turn_ended,
    GoldChanged: _gold_changed,
    CardsTaken: _cards_taken,
    GoldCardCashed: _gold_card_cashed,
    GoldCardsKept: _gold_cards_kept,
    JewelerCardSelected: _jeweler_card_selected,
    CardsSold: _cards_sold,
    GemTokenAdvanced: _gem_token_advanced,
    FakeDiscardsOwed: _fake_discards_owed,
    FakeDiscarded: _card_discarded,
    CardDiscardedForAdvance: _card_discarded,
    ProtectionGained: _protection_gained,
    NobleHireStarted: _noble_hire_started,
    NoblePaid: _noble_paid,
    NobleHired: _noble_hired,
    NoblePlaced: _noble_placed,
    ExchangeCardChosen: _exchange_card_chosen,
    CardsExchanged: _cards_exchanged,
    DayEnded: _day_ended,
    GameEnded: _game_ended,
}
