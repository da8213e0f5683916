"""Basari's ``evolve``: one event folded into a new state (B-1..B-10); never validates, never mutates."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from msgspec.structs import replace

from domain.basari.components import ACTIONS_BY_PLAYERS, Action
from domain.basari.events import (
    ActionChosen,
    ActionDOpened,
    ActionForfeited,
    ActionsRevealed,
    BidAccepted,
    BidDrafted,
    BidPlaced,
    CardDrawn,
    CardsDealt,
    GameEnded,
    GameStarted,
    GemsExchanged,
    GemsTaken,
    NegotiationOpened,
    NothingDrawn,
    PileShuffled,
    PointsScored,
    StageScored,
    WonForFree,
)
from domain.basari.state import Negotiation, Player, StageRecord, State
from domain.core import Event
from domain.counts import minus, plus

__all__ = ["evolve"]

# B-7, B-8: a new round or stage starts with no action left to resolve, no negotiation, no D turns.
_NO_ACTIONS_UNDER_WAY: Final[dict[str, Any]] = {
    "todo": (),
    "negotiation": None,
    "performer": None,
    "d_turns": (),
}


def _no_picks(count: int) -> dict[str, Any]:
    """B-6: nobody of ``count`` seats has picked an action card yet, and nothing is revealed."""
    return {"picked": (False,) * count, "picks": (None,) * count, "revealed": False}


ACTION_ORDER: tuple[Action, ...] = ("A", "B", "C", "D")


def _set_player(players: tuple[Player, ...], seat: int, player: Player) -> tuple[Player, ...]:
    """``players`` with ``seat`` replaced."""
    return (*players[:seat], player, *players[seat + 1 :])


def _without(todo: tuple[Action, ...], action: Action) -> tuple[Action, ...]:
    """The actions still to resolve once ``action`` is done."""
    return tuple(pending for pending in todo if pending != action)


def evolve(state: State, event: Event) -> State:
    """Apply one event (B-1..B-10) to a new state; never validates, never mutates ``state``."""
    # One dict look-up by the event's type (each event's handler below), as in Bazaar's evolve.
    apply = _APPLY.get(type(event))
    return state if apply is None else apply(state, event)


def _game_started(state: State, event: GameStarted) -> State:
    """B-1, B-2: the players sit down with their starting gems; the stock holds the rest."""
    count = len(event.players)
    return State(
        phase="setup",
        players=tuple(
            Player(name=name, gems=held.counts())
            for name, held in zip(event.players, event.gems, strict=False)
        ),
        actions=ACTIONS_BY_PLAYERS.get(count, ("A", "B", "C")),
        stock=event.stock.counts(),
        **_no_picks(count),
    )


def _pile_shuffled(state: State, event: PileShuffled) -> State:
    """B-4: a stage starts with a shuffled pile (unknown to a fold of redacted events)."""
    return replace(
        state, phase="resolve", stage=event.stage, round=0, pile=event.order or (), **_NO_ACTIONS_UNDER_WAY
    )


def _cards_dealt(state: State, event: CardsDealt) -> State:
    """B-5: every seat gets its next bazaar card; a new round of secret picks begins."""
    cards = event.cards
    players = tuple(
        replace(player, cards=(*player.cards, card), current=card)
        for player, card in zip(state.players, cards, strict=False)
    )
    return replace(
        state,
        phase="choose",
        round=event.round,
        players=players,
        pile=tuple(card for card in state.pile if card not in cards),
        **_no_picks(len(state.players)),
        **_NO_ACTIONS_UNDER_WAY,
    )


def _action_chosen(state: State, event: ActionChosen) -> State:
    """B-6: the seat has picked (the pick itself is None in a redacted event)."""
    seat, action = event.seat, event.action
    picks = state.picks if action is None else (*state.picks[:seat], action, *state.picks[seat + 1 :])
    return replace(state, picked=(*state.picked[:seat], True, *state.picked[seat + 1 :]), picks=picks)


def _actions_revealed(state: State, event: ActionsRevealed) -> State:
    """B-6, B-7: every pick is shown; the picked actions are resolved in order A, B, C, D."""
    picks = event.picks
    return replace(
        state,
        phase="resolve",
        picked=(True,) * len(picks),
        picks=tuple(picks),
        revealed=True,
        todo=tuple(action for action in ACTION_ORDER if action in picks),
    )


def _action_forfeited(state: State, event: ActionForfeited) -> State:
    """B-7: nobody performs the action."""
    return replace(state, todo=_without(state.todo, event.action))


def _negotiation_opened(state: State, event: NegotiationOpened) -> State:
    """B-8: two seats picked the same action; the first bidder moves first."""
    negotiation = Negotiation(
        action=event.action, seats=(event.first_bidder, event.opponent), to_move=event.first_bidder
    )
    return replace(state, phase="negotiate", negotiation=negotiation)


def _bid_drafted(state: State, event: BidDrafted) -> State:
    """B-8: one colour of the bid under construction is fixed."""
    if state.negotiation is None:
        return state
    return replace(
        state, negotiation=replace(state.negotiation, draft=(*state.negotiation.draft, event.count))
    )


def _bid_placed(state: State, event: BidPlaced) -> State:
    """B-8: the seat's bid stands; the opponent moves next."""
    talks, seat = state.negotiation, event.seat
    if talks is None:
        return state
    first_bid, second_bid = talks.bids
    bid = event.gems.counts()
    bids = (bid, second_bid) if seat == talks.seats[0] else (first_bid, bid)
    return replace(state, negotiation=replace(talks, bids=bids, to_move=talks.other(seat), draft=()))


def _bid_accepted(state: State, event: BidAccepted) -> State:
    """B-8: the bid's gems move from the bidder to the accepting seat; the bidder performs the action."""
    seat, bidder, gems = event.seat, event.bidder, event.gems.counts()
    players = _set_player(
        state.players, seat, replace(state.players[seat], gems=plus(state.players[seat].gems, gems))
    )
    players = _set_player(players, bidder, replace(players[bidder], gems=minus(players[bidder].gems, gems)))
    return replace(state, phase="resolve", players=players, negotiation=None, performer=bidder)


def _won_for_free(state: State, event: WonForFree) -> State:
    """B-8: the seat performs the action without paying."""
    return replace(state, phase="resolve", negotiation=None, performer=event.seat)


def _card_drawn(state: State, event: CardDrawn) -> State:
    """B-7 A: the seat draws the pile's top card."""
    seat, player = event.seat, state.players[event.seat]
    return replace(
        state,
        players=_set_player(state.players, seat, replace(player, cards=(*player.cards, event.card))),
        pile=tuple(other for other in state.pile if other != event.card),
        todo=_without(state.todo, "A"),
        performer=None,
    )


def _nothing_drawn(state: State, _event: NothingDrawn) -> State:
    """B-7 A: the pile is empty; action A is done."""
    return replace(state, todo=_without(state.todo, "A"), performer=None)


def _points_scored(state: State, event: PointsScored) -> State:
    """B-7 B: the seat scores action B's points."""
    seat, points = event.seat, event.points
    player = replace(
        state.players[seat],
        points=state.players[seat].points + points,
        action_b=state.players[seat].action_b + points,
    )
    return replace(
        state,
        players=_set_player(state.players, seat, player),
        todo=_without(state.todo, "B"),
        performer=None,
    )


def _gems_taken(state: State, event: GemsTaken) -> State:
    """B-7 C: the seat takes gems from the stock."""
    seat, received = event.seat, event.received.counts()
    player = replace(state.players[seat], gems=plus(state.players[seat].gems, received))
    return replace(
        state,
        players=_set_player(state.players, seat, player),
        stock=minus(state.stock, received),
        todo=_without(state.todo, "C"),
        performer=None,
    )


def _action_d_opened(state: State, event: ActionDOpened) -> State:
    """B-7 D: the seats that exchange gems, in first-bidder order."""
    return replace(state, phase="d_turns", d_turns=tuple(event.seats), d_single=len(event.seats) == 1)


def _gems_exchanged(state: State, event: GemsExchanged) -> State:
    """B-7 D: the seat returns gems to the stock and takes others; action D ends with the last chooser."""
    seat, returned, taken = event.seat, event.returned.counts(), event.taken.counts()
    held = plus(minus(state.players[seat].gems, returned), taken)
    remaining = tuple(other for other in state.d_turns if other != seat)
    return replace(
        state,
        players=_set_player(state.players, seat, replace(state.players[seat], gems=held)),
        stock=minus(plus(state.stock, returned), taken),
        d_turns=remaining,
        phase="d_turns" if remaining else "resolve",
        todo=state.todo if remaining else _without(state.todo, "D"),
    )


def _game_ended(state: State, event: GameEnded) -> State:
    """B-10: the game is over."""
    return replace(state, phase="over", winners=tuple(event.winners))


def _stage_scored(state: State, event: StageScored) -> State:
    """B-9: points added, gems returned to the stock, every bazaar card gathered up for the next shuffle."""
    players = list(state.players)
    stock = state.stock
    for line in event.lines:
        player, returned = players[line.seat], line.returned.counts()
        players[line.seat] = replace(
            player,
            gems=minus(player.gems, returned),
            points=player.points + line.majority.total() + line.workers_bonus,
            cards=(),
            current=None,
            action_b=0,
        )
        stock = plus(stock, returned)
    record = StageRecord(
        stage=event.stage,
        action_b=tuple(line.action_b for line in event.lines),
        majority=tuple(line.majority for line in event.lines),
        workers_bonus=tuple(line.workers_bonus for line in event.lines),
    )
    count = len(players)
    return replace(
        state,
        phase="scored",
        players=tuple(players),
        stock=stock,
        pile=(),
        stages=(*state.stages, record),
        **_no_picks(count),
        **_NO_ACTIONS_UNDER_WAY,
    )


_APPLY: Final[dict[type[Any], Callable[[State, Any], State]]] = {
    GameStarted: _game_started,
    PileShuffled: _pile_shuffled,
    CardsDealt: _cards_dealt,
    ActionChosen: _action_chosen,
    ActionsRevealed: _actions_revealed,
    ActionForfeited: _action_forfeited,
    NegotiationOpened: _negotiation_opened,
    BidDrafted: _bid_drafted,
    BidPlaced: _bid_placed,
    BidAccepted: _bid_accepted,
    WonForFree: _won_for_free,
    CardDrawn: _card_drawn,
    NothingDrawn: _nothing_drawn,
    PointsScored: _points_scored,
    GemsTaken: _gems_taken,
    ActionDOpened: _action_d_opened,
    GemsExchanged: _gems_exchanged,
    StageScored: _stage_scored,
    GameEnded: _game_ended,
}
