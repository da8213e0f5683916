"""Z-10: a player ending the turn over ten stones is trimmed to ten by the next seat, before anything else."""

from __future__ import annotations

from itertools import combinations_with_replacement

from domain.bazaar import GAME
from domain.bazaar.commands import DiscardExcess, EndTurn, Roll, Trade
from domain.bazaar.components import EDITION, PALETTE
from domain.bazaar.events import ExcessReturned, HandLimitBroken, Traded, TurnEnded, TurnStarted
from domain.bazaar.view import BazaarView, HandLimitView
from domain.core import Event, Pending
from domain.resign import decisions
from tests.support.scenario import given

from .tables import act, rolled, table

TWO_OF_EACH = {"red": 2, "blue": 2, "green": 2, "yellow": 2, "white": 2}


def over_the_limit() -> list[Event]:
    """Seat 0 holds ten, trades one red for four stones and ends the turn holding thirteen."""
    history = act(table({0: TWO_OF_EACH}, players=3), 0, Trade(equation=0, give="left"))
    return act(history, 0, EndTurn())


def test_ending_a_turn_over_ten_stones_gives_the_next_seat_the_decision_z10() -> None:
    """Z-10: the next player (to the left: the next seat) must choose which excess stones go back."""
    history = act(table({0: TWO_OF_EACH}, players=3), 0, Trade(equation=0, give="left"))
    state = (
        given(GAME, history)
        .when(0, EndTurn())
        .then([TurnEnded(seat=0, turn=4, stones=13), HandLimitBroken(offender=0, chooser=1, excess=3)])
    )
    assert GAME.pending(state) == [Pending(seat=1, decision="discard_excess")]
    view = GAME.view(state, None)
    assert isinstance(view, BazaarView)
    assert view.hand_limit_decision == HandLimitView(offender=0, chooser=1, excess=3)
    assert view.phase == "discard_excess" and view.current is None


def test_legal_lists_every_way_to_return_the_excess_z10() -> None:
    """Z-10: the chooser picks *any* of the excess stones: every multiset of three the offender holds."""
    state = given(GAME, over_the_limit()).state
    hand = PALETTE.full(state.players[0].hand)
    assert hand == {"red": 1, "blue": 3, "green": 3, "yellow": 3, "white": 3}
    expected = []
    for combo in combinations_with_replacement(EDITION.colours, 3):
        counts = {c: combo.count(c) for c in EDITION.colours if combo.count(c)}
        if all(hand[c] >= n for c, n in counts.items()):
            expected.append(DiscardExcess(stones=counts))
    assert decisions(GAME.legal(state, 1)) == expected and len(expected) == 30
    assert decisions(GAME.legal(state, 0)) == [] and decisions(GAME.legal(state, 2)) == []


def test_the_chooser_must_trim_before_anything_else_z10() -> None:
    """Z-10: before anything else: the chooser's roll is refused, and nobody else may decide."""
    history = over_the_limit()
    given(GAME, history).when(1, Roll()).rejects("Z-10", "hand_limit_first")
    given(GAME, history).when(0, DiscardExcess(stones={"blue": 3})).rejects("Z-10", "not_your_decision")
    given(GAME, history).when(2, DiscardExcess(stones={"blue": 3})).rejects("Z-10", "not_your_decision")


def test_returning_the_excess_starts_the_choosers_turn_z10() -> None:
    """Z-10: once the offender is down to ten, the next seat's turn begins."""
    state = (
        given(GAME, over_the_limit())
        .when(1, DiscardExcess(stones={"red": 1, "white": 2}))
        .then(
            [
                ExcessReturned(chooser=1, offender=0, stones={"red": 1, "white": 2}),
                TurnStarted(turn=5, seat=1),
            ]
        )
    )
    assert PALETTE.full(state.players[0].hand) == {"red": 0, "blue": 3, "green": 3, "yellow": 3, "white": 1}
    assert sum(state.bank) + sum(sum(player.hand) for player in state.players) == 100
    assert GAME.pending(state) == [Pending(seat=1, decision="roll_or_trade")]


def test_the_excess_may_be_returned_one_stone_at_a_time_z10() -> None:
    """Z-10: a partial return keeps the decision pending until the offender holds ten."""
    history = act(over_the_limit(), 1, DiscardExcess(stones={"blue": 1}))
    state = given(GAME, history).state
    assert GAME.pending(state) == [Pending(seat=1, decision="discard_excess")]
    view = GAME.view(state, 1)
    assert isinstance(view, BazaarView) and view.hand_limit_decision is not None
    assert view.hand_limit_decision.excess == 2
    given(GAME, history).when(1, DiscardExcess(stones={"green": 2})).then(
        [ExcessReturned(chooser=1, offender=0, stones={"green": 2}), TurnStarted(turn=5, seat=1)]
    )


def test_only_the_excess_and_only_the_offenders_stones_go_back_z10() -> None:
    """Z-10: no more than the excess, stones the offender holds, and at least one."""
    history = over_the_limit()
    given(GAME, history).when(1, DiscardExcess(stones={"blue": 3, "green": 1})).rejects(
        "Z-10", "too_many_returned"
    )
    given(GAME, history).when(1, DiscardExcess(stones={"red": 2})).rejects("Z-10", "offender_lacks")
    given(GAME, history).when(1, DiscardExcess(stones={})).rejects("Z-10", "nothing_returned")
    given(GAME, history).when(1, DiscardExcess(stones={"black": 1})).rejects("Z-2", "no_such_colour")
    given(GAME, history).when(1, DiscardExcess(stones={"blue": -1})).rejects("Z-10", "bad_stones")


def test_no_discard_when_nobody_is_over_the_limit_z10() -> None:
    """Z-10: ten stones is within the limit; there is nothing to return."""
    history = act([*table({0: {"red": 9}}), rolled(0, "red")], 0, EndTurn())
    assert history[-2:] == [TurnEnded(seat=0, turn=3, stones=10), TurnStarted(turn=4, seat=1)]
    given(GAME, history).when(1, DiscardExcess(stones={"red": 1})).rejects("Z-10", "no_excess")


def test_the_last_seat_is_trimmed_by_seat_0_z10() -> None:
    """Z-10: the player to the left of the last seat is seat 0."""
    history = act([*table({1: {"red": 10}}, turn_of=1), rolled(1, "red")], 1, EndTurn())
    assert history[-1] == HandLimitBroken(offender=1, chooser=0, excess=1)


def test_a_large_excess_is_returned_one_stone_per_step_z10() -> None:
    """Z-10: when the ways to return the excess are too many to list, ``legal`` offers single stones."""
    history = act([*table({0: {c: 6 for c in EDITION.colours}}), rolled(0, "red")], 0, EndTurn())
    assert history[-1] == HandLimitBroken(offender=0, chooser=1, excess=21)
    state = given(GAME, history).state
    assert decisions(GAME.legal(state, 1)) == [DiscardExcess(stones={c: 1}) for c in EDITION.colours]


def test_solitaire_player_trims_their_own_hand_z10_z12() -> None:
    """Z-10, Z-12: in solitaire the hand limit applies and the player trims their own excess."""
    history = table({0: TWO_OF_EACH}, players=1)
    state = (
        given(GAME, history)
        .when(0, Trade(equation=0, give="left"))
        .then(
            [
                Traded(
                    seat=0, equation=0, gave={"red": 1}, took={"blue": 1, "green": 1, "yellow": 1, "white": 1}
                ),
                TurnEnded(seat=0, turn=2, stones=13),
                HandLimitBroken(offender=0, chooser=0, excess=3),
            ]
        )
    )
    assert GAME.pending(state) == [Pending(seat=0, decision="discard_excess")]
    history = act(history, 0, Trade(equation=0, give="left"))
    given(GAME, history).when(0, DiscardExcess(stones={"blue": 3})).then(
        [ExcessReturned(chooser=0, offender=0, stones={"blue": 3}), TurnStarted(turn=3, seat=0)]
    )
