"""The bench's game workloads, commands scripted in advance from ``legal`` by the pure domain.

Bazaar for two (``script``): a turn is Roll (one event), sometimes ChooseColour (one event), then EndTurn
(two events), and DiscardExcess (two events) when a hand is over the limit. With purchases skipped the game
never ends, so every writer can keep going as long as a phase lasts.

Basari for three (``basari_script``): the peers' comparison game (tests/bench/peers), a whole game of
secret picks, bids and accepts, each choice drawn at random from the legal ones (seeded by the game), an
open bid accepted half the time.

Each game gets a known seed, so the service (which draws from ``Rng(seed, "v<version>")``) makes exactly
the decisions the script was computed against.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from domain.core import Command, GameConfig, Rng
from domain.registry import all_games
from domain.resign import decisions

GAME = "bazaar"
PLAYERS = ("Ada", "Bo")
BASARI_PLAYERS = ("Ada", "Bo", "Cy")

# picks the command to send from the legal ones (never empty), given a random source seeded by the game
Policy = Callable[[list[Command], random.Random], Command]


def seed_of(label: str) -> str:
    """The seed of the bench game ``label`` (a bench game's seed is not secret)."""
    return f"bench-{label}"


def never_buy(legal: list[Command], _random: random.Random) -> Command:
    """Bazaar's bench policy: the first legal command that is not a purchase (Buy), so the game never ends."""
    return next((c for c in legal if type(c).__struct_config__.tag != "buy"), legal[0])


def accept_half(legal: list[Command], chooser: random.Random) -> Command:
    """Basari's bench policy: accept an open bid half the time, else any legal command at random."""
    accept = [c for c in legal if type(c).__struct_config__.tag == "accept"]
    if accept and chooser.random() < 0.5:
        return accept[0]
    return chooser.choice([c for c in legal if c not in accept] or legal)


def played(
    game_name: str, players: Sequence[str], label: str, policy: Policy, commands: int
) -> list[tuple[int, dict[str, Any]]]:
    """Up to ``commands`` (seat, JSON body) pairs of a fresh game ``label``, each legal when sent in order; fewer
    when the game ends. The first seat owing a decision sends the next command."""
    game = all_games()[game_name]
    seed = seed_of(label)
    chooser = random.Random(seed)
    state = game.initial()
    opening = game.setup(GameConfig(players=tuple(players), options=game.options_type()), Rng(seed, "setup"))
    for event in opening:
        state = game.evolve(state, event)
    version = len(opening)
    out: list[tuple[int, dict[str, Any]]] = []
    while len(out) < commands and (owed := game.pending(state)):
        seat = owed[0].seat
        command = policy(decisions(game.legal(state, seat)), chooser)  # never resign
        events = game.decide(state, seat, command, Rng(seed, f"v{version}"))
        for event in events:
            state = game.evolve(state, event)
        version += len(events)
        out.append((seat, msgspec.to_builtins(command)))
    return out


def script(label: str, commands: int) -> list[tuple[int, dict[str, Any]]]:
    """``commands`` (seat, JSON body) pairs of the never-ending Bazaar game ``label`` (``never_buy``)."""
    return played(GAME, PLAYERS, label, never_buy, commands)


def basari_script(label: str) -> list[tuple[int, dict[str, Any]]]:
    """Every command of the Basari game ``label``, to its end (``accept_half``)."""
    return played("basari", BASARI_PLAYERS, label, accept_half, 100_000)


def create_body(label: str, game: str = GAME, players: Sequence[str] = PLAYERS) -> dict[str, Any]:
    """The body of POST /v1/games (or CreateGame) for the bench game ``label``."""
    return {"game": game, "players": [{"name": name} for name in players], "seed": seed_of(label)}
