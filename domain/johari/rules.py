"""Johari decide/evolve (J-6..J-19): set-up, the Market Day loop, turn order and the decision dispatch."""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from domain.core import Command, Event, GameConfig, Pending, Rejected, Rng
from domain.johari import actions
from domain.johari.commands import (
    ActionName,
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
    ACTIONS,
    COLOURS,
    DATA,
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
    CardDiscardedForAdvance,
    CardsDealt,
    CardsExchanged,
    CardsSold,
    CardsTaken,
    DayEnded,
    DayStarted,
    DiscardReshuffled,
    ExchangeCardChosen,
    FakeDiscarded,
    FakeDiscardsOwed,
    GameEnded,
    GameStarted,
    GemTokenAdvanced,
    GoldCardCashed,
    GoldCardsKept,
    GoldChanged,
    JewelerCardSelected,
    NobleHired,
    NobleHireStarted,
    NoblePaid,
    NoblePlaced,
    NoblesAdvanced,
    ProtectionGained,
    RoundStarted,
    SetupCardPicked,
    TurnEnded,
    TurnStarted,
)
from domain.johari.nobles import action_cost, has, is_slot_noble, resolved_action
from domain.johari.scoring import ranking, score
from domain.johari.state import Decision, Player, State, Turn, booths, card, gold_order, with_player

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
        ids = sorted(nid for nid, noble in DATA.nobles.items() if noble.back == back)
        stack.extend(rng.shuffle(ids)[: DATA.nobles_per_back])
    track: tuple[int | None, ...] = (None, None, None, stack[1], stack[0])  # top two on spaces 5 and 4
    stack = stack[2:]
    draw = tuple(rng.shuffle(sorted(DATA.cards)))
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


# ================================================================ evolve


def _remove(cards: tuple[int, ...], *gone: int) -> tuple[int, ...]:
    """``cards`` without ``gone``."""
    return tuple(c for c in cards if c not in gone)


def _set_market(state: State, index: int, cards: tuple[int, ...]) -> State:
    """The state with one Store or Booth replaced."""
    market = list(state.market)
    market[index] = cards
    return replace(state, market=tuple(market))


def _player_update(state: State, seat: int, **changes: object) -> State:
    """The state with some fields of one player changed."""
    return with_player(state, seat, replace(state.players[seat], **changes))


def _all_players(state: State, fn: Callable[[Player], Player]) -> State:
    """The state with ``fn`` applied to every player."""
    return replace(state, players=tuple(fn(p) for p in state.players))


def _place(state: State, name: str) -> int:
    """The market index of a place name (stored events always name a real place)."""
    index = parse_place(name, booths(state))
    return 0 if index is None else index


def _on_top(state: State, seat: int) -> State:
    """J-11: the seat's Gold Token goes on top of the tokens on its space (a move, or a change of row)."""
    counter = state.stamp_counter + 1
    return replace(_player_update(state, seat, stamp=counter), stamp_counter=counter)


def evolve(state: State, event: Event) -> State:
    """Apply one event (never validates, never mutates ``state``)."""
    match event:
        case GameStarted():
            n = len(event.players)
            stamps = {seat: height for height, seat in enumerate(event.gold_stack)}
            players = tuple(
                Player(name=name, gold=DATA.gold_start, stamp=stamps.get(seat, 0))
                for seat, name in enumerate(event.players)
            )
            return State(
                phase="setup_pick",
                players=players,
                draw=event.draw_pile,
                market=((),) * (len(STORES) + n + 2),
                noble_track=event.noble_track,
                noble_stack=event.noble_stack,
                stamp_counter=n,
                setup_order=event.gold_stack,
            )
        case CardsDealt():
            market = [list(m) for m in state.market]
            for cid, place in zip(event.cards, event.places, strict=False):
                market[_place(state, place)].append(cid)
            return replace(state, draw=state.draw[len(event.cards) :], market=tuple(tuple(m) for m in market))
        case DiscardReshuffled():
            return replace(state, draw=state.draw + event.draw_pile, discard=())
        case SetupCardPicked():
            index = _place(state, event.place)
            state = _set_market(
                state, index, _remove(state.market[index], *event.cards, *event.prestige_cards)
            )
            p = state.players[event.seat]
            state = _player_update(
                state, event.seat, display=p.display + event.cards, prestige=p.prestige + event.prestige_cards
            )
            return replace(state, setup_next=state.setup_next + 1)
        case DayStarted():
            return replace(state, day=event.day)
        case NoblesAdvanced():
            return replace(
                state,
                noble_track=(*state.noble_track[1:], event.entering),
                noble_stack=state.noble_stack[1:] if event.entering is not None else state.noble_stack,
            )
        case RoundStarted():
            return replace(
                _all_players(state, lambda p: replace(p, acted=False)),
                round=event.round,
                phase="play",
                turn=None,
            )
        case ActionCardPlayed():
            p = state.players[event.seat]
            slots = list(p.slots)
            slots[event.slot - 1] = event.card
            hand = list(p.hand)
            if event.card in hand:
                hand.remove(event.card)
            return _player_update(state, event.seat, slots=tuple(slots), hand=tuple(hand))
        case ActionCardsRevealed():
            return replace(state, phase="resolve")
        case TurnStarted():
            stage = event.action
            return replace(
                _on_top(state, event.seat),
                turn=Turn(
                    seat=event.seat, card=event.card, action=event.action, cost=event.cost, stage=stage
                ),
            )
        case ActionSkipped():
            return _player_update(_on_top(state, event.seat), event.seat, acted=True)
        case TurnEnded():
            return replace(_player_update(state, event.seat, acted=True), turn=None)
        case GoldChanged():
            p = state.players[event.seat]
            if event.gold == p.gold:
                return state
            # J-11/J-12: a token that moves goes on top of the stack on its new space.
            return _player_update(_on_top(state, event.seat), event.seat, gold=event.gold)
        case CardsTaken():
            index = _place(state, event.place)
            state = _set_market(
                state, index, _remove(state.market[index], *event.cards, *event.prestige_cards)
            )
            p = state.players[event.seat]
            if event.to == "trade":
                # J-13 Trade: every card taken, Prestige and Gold Cards included, waits on the Trade card.
                p = replace(p, trade=p.trade + event.cards + event.prestige_cards)
            else:
                gold_cards = tuple(c for c in event.cards if card(c).kind == "gold")
                p = replace(
                    p,
                    display=p.display + event.cards,
                    prestige=p.prestige + event.prestige_cards,
                    cashable=p.cashable + gold_cards,
                )
            return with_player(state, event.seat, p)
        case GoldCardCashed():
            p = state.players[event.seat]
            state = _player_update(
                state,
                event.seat,
                display=_remove(p.display, event.card),
                cashable=_remove(p.cashable, event.card),
            )
            return replace(state, discard=(*state.discard, event.card))
        case GoldCardsKept():
            return _player_update(state, event.seat, cashable=())
        case JewelerCardSelected():
            turn = state.turn
            if turn is None:
                return state
            chosen = replace(turn, stage="jeweler", selection=(*turn.selection, event.card))
            if event.as_colour is not None:
                chosen = replace(chosen, wild_card=event.card, wild_colour=event.as_colour)
            return replace(state, turn=chosen)
        case CardsSold():
            p = state.players[event.seat]
            state = _player_update(state, event.seat, display=_remove(p.display, *event.cards))
            return replace(state, discard=state.discard + event.cards)
        case GemTokenAdvanced():
            p = state.players[event.seat]
            tokens = list(p.tokens)
            tokens[COLOURS.index(event.colour)] = event.position
            return _player_update(state, event.seat, tokens=tuple(tokens))
        case FakeDiscardsOwed():
            for seat in event.seats:
                state = _player_update(state, seat, owes_fake=True)
            return state
        case FakeDiscarded() | CardDiscardedForAdvance():
            p = state.players[event.seat]
            state = _player_update(state, event.seat, display=_remove(p.display, event.card), owes_fake=False)
            return replace(state, discard=(*state.discard, event.card))
        case ProtectionGained():
            return _player_update(state, event.seat, protected=True)
        case NobleHireStarted():
            if state.turn is None:
                return state
            turn = replace(state.turn, stage="pay_noble", noble=event.noble, remaining=event.cost)
            return replace(state, turn=turn)
        case NoblePaid():
            if event.card is not None:
                p = state.players[event.seat]
                state = _player_update(state, event.seat, display=_remove(p.display, event.card))
                state = replace(state, discard=(*state.discard, event.card))
            if state.turn is None:
                return state
            paying = replace(state.turn, remaining=event.remaining)
            if event.card is not None and card(event.card).kind == "gem":
                paying = replace(paying, pay_colour=card(event.card).colour)
            return replace(state, turn=paying)
        case NobleHired():
            track = tuple(None if n == event.noble else n for n in state.noble_track)
            p = state.players[event.seat]
            state = _player_update(state, event.seat, nobles=(*p.nobles, event.noble))
            turn = state.turn
            if turn is not None and is_slot_noble(event.noble):
                turn = replace(turn, stage="place_noble")
            return replace(state, noble_track=track, turn=turn)
        case NoblePlaced():
            p = state.players[event.seat]
            return _player_update(state, event.seat, noble_slots=(*p.noble_slots, (event.noble, event.slot)))
        case ExchangeCardChosen():
            if state.turn is None:
                return state
            return replace(state, turn=replace(state.turn, stage="exchange_take", give=event.card))
        case CardsExchanged():
            taken = event.taken
            p = state.players[event.seat]
            p = replace(p, display=_remove(p.display, event.given), prestige=_remove(p.prestige, event.given))
            if card(taken).kind == "prestige":
                p = replace(p, prestige=(*p.prestige, taken))
            else:
                p = replace(p, display=(*p.display, taken))
            source = _place(state, event.place)
            state = _set_market(state, source, _remove(state.market[source], taken))
            target = _place(state, event.given_to)
            state = _set_market(state, target, (*state.market[target], event.given))
            return with_player(state, event.seat, p)
        case DayEnded():

            def end_day(p: Player) -> Player:
                """J-14: the Trade card's cards join the display (Prestige Cards the Prestige Cards)."""
                gold_cards = tuple(c for c in p.trade if card(c).kind == "gold")
                prestige = tuple(c for c in p.trade if card(c).kind == "prestige")
                return replace(
                    p,
                    hand=ACTIONS,
                    slots=(None, None, None),
                    display=p.display + _remove(p.trade, *prestige),
                    prestige=p.prestige + prestige,
                    trade=(),
                    cashable=p.cashable + gold_cards,
                    protected=False,
                    acted=False,
                )

            return replace(_all_players(state, end_day), phase="day_end", turn=None)
        case GameEnded():
            return replace(state, phase="over", scores=event.scores, winners=event.winners)
    return state


# ================================================================ who owes what

STAGE_DECISIONS: dict[str, Decision] = {
    "purchase": "resolve_purchase",
    "sale": "resolve_sale",
    "trade": "resolve_trade",
    "pay_noble": "pay_noble",
    "place_noble": "place_noble",
    "exchange": "resolve_exchange",
    "exchange_take": "exchange_take",
}


def _blocked(state: State) -> bool:
    """J-13/J-14: Gold Card cashing and fake discards are settled before play goes on."""
    return any(p.cashable or p.owes_fake for p in state.players)


def decision(state: State, seat: int) -> Decision | None:
    """The decision ``seat`` owes now, if any."""
    if state.phase in ("new", "over") or not 0 <= seat < len(state.players):
        return None
    player = state.players[seat]
    if _blocked(state):
        if player.cashable:
            return "cash_gold_cards"
        if player.owes_fake:
            return "discard_fake"
        return None
    if state.phase == "setup_pick":
        order = state.setup_order
        return "setup_pick" if state.setup_next < len(order) and order[state.setup_next] == seat else None
    if state.phase == "play":
        return "play_action_card" if player.slots[state.round - 1] is None else None
    turn = state.turn
    if state.phase == "resolve" and turn is not None and turn.seat == seat:
        if turn.stage == "jeweler":
            full = len(turn.selection) >= actions.jeweler_need(player)
            return "jeweler_choose_gem" if full else "jeweler_pick"
        return STAGE_DECISIONS.get(turn.stage)
    return None


def pending(state: State) -> list[Pending[Decision]]:
    """Every seat that owes a decision now (several at once for secret plays, cashing and discards)."""
    out = []
    for seat in range(len(state.players)):
        owed = decision(state, seat)
        if owed is not None:
            out.append(Pending(seat=seat, decision=owed))
    return out


# ================================================================ legal choices


def _setup_options(state: State, seat: int) -> list[Command]:
    """J-8: any face-up card of a Store or Booth."""
    return [PickCard(card=c) for cards in state.market for c in cards]


def _play_options(state: State, seat: int) -> list[Command]:
    """J-10: any card in hand; J-13: never the Doppelganger in round 1."""
    hand = state.players[seat].hand
    return [PlayActionCard(card=c) for c in _action_names(hand) if c != "doppelganger" or state.round > 1]


ACTION_CARDS: tuple[ActionName, ...] = (
    "purchase",
    "sale",
    "trade",
    "baksheesh",
    "bribe",
    "exchange",
    "doppelganger",
)


def _action_names(hand: tuple[str, ...]) -> list[ActionName]:
    """The action cards in hand, typed for the command."""
    return [a for a in ACTION_CARDS if a in hand]


def _cash_options(state: State, seat: int) -> list[Command]:
    """J-13/J-14: cash any Gold Card just taken, or keep the rest."""
    out: list[Command] = [CashGoldCard(card=c) for c in state.players[seat].cashable]
    return [*out, KeepGoldCards()]


def _fake_options(state: State, seat: int) -> list[Command]:
    """J-13: any fake gem card of the display."""
    display = state.players[seat].display
    return [DiscardFake(card=c) for c in display if card(c).kind == "gem" and card(c).fake]


OPTIONS: dict[Decision, Callable[[State, int], list[Command]]] = {
    "setup_pick": _setup_options,
    "play_action_card": _play_options,
    "cash_gold_cards": _cash_options,
    "discard_fake": _fake_options,
    "resolve_purchase": actions.purchase_options,
    "resolve_sale": actions.sale_options,
    "jeweler_pick": actions.jeweler_add_options,
    "jeweler_choose_gem": actions.jeweler_gem_options,
    "resolve_trade": actions.trade_options,
    "pay_noble": actions.pay_options,
    "place_noble": actions.place_options,
    "resolve_exchange": actions.exchange_give_options,
    "exchange_take": actions.exchange_take_options,
}

# The ruling each decision is governed by (cited when a command is refused).
DECISION_RULES: dict[Decision, str] = {
    "setup_pick": "J-8",
    "play_action_card": "J-10",
    "cash_gold_cards": "J-13",
    "discard_fake": "J-13",
    "resolve_purchase": "J-13",
    "resolve_sale": "J-13",
    "jeweler_pick": "J-13",
    "jeweler_choose_gem": "J-13",
    "resolve_trade": "J-13",
    "pay_noble": "J-13",
    "place_noble": "J-16",
    "resolve_exchange": "J-13",
    "exchange_take": "J-13",
}

# Which decision each command answers.
COMMAND_DECISIONS: dict[type[Command], tuple[str, ...]] = {
    PickCard: ("setup_pick",),
    PlayActionCard: ("play_action_card",),
    CashGoldCard: ("cash_gold_cards",),
    KeepGoldCards: ("cash_gold_cards",),
    DiscardFake: ("discard_fake",),
    Purchase: ("resolve_purchase",),
    SellToCollector: ("resolve_sale",),
    AddJewelerCard: ("resolve_sale", "jeweler_pick"),
    ChooseJewelerGem: ("jeweler_choose_gem",),
    DiscardForAdvance: ("resolve_sale",),
    TradeFromStore: ("resolve_trade",),
    HireNoble: ("resolve_trade",),
    PayNobleCard: ("pay_noble",),
    PayNobleGold: ("pay_noble",),
    PlaceNoble: ("place_noble",),
    ExchangeGive: ("resolve_exchange",),
    ExchangeTake: ("exchange_take",),
}


def legal(state: State, seat: int) -> list[Command]:
    """Every command ``seat`` may send now (complete and finite)."""
    owed = decision(state, seat)
    return [] if owed is None else OPTIONS[owed](state, seat)


def has_choice(state: State, seat: int, action: str, cost: int) -> bool:
    """J-19: whether the action has any legal choice once its cost is paid."""
    paid = with_player(state, seat, replace(state.players[seat], gold=state.players[seat].gold - cost))
    match action:
        case "purchase":
            return bool(actions.purchase_options(paid, seat))
        case "sale":
            return bool(actions.sale_options(paid, seat))
        case "trade":
            return bool(actions.trade_options(paid, seat))
        case "exchange":
            return bool(actions.exchange_give_options(paid, seat))
    return action in ("baksheesh", "bribe")


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
        # J-13 Bribe: safe from the Supervisor for the day; J-16 bribe_plus_gold: also +2 gold.
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
        if state.round < DATA.rounds_per_day:
            return [RoundStarted(round=state.round + 1)]
        return [DayEnded(day=state.day)]
    if state.phase == "day_end":
        if state.day >= DATA.market_days:
            scores = [score(p) for p in state.players]
            _, winners = ranking(scores)
            return [GameEnded(scores=tuple(s.total for s in scores), winners=winners)]
        return _start_day(state, rng)
    return []


def proceed(state: State, rng: Rng) -> list[Event]:
    """Run the automatic steps until a decision is owed or the game is over."""
    events: list[Event] = []
    while not _blocked(state) and state.phase != "over":
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
    rule = DECISION_RULES[owed]
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
                return Rejected("no_such_place", rule="J-3", detail=f"there is no Store or Booth {place!r}")
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
            cid in DATA.cards and card(cid).kind == "gold" and not has(player, "hire_with_gold")
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
    if _blocked(state):
        return Rejected("waiting_for_others", rule="J-13", detail="other players must first cash or discard")
    rule = {"setup_pick": "J-8", "play": "J-10"}.get(state.phase, "J-11")
    return Rejected("not_your_turn", rule=rule, detail="you owe no decision now")


def _apply(state: State, seat: int, command: Command) -> list[Event]:
    """The events of an accepted command (before the automatic steps)."""
    player = state.players[seat]
    match command:
        case PickCard(card=cid):
            index = next(i for i, m in enumerate(state.market) if cid in m)
            prestige = card(cid).kind == "prestige"
            return [
                SetupCardPicked(
                    seat=seat,
                    place=place_name(index),
                    cards=() if prestige else (cid,),
                    prestige_cards=(cid,) if prestige else (),
                )
            ]
        case PlayActionCard(card=name):
            return [ActionCardPlayed(seat=seat, slot=state.round, card=name)]
        case CashGoldCard(card=cid):
            return [GoldCardCashed(seat=seat, card=cid), actions.gold_change(state, seat, card(cid).gold)]
        case KeepGoldCards():
            return [GoldCardsKept(seat=seat, cards=player.cashable)]
        case DiscardFake(card=cid):
            return [FakeDiscarded(seat=seat, card=cid)]
        case Purchase(place=place):
            return actions.purchase(state, seat, _place(state, place))
        case SellToCollector(colour=colour, wild_card=wild):
            return actions.sell_to_collector(state, seat, colour, wild)
        case AddJewelerCard(card=cid, as_colour=colour):
            return [JewelerCardSelected(seat=seat, card=cid, as_colour=colour)]
        case ChooseJewelerGem(card=cid):
            return actions.sell_to_jeweler(state, seat, cid)
        case DiscardForAdvance(card=cid):
            return actions.discard_for_advance(state, seat, cid)
        case TradeFromStore(place=place, to_display=to_display):
            return actions.trade_from_store(state, seat, _place(state, place), to_display)
        case HireNoble(noble=noble):
            return actions.hire_noble(state, seat, noble)
        case PayNobleCard(card=cid):
            return actions.pay_noble_card(state, seat, cid)
        case PayNobleGold(amount=amount):
            return actions.pay_noble_gold(state, seat, amount)
        case PlaceNoble(slot=slot):
            return actions.place_noble(state, seat, slot)
        case ExchangeGive(card=cid):
            return actions.exchange_give(state, seat, cid)
        case ExchangeTake(card=cid):
            return actions.exchange_take(state, seat, cid)
    raise Rejected("unknown_command", rule=None, detail=f"{type(command).__name__} is not a Johari command")


def decide(state: State, seat: int, command: Command, rng: Rng) -> list[Event]:
    """Validate ``command`` against the decision ``seat`` owes, then run the automatic steps it unlocks."""
    answers = COMMAND_DECISIONS.get(type(command))
    if answers is None:
        raise Rejected(
            "unknown_command", rule=None, detail=f"{type(command).__name__} is not a Johari command"
        )
    owed = decision(state, seat)
    if owed is None:
        raise _not_owed(state, seat)
    if owed not in answers:
        raise Rejected(
            "wrong_decision",
            rule=DECISION_RULES[owed],
            detail=f"you owe a {owed} decision, not {type(command).__name__}",
        )
    if command not in OPTIONS[owed](state, seat):
        raise _why(state, seat, command, owed)
    events = _apply(state, seat, command)
    after = state
    for event in events:
        after = evolve(after, event)
    return events + proceed(after, rng)
