"""B-11, Z-12, Z-14, J-17 with resignations (``domain/resign.py``): the score sheet of a game with a resigned
seat is a view of the game's result. Its last row names the result's winners (``resigned`` comes right before
it), whether the game ended by its own rules or early by resignation; a resigned top scorer never appears
as the sheet's winner; a resigned solitaire reads ``solved: false`` on the sheet as in the result."""

from __future__ import annotations

import random
from typing import Any

import pytest

from domain.core import Event, Game, GameConfig, Rng, fold
from domain.registry import all_games
from domain.resign import Resign, decisions

GAMES = all_games()
VERDICT = {"basari": "winners", "bazaar": "final", "johari": "winner(s)"}  # each rule page's final row label


def opening(game: Game[Any], players: int, seed: str) -> list[Event]:
    """A fresh game's opening events, seats named p0, p1, ..."""
    config = GameConfig(players=tuple(f"p{i}" for i in range(players)), options=game.options_type())
    return game.setup(config, Rng(seed, "setup"))


def act(game: Game[Any], events: list[Event], state: Any, seat: int, command: Any) -> tuple[list[Event], Any]:
    """``seat`` sends ``command``: the events and the state after it."""
    new = game.decide(state, seat, command, Rng("sheet", f"v{len(events)}"))
    return events + new, fold(game, new, state)


def play(game: Game[Any], players: int, seed: str, resign_at: dict[int, int]) -> Any:
    """Random legal play to the end; seat ``s`` resigns before command ``resign_at[s]`` if still playing."""
    chooser = random.Random(seed)
    events = opening(game, players, seed)
    state = fold(game, events)
    step = 0
    while not game.is_over(state):
        leaving = [s for s, at in resign_at.items() if at == step and s not in state.resigned]
        for seat in leaving:
            if not game.is_over(state):
                events, state = act(game, events, state, seat, Resign())
        if game.is_over(state):
            break
        seat = chooser.choice(game.pending(state)).seat
        events, state = act(game, events, state, seat, chooser.choice(decisions(game.legal(state, seat))))
        step += 1
    return state


def names(seats: tuple[int, ...]) -> str:
    """The seats' names as a sheet row writes them."""
    return ", ".join(f"p{seat}" for seat in seats)


def verdict_names(name: str, row: tuple[Any, ...]) -> Any:
    """The winners' names in a final row: Basari and Bazaar write them second, Johari last."""
    return row[-1] if name == "johari" else row[1]


def assert_sheet_ends_with_resigned_then_winners(name: str, game: Game[Any], state: Any) -> None:
    """The sheet's last row is the rule page's final row naming the result's winners; ``resigned`` precedes it."""
    sheet = game.scoresheet(state)
    result = game.result(state)
    assert sheet.final
    assert sheet.rows[-2][:2] == ("resigned", names(state.resigned))
    assert sheet.rows[-1][0] == VERDICT[name]
    assert verdict_names(name, sheet.rows[-1]) == names(result.winners)
    assert sheet.winners == tuple(f"p{seat}" for seat in result.winners)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_game_ending_normally_with_a_resigned_seat_ends_its_sheet_with_the_winners_row(name: str) -> None:
    """B-11, Z-14, J-17: the final row names the winner(s), after the ``resigned`` row."""
    game = GAMES[name]
    state = play(game, 3, f"normal-{name}", {1: 5})
    assert game.is_over(state) and state.resigned == (1,)
    assert_sheet_ends_with_resigned_then_winners(name, game, state)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_game_ending_early_by_resignation_ends_its_sheet_the_same_way(name: str) -> None:
    """B-11, Z-14, J-17: a game that ends because fewer than two seats play has the same last two rows."""
    game = GAMES[name]
    state = play(game, 3, f"early-{name}", {2: 3, 0: 6})
    assert game.is_over(state) and state.resigned == (2, 0)
    assert game.result(state).winners == (1,)
    assert_sheet_ends_with_resigned_then_winners(name, game, state)


def resigned_top_scorer(game: Game[Any], players: int) -> Any:
    """A finished game whose top score belongs to a seat that resigned late (found by trying seeds)."""
    for attempt in range(200):
        chooser = random.Random(attempt)
        seed = f"top-{attempt}"
        events = opening(game, players, seed)
        state = fold(game, events)
        while not game.is_over(state):
            seat = chooser.choice(game.pending(state)).seat
            events, state = act(game, events, state, seat, chooser.choice(decisions(game.legal(state, seat))))
            scores = game.result(state).scores
            leader = max(range(players), key=lambda s: scores[s])
            late = len(events) > 30 and chooser.random() < 0.05
            if late and not state.resigned and not game.is_over(state) and scores.count(scores[leader]) == 1:
                events, state = act(game, events, state, leader, Resign())
        if state.resigned and max(game.result(state).scores) == game.result(state).scores[state.resigned[0]]:
            return state
    raise AssertionError("no seed gave a resigned top scorer")


@pytest.mark.parametrize(("name", "players"), [("basari", 5), ("bazaar", 4), ("johari", 3)])
def test_a_resigned_top_scorer_is_not_the_sheets_winner(name: str, players: int) -> None:
    """Resign ranking (docs/api.md): the best seat still playing wins; the sheet names the same winners."""
    game = GAMES[name]
    state = resigned_top_scorer(game, players)
    result = game.result(state)
    quitter = state.resigned[0]
    assert quitter not in result.winners
    sheet = game.scoresheet(state)
    assert f"p{quitter}" not in sheet.winners
    assert sheet.winners == tuple(f"p{seat}" for seat in result.winners)
    assert verdict_names(name, sheet.rows[-1]) == names(result.winners)


def test_a_resigned_solitaire_reads_unsolved_on_its_sheet_z12() -> None:
    """Z-12: the solitaire sheet's ``solved`` is the result's: false once the player resigned, never null."""
    game = GAMES["bazaar"]
    state = play(game, 1, "solitaire", {0: 4})
    assert game.is_over(state) and state.resigned == (0,)
    result = game.result(state)
    assert result.solved is False and result.winners == ()
    sheet = game.scoresheet(state)
    assert sheet.final and sheet.winners == ()
    assert sheet.rows == (("resigned", "p0", None), ("p0", result.scores[0], False))
