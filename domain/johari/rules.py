"""Johari's rules (J-6..J-19): the set-up, ``decide`` (one match over the commands) and the automatic steps
of the Market Day loop (turn order, rounds, days, the end)."""

from __future__ import annotations

import msgspec

from domain.core import Command, Event, GameConfig, Rejected, Rng, shown
from domain.johari import actions
from domain.johari.commands import (
    AddJewelerCard,
    CashGoldCard,
    ChooseJewelerGem,
    DiscardFake,
    DiscardForAdvance,
    ExchangeGive,
    ExchangeTake,
    HireNoble,
    KeepGoldCards,
    PayNobleCard,
    PayNobleGold,
    PickCard,
    PlaceNoble,
    PlayActionCard,
    Purchase,
    SellToCollector,
    TradeFromStore,
)
from domain.johari.components import (
    COMPONENTS,
    STORES,
    card_type,
    parse_place,
    place_name,
    store_of,
)
from domain.johari.events import (
    ActionCardPlayed,
    ActionCardsRevealed,
    ActionSkipped,
    CardsDealt,
    DayEnded,
    DayStarted,
    DiscardReshuffled,
    FakeDiscarded,
    GameEnded,
    GameStarted,
    GoldCardCashed,
    GoldCardsKept,
    JewelerCardSelected,
    NoblesAdvanced,
    ProtectionGained,
    RoundStarted,
    SetupCardPicked,
    TurnEnded,
    TurnStarted,
)
from domain.johari.evolve import evolve
from domain.johari.legal import COMMANDS, DECISIONS, blocked, decision, has_choice
from domain.johari.nobles import action_cost, has, resolved_action
from domain.johari.scoring import ranking, score
from domain.johari.state import Decision, State, booths, card, gold_order, place_index

replace = msgspec.structs.replace

# ================================================================ setup


def _deal(state: State, to_stores: int, rng: Rng) -> list[Event]:
    """J-7/J-9: ``to_stores`` cards into the Stores by type, then one per Booth; reshuffle when out."""
    targets: list[int | None] = [None] * to_stores + list(range(len(STORES), len(state.market)))
    pile = list(state.draw)
    discard = list(state.discard)
    events: list[Event] = []
    cards: list[int] = []
    places: list[str] = []
    for target in targets:
        if not pile:
            if cards:
                events.append(CardsDealt(cards=tuple(cards), places=tuple(places)))
                cards, places = [], []
            if not discard:
                break  # J-7: nothing left to deal; the market simply gets fewer cards
            pile = rng.shuffle(discard)
            discard = []
            events.append(DiscardReshuffled(draw_pile=tuple(pile), size=len(pile)))
        cid = pile.pop(0)
        cards.append(cid)
        places.append(place_name(store_of(card(cid)) if target is None else target))
    if cards:
        events.append(CardsDealt(cards=tuple(cards), places=tuple(places)))
    return events


def setup(config: GameConfig, rng: Rng) -> list[Event]:
    """J-6 Nobles, J-7 shuffled cards and first deal, J-8 random gold stack."""
    n = len(config.players)
    stack: list[int] = []
    for back in (1, 2, 3):  # J-6: 1s on top, then 2s, 3s at the bottom
        ids = sorted(nid for nid, noble in COMPONENTS.nobles.items() if noble.back == back)
        stack.extend(rng.shuffle(ids)[: COMPONENTS.nobles_per_back])
    track: tuple[int | None, ...] = (None, None, None, stack[1], stack[0])  # top two on spaces 5 and 4
    stack = stack[2:]
    draw = tuple(rng.shuffle(sorted(COMPONENTS.cards)))
    gold_stack = tuple(rng.shuffle(list(range(n))))
    started = GameStarted(
        players=config.players,
        gold_stack=gold_stack,
        noble_track=track,
        noble_stack=tuple(stack),
        noble_stack_size=len(stack),
        draw_pile=draw,
        draw_pile_size=len(draw),
    )
    return [started, *_deal(evolve(State(), started), n, rng)]


# ================================================================ the automatic steps


def _start_day(state: State, rng: Rng) -> list[Event]:
    """J-9: Nobles advance, a new one enters, the market is replenished; round 1 begins."""
    track = state.noble_track
    started = DayStarted(day=state.day + 1)
    advanced = NoblesAdvanced(leaving=track[0], entering=state.noble_stack[0] if state.noble_stack else None)
    after = evolve(evolve(state, started), advanced)
    return [started, advanced, *_deal(after, len(state.players), rng), RoundStarted(round=1)]


def _start_turn(state: State) -> list[Event]:
    """J-11/J-12/J-19: the richest player who has not acted starts their action, or skips it."""
    seat = next(s for s in gold_order(state) if not state.players[s].acted)
    player = state.players[seat]
    slot = state.round
    played = player.slots[slot - 1] or ""
    action = resolved_action(player, slot)
    cost = action_cost(player, action, slot)
    if player.gold < cost:
        return [ActionSkipped(seat=seat, card=played, action=action, cost=cost, reason="cannot_pay")]
    if not has_choice(state, seat, action, cost):
        return [ActionSkipped(seat=seat, card=played, action=action, cost=cost, reason="no_legal_choice")]
    events: list[Event] = [TurnStarted(seat=seat, card=played, action=action, cost=cost)]
    if cost:
        events.append(actions.gold_change(state, seat, -cost))
    now = state
    for event in events:
        now = evolve(now, event)
    if action == "baksheesh":
        # J-13 Baksheesh: +2 gold; J-16 baksheesh_plus_one: 3; baksheesh_protects: safe for the day.
        events.append(actions.gold_change(now, seat, 3 if has(player, "baksheesh_plus_one") else 2))
        if has(player, "baksheesh_protects"):
            events.append(ProtectionGained(seat=seat))
        events.append(TurnEnded(seat=seat))
    elif action == "bribe":
        # J-13 Bribe: safe from the Supervisor to the end of the day (already since this round's reveal, see
        # actions.protected); J-16 bribe_plus_gold: also +2 gold.
        events.append(ProtectionGained(seat=seat))
        if has(player, "bribe_plus_gold"):
            events.append(actions.gold_change(now, seat, 2))
        events.append(TurnEnded(seat=seat))
    return events


def _next_steps(state: State, rng: Rng) -> list[Event]:
    """The next automatic events, or none when a player's decision is awaited."""
    if state.phase == "setup_pick":
        return _start_day(state, rng) if state.setup_next >= len(state.players) else []
    if state.phase == "play":
        slot = state.round - 1
        if all(p.slots[slot] is not None for p in state.players):
            return [ActionCardsRevealed(cards=tuple(p.slots[slot] or "" for p in state.players))]
        return []
    if state.phase == "resolve":
        if state.turn is not None:
            return []
        if any(not p.acted for p in state.players):
            return _start_turn(state)
        if state.round < COMPONENTS.rounds_per_day:
            return [RoundStarted(round=state.round + 1)]
        return [DayEnded(day=state.day)]
    if state.phase == "day_end":
        if state.day >= COMPONENTS.market_days:
            scores = [score(p) for p in state.players]
            _, winners = ranking(scores)
            return [GameEnded(scores=tuple(s.total for s in scores), winners=winners)]
        return _start_day(state, rng)
    return []


def proceed(state: State, rng: Rng) -> list[Event]:
    """Run the automatic steps until a decision is owed or the game is over."""
    events: list[Event] = []
    while not blocked(state) and state.phase != "over":
        step = _next_steps(state, rng)
        if not step:
            break
        for event in step:
            state = evolve(state, event)
        events.extend(step)
    return events


# ================================================================ decide


def _why(state: State, seat: int, command: Command, owed: Decision) -> Rejected:
    """A refusal naming the ruling the command breaks."""
    player = state.players[seat]
    rule = DECISIONS[owed].rule
    match command:
        case PlayActionCard(card=name):
            if name not in player.hand:
                return Rejected("card_not_in_hand", rule="J-10", detail=f"{name} is not in your hand")
            return Rejected(
                "doppelganger_in_first_round",
                rule="J-13",
                detail="the Doppelganger is not playable in round 1",
            )
        case PickCard(card=cid):
            return Rejected(
                "card_not_in_market", rule="J-8", detail=f"card {cid} is not face up in the market"
            )
        case Purchase(place=place) | TradeFromStore(place=place):
            index = parse_place(place, booths(state))
            if index is None:
                return Rejected(
                    "no_such_place", rule="J-3", detail=f"there is no Store or Booth {shown(place)}"
                )
            if isinstance(command, TradeFromStore):
                if index >= len(STORES):
                    return Rejected(
                        "trade_needs_store", rule="J-13", detail="Trade takes from a Store, not a Booth"
                    )
                if command.to_display and not has(player, "trade_immediate"):
                    return Rejected(
                        "needs_noble", rule="J-16", detail="only trade_immediate adds to the display"
                    )
            return Rejected("empty_target", rule="J-19", detail=f"{place} is empty")
        case HireNoble(noble=noble):
            if noble not in state.noble_track:
                return Rejected(
                    "no_such_noble", rule="J-4", detail=f"Noble {noble} is not on the Noble track"
                )
            return Rejected("cannot_afford_noble", rule="J-13", detail="not enough gems of one type")
        case SellToCollector(wild_card=wild) if wild is not None and not has(player, "sale_wild_card"):
            return Rejected("needs_noble", rule="J-16", detail="a wild card needs the sale_wild_card Noble")
        case SellToCollector(colour=colour):
            return Rejected(
                "collector_refuses",
                rule="J-13",
                detail=f"you need more {colour} gems than every other player, and another player with one",
            )
        case AddJewelerCard(as_colour=colour) if colour is not None and not has(player, "sale_wild_card"):
            return Rejected("needs_noble", rule="J-16", detail="a wild card needs the sale_wild_card Noble")
        case AddJewelerCard(card=cid):
            return Rejected(
                "jeweler_impossible",
                rule="J-13",
                detail=f"card {cid} cannot complete a Jeweler sale of different types",
            )
        case DiscardForAdvance() if not has(player, "sale_discard_instead"):
            return Rejected(
                "needs_noble", rule="J-16", detail="discarding instead needs the sale_discard_instead Noble"
            )
        case PayNobleGold() if not has(player, "hire_with_gold"):
            return Rejected("needs_noble", rule="J-16", detail="paying gold needs the hire_with_gold Noble")
        case PayNobleCard(card=cid) if (
            cid in COMPONENTS.cards and card(cid).kind == "gold" and not has(player, "hire_with_gold")
        ):
            return Rejected("needs_noble", rule="J-16", detail="paying gold needs the hire_with_gold Noble")
        case PayNobleCard():
            return Rejected(
                "wrong_payment", rule="J-13", detail="pay with gem cards of one type from your display"
            )
        case ExchangeTake(card=cid) if state.turn is not None and state.turn.give is not None:
            in_market = cid in (c for m in state.market for c in m)
            if in_market and card_type(card(cid)) != card_type(card(state.turn.give)):
                return Rejected(
                    "exchange_type_mismatch", rule="J-13", detail="exchange needs a card of the same type"
                )
        case ExchangeGive(card=cid) if cid in player.trade:
            return Rejected(
                "trade_card_locked", rule="J-13", detail="cards on the Trade card cannot be exchanged"
            )
        case DiscardFake(card=cid):
            return Rejected(
                "not_a_fake", rule="J-13", detail=f"card {cid} is not a fake gem card of your display"
            )
    return Rejected(
        "illegal_choice", rule=rule, detail=f"{type(command).__name__} is not a legal {owed} choice"
    )


def _not_owed(state: State, seat: int) -> Rejected:
    """Why ``seat`` may not act now."""
    if state.phase == "over":
        return Rejected("game_over", rule="J-15", detail="the game has ended")
    if not 0 <= seat < len(state.players):
        return Rejected("no_such_seat", rule="J-1", detail=f"seat {seat} is not in this game")
    if blocked(state):
        return Rejected("waiting_for_others", rule="J-13", detail="other players must first cash or discard")
    rule = {"setup_pick": "J-8", "play": "J-10"}.get(state.phase, "J-11")
    return Rejected("not_your_turn", rule=rule, detail="you owe no decision now")


def _check(state: State, seat: int, command: Command) -> None:
    """J-19: ``command`` must answer the decision ``seat`` owes and be one of its legal choices (else Rejected)."""
    if type(command) not in COMMANDS:
        raise Rejected(
            "unknown_command", rule=None, detail=f"{type(command).__name__} is not a Johari command"
        )
    owed = decision(state, seat)
    if owed is None:
        raise _not_owed(state, seat)
    if type(command) not in DECISIONS[owed].answers:
        raise Rejected(
            "wrong_decision",
            rule=DECISIONS[owed].rule,
            detail=f"you owe a {owed} decision, not {type(command).__name__}",
        )
    if command not in DECISIONS[owed].options(state, seat):
        raise _why(state, seat, command, owed)


def decide(state: State, seat: int, command: Command, rng: Rng) -> list[Event]:
    """Check ``command`` against the decision ``seat`` owes; its events, then the automatic steps it unlocks."""
    _check(state, seat, command)
    player = state.players[seat]
    events: list[Event]
    match command:
        case PickCard(card=cid):
            index = next(i for i, m in enumerate(state.market) if cid in m)
            prestige = card(cid).kind == "prestige"
            events = [
                SetupCardPicked(
                    seat=seat,
                    place=place_name(index),
                    cards=() if prestige else (cid,),
                    prestige_cards=(cid,) if prestige else (),
                )
            ]
        case PlayActionCard(card=name):
            events = [ActionCardPlayed(seat=seat, slot=state.round, card=name)]
        case CashGoldCard(card=cid):
            events = [GoldCardCashed(seat=seat, card=cid), actions.gold_change(state, seat, card(cid).gold)]
        case KeepGoldCards():
            events = [GoldCardsKept(seat=seat, cards=player.cashable)]
        case DiscardFake(card=cid):
            events = [FakeDiscarded(seat=seat, card=cid)]
        case Purchase(place=place):
            events = actions.purchase(state, seat, place_index(state, place))
        case SellToCollector(colour=colour, wild_card=wild):
            events = actions.sell_to_collector(state, seat, colour, wild)
        case AddJewelerCard(card=cid, as_colour=colour):
            events = [JewelerCardSelected(seat=seat, card=cid, as_colour=colour)]
        case ChooseJewelerGem(card=cid):
            events = actions.sell_to_jeweler(state, seat, cid)
        case DiscardForAdvance(card=cid):
            events = actions.discard_for_advance(state, seat, cid)
        case TradeFromStore(place=place, to_display=to_display):
            events = actions.trade_from_store(state, seat, place_index(state, place), to_display)
        case HireNoble(noble=noble):
            events = actions.hire_noble(state, seat, noble)
        case PayNobleCard(card=cid):
            events = actions.pay_noble_card(state, seat, cid)
        case PayNobleGold(amount=amount):
            events = actions.pay_noble_gold(state, seat, amount)
        case PlaceNoble(slot=slot):
            events = actions.place_noble(state, seat, slot)
        case ExchangeGive(card=cid):
            events = actions.exchange_give(state, seat, cid)
        case ExchangeTake(card=cid):
            events = actions.exchange_take(state, seat, cid)
        case _:
            raise Rejected("unknown_command", detail=f"{type(command).__name__} is not a Johari command")
    after = state
    for event in events:
        after = evolve(after, event)
    return events + proceed(after, rng)
