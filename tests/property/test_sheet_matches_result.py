"""B-11, Z-12, Z-14, J-17 in random play with resignations and timeouts (``domain/resign.py``,
``domain/clock.py``): in every registered game the score sheet agrees with the result. While a game runs
its sheet is not final and names nobody (the ``resigned`` row, if any, last); once over, its last row is the
final row naming the result's winners, right after the ``resigned`` row, and a solitaire's ``solved`` is
the result's. Every seat's view and the spectator's (B-12, Z-15, J-18) then show the result too: over,
its winners and scores."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from domain.clock import SeatTimedOut
from domain.core import Game
from domain.registry import all_games
from tests.support.outcome_views import assert_views_show_the_result
from tests.support.random_play import play_with_departures

GAMES = all_games()
CASES = [
    (name, players)
    for name, game in sorted(GAMES.items())
    for players in range(game.min_players, min(game.max_players, 5) + 1)
]
SEEDS = range(8)


def names(seats: tuple[int, ...]) -> tuple[str, ...]:
    """The seats' names."""
    return tuple(f"p{seat}" for seat in seats)


def resigned_row(game: Game[Any], state: Any) -> tuple[Any, ...]:
    """The ``resigned`` row: the resigned seats' names in order of resignation."""
    width = len(game.scoresheet(state).columns)
    return ("resigned", ", ".join(names(state.resigned)), *([None] * (width - 2)))


def running_sheet_names_nobody(game: Game[Any], state: Any) -> None:
    """A running game's sheet is not final, has no winners, and any ``resigned`` row is its last."""
    if game.is_over(state):
        return
    sheet = game.scoresheet(state)
    assert not sheet.final and sheet.winners == ()
    if state.resigned:
        assert sheet.rows[-1] == resigned_row(game, state)


def assert_sheet_is_the_result(game: Game[Any], state: Any) -> None:
    """A finished game's sheet: final, the result's winners, ``resigned`` just before the final row."""
    sheet = game.scoresheet(state)
    result = game.result(state)
    assert sheet.final
    assert sheet.winners == names(result.winners), (sheet.winners, result)
    rows = list(sheet.rows)
    assert [row for row in rows if row[0] == "resigned"] == (
        [resigned_row(game, state)] if state.resigned else []
    )
    if state.resigned:
        assert rows[-2] == resigned_row(game, state)
    final = rows[-1]
    assert final[0] != "resigned"
    if result.solved is not None:  # Z-12: solitaire's one row is its final row
        assert final == ("p0", result.scores[0], result.solved)
    else:
        shown = final[-1] if game.name == "johari" else final[1]
        assert shown == ", ".join(sheet.winners)


@pytest.mark.parametrize("timed", [False, True], ids=["untimed", "timed"])
@pytest.mark.parametrize(("name", "players"), CASES)
@pytest.mark.parametrize("seed", SEEDS)
def test_the_sheet_names_the_results_winners_however_the_game_ends(
    name: str, players: int, timed: bool, seed: int
) -> None:
    """Random resignations and timeouts: sheet winners = result winners, sheet ``solved`` = result's; every
    view shows the result."""
    game = GAMES[name]
    seed_text = f"sheet-{name}-{players}-{timed}-{seed}"
    run = play_with_departures(game, players, seed_text, timed, lambda s: running_sheet_names_nobody(game, s))
    assert game.is_over(run.state)
    assert_sheet_is_the_result(game, run.state)
    assert_views_show_the_result(game, run.state)


def test_random_departures_reach_every_ending() -> None:
    """The cases above cover, in every game, each way a game ends: by its own rules with and without a
    resigned seat, early by resignation, and with seats timed out."""
    seen = set()
    for (name, players), timed, seed in itertools.product(CASES, [False, True], SEEDS):
        run = play_with_departures(GAMES[name], players, f"sheet-{name}-{players}-{timed}-{seed}", timed)
        resigned = len(run.state.resigned)
        seen.add((name, "early" if resigned >= players - 1 else "resigned" if resigned else "normal"))
        if any(isinstance(event, SeatTimedOut) for event in run.events):
            seen.add((name, "timed out"))
    endings = ("normal", "resigned", "early", "timed out")
    assert {(name, ending) for name in GAMES for ending in endings} <= seen, seen
