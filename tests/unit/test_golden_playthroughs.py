"""The recorded playthroughs (tests/golden): a seeded game of each game plays, shows and offers exactly what
was recorded: every event, and for the first steps every seat's view, pending decisions and legal commands.

After an intended change of rules, events or views, regenerate them with ``make golden`` (``python -m
tests.golden``) and review the diff as part of the change.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from domain.core import Event, fold
from domain.registry import all_games
from domain.tournament import TOURNAMENT
from tests.golden.record import RECORDINGS, Recording, record
from tests.golden.tournament import TOURNAMENT_RECORDINGS, TournamentRecording, record_tournament

SHOWN = 40  # diff lines shown on a failure
JsonPath = tuple[str | int, ...]


def first_difference(recorded: Any, today: Any, path: JsonPath = ()) -> tuple[JsonPath, Any, Any] | None:
    """Where two JSON documents first differ: the path of keys and indexes, and both values there."""
    if isinstance(recorded, dict) and isinstance(today, dict):
        for key in [*recorded, *(k for k in today if k not in recorded)]:
            found = first_difference(recorded.get(key), today.get(key), (*path, key))
            if found:
                return found
        return None
    if isinstance(recorded, list) and isinstance(today, list) and len(recorded) == len(today):
        for index, (a, b) in enumerate(zip(recorded, today, strict=True)):
            found = first_difference(a, b, (*path, index))
            if found:
                return found
        return None
    return None if recorded == today else (path, recorded, today)


def assert_recorded(path: Path, content: bytes) -> None:
    """The golden file at ``path`` holds ``content``; else fail with a diff of the first lines that changed
    (step, viewer or command, and the JSON that differs)."""
    stored = path.read_text(encoding="utf-8").splitlines()
    today = content.decode().splitlines()
    if stored != today:
        line = next(i for i, (a, b) in enumerate(zip([*stored, ""], [*today, ""], strict=False)) if a != b)
        where = ""
        if line < min(len(stored), len(today)):
            found = first_difference(json.loads(stored[line]), json.loads(today[line]))
            if found:
                at = "/".join(map(str, found[0]))
                where = f"line {line + 1}: at {at} recorded {found[1]!r}, today {found[2]!r}\n"
        diff = list(difflib.unified_diff(stored, today, "recorded", "today", n=0, lineterm=""))
        shown = "\n".join(text[:300] for text in diff[:SHOWN])
        pytest.fail(f"{path.name} differs (if intended: `make golden`, review the diff)\n{where}{shown}")


@pytest.mark.parametrize("recording", RECORDINGS, ids=lambda r: r.path.name)
def test_the_recorded_playthrough_is_what_the_code_plays_today(recording: Recording) -> None:
    """B-1..B-12, Z-1..Z-15, J-1..J-19 as played: a difference is shown as a diff of the first lines that
    changed (step, viewer or command, and the JSON that differs)."""
    assert_recorded(recording.path, record(recording))


@pytest.mark.parametrize("recording", TOURNAMENT_RECORDINGS, ids=lambda r: r.path.name)
def test_the_recorded_tournament_is_what_the_code_plays_today(recording: TournamentRecording) -> None:
    """A tournament as played (seating, Swiss pairing, withdrawal, late entry, reports, standings)."""
    assert_recorded(recording.path, record_tournament(recording))


@pytest.mark.parametrize("recording", TOURNAMENT_RECORDINGS, ids=lambda r: r.path.name)
def test_the_recorded_tournament_events_fold_to_the_recorded_standings(
    recording: TournamentRecording,
) -> None:
    """The file stands alone: its events decode through the tournament's event union and fold to its final
    standings, and every report carries its table game's recorded result."""
    lines = [json.loads(line) for line in recording.path.read_text(encoding="utf-8").splitlines()]
    head, body = lines[0], lines[1:]
    raw = [event for line in body if "command" in line for event in line["events"]]
    events: list[Event] = msgspec.convert(raw, list[TOURNAMENT.event_type])  # type: ignore[name-defined]
    state = fold_tournament(events)
    assert state.over()
    assert json.loads(msgspec.json.encode(TOURNAMENT.standings(state))) == head["standings"]
    games = {line["game_id"]: line["result"] for line in body if "game_id" in line}
    reports = [
        line["command"] for line in body if "command" in line and line["command"]["type"] == "record_game"
    ]
    assert len(reports) == len(games) > 0
    for report in reports:
        assert games[report["game_id"]]["ranks"] == report["ranks"]


def fold_tournament(events: list[Event]) -> Any:
    """The tournament's state after ``events``."""
    state = TOURNAMENT.initial()
    for event in events:
        state = TOURNAMENT.evolve(state, event)
    return state


@pytest.mark.parametrize("recording", RECORDINGS, ids=lambda r: r.path.name)
def test_the_recorded_events_replay_to_the_recorded_result(recording: Recording) -> None:
    """The file stands alone: its events decode through the game's event union and fold to its result."""
    game = all_games()[recording.game]
    lines = [json.loads(line) for line in recording.path.read_text(encoding="utf-8").splitlines()]
    head, body = lines[0], lines[1:]
    raw = [event for line in body if "command" in line for event in line["events"]]
    events: list[Event] = msgspec.convert(raw, list[game.event_type])  # type: ignore[name-defined]
    state = fold(game, events)
    assert game.is_over(state)
    assert json.loads(msgspec.json.encode(game.result(state))) == head["result"]
    assert sum(1 for line in body if "command" in line and line["step"] != 0) == head["commands"]


def test_the_basari_recording_ends_in_a_shared_win_b10() -> None:
    """B-10: this seed ends in a tie for the most points, so two winners (kept from the first golden file)."""
    head = json.loads(RECORDINGS[0].path.read_text(encoding="utf-8").splitlines()[0])
    assert head["game"] == "basari" and len(head["result"]["winners"]) == 2
