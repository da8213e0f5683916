"""Basari random play (B-1..B-12): legal moves accepted, replay equals state, gems and cards conserved."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from domain.basari import GAME
from domain.basari.components import COLOURS, COMPONENTS
from domain.basari.events import ActionChosen, GameEnded, PileShuffled, StageScored
from domain.basari.state import State
from domain.resign import Resign, decisions
from tests.support.random_play import play_randomly

SEEDS = 25
ALL_CARDS = sorted(COMPONENTS.card_ids())


def invariant(state: State) -> None:
    """What must hold after every event."""
    if not state.players:
        return
    # B-2: for every colour the players' gems plus the stock make 22 (bids never move gems)
    for index, colour in enumerate(COLOURS):
        held = [player.gems.counts()[index] for player in state.players]
        assert min(held) >= 0 and state.stock.counts()[index] >= 0, colour
        assert sum(held) + state.stock.counts()[index] == 22, colour
    # B-4, B-5: during a stage every card is in the pile or in front of exactly one player
    if state.phase not in ("setup", "scored", "over"):
        cards = [card for player in state.players for card in player.cards] + list(state.pile)
        assert sorted(cards) == ALL_CARDS
    # B-6, B-12: a spectator sees no pick before the reveal, and never the pile
    spectator = GAME.view(state, None)
    if not state.revealed:
        assert all(player.action is None for player in spectator.players)
    assert spectator.draw_pile == len(state.pile)
    # pending and legal agree: exactly the pending seats have a decision to send; every seat may resign
    owing = {pending.seat for pending in GAME.pending(state)}
    for seat in state.seats:
        assert bool(decisions(GAME.legal(state, seat))) == (seat in owing), (seat, state.phase)
        assert (Resign() in GAME.legal(state, seat)) == (state.phase != "over")


def check_history(events: list[Any], players: int) -> None:
    """Three stages, then the end (B-9, B-10); redaction hides picks and the pile order (B-12)."""
    stages = [event for event in events if isinstance(event, StageScored)]
    assert [stage.stage for stage in stages] == [1, 2, 3]
    assert isinstance(events[-1], GameEnded)
    assert sum(isinstance(event, GameEnded) for event in events) == 1
    for event in events:
        for seat in [None, *range(players)]:
            seen = GAME.redact(event, seat)
            if isinstance(event, PileShuffled):
                assert isinstance(seen, PileShuffled) and seen.order is None and seen.size == 39
            if isinstance(event, ActionChosen) and event.seat != seat:
                assert seen == ActionChosen(seat=event.seat, action=None)


@pytest.mark.parametrize("players", [3, 4, 5])
@pytest.mark.parametrize("seed", range(SEEDS))
def test_random_play(players: int, seed: int) -> None:
    """Random legal play to the end (every 5th game also decides every legal entry on the way)."""
    run = play_randomly(
        GAME,
        players,
        f"basari-{players}-{seed}",
        invariant=invariant,
        check_all_legal=seed % 5 == 0,
    )
    check_history(run.events, players)
    assert GAME.is_over(run.state)
    result = GAME.result(run.state)
    assert min(result.ranks) == 1 and set(result.winners) == {s for s, r in enumerate(result.ranks) if r == 1}
    sheet = GAME.scoresheet(run.state)
    assert sheet.final and [row[-1] for row in sheet.rows[:players]] == list(result.scores)
    for seat in [None, *range(players)]:
        msgspec.json.encode(GAME.view(run.state, seat))
