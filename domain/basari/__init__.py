"""Basari as a pure decider (B-1..B-12): ``GAME`` implements ``domain.core.Game`` per rules/basari.md."""

from __future__ import annotations

from typing import Any, Final

import msgspec

from domain.basari import rules, scoring
from domain.basari import view as views
from domain.basari.commands import BasariCommand
from domain.basari.events import BasariEvent
from domain.basari.state import State
from domain.basari.view import BasariView
from domain.core import Command, Event, Game, GameConfig, Pending, Rejected, Result, Rng, ScoreSheet

__all__ = ["GAME", "Basari", "BasariOptions"]


class BasariOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Basari has no options: the rules page fixes everything."""


class Basari:
    """The Basari decider surface (B-1..B-12), for the service's generic command handling."""

    name: str = "basari"
    title: str = "Basari"
    rules: str = "rules/basari.md"
    min_players: int = 3
    max_players: int = 5
    options_type: type[msgspec.Struct] = BasariOptions
    command_type: Any = BasariCommand
    event_type: Any = BasariEvent
    view_type: Any = BasariView

    def validate_config(self, config: GameConfig) -> None:
        """B-1: three, four or five players; Basari has no options."""
        count = len(config.players)
        if not self.min_players <= count <= self.max_players:
            raise Rejected("bad_player_count", rule="B-1", detail=f"Basari seats 3 to 5 players, not {count}")
        if not isinstance(config.options, BasariOptions):
            raise Rejected("bad_options", detail="Basari takes no options")

    def initial(self) -> State:
        """The empty state every history is folded from."""
        return State()

    def setup(self, config: GameConfig, rng: Rng) -> list[Event]:
        """B-1, B-2, B-4, B-5: players and gems, the shuffled pile (stage 1), the cards of round 1."""
        self.validate_config(config)
        return rules.opening_events(config.players, rng)

    def decide(self, state: State, seat: int, command: Command, rng: Rng) -> list[Event]:
        """Validate ``command`` from ``seat``; the events it causes (raises Rejected)."""
        return rules.decide(state, seat, command, rng)

    def evolve(self, state: State, event: Event) -> State:
        """Apply one event (never validates, never mutates)."""
        return rules.evolve(state, event)

    def view(self, state: State, seat: int | None) -> BasariView:
        """B-12: what ``seat`` (None: a spectator) may see."""
        return views.view(state, seat)

    def redact(self, event: Event, seat: int | None) -> Event:
        """B-12: the event without the secrets ``seat`` may not know yet."""
        return views.redact(event, seat)

    def pending(self, state: State) -> list[Pending]:
        """Who owes a decision now and which kind."""
        return views.pending(state)

    def legal(self, state: State, seat: int) -> list[Command]:
        """Every command ``seat`` may send now."""
        return views.legal(state, seat)

    def is_over(self, state: State) -> bool:
        """B-10: over once the third stage is scored."""
        return state.phase == "over"

    def result(self, state: State) -> Result:
        """B-10: scores, ranks and winners."""
        return scoring.result(state)

    def scoresheet(self, state: State) -> ScoreSheet:
        """B-11: the score sheet so far."""
        return scoring.scoresheet(state)


GAME: Final[Basari] = Basari()
_CONFORMS: Game[State] = GAME  # mypy checks here that Basari satisfies the Game protocol
