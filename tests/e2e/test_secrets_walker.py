"""Every GET endpoint, as a spectator and as each seat, at several points of play of all three games and of a
tournament game: no response holds a secret the viewer may not know (API.md, B-12, Z-15, J-18).

The true state is folded by the domain from the stored events (GameService in the test process, on the
server's database); ``tests/support/secrets.py`` turns it into the viewer's secrets and finds them in the
parsed responses. Tokens are secret everywhere (a seat's own too: it is shown only at creation), so is the
seed of every running game. An endpoint is one line of ``GAME_ENDPOINTS`` or ``TOURNAMENT_ENDPOINTS``.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from api.http.formats import CSV, NDJSON
from domain.bazaar.events import BazaarDealt, SolitaireWareDealt
from service.games.loading import LoadedGame
from service.games.service import GameService
from tests.support.live_games import LiveGame, create_live_game, game_service, legal_body, play_until
from tests.support.secrets import Secrets, basari_secrets, bazaar_secrets, encodings, johari_secrets, leaks

pytestmark = [pytest.mark.e2e, pytest.mark.db]

SSE = "text/event-stream"
TEXT = "text/plain"
STREAM_SECONDS = 5  # a live stream that has not sent the current version by then fails the walk


@dataclass(frozen=True)
class Endpoint:
    """A GET to walk: path template (``{game_id}``, ``{game}``, ``{name}``, ``{version}``, ``{half}``,
    ``{tournament_id}``), the Accept header, and the kind of document the game checks expect."""

    path: str
    accept: str = "application/json"
    kind: str = "other"
    headers: tuple[tuple[str, str], ...] = ()  # more request headers, templates like the path


GAME_ENDPOINTS = [
    Endpoint("/v1/catalog"),
    Endpoint("/v1/games"),
    Endpoint("/v1/games?game={game}&status=active"),
    Endpoint("/v1/games?player={name}"),
    Endpoint("/v1/games/{game_id}", kind="detail"),
    Endpoint("/v1/games/{game_id}/legal"),
    Endpoint("/v1/games/{game_id}/events", kind="events"),
    Endpoint("/v1/games/{game_id}/events?after={half}&limit=7", kind="events"),
    Endpoint("/v1/games/{game_id}/events", accept=NDJSON, kind="events"),
    Endpoint("/v1/games/{game_id}/state?at=1"),
    Endpoint("/v1/games/{game_id}/state?at={half}", kind="view"),
    Endpoint("/v1/games/{game_id}/state?at={previous}", kind="view"),
    Endpoint("/v1/games/{game_id}/state?at={version}", kind="view"),
    Endpoint("/v1/games/{game_id}/state?at={beyond}"),  # a 404 problem: its detail must not leak either
    Endpoint("/v1/games/{game_id}/scoresheet", kind="scoresheet"),
    Endpoint("/v1/games/{game_id}/scoresheet", accept=CSV, kind="scoresheet"),
    Endpoint("/v1/games/{game_id}/audit"),
    # Being built on other branches (404 here until they land, then walked as they are):
    Endpoint("/v1/games/{game_id}/stream", accept=SSE, kind="stream"),
    Endpoint("/v1/games/{game_id}/stream", accept=SSE, kind="stream", headers=(("Last-Event-ID", "{half}"),)),
    Endpoint("/v1/games/{game_id}/export"),
    Endpoint("/v1/ratings/{game}"),
    Endpoint("/v1/players/{name}"),
]
TOURNAMENT_ENDPOINTS = [
    Endpoint("/v1/tournaments/{tournament_id}"),
    Endpoint("/v1/tournaments/{tournament_id}/standings"),
    Endpoint("/v1/tournaments/{tournament_id}/standings", accept=CSV),
    Endpoint("/v1/tournaments/{tournament_id}/results"),
    Endpoint("/v1/tournaments/{tournament_id}/results", accept=NDJSON),
]


@dataclass
class World:
    """Every secret string of the session's games and tournaments, and the running games' seeds."""

    tokens: set[str] = field(default_factory=set)
    seeds: dict[str, str] = field(default_factory=dict)  # game or tournament id -> seed, while it runs

    def strings(self) -> set[str]:
        """Tokens and running seeds, with their usual encodings."""
        return {e for s in (*self.tokens, *self.seeds.values()) for e in encodings(s)}


async def true_secrets(service: GameService, loaded: LoadedGame, viewer: int | None) -> Secrets:
    """The viewer's secrets of the game as the domain folds it from the stored events."""
    finished = loaded.finished
    match loaded.game.name:
        case "basari":
            return basari_secrets(loaded.state, viewer, finished, loaded.version)
        case "bazaar":
            records = await service.store.read_stream(loaded.game_id, until=8)
            set_aside: tuple[int, ...] = ()
            for record in records:
                event = service.loader.decode(loaded.game, record)
                if isinstance(event, BazaarDealt | SolitaireWareDealt) and event.set_aside:
                    set_aside = event.set_aside
            return bazaar_secrets(loaded.state, set_aside, finished)
        case "johari":
            return johari_secrets(loaded.state, viewer, finished, loaded.version)
    raise AssertionError(f"no secrets helper for {loaded.game.name}")


async def walk(
    client: httpx.AsyncClient,
    service: GameService,
    world: World,
    live: LiveGame,
    foreign_token: str,
    tournament_id: str | None = None,
) -> int:
    """Every endpoint as a spectator, as each seat and with another game's seat token (seen as a spectator)
    at the game's current point; fails on any leak. Returns the requests made."""
    loaded = await service.loader.load(live.game_id)
    if loaded.finished:
        world.seeds.pop(live.game_id, None)
    values = {
        "game_id": live.game_id,
        "game": live.game,
        "name": live.names[0],
        "version": loaded.version,
        "half": max(1, loaded.version // 2),
        "previous": max(1, loaded.version - 1),
        "beyond": loaded.version + 1,
        "tournament_id": tournament_id or "",
    }
    endpoints = GAME_ENDPOINTS + (TOURNAMENT_ENDPOINTS if tournament_id else [])
    requests = 0
    problems: list[str] = []
    viewers: list[tuple[int | None, str | None]] = [
        (None, None),
        *enumerate(live.tokens),
        (None, foreign_token),
    ]
    for viewer, token in viewers:
        secrets = await true_secrets(service, loaded, viewer)
        secrets.strings |= world.strings()
        headers = {} if token is None else {"Authorization": f"Bearer {token}"}
        for endpoint in endpoints:
            path = endpoint.path.format(**values)
            extra = {name: value.format(**values) for name, value in endpoint.headers}
            request_headers = {**headers, **extra, "Accept": endpoint.accept}
            requests += 1
            for media, kind, text in await fetch(
                client, path, request_headers, endpoint.kind, loaded.version
            ):
                found = leaks(text, media, kind, secrets)
                problems += [
                    f"{live.game} v{loaded.version} viewer {viewer} GET {path}: {leak}" for leak in found
                ]
    assert not problems, "\n".join(problems[:30])
    return requests


async def fetch(
    client: httpx.AsyncClient, path: str, headers: dict[str, str], kind: str, version: int
) -> list[tuple[str, str, str]]:
    """The parts of one answer to check, as (media type, kind, text); an error answer is one "error" part.

    A live stream never ends by itself: it is read until the message of the game's current version (or
    its ``end``), and its snapshot is checked as a game detail, its events as a history."""
    if kind != "stream":
        response = await client.get(path, headers=headers)
        assert response.status_code < 500, f"{path}: {response.status_code} {response.text}"
        media = response.headers.get("content-type", "application/json")
        head = "\n".join(f"{name}: {value}" for name, value in response.headers.items())
        return [
            (media, kind if response.status_code == 200 else "error", response.text),
            (TEXT, "headers", head),
        ]
    async with asyncio.timeout(STREAM_SECONDS), client.stream("GET", path, headers=headers) as response:
        assert response.status_code < 500, f"{path}: {response.status_code}"
        if response.status_code != 200 or not response.headers.get("content-type", "").startswith(SSE):
            text = (await response.aread()).decode()
            return [(response.headers.get("content-type", "application/json"), "error", text)]
        parts: list[tuple[str, str, str]] = []
        events: list[Any] = []
        message: dict[str, str] = {}
        async for line in response.aiter_lines():
            if line:
                field_name, _, value = line.partition(":")
                message[field_name] = message.get(field_name, "") + value.removeprefix(" ")
                continue
            if "data" in message:
                if message.get("event") == "snapshot":
                    parts.append(("application/json", "detail", message["data"]))
                else:
                    events.append(json.loads(message["data"]))
            if message.get("event") == "end" or message.get("id") == str(version):
                break
            message = {}
    parts.append(("application/json", "events", json.dumps({"events": events})))
    return parts


async def post_and_check(
    client: httpx.AsyncClient, service: GameService, world: World, live: LiveGame, chooser: random.Random
) -> None:
    """A refused and an accepted command over HTTP: neither answer holds a secret of the poster."""
    loaded = await service.loader.load(live.game_id)
    if loaded.finished:
        return
    seat = chooser.choice(loaded.game.pending(loaded.state)).seat
    auth = {"Authorization": f"Bearer {live.tokens[seat]}"}
    for nonsense in ({"type": "no_such_command"}, spoiled(loaded, seat)):
        refused = await client.post(f"/v1/games/{live.game_id}/commands", json=nonsense, headers=auth)
        assert refused.status_code in (400, 422), refused.text
        secrets = await true_secrets(service, loaded, seat)
        secrets.strings |= world.strings()
        assert not leaks(refused.text, "application/json", "error", secrets), refused.text
    body = legal_body(loaded, seat, chooser)
    assert body is not None
    accepted = await client.post(f"/v1/games/{live.game_id}/commands", json=body, headers=auth)
    assert accepted.status_code == 200, accepted.text
    after = await service.loader.load(live.game_id)
    if after.finished:
        world.seeds.pop(live.game_id, None)
    secrets = await true_secrets(service, after, seat)
    secrets.strings |= world.strings()
    found = leaks(accepted.text, "application/json", "command", secrets)
    assert not found, f"{live.game} command answer to seat {seat}: {found}"


def spoiled(loaded: LoadedGame, seat: int) -> dict[str, Any]:
    """One of the seat's legal commands with every field a huge number (a command without fields: junk)."""
    body = legal_body(loaded, seat, random.Random(0)) or {}
    fields = {key: 10**6 for key in body if key != "type"}
    return {"type": body.get("type"), **fields} if fields else {"type": 10**6}


Stop = Callable[[LoadedGame], bool]


def basari_mid_pick(loaded: LoadedGame) -> bool:
    """B-6: some seats have picked, some have not."""
    state = loaded.state
    return bool(state.phase == "choose" and any(state.picked) and not all(state.picked))


def johari_mid_play(loaded: LoadedGame) -> bool:
    """J-10: some seats have played this round's card, some have not."""
    state = loaded.state
    if state.phase != "play":
        return False
    played = [p.slots[state.round - 1] is not None for p in state.players]
    return any(played) and not all(played)


def johari_prestige_mid_play(loaded: LoadedGame) -> bool:
    """J-10 with J-18's public Prestige Cards: a seat holds some (shown to all) while another's card is still
    face down (the only secret of the moment besides the pile and Noble stack)."""
    return johari_mid_play(loaded) and any(p.prestige for p in loaded.state.players)


def later(stop: Stop, after_version: int) -> Stop:
    """``stop`` once the game is past ``after_version``."""
    return lambda loaded: loaded.version > after_version and stop(loaded)


def bazaar_bought(loaded: LoadedGame) -> bool:
    """Z-8: a ware was bought, so a face-down card was turned up."""
    return any(player.wares for player in loaded.state.players)


# (game, players, points of play to stop at and walk, besides set-up and the end)
PLAYS: list[tuple[str, int, list[tuple[str, Stop]]]] = [
    (
        "basari",
        4,
        [
            ("mid-pick", basari_mid_pick),
            ("negotiation", lambda g: g.state.phase == "negotiate"),
            ("stage 2 mid-pick", lambda g: g.state.stage >= 2 and basari_mid_pick(g)),
        ],
    ),
    (
        "bazaar",
        3,
        [("first purchase", bazaar_bought), ("hand limit", lambda g: g.state.phase == "discard_excess")],
    ),
    (
        "johari",
        3,
        [
            ("mid-play", johari_mid_play),
            ("prestige mid-play", johari_prestige_mid_play),
            ("day 5 mid-play", lambda g: g.state.day >= 5 and johari_mid_play(g)),
        ],
    ),
]


@pytest.mark.parametrize(("game", "players", "points"), PLAYS, ids=[p[0] for p in PLAYS])
async def test_no_endpoint_leaks_a_secret_during_play(
    own_server: tuple[str, str], game: str, players: int, points: list[tuple[str, Stop]]
) -> None:
    """At set-up, at each point of ``points`` (each reached, or the test fails) and at the end."""
    chooser = random.Random(f"walker-{game}")
    world = World()
    server, database_url = own_server
    async with (
        game_service(database_url) as service,
        httpx.AsyncClient(base_url=server, timeout=30) as client,
    ):
        live = await create_live_game(service, game, players, f"walk-{game}")
        other = await create_live_game(
            service, game, players, f"other-{game}"
        )  # its secrets must not leak here
        world.tokens |= {*live.tokens, *other.tokens}
        world.seeds |= {live.game_id: live.seed, other.game_id: other.seed}
        await walk(client, service, world, live, other.tokens[0])
        for label, stop in points:
            loaded = await play_until(service, live, chooser, stop=lambda g, s=stop: s(g) or g.finished)  # type: ignore[misc]
            assert not loaded.finished, f"{game}: the game ended before reaching {label}"
            await walk(client, service, world, live, other.tokens[0])
            await post_and_check(client, service, world, live, chooser)
        await play_until(service, live, chooser)
        await walk(client, service, world, live, other.tokens[0])


async def test_no_endpoint_leaks_a_secret_of_a_tournament_game(own_server: tuple[str, str]) -> None:
    """A Basari tournament game mid-pick, walked with the players' tokens: no token, no tournament or table
    seed, no pick; then the same once the game is over (its own seed public, the round's others not)."""
    world = World()
    tournament_seed = "tournament-seed-" + "walker-" * 4
    server, database_url = own_server
    async with (
        game_service(database_url) as service,
        httpx.AsyncClient(base_url=server, timeout=30) as client,
    ):
        created = await client.post(
            "/v1/tournaments",
            json={
                "name": "walker cup",
                "game": "basari",
                "rounds": 2,
                "seed": tournament_seed,
                "players": [{"name": f"W{i}"} for i in range(6)],
            },
        )
        assert created.status_code == 201, created.text
        body = created.json()
        tokens = {p["name"]: p["token"] for p in body["players"]}
        world.tokens |= {body["organizer_token"], *tokens.values()}
        tournament_id = body["tournament_id"]
        seated = await client.post(
            f"/v1/tournaments/{tournament_id}/rounds",
            headers={"Authorization": f"Bearer {body['organizer_token']}"},
        )
        assert seated.status_code == 201, seated.text
        tables = seated.json()["tables"]
        world.seeds[tournament_id] = tournament_seed
        games = []
        for table in tables:
            names = [s["name"] for s in table["seats"]]
            keys = await service.loader.game_keys(table["game_id"])
            world.seeds[table["game_id"]] = keys.seed
            games.append(LiveGame(table["game_id"], "basari", keys.seed, [tokens[n] for n in names], names))
        chooser = random.Random("walker-tournament")
        live = games[0]
        await play_until(service, live, chooser, stop=basari_mid_pick)
        await walk(client, service, world, live, games[1].tokens[0], tournament_id)
        await play_until(service, live, chooser)
        await walk(client, service, world, live, games[1].tokens[0], tournament_id)
