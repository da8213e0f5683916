"""Basari's bot kit (B-12 secrets): the seat's fold, its determinization, and the evaluation greedy and strong use.

Hidden from a seat (B-12): the draw pile's order, and every other seat's pick of step II until the reveal.
- ``observe`` is the game's own ``evolve``: a redacted ``PileShuffled`` leaves the pile empty and a redacted
  ``ActionChosen`` marks the seat as having picked without saying what.
- ``sample``: the pile is every bazaar card not in front of a player this stage (B-9 gathers all cards for
  each stage's shuffle), in random order; each unrevealed pick of another seat is one of the actions, at
  random.
- ``evaluate``: points so far, plus what the stage's end would give now (colour majorities and the workers
  bonus, B-9) at 0.6 of their worth while the stage still runs, plus 0.25 a gem (gems buy negotiations, B-8).
"""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace

from domain.basari import GAME, legal, rules, scoring
from domain.basari.bids import can_beat, step_counts
from domain.basari.commands import Accept, Bid
from domain.basari.components import COLOURS, COMPONENTS, Gems
from domain.basari.evolve import evolve
from domain.basari.scoring import score_stage
from domain.basari.state import State
from domain.bots.core import Rules
from domain.core import Command, Game, Rng

__all__ = ["KIT", "BasariKit"]

RUNNING = ("choose", "resolve", "negotiate", "d_turns")


class BasariKit:
    """The Basari part of a bot."""

    game: Game[State] = GAME
    rules: Rules[State] = Rules(rules.decide, evolve, legal.pending, legal.legal, scoring.is_over)
    scale = 6.0

    def initial(self) -> State:
        """Nothing seen yet."""
        return State()

    def observe(self, known: State, event: Any, seat: int) -> State:
        """B-12: a redacted event folds as it is (unknown pile, picks marked without the action)."""
        return evolve(known, event)

    def sample(self, known: State, seat: int, rng: Rng) -> State:
        """B-12: a random pile of the cards not dealt this stage and random unrevealed picks of the others."""
        pile = known.pile
        if known.phase in RUNNING:
            dealt = {card for player in known.players for card in player.cards}
            pile = tuple(rng.shuffle([c for c in COMPONENTS.card_ids() if c not in dealt]))
        picks = known.picks
        if known.phase == "choose" and not known.revealed:
            picks = tuple(
                rng.choice(known.actions) if known.picked[s] and pick is None and s != seat else pick
                for s, pick in enumerate(known.picks)
            )
        return replace(known, pile=pile, picks=picks)

    def rollout(self, state: State, seat: int, rng: Rng) -> Command:
        """Uniform over the legal commands, but in a negotiation without a draft (B-8): accept or bid, even odds
        (accept only if there is a bid; bid only if the gems can beat it), the bid drawn colour by colour
        among the counts that still beat the current bid (listing every bid costs more than a playout)."""
        talks = state.negotiation
        if state.phase != "negotiate" or talks is None or talks.draft or talks.to_move != seat:
            return rng.choice(legal.legal(state, seat))  # type: ignore[no-any-return]
        current = talks.current_bid()
        owned = state.players[seat].gems
        if current is not None and (not can_beat(owned, current) or rng.below(2)):
            return Accept()
        counts: tuple[int, ...] = ()
        for _ in COLOURS:
            counts = (*counts, rng.choice(step_counts(counts, owned, current)))
        return Bid(gems=Gems.of(counts))

    def evaluate(self, state: State) -> tuple[float, ...]:
        """Points, 0.6 x the stage end's majorities and workers bonus while it runs, 0.25 a gem."""
        values = [float(p.points) + 0.25 * sum(p.gems) for p in state.players]
        if state.phase in RUNNING:
            for line in score_stage(state, "pile").lines:
                values[line.seat] += 0.6 * (line.majority.total() + line.workers_bonus)
        return tuple(values)

    def holdings(self, state: State) -> tuple[tuple[str, ...], ...]:
        """Nothing a seat keeps outlives a stage (B-9 gathers the cards): the balance report compares seats."""
        return tuple(() for _ in state.players)


KIT = BasariKit()
