"""Z-1..Z-13: Bazaar's rules: the set-up and ``decide`` (validate a command, return its events).

Turn structure, as this service plays it:

1. ``TurnStarted``. If the previous turn left a player over the hand limit, the next seat first owes
   ``DiscardExcess`` (Z-10) and the turn starts once the offender is down to the limit.
2. The seat rolls (``Roll``; on *choice* then ``ChooseColour``) or, except on its first turn, makes one
   ``Trade`` (Z-6, Z-7).
3. Multiplayer: the seat may ``Buy`` one displayed ware (two with the double-purchase option) and ends the
   turn with ``EndTurn`` (Z-8, Z-11); the turn never ends by itself, and the game ends the moment a
   purchase sells out the second stall (Z-13). Solitaire: the turn ends by itself after the roll or trade,
   and the game ends when the hand matches the target ware exactly or the turn limit is reached (Z-12).

Purchases are scored when the turn's purchases are settled (Z-11: "both are scored by the stones left
after both purchases"): at once when the turn allows no more purchases, otherwise at ``EndTurn`` or when
the game ends. Without the option that is right after the purchase.
"""

from __future__ import annotations

import msgspec

from domain.bazaar.commands import Buy, ChooseColour, DiscardExcess, EndTurn, Roll, Trade
from domain.bazaar.components import CHOICE, EDITION, EXCHANGE_CARDS_IN_PLAY, PALETTE, STALLS_EMPTIED_TO_END
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
from domain.bazaar.evolve import evolve
from domain.bazaar.legal import TABLE
from domain.bazaar.options import BazaarOptions
from domain.bazaar.scoring import points, stars_for
from domain.bazaar.state import State
from domain.core import Command, Event, GameConfig, Rejected, Rng, shown
from domain.counts import covers

__all__ = ["decide", "setup"]

_replace = msgspec.structs.replace


# --------------------------------------------------------------------------------------------- setup


def setup(config: GameConfig, rng: Rng) -> list[Event]:
    """Z-1, Z-3, Z-4, Z-12: seat the players, draw the exchange, deal the bazaar (or the solitaire ware).

    Draws, in this order: the exchange cards are ``rng.shuffle``d by id and the first two taken; then the
    ware ids are shuffled; multiplayer deals stall i the cards 5i..5i+4 of that order (the first on top,
    on display) and sets the rest aside; solitaire turns up the first and sets the rest aside.
    """
    options = config.options if isinstance(config.options, BazaarOptions) else BazaarOptions()
    events: list[Event] = [
        GameStarted(
            players=tuple(config.players), double_purchase=options.double_purchase, edition=EDITION.name
        )
    ]
    cards = rng.shuffle(sorted(EDITION.exchange_cards))[:EXCHANGE_CARDS_IN_PLAY]
    events.append(ExchangeDrawn(cards=tuple(cards)))
    wares: list[int] = rng.shuffle(sorted(EDITION.wares))
    if len(config.players) == 1:
        events.append(SolitaireWareDealt(ware=wares[0], set_aside=tuple(wares[1:])))
    else:
        size = EDITION.wares_per_stall
        stalls = [tuple(wares[i * size : (i + 1) * size]) for i in range(EDITION.stalls)]
        events.append(
            BazaarDealt(
                displayed=tuple(stall[0] for stall in stalls),
                sizes=tuple(len(stall) for stall in stalls),
                face_down=tuple(stall[1:] for stall in stalls),
                set_aside=tuple(wares[EDITION.stalls * size :]),
            )
        )
    events.append(TurnStarted(turn=1, seat=0))
    return events


# --------------------------------------------------------------------------------------------- decide


def decide(state: State, seat: int, command: Command, rng: Rng) -> list[Event]:
    """Z-1..Z-13: validate ``command`` from ``seat``; return its events or raise Rejected."""
    if state.phase == "setup":
        raise Rejected("not_started", rule="Z-1", detail="the game has not been set up")
    if state.over:
        rule = "Z-12" if state.solitaire else "Z-13"
        raise Rejected("game_over", rule=rule, detail="the game is over")
    if not 0 <= seat < len(state.players):
        raise Rejected("no_such_seat", rule="Z-1", detail=f"there is no seat {seat}")
    if TABLE.owes(state, seat, command) is None:
        raise _not_owed(state, seat, command)
    match command:
        case Roll():
            return _roll(state, seat, rng)
        case ChooseColour(colour=colour):
            return _choose_colour(state, seat, colour)
        case Trade():
            return _trade(state, seat, command)
        case Buy(ware=ware):
            return _buy(state, seat, ware)
        case EndTurn():
            return _end_turn_events(state, seat)
        case DiscardExcess():
            return _discard_excess(state, seat, command)
    raise _unknown(command)


def _unknown(command: Command) -> Rejected:
    """A command that is not Bazaar's."""
    return Rejected("unknown_command", rule=None, detail=f"Bazaar has no command {type(command).__name__}")


def _not_owed(state: State, seat: int, command: Command) -> Rejected:
    """Z-1, Z-6..Z-10: why ``command`` answers no decision ``seat`` owes (``TABLE``), citing the ruling."""
    if state.phase == "discard_excess":
        if not isinstance(command, DiscardExcess):
            return Rejected(
                "hand_limit_first",
                rule="Z-10",
                detail=f"before anything else seat {state.chooser} must return seat {state.offender}'s "
                f"excess stones to the bank",
            )
        return Rejected(
            "not_your_decision",
            rule="Z-10",
            detail=f"seat {state.chooser} chooses which of seat {state.offender}'s excess stones go back",
        )
    if isinstance(command, DiscardExcess):
        return Rejected("no_excess", rule="Z-10", detail="nobody is over the hand limit")
    if seat != state.current:
        return Rejected("not_your_turn", rule="Z-1", detail=f"it is seat {state.current}'s turn")
    if isinstance(command, Buy) and state.solitaire:
        return Rejected("no_purchase_in_solitaire", rule="Z-12", detail="solitaire has no purchases")
    if state.phase == "choose_colour" and isinstance(command, Roll | Trade | Buy | EndTurn):
        return Rejected("choose_colour_first", rule="Z-7", detail="you rolled choice: pick a colour first")
    match command:
        case Roll() | Trade() if state.phase != "roll_or_trade":
            what = "roll" if isinstance(command, Roll) else "trade"
            return Rejected(
                "one_action_per_turn",
                rule="Z-6",
                detail=f"you cannot {what}: a turn has one roll or one trade, never both, never two trades",
            )
        case Trade():
            return Rejected("first_turn_roll", rule="Z-6", detail="on your first turn you must roll the die")
        case ChooseColour():
            return Rejected(
                "no_choice_rolled", rule="Z-7", detail="a colour is chosen only after rolling choice"
            )
        case Buy():
            return Rejected(
                "roll_or_trade_first", rule="Z-8", detail="you must roll the die or trade before you may buy"
            )
        case EndTurn():
            return Rejected(
                "must_roll_or_trade", rule="Z-6", detail="a turn must have its roll or trade before it ends"
            )
    return _unknown(command)


def _roll(state: State, seat: int, rng: Rng) -> list[Event]:
    """Z-5..Z-7: roll the die (drawn as ``rng.below(6)`` over the data's face order) and take the stone."""
    face = EDITION.die_faces[rng.below(len(EDITION.die_faces))]
    if face == CHOICE:
        rolled = DieRolled(seat=seat, face=face, stone=None, choose=sum(state.bank) > 0)
        if rolled.choose:
            return [rolled]
    else:
        # Z-7: a colour the bank has run out of gives nothing.
        has = state.bank[EDITION.colours.index(face)] > 0
        rolled = DieRolled(seat=seat, face=face, stone=face if has else None, choose=False)
    return [rolled, *_after_action(evolve(state, rolled))]


def _choose_colour(state: State, seat: int, colour: str) -> list[Event]:
    """Z-7: after *choice*, take one stone of a colour the bank still has."""
    if colour not in EDITION.colours:
        raise Rejected(
            "no_such_colour",
            rule="Z-2",
            detail=f"{shown(colour)} is not one of {shown(list(EDITION.colours))}",
        )
    if state.bank[EDITION.colours.index(colour)] == 0:
        raise Rejected(
            "bank_out_of_colour",
            rule="Z-7",
            detail=f"the bank has no {colour} stone left; pick another",
        )
    chosen = ColourChosen(seat=seat, colour=colour)
    return [chosen, *_after_action(evolve(state, chosen))]


def _trade(state: State, seat: int, command: Trade) -> list[Event]:
    """Z-3, Z-6, Z-7: one trade by one equation in either direction, if both sides can pay."""
    equations = EDITION.equations(state.exchange)
    if not 0 <= command.equation < len(equations):
        raise Rejected(
            "no_such_equation",
            rule="Z-3",
            detail=f"the exchange has equations 0..{len(equations) - 1}, not {command.equation}",
        )
    if command.give not in ("left", "right"):
        raise Rejected("no_such_side", rule="Z-3", detail='give must be "left" or "right"')
    equation = equations[command.equation]
    gives, takes = (
        (equation.left, equation.right) if command.give == "left" else (equation.right, equation.left)
    )
    if not covers(state.players[seat].hand, gives):
        raise Rejected(
            "cannot_give", rule="Z-7", detail=f"you do not own the stones {PALETTE.named(gives)} to give"
        )
    if not covers(state.bank, takes):
        raise Rejected(
            "bank_cannot_pay", rule="Z-7", detail=f"the bank does not hold the stones {PALETTE.named(takes)}"
        )
    traded = Traded(
        seat=seat, equation=command.equation, gave=PALETTE.named(gives), took=PALETTE.named(takes)
    )
    return [traded, *_after_action(evolve(state, traded))]


def _after_action(state: State) -> list[Event]:
    """Z-12: in solitaire the turn ends right after its roll or trade (and the game once the hand matches)."""
    if not state.solitaire or state.phase != "buy_or_end":
        return []
    target = EDITION.wares[state.solitaire_ware] if state.solitaire_ware is not None else None
    if target is not None and state.players[0].hand == target.stones:
        return [GameEnded(reason="solitaire_solved", turn=state.turn)]
    return _end_turn_events(state, 0)


def _buy(state: State, seat: int, ware_id: int) -> list[Event]:
    """Z-8, Z-11, Z-13: buy a displayed ware after this turn's roll or trade, paying exactly its stones."""
    if state.purchases >= state.purchases_allowed:
        rule = "Z-11" if state.double_purchase else "Z-8"
        raise Rejected(
            "purchase_limit",
            rule=rule,
            detail=f"at most {state.purchases_allowed} purchase(s) per turn"
            + ("" if state.double_purchase else " (two only with the double-purchase option)"),
        )
    stall = next((i for i, cards in enumerate(state.stalls) if cards and cards[0] == ware_id), None)
    if stall is None:
        raise Rejected("not_on_display", rule="Z-8", detail=f"ware {ware_id} is not on display")
    ware = EDITION.wares[ware_id]
    if not covers(state.players[seat].hand, ware.stones):
        raise Rejected(
            "cannot_pay",
            rule="Z-8",
            detail=f"ware {ware.id} costs {PALETTE.named(ware.stones)}; you do not own those stones",
        )
    cards = state.stalls[stall]
    bought = WareBought(
        seat=seat,
        ware=ware.id,
        stall=stall,
        paid=PALETTE.named(ware.stones),
        stars=stars_for(state, ware.id),
        revealed=cards[1] if len(cards) > 1 else None,
    )
    after = evolve(state, bought)
    if after.empty_stalls >= STALLS_EMPTIED_TO_END:
        # Z-13, Z-11: the bazaar closes at once; a second purchase of this turn cannot take place.
        scored = _settle(after, seat)
        return [bought, *scored, GameEnded(reason="two_stalls_empty", turn=state.turn)]
    if after.purchases >= after.purchases_allowed:
        return [bought, *_settle(after, seat)]
    return [bought]


def _settle(state: State, seat: int) -> list[Event]:
    """Z-9, Z-11: score the turn's purchases by the stones the buyer holds after all of them."""
    left = sum(state.players[seat].hand)
    return [
        PurchaseScored(
            seat=seat,
            turn=state.turn,
            ware=item.ware,
            stars=item.stars,
            stones_left=left,
            points=points(left, item.stars),
        )
        for item in state.unscored
    ]


def _end_turn_events(state: State, seat: int) -> list[Event]:
    """Z-10, Z-12: settle purchases and end the turn; then the hand limit, solitaire limit or next turn."""
    events: list[Event] = _settle(state, seat)
    held = sum(state.players[seat].hand)
    events.append(TurnEnded(seat=seat, turn=state.turn, stones=held))
    following = (seat + 1) % len(state.players)
    if state.solitaire and state.turn >= EDITION.solitaire_turn_limit:
        events.append(GameEnded(reason="solitaire_unsolved", turn=state.turn))
    elif held > EDITION.hand_limit:
        events.append(HandLimitBroken(offender=seat, chooser=following, excess=held - EDITION.hand_limit))
    else:
        events.append(TurnStarted(turn=state.turn + 1, seat=following))
    return events


def _discard_excess(state: State, seat: int, command: DiscardExcess) -> list[Event]:
    """Z-10: the next seat returns some of the offender's excess stones; the turn starts once at the limit."""
    offender = state.offender
    assert offender is not None  # TABLE: a discard is owed only with an offender
    unknown = [c for c in command.stones if c not in EDITION.colours]
    if unknown:
        raise Rejected("no_such_colour", rule="Z-2", detail=f"unknown colours {unknown}")
    if any(not isinstance(n, int) or n < 0 for n in command.stones.values()):
        raise Rejected("bad_stones", rule="Z-10", detail="stone counts must be whole numbers >= 0")
    stones = PALETTE.of(command.stones)
    excess = sum(state.players[offender].hand) - EDITION.hand_limit
    if sum(stones) == 0:
        raise Rejected("nothing_returned", rule="Z-10", detail="return at least one stone")
    if sum(stones) > excess:
        raise Rejected(
            "too_many_returned",
            rule="Z-10",
            detail=f"only the excess goes back: {excess} stone(s), until seat {offender} holds "
            f"{EDITION.hand_limit}",
        )
    if not covers(state.players[offender].hand, stones):
        raise Rejected(
            "offender_lacks", rule="Z-10", detail=f"seat {offender} does not hold {PALETTE.named(stones)}"
        )
    events: list[Event] = [ExcessReturned(chooser=seat, offender=offender, stones=PALETTE.named(stones))]
    if sum(stones) == excess:
        events.append(TurnStarted(turn=state.turn + 1, seat=(offender + 1) % len(state.players)))
    return events
