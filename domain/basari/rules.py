"""Basari's decider: ``decide`` validates a command against B-1..B-10, ``evolve`` folds one event.

``decide`` returns the command's own events followed by every automatic step they set off (``advance``):
resolving actions nobody has to choose for (B-7), opening negotiations (B-8), ending and scoring a stage
(B-9), reshuffling and dealing (B-4, B-5) and ending the game (B-10), until some seat owes a decision.
"""

from __future__ import annotations

from collections.abc import Iterable

from domain.basari.bids import beats, can_complete
from domain.basari.commands import Accept, Bid, BidColour, ChooseAction, ExchangeGems, TakeGem
from domain.basari.components import COLOURS, COMPONENTS, NO_GEMS, PALETTE, Action, Colour, Gems
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
    WonForFree,
)
from domain.basari.evolve import evolve
from domain.basari.legal import TABLE
from domain.basari.scoring import score_stage, winners
from domain.basari.state import Negotiation, State
from domain.core import Command, Event, GameConfig, Rejected, Rng
from domain.counts import Counts, at_most, covers, non_negative, plus

__all__ = ["advance", "decide", "first_bidder_order", "setup"]


# --------------------------------------------------------------------------------------------- helpers


def first_bidder_order(state: State, seats: Iterable[int]) -> tuple[int, ...]:
    """B-8: most red gems first, then yellow, green, blue, victory points, workers, then the eldest."""

    def strength(seat: int) -> tuple[int, ...]:
        player = state.players[seat]
        return (*player.gems, player.points, player.workers(), -seat)

    return tuple(sorted(seats, key=strength, reverse=True))


def _gems_text(gems: Counts) -> str:
    """Gems in words, for refusal details: "1 red + 3 blue"."""
    parts = [f"{count} {colour}" for colour, count in PALETTE.named(gems).items()]
    return " + ".join(parts) or "no gems"


# --------------------------------------------------------------------------------------------- decide


def decide(state: State, seat: int, command: Command, rng: Rng) -> list[Event]:
    """Validate ``command`` from ``seat`` (B-1..B-10); its events and the automatic steps after them."""
    if state.phase == "over":
        raise Rejected("game_over", rule="B-10", detail="the game is over: three stages have been scored")
    if state.phase == "new" or seat not in state.seats:
        raise Rejected("no_such_seat", rule="B-1", detail=f"seat {seat} does not play in this game")
    if TABLE.owes(state, seat, command) is None:
        raise _not_owed(state, seat, command)
    match command:
        case ChooseAction(action=action):
            events = _choose_action(state, seat, action)
        case Bid(gems=gems):
            events = _bid(state, seat, gems)
        case BidColour(colour=colour, count=count):
            events = _bid_colour(state, seat, colour, count)
        case Accept():
            events = _accept(state, seat)
        case ExchangeGems(give=give, take=take):
            events = _exchange_gems(state, seat, give, take)
        case TakeGem(colour=colour):
            events = _take_gem(state, seat, colour)
        case _:
            raise Rejected("unknown_command", detail=f"Basari has no command {type(command).__name__}")
    for event in events:
        state = evolve(state, event)
    return events + advance(state, rng)


def _not_owed(state: State, seat: int, command: Command) -> Rejected:
    """B-6..B-8: why ``command`` answers no decision ``seat`` owes (``TABLE``), citing the ruling."""
    match command:
        case ChooseAction():
            if state.phase != "choose":
                return Rejected("not_choosing", rule="B-6", detail="action cards are picked in step II only")
            return Rejected("already_picked", rule="B-6", detail="you have already picked your action card")
        case Bid() | BidColour() | Accept():
            negotiation = state.negotiation
            if state.phase != "negotiate" or negotiation is None:
                return Rejected("not_negotiating", rule="B-8", detail="no negotiation is under way")
            return Rejected(
                "not_your_turn",
                rule="B-8",
                detail=f"seat {negotiation.to_move} bids or accepts now (negotiation for {negotiation.action})",
            )
        case ExchangeGems() | TakeGem():
            if state.phase != "d_turns" or not state.d_turns:
                return Rejected("not_action_d", rule="B-7", detail="action D is not being resolved")
            if state.d_turns[0] != seat:
                return Rejected(
                    "not_your_turn", rule="B-7", detail=f"seat {state.d_turns[0]} takes its D gems now"
                )
            if isinstance(command, TakeGem):
                _known_colours(command.colour)
                return Rejected(
                    "exchange_gems",
                    rule="B-7",
                    detail="you alone chose D: return one gem and take two (exchange_gems)",
                )
            _known_colours(command.give)
            return Rejected(
                "take_one_gem", rule="B-7", detail="several players chose D: each takes one gem (take_gem)"
            )
    return Rejected("unknown_command", detail=f"Basari has no command {type(command).__name__}")


def _choose_action(state: State, seat: int, action: Action) -> list[Event]:
    """B-6: every player secretly picks one action card; the last pick reveals all picks in one event."""
    if action not in state.actions:
        held = ", ".join(state.actions)
        raise Rejected("no_such_card", rule="B-3", detail=f"you hold the action cards {held}, not {action}")
    events: list[Event] = [ActionChosen(seat=seat, action=action)]
    picks = (*state.picks[:seat], action, *state.picks[seat + 1 :])
    if all(state.picked[other] for other in state.seats if other != seat):
        revealed = tuple(pick for pick in picks if pick is not None)
        events.append(ActionsRevealed(picks=revealed))
    return events


def _negotiation_turn(state: State) -> Negotiation:
    """B-8: the negotiation under way (``TABLE`` lets only its seat to move answer)."""
    assert state.negotiation is not None
    return state.negotiation


def _too_low(current: Counts | None) -> Rejected:
    """B-8: the refusal of a bid that does not beat the current bid."""
    if current is None:
        return Rejected("empty_bid", rule="B-8", detail="a bid is a non-empty set of gems you own")
    return Rejected(
        "bid_too_low",
        rule="B-8",
        detail=(
            f"a raise must beat {_gems_text(current)}: more gems than {sum(current)}, or "
            f"{sum(current)} of more value (compare red, then yellow, green, blue)"
        ),
    )


def _bid(state: State, seat: int, gems: Gems) -> list[Event]:
    """B-8: a bid of gems the bidder owns that beats the current bid; it replaces the bidder's earlier bid."""
    negotiation = _negotiation_turn(state)
    bid = gems.counts()
    if not non_negative(bid):
        raise Rejected("bad_gems", rule="B-8", detail="gem counts cannot be negative")
    if sum(bid) == 0:
        raise Rejected("empty_bid", rule="B-8", detail="a bid is a non-empty set of gems you own")
    owned = state.players[seat].gems
    if not covers(owned, bid):
        raise Rejected(
            "not_your_gems",
            rule="B-8",
            detail=f"you bid {_gems_text(bid)} but own only {_gems_text(owned)}",
        )
    if not beats(bid, negotiation.current_bid()):
        raise _too_low(negotiation.current_bid())
    return [BidPlaced(seat=seat, action=negotiation.action, gems=gems)]


def _bid_colour(state: State, seat: int, colour: Colour, count: int) -> list[Event]:
    """B-8, step-wise: fix the next colour's count; the fourth step (blue) places the bid."""
    negotiation = _negotiation_turn(state)
    step = len(negotiation.draft)
    if colour != COLOURS[step]:
        raise Rejected(
            "wrong_colour",
            rule="B-8",
            detail=f"a step-wise bid fixes red, yellow, green, blue in turn; the next is {COLOURS[step]}",
        )
    owned = state.players[seat].gems
    if not isinstance(count, int) or count < 0 or count > owned[step]:
        raise Rejected("not_your_gems", rule="B-8", detail=f"you own {owned[step]} {colour}, not {count}")
    prefix = (*negotiation.draft, count)
    if not can_complete(prefix, owned, negotiation.current_bid()):
        raise _too_low(negotiation.current_bid())
    if len(prefix) < len(COLOURS):
        return [BidDrafted(seat=seat, colour=colour, count=count)]
    return [BidPlaced(seat=seat, action=negotiation.action, gems=Gems.of(prefix))]


def _accept(state: State, seat: int) -> list[Event]:
    """B-8: the accepting player receives the current bid's gems from the bidder, who wins the action."""
    negotiation = _negotiation_turn(state)
    current = negotiation.current_bid()
    if current is None:
        raise Rejected(
            "nothing_to_accept", rule="B-8", detail="there is no bid to accept yet: open with a bid"
        )
    return [
        BidAccepted(
            seat=seat, bidder=negotiation.other(seat), action=negotiation.action, gems=Gems.of(current)
        ),
    ]


def _known_colours(*colours: Colour | None) -> None:
    """B-2: gems come in red, yellow, green and blue only."""
    for colour in colours:
        if colour is not None and colour not in COLOURS:
            raise Rejected(
                "no_such_colour", rule="B-2", detail=f"gems are {', '.join(COLOURS)}, not {colour}"
            )


def _exchange_gems(state: State, seat: int, give: Colour | None, take: Gems) -> list[Event]:
    """B-7 action D alone: return one gem (if you own any) to the stock, then take two of your choice."""
    _known_colours(give)
    owned = state.players[seat].gems
    if give is None and sum(owned) > 0:
        raise Rejected("must_return_gem", rule="B-7", detail="return one of your gems first (give)")
    if give is not None and owned[COLOURS.index(give)] == 0:
        raise Rejected("not_your_gems", rule="B-7", detail=f"you own no {give} gem to return")
    returned = PALETTE.none if give is None else PALETTE.one(give)
    stock = plus(state.stock, returned)
    taken = take.counts()
    if not non_negative(taken):
        raise Rejected("bad_gems", rule="B-7", detail="gem counts cannot be negative")
    wanted = min(2, sum(stock))
    if sum(taken) != wanted:
        raise Rejected("take_two", rule="B-7", detail=f"take exactly {wanted} gem(s) from the stock")
    if not covers(stock, taken):
        raise Rejected(
            "not_in_stock", rule="B-7", detail=f"the stock holds only {_gems_text(stock)} after your return"
        )
    return [GemsExchanged(seat=seat, returned=Gems.of(returned), taken=take)]


def _take_gem(state: State, seat: int, colour: Colour) -> list[Event]:
    """B-7 action D chosen by several: each in turn takes one gem of their choice from the stock."""
    _known_colours(colour)
    if state.stock[COLOURS.index(colour)] == 0:
        raise Rejected("not_in_stock", rule="B-7", detail=f"the stock has no {colour} gem")
    return [GemsExchanged(seat=seat, returned=NO_GEMS, taken=Gems.of(PALETTE.one(colour)))]


# --------------------------------------------------------------------------------------------- advance


def setup(config: GameConfig, rng: Rng) -> list[Event]:
    """B-1, B-2, B-4, B-5: seat the players with 3 gems of each colour, shuffle the pile, deal round 1."""
    players = config.players
    start = COMPONENTS.starting_gems_per_colour
    each = Gems.of((start,) * len(COLOURS))
    stock = Gems.of((COMPONENTS.gems_per_colour - start * len(players),) * len(COLOURS))
    events: list[Event] = [
        GameStarted(
            players=tuple(players),
            edition=COMPONENTS.edition,
            gems=tuple(each for _ in players),
            stock=stock,
        )
    ]
    state = evolve(State(), events[0])
    return events + advance(state, rng)


def advance(state: State, rng: Rng) -> list[Event]:
    """Run the steps nobody chooses (B-4, B-5, B-7..B-10) until a seat owes a decision or the game ends."""
    events: list[Event] = []
    while (step := _next_step(state, rng)) is not None:
        state = evolve(state, step)
        events.append(step)
    return events


def _next_step(state: State, rng: Rng) -> Event | None:
    """B-4, B-5, B-7, B-9, B-10: the next automatic event, or None when a seat must decide (or it is over)."""
    match state.phase:
        case "setup":
            return _shuffle(1, rng)
        case "scored":
            if state.stage >= COMPONENTS.stages:
                # B-10: the game ends after the third stage is scored
                scores = tuple(player.points for player in state.players)
                return GameEnded(scores=scores, winners=winners(scores))
            return _shuffle(state.stage + 1, rng)
        case "d_turns":
            return _forced_d_turn(state)
        case "resolve":
            if state.todo:
                return _resolve(state, state.todo[0])
            return _end_of_round(state)
        case _:
            return None


def _shuffle(stage: int, rng: Rng) -> PileShuffled:
    """B-4, B-9: all bazaar cards shuffled into a new face-down pile (the order written into the event)."""
    order = tuple(rng.shuffle(COMPONENTS.card_ids()))
    return PileShuffled(stage=stage, size=len(order), order=order)


def _end_of_round(state: State) -> Event:
    """B-9 stage end after a round, else B-5 step I of the next round."""
    threshold = COMPONENTS.stage_end_workers
    if any(player.workers() >= threshold for player in state.players):
        return score_stage(state, "workers")
    count = len(state.players)
    if len(state.pile) < count:
        # house ruling: too few cards left to deal everybody one, so the stage ends before step I
        return score_stage(state, "pile")
    return CardsDealt(stage=state.stage, round=state.round + 1, cards=state.pile[:count])


def _resolve(state: State, action: Action) -> Event:
    """B-7: resolve ``action`` by how many chose it; B-8 for exactly two."""
    if state.performer is not None:
        return _perform(state, action, state.performer)
    choosers = [seat for seat in state.seats if state.picks[seat] == action]
    if action == "D":
        # never negotiated, never forfeited: the choosers act in first-bidder order
        return ActionDOpened(seats=first_bidder_order(state, choosers))
    if len(choosers) == 1:
        return _perform(state, action, choosers[0])
    if len(choosers) == 2:
        first, opponent = first_bidder_order(state, choosers)
        if sum(state.players[first].gems) == 0:
            # the first bidder cannot offer anything: the other wins for free
            return WonForFree(action=action, seat=opponent, opponent=first)
        return NegotiationOpened(action=action, first_bidder=first, opponent=opponent)
    return ActionForfeited(action=action, seats=tuple(choosers))


def _perform(state: State, action: Action, seat: int) -> Event:
    """B-7: A draws the top card (nothing from an empty pile), B scores the current card, C takes its gems."""
    player = state.players[seat]
    if action == "A":
        if not state.pile:
            return NothingDrawn(seat=seat)
        return CardDrawn(seat=seat, card=state.pile[0])
    card = COMPONENTS.card(player.current) if player.current is not None else None
    if action == "B":
        return PointsScored(seat=seat, card=card.id if card else 0, points=card.points if card else 0)
    # C: a colour the stock has run out of is simply not received
    shown = card.gems if card else NO_GEMS
    received = Gems.of(at_most(shown.counts(), state.stock))
    return GemsTaken(seat=seat, card=card.id if card else 0, shown=shown, received=received)


def _forced_d_turn(state: State) -> Event | None:
    """B-7: a D turn with nothing to choose (the stock is empty and there is nothing to return) passes."""
    if not state.d_turns:
        return None
    seat = state.d_turns[0]
    owned = state.players[seat].gems
    if sum(state.stock) == 0 and (not state.d_single or sum(owned) == 0):
        return GemsExchanged(seat=seat, returned=NO_GEMS, taken=NO_GEMS)
    return None
