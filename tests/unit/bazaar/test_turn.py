"""Z-5, Z-6, Z-7: a turn is one roll or one trade (the first turn a roll); trades and *choice*."""

from __future__ import annotations

from collections import Counter

from domain.bazaar import GAME
from domain.bazaar.commands import Buy, ChooseColour, EndTurn, Roll, Trade
from domain.bazaar.components import EDITION, PALETTE
from domain.bazaar.events import ColourChosen, DieRolled, Traded, TurnEnded, TurnStarted
from domain.core import Event, Pending, Rng
from domain.resign import decisions
from tests.support.scenario import given

from .tables import act, gifts, opening, rolled, seed_rolling, table


def first_turn_with_stones() -> list[Event]:
    """Seat 0's first turn, although it somehow already holds a red stone."""
    return [*opening(), *gifts(0, {"red": 1}), TurnStarted(turn=1, seat=0)]


def test_first_turn_must_roll_not_trade_z6() -> None:
    """Z-6: on his first turn, each player rolls the die; a trade is refused."""
    history = first_turn_with_stones()
    given(GAME, history).when(0, Trade(equation=1, give="left")).rejects("Z-6", "first_turn_roll")
    state = given(GAME, history).state
    assert GAME.pending(state) == [Pending(seat=0, decision="roll")]
    assert decisions(GAME.legal(state, 0)) == [Roll()]


def test_first_turn_cannot_end_without_the_roll_z6() -> None:
    """Z-6: the roll of the first turn is compulsory."""
    given(GAME, [*opening(), TurnStarted(turn=1, seat=0)]).when(0, EndTurn()).rejects(
        "Z-6", "must_roll_or_trade"
    )


def test_roll_takes_one_stone_of_the_colour_rolled_z5_z6() -> None:
    """Z-5, Z-6: the die is drawn from the seeded generator and the player takes that colour."""
    history = [*opening(), TurnStarted(turn=1, seat=0)]
    seed = seed_rolling("green", history)
    state = (
        given(GAME, history, seed)
        .when(0, Roll())
        .then([DieRolled(seat=0, face="green", stone="green", choose=False)])
    )
    assert state.players[0].hand == PALETTE.of({"green": 1})
    assert state.bank == PALETTE.of({"red": 20, "blue": 20, "green": 19, "yellow": 20, "white": 20})
    assert GAME.pending(state) == [Pending(seat=0, decision="buy_or_end")]


def test_die_face_is_below_6_over_the_data_order_z5() -> None:
    """Z-5: the face is ``die_faces[rng.below(6)]`` of the generator for the command's version."""
    history = [*opening(), TurnStarted(turn=1, seat=0)]
    faces: Counter[str] = Counter()
    for i in range(60):
        seed = f"face-{i}"
        events = given(GAME, history, seed).when(0, Roll()).decide()
        expected = EDITION.die_faces[Rng(seed, f"v{len(history)}").below(6)]
        assert isinstance(events[0], DieRolled) and events[0].face == expected
        faces[expected] += 1
    assert set(faces) == {"red", "blue", "green", "yellow", "white", "choice"}


def test_later_turn_may_roll_or_trade_z6() -> None:
    """Z-6: every later turn: either roll or make one trade."""
    history = table({0: {"red": 1}})
    state = given(GAME, history).state
    assert GAME.pending(state) == [Pending(seat=0, decision="roll_or_trade")]
    assert decisions(GAME.legal(state, 0)) == [
        Roll(),
        Trade(equation=0, give="left"),
        Trade(equation=1, give="left"),
    ]


def test_never_a_trade_after_the_roll_z6() -> None:
    """Z-6: roll or trade, never both."""
    history = [*table({0: {"red": 1}}), rolled(0, "blue")]
    given(GAME, history).when(0, Trade(equation=1, give="left")).rejects("Z-6", "one_action_per_turn")
    given(GAME, history).when(0, Roll()).rejects("Z-6", "one_action_per_turn")


def test_never_a_roll_after_a_trade_nor_two_trades_z6() -> None:
    """Z-6: one trade per turn, and no roll after it."""
    history = act(table({0: {"red": 2}}), 0, Trade(equation=1, give="left"))
    given(GAME, history).when(0, Trade(equation=1, give="left")).rejects("Z-6", "one_action_per_turn")
    given(GAME, history).when(0, Trade(equation=1, give="right")).rejects("Z-6", "one_action_per_turn")
    given(GAME, history).when(0, Roll()).rejects("Z-6", "one_action_per_turn")
    assert decisions(GAME.legal(given(GAME, history).state, 0)) == [EndTurn()]


def test_a_turn_ends_by_end_turn_and_passes_to_the_next_seat_z1_z6() -> None:
    """Z-1, Z-6: after the roll or trade the player ends the turn; play proceeds in seat order."""
    history = [*table(players=3, turn_of=2), rolled(2, "red")]
    given(GAME, history).when(2, EndTurn()).then(
        [TurnEnded(seat=2, turn=6, stones=1), TurnStarted(turn=7, seat=0)]
    )


def test_only_the_seat_whose_turn_it_is_may_act_z1() -> None:
    """Z-1: seats play in order; another seat's command is refused."""
    given(GAME, table()).when(1, Roll()).rejects("Z-1", "not_your_turn")
    given(GAME, table()).when(5, Roll()).rejects("Z-1", "no_such_seat")


def test_trade_gives_one_side_and_takes_the_other_z7() -> None:
    """Z-7 (the rulebook's example): trade the red stone for blue, green, yellow and white."""
    state = (
        given(GAME, table({0: {"red": 1}}))
        .when(0, Trade(equation=0, give="left"))
        .then(
            [
                Traded(
                    seat=0,
                    equation=0,
                    gave={"red": 1},
                    took={"blue": 1, "green": 1, "yellow": 1, "white": 1},
                )
            ]
        )
    )
    assert state.players[0].hand == PALETTE.of({"blue": 1, "green": 1, "yellow": 1, "white": 1})
    assert state.bank == PALETTE.of({"red": 20, "blue": 19, "green": 19, "yellow": 19, "white": 19})


def test_an_equation_works_in_both_directions_z3_z7() -> None:
    """Z-3, Z-7 (the rulebook's note): trade red for two white, and later two white back for a red."""
    history = act(table({0: {"red": 1}}), 0, Trade(equation=1, give="left"))
    assert given(GAME, history).state.players[0].hand == PALETTE.of({"white": 2})
    history = act(history, 0, EndTurn())
    history = act([*history, rolled(1, "blue")], 1, EndTurn())
    state = (
        given(GAME, history)
        .when(0, Trade(equation=1, give="right"))
        .then([Traded(seat=0, equation=1, gave={"white": 2}, took={"red": 1})])
    )
    assert state.players[0].hand == PALETTE.of({"red": 1})


def test_trade_needs_the_players_stones_z7() -> None:
    """Z-7: a trade is legal only if the player owns the stones given."""
    given(GAME, table({0: {"white": 1}})).when(0, Trade(equation=1, give="right")).rejects(
        "Z-7", "cannot_give"
    )
    given(GAME, table({0: {"red": 1}})).when(0, Trade(equation=3, give="left")).rejects("Z-7", "cannot_give")


def test_trade_needs_the_banks_stones_z7() -> None:
    """Z-7: a trade is legal only if the bank holds the stones taken."""
    # Seat 1 holds 10 white and seat 0 holds 9: one white is left in the bank, red = 2 white fails.
    history = table({0: {"white": 9, "red": 1}, 1: {"white": 10}})
    given(GAME, history).when(0, Trade(equation=1, give="left")).rejects("Z-7", "bank_cannot_pay")
    assert Trade(equation=1, give="left") not in decisions(GAME.legal(given(GAME, history).state, 0))


def test_no_such_equation_z3() -> None:
    """Z-3: the exchange has ten equations, 0..9."""
    given(GAME, table({0: {"red": 1}})).when(0, Trade(equation=10, give="left")).rejects(
        "Z-3", "no_such_equation"
    )


def test_roll_of_an_exhausted_colour_gives_nothing_z7() -> None:
    """Z-7: a roll whose colour the bank has run out of gives nothing."""
    history = table({0: {"white": 10}, 1: {"white": 10}})
    seed = seed_rolling("white", history)
    state = (
        given(GAME, history, seed)
        .when(0, Roll())
        .then([DieRolled(seat=0, face="white", stone=None, choose=False)])
    )
    assert state.players[0].hand == PALETTE.of({"white": 10})
    assert GAME.pending(state) == [Pending(seat=0, decision="buy_or_end")]


def test_choice_lets_the_player_pick_a_colour_the_bank_still_has_z5_z7() -> None:
    """Z-5, Z-7: on *choice* the player picks any colour the bank still has."""
    history = table({0: {"white": 10}, 1: {"white": 10}})
    seed = seed_rolling("choice", history)
    history = act(history, 0, Roll(), seed)
    assert history[-1] == DieRolled(seat=0, face="choice", stone=None, choose=True)
    state = given(GAME, history).state
    assert GAME.pending(state) == [Pending(seat=0, decision="choose_colour")]
    assert decisions(GAME.legal(state, 0)) == [
        ChooseColour(colour=c) for c in ("red", "blue", "green", "yellow")
    ]
    given(GAME, history).when(0, ChooseColour(colour="white")).rejects("Z-7", "bank_out_of_colour")
    given(GAME, history).when(0, ChooseColour(colour="purple")).rejects("Z-2", "no_such_colour")
    given(GAME, history).when(0, EndTurn()).rejects("Z-7", "choose_colour_first")
    given(GAME, history).when(0, Buy(ware=13)).rejects("Z-7", "choose_colour_first")
    given(GAME, history).when(0, Trade(equation=1, give="right")).rejects("Z-7", "choose_colour_first")
    state = (
        given(GAME, history).when(0, ChooseColour(colour="blue")).then([ColourChosen(seat=0, colour="blue")])
    )
    assert state.players[0].hand == PALETTE.of({"white": 10, "blue": 1})
    assert GAME.pending(state) == [Pending(seat=0, decision="buy_or_end")]


def test_choice_with_an_empty_bank_gives_nothing_z7() -> None:
    """Z-7: on *choice* with the bank empty, nothing (unreachable under the hand limit, ruled anyway)."""
    everything = {c: 10 for c in EDITION.colours}
    history = table({0: everything, 1: everything})
    seed = seed_rolling("choice", history)
    state = (
        given(GAME, history, seed)
        .when(0, Roll())
        .then([DieRolled(seat=0, face="choice", stone=None, choose=False)])
    )
    assert GAME.pending(state) == [Pending(seat=0, decision="buy_or_end")]


def test_choose_colour_without_rolling_choice_is_refused_z7() -> None:
    """Z-7: a colour is chosen only after rolling *choice*."""
    given(GAME, table()).when(0, ChooseColour(colour="red")).rejects("Z-7", "no_choice_rolled")
    given(GAME, [*table(), rolled(0, "red")]).when(0, ChooseColour(colour="red")).rejects(
        "Z-7", "no_choice_rolled"
    )
