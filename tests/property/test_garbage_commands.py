"""Garbage commands against every game's ``decide``: only a clean Rejected (or a 400 decode error), never a crash.

``decide`` validates, raises ``Rejected`` and never mutates. Hypothesis sends, in states reached by
random legal play, every command type of each game with arbitrary field values (huge and negative numbers,
unknown colours, places and ids, wrong seats) and raw garbage bodies through the service's parse path
(``GameCommands.parse_command``, the one the API uses). A body either fails to decode (``Malformed``: 400) or
becomes a command that ``decide`` refuses with ``Rejected`` or accepts from a pending seat; any other
exception is a bug, and the state must encode the same before and after.
"""

from __future__ import annotations

import functools
import random
import typing
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.core import Command, Game, GameConfig, Rejected, Rng, fold
from domain.registry import all_games
from domain.resign import Resign, decisions
from eventstore import InMemoryKeyStore
from eventstore.memory import InMemoryEventStore
from service.games.service import GameService
from service.runtime import errors

GAMES = all_games()
PLAYER_COUNTS = {name: (game.min_players, game.max_players) for name, game in GAMES.items()}
STATES_PER_GAME = 240  # reachable states sampled per game (random prefixes of random legal play)
EXAMPLES = 1000

# Words the games use (colours, actions, places, sides) plus near misses, so many bodies decode into
# well-typed commands that still make no sense in the state at hand.
VOCABULARY = [
    *("red", "yellow", "green", "blue", "white", "black", "choice", "gold", "prestige"),
    *("A", "B", "C", "D", "E", "a", ""),
    *("purchase", "sale", "trade", "baksheesh", "bribe", "exchange", "doppelganger", "juggle"),
    *("store_red", "store_gold", "store_purple", "booth_0", "booth_5", "booth_99", "booth_-1", "booth_x"),
    *("left", "right", "up", "display", "jeweler", "collector"),
]
NASTY_INTS = [
    -(2**63),
    -(2**31),
    -1,
    0,
    1,
    2,
    3,
    4,
    5,
    6,
    7,
    10,
    11,
    15,
    20,
    39,
    45,
    96,
    99,
    2**31,
    2**63,
    10**30,
]

ints = st.one_of(st.sampled_from(NASTY_INTS), st.integers())
words = st.one_of(st.sampled_from(VOCABULARY), st.text(max_size=6))
scalars = st.one_of(ints, words, st.none(), st.booleans(), st.floats(allow_nan=True))
field_values = st.one_of(
    scalars,
    st.dictionaries(words, ints, max_size=6),
    st.lists(ints, max_size=4),
)
json_garbage = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(words, inner, max_size=4),
    max_leaves=12,
)


def command_classes(game: Game[Any]) -> list[type[Command]]:
    """Every struct of the game's command union."""
    return list(typing.get_args(game.command_type))


def tag_of(command_class: type[Command]) -> str:
    """The ``type`` tag of a command struct."""
    return str(command_class.__struct_config__.tag)


@st.composite
def command_bodies(draw: st.DrawFn, game: Game[Any]) -> Any:
    """A JSON body: mostly one command type with arbitrary field values, sometimes raw garbage."""
    if draw(st.integers(0, 9)) == 0:
        return draw(json_garbage)
    command_class = draw(st.sampled_from(command_classes(game)))
    body: dict[str, Any] = {"type": tag_of(command_class)}
    for field in msgspec.structs.fields(command_class):
        if draw(st.integers(0, 7)) > 0:  # now and then leave a field out
            body[field.encode_name] = draw(field_values)
    if draw(st.integers(0, 9)) == 0:
        body[draw(words)] = draw(field_values)
    return body


def any_body(game: Game[Any], legal: list[Command], data: st.DataObject) -> Any:
    """Half of the time (when the seat has any) a legal command with some fields spoiled, which reaches the
    deepest checks of the decision owed; otherwise a body of ``command_bodies``."""
    spoil_a_legal_command = data.draw(st.booleans())
    if not (legal and spoil_a_legal_command):
        return data.draw(command_bodies(game))
    body = msgspec.to_builtins(data.draw(st.sampled_from(legal)))
    for key in [k for k in body if k != "type"]:
        if data.draw(st.booleans()):
            body[key] = data.draw(field_values)
    return body


@functools.cache
def reachable_states(name: str) -> list[tuple[Any, int, str]]:
    """States reached by random legal play from set-up, with the player count and the seed they came from."""
    game = GAMES[name]
    chooser = random.Random(f"garbage-{name}")
    low, high = PLAYER_COUNTS[name]
    found: list[tuple[Any, int, str]] = []
    game_number = 0
    while len(found) < STATES_PER_GAME:
        game_number += 1
        seed = f"garbage-{name}-{game_number}"
        players = chooser.randint(low, high)
        config = GameConfig(players=tuple(f"p{i}" for i in range(players)), options=game.options_type())
        events = game.setup(config, Rng(seed, "setup"))
        state = fold(game, events)
        version = len(events)
        steps = chooser.randint(0, 1500)
        for _ in range(steps):
            if game.is_over(state):
                break
            seat = chooser.choice(game.pending(state)).seat
            command = chooser.choice(decisions(game.legal(state, seat)))
            new_events = game.decide(state, seat, command, Rng(seed, f"v{version}"))
            state = fold(game, new_events, state)
            version += len(new_events)
            if chooser.random() < 0.08:
                found.append((state, players, f"{seed}/v{version}"))
        found.append((state, players, f"{seed}/v{version}"))
    return found


@functools.cache
def parser() -> GameService:
    """The service whose ``parse_command`` the API uses for command bodies (its store is never touched here)."""
    return GameService(InMemoryEventStore(), InMemoryKeyStore(), GAMES)


def assert_refused_cleanly(game: Game[Any], state: Any, seat: int, body: Any, where: str) -> None:
    """The body is a 400, a Rejected, or an accepted command of a pending seat; the state is unchanged."""
    before = msgspec.json.encode(state)
    try:
        command = parser().commands.parse_command(game, body)
    except errors.Malformed:
        return
    try:
        events = game.decide(state, seat, command, Rng("garbage", where))
    except Rejected as refusal:
        assert refusal.code and isinstance(refusal.code, str)
    else:
        pending = {p.seat for p in game.pending(state)}
        # a seat still playing may resign at any time; anything else only from a pending seat
        assert seat in pending or command == Resign(), (
            f"{command!r} accepted from seat {seat}, not pending ({pending}) at {where}"
        )
        assert events, f"{command!r} accepted without events at {where}"
        fold(game, events, state)  # evolve never fails on what decide produced
    assert msgspec.json.encode(state) == before, f"decide mutated the state for {command!r} at {where}"


@pytest.mark.parametrize("name", sorted(GAMES))
def test_garbage_commands_are_refused_cleanly(name: str) -> None:
    """Any body from any seat in any reachable state: 400, Rejected, or accepted from a pending seat."""
    game = GAMES[name]
    states = reachable_states(name)

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(index=st.integers(0, len(states) - 1), seat_pick=st.integers(0, 5), data=st.data())
    def check(index: int, seat_pick: int, data: st.DataObject) -> None:
        state, players, where = states[index]
        seat = seat_pick % players
        body = any_body(game, game.legal(state, seat), data)
        assert_refused_cleanly(game, state, seat, body, where)

    check()


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_command_type_with_every_nasty_value_is_refused_cleanly(name: str) -> None:
    """Each command type with each nasty value in every field, from every seat, in a spread of states."""
    game = GAMES[name]
    states = reachable_states(name)[::12]
    nasty: list[Any] = [*NASTY_INTS, *VOCABULARY, None, True, 1.5, {}, [], {"red": -1}, {"red": 10**9}]
    for state, players, where in states:
        for command_class in command_classes(game):
            fields = msgspec.structs.fields(command_class)
            for value in nasty:
                body = {"type": tag_of(command_class), **{f.encode_name: value for f in fields}}
                for seat in range(players):
                    assert_refused_cleanly(game, state, seat, body, where)


# ------------------------------------------------------------------------ refusals keep secrets


def basari_twin(state: Any, seat: int, shuffle: random.Random) -> Any:
    """B-12: the same table with another pile order and other hidden picks of the other seats."""
    picks = list(state.picks)
    for other in state.seats:
        if other != seat and state.phase == "choose" and not state.revealed and state.picked[other]:
            picks[other] = shuffle.choice(state.actions)
    return msgspec.structs.replace(
        state, pile=tuple(shuffle.sample(state.pile, len(state.pile))), picks=tuple(picks)
    )


def bazaar_twin(state: Any, seat: int, shuffle: random.Random) -> Any:
    """Z-15: the same stalls with other face-down wares (drawn from the face-down and the unused ones)."""
    from domain.bazaar.components import EDITION

    seen = {c for stall in state.stalls for c in stall[:1]} | {
        w for player in state.players for w in player.wares
    }
    if state.solitaire_ware is not None:
        seen.add(state.solitaire_ware)
    hidden = [w for w in EDITION.wares if w not in seen]
    pool = shuffle.sample(hidden, len(hidden))
    stalls = tuple((*stall[:1], *(pool.pop() for _ in stall[1:])) if stall else () for stall in state.stalls)
    return msgspec.structs.replace(state, stalls=stalls)


def johari_twin(state: Any, seat: int, shuffle: random.Random) -> Any:
    """J-18: another draw pile order, another Noble stack order (backs kept in place), other unrevealed cards."""
    from domain.johari.components import ACTIONS, COMPONENTS

    stack = list(state.noble_stack)
    for back in {COMPONENTS.nobles[n].back for n in stack}:
        places = [i for i, n in enumerate(stack) if COMPONENTS.nobles[n].back == back]
        for place, noble in zip(places, shuffle.sample([stack[i] for i in places], len(places)), strict=True):
            stack[place] = noble
    players = list(state.players)
    if state.phase == "play":
        for other, player in enumerate(players):
            played = player.slots[state.round - 1]
            if other == seat or played is None or not player.hand:
                continue
            instead = shuffle.choice(player.hand)
            slots = (*player.slots[: state.round - 1], instead, *player.slots[state.round :])
            hand = tuple(a for a in ACTIONS if a in {*player.hand, played} - {instead})
            players[other] = msgspec.structs.replace(player, slots=slots, hand=hand)
    return msgspec.structs.replace(
        state,
        draw=tuple(shuffle.sample(state.draw, len(state.draw))),
        noble_stack=tuple(stack),
        players=tuple(players),
    )


TWINS = {"basari": basari_twin, "bazaar": bazaar_twin, "johari": johari_twin}


def outcome(game: Game[Any], state: Any, seat: int, command: Command) -> tuple[str, ...]:
    """What the seat learns from sending the command: accepted, or the refusal's code, rule and detail."""
    try:
        game.decide(state, seat, command, Rng("twin", "v0"))
    except Rejected as refusal:
        return ("rejected", refusal.code, str(refusal.rule), refusal.detail)
    return ("accepted",)


@pytest.mark.parametrize("name", sorted(GAMES))
def test_refusals_do_not_depend_on_secrets(name: str) -> None:
    """A refusal (or acceptance) is the same in a twin state that differs only in what the seat may not know
    (B-12, Z-15, J-18): the API's error answers cannot carry a secret."""
    game = GAMES[name]
    states = reachable_states(name)
    twin_of = TWINS[name]

    @settings(
        max_examples=EXAMPLES // 2,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(index=st.integers(0, len(states) - 1), seat_pick=st.integers(0, 5), data=st.data())
    def check(index: int, seat_pick: int, data: st.DataObject) -> None:
        state, players, where = states[index]
        seat = seat_pick % players
        twin = twin_of(state, seat, random.Random(f"{where}/{seat}"))
        assert msgspec.json.encode(game.view(twin, seat)) == msgspec.json.encode(game.view(state, seat)), (
            "the twin must look the same to the seat"
        )
        body = any_body(game, game.legal(state, seat), data)
        try:
            command = parser().commands.parse_command(game, body)
        except errors.Malformed:
            return
        assert outcome(game, state, seat, command) == outcome(game, twin, seat, command), (
            f"{command!r} from seat {seat} at {where} is answered differently when only secrets differ"
        )

    check()


@pytest.mark.parametrize("name", sorted(GAMES))
def test_a_misspelt_field_is_a_400_not_a_default(name: str) -> None:
    """A legal command with one more (unknown) field, at the top or inside a nested object, is refused as
    malformed: a misspelt optional field must not silently take its default (API.md: 400 malformed body)."""
    game = GAMES[name]
    checked = 0
    for state, players, _where in reachable_states(name)[::6]:
        for seat in range(players):
            for command in game.legal(state, seat):
                body = msgspec.to_builtins(command)
                with pytest.raises(errors.Malformed):
                    parser().commands.parse_command(game, {**body, "colur": "red"})
                for key, value in body.items():
                    if isinstance(value, dict) and isinstance(getattr(command, key), msgspec.Struct):
                        with pytest.raises(errors.Malformed):
                            parser().commands.parse_command(game, {**body, key: {**value, "purple": 1}})
                checked += 1
    assert checked > 100, "too few legal commands looked at"
