"""Z-13, Z-14: the game ends when two stalls are sold out; winner, tie-breaks and the score sheet."""

from __future__ import annotations

import pytest

from domain.bazaar import GAME
from domain.bazaar.commands import Buy, EndTurn, Roll
from domain.bazaar.events import GameEnded, PurchaseScored, WareBought
from domain.bazaar.scoring import SCORESHEET_COLUMNS
from domain.bazaar.state import Player, State
from domain.core import Event, Result
from tests.support.scenario import given

from .tables import ONE_OF_EACH, STALLS, act, rolled, table

TWO_OF_EACH = {c: 2 for c in ONE_OF_EACH}


def test_game_ends_the_moment_the_second_stall_is_sold_out_z13() -> None:
    """Z-13: as soon as all wares of two of the four stalls are sold, the bazaar closes."""
    stalls = [STALLS[0], STALLS[1], (23,), ()]
    history = [*table({0: ONE_OF_EACH}, stalls=stalls), rolled(0, "red")]
    state = (
        given(GAME, history)
        .when(0, Buy(ware=23))
        .then(
            [
                WareBought(seat=0, ware=23, stall=2, paid=ONE_OF_EACH, stars=1, revealed=None),
                PurchaseScored(seat=0, turn=3, ware=23, stars=1, stones_left=1, points=5),
                GameEnded(reason="two_stalls_empty", turn=3),
            ]
        )
    )
    assert GAME.is_over(state) and GAME.pending(state) == []
    history = act(history, 0, Buy(ware=23))
    given(GAME, history).when(0, EndTurn()).rejects("Z-13", "game_over")
    given(GAME, history).when(1, Roll()).rejects("Z-13", "game_over")
    assert GAME.result(given(GAME, history).state) == Result(
        scores=(5, 0), ranks=(1, 2), winners=(0,), note=GAME.result(state).note
    )


def test_one_empty_stall_does_not_end_the_game_z13() -> None:
    """Z-13: one sold-out stall is not enough."""
    stalls = [STALLS[0], STALLS[1], (23,), (19, 15, 16, 17, 18)]
    history = act([*table({0: ONE_OF_EACH}, stalls=stalls), rolled(0, "red")], 0, Buy(ware=23))
    assert not GAME.is_over(given(GAME, history).state)


def tie_on_points_game() -> list[Event]:
    """Seat 0 scores 8 with one ware; seat 1 then makes 8 with two wares and closes the bazaar."""
    stalls = [(2, 1, 3, 4, 5), (13,), (23,), (40, 6, 7, 8, 9)]
    history = table({0: {"green": 1, "white": 3}, 1: TWO_OF_EACH}, stalls=stalls, double=True)
    history = act(act([*history, rolled(0, "white")], 0, Buy(ware=2)), 0, EndTurn())
    history = act(act([*history, rolled(1, "red")], 1, Buy(ware=13)), 1, Buy(ware=23))
    return history


def test_tie_on_points_goes_to_fewer_wares_z13() -> None:
    """Z-13: on a tie for high score, the tied player with the fewer ware cards wins."""
    state = given(GAME, tie_on_points_game()).state
    assert GAME.is_over(state)
    assert [(player.score, player.wares) for player in state.players] == [(8, (2,)), (8, (13, 23))]
    result = GAME.result(state)
    assert (result.scores, result.ranks, result.winners) == ((8, 8), (1, 2), (0,))


@pytest.mark.parametrize(
    ("scores", "wares", "ranks", "winners"),
    [
        ((9, 12, 3), ((1,), (2,), (3,)), (2, 1, 3), (1,)),
        ((10, 10, 3), ((1, 2), (3,), (4,)), (2, 1, 3), (1,)),
        ((10, 10, 3), ((1,), (3,), (4,)), (1, 1, 3), (0, 1)),
        ((7, 7, 7, 7), ((1, 2), (3,), (4, 5, 6), (7,)), (3, 1, 4, 1), (1, 3)),
    ],
)
def test_ranks_by_score_then_fewer_wares_then_shared_z13(
    scores: tuple[int, ...],
    wares: tuple[tuple[int, ...], ...],
    ranks: tuple[int, ...],
    winners: tuple[int, ...],
) -> None:
    """Z-13: highest score; on a tie fewer wares; still tied, the tied players share the victory."""
    players = tuple(
        Player(name=f"p{i}", score=score, wares=bought)
        for i, (score, bought) in enumerate(zip(scores, wares, strict=True))
    )
    state = State(players=players, phase="over")
    result = GAME.result(state)
    assert result.ranks == ranks and result.winners == winners


def test_scoresheet_has_one_row_per_purchase_and_a_final_row_naming_the_winner_z14() -> None:
    """Z-14: a line per purchase (turn, player, ware, stars, stones left, points), running total, winner."""
    sheet = GAME.scoresheet(given(GAME, tie_on_points_game()).state)
    assert (
        sheet.columns
        == SCORESHEET_COLUMNS
        == (
            "turn",
            "player",
            "ware",
            "stars",
            "stones_left",
            "points",
            "total",
        )
    )
    assert sheet.rows == (
        (3, "p0", 2, 1, 0, 8, 8),
        (4, "p1", 13, 0, 1, 3, 3),
        (4, "p1", 23, 1, 1, 5, 8),
        ("final", "p0", None, None, None, None, 8),
    )
    assert sheet.winners == ("p0",) and sheet.final


def test_scoresheet_while_the_game_runs_has_no_final_row_z14() -> None:
    """Z-14: the sheet so far: purchases only, no winner yet."""
    history = act([*table({0: ONE_OF_EACH}), rolled(0, "red")], 0, Buy(ware=13))
    sheet = GAME.scoresheet(given(GAME, history).state)
    assert sheet.rows == ((3, "p0", 13, 0, 1, 3, 3),)
    assert sheet.winners == () and not sheet.final


def test_scoresheet_final_row_names_every_sharing_winner_z14() -> None:
    """Z-14, Z-13: a shared victory names all the tied winners."""
    players = (
        Player(name="ann", score=5, wares=(1,)),
        Player(name="bob", score=5, wares=(2,)),
        Player(name="cy", score=1, wares=(3,)),
    )
    state = State(players=players, phase="over")
    sheet = GAME.scoresheet(state)
    assert sheet.rows[-1] == ("final", "ann, bob", None, None, None, None, 5)
    assert sheet.winners == ("ann", "bob")
