"""Who must decide what now: one decision table per game drives its ``pending``, its ``legal`` and the guard
at the top of its ``decide``.

A game declares which decision a seat owes in a state (``owed``: None when the seat owes nothing) and, per
decision, a ``DecisionRule``: the ruling that governs it, the command types that answer it and the function
listing every legal answer. From these two ``DecisionTable`` derives:

- ``pending(state)``: every seat that owes a decision, in seat order;
- ``legal(state, seat)``: the legal answers of the decision the seat owes ([] when it owes none);
- ``owes(state, seat, command)``: the decision ``command`` answers, or None when the seat owes nothing or
  owes a decision the command does not answer; ``decide`` refuses the command then, explaining why with
  the game's own refusal (the ruling it breaks), and otherwise hands it to the command's handler, which
  checks only its content (a bid's gems, a purchase's price).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from domain.core import Command, Pending

__all__ = ["DecisionRule", "DecisionTable"]


class Seated(Protocol):
    """A game's state as a decision table reads it: its seats are its player records."""

    @property
    def players(self) -> tuple[Any, ...]: ...


S = TypeVar("S", bound=Seated)
D = TypeVar("D", bound=str)


@dataclass(frozen=True, kw_only=True)
class DecisionRule(Generic[S]):
    """One decision a seat can owe: the ruling cited when it is refused, its answers and its legal choices."""

    rule: str
    answers: tuple[type[Command], ...]  # the command types that answer it (their content checked by decide)
    options: Callable[[S, int], list[Command]]  # every legal answer of ``seat`` now


@dataclass(frozen=True, kw_only=True)
class DecisionTable(Generic[S, D]):
    """A game's decisions: which one each seat owes now and, for each, its ``DecisionRule``."""

    owed: Callable[[S, int], D | None]
    rules: Mapping[D, DecisionRule[S]]

    @property
    def commands(self) -> frozenset[type[Command]]:
        """Every command type some decision answers (any other is not the game's)."""
        return frozenset(answer for rule in self.rules.values() for answer in rule.answers)

    def pending(self, state: S) -> list[Pending[D]]:
        """Every seat that owes a decision now, in seat order (several at once for secret picks)."""
        owing = ((seat, self.owed(state, seat)) for seat in range(len(state.players)))
        return [Pending(seat=seat, decision=owed) for seat, owed in owing if owed is not None]

    def legal(self, state: S, seat: int) -> list[Command]:
        """Every command ``seat`` may send now: the legal answers of the decision it owes."""
        owed = self.owed(state, seat)
        return [] if owed is None else self.rules[owed].options(state, seat)

    def owes(self, state: S, seat: int, command: Any) -> D | None:
        """The decision ``command`` answers, if ``seat`` owes one that it answers (else None: refuse it)."""
        owed = self.owed(state, seat)
        return owed if owed is not None and type(command) in self.rules[owed].answers else None
