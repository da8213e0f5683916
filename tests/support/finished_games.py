"""Finishing a stored game fast: random legal commands decided as the service decides them, appended in one
transaction (a game of hundreds of commands without hundreds of round trips)."""

from __future__ import annotations

import random

from domain.core import Event, Rng
from domain.resign import decisions
from service.games.clocks import system_now, timed
from service.games.loading import FINISHED
from service.games.service import GameService
from service.runtime.streams import new_event


async def finish(service: GameService, game_id: str, seed: str) -> None:
    """Play the stored game to its end by random legal commands of random pending seats, each decided with
    the service's randomness for its version (stamped with the time now in a timed game, as the service
    stamps them), and append them all at once."""
    loaded = await service.loader.load(game_id)
    game, state, version = loaded.game, loaded.state, loaded.version
    chooser = random.Random(seed)
    events: list[Event] = []
    while not game.is_over(state):
        seat = chooser.choice(game.pending(state)).seat
        command = timed(state, chooser.choice(decisions(game.legal(state, seat))), system_now())
        decided = game.decide(state, seat, command, Rng(loaded.keys.seed, f"v{version + len(events)}"))
        for event in decided:
            state = game.evolve(state, event)
        events.extend(decided)
    await service.store.append(game_id, version, [new_event(e) for e in events], status=FINISHED)
