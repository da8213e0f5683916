"""The actions (J-13, J-16 Noble variants, J-19 empty targets): their legal choices and their events."""

from __future__ import annotations

import msgspec

from domain.core import Command, Event
from domain.johari.commands import (
    AddJewelerCard,
    ChooseJewelerGem,
    Colour,
    DiscardForAdvance,
    ExchangeGive,
    ExchangeTake,
    HireNoble,
    PayNobleCard,
    PayNobleGold,
    PlaceNoble,
    Purchase,
    SellToCollector,
    TradeFromStore,
)
from domain.johari.components import COLOURS, COMPONENTS, STORES, card_type, place_name, store_of
from domain.johari.events import (
    CardDiscardedForAdvance,
    CardsExchanged,
    CardsSold,
    CardsTaken,
    ExchangeCardChosen,
    FakeDiscarded,
    FakeDiscardsOwed,
    GemTokenAdvanced,
    GoldChanged,
    NobleHired,
    NobleHireStarted,
    NoblePaid,
    NoblePlaced,
    TurnEnded,
)
from domain.johari.nobles import (
    action_cost,
    colour_gems,
    has,
    hire_cost,
    hireable,
    is_slot_noble,
    payable_colours,
    resolved_action,
)
from domain.johari.state import Player, State, Turn, card, with_player

# ---------------------------------------------------------------- shared helpers


def gold_change(state: State, seat: int, delta: int) -> GoldChanged:
    """J-5: a gold move, clamped to 0..gold_max (more is lost, never below 0)."""
    gold = state.players[seat].gold
    return GoldChanged(seat=seat, delta=delta, gold=max(0, min(COMPONENTS.gold_max, gold + delta)))


def token_advance(state: State, seat: int, colour: str, steps: int) -> GemTokenAdvanced:
    """J-5: a Gem Token advance, never past the end of the prestige track."""
    position = state.players[seat].tokens[COLOURS.index(colour)]
    return GemTokenAdvanced(
        seat=seat, colour=colour, steps=steps, position=min(COMPONENTS.track_max, position + steps)
    )


def _split(cards: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Cards split into (others, Prestige Cards): Prestige Cards are kept beside the display (J-13)."""
    return (
        tuple(c for c in cards if card(c).kind != "prestige"),
        tuple(c for c in cards if card(c).kind == "prestige"),
    )


# ---------------------------------------------------------------- Purchase


def purchase_options(state: State, seat: int) -> list[Command]:
    """J-13 Purchase / J-19: every non-empty Store or Booth."""
    return [Purchase(place=place_name(i)) for i, cards in enumerate(state.market) if cards]


def purchase(state: State, seat: int, index: int) -> list[Event]:
    """J-13 Purchase: take all cards of the place; Gold Cards may then be cashed one by one."""
    others, prestige = _split(state.market[index])
    taken = CardsTaken(
        seat=seat, place=place_name(index), to="display", cards=others, prestige_cards=prestige
    )
    return [taken, TurnEnded(seat=seat)]


# ---------------------------------------------------------------- Sale


def jeweler_need(player: Player) -> int:
    """J-13 Jeweler: 4 cards; J-16 jeweler_three_types: 3."""
    return 3 if has(player, "jeweler_three_types") else 4


def _effective_colour(turn: Turn | None, cid: int) -> str | None:
    """A selected card's colour for the Jeweler (the wild card's chosen colour, J-16); None for gold."""
    if turn is not None and turn.wild_card == cid:
        return turn.wild_colour
    return card(cid).colour if card(cid).kind == "gem" else None


def jeweler_feasible(player: Player, selection: dict[int, str | None], wild_used: bool, need: int) -> bool:
    """J-13 Jeweler: whether the chosen cards can still grow into a valid sale.

    A valid sale is ``need`` cards: gem cards of pairwise different colours plus at most one Gold Card,
    with at least one gem card; J-16 sale_wild_card lets one gem card count as another colour.
    """
    gems_chosen = [col for col in selection.values() if col is not None]
    if len(set(gems_chosen)) != len(gems_chosen):
        return False
    gold_used = len(selection) - len(gems_chosen)
    if gold_used > 1 or len(selection) > need:
        return False
    rest = need - len(selection)
    missing = [c for c in COLOURS if c not in gems_chosen]
    unselected = [c for c in player.display if c not in selection]
    free_gems = [c for c in unselected if card(c).kind == "gem"]
    free_gold = sum(1 for c in unselected if card(c).kind == "gold")
    reachable = {card(c).colour for c in free_gems} & set(missing)
    distinct = len(reachable)
    if has(player, "sale_wild_card") and not wild_used and len(free_gems) > distinct:
        distinct += 1  # a spare gem card played as a missing colour
    distinct = min(distinct, len(missing))
    for gold in (0, 1) if gold_used == 0 and free_gold else (0,):
        gems_needed = rest - gold
        if 0 <= gems_needed <= distinct and len(gems_chosen) + gems_needed >= 1:
            return True
    return False


def _selection(turn: Turn | None) -> dict[int, str | None]:
    """The Jeweler cards chosen so far with their effective colours."""
    if turn is None:
        return {}
    return {c: _effective_colour(turn, c) for c in turn.selection}


def jeweler_add_options(state: State, seat: int) -> list[Command]:
    """J-13 Jeweler step: each card (and wild colour) that keeps a complete sale possible."""
    player = state.players[seat]
    turn = state.turn if state.turn is not None and state.turn.seat == seat else None
    chosen = _selection(turn)
    wild_used = turn is not None and turn.wild_card is not None
    need = jeweler_need(player)
    if len(chosen) >= need:
        return []
    wild_ok = has(player, "sale_wild_card") and not wild_used
    out: list[Command] = []
    for cid in player.display:
        if cid in chosen:
            continue
        info = card(cid)
        if info.kind == "gold":
            if jeweler_feasible(player, {**chosen, cid: None}, wild_used, need):
                out.append(AddJewelerCard(card=cid))
            continue
        if jeweler_feasible(player, {**chosen, cid: info.colour}, wild_used, need):
            out.append(AddJewelerCard(card=cid))
        if wild_ok:
            for colour in COLOURS:
                if colour != info.colour and jeweler_feasible(player, {**chosen, cid: colour}, True, need):
                    out.append(AddJewelerCard(card=cid, as_colour=_colour(colour)))
    return out


def _colour(colour: str) -> Colour:
    """A colour name typed as the command's Literal."""
    for known in ("red", "blue", "green", "white"):
        if colour == known:
            return known
    raise ValueError(colour)


def jeweler_gem_options(state: State, seat: int) -> list[Command]:
    """J-13 Jeweler: any sold gem card may be the one whose gems advance its token."""
    turn = state.turn
    if turn is None:
        return []
    return [ChooseJewelerGem(card=c) for c in turn.selection if card(c).kind == "gem"]


def _collector_counts(state: State, seat: int, colour: str) -> tuple[int, bool]:
    """The most gems of ``colour`` among the others, and whether any other owns a card of it."""
    best, anyone = 0, False
    for other, player in enumerate(state.players):
        if other == seat:
            continue
        best = max(best, colour_gems(player, colour))
        anyone = anyone or any(card(c).colour == colour for c in player.display)
    return best, anyone


def collector_options(state: State, seat: int) -> list[Command]:
    """J-13 Collector: colours where you own more gems than every other player and another owns one."""
    player = state.players[seat]
    out: list[Command] = []
    for colour in COLOURS:
        own = [c for c in player.display if card(c).colour == colour]
        if not own:
            continue
        mine = colour_gems(player, colour)
        second, anyone = _collector_counts(state, seat, colour)
        if not anyone:
            continue
        if mine > second:
            out.append(SellToCollector(colour=_colour(colour)))
        if has(player, "sale_wild_card"):
            for wild in player.display:
                info = card(wild)
                if info.kind == "gem" and info.colour != colour and mine + info.gems > second:
                    out.append(SellToCollector(colour=_colour(colour), wild_card=wild))
    return out


def discard_instead_options(state: State, seat: int) -> list[Command]:
    """J-16 sale_discard_instead: any gem card of the display."""
    player = state.players[seat]
    if not has(player, "sale_discard_instead"):
        return []
    return [DiscardForAdvance(card=c) for c in player.display if card(c).kind == "gem"]


def sale_options(state: State, seat: int) -> list[Command]:
    """J-13 Sale: Collector sales, first Jeweler picks, and the Noble's discard instead."""
    return (
        collector_options(state, seat)
        + jeweler_add_options(state, seat)
        + discard_instead_options(state, seat)
    )


def protected(state: State, seat: int) -> bool:
    """J-13 Bribe / J-16 baksheesh_protects: safe from fake discards from the reveal of the round the card was
    played in (also against a sale resolved before it) to the end of the day.

    A Bribe protects when it will be carried out: its player can pay it (nobody else moves their Gold
    Token, so what they can pay at the reveal they can pay on their turn); a Baksheesh is always free.
    """
    player = state.players[seat]
    if player.protected:
        return True
    if state.phase != "resolve" or state.round < 1:
        return False
    action = resolved_action(player, state.round)
    if action == "bribe":
        return player.gold >= action_cost(player, action, state.round)
    return action == "baksheesh" and has(player, "baksheesh_protects")


def supervisor(state: State, seller: int) -> list[Event]:
    """J-13: after a sale each other unprotected player with a fake discards one (their choice if several)."""
    owed: list[int] = []
    events: list[Event] = []
    for seat, player in enumerate(state.players):
        if seat == seller or protected(state, seat):
            continue
        fakes = [c for c in player.display if card(c).kind == "gem" and card(c).fake]
        if len(fakes) == 1:
            events.append(FakeDiscarded(seat=seat, card=fakes[0]))
        elif fakes:
            owed.append(seat)
    if owed:
        events.append(FakeDiscardsOwed(seats=tuple(owed)))
    return events


def sell_to_collector(state: State, seat: int, colour: str, wild: int | None) -> list[Event]:
    """J-13 Collector: sell all cards of the colour; advance by your gems minus the second most (+Nobles)."""
    player = state.players[seat]
    sold = tuple(c for c in player.display if card(c).colour == colour)
    mine = colour_gems(player, colour) + (card(wild).gems if wild is not None else 0)
    second, _ = _collector_counts(state, seat, colour)
    steps = mine - second
    if has(player, "collector_plus_one"):
        steps += 1
    if has(player, "collector_plus_two"):
        steps += 2
    if wild is not None:
        sold += (wild,)
    return [
        CardsSold(seat=seat, buyer="collector", cards=sold, wild_card=wild),
        token_advance(state, seat, colour, steps),
        *supervisor(state, seat),
        TurnEnded(seat=seat),
    ]


def sell_to_jeweler(state: State, seat: int, chosen: int) -> list[Event]:
    """J-13 Jeweler: discard the sold cards; the chosen gem card's colour advances by its gems."""
    turn = state.turn
    assert turn is not None
    colour = _effective_colour(turn, chosen) or ""
    return [
        CardsSold(seat=seat, buyer="jeweler", cards=turn.selection, wild_card=turn.wild_card),
        token_advance(state, seat, colour, card(chosen).gems),
        *supervisor(state, seat),
        TurnEnded(seat=seat),
    ]


def discard_for_advance(state: State, seat: int, cid: int) -> list[Event]:
    """J-16 sale_discard_instead: replaces the sale, so no Supervisor discards follow."""
    colour = card(cid).colour or ""
    return [
        CardDiscardedForAdvance(seat=seat, card=cid),
        token_advance(state, seat, colour, 1),
        TurnEnded(seat=seat),
    ]


# ---------------------------------------------------------------- Trade


def trade_options(state: State, seat: int) -> list[Command]:
    """J-13 Trade / J-19: a non-empty Store (to the display too with trade_immediate), or a payable Noble."""
    player = state.players[seat]
    out: list[Command] = []
    for index in range(len(STORES)):
        if state.market[index]:
            out.append(TradeFromStore(place=place_name(index)))
            if has(player, "trade_immediate"):
                out.append(TradeFromStore(place=place_name(index), to_display=True))
    out.extend(HireNoble(noble=n) for n in hireable(state, seat))
    return out


def trade_from_store(state: State, seat: int, index: int, to_display: bool) -> list[Event]:
    """J-13 Trade: the Store's cards go onto the Trade card (J-16 trade_immediate: to the display)."""
    others, prestige = _split(state.market[index])
    to = "display" if to_display else "trade"
    return [
        CardsTaken(seat=seat, place=place_name(index), to=to, cards=others, prestige_cards=prestige),
        TurnEnded(seat=seat),
    ]


def _after_hire(state: State, seat: int, noble: int) -> list[Event]:
    """J-16: immediate abilities on hiring; a slot Noble first waits for its slot."""
    if is_slot_noble(noble):
        return []
    events: list[Event] = []
    if COMPONENTS.nobles[noble].ability == "gold_seven":
        events.append(gold_change(state, seat, 7))
    events.append(TurnEnded(seat=seat))
    return events


def hire_noble(state: State, seat: int, noble: int) -> list[Event]:
    """J-13 Trade: hire a Noble; its cost is paid in steps (nothing to pay when the cost is 0)."""
    player = state.players[seat]
    space = state.noble_track.index(noble) + 1
    cost = hire_cost(player, space)
    events: list[Event] = [NobleHireStarted(seat=seat, noble=noble, cost=cost)]
    if cost == 0:
        events.append(NobleHired(seat=seat, noble=noble, space=space))
        events.extend(_after_hire(state, seat, noble))
    return events


def pay_options(state: State, seat: int) -> list[Command]:
    """J-13/J-16 payment step: gem cards of the paying colour; Gold Cards and track gold with the Noble."""
    turn = state.turn
    if turn is None:
        return []
    player = state.players[seat]
    colours = [turn.pay_colour] if turn.pay_colour else payable_colours(player, turn.remaining)
    out: list[Command] = [PayNobleCard(card=c) for c in player.display if card(c).colour in colours]
    if has(player, "hire_with_gold"):
        out.extend(PayNobleCard(card=c) for c in player.display if card(c).kind == "gold")
        out.extend(PayNobleGold(amount=a) for a in range(1, min(player.gold, turn.remaining) + 1))
    return out


def _paid(state: State, seat: int, remaining: int) -> list[Event]:
    """Once the cost is covered (no change given), the Noble is hired."""
    turn = state.turn
    if remaining > 0 or turn is None or turn.noble is None:
        return []
    space = state.noble_track.index(turn.noble) + 1
    return [NobleHired(seat=seat, noble=turn.noble, space=space), *_after_hire(state, seat, turn.noble)]


def pay_noble_card(state: State, seat: int, cid: int) -> list[Event]:
    """J-13: a gem card pays its gems (J-16 hire_with_gold: a Gold Card pays its gold)."""
    turn = state.turn
    assert turn is not None
    info = card(cid)
    remaining = turn.remaining - (info.gems if info.kind == "gem" else info.gold)
    return [
        NoblePaid(seat=seat, card=cid, gold=0, remaining=max(0, remaining)),
        *_paid(state, seat, remaining),
    ]


def pay_noble_gold(state: State, seat: int, amount: int) -> list[Event]:
    """J-16 hire_with_gold: track gold pays one gem each."""
    turn = state.turn
    assert turn is not None
    remaining = turn.remaining - amount
    paid = gold_change(state, seat, -amount)
    # the hiring's own gold effects (gold_seven) start from the gold left after this payment
    after = with_player(state, seat, msgspec.structs.replace(state.players[seat], gold=paid.gold))
    return [
        paid,
        NoblePaid(seat=seat, card=None, gold=amount, remaining=max(0, remaining)),
        *_paid(after, seat, remaining),
    ]


def place_options(state: State, seat: int) -> list[Command]:
    """J-16: a slot Noble may go on any of the three card slots."""
    return [PlaceNoble(slot=s) for s in (1, 2, 3)]


def place_noble(state: State, seat: int, slot: int) -> list[Event]:
    """J-16 slot_discount_1/2: the Noble sits on the chosen slot from now on."""
    turn = state.turn
    assert turn is not None and turn.noble is not None
    return [NoblePlaced(seat=seat, noble=turn.noble, slot=slot), TurnEnded(seat=seat)]


# ---------------------------------------------------------------- Exchange


def _matches(player: Player, given: int, taken: int) -> bool:
    """J-13: same type (J-16 exchange_any_type: any type)."""
    return has(player, "exchange_any_type") or card_type(card(given)) == card_type(card(taken))


def _market_cards(state: State) -> list[tuple[int, int]]:
    """Every face-up market card with its place index."""
    return [(index, cid) for index, cards in enumerate(state.market) for cid in cards]


def exchange_give_options(state: State, seat: int) -> list[Command]:
    """J-13 Exchange / J-19: display cards (never the Trade card's) with a matching market card."""
    player = state.players[seat]
    market = _market_cards(state)
    return [
        ExchangeGive(card=c)
        for c in (*player.display, *player.prestige)
        if any(_matches(player, c, m) for _, m in market)
    ]


def exchange_take_options(state: State, seat: int) -> list[Command]:
    """J-13 Exchange: market cards of the given card's type."""
    turn = state.turn
    if turn is None or turn.give is None:
        return []
    player = state.players[seat]
    give = turn.give
    return [ExchangeTake(card=m) for _, m in _market_cards(state) if _matches(player, give, m)]


def exchange_give(state: State, seat: int, cid: int) -> list[Event]:
    """J-13 Exchange, first step: the card to give."""
    return [ExchangeCardChosen(seat=seat, card=cid)]


def exchange_take(state: State, seat: int, taken: int) -> list[Event]:
    """J-13 Exchange: swap; the given card takes the taken card's Booth, or goes to its own Store (J-3)."""
    turn = state.turn
    assert turn is not None and turn.give is not None
    place = next(i for i, cards in enumerate(state.market) if taken in cards)
    given_to = place if place >= len(STORES) else store_of(card(turn.give))
    return [
        CardsExchanged(
            seat=seat,
            given=turn.give,
            given_to=place_name(given_to),
            place=place_name(place),
            taken=taken,
        ),
        TurnEnded(seat=seat),
    ]
