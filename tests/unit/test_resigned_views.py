"""B-10, B-12, Z-15, J-15, J-18 with resignations (``domain/resign.py``): a game's views are drawn from its
result like its score sheet (``GameSpec.view``). Once over, every seat's view and the spectator's show the
result's winners (never a resigned top scorer) and scores, and ``over``, also when resignations end the
game early."""

from __future__ import annotations

from typing import Any

import pytest

from domain.registry import all_games
from tests.support.outcome_views import assert_views_show_the_result
from tests.unit.test_resigned_scoresheet import play, resigned_top_scorer

GAMES = all_games()


@pytest.mark.parametrize(("name", "players"), [("basari", 5), ("bazaar", 4), ("johari", 3)])
def test_a_resigned_top_scorer_is_not_a_views_winner(name: str, players: int) -> None:
    """Resign ranking (docs/api.md): every view names the result's winners, the best seats still playing."""
    game = GAMES[name]
    state = resigned_top_scorer(game, players)
    result = game.result(state)
    assert state.resigned[0] not in result.winners
    assert_views_show_the_result(game, state)
    seen: Any = game.view(state, None)
    if hasattr(seen, "winners"):
        assert state.resigned[0] not in seen.winners


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_game_ended_early_by_resignation_shows_its_result_in_every_view(name: str) -> None:
    """Fewer than two seats still play: every view reads over, with the last seat playing as the winner."""
    game = GAMES[name]
    state = play(game, 3, f"early-{name}", {2: 3, 0: 6})
    assert game.is_over(state) and game.result(state).winners == (1,)
    assert_views_show_the_result(game, state)


def test_a_resigned_solitaire_view_reads_over() -> None:
    """Z-12, Z-15: a solitaire ended by resignation is over in its view, as in its result."""
    game = GAMES["bazaar"]
    state = play(game, 1, "solitaire", {0: 4})
    assert game.is_over(state) and game.result(state).solved is False
    assert_views_show_the_result(game, state)
