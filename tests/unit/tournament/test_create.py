"""Creating a tournament: names, player counts, rounds, table size, table split, duplicate mode, seed."""

from __future__ import annotations

import msgspec
import pytest

from domain.tournament import SeatNextRound, TournamentCreated
from tests.unit.tournament.scenario import create, given, names


def test_a_valid_tournament_is_created_with_its_table_sizes_fixed() -> None:
    state = (
        given([])
        .when(create(10))
        .then(
            [
                TournamentCreated(
                    name="Spring Cup",
                    game="basari",
                    players=names(10),
                    rounds=3,
                    table_sizes=(5, 5),
                    min_players=3,
                    max_players=5,
                    seed="tournament-seed",
                )
            ]
        )
    )
    assert state.created and state.round_count == 3 and state.table_sizes == (5, 5)


def test_names_are_trimmed() -> None:
    state = given([]).when(create(players=(" Ann ", "Bob", "Cy"))).then()
    assert state.players == ("Ann", "Bob", "Cy")


@pytest.mark.parametrize(
    ("players", "code"),
    [
        (("Ann", "Bob", ""), "bad_player_name"),
        (("Ann", "Bob", "   "), "bad_player_name"),
        (("Ann", "Bob", "x" * 41), "bad_player_name"),
        (("Ann", "Bob", "\u200bAnn"), "bad_player_name"),  # a zero-width space: would look like "Ann"
        (("Ann", "Bob", "Cy\u202e"), "bad_player_name"),  # a bidi override
        (("Ann", "Bob", "Ann"), "duplicate_player_name"),
        (("Ann", "Bob", " Bob"), "duplicate_player_name"),
        (("Ann", "Bob"), "bad_player_count"),
    ],
)
def test_player_names_and_count_are_checked(players: tuple[str, ...], code: str) -> None:
    given([]).when(create(players=players)).rejects(code)


def test_a_forty_character_name_is_fine() -> None:
    given([]).when(create(players=("x" * 40, "Bob", "Cy"))).then()


def test_too_many_players_are_refused() -> None:
    given([]).when(create(201)).rejects("bad_player_count")


@pytest.mark.parametrize("rounds", [0, -1, 51])
def test_rounds_must_be_at_least_one(rounds: int) -> None:
    given([]).when(create(rounds=rounds)).rejects("bad_rounds")


@pytest.mark.parametrize("size", [2, 6])
def test_table_size_must_be_within_the_games_range(size: int) -> None:
    given([]).when(create(12, table_size=size)).rejects("bad_table_size")


def test_a_requested_table_size_is_used_where_possible() -> None:
    state = given([]).when(create(12, table_size=3)).then()
    assert state.table_sizes == (3, 3, 3, 3)


def test_players_that_cannot_be_split_into_tables_are_refused() -> None:
    # a game for exactly four: seven players cannot sit
    given([]).when(create(7, min_players=4, max_players=4)).rejects("impossible_table_split")


def test_duplicate_needs_equal_tables() -> None:
    # 11 Basari players sit 4 + 4 + 3 at best: no equal split exists
    given([]).when(create(11, duplicate=True)).rejects("duplicate_needs_equal_tables")


def test_duplicate_picks_an_equal_split_when_one_exists() -> None:
    # 15 players asked for tables of 4 would sit 4 + 4 + 4 + 3; duplicate mode takes 5 + 5 + 5 instead
    state = given([]).when(create(15, table_size=4, duplicate=True)).then()
    assert state.table_sizes == (5, 5, 5)


def test_a_missing_seed_is_drawn_from_the_rng() -> None:
    state = given([]).when(create(seed=None)).then()
    assert len(state.seed) == 64 and int(state.seed, 16) >= 0  # 256 bits, hex
    again = given([]).when(create(seed=None)).then()
    assert again.seed == state.seed  # drawn from the Rng handed in, so reproducible


@pytest.mark.parametrize("seed", ["", "s" * 201])
def test_seed_length_is_checked(seed: str) -> None:
    given([]).when(create(seed=seed)).rejects("bad_seed")


def test_a_tournament_is_created_once() -> None:
    first = given([]).when(create()).decide()
    given(first).when(create()).rejects("tournament_exists")


def test_bad_tournament_name_is_refused() -> None:
    given([]).when(msgspec.structs.replace(create(), name="  ")).rejects("bad_tournament_name")


def test_bad_game_limits_are_refused() -> None:
    given([]).when(create(min_players=4, max_players=3)).rejects("bad_player_limits")


def test_nothing_but_creation_before_creation() -> None:
    given([]).when(SeatNextRound()).rejects("tournament_not_created")


def test_a_game_with_solitaire_never_gets_a_table_of_one_z12() -> None:
    """Z-12: a tournament never has a table of one, though Bazaar seats 1 to 6: one player is refused, a
    table size of 1 is refused, and every field of 2 to 40 is split into tables of at least two."""
    given([]).when(create(players=("Ann",), min_players=1, max_players=6)).rejects("bad_player_count")
    given([]).when(create(6, min_players=1, max_players=6, table_size=1)).rejects("bad_table_size")
    for count in range(2, 41):
        for size in (None, *range(2, 7)):
            state = given([]).when(create(count, min_players=1, max_players=6, table_size=size)).then()
            assert min(state.table_sizes) >= 2, (count, size, state.table_sizes)
