"""Sid Sackson's Bazaar (rules/bazaar.md, Z-1..Z-15) as a pure decider; ``GAME`` is its ``Game``."""

from __future__ import annotations

from typing import Any

import msgspec

from domain.bazaar import rules as decider
from domain.bazaar import scoring
from domain.bazaar import view as views
from domain.bazaar.commands import BazaarCommand
from domain.bazaar.events import BazaarEvent
from domain.bazaar.options import BazaarOptions
from domain.bazaar.state import BazaarState
from domain.bazaar.view import BazaarView
from domain.core import Command, Event, Game, GameConfig, Pending, Result, Rng, ScoreSheet

__all__ = ["GAME", "BazaarGame", "BazaarOptions", "BazaarState", "BazaarView"]


class BazaarGame:
    """The Bazaar decider behind the generic ``Game`` surface."""

    name: str = "bazaar"
    title: str = "Sid Sackson's Bazaar"
    rules: str = "rules/bazaar.md"
    min_players: int = decider.MIN_PLAYERS
    max_players: int = decider.MAX_PLAYERS
    options_type: type[msgspec.Struct] = BazaarOptions
    command_type: Any = BazaarCommand
    event_type: Any = BazaarEvent
    view_type: Any = BazaarView

    def validate_config(self, config: GameConfig) -> None:
        """Z-1: 2 to 6 players, or 1 for solitaire."""
        decider.validate_config(config)

    def initial(self) -> BazaarState:
        """The empty state every history is folded from."""
        return BazaarState()

    def setup(self, config: GameConfig, rng: Rng) -> list[Event]:
        """Z-1, Z-3, Z-4, Z-12: players, exchange, deal."""
        return decider.setup(config, rng)

    def decide(self, state: BazaarState, seat: int, command: Command, rng: Rng) -> list[Event]:
        """Z-1..Z-13: validate and return the command's events."""
        return decider.decide(state, seat, command, rng)

    def evolve(self, state: BazaarState, event: Event) -> BazaarState:
        """Apply one event."""
        return decider.evolve(state, event)

    def view(self, state: BazaarState, seat: int | None) -> msgspec.Struct:
        """Z-15: the public table."""
        return views.view(state, seat)

    def redact(self, event: Event, seat: int | None) -> msgspec.Struct:
        """Z-15: the event without the face-down order and the unused wares."""
        return views.redact(event, seat)

    def pending(self, state: BazaarState) -> list[Pending]:
        """Who must act now."""
        return views.pending(state)

    def legal(self, state: BazaarState, seat: int) -> list[Command]:
        """Every command ``seat`` may send now."""
        return views.legal(state, seat)

    def is_over(self, state: BazaarState) -> bool:
        """Z-12, Z-13: whether the game has ended."""
        return state.over

    def result(self, state: BazaarState) -> Result:
        """Z-12, Z-13: scores, ranks, winners."""
        return scoring.result(state)

    def scoresheet(self, state: BazaarState) -> ScoreSheet:
        """Z-14: the score sheet so far."""
        return scoring.scoresheet(state)


GAME: Game[BazaarState] = BazaarGame()
