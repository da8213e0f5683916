"""Bot secrecy (B-12, Z-15, J-18), proved as noninterference: two histories that differ only in what
the bot's seat may not know (pile and stall orders, Noble stack, other seats' unrevealed picks) lead the bot
to the same decision with the same seed. The bot receives the true stored events, as the runner does, and
redacts them for its seat itself; the tests check that the two true states really differ."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from msgspec.structs import replace

from domain.basari.events import ActionChosen, CardDrawn, CardsDealt, PileShuffled
from domain.bazaar.events import BazaarDealt
from domain.bots import Budget, Knowledge, choose, kit
from domain.core import Event, GameConfig, Rng, fold
from domain.johari.events import ActionCardPlayed, DiscardReshuffled, NoblesAdvanced
from domain.johari.events import CardsDealt as JohariDealt
from domain.johari.events import GameStarted as JohariStarted
from domain.registry import all_games
from domain.resign import decisions

BUDGET = Budget(iterations=24, samples=2, horizon=6)

Alter = Callable[[list[Event], Any, int], list[Event]]


def prefix(game_name: str, players: int, seed: int, steps: int) -> tuple[list[Event], Any]:
    """A history of at most ``steps`` random legal commands and its true state; it stops before a command that
    would end the game, so a decision is always due after it."""
    game = all_games()[game_name]
    chooser = random.Random(seed)
    config = GameConfig(players=tuple(f"p{i}" for i in range(players)), options=game.options_type())
    events = game.setup(config, Rng(str(seed), "setup"))
    state = fold(game, events)
    for _ in range(steps):
        pending = game.pending(state)
        if game.is_over(state) or not pending:
            break
        seat = chooser.choice(pending).seat
        new = game.decide(
            state, seat, chooser.choice(decisions(game.legal(state, seat))), Rng(str(seed), f"v{len(events)}")
        )
        after = fold(game, new, state)
        if game.is_over(after):
            break
        events += new
        state = after
    return events, state


def alter_basari(events: list[Event], state: Any, seat: int) -> list[Event]:
    """B-12: the undrawn part of the pile reversed; other seats' unrevealed picks changed."""
    out = list(events)
    last = max(i for i, e in enumerate(out) if isinstance(e, PileShuffled))
    shuffled = out[last]
    assert isinstance(shuffled, PileShuffled) and shuffled.order is not None
    drawn = sum(
        len(e.cards) if isinstance(e, CardsDealt) else 1
        for e in out[last:]
        if isinstance(e, CardsDealt | CardDrawn)
    )
    order = shuffled.order
    out[last] = replace(shuffled, order=order[:drawn] + tuple(reversed(order[drawn:])))
    if state.phase == "choose" and not state.revealed:
        for i, e in enumerate(out):
            if isinstance(e, ActionChosen) and e.seat != seat and i > last and e.action is not None:
                others = [a for a in state.actions if a != e.action]
                out[i] = replace(e, action=others[0])
    return out


def alter_bazaar(events: list[Event], state: Any, seat: int) -> list[Event]:
    """Z-15: the wares still face down and the unused ones exchanged among their places."""
    out = list(events)
    index = next(i for i, e in enumerate(out) if isinstance(e, BazaarDealt))
    dealt = out[index]
    assert isinstance(dealt, BazaarDealt) and dealt.face_down is not None and dealt.set_aside is not None
    hidden = [stall[1:] for stall in state.stalls]
    pool = [w for cards in hidden for w in cards] + list(dealt.set_aside)
    swapped = dict(zip(pool, reversed(pool), strict=True))
    face_down = tuple(
        tuple(swapped.get(w, w) if w in pool else w for w in stall) for stall in dealt.face_down
    )
    out[index] = replace(dealt, face_down=face_down, set_aside=tuple(swapped[w] for w in dealt.set_aside))
    return out


def alter_johari(events: list[Event], state: Any, seat: int) -> list[Event]:
    """J-18: the undealt draw pile and Noble stack reversed; other seats' unrevealed action cards changed."""
    out = list(events)
    assert not any(isinstance(e, DiscardReshuffled) for e in out)  # prefixes end before a reshuffle
    started = out[0]
    assert isinstance(started, JohariStarted)
    dealt = sum(len(e.cards) for e in out if isinstance(e, JohariDealt))
    entered = sum(1 for e in out if isinstance(e, NoblesAdvanced) and e.entering is not None)
    pile, stack = started.draw_pile, started.noble_stack
    out[0] = replace(
        started,
        draw_pile=pile[:dealt] + tuple(reversed(pile[dealt:])),
        noble_stack=stack[:entered] + tuple(reversed(stack[entered:])),
    )
    if state.phase == "play":
        for i, e in enumerate(out):
            if isinstance(e, ActionCardPlayed) and e.seat != seat and e.slot == state.round:
                hand = [c for c in state.players[e.seat].hand if c != e.card]
                if hand and i > max(j for j, x in enumerate(out) if type(x).__name__ == "RoundStarted"):
                    out[i] = replace(e, card=hand[0])
    return out


CASES: list[tuple[str, int, Alter]] = [
    ("basari", 3, alter_basari),
    ("basari", 5, alter_basari),
    ("bazaar", 2, alter_bazaar),
    ("bazaar", 4, alter_bazaar),
    ("johari", 2, alter_johari),
    ("johari", 4, alter_johari),
]


@pytest.mark.parametrize(("game_name", "players", "alter"), CASES)
@pytest.mark.parametrize("seed", range(6))
def test_a_bot_decides_the_same_whatever_its_seat_cannot_see(
    game_name: str, players: int, alter: Alter, seed: int
) -> None:
    """Same seed, histories equal but for the seat's secrets: same decision at every level."""
    game = all_games()[game_name]
    bot_kit = kit(game_name)
    events, state = prefix(game_name, players, seed, steps=10 + 7 * seed)
    assert not game.is_over(state) and game.pending(state)
    seat = game.pending(state)[0].seat
    changed = alter(events, state, seat)
    other = fold(game, changed)
    assert other != state, "the alteration must change the true state"
    assert game.view(other, seat) == game.view(state, seat)
    legal = game.legal(state, seat)
    assert game.legal(other, seat) == legal
    decisions = []
    for history in (events, changed):
        knowledge = Knowledge(bot_kit, seat)
        knowledge.see(history)
        decisions.append(
            [
                choose(bot_kit, knowledge.state, seat, legal, level, f"secret-{seed}", BUDGET)
                for level in ("random", "greedy", "strong")
            ]
        )
    assert decisions[0] == decisions[1]
