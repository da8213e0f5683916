"""What a bot knows and how it chooses: the seat's fold of its redacted history, three levels.

A bot never reads the true state. ``Knowledge.see`` takes each stored event through the game's own
``redact`` for the bot's seat (exactly what an HTTP client of that seat receives) and folds the result with
the game kit's ``observe``; every decision is then a function of that fold, the seat's ``legal`` list and
a seed. Where a decision needs a whole state (greedy's lookahead, strong's search), the kit's ``sample``
draws the hidden part (pile orders, unrevealed picks) consistently with what the seat has seen: a
determinization.

Levels:
- ``random``: uniform over ``legal``.
- ``greedy``: one-step lookahead: each legal command is applied to a few determinizations, the other seats
  then play the kit's random playout until this seat must decide again (bounded), and the kit's evaluation of the
  outcome (this seat's standing against the best other seat) is averaged; the best command wins, ties
  broken by the seed.
- ``strong``: information-set Monte Carlo tree search (``domain.bots.search``).

Randomness comes only from ``Rng`` (SHA-256 counter mode), seeded per decision by the caller.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Generic, Literal, Protocol, TypeVar

import msgspec

from domain.core import Command, Event, Game, Rejected, Rng
from domain.resign import decisions

__all__ = [
    "LEVELS",
    "Budget",
    "Kit",
    "Knowledge",
    "Level",
    "Rules",
    "advance",
    "choose",
    "reward",
    "standing",
]

K = TypeVar("K")  # what a seat knows (the kit's fold)
S = TypeVar("S")  # a game's full state

Level = Literal["random", "greedy", "strong"]
LEVELS: tuple[Level, ...] = ("random", "greedy", "strong")


class Budget(msgspec.Struct, frozen=True, kw_only=True):
    """A level's think-time budget: search iterations (strong), samples per command (greedy), and how far a
    simulation runs past its choice before it is evaluated. ``seconds`` is a wall-clock cap the service
    enforces through ``stop`` (the domain reads no clock); tests use iterations only."""

    iterations: int = 60
    samples: int = 2
    horizon: int = 12
    exploration: float = 0.7
    seconds: float | None = None


@dataclasses.dataclass(frozen=True)
class Rules(Generic[S]):
    """The pure functions a simulation inside a decision plays by: the game's own rules, without the service's
    clock and resignation layers (a simulated seat never resigns and no clock runs inside a search)."""

    decide: Callable[[S, int, Command, Rng], list[Event]]
    evolve: Callable[[S, Event], S]
    pending: Callable[[S], Sequence[Any]]
    legal: Callable[[S, int], list[Command]]
    is_over: Callable[[S], bool]

    @classmethod
    def of(cls, game: Game[S]) -> Rules[S]:
        """A declared game's functions (with its layers), its commands without ``resign``."""

        def legal(state: S, seat: int) -> list[Command]:
            """The seat's legal commands but resigning."""
            return decisions(game.legal(state, seat))

        return cls(game.decide, game.evolve, game.pending, legal, game.is_over)


class Kit(Protocol[K, S]):
    """The game-specific part of a bot (one module per game): what a seat's history tells, what it hides,
    and how good a position is."""

    @property
    def game(self) -> Game[S]:
        """The game's decider."""
        ...

    @property
    def rules(self) -> Rules[S]:
        """The game's own rules, for simulations (``Rules``)."""
        ...

    @property
    def scale(self) -> float:
        """The point margin that makes a position clearly won (rewards saturate past it)."""
        ...

    def initial(self) -> K:
        """What a seat knows before any event."""
        ...

    def observe(self, known: K, event: Any, seat: int) -> K:
        """Fold one event as ``seat`` received it (redacted) into the seat's knowledge, filling the redacted
        fields only with what that seat has seen."""
        ...

    def sample(self, known: K, seat: int, rng: Rng) -> S:
        """A full state consistent with ``known``: the hidden part (pile orders, other seats' unrevealed
        picks) drawn at random from what is still possible."""
        ...

    def rollout(self, state: S, seat: int, rng: Rng) -> Command:
        """The command ``seat`` plays in a simulation's random playout: any command the rules accept there
        (uniform over ``legal`` unless listing them all costs more than the playout needs)."""
        ...

    def evaluate(self, state: S) -> tuple[float, ...]:
        """Every seat's worth in points: the score so far plus the documented value of its resources."""
        ...

    def holdings(self, state: S) -> tuple[tuple[str, ...], ...]:
        """What each seat ends the game with that a balance report compares (Nobles, wares), by name."""
        ...


class Knowledge(Generic[K, S]):
    """One seat's knowledge of one game: the fold of its history as redacted for that seat."""

    def __init__(self, kit: Kit[K, S], seat: int) -> None:
        self.kit = kit
        self.seat = seat
        self.state: K = kit.initial()
        self.events = 0

    def see(self, events: Iterable[Event]) -> None:
        """Receive stored events: each is redacted for this seat before the bot folds it (B-12, Z-15, J-18)."""
        for event in events:
            self.state = self.kit.observe(self.state, self.kit.game.redact(event, self.seat), self.seat)
            self.events += 1


def standing(values: Sequence[float], seat: int) -> float:
    """A seat's margin over the best other seat (its own value when alone)."""
    others = [v for s, v in enumerate(values) if s != seat]
    return values[seat] - (max(others) if others else 0.0)


def reward(values: Sequence[float], scale: float) -> tuple[float, ...]:
    """Every seat's reward in 0..1: a logistic of its margin over the best other seat, in units of ``scale``."""
    return tuple(
        1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, standing(values, s) / scale))))
        for s in range(len(values))
    )


def advance(
    kit: Kit[Any, S], rules: Rules[S], state: S, rng: Rng, steps: int, until_seat: int | None = None
) -> S:
    """Play the kit's random playout commands of the first pending seat for at most ``steps`` commands, stopping
    early when the game ends or ``until_seat`` is pending."""
    for _ in range(steps):
        if rules.is_over(state):
            break
        pending = rules.pending(state)
        if not pending or any(p.seat == until_seat for p in pending):
            break
        actor = pending[rng.below(len(pending))].seat
        state = apply(rules, state, actor, kit.rollout(state, actor, rng), rng)
    return state


def apply(rules: Rules[S], state: S, seat: int, command: Command, rng: Rng) -> S:
    """The state after ``seat``'s command, its chance draws from the simulation's generator."""
    for event in rules.decide(state, seat, command, rng):
        state = rules.evolve(state, event)
    return state


def simulation(kit: Kit[Any, S], world: S) -> Rules[S]:
    """The rules a search plays a sampled world by: the game's own, or once a seat has resigned (a stand-in
    then plays it) the declared game's. (A seat's knowledge has no clock: the kits fold the game's events.)"""
    return Rules.of(kit.game) if getattr(world, "resigned", ()) else kit.rules


def choose(
    kit: Kit[K, S],
    known: K,
    seat: int,
    legal: Sequence[Command],
    level: Level,
    seed: str,
    budget: Budget | None = None,
    stop: Callable[[], bool] | None = None,
) -> Command:
    """A bot's command for ``seat`` from its knowledge and its legal list (never the true state)."""
    legal = decisions(legal)  # a bot never resigns
    if not legal:
        raise ValueError("a bot is asked to decide with no legal command")
    rng = Rng(seed, f"bot:{level}")
    if level == "random" or len(legal) == 1:
        return legal[rng.below(len(legal))]
    budget = budget or Budget()
    if level == "greedy":
        return _greedy(kit, known, seat, legal, rng, budget)
    from domain.bots.search import search

    return search(kit, known, seat, legal, rng, budget, stop)


def _greedy(
    kit: Kit[K, S], known: K, seat: int, legal: Sequence[Command], rng: Rng, budget: Budget
) -> Command:
    """One-step lookahead: the command whose outcome (after the others' random replies up to this seat's
    next decision) this seat's evaluation likes best, averaged over a few determinizations."""
    worlds = [kit.sample(known, seat, rng) for _ in range(max(1, budget.samples))]
    rules = simulation(kit, worlds[0])
    best: list[Command] = []
    best_value = -math.inf
    for command in legal:
        total = 0.0
        for world in worlds:
            try:
                after = apply(rules, world, seat, command, rng)
            except Rejected:
                # a sampled world where this command is not possible (never for a legal list computed from
                # what the seat sees, but a sample may differ in what the seat cannot see): worst case
                total -= kit.scale * 10
                continue
            after = advance(kit, rules, after, rng, budget.horizon, until_seat=seat)
            total += standing(kit.evaluate(after), seat)
        value = total / len(worlds)
        if value > best_value + 1e-9:
            best, best_value = [command], value
        elif abs(value - best_value) <= 1e-9:
            best.append(command)
    return best[rng.below(len(best))]
