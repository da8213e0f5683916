"""Z-15: the face-down order of the stalls, the unused wares and the die's future stay secret."""

from __future__ import annotations

import msgspec
import pytest

from domain.bazaar import GAME, BazaarOptions
from domain.bazaar.commands import Buy
from domain.bazaar.events import BazaarDealt, DieRolled, SolitaireWareDealt, WareBought
from domain.core import GameConfig, Rng, fold
from tests.support.scenario import given

from .tables import ONE_OF_EACH, STALLS, act, dealt, opening, rolled, table


def deal_of(players: int, seed: str) -> BazaarDealt:
    """The deal of a fresh game."""
    config = GameConfig(players=tuple(f"p{i}" for i in range(players)), options=BazaarOptions())
    deal = GAME.setup(config, Rng(seed, "setup"))[2]
    assert isinstance(deal, BazaarDealt)
    return deal


@pytest.mark.parametrize("viewer", [None, 0, 1, 2])
def test_redacted_deal_shows_only_stall_sizes_and_top_cards_z15(viewer: int | None) -> None:
    """Z-15: every seat and spectator sees the displayed wares and stall sizes, not the cards below."""
    deal = deal_of(3, "secret-1")
    redacted = GAME.redact(deal, viewer)
    assert isinstance(redacted, BazaarDealt)
    assert redacted.displayed == deal.displayed and redacted.sizes == (5, 5, 5, 5)
    assert redacted.face_down is None and redacted.set_aside is None
    body = msgspec.json.decode(msgspec.json.encode(redacted))
    assert body == {"type": "bazaar_dealt", "displayed": list(deal.displayed), "sizes": [5, 5, 5, 5],
                    "face_down": None, "set_aside": None}  # fmt: skip


def test_redacted_solitaire_deal_hides_the_unused_wares_z15() -> None:
    """Z-15: the unused wares are secret in solitaire too."""
    config = GameConfig(players=("solo",), options=BazaarOptions())
    deal = GAME.setup(config, Rng("secret-2", "setup"))[2]
    assert isinstance(deal, SolitaireWareDealt) and deal.set_aside is not None and len(deal.set_aside) == 44
    redacted = GAME.redact(deal, 0)
    assert redacted == SolitaireWareDealt(ware=deal.ware, set_aside=None)


def test_other_events_are_public_z15() -> None:
    """Z-15: everything else is public: rolls, trades, purchases (with the card turned up)."""
    event = WareBought(seat=0, ware=13, stall=0, paid=ONE_OF_EACH, stars=0, revealed=1)
    assert GAME.redact(event, 1) == event
    assert GAME.redact(rolled(0, "red"), None) == rolled(0, "red")


def test_face_down_order_cannot_be_told_from_views_or_redacted_events_z15() -> None:
    """Z-15: two bazaars differing only below the top cards look the same to everybody."""
    other = [(s[0], *reversed(s[1:])) for s in STALLS]
    first, second = opening(), opening(stalls=other)
    assert [GAME.redact(e, None) for e in first] == [GAME.redact(e, None) for e in second]
    for viewer in (None, 0, 1):
        assert GAME.view(fold(GAME, first), viewer) == GAME.view(fold(GAME, second), viewer)


def test_turned_up_card_becomes_public_through_the_purchase_z15_z4() -> None:
    """Z-15, Z-4: a fold of redacted events learns the turned-up card from ``WareBought.revealed``."""
    history = act([*table({0: ONE_OF_EACH}), rolled(0, "red")], 0, Buy(ware=13))
    redacted = [GAME.redact(e, 1) for e in history]
    public = fold(GAME, redacted)  # type: ignore[arg-type]
    full = given(GAME, history).state
    assert GAME.view(public, 1) == GAME.view(full, 1)


def test_the_die_is_drawn_when_rolled_not_at_setup_z15_z5() -> None:
    """Z-15, Z-5: no die face is fixed in advance; each roll draws from the generator of its own command."""
    config = GameConfig(players=("a", "b"), options=BazaarOptions())
    events = GAME.setup(config, Rng("secret-3", "setup"))
    assert not any(isinstance(e, DieRolled) for e in events)
    for e in events:
        assert GAME.redact(e, None) == e or isinstance(e, BazaarDealt)


def test_view_of_a_stall_names_only_its_displayed_ware_z15() -> None:
    """Z-15: the view carries stall sizes and displayed wares, never the face-down cards."""
    state = fold(GAME, [*opening(), *[]])
    view = msgspec.to_builtins(GAME.view(state, None))
    assert [s["size"] for s in view["stalls"]] == [5, 5, 5, 5]
    assert [s["displayed"]["id"] for s in view["stalls"]] == [s[0] for s in STALLS]
    assert set(view["stalls"][0]) == {"stall", "size", "displayed"}
    assert dealt(STALLS).face_down is not None
