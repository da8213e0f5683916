"""A client that plays whole games over HTTP by posting only entries of ``legal`` (any game, any server)."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx


@dataclass
class PlayedGame:
    """What a played game left behind: its id, the seat tokens, the final detail and the commands posted."""

    game_id: str
    tokens: list[str]
    final: dict[str, Any]
    commands: int


async def create_game(
    client: httpx.AsyncClient,
    game: str,
    players: int,
    seed: str | None = None,
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """POST /v1/games and return the answer (asserting 201)."""
    body: dict[str, Any] = {"game": game, "players": [{"name": f"player-{i}"} for i in range(players)]}
    if seed is not None:
        body["seed"] = seed
    if options is not None:
        body["options"] = options
    response = await client.post("/v1/games", json=body)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


async def play_to_end(
    client: httpx.AsyncClient,
    game: str,
    players: int,
    seed: str,
    options: dict[str, Any] | None = None,
    max_commands: int = 20_000,
    prefer: tuple[str, ...] = (),
    strategy: Callable[[dict[str, Any], random.Random], dict[str, Any]] | None = None,
) -> PlayedGame:
    """Create a game and play it to its end: each step a random pending seat posts a random entry of its legal
    (among the entries whose ``type`` is in ``prefer`` when there are any), or the entry ``strategy`` picks
    from the seat's view of the game (``GET /v1/games/{id}`` with its token: view, legal)."""
    chooser = random.Random(seed)
    created = await create_game(client, game, players, seed=seed, options=options)
    game_id = created["game_id"]
    tokens = [seat["token"] for seat in created["seats"]]
    commands = 0
    while True:
        spectator = (await client.get(f"/v1/games/{game_id}")).json()
        if spectator["status"] == "finished":
            return PlayedGame(game_id=game_id, tokens=tokens, final=spectator, commands=commands)
        assert commands < max_commands, "game did not end"
        seat = chooser.choice(spectator["pending"])["seat"]
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        mine = (await client.get(f"/v1/games/{game_id}", headers=auth)).json()
        legal = [entry for entry in mine["legal"] if entry["type"] != "resign"]  # resigning: tests of its own
        assert legal, f"seat {seat} pending with no legal command"
        preferred = [entry for entry in legal if entry["type"] in prefer]
        command = (
            strategy({**mine, "legal": legal}, chooser) if strategy else chooser.choice(preferred or legal)
        )
        assert command in legal, "a client posts only entries of legal"
        response = await client.post(f"/v1/games/{game_id}/commands", json=command, headers=auth)
        assert response.status_code == 200, response.text
        commands += 1


async def play_existing(
    client: httpx.AsyncClient,
    game_id: str,
    tokens: list[str],
    seed: str,
    max_commands: int = 20_000,
    watch_as_seat: bool = False,
) -> dict[str, Any]:
    """Play an existing game to its end with the given seat tokens (index = seat), posting only entries of
    ``legal``; returns the final spectator detail (seat 0's with ``watch_as_seat``, for a game spectators
    may not read: a running duplicate round's)."""
    chooser = random.Random(seed)
    watcher = {"Authorization": f"Bearer {tokens[0]}"} if watch_as_seat else {}
    for _ in range(max_commands):
        spectator = (await client.get(f"/v1/games/{game_id}", headers=watcher)).json()
        if spectator["status"] == "finished":
            final: dict[str, Any] = spectator
            return final
        seat = chooser.choice(spectator["pending"])["seat"]
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        mine = (await client.get(f"/v1/games/{game_id}", headers=auth)).json()
        assert mine["you"] == seat
        legal = [entry for entry in mine["legal"] if entry["type"] != "resign"]  # resigning: tests of its own
        assert legal, f"seat {seat} pending with no legal command"
        command = chooser.choice(legal)
        response = await client.post(f"/v1/games/{game_id}/commands", json=command, headers=auth)
        assert response.status_code == 200, response.text
    raise AssertionError("game did not end")
