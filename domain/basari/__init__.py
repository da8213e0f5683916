"""Basari as a pure decider (B-1..B-12): ``GAME`` declares it for the service, per rules/basari.md."""

from __future__ import annotations

from typing import Final

import msgspec

from domain.basari import rules, scoring, view
from domain.basari.commands import BasariCommand
from domain.basari.events import BasariEvent
from domain.basari.state import State
from domain.core import GameSpec

__all__ = ["GAME", "BasariOptions"]


class BasariOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Basari has no options: the rules page fixes everything."""


GAME: Final = GameSpec[State](
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
    evolve=rules.evolve,
    view=view.view,
    redact=view.redact,
    pending=view.pending,
    legal=view.legal,
    is_over=scoring.is_over,
    result=scoring.result,
    scoresheet=scoring.scoresheet,
)
