"""What a finished game's views must show (``GameSpec.view``): the outcome fields a view carries (``over``,
``winners``, ``scores``, a Bazaar seat's ``score``) are the game's ``result``, however the game ended."""

from __future__ import annotations

from typing import Any

from domain.core import Game


def assert_views_show_the_result(game: Game[Any], state: Any) -> None:
    """Every seat's view and the spectator's: over, the result's winners and (where shown) its scores."""
    result = game.result(state)
    for viewer in [*range(len(state.players)), None]:
        seen: Any = game.view(state, viewer)
        if hasattr(seen, "over"):
            assert seen.over is True, (game.name, viewer)
        if hasattr(seen, "winners"):
            assert seen.winners == result.winners, (game.name, viewer, seen.winners, result)
        if hasattr(seen, "scores"):
            assert seen.scores == result.scores, (game.name, viewer, seen.scores, result)
        if result.solved is None and all(hasattr(player, "score") for player in seen.players):
            assert tuple(player.score for player in seen.players) == result.scores, (game.name, viewer)
