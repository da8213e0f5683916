"""Tournament administration: withdrawal, late entry, byes, termination, adjudication; each an event
of the tournament's stream, seen in its standings, results and overview."""

from __future__ import annotations

import msgspec
import pytest

from domain.core import Rng
from domain.tournament import (
    AdjudicateGame,
    EnterPlayer,
    GameAdjudicated,
    PlayerEntered,
    PlayerWithdrawn,
    RecordGame,
    RoundClosed,
    SeatNextRound,
    TerminateTournament,
    TournamentCompleted,
    TournamentTerminated,
    WithdrawPlayer,
    bye_counts,
    overview,
    results,
    round_tables,
    standings,
    status,
)
from domain.tournament.standings import tallies
from tests.unit.tournament.scenario import Run, create, given


def seated_players(run: Run, round_number: int) -> list[str]:
    """Every player seated at a table of that round."""
    return [name for table in run.state.rounds[round_number - 1].tables for name in table.players]


def adjudication(run: Run, table: int, ranks: tuple[int, ...]) -> AdjudicateGame:
    """An adjudication of a table of the current round with these ranks (scores: 10 minus rank)."""
    rnd = run.state.rounds[-1]
    game_id = rnd.tables[table - 1].game_id
    assert game_id is not None
    return AdjudicateGame(
        round=rnd.round,
        table=table,
        game_id=game_id,
        ranks=ranks,
        scores=tuple(10 - r for r in ranks),
        audit_head=f"adjudicated-{rnd.round}-{table}",
    )


# ----------------------------------------------------------------- withdrawal


def test_a_withdrawal_is_an_event_naming_the_rounds_seated_so_far() -> None:
    run = Run(create(9, table_size=3))
    run.seat()
    given(run.events).when(WithdrawPlayer(name="P04")).then([PlayerWithdrawn(name="P04", round=1)])


def test_later_rounds_skip_a_withdrawn_player_and_reseat_the_rest() -> None:
    run = Run(create(9, rounds=3, table_size=3))
    run.play_round(Rng("withdraw", "r1"))
    run.apply(WithdrawPlayer(name="P04"))
    run.play_round(Rng("withdraw", "r2"))
    assert sorted(seated_players(run, 2)) == sorted(set(run.state.players) - {"P04"})
    # 8 players at a preferred 3 (Basari 3-5): two tables of 4
    assert [len(t.players) for t in run.state.rounds[1].tables] == [4, 4]
    assert run.state.rounds[1].byes == ()


def test_a_withdrawn_player_keeps_their_points_and_is_marked_in_the_standings() -> None:
    run = Run(create(9, rounds=2, table_size=3))
    run.seat()
    for table in run.state.rounds[0].tables:
        run.report(1, table.table, [1, 2, 3])
    winner = run.state.rounds[0].tables[0].players[0]
    run.apply(WithdrawPlayer(name=winner))
    row = next(r for r in standings(run.state) if r.name == winner)
    assert (row.points, row.games, row.withdrawn) == (2.0, 1, True)
    assert overview(run.state).withdrawn == (winner,)
    assert not any(r.withdrawn for r in standings(run.state) if r.name != winner)


def test_a_player_withdrawn_mid_round_keeps_the_result_of_their_running_game() -> None:
    run = Run(create(9, rounds=2, table_size=3))
    run.seat()
    leaver = run.state.rounds[0].tables[1].players[2]
    run.apply(WithdrawPlayer(name=leaver))
    run.report(1, 1, [1, 2, 3])
    run.report(1, 2, [1, 2, 3])  # their game ends, the stand-in having played their seat
    run.report(1, 3, [1, 2, 3])
    assert run.state.rounds[0].closed
    assert next(r for r in standings(run.state) if r.name == leaver).games == 1


def test_withdrawing_twice_or_a_stranger_is_refused() -> None:
    run = Run(create(9, table_size=3))
    run.apply(WithdrawPlayer(name="P01"))
    given(run.events).when(WithdrawPlayer(name="P01")).rejects("already_withdrawn")
    given(run.events).when(WithdrawPlayer(name="Nobody")).rejects("unknown_player")


def test_withdrawals_that_leave_too_few_for_a_table_stop_the_seating() -> None:
    run = Run(create(3, rounds=2))
    run.apply(WithdrawPlayer(name="P01"))
    given(run.events).when(SeatNextRound()).rejects("too_few_players")
    # the organizer can still end it
    given(run.events).when(TerminateTournament()).then([TournamentTerminated(round=0)])


# ----------------------------------------------------------------- late entry


def test_a_late_entry_plays_from_the_next_round_with_nothing_for_the_rounds_missed() -> None:
    run = Run(create(9, rounds=3, table_size=3))
    run.play_round(Rng("late", "r1"))
    given(run.events).when(EnterPlayer(name="  Late  ")).then([PlayerEntered(name="Late", round=2)])
    run.apply(EnterPlayer(name="Late"))
    row = next(r for r in standings(run.state) if r.name == "Late")
    assert (row.points, row.games) == (0.0, 0)
    run.play_round(Rng("late", "r2"))
    assert "Late" in seated_players(run, 2)
    # 10 players at a preferred 3: tables of 4, 3 and 3
    assert [len(t.players) for t in run.state.rounds[1].tables] == [4, 3, 3]
    assert overview(run.state).entered == ("Late",)
    assert overview(run.state).players[-1] == "Late"


def test_a_late_entry_during_a_round_waits_for_the_next() -> None:
    run = Run(create(9, rounds=2, table_size=3))
    run.seat()
    run.apply(EnterPlayer(name="Late"))
    assert "Late" not in seated_players(run, 1)
    assert run.events[-1] == PlayerEntered(name="Late", round=2)


def test_late_entry_refusals() -> None:
    run = Run(create(9, rounds=1, table_size=3))
    given(run.events).when(EnterPlayer(name="P03")).rejects("duplicate_player_name")
    given(run.events).when(EnterPlayer(name=" ")).rejects("bad_player_name")
    given(run.events).when(EnterPlayer(name="x" * 41)).rejects("bad_player_name")
    given(run.events).when(EnterPlayer(name="\u3164")).rejects("bad_player_name")  # a blank Hangul filler
    run.seat()
    given(run.events).when(EnterPlayer(name="Late")).rejects("no_rounds_left")


def test_a_late_entry_follows_the_rules_of_an_account_name() -> None:
    """The same rules as signing up (domain/names.py): letters, digits, spaces and ``._-`` in NFKC form, at
    most two combining marks on a letter, and no name that looks like a player's (case or script aside)."""
    run = Run(create(9, rounds=2, table_size=3))
    for refused in ("Late!", "a\u0301\u0301\u0301b", "  x  y  ", "\u200bLate"):
        given(run.events).when(EnterPlayer(name=refused)).rejects("bad_player_name")
    for alike in ("p03", "P0\u0417", "\u0420\u041e3"):  # case; a Cyrillic Ze for 3; Cyrillic Er and O
        given(run.events).when(EnterPlayer(name=alike)).rejects("duplicate_player_name")
    fullwidth = "\uff2c\uff41\uff54\uff45"  # "Late" in full-width letters: NFKC makes it "Late"
    given(run.events).when(EnterPlayer(name=fullwidth)).then([PlayerEntered(name="Late", round=1)])
    given(run.events).when(EnterPlayer(name="a\u0301\u0301b")).then(
        [PlayerEntered(name="\u00e1\u0301b", round=1)]  # in NFKC form, the first mark composed
    )


def test_a_withdrawn_name_cannot_enter_again() -> None:
    run = Run(create(9, rounds=2, table_size=3))
    run.apply(WithdrawPlayer(name="P02"))
    given(run.events).when(EnterPlayer(name="P02")).rejects("duplicate_player_name")


# ----------------------------------------------------------------- byes


def duplicate_of_eight() -> Run:
    """A duplicate Basari-like tournament of 8 at two tables of 4 (equal tables needed every round)."""
    return Run(create(8, rounds=4, table_size=4, duplicate=True))


def test_a_count_that_cannot_be_seated_gives_the_fewest_byes_that_can() -> None:
    run = duplicate_of_eight()
    run.apply(WithdrawPlayer(name="P08"))
    # 7 cannot sit at equal tables of 3-5; 6 can: 3 + 3 and one bye
    assert round_tables(run.state) == ([3, 3], 1)
    run.play_round(Rng("byes", "r1"))
    rnd = run.state.rounds[0]
    assert len(rnd.byes) == 1
    assert sorted(seated_players(run, 1) + list(rnd.byes)) == sorted(run.state.active())
    assert overview(run.state).schedule[0].byes == rnd.byes


def test_a_bye_scores_half_the_points_of_the_rounds_largest_table_and_is_no_game() -> None:
    run = duplicate_of_eight()
    run.apply(WithdrawPlayer(name="P08"))
    run.play_round(Rng("byes", "r1"))
    (bye,) = run.state.rounds[0].byes
    row = next(r for r in standings(run.state) if r.name == bye)
    # tables of 3: a bye is worth (3 - 1) / 2 = 1 point
    assert (row.points, row.games, row.byes, row.firsts, row.buchholz) == (1.0, 0, 1, 0, 0.0)


def test_the_bye_goes_to_the_lowest_in_the_standings_and_never_twice_before_everyone_had_one() -> None:
    run = duplicate_of_eight()
    run.apply(WithdrawPlayer(name="P08"))
    for number in range(1, 5):
        totals = tallies(run.state)
        had = bye_counts(run.state)
        run.play_round(Rng("rotation", f"r{number}"))
        (bye,) = run.state.rounds[-1].byes
        fewest = min(had[name] for name in run.state.active())
        assert had[bye] == fewest
        # nobody with as few byes stood lower in the standings before the round
        assert all(
            totals[name].key() <= totals[bye].key() for name in run.state.active() if had[name] == fewest
        )
    had = bye_counts(run.state)
    assert sorted(had.values()) == [1, 1, 1, 1]


def test_no_bye_while_the_players_of_the_creation_play() -> None:
    run = Run(create(11, rounds=3))
    for number in (1, 2, 3):
        run.play_round(Rng("no-byes", f"r{number}"))
        assert run.state.rounds[-1].byes == ()


# ----------------------------------------------------------------- termination


def test_termination_ends_the_tournament_with_its_standings_as_they_stand() -> None:
    run = Run(create(9, rounds=3, table_size=3))
    run.play_round(Rng("terminate", "r1"))
    before = standings(run.state)
    given(run.events).when(TerminateTournament()).then([TournamentTerminated(round=1)])
    run.apply(TerminateTournament())
    assert status(run.state) == "terminated"
    assert standings(run.state) == before
    given(run.events).when(SeatNextRound()).rejects("tournament_terminated")
    given(run.events).when(TerminateTournament()).rejects("tournament_terminated")
    given(run.events).when(WithdrawPlayer(name="P01")).rejects("tournament_terminated")
    given(run.events).when(EnterPlayer(name="Late")).rejects("tournament_terminated")


def test_a_game_finishing_after_termination_no_longer_counts() -> None:
    run = Run(create(9, rounds=3, table_size=3))
    run.seat()
    run.report(1, 1, [1, 2, 3])
    run.apply(TerminateTournament())
    given(run.events).when(SeatNextRound()).rejects("tournament_terminated")
    table = run.state.rounds[0].tables[1]
    assert table.game_id is not None
    report = RecordGame(
        round=1, table=2, game_id=table.game_id, ranks=(1, 2, 3), scores=(3, 2, 1), audit_head="h"
    )
    given(run.events).when(report).rejects("tournament_terminated")
    assert len(results(run.state)) == 1


def test_a_completed_tournament_cannot_be_terminated() -> None:
    run = Run(create(6, rounds=1, table_size=3))
    run.play_round(Rng("complete", "r1"))
    given(run.events).when(TerminateTournament()).rejects("tournament_complete")


# ----------------------------------------------------------------- adjudication


def test_adjudicating_the_last_open_game_closes_the_round_and_completes_the_last() -> None:
    run = Run(create(6, rounds=1, table_size=3))
    run.seat()
    run.report(1, 1, [1, 2, 3])
    command = adjudication(run, 2, (2, 1, 3))
    given(run.events).when(command).then(
        [
            GameAdjudicated(
                round=1,
                table=2,
                game_id=command.game_id,
                ranks=(2, 1, 3),
                scores=(8, 9, 7),
                audit_head="adjudicated-1-2",
            ),
            RoundClosed(round=1),
            TournamentCompleted(),
        ]
    )


def test_an_adjudicated_game_counts_and_is_marked_in_results_and_overview() -> None:
    run = Run(create(6, rounds=2, table_size=3))
    run.seat()
    run.apply(adjudication(run, 1, (1, 1, 3)))
    rows = results(run.state)
    assert [(r.table, r.adjudicated) for r in rows] == [(1, True)]
    assert [s.rank for s in rows[0].seats] == [1, 1, 3]
    assert overview(run.state).schedule[0].tables[0].adjudicated
    assert not overview(run.state).schedule[0].tables[1].adjudicated
    first = run.state.rounds[0].tables[0].players[0]
    assert next(r for r in standings(run.state) if r.name == first).points == 1.5
    # the round goes on until its other table has finished
    given(run.events).when(SeatNextRound()).rejects("round_in_progress")


def test_a_decided_game_is_neither_adjudicated_nor_reported_again() -> None:
    run = Run(create(6, rounds=2, table_size=3))
    run.seat()
    run.report(1, 1, [1, 2, 3])
    given(run.events).when(adjudication(run, 1, (1, 2, 3))).rejects("game_already_decided")
    run.apply(adjudication(run, 2, (1, 2, 3)))
    table = run.state.rounds[0].tables[1]
    assert table.game_id is not None
    late = RecordGame(
        round=1, table=2, game_id=table.game_id, ranks=(3, 2, 1), scores=(1, 2, 3), audit_head="h"
    )
    given(run.events).when(late).rejects("duplicate_report")


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"round": 2}, "unknown_round"),
        ({"table": 9}, "unknown_table"),
        ({"game_id": "elsewhere"}, "wrong_game"),
        ({"ranks": (1, 2)}, "wrong_seat_count"),
        ({"ranks": (2, 2, 3)}, "bad_ranks"),
    ],
)
def test_an_adjudication_that_names_no_open_game_is_refused(change: dict[str, object], code: str) -> None:
    run = Run(create(6, rounds=2, table_size=3))
    run.seat()
    given(run.events).when(msgspec.structs.replace(adjudication(run, 1, (1, 2, 3)), **change)).rejects(code)
