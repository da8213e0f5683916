"""The tournament's seating and adjudication are the decider's: decided from the stream's state and the facts
the command carries (a game's result, whether it finished by itself or by adjudication), never from what the
caller chose, so replaying a tournament re-decides it the same way. No database."""

from __future__ import annotations

import msgspec
import pytest

from domain.core import Rng
from domain.tournament import (
    TOURNAMENT,
    AdjudicateGame,
    RecordGame,
    RoundSeated,
    SeatNextRound,
    State,
    TerminateTournament,
    WithdrawPlayer,
    forfeited_seats,
    seating_rng,
    table_of_game,
)
from tests.unit.tournament.scenario import Run, create, fold, given


def report_of(run: Run, round_number: int, table: int, *, adjudicated: bool = False) -> RecordGame:
    """A report of a table's game with ranks in seat order (1, 2, ...)."""
    seated = run.state.rounds[round_number - 1].tables[table - 1]
    assert seated.game_id is not None
    ranks = tuple(range(1, len(seated.players) + 1))
    return RecordGame(
        round=round_number,
        table=table,
        game_id=seated.game_id,
        ranks=ranks,
        scores=ranks,
        audit_head="head",
        adjudicated=adjudicated,
    )


def adjudication_of(run: Run, table: int, *, played_out: bool) -> AdjudicateGame:
    """An adjudication of a table of the current round, with the ranks and scores of ``report_of``."""
    fields = msgspec.structs.asdict(report_of(run, len(run.state.rounds), table))
    del fields["adjudicated"]
    return AdjudicateGame(**fields, played_out=played_out)


# ----------------------------------------------------------------- seating


@pytest.mark.parametrize("rounds_played", [0, 1, 2])
def test_a_seating_draws_from_the_tournament_seed_whatever_rng_the_caller_hands_in(
    rounds_played: int,
) -> None:
    run = Run(create(9, rounds=4))
    for number in range(rounds_played):
        run.play_round(Rng("results", str(number)))
    expected = TOURNAMENT.decide(run.state, SeatNextRound(), seating_rng(run.state))
    for caller in (Rng("", "seat"), Rng("another seed", "round-1"), Rng(run.state.seed, "administer")):
        assert TOURNAMENT.decide(run.state, SeatNextRound(), caller) == expected


def test_replaying_a_tournament_re_decides_every_seating_and_bye_from_its_events() -> None:
    run = Run(create(9, rounds=4, max_players=3))
    run.play_round(Rng("replay", "r1"))
    run.apply(WithdrawPlayer(name="P03"))  # eight players at tables of three: two byes a round
    for number in (2, 3, 4):
        run.play_round(Rng("replay", f"r{number}"))
    seatings = [(index, e) for index, e in enumerate(run.events) if isinstance(e, RoundSeated)]
    assert [len(seated.byes) for _, seated in seatings] == [0, 2, 2, 2]
    for index, seated in seatings:
        before = fold(run.events[:index])
        assert TOURNAMENT.decide(before, SeatNextRound(), Rng("auditor", "any")) == [seated]


def test_a_different_tournament_seed_seats_round_one_differently() -> None:
    first = Run(create(12, rounds=2, seed="one seed"))
    second = Run(create(12, rounds=2, seed="another seed"))
    seat = SeatNextRound()
    assert TOURNAMENT.decide(first.state, seat, Rng("x", "y")) != TOURNAMENT.decide(
        second.state, seat, Rng("x", "y")
    )


def test_z12_withdrawals_give_byes_never_a_table_of_one() -> None:
    run = Run(create(6, rounds=3, min_players=1, max_players=3, table_size=3))
    run.play_round(Rng("z12", "r1"))
    run.apply(WithdrawPlayer(name="P01"))  # five active players: 3 + 2, not 3 + 1 + 1
    run.apply(WithdrawPlayer(name="P02"))  # four: 2 + 2
    run.apply(WithdrawPlayer(name="P03"))  # three: one table of 3
    run.apply(WithdrawPlayer(name="P04"))  # two: one table of 2
    run.apply(WithdrawPlayer(name="P05"))  # one: no table, no table of one either
    given(run.events).when(SeatNextRound()).rejects("too_few_players")


# ----------------------------------------------------------------- withdrawal: forfeited seats


def test_a_withdrawal_forfeits_the_players_seats_in_running_games_of_the_current_round_only() -> None:
    run = Run(create(9, rounds=3, table_size=3))
    run.seat()
    first, second = run.state.rounds[0].tables[0], run.state.rounds[0].tables[1]
    run.apply(report_of(run, 1, 1))
    assert forfeited_seats(run.state) == []
    run.apply(WithdrawPlayer(name=first.players[0]))  # their game is over: nothing to resign
    run.apply(WithdrawPlayer(name=second.players[2]))
    assert forfeited_seats(run.state) == [(second.game_id, 2)]
    run.apply(report_of(run, 1, 2))
    run.apply(report_of(run, 1, 3))  # the round closes
    assert forfeited_seats(run.state) == []


def test_a_round_without_its_games_forfeits_nothing_yet() -> None:
    run = Run(create(9, rounds=3, table_size=3))
    run.apply(SeatNextRound())
    run.apply(WithdrawPlayer(name=run.state.rounds[0].tables[0].players[1]))
    assert forfeited_seats(run.state) == []
    assert forfeited_seats(State()) == []


# ----------------------------------------------------------------- adjudication


def test_a_game_played_out_is_not_adjudicated_its_own_result_counts() -> None:
    run = Run(create(6, rounds=2, table_size=3))
    run.seat()
    # finished by itself, its report not recorded yet: the table has no result, still refused
    given(run.events).when(adjudication_of(run, 1, played_out=True)).rejects("game_already_decided")
    given(run.events).when(adjudication_of(run, 1, played_out=False)).then()


def test_a_game_played_out_is_refused_as_decided_before_the_tournament_is_found_over() -> None:
    run = Run(create(6, rounds=2, table_size=3))
    run.seat()
    command = adjudication_of(run, 2, played_out=True)
    run.apply(TerminateTournament())
    given(run.events).when(command).rejects("game_already_decided")
    given(run.events).when(msgspec.structs.replace(command, played_out=False)).rejects(
        "tournament_terminated"
    )


def test_an_adjudicated_game_is_not_reported_its_adjudication_records_it() -> None:
    run = Run(create(6, rounds=2, table_size=3))
    run.seat()
    # ended by adjudication, the adjudication not appended yet (a crash between): no report takes its place
    given(run.events).when(report_of(run, 1, 1, adjudicated=True)).rejects("reported_by_adjudication")
    run.apply(adjudication_of(run, 1, played_out=False))
    given(run.events).when(report_of(run, 1, 1, adjudicated=True)).rejects("reported_by_adjudication")
    run.apply(report_of(run, 1, 2))
    run.apply(TerminateTournament())
    given(run.events).when(report_of(run, 1, 1, adjudicated=True)).rejects("reported_by_adjudication")


def test_a_report_of_a_game_played_out_keeps_its_stored_shape() -> None:
    run = Run(create(6, rounds=2, table_size=3))
    run.seat()
    encoded = msgspec.json.decode(msgspec.json.encode(report_of(run, 1, 1)))
    assert "adjudicated" not in encoded  # the golden recordings hold reports as they always were
    assert encoded["type"] == "record_game"


def test_a_game_is_found_at_its_table_in_any_round() -> None:
    run = Run(create(6, rounds=2, table_size=3))
    run.play_round(Rng("find", "r1"))
    run.seat()
    for rnd in run.state.rounds:
        for table in rnd.tables:
            assert table.game_id is not None
            assert table_of_game(run.state, table.game_id) == (rnd.round, table.table)
    assert table_of_game(run.state, "no such game") is None
