"""Flow: seat a round once the last is over, attach its games, record each game once, close, complete."""

from __future__ import annotations

import msgspec
import pytest

from domain.core import Event, Rng, commitment
from domain.tournament import (
    EVENT_TYPE,
    TOURNAMENT,
    AttachGames,
    GameFinished,
    RecordGame,
    RoundClosed,
    SeatNextRound,
    TournamentCompleted,
    awaiting_games,
    overview,
    results,
    standings,
    status,
)
from tests.unit.tournament.scenario import Run, create, fold, given


def seated(count: int = 9, rounds: int = 2) -> Run:
    """A tournament at tables of 3 with round 1 seated and its games created."""
    run = Run(create(count, rounds=rounds, table_size=3))
    run.seat()
    return run


def record(run: Run, **change: object) -> RecordGame:
    """A valid report of round 1 table 1 (ranks 1, 2, 3), with fields changed."""
    table = run.state.rounds[0].tables[0]
    assert table.game_id is not None
    command = RecordGame(
        round=1, table=1, game_id=table.game_id, ranks=(1, 2, 3), scores=(30, 20, 10), audit_head="abc"
    )
    return msgspec.structs.replace(command, **change)


def test_the_next_round_waits_for_every_game_of_the_current_one() -> None:
    run = seated()
    given(run.events).when(SeatNextRound()).rejects("round_in_progress")
    run.report(1, 1, [1, 2, 3])
    run.report(1, 2, [1, 2, 3])
    given(run.events).when(SeatNextRound()).rejects("round_in_progress")
    run.report(1, 3, [1, 2, 3])
    given(run.events).when(SeatNextRound()).then()


def test_a_round_whose_games_are_not_created_is_in_progress() -> None:
    run = Run(create(9))
    run.apply(SeatNextRound())
    assert status(run.state) == "seating"
    assert awaiting_games(run.state) == run.state.rounds[0]
    given(run.events).when(SeatNextRound()).rejects("round_in_progress")


def test_no_round_after_the_last() -> None:
    run = Run(create(6, rounds=1))
    run.seat()
    run.report(1, 1, [1, 2, 3])
    assert run.report(1, 2, [1, 2, 3])[-2:] == [RoundClosed(round=1), TournamentCompleted()]
    given(run.events).when(SeatNextRound()).rejects("tournament_complete")


def test_the_last_report_of_a_round_closes_it() -> None:
    run = seated(rounds=2)
    assert [type(e) for e in run.report(1, 2, [1, 2, 3])] == [GameFinished]
    assert [type(e) for e in run.report(1, 1, [1, 2, 3])] == [GameFinished]
    assert run.report(1, 3, [2, 1, 3]) == [
        GameFinished(
            round=1,
            table=3,
            game_id="game-1-3",
            ranks=(2, 1, 3),
            scores=(8, 9, 7),
            audit_head="head-1-3",
        ),
        RoundClosed(round=1),
    ]
    assert run.state.rounds[0].closed and not run.state.completed
    assert status(run.state) == "ready"


def test_unknown_table_is_refused() -> None:
    run = seated()
    given(run.events).when(record(run, table=4)).rejects("unknown_table")
    given(run.events).when(record(run, table=0)).rejects("unknown_table")


def test_unknown_round_is_refused() -> None:
    run = seated()
    given(run.events).when(record(run, round=2)).rejects("unknown_round")


def test_a_game_is_reported_once() -> None:
    run = seated()
    run.apply(record(run))
    given(run.events).when(record(run)).rejects("duplicate_report")
    given(run.events).when(record(run, ranks=(3, 2, 1))).rejects("duplicate_report")


def test_the_report_must_name_the_tables_game() -> None:
    run = seated()
    given(run.events).when(record(run, game_id="game-1-2")).rejects("wrong_game")


def test_a_report_before_the_games_exist_is_refused() -> None:
    run = Run(create(9))
    run.apply(SeatNextRound())
    command = RecordGame(round=1, table=1, game_id="x", ranks=(1, 2, 3), scores=(0, 0, 0), audit_head="h")
    given(run.events).when(command).rejects("wrong_game")


@pytest.mark.parametrize(
    ("ranks", "scores", "code"),
    [
        ((1, 2), (1, 2, 3), "wrong_seat_count"),
        ((1, 2, 3), (1, 2), "wrong_seat_count"),
        ((1, 2, 4), (1, 2, 3), "bad_ranks"),
        ((0, 1, 2), (1, 2, 3), "bad_ranks"),
        ((2, 2, 3), (1, 2, 3), "bad_ranks"),
    ],
)
def test_one_rank_and_score_per_seat(ranks: tuple[int, ...], scores: tuple[int, ...], code: str) -> None:
    run = seated()
    given(run.events).when(record(run, ranks=ranks, scores=scores)).rejects(code)


def test_ties_are_accepted() -> None:
    run = seated()
    given(run.events).when(record(run, ranks=(1, 1, 1))).then()


def test_games_are_attached_once_one_per_table() -> None:
    run = Run(create(9, table_size=3))
    run.apply(SeatNextRound())
    given(run.events).when(AttachGames(round=2, game_ids=("a", "b", "c"))).rejects("unknown_round")
    given(run.events).when(AttachGames(round=1, game_ids=("a", "b"))).rejects("wrong_game_count")
    given(run.events).when(AttachGames(round=1, game_ids=("a", "b", "a"))).rejects("bad_game_ids")
    given(run.events).when(AttachGames(round=1, game_ids=("a", "b", ""))).rejects("bad_game_ids")
    run.apply(AttachGames(round=1, game_ids=("a", "b", "c")))
    assert [t.game_id for t in run.state.rounds[0].tables] == ["a", "b", "c"]
    assert awaiting_games(run.state) is None and status(run.state) == "playing"
    given(run.events).when(AttachGames(round=1, game_ids=("d", "e", "f"))).rejects("games_already_created")


def play_out(count: int, rounds: int, *, duplicate: bool = False, table_size: int | None = None) -> Run:
    """A whole tournament with random results."""
    run = Run(create(count, rounds=rounds, duplicate=duplicate, table_size=table_size))
    rng = Rng("results", f"{count}-{rounds}")
    for _ in range(rounds):
        run.play_round(rng)
    return run


@pytest.mark.parametrize(
    ("count", "rounds", "duplicate", "table_size"),
    [(9, 4, False, None), (11, 3, False, None), (12, 3, True, 4), (23, 5, False, 4), (40, 4, False, None)],
)
def test_replay_equals_incremental_state(
    count: int, rounds: int, duplicate: bool, table_size: int | None
) -> None:
    run = play_out(count, rounds, duplicate=duplicate, table_size=table_size)
    assert run.state.completed and status(run.state) == "completed"
    assert fold(run.events) == run.state
    # the whole history survives JSON through the one tagged union
    encoded = [msgspec.json.encode(event) for event in run.events]
    decoded: list[Event] = [msgspec.json.decode(data, type=EVENT_TYPE) for data in encoded]
    assert decoded == run.events
    assert fold(decoded) == run.state
    assert len(results(run.state)) == sum(len(r.tables) for r in run.state.rounds)
    assert sum(row.games for row in standings(run.state)) == count * rounds
    total_points = sum(row.points for row in standings(run.state))
    assert total_points == sum(
        len(t.players) * (len(t.players) - 1) / 2 for r in run.state.rounds for t in r.tables
    )


def test_event_json_is_tagged_by_type() -> None:
    run = play_out(6, 1)
    tags = [msgspec.json.decode(msgspec.json.encode(e))["type"] for e in run.events]
    assert tags[:3] == ["tournament_created", "round_seated", "games_created"]
    assert tags[-2:] == ["round_closed", "tournament_completed"]


def test_evolve_ignores_an_event_that_matches_nothing() -> None:
    run = seated()
    stray = GameFinished(round=7, table=1, game_id="g", ranks=(1,), scores=(0,), audit_head="h")
    assert TOURNAMENT.evolve(run.state, stray) == run.state


def test_overview_shows_rounds_tables_and_games_and_only_the_commitments_to_their_seeds() -> None:
    run = seated()
    run.report(1, 2, [1, 2, 3])
    view = overview(run.state)
    assert (view.status, view.rounds, view.current_round, view.table_sizes) == ("playing", 2, 1, (3, 3, 3))
    table = view.schedule[0].tables[1]
    assert table.game_id == "game-1-2" and table.finished
    assert [s.seat for s in table.seats] == [0, 1, 2]
    shown = msgspec.json.decode(msgspec.json.encode(view))["schedule"][0]["tables"][0]
    assert "seed" not in shown
    assert shown["seed_commitment"] == commitment(run.state.rounds[0].tables[0].seed)
    assert run.state.rounds[0].tables[0].seed.encode() not in msgspec.json.encode(view)
    assert view.seed is None and view.seed_commitment == commitment(run.state.seed)
    assert run.state.seed.encode() not in msgspec.json.encode(view)
    assert overview(fold([])).status == "new"
