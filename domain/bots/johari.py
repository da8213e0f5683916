"""Johari's bot kit (J-18 secrets): the seat's fold, its determinization, and the evaluation greedy and strong use.

Hidden from a seat (J-18): the draw pile's order, the Noble stack's order, the action cards other seats have
played and not yet revealed (Prestige Cards are public, J-13/J-18).
- ``observe`` folds each redacted event with the game's ``evolve``, keeping what the seat does know: the pile
  and stack sizes (as placeholders, id 0), that a seat has played (its slot marked ``hidden`` until
  ``ActionCardsRevealed`` names the card) and the Nobles that left the track.
- ``sample``: the pile is every card nobody holds and no place shows, in random order; the stack is, back by
  back (J-6: 1s on top, 3s at the bottom), Nobles of that back that never appeared; an unrevealed action
  card is one of that seat's hand, at random.
- ``evaluate``: the score J-15 would give now (Nobles, Prestige Cards, Gem Tokens, abilities), plus 0.25 a
  gold (gold pays for actions, J-12) and 0.5 a gem card held (cards are sold for token steps, J-13).
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec.structs import replace

from domain.bots.core import Rules
from domain.core import Command, Game, Rng
from domain.johari import GAME, legal, rules, scoring
from domain.johari.components import COMPONENTS
from domain.johari.events import (
    ActionCardPlayed,
    ActionCardsRevealed,
    DiscardReshuffled,
    GameStarted,
    NoblesAdvanced,
)
from domain.johari.evolve import evolve
from domain.johari.scoring import score
from domain.johari.state import State, card

__all__ = ["KIT", "JohariKit", "Known"]

UNKNOWN = 0  # a placeholder id for a hidden card or Noble (no card or Noble has id 0)
HIDDEN = "hidden"  # a played action card not yet revealed


class Known(msgspec.Struct, frozen=True, kw_only=True):
    """A seat's knowledge: the fold with placeholders, and the Nobles that left the track (out of play)."""

    state: State = State()
    gone: frozenset[int] = frozenset()


class JohariKit:
    """The Johari part of a bot."""

    game: Game[State] = GAME
    rules: Rules[State] = Rules(rules.decide, evolve, legal.pending, legal.legal, scoring.is_over)
    scale = 4.0

    def initial(self) -> Known:
        """Nothing seen yet."""
        return Known()

    def observe(self, known: Known, event: Any, seat: int) -> Known:
        """J-18: fold a redacted event, keeping the sizes of the pile and Noble stack and who played."""
        state, gone = known.state, known.gone
        match event:
            case GameStarted(draw_pile=()):
                event = replace(
                    event,
                    draw_pile=(UNKNOWN,) * event.draw_pile_size,
                    noble_stack=(UNKNOWN,) * event.noble_stack_size,
                )
            case DiscardReshuffled(draw_pile=()):
                event = replace(event, draw_pile=(UNKNOWN,) * event.size)
            case ActionCardPlayed(card=None):
                event = replace(event, card=HIDDEN)
            case ActionCardsRevealed(cards=cards):
                players = list(state.players)
                for s, played in enumerate(cards):
                    p = players[s]
                    if p.slots[state.round - 1] == HIDDEN:
                        slots = list(p.slots)
                        slots[state.round - 1] = played
                        hand = list(p.hand)
                        if played in hand:
                            hand.remove(played)
                        players[s] = replace(p, slots=tuple(slots), hand=tuple(hand))
                state = replace(state, players=tuple(players))
            case NoblesAdvanced(leaving=leaving) if leaving is not None:
                gone = gone | {leaving}
        return Known(state=evolve(state, event), gone=gone)

    def sample(self, known: Known, seat: int, rng: Rng) -> State:
        """J-18: a random pile of the unseen cards, a stack of unseen Nobles by back, random hidden plays."""
        state = known.state
        if state.phase in ("new", "over"):
            return state
        held = [*state.discard, *(c for m in state.market for c in m)]
        for p in state.players:
            held += [*p.display, *p.trade, *p.prestige]
        pool = iter(rng.shuffle(sorted(set(COMPONENTS.cards) - set(held))))
        draw = tuple(next(pool, UNKNOWN) if c == UNKNOWN else c for c in state.draw)
        stack = state.noble_stack
        if UNKNOWN in stack:
            shown = set(known.gone) | {n for n in state.noble_track if n is not None}
            shown |= {n for p in state.players for n in p.nobles}
            per_back = COMPONENTS.nobles_per_back
            backs = [b for b in (1, 2, 3) for _ in range(per_back)][3 * per_back - len(stack) :]
            unseen = {
                b: iter(
                    rng.shuffle(
                        sorted(
                            n for n, noble in COMPONENTS.nobles.items() if noble.back == b and n not in shown
                        )
                    )
                )
                for b in (1, 2, 3)
            }
            stack = tuple(next(unseen[b], UNKNOWN) for b in backs)
        players = list(state.players)
        for s, p in enumerate(players):
            if state.round and p.slots[state.round - 1] == HIDDEN:
                played = rng.choice(p.hand)
                slots = list(p.slots)
                slots[state.round - 1] = played
                hand = list(p.hand)
                hand.remove(played)
                players[s] = replace(p, slots=tuple(slots), hand=tuple(hand))
        return replace(state, draw=draw, noble_stack=stack, players=tuple(players))

    def rollout(self, state: State, seat: int, rng: Rng) -> Command:
        """Uniform over the seat's legal commands."""
        return rng.choice(legal.legal(state, seat))  # type: ignore[no-any-return]

    def evaluate(self, state: State) -> tuple[float, ...]:
        """J-15's score now, plus 0.25 a gold and 0.5 a gem card in the display or on the Trade card."""
        return tuple(
            score(p).total
            + 0.25 * p.gold
            + 0.5 * sum(1 for c in (*p.display, *p.trade) if card(c).kind == "gem")
            for p in state.players
        )

    def holdings(self, state: State) -> tuple[tuple[str, ...], ...]:
        """The Nobles each seat hired (by ability and prestige), its Prestige Cards (by points) and its place in
        the J-8 set-up pick order (``set-up pick 1`` first: the bottom of the random gold stack)."""
        order = list(state.setup_order)
        return tuple(
            (
                *(f"set-up pick {order.index(seat) + 1}" for _ in range(seat in order)),
                *(
                    f"noble {COMPONENTS.nobles[n].ability} ({COMPONENTS.nobles[n].prestige})"
                    for n in p.nobles
                ),
                *(f"prestige card {card(c).prestige}" for c in p.prestige),
            )
            for seat, p in enumerate(state.players)
        )


KIT = JohariKit()
