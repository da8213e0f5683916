"""Basari as a pure decider (B-1..B-12): ``GAME`` declares it for the service, per rules/basari.md."""

from __future__ import annotations

from typing import Final

from domain.basari import evolve, legal, rules, scoring, view
from domain.basari.commands import BasariCommand
from domain.basari.events import BasariEvent
from domain.basari.options import BasariOptions
from domain.basari.state import State
from domain.clock import clocked
from domain.core import GameSpec
from domain.resign import resignable

__all__ = ["GAME", "BasariOptions"]


GAME: Final = clocked(
    resignable(
        GameSpec[State](
            name="basari",
            title="Basari",
            rules="rules/basari.md",
            min_players=3,
            max_players=5,
            players_rule="B-1",
            options_type=BasariOptions,
            command_type=BasariCommand,
            event_type=BasariEvent,
            view_type=view.BasariView,
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
