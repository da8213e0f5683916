"""Z-1..Z-15: the decider's contract: pure decide/evolve, tolerant evolve, typed unions, JSON round trips."""

from __future__ import annotations

import re
import typing

import msgspec
import pytest

from domain.bazaar import GAME
from domain.bazaar.commands import Buy, ChooseColour, DiscardExcess, EndTurn, Roll, Trade
from domain.bazaar.state import State
from domain.bazaar.view import BazaarView
from domain.core import Command, Event, Game, GameConfig, Rng, fold
from tests.support.scenario import given

from .tables import ONE_OF_EACH, act, rolled, table


def test_game_satisfies_the_protocol_z1() -> None:
    """Z-1: GAME is a ``Game`` seating 1 (solitaire) to 6 players."""
    game: Game[State] = GAME
    assert (game.name, game.min_players, game.max_players, game.rules) == ("bazaar", 1, 6, "rules/bazaar.md")
    assert game.view_type is BazaarView


def test_commands_and_events_are_tagged_documented_frozen_structs_z1() -> None:
    """Every command and event: frozen, keyword-only, snake_case tag, one-line docstring."""
    for union, base in ((GAME.command_type, Command), (GAME.event_type, Event)):
        for cls in typing.get_args(union):
            assert issubclass(cls, base)
            config = cls.__struct_config__
            assert config.frozen and re.fullmatch(r"[a-z]+(_[a-z]+)*", str(config.tag))
            assert cls.__doc__ and "\n" not in cls.__doc__.strip()
            if cls.__struct_fields__:
                with pytest.raises(TypeError, match="positional"):
                    cls(*[None] * len(cls.__struct_fields__))


def test_commands_decode_from_their_json_bodies_z1() -> None:
    """Commands arrive as ``{"type": ..., ...}`` bodies and decode through the union."""
    commands = [
        Roll(),
        ChooseColour(colour="red"),
        Trade(equation=3, give="right"),
        Buy(ware=13),
        EndTurn(),
        DiscardExcess(stones={"red": 1}),
    ]
    for command in commands:
        body = msgspec.json.encode(command)
        assert msgspec.json.decode(body, type=GAME.command_type) == command
    assert msgspec.json.decode(
        b'{"type":"trade","equation":2,"give":"left"}', type=GAME.command_type
    ) == Trade(equation=2, give="left")


def test_evolve_never_mutates_and_replay_equals_incremental_z2() -> None:
    """evolve returns a new state; folding the same events twice gives equal states."""
    history = act([*table({0: ONE_OF_EACH}), rolled(0, "red")], 0, Buy(ware=13))
    before = fold(GAME, history[:-2])
    snapshot = msgspec.json.encode(before)
    after = fold(GAME, history[-2:], before)
    assert msgspec.json.encode(before) == snapshot
    assert after != before and after == fold(GAME, history)


def test_evolve_ignores_events_it_does_not_know() -> None:
    """evolve never fails on a stored event: a foreign event leaves the state as it was."""

    class Foreign(Event, tag="foreign", frozen=True, kw_only=True):
        """Not a Bazaar event."""

    state = fold(GAME, table())
    assert GAME.evolve(state, Foreign()) == state


def test_decide_is_pure_and_deterministic_for_a_seed_z5() -> None:
    """decide never mutates and draws only from the Rng it is given."""
    history = table({0: ONE_OF_EACH})
    state = fold(GAME, history)
    snapshot = msgspec.json.encode(state)
    first = GAME.decide(state, 0, Roll(), Rng("pure", "v9"))
    assert GAME.decide(state, 0, Roll(), Rng("pure", "v9")) == first
    assert msgspec.json.encode(state) == snapshot


def test_rejections_explain_themselves() -> None:
    """Every refusal carries a code, the ruling and readable detail text."""
    refusal = given(GAME, table({0: {"blue": 1}})).when(0, Trade(equation=1, give="left")).rejects("Z-7")
    assert refusal.code == "cannot_give" and "red" in refusal.detail


def test_before_setup_nothing_is_pending_and_commands_are_refused_z1() -> None:
    """Z-1: the empty state has no players yet."""
    state = GAME.initial()
    assert GAME.pending(state) == [] and not GAME.is_over(state)
    given(GAME, []).when(0, Roll()).rejects("Z-1", "not_started")


def test_events_survive_a_json_round_trip_z1() -> None:
    """One typed decoder reads a whole history."""
    config = GameConfig(players=("a", "b", "c"), options=GAME.options_type())
    events = GAME.setup(config, Rng("json", "setup"))
    events = act([*events, rolled(0, "red")], 0, EndTurn())
    decoded = msgspec.json.decode(msgspec.json.encode(events), type=list[GAME.event_type])  # type: ignore[name-defined]
    assert decoded == events
