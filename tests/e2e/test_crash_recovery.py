"""The server killed with SIGKILL while clients play: after a restart every acknowledged command is stored,
no command is stored in part or twice, and every game audits clean."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from tests.e2e.conftest import start_server
from tests.support.ledger import (
    assert_audits_clean,
    assert_history_is_the_acknowledged_commands,
    new_ledger,
    play,
    resolve_unanswered,
)

pytestmark = [pytest.mark.e2e, pytest.mark.db]

GAMES = [("basari", 5), ("basari", 3), ("johari", 4), ("johari", 2), ("bazaar", 4), ("bazaar", 1)]


async def test_sigkill_under_load_loses_no_acknowledged_command(database_url: str, tmp_path: Path) -> None:
    process, base = start_server(database_url, log_file=tmp_path / "before.log")
    try:
        async with httpx.AsyncClient(base_url=base, timeout=10) as client:
            ledgers = [
                await new_ledger(client, game, players, seed=f"crash-{i}")
                for i, (game, players) in enumerate(GAMES)
            ]
            stop = asyncio.Event()  # never set: the clients play until the server dies under them
            clients = [
                asyncio.create_task(play(client, ledger, f"crash-play-{i}", stop))
                for i, ledger in enumerate(ledgers)
            ]
            while sum(len(ledger.acknowledged) for ledger in ledgers) < 100:  # well into the load
                await asyncio.sleep(0.05)
            process.kill()  # SIGKILL: no shutdown hook runs, in-flight requests die with the process
            process.wait(10)
            await asyncio.wait_for(asyncio.gather(*clients), 15)
    finally:
        if process.poll() is None:
            process.kill()
    assert not all(ledger.finished for ledger in ledgers), "the load ended before the kill"
    in_flight = sum(len(ledger.unanswered) for ledger in ledgers)

    process, base = start_server(database_url, log_file=tmp_path / "after.log")
    try:
        async with httpx.AsyncClient(base_url=base, timeout=10) as client:
            checked = 0
            for ledger in ledgers:
                await resolve_unanswered(client, ledger)
                checked += await assert_history_is_the_acknowledged_commands(client, ledger)
                await assert_audits_clean(client, ledger)
    finally:
        process.terminate()
        process.wait(10)
    print(f"crash: {checked} events checked, {in_flight} commands were in flight at the kill")
