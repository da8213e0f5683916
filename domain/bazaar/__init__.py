"""Sid Sackson's Bazaar (rules/bazaar.md, Z-1..Z-15) as a pure decider: ``GAME`` declares it for the service."""

from __future__ import annotations

from typing import Final

from domain.bazaar import evolve, legal, rules, scoring, view
from domain.bazaar.commands import BazaarCommand
from domain.bazaar.events import BazaarEvent
from domain.bazaar.options import BazaarOptions
from domain.bazaar.state import State
from domain.clock import clocked
from domain.core import GameSpec
from domain.resign import resignable

__all__ = ["GAME", "BazaarOptions"]

GAME: Final = clocked(
    resignable(
        GameSpec[State](
            name="bazaar",
            title="Sid Sackson's Bazaar",
            rules="rules/bazaar.md",
            min_players=1,  # Z-12: solitaire
            max_players=6,
            players_rule="Z-1",
            options_type=BazaarOptions,
            command_type=BazaarCommand,
            event_type=BazaarEvent,
            view_type=view.BazaarView,
            initial=State,
            deal=rules.setup,
            decide=rules.decide,
            evolve=evolve.evolve,
            table=view.view,
            redact=view.redact,
            pending=legal.pending,
            legal=legal.legal,
            is_over=scoring.is_over,
            result=scoring.result,
            sheet=scoring.sheet,
        )
    )
)
