"""Johari components and set-up: J-1..J-8."""

from __future__ import annotations

import copy

import pytest

from domain.core import GameConfig, Rejected, Rng
from domain.data import load_component_data
from domain.johari import GAME
from domain.johari.commands import PickCard
from domain.johari.components import COLOURS, COMPONENTS, STORES, ComponentDataError, load
from domain.johari.events import (
    CardsDealt,
    DayStarted,
    GameStarted,
    GoldChanged,
    NoblesAdvanced,
    RoundStarted,
    SetupCardPicked,
)
from domain.johari.state import card
from tests.support.scenario import given
from tests.unit.johari.tables import started


@pytest.mark.parametrize("players", [1, 5])
def test_j1_two_to_four_players(players: int) -> None:
    """J-1: fewer than 2 or more than 4 players is refused."""
    config = GameConfig(players=tuple(f"p{i}" for i in range(players)), options=GAME.options_type())
    with pytest.raises(Rejected) as refused:
        GAME.validate_config(config)
    assert refused.value.code == "bad_player_count" and refused.value.rule == "J-1"


def test_j1_seats_are_numbered_from_zero() -> None:
    """J-1: seats 0..n-1 for 2, 3 and 4 players."""
    for n in (2, 3, 4):
        _, state = started(n)
        assert [p.name for p in state.players] == [f"p{i}" for i in range(n)]


def test_j2_house_data_has_96_cards_of_three_kinds() -> None:
    """J-2: 96 cards: gem cards of four colours (some fake), Gold Cards and Prestige Cards."""
    assert len(COMPONENTS.cards) == 96
    kinds = {c.kind for c in COMPONENTS.cards.values()}
    assert kinds == {"gem", "gold", "prestige"}
    assert {c.colour for c in COMPONENTS.cards.values() if c.kind == "gem"} == set(COLOURS)
    assert any(c.fake for c in COMPONENTS.cards.values())


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda d: d["gem_cards"].pop(), "96"),
        (lambda d: d["gem_cards"][1].update(id=1), "unique"),
        (lambda d: d["gem_cards"][0].update(kind="silver"), "kind"),
        (lambda d: d["gem_cards"][0].update(colour="pink"), "colour"),
        (lambda d: d["nobles"][0].update(ability="fly"), "ability"),
        (lambda d: d["nobles"][0].update(back=2), "back 1"),
        (lambda d: d["noble_space_costs"].pop("5"), "noble_space_costs"),
        (lambda d: d["action_costs"].pop("sale"), "action_costs"),
        (lambda d: d.update(gold_start=99), "gold_start"),
    ],
)
def test_j2_j4_invalid_house_data_is_refused_at_load(damage: object, message: str) -> None:
    """J-2/J-4/J-5: the data file is validated at load with a clear error."""
    raw = copy.deepcopy(load_component_data("johari"))
    damage(raw)  # type: ignore[operator]
    with pytest.raises(ComponentDataError, match=message):
        load(raw)


def test_j3_stores_hold_only_their_type_and_there_are_players_plus_two_booths() -> None:
    """J-3: five Stores, each holding only its type; players + 2 Booths."""
    for n in (2, 3, 4):
        _, state = started(n, seed=f"j3-{n}")
        assert len(state.market) == len(STORES) + n + 2
        for index, store in enumerate(STORES):
            for cid in state.market[index]:
                c = card(cid)
                assert (c.colour if c.kind == "gem" else "gold") == store


def test_j4_nobles_cost_by_track_space() -> None:
    """J-4: 24 Nobles, eight per back; spaces 5..1 cost as in the data file."""
    assert len(COMPONENTS.nobles) == 24
    for back in (1, 2, 3):
        assert sum(1 for n in COMPONENTS.nobles.values() if n.back == back) == 8
    assert COMPONENTS.noble_space_costs == {5: 8, 4: 7, 3: 6, 2: 5, 1: 4}


def test_j5_player_starts_with_seven_action_cards_tokens_at_zero_and_gold_on_15() -> None:
    """J-5: seven action cards, four Gem Tokens at 0, Gold Token on the start space."""
    _, state = started(3)
    for p in state.players:
        assert len(p.hand) == 7 and p.tokens == (0, 0, 0, 0) and p.gold == COMPONENTS.gold_start


def test_j6_four_nobles_per_back_stacked_ones_on_top_and_two_on_the_track() -> None:
    """J-6: 4 Nobles of each back; 3s at the bottom, 1s on top; the top two on spaces 5 and 4."""
    events, state = started(2, seed="j6")
    begun = events[0]
    assert isinstance(begun, GameStarted)
    on_track = [n for n in begun.noble_track if n is not None]
    everything = [begun.noble_track[4], begun.noble_track[3], *begun.noble_stack]
    assert len(on_track) == 2 and begun.noble_track[:3] == (None, None, None)
    backs = [COMPONENTS.nobles[n].back for n in everything if n is not None]
    assert backs == [1] * 4 + [2] * 4 + [3] * 4
    assert len(state.noble_stack) == 10


def test_j7_deal_players_cards_into_stores_then_one_per_booth() -> None:
    """J-7: as many cards as players into the Stores, one into each Booth; the rest is the draw pile."""
    events, state = started(3, seed="j7")
    dealt = events[1]
    assert isinstance(dealt, CardsDealt)
    booths = [p for p in dealt.places if p.startswith("booth_")]
    assert len(dealt.cards) == 3 + 5 and booths == [f"booth_{b}" for b in range(5)]
    assert len(state.draw) == 96 - 8


def test_j8_setup_picks_go_from_the_bottom_gold_token_to_the_top() -> None:
    """J-8: the gold stack is random; picks go bottom to top; then Market Day 1 starts."""
    events, state = started(3, seed="j8")
    begun = events[0]
    assert isinstance(begun, GameStarted)
    order = list(begun.gold_stack)
    history = list(events)
    for position, seat in enumerate(order):
        assert [p.seat for p in GAME.pending(state)] == [seat]
        assert GAME.pending(state)[0].decision == "setup_pick"
        for other in set(range(3)) - {seat}:
            refusal = given(GAME, history).when(other, PickCard(card=state.market[-1][0])).rejects("J-8")
            assert refusal.code == "not_your_turn"
        cid = next(c for m in state.market for c in m)
        new = GAME.decide(state, seat, PickCard(card=cid), Rng("s", f"v{len(history)}"))
        assert isinstance(new[0], SetupCardPicked) and new[0].seat == seat
        if position < 2:
            assert len(new) == 1
        else:
            assert isinstance(new[1], DayStarted) and isinstance(new[2], NoblesAdvanced)
            assert isinstance(new[-1], RoundStarted)
        history += new
        for event in new:
            state = GAME.evolve(state, event)
    assert state.phase == "play" and state.day == 1


def test_j8_pick_must_be_a_face_up_market_card() -> None:
    """J-8: a card that is not face up in a Store or Booth cannot be picked."""
    events, state = started(2, seed="j8b")
    seat = state.setup_order[0]
    hidden = state.draw[0]
    given(GAME, events).when(seat, PickCard(card=hidden)).rejects("J-8", "card_not_in_market")


def test_j5_gold_track_caps_at_gold_max_and_never_goes_below_zero() -> None:
    """J-5: gold beyond the track's end is lost; the Gold Token never goes below 0."""
    from domain.johari.actions import gold_change
    from tests.unit.johari.tables import gold, now, table, turn

    _, events = turn([*table(2), gold(0, COMPONENTS.gold_max - 1)], 0, "baksheesh")
    assert events[1] == GoldChanged(seat=0, delta=2, gold=COMPONENTS.gold_max)
    assert gold_change(now([*table(2), gold(1, 1)]), 1, -3).gold == 0
