"""B-11 with a resignation, as the game service shows it, on the in-memory twins: the score sheet, the game's
``result`` and the export name the same winner, the best seat still playing, even when the resigned seat has
the most points (docs/api.md, resigning)."""

from __future__ import annotations

from typing import Any

import msgspec

from domain.registry import all_games
from eventstore import InMemoryEventStore, InMemoryKeyStore
from service.games.service import GameService
from tests.support.finished_games import resigned_top_scorer


def as_json(document: object) -> Any:
    """A document as its JSON answer carries it."""
    return msgspec.json.decode(msgspec.json.encode(document))


async def test_sheet_result_and_export_name_the_best_seat_still_playing() -> None:
    """The resigned top scorer wins nowhere: every view of the finished game names the same winner."""
    service = GameService(InMemoryEventStore(), InMemoryKeyStore(), all_games())
    players = [f"top-{seat}" for seat in range(5)]
    game_id, quitter = await resigned_top_scorer(service, players)
    result = service.queries.detail(await service.loader.load(game_id), None).result
    assert result is not None
    assert result.scores[quitter] == max(result.scores) and quitter not in result.winners
    winners = [players[seat] for seat in result.winners]

    sheet = await service.queries.scoresheet(game_id)
    assert sheet.final and sheet.winners == winners
    assert sheet.rows[-2][:2] == ["resigned", players[quitter]]
    assert sheet.rows[-1][:2] == ["winners", ", ".join(winners)]

    export = await service.exporter.export(game_id)
    assert export.result == result
    exported = as_json(export.scoresheet)
    assert exported["winners"] == winners and exported["rows"] == as_json(sheet)["rows"]
