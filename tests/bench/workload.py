"""The bench's game workload: Bazaar for two, commands scripted in advance from ``legal`` by the pure domain.

Why Bazaar: a turn is Roll (one event), sometimes ChooseColour (one event), then EndTurn (two events), and
DiscardExcess (two events) when a hand is over the limit. With purchases skipped the game never ends, so
every writer can keep going as long as a phase lasts. Each game gets a known seed, so the service (which
draws from ``Rng(seed, "v<version>")``) makes exactly the decisions the script was computed against.
"""

from __future__ import annotations

from typing import Any

import msgspec

from domain.core import GameConfig, Rng
from domain.registry import all_games
from domain.resign import decisions

GAME = "bazaar"
PLAYERS = ("Ada", "Bo")


def seed_of(label: str) -> str:
    """The seed of the bench game ``label`` (a bench game's seed is not secret)."""
    return f"bench-{label}"


def script(label: str, commands: int) -> list[tuple[int, dict[str, Any]]]:
    """``commands`` (seat, JSON body) pairs, each legal when sent in order to a fresh game ``label``.

    The policy takes the first legal command that is not a purchase (Buy), so the game never ends.
    """
    game = all_games()[GAME]
    seed = seed_of(label)
    state = game.initial()
    opening = game.setup(GameConfig(players=PLAYERS, options=game.options_type()), Rng(seed, "setup"))
    for event in opening:
        state = game.evolve(state, event)
    version = len(opening)
    out: list[tuple[int, dict[str, Any]]] = []
    for _ in range(commands):
        seat = game.pending(state)[0].seat
        legal = decisions(game.legal(state, seat))  # never resign
        command = next((c for c in legal if type(c).__struct_config__.tag != "buy"), legal[0])
        events = game.decide(state, seat, command, Rng(seed, f"v{version}"))
        for event in events:
            state = game.evolve(state, event)
        version += len(events)
        out.append((seat, msgspec.to_builtins(command)))
    return out


def create_body(label: str) -> dict[str, Any]:
    """The body of POST /v1/games (or CreateGame) for the bench game ``label``."""
    return {"game": GAME, "players": [{"name": name} for name in PLAYERS], "seed": seed_of(label)}
