"""Z-12: solitaire: roll or trade until holding exactly the face-up ware's stones; fewer turns is better."""

from __future__ import annotations

from domain.bazaar import GAME
from domain.bazaar.commands import Buy, ChooseColour, EndTurn, Roll, Trade
from domain.bazaar.events import ColourChosen, DieRolled, GameEnded, Traded, TurnEnded, TurnStarted
from domain.core import Pending
from domain.resign import decisions
from tests.support.scenario import given

from .tables import act, opening, seed_rolling, table

# The solitaire ware in these tables is ware 6: four red and a yellow.


def test_holding_exactly_the_wares_stones_ends_the_game_z12() -> None:
    """Z-12: the game ends when the player holds exactly that ware's five stones and nothing else."""
    history = table({0: {"red": 3, "yellow": 1, "white": 2}}, players=1, turn=7)
    state = (
        given(GAME, history)
        .when(0, Trade(equation=1, give="right"))
        .then(
            [
                Traded(seat=0, equation=1, gave={"white": 2}, took={"red": 1}),
                GameEnded(reason="solitaire_solved", turn=7),
            ]
        )
    )
    assert GAME.is_over(state) and GAME.pending(state) == []
    result = GAME.result(state)
    assert (result.scores, result.ranks, result.winners) == ((7,), (1,), (0,))
    assert result.solved is True and result.lower_is_better and "solved in 7 turns" in result.note
    sheet = GAME.scoresheet(state)
    assert sheet.columns == ("player", "turns", "solved") and sheet.final
    assert sheet.rows == (("p0", 7, True),) and sheet.winners == ("p0",)


def test_the_wares_stones_plus_others_is_not_a_match_z12() -> None:
    """Z-12: "and nothing else": extra stones keep the game going."""
    history = table({0: {"red": 3, "yellow": 1, "white": 3}}, players=1, turn=7)
    given(GAME, history).when(0, Trade(equation=1, give="right")).then(
        [
            Traded(seat=0, equation=1, gave={"white": 2}, took={"red": 1}),
            TurnEnded(seat=0, turn=7, stones=6),
            TurnStarted(turn=8, seat=0),
        ]
    )


def test_the_turn_ends_by_itself_after_the_roll_z12() -> None:
    """Z-12: there are no purchases in solitaire, so the turn ends right after its roll or trade."""
    history = [*opening(players=1), TurnStarted(turn=1, seat=0)]
    seed = seed_rolling("blue", history)
    state = (
        given(GAME, history, seed)
        .when(0, Roll())
        .then(
            [
                DieRolled(seat=0, face="blue", stone="blue", choose=False),
                TurnEnded(seat=0, turn=1, stones=1),
                TurnStarted(turn=2, seat=0),
            ]
        )
    )
    assert GAME.pending(state) == [Pending(seat=0, decision="roll_or_trade")]


def test_choice_in_solitaire_ends_the_turn_after_the_colour_z12_z7() -> None:
    """Z-12, Z-7: after *choice* the player picks the colour, and then the turn ends."""
    history = table({0: {"red": 1}}, players=1)
    history = act(history, 0, Roll(), seed_rolling("choice", history))
    assert GAME.pending(given(GAME, history).state) == [Pending(seat=0, decision="choose_colour")]
    given(GAME, history).when(0, ChooseColour(colour="red")).then(
        [ColourChosen(seat=0, colour="red"), TurnEnded(seat=0, turn=2, stones=2), TurnStarted(turn=3, seat=0)]
    )


def test_first_solitaire_turn_must_roll_z12_z6() -> None:
    """Z-12, Z-6: the first turn is a roll in solitaire too."""
    history = [*opening(players=1), TurnStarted(turn=1, seat=0)]
    given(GAME, history).when(0, Trade(equation=0, give="left")).rejects("Z-6", "first_turn_roll")
    assert decisions(GAME.legal(given(GAME, history).state, 0)) == [Roll()]


def test_no_purchases_and_no_end_turn_in_solitaire_z12() -> None:
    """Z-12: solitaire has no stalls to buy from, and its turns end by themselves."""
    history = table({0: {"red": 4, "yellow": 1}}, players=1)
    given(GAME, history).when(0, Buy(ware=6)).rejects("Z-12", "no_purchase_in_solitaire")
    given(GAME, history).when(0, EndTurn()).rejects("Z-6", "must_roll_or_trade")


def test_unsolved_after_the_turn_limit_z12() -> None:
    """Z-12: after ``solitaire_turn_limit`` (100) turns without a match the game ends unsolved."""
    history = table({0: {"green": 1}}, players=1, turn=100)
    seed = seed_rolling("blue", history)
    state = (
        given(GAME, history, seed)
        .when(0, Roll())
        .then(
            [
                DieRolled(seat=0, face="blue", stone="blue", choose=False),
                TurnEnded(seat=0, turn=100, stones=2),
                GameEnded(reason="solitaire_unsolved", turn=100),
            ]
        )
    )
    result = GAME.result(state)
    assert result.scores == (100,) and result.winners == () and result.solved is False
    assert result.lower_is_better and "unsolved" in result.note
    sheet = GAME.scoresheet(state)
    assert sheet.rows == (("p0", 100, False),) and sheet.winners == ()
    given(GAME, [*history, *given(GAME, history, seed).when(0, Roll()).decide()]).when(0, Roll()).rejects(
        "Z-12", "game_over"
    )


def test_turn_99_is_not_the_limit_z12() -> None:
    """Z-12: the limit is reached only at the end of turn 100."""
    history = table({0: {"green": 1}}, players=1, turn=99)
    events = given(GAME, history, seed_rolling("blue", history)).when(0, Roll()).decide()
    assert events[-1] == TurnStarted(turn=100, seat=0)


def test_a_running_solitaire_shows_turns_not_points_z12() -> None:
    """Z-12: wherever results are listed, solitaire shows turns (fewer is better) and ``solved``, never a
    score where higher is better: the running sheet has the turns so far and no verdict yet."""
    state = given(GAME, table({0: {"green": 1}}, players=1, turn=12)).state
    sheet = GAME.scoresheet(state)
    assert sheet.rows == (("p0", 12, None),) and not sheet.final
    assert GAME.result(state).lower_is_better


def test_multiplayer_results_are_points_higher_is_better_z12() -> None:
    """Z-12 by contrast: a game of two or more is scored in points, higher is better, with no ``solved``."""
    result = GAME.result(given(GAME, table(players=2)).state)
    assert not result.lower_is_better and result.solved is None
