"""Record a seeded playthrough as JSON lines: what every seat saw, what it could do, what it did.

The format (one JSON document per line, so a change of behaviour reads as a line diff):

- line 1: ``{"game", "seed", "players", "options", "commands", "viewed_steps", "result"}``;
- before each of the first ``viewed_steps`` commands, one line per viewer (the spectator, then seat 0, 1,
  ...): ``{"step", "viewer", "pending", "legal", "view"}`` (``legal`` of the viewer's seat; the
  spectator's is empty);
- each command: ``{"step", "seat", "command", "events"}`` (the events as stored, unredacted);
- then the final views: ``{"step": "end", "viewer", "view"}``;
- last, in a recording with resignations or a clock only: ``{"step": "end", "scoresheet"}``, the final
  score sheet.

The game is random legal play from the seed (the same chooser as ``tests.support.random_play``): a pending
seat at random, then one of its legal commands at random (never ``resign``), except at the steps where the
recording has a seat resign (``resign``: step and seat; the seat resigns then if the game still runs).
A timed recording (``clock``, ``domain/clock.py``) stamps every command as the service does, each one
``THINK_MS`` after the previous stamp; at its ``timeouts`` steps the chosen seat lets its deadline pass and
the service's ``TimeOut`` is sent at that deadline.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from domain.clock import TimeOut, stamp
from domain.core import Command, Game, GameConfig, Rng, TimeControl, fold
from domain.registry import all_games
from domain.resign import Resign, decisions

FOLDER = Path(__file__).parent
THINK_MS = 7_000  # in a timed recording, how long after the previous stamp each command is sent


@dataclass(frozen=True)
class Recording:
    """One recorded playthrough: the game, seat count, seed, options and how many steps show the views."""

    game: str
    players: int
    seed: str
    viewed_steps: int
    options: dict[str, Any] | None = None
    resign: tuple[tuple[int, int], ...] = ()  # (step, seat): the seat resigns as that step's command
    clock: TimeControl | None = None  # a timed game's time control (None: untimed)
    timeouts: tuple[int, ...] = ()  # steps at which the chosen seat times out (a timed recording only)

    @property
    def path(self) -> Path:
        """Where the golden file lives."""
        timed = "_timed" if self.clock else ""
        resigned = "_resigned" if self.resign else ""
        return FOLDER / f"{self.game}_{self.players}p{timed}{resigned}_playthrough.jsonl"


RECORDINGS = (
    Recording("basari", 4, "golden-basari", viewed_steps=20),
    Recording("bazaar", 2, "golden-bazaar", viewed_steps=20),
    Recording("johari", 2, "golden-johari", viewed_steps=45),
    # resigned games (domain/resign.py): the last row of each final score sheet names the result's winners
    Recording("basari", 5, "golden-basari-resign", viewed_steps=2, resign=((23, 1),)),
    Recording("bazaar", 3, "golden-bazaar-resign", viewed_steps=2, resign=((20, 2), (45, 0))),
    Recording("bazaar", 1, "golden-bazaar-solitaire-resign", viewed_steps=2, resign=((12, 0),)),
    Recording("johari", 3, "golden-johari-resign", viewed_steps=2, resign=((30, 2),)),
    # Z-12: solitaire played to its end
    Recording("bazaar", 1, "golden-bazaar-solitaire", viewed_steps=20),
    # a timed game (domain/clock.py): four timeouts; seat 2's second resigns it and the stand-in plays it on
    Recording(
        "basari",
        3,
        "golden-basari-timed",
        viewed_steps=4,
        clock=TimeControl(decision_ms=60_000, bank_ms=30_000, max_timeouts=2, start=1_800_000_000_000),
        timeouts=(3, 9, 16, 30),
    ),
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
    config = GameConfig(
        players=tuple(f"p{i}" for i in range(recording.players)), options=options, clock=recording.clock
    )
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
        elif step in recording.timeouts:
            seat, command = chooser.choice(pending).seat, TimeOut()
        else:
            seat = chooser.choice(pending).seat
            command = chooser.choice(decisions(game.legal(state, seat)))  # never a resignation
        if state.clock is not None:
            deadline = state.clock.seats[seat].deadline
            late = isinstance(command, TimeOut) and deadline is not None
            command = stamp(command, deadline if late else state.clock.at + THINK_MS)
        new = game.decide(state, seat, command, Rng(recording.seed, f"v{len(events)}"))
        for event in new:
            state = game.evolve(state, event)
        events += new
        body.append(_line({"step": step, "seat": seat, "command": command, "events": new}))
    for viewer in _viewers(recording.players):
        body.append(_line({"step": "end", "viewer": viewer, "view": game.view(state, viewer)}))
    if recording.resign or recording.clock:
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
