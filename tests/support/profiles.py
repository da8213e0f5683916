"""Each registered game's random-play profile: the runs played at random and the game's own checks (its
invariants after every event, its history once over), used by tests/property/test_random_play.py."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgspec

from domain.basari.components import COLOURS as BASARI_COLOURS
from domain.basari.components import COMPONENTS as BASARI_COMPONENTS
from domain.basari.events import ActionChosen, PileShuffled, StageScored
from domain.basari.events import GameEnded as BasariEnded
from domain.bazaar import BazaarOptions
from domain.bazaar.components import EDITION
from domain.bazaar.events import GameEnded as BazaarEnded
from domain.core import Event, Game
from domain.johari.commands import ExchangeGive
from domain.johari.components import COMPONENTS as JOHARI_COMPONENTS
from domain.johari.events import CardsTaken, DayEnded, DiscardReshuffled, GameStarted, SetupCardPicked
from domain.johari.events import GameEnded as JohariEnded
from domain.resign import Resign, decisions

__all__ = ["PROFILES", "Profile", "Run", "bazaar_invariant", "pending_and_legal_agree"]


def pending_and_legal_agree(game: Game[Any], state: Any) -> None:
    """Exactly the pending seats have a decision to send; every seat may resign while the game runs."""
    owing = {pending.seat for pending in game.pending(state)}
    for seat in range(len(state.players)):
        legal = game.legal(state, seat)
        assert bool(decisions(legal)) == (seat in owing), (seat, state.phase)
        assert (Resign() in legal) == (not game.is_over(state))


@dataclass(frozen=True)
class Run:
    """One random game to play: its seat count, seed, options and whether every legal entry is decided."""

    players: int
    seed: str
    options: msgspec.Struct | None = None
    all_legal: bool = False


@dataclass(frozen=True)
class Profile:
    """How one game is played at random, and what it must keep besides the checks common to every game."""

    runs: tuple[Run, ...]
    invariant: Callable[[Game[Any], Any], None]  # after every event (conservation and the game's promises)
    history: Callable[[Game[Any], list[Event], Any, int], None]  # once over: the events and the final state
    max_commands: int = 20_000


def ended_once_at_the_end(events: list[Event], ended: type[Event]) -> bool:
    """The game's end event is its last event, and its only one."""
    return isinstance(events[-1], ended) and sum(isinstance(event, ended) for event in events) == 1


# ------------------------------------------------------------------------------------------------ Basari

BASARI_CARDS = sorted(BASARI_COMPONENTS.card_ids())


def basari_invariant(game: Game[Any], state: Any) -> None:
    """B-2 gems conserved, B-4/B-5 every card in the pile or before one player, B-6/B-12 secrets hidden."""
    if not state.players:
        return
    for index, colour in enumerate(BASARI_COLOURS):
        held = [player.gems[index] for player in state.players]
        assert min(held) >= 0 and state.stock[index] >= 0, colour
        assert sum(held) + state.stock[index] == BASARI_COMPONENTS.gems_per_colour, colour
    if state.phase not in ("setup", "scored", "over"):
        cards = [card for player in state.players for card in player.cards] + list(state.pile)
        assert sorted(cards) == BASARI_CARDS
    spectator = game.view(state, None)
    if not state.revealed:
        assert all(player.action is None for player in spectator.players)
    assert spectator.draw_pile == len(state.pile)
    pending_and_legal_agree(game, state)  # also inside a command's events (every game checks it between)


def basari_history(game: Game[Any], events: list[Event], state: Any, players: int) -> None:
    """B-9, B-10: three stages, then the end; B-11 the sheet's totals are the result's; B-12 redaction
    hides picks and the pile order."""
    assert [event.stage for event in events if isinstance(event, StageScored)] == [1, 2, 3]
    assert ended_once_at_the_end(events, BasariEnded)
    sheet, result = game.scoresheet(state), game.result(state)
    assert [row[-1] for row in sheet.rows[:players]] == list(result.scores)
    for event in events:
        for seat in [None, *range(players)]:
            seen = game.redact(event, seat)
            if isinstance(event, PileShuffled):
                assert isinstance(seen, PileShuffled) and seen.order is None and seen.size == 39
            if isinstance(event, ActionChosen) and event.seat != seat:
                assert seen == ActionChosen(seat=event.seat, action=None)


# ------------------------------------------------------------------------------------------------ Bazaar


def bazaar_invariant(_game: Game[Any], state: Any) -> None:
    """Z-2, Z-4, Z-9, Z-10: conservation of stones and wares, scores match the sheet, limit kept."""
    if not state.players:
        return
    for index, colour in enumerate(EDITION.colours):
        held = state.bank[index] + sum(player.hand[index] for player in state.players)
        assert held == EDITION.stones_per_colour, f"{colour}: {held} stones in play, not 20 (Z-2)"
    assert min(state.bank) >= 0 and all(min(player.hand) >= 0 for player in state.players)
    if state.stalls:
        cards = sum(len(stall) for stall in state.stalls) + sum(len(player.wares) for player in state.players)
        assert cards == EDITION.stalls * EDITION.wares_per_stall, "wares lost or doubled (Z-4)"
    for seat, player in enumerate(state.players):
        assert player.score == sum(row.points for row in state.sheet if row.seat == seat), (
            "score differs from sheet"
        )
    if state.phase == "roll_or_trade":
        assert all(sum(player.hand) <= EDITION.hand_limit for player in state.players), (
            "a turn began over the limit (Z-10)"
        )
    if state.over and not state.solitaire:
        assert state.empty_stalls == 2, "the game ends exactly when two stalls are sold out (Z-13)"


def bazaar_history(_game: Game[Any], events: list[Event], state: Any, _players: int) -> None:
    """Z-12, Z-13: solitaire ends solved or unsolved, any other game when two stalls are sold out."""
    assert ended_once_at_the_end(events, BazaarEnded)
    solitaire = {"solitaire_solved", "solitaire_unsolved"}
    assert state.end_reason in (solitaire if state.solitaire else {"two_stalls_empty"})


# ------------------------------------------------------------------------------------------------ Johari

JOHARI_CARDS = sorted(JOHARI_COMPONENTS.cards)


def johari_invariant(game: Game[Any], state: Any) -> None:
    """Conservation of the 96 cards (draw, discard, market, each display, Trade card and Prestige Cards),
    gold 0..gold_max, Gem Tokens on the track, Nobles held once, J-13 Exchange never offers the Trade card's
    cards, J-14 the Trade card emptied at the end of the day."""
    if state.phase == "new":
        return
    places = [*state.draw, *state.discard, *(c for m in state.market for c in m)]
    for p in state.players:
        places += [*p.display, *p.trade, *p.prestige]
        assert 0 <= p.gold <= JOHARI_COMPONENTS.gold_max
        assert all(0 <= t <= JOHARI_COMPONENTS.track_max for t in p.tokens)
        assert all(JOHARI_COMPONENTS.cards[c].kind == "prestige" for c in p.prestige)
        assert all(JOHARI_COMPONENTS.cards[c].kind != "prestige" for c in p.display)
        if state.phase == "day_end":
            assert not p.trade
    assert sorted(places) == JOHARI_CARDS, Counter(places) - Counter(JOHARI_CARDS)
    turn = state.turn
    if turn is not None and turn.stage == "exchange":
        offered = {c.card for c in game.legal(state, turn.seat) if isinstance(c, ExchangeGive)}
        assert not offered & set(state.players[turn.seat].trade)
    nobles = [n for p in state.players for n in p.nobles]
    nobles += [n for n in state.noble_track if n is not None] + list(state.noble_stack)
    assert len(nobles) == len(set(nobles)) <= 3 * JOHARI_COMPONENTS.nobles_per_back


def johari_history(game: Game[Any], events: list[Event], state: Any, players: int) -> None:
    """J-15: the game ends after day 10, when the last Noble entered; J-18: the draw pile order never
    reaches a seat, Prestige Cards taken are public (J-13)."""
    assert ended_once_at_the_end(events, JohariEnded)
    assert state.day == JOHARI_COMPONENTS.market_days
    days = [e.day for e in events if isinstance(e, DayEnded)]
    assert days == list(range(1, JOHARI_COMPONENTS.market_days + 1))
    assert not state.noble_stack
    for seat in (None, *range(players)):
        for event in events:
            seen = game.redact(event, seat)
            if isinstance(seen, CardsTaken | SetupCardPicked):
                assert seen == event
            if isinstance(seen, GameStarted | DiscardReshuffled):
                assert seen.draw_pile == ()


# ------------------------------------------------------------------------------------------------ profiles

PROFILES: dict[str, Profile] = {
    "basari": Profile(
        runs=tuple(
            Run(players, f"basari-{players}-{seed}", all_legal=seed % 5 == 0)
            for seed in range(25)
            for players in (3, 4, 5)
        ),
        invariant=basari_invariant,
        history=basari_history,
    ),
    # Uniform play ends every Bazaar game, but slowly: ~700 commands a game, at most ~2,700 seen over 1,200
    # games (the purposeful chooser of test_bazaar_purposeful_play.py exercises Z-11 and ends games sooner).
    "bazaar": Profile(
        runs=(
            *(
                Run(players, f"uniform-{i}-{players}-{double}", BazaarOptions(double_purchase=double))
                for i in range(10)
                for players in range(1, 7)
                for double in (False, True)
            ),
            *(
                Run(players, f"{seed}-{players}-{double}", BazaarOptions(double_purchase=double), True)
                for seed in ("all-legal-a", "all-legal-b")
                for players in range(1, 7)
                for double in (False, True)
            ),
        ),
        invariant=bazaar_invariant,
        history=bazaar_history,
        max_commands=10_000,
    ),
    "johari": Profile(
        runs=(
            *(Run(players, f"johari-{players}-{game}") for game in range(40) for players in (2, 3, 4)),
            *(
                Run(players, f"johari-all-{players}-{game}", all_legal=True)
                for game in range(4)
                for players in (2, 3, 4)
            ),
        ),
        invariant=johari_invariant,
        history=johari_history,
    ),
}
