"""The reference external bot (examples/bot.py, standard library only) against the real server: it
signs up as an account of kind bot, follows its notification stream, accepts the invitations it gets and
plays a whole game of each game from ``legal``, with ``If-Match`` and an idempotency key per decision.

The server runs on a database of its own, so only this test's players act in its games."""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from service.runtime.settings import PROJECT_ROOT
from tests.support.bot_games import commands_by_key, play_people

pytestmark = [pytest.mark.e2e, pytest.mark.db]


@pytest.fixture(scope="module")
def example_bot(module_server: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """examples/bot.py running against the server under a new name: (its name, its output file)."""
    name = f"example-{uuid.uuid4().hex[:8]}"
    output = tmp_path_factory.mktemp("example-bot") / "bot.out"
    with open(output, "wb") as sink:
        process = subprocess.Popen(
            [
                sys.executable,
                str(PROJECT_ROOT / "examples" / "bot.py"),
                "--url",
                module_server,
                "--name",
                name,
            ],
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    try:
        yield name, output
    finally:
        process.terminate()
        process.wait(10)


def account(base: str) -> tuple[str, str]:
    """A new human account: (name, token)."""
    name = f"person-{uuid.uuid4().hex[:8]}"
    response = httpx.post(f"{base}/v1/accounts", json={"name": name}, timeout=30)
    assert response.status_code == 201, response.text
    return name, response.json()["token"]


def until_signed_up(base: str, name: str, output: Path) -> None:
    """Wait for the bot's account to exist (the bot signs up as it starts)."""
    for _ in range(600):
        if httpx.get(f"{base}/v1/players/{name}", timeout=30).status_code == 200:
            return
        time.sleep(0.1)
    raise AssertionError(f"the bot never signed up: {output.read_text()}")


@pytest.mark.parametrize(
    ("game", "others"),
    [
        ("johari", []),
        (
            "bazaar",
            [{"bot": "greedy"}],
        ),  # against the server's greedy bot: random players take ages to end it
        ("basari", [{"bot": "random"}]),  # a third seat: the server's own bot
    ],
)
async def test_the_example_bot_plays_a_whole_game(
    module_server: str,
    own_database: str,
    example_bot: tuple[str, Path],
    game: str,
    others: list[dict[str, str]],
) -> None:
    """A person invites the example bot (and sits at the table, or leaves seat 0 to the server's bot); it
    accepts from its notification stream and plays its seat to the end; its commands carry the idempotency key
    ``<game id>-v<version decided on>`` and each was appended right after that version."""
    bot, output = example_bot
    until_signed_up(module_server, bot, output)
    _person, token = account(module_server)
    person = [] if game == "bazaar" else [{"account": "me"}]
    body = {"game": game, "players": [*person, {"invite": bot}, *others]}
    seat = len(person)  # the example bot's
    created = httpx.post(
        f"{module_server}/v1/games", json=body, headers={"Authorization": f"Bearer {token}"}, timeout=30
    )
    assert created.status_code == 201, created.text
    game_id = created.json()["game_id"]
    final = play_people(module_server, game_id, [token] if person else [], seconds=1200)
    assert final["status"] == "finished", output.read_text()
    keys = [key for _, key in await commands_by_key(own_database, game_id)]
    by_bot = [key for key in keys if key.startswith(f"{seat}:")]
    assert by_bot, "the example bot played its seat"
    for version, key in await commands_by_key(own_database, game_id):
        if key.startswith(f"{seat}:"):
            assert key == f"{seat}:{game_id}-v{version - 1}"
