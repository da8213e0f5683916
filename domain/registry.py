"""The games this service offers, by name: registering a game is adding its ``GAME`` here."""

from __future__ import annotations

from typing import Any

from domain.core import Game


def all_games() -> dict[str, Game[Any]]:
    """Every registered game, by its name."""
    from domain.basari import GAME as BASARI
    from domain.bazaar import GAME as BAZAAR
    from domain.johari import GAME as JOHARI

    return {game.name: game for game in (BASARI, BAZAAR, JOHARI)}
