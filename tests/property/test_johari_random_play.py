"""Johari random legal play (J-1..J-19): replay equals state, legal is accepted, cards conserved, games end.

Where the 96 cards can be: the draw pile, the discard pile, the five Stores and the Booths, each player's
display, Trade card (every card taken with Trade, Prestige Cards included, until the day ends: J-13) and
Prestige Cards (kept beside the display).
Gold Cards cashed go to the discard pile; nothing is ever set aside.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import msgspec
import pytest

from domain.core import Event
from domain.johari import GAME
from domain.johari.commands import ExchangeGive
from domain.johari.components import COMPONENTS
from domain.johari.events import (
    CardsTaken,
    DayEnded,
    DiscardReshuffled,
    GameEnded,
    GameStarted,
    SetupCardPicked,
)
from domain.johari.state import State
from tests.support.random_play import play_randomly

ALL_CARDS = sorted(COMPONENTS.cards)


def invariant(state: State) -> None:
    """Conservation of the 96 cards, gold 0..gold_max, Gem Tokens on the track, Nobles held once."""
    if state.phase == "new":
        return
    places = [*state.draw, *state.discard, *(c for m in state.market for c in m)]
    for p in state.players:
        places += [*p.display, *p.trade, *p.prestige]
        assert 0 <= p.gold <= COMPONENTS.gold_max
        assert all(0 <= t <= COMPONENTS.track_max for t in p.tokens)
        assert all(COMPONENTS.cards[c].kind == "prestige" for c in p.prestige)
        assert all(COMPONENTS.cards[c].kind != "prestige" for c in p.display)
        if state.phase == "day_end":
            assert not p.trade  # J-14: the Trade card is emptied at the end of the day
    assert sorted(places) == ALL_CARDS, Counter(places) - Counter(ALL_CARDS)
    turn = state.turn
    if turn is not None and turn.stage == "exchange":  # J-13: Exchange never offers the Trade card's cards
        offered = {c.card for c in GAME.legal(state, turn.seat) if isinstance(c, ExchangeGive)}
        assert not offered & set(state.players[turn.seat].trade)
    nobles = [n for p in state.players for n in p.nobles]
    nobles += [n for n in state.noble_track if n is not None] + list(state.noble_stack)
    assert len(nobles) == len(set(nobles)) <= 3 * COMPONENTS.nobles_per_back


def _check_end(run_events: Sequence[Event], state: State) -> None:
    assert GAME.is_over(state) and state.day == COMPONENTS.market_days
    days = [e.day for e in run_events if isinstance(e, DayEnded)]
    assert days == list(range(1, COMPONENTS.market_days + 1))
    assert isinstance(run_events[-1], GameEnded)
    assert not state.noble_stack  # J-15: the last Noble entered on day 10
    result = GAME.result(state)
    assert min(result.ranks) == 1 and set(result.winners) == {s for s, r in enumerate(result.ranks) if r == 1}
    assert GAME.scoresheet(state).final


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("game", range(40))
def test_random_play_j1_to_j19(players: int, game: int) -> None:
    """Random legal play: replay, JSON round trip, conservation and the end after day 10 (J-15)."""
    run = play_randomly(GAME, players, f"johari-{players}-{game}", invariant=invariant)
    _check_end(run.events, run.state)
    for seat in (None, *range(players)):
        msgspec.json.encode(GAME.view(run.state, seat))
        for event in run.events:
            seen = GAME.redact(event, seat)
            # J-18: the draw pile order never reaches a seat; Prestige Cards taken are public (J-13)
            if isinstance(seen, CardsTaken | SetupCardPicked):
                assert seen == event
            if isinstance(seen, GameStarted | DiscardReshuffled):
                assert seen.draw_pile == ()


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("game", range(4))
def test_random_play_every_legal_entry_is_accepted(players: int, game: int) -> None:
    """Every entry of every pending seat's ``legal`` list is accepted by ``decide``."""
    run = play_randomly(
        GAME, players, f"johari-all-{players}-{game}", invariant=invariant, check_all_legal=True
    )
    _check_end(run.events, run.state)
