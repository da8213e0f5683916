"""A golden Basari playthrough (B-1..B-12): a fixed seed must give the same events, byte for byte, forever.

The file pins determinism: the seeded shuffles (B-4, B-9), the automatic steps and every event's JSON shape.
After an intended change of rules or events, regenerate it with ``BASARI_GOLDEN=update pytest <this file>``
and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import msgspec

from domain.basari import GAME
from domain.basari.events import BasariEvent
from domain.core import fold
from tests.support.random_play import play_randomly

GOLDEN = Path(__file__).parents[2] / "golden" / "basari_4p_playthrough.json"
SEED, PLAYERS = "golden-basari", 4


class Playthrough(msgspec.Struct, frozen=True, kw_only=True):
    """The stored playthrough: how it was made, its events and its outcome."""

    game: str
    seed: str
    players: int
    commands: int
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    events: list[BasariEvent]


def _encode(playthrough: Playthrough) -> bytes:
    """Readable, diff-friendly JSON: one event per line."""
    head = msgspec.json.encode(
        {k: v for k, v in msgspec.structs.asdict(playthrough).items() if k != "events"}
    )
    lines = b",\n    ".join(msgspec.json.encode(event) for event in playthrough.events)
    return head[:-1] + b',\n  "events": [\n    ' + lines + b"\n  ]\n}\n"


def _play() -> Playthrough:
    """The playthrough as the code makes it today."""
    run = play_randomly(GAME, PLAYERS, SEED)
    result = GAME.result(run.state)
    return Playthrough(
        game="basari",
        seed=SEED,
        players=PLAYERS,
        commands=run.commands,
        scores=result.scores,
        winners=result.winners,
        events=run.events,
    )


def test_golden_playthrough_b4_b9_b10() -> None:
    """B-4, B-9, B-10: the same seed deals, shuffles and ends the game exactly as recorded."""
    today = _play()
    if os.environ.get("BASARI_GOLDEN") == "update":
        GOLDEN.write_bytes(_encode(today))
    stored = msgspec.json.decode(GOLDEN.read_bytes(), type=Playthrough)
    assert stored.events == today.events
    assert (stored.commands, stored.scores, stored.winners) == (today.commands, today.scores, today.winners)
    assert _encode(today) == GOLDEN.read_bytes()
    assert len(stored.winners) == 2  # this seed ends in a tie for the most points: two winners (B-10)
    state = fold(GAME, stored.events)
    assert GAME.is_over(state) and GAME.result(state).scores == stored.scores
