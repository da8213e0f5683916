"""B-1..B-5: players, gems, action cards, the shuffled draw pile and step I (the deal)."""

from __future__ import annotations

import msgspec
import pytest

from domain.basari import GAME
from domain.basari.commands import BasariCommand, Bid, ChooseAction
from domain.basari.components import COMPONENTS, Gems
from domain.basari.events import BasariEvent, CardsDealt, GameStarted, PileShuffled
from domain.core import GameConfig, Rejected, Rng, fold
from domain.resign import decisions
from tests.support.scenario import given

from .tables import EACH, picks, play, started, state_of


def config(players: int) -> GameConfig:
    """A game of ``players`` with the default options."""
    return GameConfig(players=tuple(f"p{i}" for i in range(players)), options=GAME.options_type())


@pytest.mark.parametrize("players", [3, 4, 5])
def test_three_to_five_players_b1(players: int) -> None:
    """B-1: Basari seats 3, 4 or 5 players."""
    GAME.validate_config(config(players))


@pytest.mark.parametrize("players", [0, 1, 2, 6, 7])
def test_other_player_counts_are_refused_b1(players: int) -> None:
    """B-1: any other player count is refused as bad_player_count."""
    with pytest.raises(Rejected) as refusal:
        GAME.validate_config(config(players))
    assert (refusal.value.code, refusal.value.rule) == ("bad_player_count", "B-1")


def test_basari_has_no_options_b1() -> None:
    """B-1: the options struct is empty and refuses unknown fields."""
    assert msgspec.convert({}, GAME.options_type) == GAME.options_type()
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert({"variant": "expert"}, GAME.options_type)


def test_seats_follow_the_order_of_creation_b1() -> None:
    """B-1: seats are numbered in the order the game was created with."""
    events = GAME.setup(config(4), Rng("seed", "setup"))
    state = fold(GAME, events)
    assert [player.name for player in state.players] == ["p0", "p1", "p2", "p3"]


@pytest.mark.parametrize("players", [3, 4, 5])
def test_every_player_starts_with_three_of_each_colour_b2(players: int) -> None:
    """B-2: every player starts with 3 gems of each colour; all other gems form the stock (22 a colour)."""
    events = GAME.setup(config(players), Rng("seed", "setup"))
    started_event = events[0]
    assert isinstance(started_event, GameStarted)
    assert started_event.gems == (EACH,) * players
    left = 22 - 3 * players
    assert started_event.stock == Gems(red=left, yellow=left, green=left, blue=left)
    state = fold(GAME, events)
    for colour in range(4):
        assert sum(p.gems[colour] for p in state.players) + state.stock[colour] == 22


@pytest.mark.parametrize(
    ("players", "actions"), [(3, ("A", "B", "C")), (4, ("A", "B", "C")), (5, ("A", "B", "C", "D"))]
)
def test_action_cards_by_player_count_b3(players: int, actions: tuple[str, ...]) -> None:
    """B-3: every player holds A, B, C; with 5 players also D."""
    state = state_of(GAME.setup(config(players), Rng("seed", "setup")))
    assert state.actions == actions
    assert decisions(GAME.legal(state, 0)) == [ChooseAction(action=action) for action in actions]


def test_no_action_d_below_five_players_b3() -> None:
    """B-3: with 3 or 4 players there is no card D to pick."""
    given(GAME, started(4)).when(0, ChooseAction(action="D")).rejects("B-3", "no_such_card")


def test_setup_shuffles_all_39_cards_with_the_seeded_generator_b4() -> None:
    """B-4: the 39 bazaar cards are shuffled by the seeded generator; the order is written into the event."""
    events = GAME.setup(config(3), Rng("seed-1", "setup"))
    shuffled = events[1]
    assert isinstance(shuffled, PileShuffled)
    assert shuffled.stage == 1 and shuffled.size == 39
    assert shuffled.order == tuple(Rng("seed-1", "setup").shuffle(COMPONENTS.card_ids()))
    assert sorted(shuffled.order) == sorted(COMPONENTS.card_ids())
    other = GAME.setup(config(3), Rng("seed-2", "setup"))[1]
    assert isinstance(other, PileShuffled) and other.order != shuffled.order
    assert GAME.setup(config(3), Rng("seed-1", "setup")) == events  # a replay derives the same draw


@pytest.mark.parametrize("players", [3, 5])
def test_step_one_deals_the_top_cards_in_seat_order_b5(players: int) -> None:
    """B-5: in seat order each player takes the top card of the pile; it is the player's current card."""
    events = GAME.setup(config(players), Rng("deal", "setup"))
    shuffled, dealt = events[1], events[2]
    assert isinstance(shuffled, PileShuffled) and isinstance(dealt, CardsDealt)
    assert shuffled.order is not None
    assert dealt == CardsDealt(stage=1, round=1, cards=shuffled.order[:players])
    state = fold(GAME, events)
    assert [p.current for p in state.players] == list(shuffled.order[:players])
    assert [p.cards for p in state.players] == [(card,) for card in shuffled.order[:players]]
    assert state.pile == shuffled.order[players:]
    assert state.phase == "choose" and state.round == 1 and state.stage == 1


def test_cards_stay_in_front_of_their_owner_b5() -> None:
    """B-5: cards stay in front of their owner until the stage ends; each round adds a new current card."""
    history = play(started(3), *picks("CCC"))  # all three chose C: forfeited, next round is dealt
    state = state_of(history)
    assert state.round == 2
    assert [p.cards for p in state.players] == [(1, 4), (2, 5), (3, 6)]
    assert [p.current for p in state.players] == [4, 5, 6]


def test_events_and_commands_are_one_tagged_union_each() -> None:
    """Every event of a history decodes through ``GAME.event_type``; commands through ``command_type``."""
    events = GAME.setup(config(3), Rng("json", "setup"))
    assert msgspec.json.decode(msgspec.json.encode(events), type=list[BasariEvent]) == events
    body = b'{"type": "bid", "gems": {"red": 1, "blue": 3}}'
    assert msgspec.json.decode(body, type=BasariCommand) == Bid(gems=Gems(red=1, blue=3))
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(b'{"type": "bid", "gems": {"red": -1}}', type=GAME.command_type)
