"""Table-building helpers for the Johari rule tests: known cards, Nobles, and states at a given decision."""

from __future__ import annotations

from typing import Any

import msgspec

from domain.core import Event, GameConfig, Rng, fold
from domain.johari import GAME
from domain.johari.components import COLOURS, DATA, STORES
from domain.johari.rules import proceed
from domain.johari.state import Player, State
from tests.support.scenario import Scenario, given
from tests.unit.johari.tables import gem, gold_card, noble, prestige_card

__all__ = ["gem", "gold_card", "noble", "prestige_card"]

replace = msgspec.structs.replace


class _FixedStart:
    """GAME, but folding from a hand-built state (so a rule test can start at any decision)."""

    def __init__(self, state: State) -> None:
        self._state = state

    def __getattr__(self, name: str) -> Any:
        return getattr(GAME, name)

    def initial(self) -> State:
        return self._state


def at(state: State) -> Scenario:
    """A scenario starting from ``state``."""
    return given(_FixedStart(state), [])


def table(
    n: int = 2,
    *,
    market: dict[str, tuple[int, ...]] | None = None,
    draw: tuple[int, ...] = (),
    discard: tuple[int, ...] = (),
    track: tuple[int | None, ...] = (None, None, None, None, None),
    stack: tuple[int, ...] = (),
    day: int = 1,
    round: int = 1,
) -> State:
    """A table in the play phase of ``day``/``round``; Stores and Booths as given, players at 15 gold."""
    places = [f"store_{s}" for s in STORES] + [f"booth_{b}" for b in range(n + 2)]
    market = market or {}
    return State(
        phase="play",
        players=tuple(Player(name=f"p{i}", gold=DATA.gold_start, stamp=i) for i in range(n)),
        day=day,
        round=round,
        draw=draw,
        discard=discard,
        market=tuple(tuple(market.get(p, ())) for p in places),
        noble_track=track,
        noble_stack=stack,
        stamp_counter=n,
        setup_order=tuple(range(n)),
        setup_next=n,
    )


def edit(state: State, seat: int, **changes: Any) -> State:
    """The state with some of one player's fields changed."""
    players = list(state.players)
    players[seat] = replace(players[seat], **changes)
    return replace(state, players=tuple(players))


def tokens(**positions: int) -> tuple[int, ...]:
    """Gem Token positions by colour name."""
    return tuple(positions.get(c, 0) for c in COLOURS)


def run(state: State, events: list[Event]) -> State:
    """Apply events."""
    for event in events:
        state = GAME.evolve(state, event)
    return state


def turn_of(state: State, seat: int, card: str, previous: str | None = None) -> tuple[State, list[Event]]:
    """``seat`` plays ``card`` this round (after ``previous`` last round), everybody else has acted.

    Returns the state at the seat's first decision (or after its automatic resolution) and the
    automatic events that led there.
    """
    slot = state.round
    for other in range(len(state.players)):
        slots: list[str | None] = [None, None, None]
        if other == seat:
            if previous is not None:
                slots[slot - 2] = previous
            slots[slot - 1] = card
            hand = tuple(a for a in state.players[other].hand if a not in (card, previous))
            state = edit(state, other, slots=tuple(slots), hand=hand, acted=False)
        else:
            slots[slot - 1] = "baksheesh"
            state = edit(state, other, slots=tuple(slots), acted=True)
    state = replace(state, phase="resolve")
    events = proceed(state, Rng("test", "turn"))
    return run(state, events), events


def started(n: int = 2, seed: str = "seed") -> tuple[list[Event], State]:
    """A real set-up: the opening events and the folded state."""
    config = GameConfig(players=tuple(f"p{i}" for i in range(n)), options=GAME.options_type())
    events = GAME.setup(config, Rng(seed, "setup"))
    return events, fold(GAME, events)
