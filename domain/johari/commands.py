"""Johari commands (J-8, J-10, J-13, J-16): what a seat may send; multi-step choices are split into steps.

Step protocols (each step's ``legal`` list stays small):

* Setup (J-8): ``pick_card`` once per player, bottom of the gold stack first.
* Market round (J-10): ``play_action_card`` names only the card; parameters come at the player's turn.
* Gold Cards just taken (Purchase, Trade to display, end of day): ``cash_gold_card`` one card at a time,
  then ``keep_gold_cards`` keeps the rest as wild cards.
* Sale (J-13): one ``sell_to_collector``; or ``add_jeweler_card`` repeatedly (only cards that still allow
  a complete Jeweler sale are offered) until 4 (3 with the Noble) are chosen, then ``choose_jeweler_gem``;
  or, with the Noble, ``discard_for_advance``. The first ``add_jeweler_card`` commits to a Jeweler sale.
* Trade (J-13): ``trade_from_store``; or ``hire_noble`` then ``pay_noble_card`` / ``pay_noble_gold``
  until the cost is covered (the first gem card fixes the colour), then ``place_noble`` for a slot Noble.
* Exchange (J-13): ``exchange_give`` (a card of your display), then ``exchange_take`` (a market card).
* After another player's sale: ``discard_fake`` (only when you hold two or more fakes; one is discarded
  for you).
"""

from __future__ import annotations

from typing import Literal

from domain.core import Command
from domain.resign import Adjudicate, Resign

ActionName = Literal["purchase", "sale", "trade", "baksheesh", "bribe", "exchange", "doppelganger"]
Colour = Literal["red", "blue", "green", "white"]


class PickCard(Command, tag="pick_card", kw_only=True, frozen=True):
    """J-8: take one face-up card from a Store or Booth into your display during set-up."""

    card: int


class PlayActionCard(Command, tag="play_action_card", kw_only=True, frozen=True):
    """J-10: secretly play an action card from hand into your leftmost empty slot."""

    card: ActionName


class CashGoldCard(Command, tag="cash_gold_card", kw_only=True, frozen=True):
    """J-13/J-14 step (repeatable): cash one Gold Card just taken; finish with keep_gold_cards."""

    card: int


class KeepGoldCards(Command, tag="keep_gold_cards", kw_only=True, frozen=True):
    """J-13/J-14 last step: keep the Gold Cards not cashed as wild cards for Sales."""


class DiscardFake(Command, tag="discard_fake", kw_only=True, frozen=True):
    """J-13: after another player's Sale, discard one fake gem card of your choice from your display."""

    card: int


class Purchase(Command, tag="purchase", kw_only=True, frozen=True):
    """J-13 Purchase: take all cards of one Store or Booth (``store_red``..``store_gold``, ``booth_0``..)."""

    place: str


class SellToCollector(Command, tag="sell_to_collector", kw_only=True, frozen=True):
    """J-13 Sale: sell all your cards of one colour to a Collector (``wild_card``: Noble J-16)."""

    colour: Colour
    wild_card: int | None = None


class AddJewelerCard(Command, tag="add_jeweler_card", kw_only=True, frozen=True):
    """J-13 Jeweler step (repeat until 4, or 3 with the Noble): add a card; ``as_colour``: wild (J-16)."""

    card: int
    as_colour: Colour | None = None


class ChooseJewelerGem(Command, tag="choose_jeweler_gem", kw_only=True, frozen=True):
    """J-13 Jeweler last step: the sold gem card whose gems advance its colour's Gem Token."""

    card: int


class DiscardForAdvance(Command, tag="discard_for_advance", kw_only=True, frozen=True):
    """J-16 sale_discard_instead: instead of selling, discard a gem card to advance its token 1 space."""

    card: int


class TradeFromStore(Command, tag="trade_from_store", kw_only=True, frozen=True):
    """J-13 Trade: take all cards of one Store onto your Trade card (``to_display``: Noble J-16)."""

    place: str
    to_display: bool = False


class HireNoble(Command, tag="hire_noble", kw_only=True, frozen=True):
    """J-13 Trade step 1: the Noble (id) to hire from the track; then pay_noble_card/pay_noble_gold."""

    noble: int


class PayNobleCard(Command, tag="pay_noble_card", kw_only=True, frozen=True):
    """J-13 Trade step (repeat until paid): a gem card, the first fixing the colour (J-16: Gold Cards)."""

    card: int


class PayNobleGold(Command, tag="pay_noble_gold", kw_only=True, frozen=True):
    """J-16 hire_with_gold step (repeat until paid): track gold toward the Noble, one gold per gem."""

    amount: int


class PlaceNoble(Command, tag="place_noble", kw_only=True, frozen=True):
    """J-16 Trade last step for a slot-discount Noble: the card slot (1..3) it sits on."""

    slot: int


class ExchangeGive(Command, tag="exchange_give", kw_only=True, frozen=True):
    """J-13 Exchange step 1: the card of your display to give away; then exchange_take."""

    card: int


class ExchangeTake(Command, tag="exchange_take", kw_only=True, frozen=True):
    """J-13 Exchange step 2: the Store or Booth card (same type) to take in its place."""

    card: int


JohariCommand = (
    PickCard
    | PlayActionCard
    | CashGoldCard
    | KeepGoldCards
    | DiscardFake
    | Purchase
    | SellToCollector
    | AddJewelerCard
    | ChooseJewelerGem
    | DiscardForAdvance
    | TradeFromStore
    | HireNoble
    | PayNobleCard
    | PayNobleGold
    | PlaceNoble
    | ExchangeGive
    | ExchangeTake
    | Resign
    | Adjudicate
)
