"""Resign in every game and player count: the opponent wins a two-player game, solitaire ends
unsolved, in a larger game a stand-in plays the seat to the end and it ranks below every seat that did not
resign (resigned seats by order of resignation, the first to resign last); see ``domain/resign.py``."""

from __future__ import annotations

import random
from typing import Any

import pytest

from domain.core import Event, Game, GameConfig, Rng, fold
from domain.registry import all_games
from domain.resign import Adjudicate, Adjudicated, Resign, SeatResigned, decisions
from tests.support.scenario import given

GAMES = all_games()
COUNTS = [
    (name, n) for name, game in sorted(GAMES.items()) for n in range(game.min_players, game.max_players + 1)
]


def opening(game: Game[Any], players: int, seed: str = "resign") -> list[Event]:
    """A fresh game's opening events."""
    config = GameConfig(players=tuple(f"p{i}" for i in range(players)), options=game.options_type())
    return game.setup(config, Rng(seed, "setup"))


def play_on(game: Game[Any], events: list[Event], chooser: random.Random, commands: int) -> list[Event]:
    """``events`` extended by up to ``commands`` random decisions of pending seats (never a resignation)."""
    events = list(events)
    state = fold(game, events)
    for _ in range(commands):
        if game.is_over(state):
            break
        seat = chooser.choice(game.pending(state)).seat
        new = game.decide(
            state, seat, chooser.choice(decisions(game.legal(state, seat))), Rng("p", str(len(events)))
        )
        state = fold(game, new, state)
        events += new
        assert not any(p.seat in state.resigned for p in game.pending(state)), "a resigned seat is left owing"
    return events


def resign(game: Game[Any], events: list[Event], seat: int) -> list[Event]:
    """``events`` after ``seat`` resigns; the first new event is the resignation, the rest the stand-in's."""
    new = given(game, events).when(seat, Resign()).decide()
    assert new[0] == SeatResigned(seat=seat)
    return events + new


@pytest.mark.parametrize(("name", "players"), COUNTS)
def test_resign_is_legal_any_time_for_every_seat_still_playing(name: str, players: int) -> None:
    """``resign`` is listed for every seat while the game runs, pending or not; refused once resigned."""
    game = GAMES[name]
    events = opening(game, players)
    state = fold(game, events)
    for seat in range(players):
        assert game.legal(state, seat)[-1] == Resign()
    if players >= 3:
        resigned = resign(game, events, 1)
        assert fold(game, resigned) == fold(game, resigned[len(events) :], state)
        assert game.legal(fold(game, resigned), 1) == []
        given(game, resigned).when(1, Resign()).rejects(None, "resigned")


@pytest.mark.parametrize(("name", "players"), [c for c in COUNTS if c[1] == 1])
def test_resigning_solitaire_ends_it_unsolved(name: str, players: int) -> None:
    """A solitaire player who resigns ends the game unsolved: no winner, final score sheet."""
    game = GAMES[name]
    events = play_on(game, opening(game, players), random.Random(1), 5)
    state = given(game, events).when(0, Resign()).then([SeatResigned(seat=0)])
    assert game.is_over(state) and game.pending(state) == [] and game.legal(state, 0) == []
    result = game.result(state)
    assert result.solved is False and result.winners == ()
    sheet = game.scoresheet(state)
    assert sheet.final and sheet.winners == () and sheet.rows[-2][:2] == ("resigned", "p0")
    given(game, [*events, SeatResigned(seat=0)]).when(0, Resign()).rejects(None, "game_over")


@pytest.mark.parametrize(("name", "players"), [c for c in COUNTS if c[1] == 2])
@pytest.mark.parametrize("loser", [0, 1])
def test_resigning_two_player_game_gives_the_opponent_the_win(name: str, players: int, loser: int) -> None:
    """In a two-player game the opponent wins at once, whoever is to move."""
    game = GAMES[name]
    events = play_on(game, opening(game, players), random.Random(loser), 7)
    state = given(game, events).when(loser, Resign()).then([SeatResigned(seat=loser)])
    winner = 1 - loser
    assert game.is_over(state) and game.pending(state) == []
    assert game.legal(state, winner) == [] and game.legal(state, loser) == []
    result = game.result(state)
    assert result.winners == (winner,)
    assert result.ranks[winner] == 1 and result.ranks[loser] == 2
    sheet = game.scoresheet(state)
    assert sheet.final and sheet.winners == (f"p{winner}",)


@pytest.mark.parametrize(("name", "players"), [c for c in COUNTS if c[1] >= 3])
@pytest.mark.parametrize("seed", [0, 1])
def test_resigned_seats_are_played_by_a_stand_in_and_rank_last(name: str, players: int, seed: int) -> None:
    """A larger game goes on with a stand-in for the resigned seats; they rank below every seat
    still playing, the first to resign last; the game still reaches its own end."""
    game = GAMES[name]
    chooser = random.Random(seed)
    events = play_on(game, opening(game, players, f"s{seed}"), chooser, 3)
    events = resign(game, events, 1)  # seat 1 may not owe a decision now: resigning is allowed any time
    events = play_on(game, events, chooser, 40)
    if players >= 4:
        events = resign(game, events, 0)
    events = play_on(game, events, chooser, 50_000)
    state = fold(game, events)
    assert game.is_over(state)
    result = game.result(state)
    resigned = [1, 0] if players >= 4 else [1]
    still = [seat for seat in range(players) if seat not in resigned]
    assert result.ranks[1] == players  # the first to resign ranks last
    if players >= 4:
        assert result.ranks[0] == players - 1
    assert max(result.ranks[seat] for seat in still) <= len(still)
    assert result.winners and set(result.winners) <= set(still)
    rows = [row[:2] for row in game.scoresheet(state).rows]
    assert ("resigned", ", ".join(f"p{seat}" for seat in resigned)) in rows


@pytest.mark.parametrize(("name", "players"), [c for c in COUNTS if c[1] >= 3])
def test_when_all_but_one_resign_the_last_one_wins(name: str, players: int) -> None:
    """The game ends once fewer than two seats play; the last one wins, the others by resignation."""
    game = GAMES[name]
    events = opening(game, players)
    order = list(range(1, players))
    for seat in order[:-1]:
        events = resign(game, events, seat)
        assert not game.is_over(fold(game, events))
    state = given(game, events).when(order[-1], Resign()).then([SeatResigned(seat=order[-1])])
    assert game.is_over(state)
    result = game.result(state)
    assert result.winners == (0,)
    assert result.ranks == (1, *range(players, 1, -1))


@pytest.mark.parametrize(("name", "players"), COUNTS)
def test_an_adjudicated_game_ends_as_it_stands(name: str, players: int) -> None:
    """docs/api.md "Adjudication": ``adjudicate`` ends a running game with ``adjudicated``; its result is
    the one it had the moment before; nothing more is decided in it, nor is it adjudicated twice."""
    game = GAMES[name]
    events = play_on(game, opening(game, players), random.Random(name), 5)
    before = fold(game, events)
    assert not game.is_over(before)
    state = given(game, events).when(0, Adjudicate()).then([Adjudicated()])
    assert game.is_over(state) and game.pending(state) == [] and game.legal(state, 0) == []
    assert game.result(state) == game.result(before)
    ended = [*events, Adjudicated()]
    given(game, ended).when(0, Adjudicate()).rejects(None, "game_over")
    given(game, ended).when(0, Resign()).rejects(None, "game_over")
