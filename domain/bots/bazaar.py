"""Bazaar's bot kit (Z-15 secrets): the seat's fold, its determinization, and the evaluation greedy and strong use.

Hidden from every seat (Z-15): the face-down wares of each stall (identity and order) and the unused wares.
- ``observe`` is the game's own ``evolve``: a redacted deal leaves ``UNKNOWN_WARE`` in each face-down place,
  and a ware turned up later is named by ``WareBought.revealed``.
- ``sample``: every unknown place gets a ware nobody has seen (not displayed, bought or the solitaire
  target), in random order.
- ``evaluate``: points scored so far (Z-11) plus the hand's progress towards the best displayed ware: the
  share of that ware's five stones the hand already holds, squared, times 3 points (a purchase scores more
  with fewer stones left, Z-11, so stones as such are worth nothing).
"""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace

from domain.bazaar import GAME, legal, rules, scoring
from domain.bazaar.components import EDITION
from domain.bazaar.evolve import evolve
from domain.bazaar.state import UNKNOWN_WARE, State
from domain.bots.core import Rules
from domain.core import Command, Game, Rng

__all__ = ["KIT", "BazaarKit"]


class BazaarKit:
    """The Bazaar part of a bot."""

    game: Game[State] = GAME
    rules: Rules[State] = Rules(rules.decide, evolve, legal.pending, legal.legal, scoring.is_over)
    scale = 4.0

    def initial(self) -> State:
        """Nothing seen yet."""
        return State()

    def observe(self, known: State, event: Any, seat: int) -> State:
        """Z-15: a redacted event folds as it is (unknown face-down wares)."""
        return evolve(known, event)

    def sample(self, known: State, seat: int, rng: Rng) -> State:
        """Z-15: every face-down place gets a ware this seat has not seen, at random."""
        unknown = sum(1 for stall in known.stalls for ware in stall if ware == UNKNOWN_WARE)
        if not unknown:
            return known
        seen = {w for stall in known.stalls for w in stall} | {
            w for player in known.players for w in player.wares
        }
        if known.solitaire_ware is not None:
            seen.add(known.solitaire_ware)
        pool = iter(rng.shuffle([w for w in EDITION.wares if w not in seen]))
        stalls = tuple(
            tuple(next(pool) if ware == UNKNOWN_WARE else ware for ware in stall) for stall in known.stalls
        )
        return replace(known, stalls=stalls)

    def rollout(self, state: State, seat: int, rng: Rng) -> Command:
        """Uniform over the seat's legal commands."""
        return rng.choice(legal.legal(state, seat))  # type: ignore[no-any-return]

    def evaluate(self, state: State) -> tuple[float, ...]:
        """Points so far plus 3 x (share of the best displayed ware's stones already in hand) squared."""
        displayed = [
            EDITION.wares[stall[0]].stones for stall in state.stalls if stall and stall[0] in EDITION.wares
        ]
        values = []
        for player in state.players:
            progress = max(
                (
                    sum(min(h, c) for h, c in zip(player.hand, cost, strict=False)) / max(1, sum(cost))
                    for cost in displayed
                ),
                default=0.0,
            )
            values.append(float(player.score) + 3.0 * progress * progress)
        return tuple(values)

    def holdings(self, state: State) -> tuple[tuple[str, ...], ...]:
        """The wares each seat bought, as ``ware <id>`` (with ``*`` for a star ware)."""
        return tuple(
            tuple(f"ware {w}{'*' if EDITION.wares[w].star else ''}" for w in player.wares)
            for player in state.players
        )


KIT = BazaarKit()
