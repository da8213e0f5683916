"""The OpenAPI document is accepted by client generators nobody here wrote: openapi-python-client
and openapi-typescript generate from it without a warning, and a bot written against the generated Python
client plays a whole game of every game through typed ``legal`` entries, against the real server.

The generators are installed by ``make generators`` (into ``.generators/``; .ci/run does it). Without them
these tests are skipped, unless ``REQUIRE_GENERATORS=1`` (CI), where a missing generator fails.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import random
import shutil
import subprocess
import sys
import typing
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from service.runtime.settings import PROJECT_ROOT

pytestmark = pytest.mark.e2e

DOCUMENT = PROJECT_ROOT / "openapi" / "openapi.json"
TOOLS = PROJECT_ROOT / ".generators"
PLAYERS = {"basari": 3, "bazaar": 2, "johari": 2}
MAX_COMMANDS = 5000  # far more than any game takes; a bot stuck in a loop fails instead of hanging


def tool(name: str, installed: Path) -> str:
    """A generator's executable (from ``.generators/`` or PATH); skipped or failed when missing."""
    if installed.exists():
        return str(installed)
    found = shutil.which(name)
    if found:
        return found
    if os.environ.get("REQUIRE_GENERATORS") == "1":
        pytest.fail(f"{name} is not installed: run `make generators`")
    pytest.skip(f"{name} is not installed (make generators)")


def warnings_in(output: str) -> list[str]:
    """The lines of a generator's output that warn or report a schema it could not use."""
    marks = ("warning", "unable", "cannot", "could not", "error", "⚠")
    return [line for line in output.splitlines() if any(mark in line.lower() for mark in marks)]


@pytest.fixture(scope="module")
def python_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The Python client openapi-python-client generates from the committed document, imported."""
    generator = tool("openapi-python-client", TOOLS / "venv" / "bin" / "openapi-python-client")
    target = tmp_path_factory.mktemp("generated")
    ruff_dir = str(Path(sys.executable).parent)  # the generator formats its output with ruff
    done = subprocess.run(
        [generator, "generate", "--path", str(DOCUMENT), "--meta", "none", "--output-path", "bazaar_client"],
        cwd=target,
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": ruff_dir + os.pathsep + os.environ.get("PATH", "")},
        timeout=300,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert not warnings_in(output), output
    sys.path.insert(0, str(target))
    try:
        yield importlib.import_module("bazaar_client")
    finally:
        sys.path.remove(str(target))


def test_openapi_python_client_generates_without_warnings(python_client: ModuleType) -> None:
    models = importlib.import_module("bazaar_client.models")
    for name in (
        "BasariGameDetail",
        "BazaarGameDetail",
        "JohariGameDetail",
        "BasariGameStarted",
        "ProblemDetails",
    ):
        assert hasattr(models, name), name


# What a TypeScript client does with the generated types: post any entry of a game's ``legal`` as the body of
# POST /commands, and call the spectator's and the seat's operations with their parameters.
TYPESCRIPT_USE = """\
import type { components, paths } from "./api";
type Detail = components["schemas"]["GameDetail"];
type Body = paths["/v1/games/{game_id}/commands"]["post"]["requestBody"]["content"]["application/json"];
export function bodies(detail: Detail): Body[] {
  if (detail.game === "basari") { return detail.legal.map((entry): Body => entry); }
  if (detail.game === "bazaar") { return detail.legal.map((entry): Body => entry); }
  return detail.legal.map((entry): Body => entry);
}
export function resigns(detail: components["schemas"]["BazaarGameDetail"]): Body | undefined {
  return detail.legal.find((entry) => entry.type === "resign");
}
"""


def test_openapi_typescript_generates_without_warnings(tmp_path: Path) -> None:
    generator = tool("openapi-typescript", TOOLS / "node_modules" / ".bin" / "openapi-typescript")
    target = tmp_path / "api.d.ts"
    done = subprocess.run(
        [generator, str(DOCUMENT), "--output", str(target)], capture_output=True, text=True, timeout=300
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert not warnings_in(output), output
    types = target.read_text()
    for name in ("BasariGameDetail", "JohariGameDetail", "Command", "ProblemDetails"):
        assert f"{name}:" in types, name
    compiler = tool("tsc", TOOLS / "node_modules" / ".bin" / "tsc")
    use = tmp_path / "use.ts"
    use.write_text(TYPESCRIPT_USE)
    checked = subprocess.run(
        [compiler, "--noEmit", "--strict", "--target", "es2022", str(use)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def client_types(function: Any) -> tuple[type, ...]:
    """The client classes a generated operation function accepts, as its annotation (and so mypy) says."""
    annotation = typing.get_type_hints(function)["client"]
    return typing.get_args(annotation) or (annotation,)


def test_spectator_operations_take_a_plain_client_and_seat_operations_a_token(
    python_client: ModuleType,
) -> None:
    """A spectator needs no token to watch; an operation that needs one says so; an optional one takes both;
    the live streams, which no generated function could read as they arrive, are not generated."""
    clients = importlib.import_module("bazaar_client.client")
    for module in ("games.get_game", "games.get_events", "games.get_legal", "games.get_state_at"):
        function = importlib.import_module(f"bazaar_client.api.{module}").asyncio
        assert set(client_types(function)) == {clients.Client, clients.AuthenticatedClient}, module
    for stream in ("games.stream_game", "accounts.stream_me"):  # documented apart: see examples/follow.py
        assert importlib.util.find_spec(f"bazaar_client.api.{stream}") is None, stream
    for module in ("games.post_command", "accounts.get_me", "lobby.join_game", "tournaments.seat_next_round"):
        function = importlib.import_module(f"bazaar_client.api.{module}").asyncio
        assert client_types(function) == (clients.AuthenticatedClient,), module


def body_types(python_client: ModuleType) -> tuple[type, ...]:
    """The models POST /commands accepts as its body, as the generated function's annotation says."""
    post_command = importlib.import_module("bazaar_client.api.games.post_command")
    return typing.get_args(typing.get_type_hints(post_command.asyncio)["body"])


def typed(value: Any, models: ModuleType, game: str) -> None:
    """Assert ``value`` is a generated model of the game (``<Game>...``) or one all games share."""
    prefix = game[:1].upper() + game[1:]
    assert type(value).__module__.startswith("bazaar_client.models"), type(value)
    assert type(value).__name__.startswith(prefix) or type(value) in shared_models(models), type(value)


def shared_models(models: ModuleType) -> tuple[type, ...]:
    """The generated models every game shares (the schemas alike in every game)."""
    return (models.Resign, models.SeatResigned, models.SeatTimedOut, models.ClockStamped, models.ClockStarted)


async def check_history(client: Any, game_id: str, game: str, version: int) -> None:
    """The finished game's events and a past view come back as the game's own generated models."""
    models = importlib.import_module("bazaar_client.models")
    get_events = importlib.import_module("bazaar_client.api.games.get_events")
    get_state_at = importlib.import_module("bazaar_client.api.games.get_state_at")
    page = await get_events.asyncio(client=client, game_id=game_id)
    assert isinstance(page, models.EventPage), page
    assert len(page.events) == version
    for event in page.events:
        typed(event, models, game)  # e.g. BasariEventOut, told apart by its ``game``
        typed(event.data, models, game)  # e.g. BasariGameStarted, told apart by its ``type``
    past = await get_state_at.asyncio(client=client, game_id=game_id, at=1)
    typed(past, models, game)
    typed(past.view, models, game)


async def play(python_client: ModuleType, base: str, game: str, seed: int) -> int:
    """A bot on the generated client: create a game, then, as every seat that must act, post a random
    entry of its typed ``legal`` (each of which must be a body POST /commands accepts) until the game is
    finished, the last seat to act resigning when a stand-in may finish for it; the commands sent."""
    client_module = importlib.import_module("bazaar_client.client")
    models = importlib.import_module("bazaar_client.models")
    create_game = importlib.import_module("bazaar_client.api.games.create_game")
    get_game = importlib.import_module("bazaar_client.api.games.get_game")
    post_command = importlib.import_module("bazaar_client.api.games.post_command")
    accepted_bodies = body_types(python_client)
    spectator = client_module.Client(base_url=base)
    created = await create_game.asyncio(
        client=spectator,
        body=models.CreateGame(
            game=game,
            players=[models.PlayerIn(name=f"bot-{i}") for i in range(PLAYERS[game])],
            seed=str(seed),
        ),
    )
    assert isinstance(created, models.GameCreated), created
    seats = {
        seat.seat: client_module.AuthenticatedClient(base_url=base, token=seat.token)
        for seat in created.seats
    }
    rng = random.Random(seed)
    sent = 0
    resigned = False
    while sent < MAX_COMMANDS:
        detail = await get_game.asyncio(client=spectator, game_id=created.game_id)
        assert type(detail).__name__ == game[:1].upper() + game[1:] + "GameDetail", detail
        assert detail.legal == [], "a spectator has no commands"
        typed(detail.view, models, game)
        if detail.status == "finished":
            assert detail.result is not None and isinstance(detail.result, models.Result)
            await check_history(spectator, created.game_id, game, detail.version)
            assert resigned
            return sent
        for pending in detail.pending:
            mine = await get_game.asyncio(client=seats[pending.seat], game_id=created.game_id)
            for entry in mine.legal:  # every entry is a ready body, as the body's annotation types it
                assert isinstance(entry, accepted_bodies), (
                    f"{type(entry).__name__} is no body of POST /commands"
                )
                typed(entry, models, game)
            resign = [e for e in mine.legal if isinstance(e, models.Resign)]
            decisions = [e for e in mine.legal if not isinstance(e, models.Resign)]
            assert resign, "every seat of a running game may resign"
            # the game ends by play, but one seat of each game resigns late on (its stand-in plays on)
            entry = resign[0] if not resigned and sent >= 30 and pending.seat == 0 else rng.choice(decisions)
            resigned = resigned or isinstance(entry, models.Resign)
            accepted = await post_command.asyncio(
                client=seats[pending.seat], game_id=created.game_id, body=entry
            )
            assert isinstance(accepted, models.CommandAccepted), accepted
            sent += 1
            break
    raise AssertionError(f"{game} did not finish within {MAX_COMMANDS} commands")


@pytest.mark.parametrize("game", sorted(PLAYERS))
async def test_a_bot_on_the_generated_client_plays_a_whole_game(
    python_client: ModuleType, server: str, game: str
) -> None:
    sent = await play(python_client, server, game, seed=16)
    assert sent > 0
