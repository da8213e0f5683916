"""Random legal play of every registered game (the shape of OpenSpiel's ``random_sim_test``).

Each game is played to its end many times from seeds, a pending seat at random posting a random entry of
its ``legal`` list (``tests.support.random_play.play_randomly``). Every game, every time:

- every chosen legal command is accepted, and in the ``all legal`` runs every entry of every pending
  seat's list is too;
- after every event the game's own invariants hold (``Profile.invariant``, tests/support/profiles.py:
  conservation of its pieces and whatever else its rulings promise); after every command ``pending``
  and ``legal`` agree (exactly the pending seats have a decision to send) and every seat may resign
  while the game runs;
- the game ends within the profile's command budget; replaying every event gives the incremental state,
  and the events survive a JSON round trip through the game's event union;
- at the end the result ranks every seat (the rank-1 seats are the winners, but for an unsolved
  solitaire), the score sheet is final, every view encodes, and the game's history checks hold
  (``Profile.history``: its stages, days or redaction).

A game added to ``domain/registry.py`` without a profile here fails ``test_every_registered_game_has_a_profile``.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from domain.core import Game
from domain.registry import all_games
from tests.support.profiles import PROFILES, Run, pending_and_legal_agree
from tests.support.random_play import play_randomly

GAMES = all_games()
CASES = [
    pytest.param(name, run, id=f"{name}-{run.seed}")
    for name, profile in PROFILES.items()
    for run in profile.runs
]


def test_every_registered_game_has_a_profile() -> None:
    """Every game the service offers is played at random here, at every player count it allows."""
    assert set(PROFILES) == set(GAMES)
    for name, profile in PROFILES.items():
        game = GAMES[name]
        assert {run.players for run in profile.runs} == set(range(game.min_players, game.max_players + 1))


def check_end(game: Game[Any], state: Any, players: int) -> None:
    """The result ranks every seat, its rank-1 seats are its winners (none in an unsolved solitaire); the
    sheet is final; every view encodes."""
    assert game.is_over(state)
    result = game.result(state)
    assert len(result.scores) == len(result.ranks) == players
    assert min(result.ranks) == 1
    # the rank-1 seats win, except in an unsolved solitaire, which nobody wins (Z-12)
    firsts = set() if result.solved is False else {s for s, r in enumerate(result.ranks) if r == 1}
    assert set(result.winners) == firsts
    assert game.scoresheet(state).final
    for seat in [None, *range(players)]:
        msgspec.json.encode(game.view(state, seat))


@pytest.mark.parametrize(("name", "run"), CASES)
def test_random_play(name: str, run: Run) -> None:
    """Random legal play to the end, every check of this module's docstring on the way and at the end."""
    game, profile = GAMES[name], PROFILES[name]
    played = play_randomly(
        game,
        run.players,
        run.seed,
        run.options,
        invariant=lambda state: profile.invariant(game, state),
        max_commands=profile.max_commands,
        check_all_legal=run.all_legal,
        after_command=lambda state: pending_and_legal_agree(game, state),
    )
    check_end(game, played.state, run.players)
    profile.history(game, played.events, played.state, run.players)
