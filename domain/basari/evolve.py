"""Basari's ``evolve``: one event folded into a new state (B-1..B-10); never validates, never mutates."""

from __future__ import annotations

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
    match event:
        case GameStarted(players=names, gems=gems, stock=stock):
            count = len(names)
            return State(
                phase="setup",
                players=tuple(Player(name=name, gems=held) for name, held in zip(names, gems, strict=False)),
                actions=ACTIONS_BY_PLAYERS.get(count, ("A", "B", "C")),
                stock=stock,
                **_no_picks(count),
            )
        case PileShuffled(stage=stage, order=order):
            return replace(
                state, phase="resolve", stage=stage, round=0, pile=order or (), **_NO_ACTIONS_UNDER_WAY
            )
        case CardsDealt(round=number, cards=cards):
            players = tuple(
                replace(player, cards=(*player.cards, card), current=card)
                for player, card in zip(state.players, cards, strict=False)
            )
            count = len(state.players)
            return replace(
                state,
                phase="choose",
                round=number,
                players=players,
                pile=tuple(card for card in state.pile if card not in cards),
                **_no_picks(count),
                **_NO_ACTIONS_UNDER_WAY,
            )
        case ActionChosen(seat=seat, action=action):
            picks = state.picks if action is None else (*state.picks[:seat], action, *state.picks[seat + 1 :])
            return replace(state, picked=(*state.picked[:seat], True, *state.picked[seat + 1 :]), picks=picks)
        case ActionsRevealed(picks=picks):
            return replace(
                state,
                phase="resolve",
                picked=(True,) * len(picks),
                picks=tuple(picks),
                revealed=True,
                todo=tuple(action for action in ACTION_ORDER if action in picks),
            )
        case ActionForfeited(action=action):
            return replace(state, todo=_without(state.todo, action))
        case NegotiationOpened(action=action, first_bidder=first, opponent=opponent):
            negotiation = Negotiation(action=action, seats=(first, opponent), to_move=first)
            return replace(state, phase="negotiate", negotiation=negotiation)
        case BidDrafted(count=count):
            if state.negotiation is None:
                return state
            return replace(
                state, negotiation=replace(state.negotiation, draft=(*state.negotiation.draft, count))
            )
        case BidPlaced(seat=seat, gems=gems):
            talks = state.negotiation
            if talks is None:
                return state
            first_bid, second_bid = talks.bids
            bids = (gems, second_bid) if seat == talks.seats[0] else (first_bid, gems)
            moved = replace(talks, bids=bids, to_move=talks.other(seat), draft=())
            return replace(state, negotiation=moved)
        case BidAccepted(seat=seat, bidder=bidder, gems=gems):
            players = _set_player(
                state.players, seat, replace(state.players[seat], gems=state.players[seat].gems.plus(gems))
            )
            players = _set_player(
                players, bidder, replace(players[bidder], gems=players[bidder].gems.minus(gems))
            )
            return replace(state, phase="resolve", players=players, negotiation=None, performer=bidder)
        case WonForFree(seat=seat):
            return replace(state, phase="resolve", negotiation=None, performer=seat)
        case CardDrawn(seat=seat, card=card):
            player = state.players[seat]
            return replace(
                state,
                players=_set_player(state.players, seat, replace(player, cards=(*player.cards, card))),
                pile=tuple(other for other in state.pile if other != card),
                todo=_without(state.todo, "A"),
                performer=None,
            )
        case NothingDrawn():
            return replace(state, todo=_without(state.todo, "A"), performer=None)
        case PointsScored(seat=seat, points=points):
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
        case GemsTaken(seat=seat, received=received):
            player = replace(state.players[seat], gems=state.players[seat].gems.plus(received))
            return replace(
                state,
                players=_set_player(state.players, seat, player),
                stock=state.stock.minus(received),
                todo=_without(state.todo, "C"),
                performer=None,
            )
        case ActionDOpened(seats=seats):
            return replace(state, phase="d_turns", d_turns=tuple(seats), d_single=len(seats) == 1)
        case GemsExchanged(seat=seat, returned=returned, taken=taken):
            held = state.players[seat].gems.minus(returned).plus(taken)
            remaining = tuple(other for other in state.d_turns if other != seat)
            return replace(
                state,
                players=_set_player(state.players, seat, replace(state.players[seat], gems=held)),
                stock=state.stock.plus(returned).minus(taken),
                d_turns=remaining,
                phase="d_turns" if remaining else "resolve",
                todo=state.todo if remaining else _without(state.todo, "D"),
            )
        case StageScored():
            return _evolve_stage_scored(state, event)
        case GameEnded(winners=best):
            return replace(state, phase="over", winners=tuple(best))
        case _:
            return state


def _evolve_stage_scored(state: State, event: StageScored) -> State:
    """B-9: points added, gems returned to the stock, every bazaar card gathered up for the next shuffle."""
    players = list(state.players)
    stock = state.stock
    for line in event.lines:
        player = players[line.seat]
        players[line.seat] = replace(
            player,
            gems=player.gems.minus(line.returned),
            points=player.points + line.majority.total() + line.workers_bonus,
            cards=(),
            current=None,
            action_b=0,
        )
        stock = stock.plus(line.returned)
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
