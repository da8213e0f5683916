"""Z-11, Z-12, Z-13, Z-15 in Bazaar's own random play (every game's uniform random play, Bazaar's with its
invariants, is tests/property/test_random_play.py).

Uniform random play (``play_randomly``) ends every game, but slowly: most legal entries are trades (up to
twenty a turn against one roll), a random walk of trades rarely lands on a displayed ware's exact stones,
and an affordable ware is bought only if the coin falls that way, so a game takes about 320 turns (~700
commands, at most ~2,700 seen) whatever the player count; solitaire almost always runs to its 100-turn
limit. Double purchases are rare under uniform play (a few per hundred games), so a second, biased but
legal chooser (``purposeful``: buy when possible, with the option wait for a pair, otherwise mostly the
action that brings the hand nearest a displayed ware) exercises Z-11 and ends games in ~80-120 turns."""

from __future__ import annotations

import itertools
import random
from typing import Any

import msgspec
import pytest

from domain.bazaar import GAME, BazaarOptions
from domain.bazaar.commands import Buy, ChooseColour, Trade
from domain.bazaar.components import EDITION
from domain.bazaar.events import WareBought
from domain.bazaar.state import State
from domain.core import Command, Event, GameConfig, Rng, fold
from domain.resign import decisions
from tests.support.profiles import bazaar_invariant
from tests.support.random_play import play_randomly

PLAYER_COUNTS = [1, 2, 3, 4, 5, 6]
MAX_COMMANDS = 10_000


def options(double: bool) -> BazaarOptions:
    """The game options."""
    return BazaarOptions(double_purchase=double)


@pytest.mark.parametrize("players", [1, 2, 4, 6])
def test_redacted_history_shows_the_same_table_z15(players: int) -> None:
    """Z-15: folding the redacted events gives every seat the same view as the full history, throughout."""
    run = play_randomly(GAME, players, f"redacted-{players}", options(True), max_commands=MAX_COMMANDS)
    full, public = GAME.initial(), GAME.initial()
    for step, event in enumerate(run.events):
        redacted = GAME.redact(event, 0)
        assert isinstance(redacted, Event)
        full, public = GAME.evolve(full, event), GAME.evolve(public, redacted)
        if step % 7 == 0 or step == len(run.events) - 1:
            assert GAME.view(public, None) == GAME.view(full, None)


def _deficit(state: State, hand: tuple[int, ...], pairs: bool) -> int:
    """Stones missing for the cheapest displayed ware (or pair of wares) from ``hand``."""
    shown = [EDITION.wares[s[0]].stones for s in state.stalls if s]
    if state.solitaire and state.solitaire_ware is not None:
        target = EDITION.wares[state.solitaire_ware].stones
        return sum(abs(h - t) for h, t in zip(hand, target, strict=True))
    wanted = (
        [tuple(a + b for a, b in zip(x, y, strict=True)) for x in shown for y in shown] if pairs else shown
    )
    return min((sum(max(0, n - h) for n, h in zip(w, hand, strict=True)) for w in wanted), default=0)


def _deficit_of(ware: int, hand: tuple[int, ...]) -> int:
    """Stones missing from ``hand`` to pay for ``ware``."""
    return sum(max(0, n - h) for n, h in zip(EDITION.wares[ware].stones, hand, strict=True))


def _after(state: State, seat: int, command: Command) -> tuple[int, ...]:
    """The hand ``command`` would leave (a roll counts as no change)."""
    if isinstance(command, Trade):
        equation = EDITION.equations(state.exchange)[command.equation]
        give, take = (
            (equation.left, equation.right) if command.give == "left" else (equation.right, equation.left)
        )
        return tuple(h - g + t for h, g, t in zip(state.players[seat].hand, give, take, strict=True))
    if isinstance(command, ChooseColour):
        return tuple(
            h + (c == command.colour) for h, c in zip(state.players[seat].hand, EDITION.colours, strict=True)
        )
    return state.players[seat].hand


def purposeful(state: State, seat: int, legal: list[Command], chooser: random.Random) -> Command:
    """A biased but legal choice: buy when possible; otherwise mostly the action nearest to a purchase."""
    buys = [c for c in legal if isinstance(c, Buy)]
    if buys and state.double_purchase and state.purchases == 0:
        # Z-11: wait for a pair when possible; buy first the ware that leaves the second affordable.
        hand = state.players[seat].hand
        for buy in buys:
            rest = tuple(h - n for h, n in zip(hand, EDITION.wares[buy.ware].stones, strict=True))
            if any(isinstance(o, Buy) and o != buy and _deficit_of(o.ware, rest) == 0 for o in buys):
                return buy
        if chooser.random() < 0.1:
            return chooser.choice(buys)
    elif buys:
        return chooser.choice(buys)
    if state.phase in ("roll_or_trade", "choose_colour") and chooser.random() < 0.8:
        pairs = state.double_purchase and state.purchases == 0
        scored = [
            (_deficit(state, _after(state, seat, c), pairs), chooser.random(), i) for i, c in enumerate(legal)
        ]
        return legal[min(scored)[2]]
    return chooser.choice(legal)


def play_purposefully(
    players: int, seed: str, double: bool, check_all_legal: bool = False
) -> tuple[list[Event], State, int]:
    """One game of ``purposeful`` choices, checked like ``play_randomly`` (invariant, replay, JSON)."""
    config = GameConfig(players=tuple(f"p{i}" for i in range(players)), options=options(double))
    GAME.validate_config(config)
    chooser = random.Random(seed)
    events = GAME.setup(config, Rng(seed, "setup"))
    state = fold(GAME, events)
    commands = 0
    while not GAME.is_over(state):
        assert commands < MAX_COMMANDS, "game did not end"
        seat = chooser.choice(GAME.pending(state)).seat
        legal = decisions(GAME.legal(state, seat))
        if check_all_legal:
            for candidate in legal:
                GAME.decide(state, seat, candidate, Rng(seed, f"v{len(events)}"))
        command = purposeful(state, seat, legal, chooser)
        new = GAME.decide(state, seat, command, Rng(seed, f"v{len(events)}"))
        for event in new:
            state = GAME.evolve(state, event)
            bazaar_invariant(GAME, state)
        events.extend(new)
        commands += 1
    assert fold(GAME, events) == state
    decoded: Any = msgspec.json.decode(msgspec.json.encode(events), type=list[GAME.event_type])  # type: ignore[name-defined]
    assert decoded == events
    return events, state, commands


def test_purposeful_play_makes_double_purchases_z11() -> None:
    """Z-11: purposeful play buys pairs, some scoring the second a star higher after a stall empties."""
    doubles = upgraded_seconds = 0
    for i in range(40):
        events, state, _ = play_purposefully(2 + i % 5, f"doubler-{i}", double=True, check_all_legal=i < 8)
        assert state.empty_stalls == 2
        for a, b in itertools.pairwise(events):
            if isinstance(a, WareBought) and isinstance(b, WareBought):
                doubles += 1
                upgraded_seconds += a.revealed is None and b.stars > int(EDITION.wares[b.ware].star)
    assert doubles >= 10, doubles
    assert upgraded_seconds >= 1, upgraded_seconds


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_purposeful_play_ends_every_game(players: int) -> None:
    """Z-12, Z-13: purposeful players close the bazaar in ~80-120 turns; solitaire is sometimes solved."""
    ends = set()
    for i in range(4):
        _, state, _ = play_purposefully(players, f"purpose-{players}-{i}", double=False)
        assert GAME.is_over(state)
        ends.add(state.end_reason)
    assert ends <= ({"solitaire_solved", "solitaire_unsolved"} if players == 1 else {"two_stalls_empty"})
