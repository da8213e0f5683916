"""Record a seeded playthrough as JSON lines: what every seat saw, what it could do, what it did.

The format (one JSON document per line, so a change of behaviour reads as a line diff):

- line 1: ``{"game", "seed", "players", "options", "commands", "viewed_steps", "result"}``;
- before each of the first ``viewed_steps`` commands, one line per viewer (the spectator, then seat 0, 1,
  ...): ``{"step", "viewer", "pending", "legal", "view"}`` (``legal`` of the viewer's seat; the
  spectator's is empty);
- each command: ``{"step", "seat", "command", "events"}`` (the events as stored, unredacted);
- then the final views: ``{"step": "end", "viewer", "view"}``;
- last, in a recording with resignations only: ``{"step": "end", "scoresheet"}``, the final score sheet.

The game is random legal play from the seed (the same chooser as ``tests.support.random_play``): a pending
seat at random, then one of its legal commands at random (never ``resign``), except at the steps where the
recording has a seat resign (``resign``: step and seat; the seat resigns then if the game still runs).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from domain.core import Command, Game, GameConfig, Rng, fold
from domain.registry import all_games
from domain.resign import Resign, decisions

FOLDER = Path(__file__).parent


@dataclass(frozen=True)
class Recording:
    """One recorded playthrough: the game, seat count, seed, options and how many steps show the views."""

    game: str
    players: int
    seed: str
    viewed_steps: int
    options: dict[str, Any] | None = None
    resign: tuple[tuple[int, int], ...] = ()  # (step, seat): the seat resigns as that step's command

    @property
    def path(self) -> Path:
        """Where the golden file lives."""
        resigned = "_resigned" if self.resign else ""
        return FOLDER / f"{self.game}_{self.players}p{resigned}_playthrough.jsonl"


RECORDINGS = (
    Recording("basari", 4, "golden-basari", viewed_steps=20),
    Recording("bazaar", 2, "golden-bazaar", viewed_steps=20),
    Recording("johari", 2, "golden-johari", viewed_steps=45),
    # resigned games (domain/resign.py): the last row of each final score sheet names the result's winners
    Recording("basari", 5, "golden-basari-resign", viewed_steps=2, resign=((23, 1),)),
    Recording("bazaar", 3, "golden-bazaar-resign", viewed_steps=2, resign=((20, 2), (45, 0))),
    Recording("bazaar", 1, "golden-bazaar-solitaire-resign", viewed_steps=2, resign=((12, 0),)),
    Recording("johari", 3, "golden-johari-resign", viewed_steps=2, resign=((30, 2),)),
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
        leaving = [seat for at, seat in recording.resign if at == step and seat not in state.resigned]
        command: Command
        if leaving:
            seat, command = leaving[0], Resign()
        else:
            seat = chooser.choice(pending).seat
            command = chooser.choice(decisions(game.legal(state, seat)))  # never a resignation
        new = game.decide(state, seat, command, Rng(recording.seed, f"v{len(events)}"))
        for event in new:
            state = game.evolve(state, event)
        events += new
        body.append(_line({"step": step, "seat": seat, "command": command, "events": new}))
    for viewer in _viewers(recording.players):
        body.append(_line({"step": "end", "viewer": viewer, "view": game.view(state, viewer)}))
    if recording.resign:
        body.append(_line({"step": "end", "scoresheet": game.scoresheet(state)}))
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
