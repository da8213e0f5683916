"""Rulebook-style scenario tests: ``given(game, events).when(seat, command).then(events)`` or ``.rejects(rule)``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from domain.core import Command, Event, Game, Rejected, Rng, fold


class Scenario:
    """A state built from past events, and the command to decide against it."""

    def __init__(self, game: Game[Any], events: Sequence[Event], seed: str = "scenario") -> None:
        self.game = game
        self.history = list(events)
        self.state = fold(game, self.history)
        self.seed = seed
        self._seat: int | None = None
        self._command: Command | None = None

    def when(self, seat: int, command: Command) -> Scenario:
        """The command ``seat`` sends next."""
        self._seat, self._command = seat, command
        return self

    def decide(self) -> list[Event]:
        """The events the command causes (raises Rejected)."""
        assert self._seat is not None and self._command is not None, "call .when(seat, command) first"
        rng = Rng(self.seed, f"v{len(self.history)}")
        return self.game.decide(self.state, self._seat, self._command, rng)

    def then(self, expected: Sequence[Event] | None = None) -> Any:
        """Assert the command is accepted (and, if given, causes exactly ``expected``); return the new state."""
        events = self.decide()
        if expected is not None:
            assert events == list(expected), f"expected {expected!r}\n     got {events!r}"
        state = self.state
        for event in events:
            state = self.game.evolve(state, event)
        return state

    def rejects(self, rule: str | None, code: str | None = None) -> Rejected:
        """Assert the command is refused citing ``rule`` (and ``code`` if given)."""
        try:
            self.decide()
        except Rejected as refusal:
            assert refusal.rule == rule, f"refused under {refusal.rule!r} ({refusal.code}), expected {rule!r}"
            if code is not None:
                assert refusal.code == code, f"refused as {refusal.code!r}, expected {code!r}"
            return refusal
        raise AssertionError(f"command was accepted, expected a refusal under {rule}")


def given(game: Game[Any], events: Sequence[Event], seed: str = "scenario") -> Scenario:
    """Start a scenario from a history of events."""
    return Scenario(game, events, seed)
