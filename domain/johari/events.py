"""Johari events (J-6..J-16): everything that happened, with every random outcome written in."""

from __future__ import annotations

from domain.core import Event
from domain.resign import Adjudicated, SeatResigned


class GameStarted(Event, tag="game_started", kw_only=True, frozen=True):
    """J-6/J-7/J-8: players, gold stack (bottom first), Noble track and stack, shuffled draw pile."""

    players: tuple[str, ...]
    gold_stack: tuple[int, ...]
    noble_track: tuple[int | None, ...]  # index 0 = space 1 .. index 4 = space 5
    noble_stack: tuple[int, ...]  # top first; secret (J-18)
    noble_stack_size: int
    draw_pile: tuple[int, ...]  # top first; secret (J-18)
    draw_pile_size: int


class CardsDealt(Event, tag="cards_dealt", kw_only=True, frozen=True):
    """J-7/J-9: cards drawn from the top of the pile, face up, into these places."""

    cards: tuple[int, ...]
    places: tuple[str, ...]


class DiscardReshuffled(Event, tag="discard_reshuffled", kw_only=True, frozen=True):
    """J-7: the discard pile, shuffled, became the new draw pile (order secret, J-18)."""

    draw_pile: tuple[int, ...]
    size: int


class SetupCardPicked(Event, tag="setup_card_picked", kw_only=True, frozen=True):
    """J-8: a player took one face-up card into their display (a Prestige Card into their Prestige Cards)."""

    seat: int
    place: str
    cards: tuple[int, ...]
    prestige_cards: tuple[int, ...]


class DayStarted(Event, tag="day_started", kw_only=True, frozen=True):
    """J-9: a Market Day began."""

    day: int


class NoblesAdvanced(Event, tag="nobles_advanced", kw_only=True, frozen=True):
    """J-9: every Noble moved one space toward 1; ``leaving`` left from space 1, ``entering`` took space 5."""

    leaving: int | None
    entering: int | None


class RoundStarted(Event, tag="round_started", kw_only=True, frozen=True):
    """J-10: a Market Round began; every player now plays an action card secretly."""

    round: int


class ActionCardPlayed(Event, tag="action_card_played", kw_only=True, frozen=True):
    """J-10: a player played an action card face down (``card`` is hidden from others until the reveal)."""

    seat: int
    slot: int
    card: str | None


class ActionCardsRevealed(Event, tag="action_cards_revealed", kw_only=True, frozen=True):
    """J-10: all played cards of this round, by seat, revealed together."""

    cards: tuple[str, ...]


class TurnStarted(Event, tag="turn_started", kw_only=True, frozen=True):
    """J-11/J-12: the richest player resolves ``action`` (Doppelganger: the repeated one) at ``cost``; their
    Gold Token changes row, so it goes on top of the tokens on its space."""

    seat: int
    card: str
    action: str
    cost: int


class ActionSkipped(Event, tag="action_skipped", kw_only=True, frozen=True):
    """J-12/J-19: the action was skipped, nothing paid (``cannot_pay`` or ``no_legal_choice``); the Gold Token
    still changes row and goes on top of the tokens on its space (J-11)."""

    seat: int
    card: str
    action: str
    cost: int
    reason: str


class GoldChanged(Event, tag="gold_changed", kw_only=True, frozen=True):
    """J-5/J-12: a Gold Token moved by ``delta`` (clamped to the track) to ``gold``, on top of that space."""

    seat: int
    delta: int
    gold: int


class CardsTaken(Event, tag="cards_taken", kw_only=True, frozen=True):
    """J-13 Purchase/Trade: all cards of a place went to the display (Prestige Cards to the player's Prestige
    Cards), or all of them, Prestige and Gold Cards included, onto the Trade card (``to``)."""

    seat: int
    place: str
    to: str  # "display" or "trade"
    cards: tuple[int, ...]
    prestige_cards: tuple[int, ...]


class GoldCardCashed(Event, tag="gold_card_cashed", kw_only=True, frozen=True):
    """J-13/J-14: a Gold Card just taken was cashed and discarded."""

    seat: int
    card: int


class GoldCardsKept(Event, tag="gold_cards_kept", kw_only=True, frozen=True):
    """J-13/J-14: the remaining Gold Cards just taken stay in the display as wild cards."""

    seat: int
    cards: tuple[int, ...]


class JewelerCardSelected(Event, tag="jeweler_card_selected", kw_only=True, frozen=True):
    """J-13 Sale: a card was added to the Jeweler sale (``as_colour``: played as wild card, J-16)."""

    seat: int
    card: int
    as_colour: str | None = None


class CardsSold(Event, tag="cards_sold", kw_only=True, frozen=True):
    """J-13 Sale: cards sold to the ``jeweler`` or ``collector`` were discarded."""

    seat: int
    buyer: str
    cards: tuple[int, ...]
    wild_card: int | None = None


class GemTokenAdvanced(Event, tag="gem_token_advanced", kw_only=True, frozen=True):
    """J-13/J-16: a Gem Token advanced ``steps`` spaces (capped at the track's end) to ``position``."""

    seat: int
    colour: str
    steps: int
    position: int


class FakeDiscardsOwed(Event, tag="fake_discards_owed", kw_only=True, frozen=True):
    """J-13 Sale: these players must each choose one fake gem card to discard."""

    seats: tuple[int, ...]


class FakeDiscarded(Event, tag="fake_discarded", kw_only=True, frozen=True):
    """J-13 Sale: a player discarded a fake gem card (chosen, or their only one)."""

    seat: int
    card: int


class CardDiscardedForAdvance(Event, tag="card_discarded_for_advance", kw_only=True, frozen=True):
    """J-16 sale_discard_instead: a gem card was discarded instead of selling."""

    seat: int
    card: int


class ProtectionGained(Event, tag="protection_gained", kw_only=True, frozen=True):
    """J-13 Bribe / J-16 baksheesh_protects: the player loses no fake gems for the rest of the day (they were
    already safe since the reveal of this round, see ``actions.protected``)."""

    seat: int


class NobleHireStarted(Event, tag="noble_hire_started", kw_only=True, frozen=True):
    """J-13 Trade: the player started hiring a Noble costing ``cost`` gems of one type."""

    seat: int
    noble: int
    cost: int


class NoblePaid(Event, tag="noble_paid", kw_only=True, frozen=True):
    """J-13/J-16: a card (discarded) or track gold went toward the Noble; ``remaining`` is still owed."""

    seat: int
    card: int | None
    gold: int
    remaining: int


class NobleHired(Event, tag="noble_hired", kw_only=True, frozen=True):
    """J-13 Trade: the Noble left track ``space`` and joined the player; its ability works from now."""

    seat: int
    noble: int
    space: int


class NoblePlaced(Event, tag="noble_placed", kw_only=True, frozen=True):
    """J-16: a slot-discount Noble was put on card slot ``slot``."""

    seat: int
    noble: int
    slot: int


class ExchangeCardChosen(Event, tag="exchange_card_chosen", kw_only=True, frozen=True):
    """J-13 Exchange: the card the player will give away."""

    seat: int
    card: int


class CardsExchanged(Event, tag="cards_exchanged", kw_only=True, frozen=True):
    """J-13 Exchange: ``given`` went to ``given_to``; ``taken`` came from ``place``."""

    seat: int
    given: int
    given_to: str
    place: str
    taken: int


class TurnEnded(Event, tag="turn_ended", kw_only=True, frozen=True):
    """J-11: the player has acted this round."""

    seat: int


class DayEnded(Event, tag="day_ended", kw_only=True, frozen=True):
    """J-14: action cards return, Trade cards go to displays, Bribe protection ends."""

    day: int


class GameEnded(Event, tag="game_ended", kw_only=True, frozen=True):
    """J-15: final scoring after Market Day 10; scores and winners with the tie-break applied."""

    scores: tuple[int, ...]
    winners: tuple[int, ...]


JohariEvent = (
    GameStarted
    | CardsDealt
    | DiscardReshuffled
    | SetupCardPicked
    | DayStarted
    | NoblesAdvanced
    | RoundStarted
    | ActionCardPlayed
    | ActionCardsRevealed
    | TurnStarted
    | ActionSkipped
    | GoldChanged
    | CardsTaken
    | GoldCardCashed
    | GoldCardsKept
    | JewelerCardSelected
    | CardsSold
    | GemTokenAdvanced
    | FakeDiscardsOwed
    | FakeDiscarded
    | CardDiscardedForAdvance
    | ProtectionGained
    | NobleHireStarted
    | NoblePaid
    | NobleHired
    | NoblePlaced
    | ExchangeCardChosen
    | CardsExchanged
    | TurnEnded
    | DayEnded
    | GameEnded
    | SeatResigned
    | Adjudicated
)
