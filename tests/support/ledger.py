"""Clients that remember what the server acknowledged, for crash and outage tests: each command goes out with
an Idempotency-Key, every 200 answer is kept, and a history is checked to be exactly those answers' events."""

from __future__ import annotations

import asyncio
import random
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from tests.support.client_play import create_game

# Transport failures: the server died or the connection broke before an answer came (outcome unknown).
LOST = (httpx.TransportError,)


@dataclass
class Sent:
    """A command as posted: by which seat, its body, under which Idempotency-Key."""

    seat: int
    body: dict[str, Any]
    key: str


@dataclass
class Ledger:
    """One game as its client saw it: the commands sent, the 200 answers received (by key), the commands
    whose answer never came, and how many 503s the client waited out."""

    game_id: str
    tokens: list[str]
    created_version: int
    sent: dict[str, Sent] = field(default_factory=dict)
    acknowledged: dict[str, dict[str, Any]] = field(default_factory=dict)
    unanswered: list[Sent] = field(default_factory=list)
    unavailable_answers: int = 0
    finished: bool = False


def bearer(token: str) -> dict[str, str]:
    """The Authorization header of a seat."""
    return {"Authorization": f"Bearer {token}"}


def assert_unavailable(response: httpx.Response) -> None:
    """A 503 as API.md promises it: problem+json with Retry-After."""
    assert response.headers["content-type"].startswith("application/problem+json"), response.text
    assert int(response.headers["retry-after"]) >= 1
    assert response.json()["status"] == 503


async def until_available(
    request: Callable[[], Awaitable[httpx.Response]], ledger: Ledger, pause: float = 0.1
) -> httpx.Response:
    """Send ``request`` until it is answered with anything but 503 (each 503 checked and counted)."""
    while True:
        response = await request()
        if response.status_code != 503:
            return response
        assert_unavailable(response)
        ledger.unavailable_answers += 1
        await asyncio.sleep(pause)  # sooner than Retry-After, to keep the test short


async def new_ledger(client: httpx.AsyncClient, game: str, players: int, seed: str) -> Ledger:
    """Create a game (its creation must be acknowledged) and an empty ledger for it."""
    created = await create_game(client, game, players, seed=seed)
    return Ledger(
        game_id=created["game_id"],
        tokens=[seat["token"] for seat in created["seats"]],
        created_version=created["version"],
    )


async def post_command(client: httpx.AsyncClient, ledger: Ledger, sent: Sent) -> None:
    """Post ``sent`` (again, after a 503) until it is answered; only a 200 is acceptable."""
    url = f"/v1/games/{ledger.game_id}/commands"
    headers = {**bearer(ledger.tokens[sent.seat]), "Idempotency-Key": sent.key}
    response = await until_available(lambda: client.post(url, json=sent.body, headers=headers), ledger)
    assert response.status_code == 200, response.text
    ledger.acknowledged[sent.key] = response.json()


async def play(client: httpx.AsyncClient, ledger: Ledger, seed: str, stop: asyncio.Event) -> None:
    """Play ``ledger``'s game with legal commands until it ends or ``stop`` is set; waits out 503s. If the
    connection breaks, the command in flight is put among the unanswered and the client gives up."""
    chooser = random.Random(seed)
    game_url = f"/v1/games/{ledger.game_id}"
    sent: Sent | None = None
    try:
        while not stop.is_set():
            spectator = await until_available(lambda: client.get(game_url), ledger)
            assert spectator.status_code == 200, spectator.text
            if spectator.json()["status"] == "finished":
                ledger.finished = True
                return
            seat = chooser.choice(spectator.json()["pending"])["seat"]
            auth = bearer(ledger.tokens[seat])
            mine = await until_available(lambda: client.get(game_url, headers=auth), ledger)  # noqa: B023
            assert mine.status_code == 200, mine.text
            sent = Sent(
                seat=seat,
                body=chooser.choice([e for e in mine.json()["legal"] if e["type"] != "resign"]),
                key=uuid.uuid4().hex,
            )
            ledger.sent[sent.key] = sent
            await post_command(client, ledger, sent)
            sent = None
    except LOST:
        if sent is not None:
            ledger.unanswered.append(sent)


async def resolve_unanswered(client: httpx.AsyncClient, ledger: Ledger) -> None:
    """Post every unanswered command again with its key: the stored answer if it was applied, else it is
    applied now (its client was the game's only writer, so the game still waits for it)."""
    for sent in ledger.unanswered:
        await post_command(client, ledger, sent)
    ledger.unanswered.clear()


async def assert_history_is_the_acknowledged_commands(client: httpx.AsyncClient, ledger: Ledger) -> int:
    """Every event after creation belongs to exactly one acknowledged answer, at the version and with the
    type that answer gave: nothing acknowledged is lost, no command is stored twice or in part. Returns the
    number of events checked."""
    response = await client.get(
        f"/v1/games/{ledger.game_id}/events", params={"after": ledger.created_version}
    )
    assert response.status_code == 200, response.text
    stored = {event["version"]: event["type"] for event in response.json()["events"]}
    claimed: dict[int, str] = {}
    for key, answer in ledger.acknowledged.items():
        versions = [event["version"] for event in answer["events"]]
        assert versions == list(range(answer["version"] - len(versions) + 1, answer["version"] + 1)), key
        for event in answer["events"]:
            assert event["version"] not in claimed, f"version {event['version']} acknowledged twice"
            claimed[event["version"]] = event["type"]
    assert claimed == stored, (
        f"{ledger.game_id}: stored but never acknowledged {sorted(set(stored) - set(claimed))}, "
        f"acknowledged but not stored {sorted(set(claimed) - set(stored))}"
    )
    assert sorted(stored) == list(range(ledger.created_version + 1, ledger.created_version + 1 + len(stored)))
    return len(stored)


async def assert_audits_clean(client: httpx.AsyncClient, ledger: Ledger) -> None:
    """GET /audit: the hash chain and the replay check pass."""
    audit = (await client.get(f"/v1/games/{ledger.game_id}/audit")).json()
    assert audit["ok"], audit
