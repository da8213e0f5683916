"""Johari (rules/johari.md, J-1..J-19) as a pure decider: ``GAME`` declares it for the service."""

from __future__ import annotations

from typing import Final

from domain.clock import clocked
from domain.core import GameSpec
from domain.johari import evolve, legal, rules, scoring, view
from domain.johari.commands import JohariCommand
from domain.johari.events import JohariEvent
from domain.johari.options import JohariOptions
from domain.johari.state import State
from domain.resign import resignable

__all__ = ["GAME", "JohariOptions"]

GAME: Final = clocked(
    resignable(
        GameSpec[State](
            name="johari",
            title="Johari",
            rules="rules/johari.md",
            min_players=2,
            max_players=4,
            players_rule="J-1",
            options_type=JohariOptions,
            command_type=JohariCommand,
            event_type=JohariEvent,
            view_type=view.JohariView,
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
