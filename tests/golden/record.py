"""Record a seeded playthrough as JSON lines: what every seat saw, what it could do, what it did.

The format (one JSON document per line, so a change of behaviour reads as a line diff):

- line 1: ``{"game", "seed", "players", "options", "commands", "viewed_steps", "result"}``;
- before each of the first ``viewed_steps`` commands, one line per viewer (the spectator, then seat 0, 1,
  ...): ``{"step", "viewer", "pending", "legal", "view"}`` (``legal`` of the viewer's seat; the
  spectator's is empty);
- each command: ``{"step", "seat", "command", "events"}`` (the events as stored, unredacted);
- last, the final views: ``{"step": "end", "viewer", "view"}``.

The game is random legal play from the seed (the same chooser as ``tests.support.random_play``): a pending
seat at random, then one of its legal commands at random (never ``resign``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from domain.core import Game, GameConfig, Rng, fold
from domain.registry import all_games
from domain.resign import decisions

FOLDER = Path(__file__).parent


@dataclass(frozen=True)
class Recording:
    """One recorded playthrough: the game, seat count, seed, options and how many steps show the views."""

    game: str
    players: int
    seed: str
    viewed_steps: int
    options: dict[str, Any] | None = None

    @property
    def path(self) -> Path:
        """Where the golden file lives."""
        return FOLDER / f"{self.game}_{self.players}p_playthrough.jsonl"


RECORDINGS = (
    Recording("basari", 4, "golden-basari", viewed_steps=20),
    Recording("bazaar", 2, "golden-bazaar", viewed_steps=20),
    Recording("johari", 2, "golden-johari", viewed_steps=45),
)


def _line(document: Any) -> bytes:
    """One compact JSON line."""
    return msgspec.json.encode(document) + b"\n"


def _viewers(players: int) -> list[int | None]:
    """The spectator, then every seat."""
    return [None, *range(players)]


def record(recording: Recording, max_commands: int = 5_000) -> bytes:
    """The golden file's content as the code plays the game today."""
    game: Game[Any] = all_games()[recording.game]
    options = msgspec.convert(recording.options or {}, game.options_type)
    config = GameConfig(players=tuple(f"p{i}" for i in range(recording.players)), options=options)
    events = game.setup(config, Rng(recording.seed, "setup"))
    state = fold(game, events)
    chooser = random.Random(recording.seed)
    body: list[bytes] = [_line({"step": 0, "seat": None, "command": None, "events": events})]
    step = 0
    while not game.is_over(state):
        assert step < max_commands, f"{recording.game} did not end within {max_commands} commands"
        step += 1
        pending = game.pending(state)
        if step <= recording.viewed_steps:
            for viewer in _viewers(recording.players):
                body.append(
                    _line(
                        {
                            "step": step,
                            "viewer": viewer,
                            "pending": pending,
                            "legal": [] if viewer is None else game.legal(state, viewer),
                            "view": game.view(state, viewer),
                        }
                    )
                )
        seat = chooser.choice(pending).seat
        command = chooser.choice(decisions(game.legal(state, seat)))  # never a resignation
        new = game.decide(state, seat, command, Rng(recording.seed, f"v{len(events)}"))
        for event in new:
            state = game.evolve(state, event)
        events += new
        body.append(_line({"step": step, "seat": seat, "command": command, "events": new}))
    for viewer in _viewers(recording.players):
        body.append(_line({"step": "end", "viewer": viewer, "view": game.view(state, viewer)}))
    head = {
        "game": recording.game,
        "seed": recording.seed,
        "players": recording.players,
        "options": options,
        "commands": step,
        "viewed_steps": recording.viewed_steps,
        "result": game.result(state),
    }
    return _line(head) + b"".join(body)
