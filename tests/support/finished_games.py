"""Finishing a stored game fast: random legal commands decided as the service decides them and appended as
it appends them (each command's events with its move, for the audit to re-decide), without a request per
command; or a game whose resigned seat ends with the most points (B-11)."""

from __future__ import annotations

import random

from domain.core import Command, Event, Rng, fold
from domain.resign import Resign, decisions
from service.games.clocks import system_now, timed
from service.games.loading import FINISHED, LoadedGame
from service.games.schemas import CreateGame, PlayerIn
from service.games.service import GameService
from service.integrity.audit import encode_move
from service.runtime.streams import new_event


async def finish(service: GameService, game_id: str, seed: str) -> None:
    """Play the stored game to its end by random legal commands of random pending seats, each decided with
    the service's randomness for its version (stamped with the time now in a timed game, as the service
    stamps them) and appended with its move, the last one finishing the stream."""
    loaded = await service.loader.load(game_id)
    game, state, version = loaded.game, loaded.state, loaded.version
    chooser = random.Random(seed)
    while not game.is_over(state):
        seat = chooser.choice(game.pending(state)).seat
        command = timed(state, chooser.choice(decisions(game.legal(state, seat))), system_now())
        decided = game.decide(state, seat, command, Rng(loaded.keys.seed, f"v{version}"))
        state = fold(game, decided, state)
        status = FINISHED if game.is_over(state) else None
        appended = await service.store.append(
            game_id, version, [new_event(e) for e in decided], status=status, cause=encode_move(seat, command)
        )
        version = appended.version


def leader_resigns_at(loaded: LoadedGame, step: int) -> tuple[list[Event], int]:
    """The game played to its end as the service decides (first pending seat, first legal command), the
    leader on points resigning before command ``step``: the events and the resigned seat."""
    game, state, version = loaded.game, loaded.state, loaded.version
    events: list[Event] = []
    quitter, commands = -1, 0
    while not game.is_over(state):
        command: Command
        if commands == step:
            scores = game.result(state).scores
            quitter = max(range(len(scores)), key=lambda seat: scores[seat])
            seat, command = quitter, Resign()
        else:
            seat = game.pending(state)[0].seat
            command = decisions(game.legal(state, seat))[0]
        commands += 1
        decided = game.decide(state, seat, command, Rng(loaded.keys.seed, f"v{version + len(events)}"))
        state = fold(game, decided, state)
        events.extend(decided)
    return events, quitter


async def resigned_top_scorer(service: GameService, players: list[str]) -> tuple[str, int]:
    """A finished 5-player Basari game whose resigned seat ends with the most points: its id and that seat."""
    created = await service.commands.create(
        CreateGame(game="basari", players=[PlayerIn(name=p) for p in players])
    )
    loaded = await service.loader.load(created.game_id)
    for step in range(20, 120, 5):
        events, quitter = leader_resigns_at(loaded, step)
        scores = loaded.game.result(fold(loaded.game, events, loaded.state)).scores
        if quitter >= 0 and scores[quitter] == max(scores) and scores.count(max(scores)) == 1:
            await service.store.append(
                created.game_id, loaded.version, [new_event(e) for e in events], status=FINISHED
            )
            return created.game_id, quitter
    raise AssertionError("no resignation step left the resigned seat with the most points")
