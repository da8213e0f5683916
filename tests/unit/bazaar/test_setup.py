"""Z-1, Z-3, Z-4, Z-5, Z-11, Z-12: players, options and the set-up drawn from the seeded generator."""

from __future__ import annotations

import msgspec
import pytest

from domain.bazaar import GAME, BazaarOptions
from domain.bazaar.events import BazaarDealt, ExchangeDrawn, GameStarted, SolitaireWareDealt, TurnStarted
from domain.bazaar.view import BazaarView
from domain.core import GameConfig, Pending, Rejected, Rng, fold
from domain.resign import decisions


def config(players: int, double: bool = False) -> GameConfig:
    """A game for ``players`` players."""
    return GameConfig(
        players=tuple(f"p{i}" for i in range(players)), options=BazaarOptions(double_purchase=double)
    )


@pytest.mark.parametrize("players", [0, 7, 12])
def test_player_count_outside_1_to_6_is_refused_z1(players: int) -> None:
    """Z-1: 2 to 6 players, or 1 for solitaire; anything else is refused."""
    with pytest.raises(Rejected) as refusal:
        GAME.validate_config(config(players))
    assert refusal.value.code == "bad_player_count" and refusal.value.rule == "Z-1"


@pytest.mark.parametrize("players", [1, 2, 3, 4, 5, 6])
def test_one_to_six_players_are_accepted_z1(players: int) -> None:
    """Z-1: 2 to 6 players, and 1 plays solitaire (Z-12)."""
    GAME.validate_config(config(players))


def test_options_default_to_single_purchase_and_refuse_unknown_fields_z11() -> None:
    """Z-11: double purchase is off by default; an unknown option is refused when decoding."""
    assert msgspec.convert({}, GAME.options_type) == BazaarOptions(double_purchase=False)
    assert msgspec.convert({"double_purchase": True}, GAME.options_type) == BazaarOptions(
        double_purchase=True
    )
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert({"triple_purchase": True}, GAME.options_type)


def test_setup_draws_two_exchange_cards_and_deals_four_stalls_of_five_z3_z4() -> None:
    """Z-3, Z-4: two of ten exchange cards, 20 of 45 wares in four stalls of five, the rest set aside."""
    events = GAME.setup(config(4, double=True), Rng("seed-a", "setup"))
    started, exchange, deal, first = events
    assert started == GameStarted(players=("p0", "p1", "p2", "p3"), double_purchase=True, edition="house-1")
    assert isinstance(exchange, ExchangeDrawn) and len(set(exchange.cards)) == 2
    assert set(exchange.cards) <= set(range(1, 11))
    assert isinstance(deal, BazaarDealt) and deal.face_down is not None and deal.set_aside is not None
    assert deal.sizes == (5, 5, 5, 5)
    stalls = [(top, *below) for top, below in zip(deal.displayed, deal.face_down, strict=True)]
    every = [w for stall in stalls for w in stall] + list(deal.set_aside)
    assert sorted(every) == list(range(1, 46))
    assert len(deal.set_aside) == 25
    assert first == TurnStarted(turn=1, seat=0)


def test_setup_is_reproducible_from_the_seed_and_varies_with_it_z3_z4() -> None:
    """Z-3, Z-4: the draw comes from the seeded generator only: same seed, same deal."""
    same = GAME.setup(config(3), Rng("seed-b", "setup"))
    assert same == GAME.setup(config(3), Rng("seed-b", "setup"))
    deals = {GAME.setup(config(3), Rng(f"seed-{i}", "setup"))[2].displayed for i in range(10)}  # type: ignore[attr-defined]
    assert len(deals) > 1


def test_seat_0_moves_first_z1() -> None:
    """Z-1: seat 0 (the rulebook's youngest player) takes the first turn, and it must roll (Z-6)."""
    state = fold(GAME, GAME.setup(config(3), Rng("seed-c", "setup")))
    assert GAME.pending(state) == [Pending(seat=0, decision="roll")]
    assert decisions(GAME.legal(state, 1)) == []


def test_every_stone_starts_in_the_bank_z2() -> None:
    """Z-2: 20 stones of each of five colours, all in the bank at the start."""
    state = fold(GAME, GAME.setup(config(2), Rng("seed-d", "setup")))
    view = GAME.view(state, None)
    assert isinstance(view, BazaarView)
    assert view.bank == {"red": 20, "blue": 20, "green": 20, "yellow": 20, "white": 20}
    assert all(sum(p.stones.values()) == 0 for p in view.players)


def test_view_shows_the_ten_equations_of_the_two_cards_z3() -> None:
    """Z-3: the exchange is the ten equations of the two drawn cards, numbered for ``Trade``."""
    state = fold(GAME, GAME.setup(config(2), Rng("seed-e", "setup")))
    view = GAME.view(state, 0)
    assert isinstance(view, BazaarView)
    assert [eq.index for eq in view.exchange] == list(range(10))
    assert [eq.card for eq in view.exchange] == [state.exchange[0]] * 5 + [state.exchange[1]] * 5


def test_solitaire_turns_up_one_ware_and_has_no_stalls_z12() -> None:
    """Z-12: solitaire: two exchange cards and one ware face up, no stalls."""
    events = GAME.setup(config(1), Rng("seed-f", "setup"))
    assert isinstance(events[2], SolitaireWareDealt)
    state = fold(GAME, events)
    view = GAME.view(state, 0)
    assert isinstance(view, BazaarView)
    assert view.solitaire and view.stalls == () and view.solitaire_ware is not None
    assert view.solitaire_turn_limit == 100
    assert len(view.exchange) == 10
