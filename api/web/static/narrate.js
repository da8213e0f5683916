// Events and commands told in plain words ("Hanna raises to 1 red + 3 blue"), for the game log, the
// replay and the decision buttons. An event type not listed here is told by its name and fields.
import { ownEnd } from "/static/ending.js";

/** "1 red + 3 blue" from {red: 1, blue: 3}; "nothing" when empty. */
export function amounts(counts) {
  if (!counts) return "nothing";
  const parts = Object.entries(counts).filter(([, n]) => n).map(([colour, n]) => `${n} ${colour}`);
  return parts.length ? parts.join(" + ") : "nothing";
}

const ACTION_NAMES = { A: "A (points)", B: "B (worker bonus)", C: "C (gems)", D: "D (exchange gems)" };
const PLACE = (place) => String(place).replace("store_", "the ").replace(/booth_(\d)/, (_, n) => `booth ${Number(n) + 1}`).replace(/^the (\w+)$/, "the $1 store");

function basari(e, who) {
  switch (e.type) {
    case "game_started": return `The game starts: ${e.players.join(", ")}.`;
    case "pile_shuffled": return `Stage ${e.stage}: the ${e.size} bazaar cards are shuffled.`;
    case "cards_dealt": return `Round ${e.round} of stage ${e.stage}: a card is dealt to each player.`;
    case "action_chosen": return e.action ? `${who(e.seat)} picks action ${e.action}.` : `${who(e.seat)} picks an action in secret.`;
    case "actions_revealed": return `The picks are revealed: ${e.picks.map((a, s) => `${who(s)} ${a}`).join(", ")}.`;
    case "action_forfeited": return `Action ${e.action} is lost: ${e.seats.map(who).join(" and ")} all picked it.`;
    case "negotiation_opened": return `${who(e.first_bidder)} and ${who(e.opponent)} both want ${e.action}: ${who(e.first_bidder)} bids first.`;
    case "bid_drafted": return `${who(e.seat)} puts ${e.count} ${e.colour} into the bid.`;
    case "bid_placed": return `${who(e.seat)} raises to ${amounts(e.gems)} for ${e.action}.`;
    case "bid_accepted": return `${who(e.seat)} accepts ${amounts(e.gems)} from ${who(e.bidder)}, who performs ${e.action}.`;
    case "won_for_free": return `${who(e.seat)} gets ${e.action} for free.`;
    case "card_drawn": return `${who(e.seat)} draws a card from the pile.`;
    case "nothing_drawn": return `${who(e.seat)} draws nothing: the pile is empty.`;
    case "points_scored": return `${who(e.seat)} scores ${e.points} points.`;
    case "gems_taken": return `${who(e.seat)} takes ${amounts(e.received)} from the stock.`;
    case "action_d_opened": return `Action D: ${e.seats.map(who).join(", ")} exchange gems.`;
    case "gems_exchanged": return `${who(e.seat)} returns ${amounts(e.returned)} and takes ${amounts(e.taken)}.`;
    case "stage_scored": return `Stage ${e.stage} is scored: ${e.lines.map((l) => `${who(l.seat)} ${l.stage_total} (total ${l.running_total})`).join(", ")}.`;
    case "game_ended": return `The game is over. Winner${e.winners.length > 1 ? "s" : ""}: ${e.winners.map(who).join(" and ")}.`;
    default: return null;
  }
}

function bazaar(e, who) {
  switch (e.type) {
    case "game_started": return `The game starts: ${e.players.join(", ")}.`;
    case "exchange_drawn": return `The exchange cards ${e.cards.join(" and ")} are drawn.`;
    case "bazaar_dealt": return "The four stalls of wares are laid out.";
    case "turn_started": return `Turn ${e.turn}: ${who(e.seat)} is up.`;
    case "die_rolled": return e.choose ? `${who(e.seat)} rolls the free choice.` : `${who(e.seat)} rolls ${e.face} and takes a ${e.stone} stone.`;
    case "colour_chosen": return `${who(e.seat)} chooses a ${e.colour} stone.`;
    case "traded": return `${who(e.seat)} trades ${amounts(e.gave)} for ${amounts(e.took)}.`;
    case "ware_bought": return `${who(e.seat)} buys the ware of stall ${e.stall + 1}, paying ${amounts(e.paid)}.`;
    case "purchase_scored": return `${who(e.seat)} scores ${e.points} points (${e.stones_left} stones left).`;
    case "turn_ended": return `${who(e.seat)} ends the turn.`;
    case "hand_limit_broken": return `${who(e.offender)} holds ${e.excess} stones too many; ${who(e.chooser)} chooses which go back.`;
    case "excess_returned": return `${amounts(e.stones)} go back to the bank from ${who(e.offender)}.`;
    case "game_ended": return `The game is over: ${ownEnd("bazaar", e)}.`;
    default: return null;
  }
}

// J-12/J-19: why an action was skipped, in words
const SKIPPED = { cannot_pay: "they cannot pay its cost, so nothing is paid", no_legal_choice: "none of its choices is possible now, so nothing is paid" };

function johari(e, who) {
  switch (e.type) {
    case "game_started": return `The game starts: ${e.players.join(", ")}.`;
    case "cards_dealt": return `${e.cards.length} cards are dealt to the market.`;
    case "setup_card_picked": return `${who(e.seat)} picks from ${PLACE(e.place)}.`;
    case "day_started": return `Market day ${e.day} begins.`;
    case "nobles_advanced": return "The nobles move along their track.";
    case "round_started": return `Market round ${e.round}.`;
    case "action_card_played": return e.card ? `${who(e.seat)} plays ${e.card}.` : `${who(e.seat)} plays an action card face down.`;
    case "action_cards_revealed": return `The action cards are revealed: ${e.cards.map((c, s) => `${who(s)} ${c}`).join(", ")}.`;
    case "turn_started": return `${who(e.seat)} performs ${e.action}${e.cost ? ` for ${e.cost} gold` : ""}.`;
    case "action_skipped": return `${who(e.seat)} cannot perform ${e.action}: ${SKIPPED[e.reason] || String(e.reason).replaceAll("_", " ")}.`;
    case "gold_changed": return `${who(e.seat)} ${e.delta >= 0 ? "gains" : "pays"} ${Math.abs(e.delta)} gold (now ${e.gold}).`;
    case "cards_taken": return `${who(e.seat)} takes ${e.cards.length} card${e.cards.length === 1 ? "" : "s"} from ${PLACE(e.place)}.`;
    case "gold_card_cashed": return `${who(e.seat)} cashes a gold card.`;
    case "gold_cards_kept": return `${who(e.seat)} keeps gold cards as wild cards.`;
    case "jeweler_card_selected": return `${who(e.seat)} sets a card aside for the jeweler.`;
    case "cards_sold": return `${who(e.seat)} sells ${e.cards.length} card${e.cards.length === 1 ? "" : "s"} to the ${e.buyer}.`;
    case "gem_token_advanced": return `${who(e.seat)}'s ${e.colour} token advances ${e.steps} to ${e.position}.`;
    case "fake_discards_owed": return `${e.seats.map(who).join(", ")} must discard a fake gem.`;
    case "fake_discarded": return `${who(e.seat)} discards a fake gem.`;
    case "protection_gained": return `${who(e.seat)} is protected from fake-gem losses today.`;
    case "noble_hire_started": return `${who(e.seat)} hires a noble for ${e.cost}.`;
    case "noble_paid": return `${who(e.seat)} pays toward the noble (${e.remaining} left).`;
    case "noble_hired": return `${who(e.seat)} hires the noble from space ${e.space}.`;
    case "exchange_card_chosen": return `${who(e.seat)} offers a card in exchange.`;
    case "cards_exchanged": return `${who(e.seat)} exchanges cards with ${PLACE(e.place)}.`;
    case "turn_ended": return `${who(e.seat)} is done.`;
    case "day_ended": return `Market day ${e.day} ends.`;
    case "game_ended": return `The game is over. Winner${e.winners.length > 1 ? "s" : ""}: ${e.winners.map(who).join(" and ")}.`;
    default: return null;
  }
}

const TELLERS = { basari, bazaar, johari };

/** A clock time (ms since the epoch, as the clock events carry it) as the reader's local time of day. */
function clockTime(ms) {
  return new Date(ms).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
}

/** The events every game shares: resigning and the clocks (docs/api.md, "Clocks and timeouts"). */
function shared(e, who) {
  const due = (seats) => seats.map((s, seat) => (s.deadline ? `${who(seat)} must decide by ${clockTime(s.deadline)}` : null)).filter(Boolean);
  switch (e.type) {
    case "seat_resigned": return `${who(e.seat)} resigns.`;
    case "seat_timed_out": return `${who(e.seat)} ran out of time (timeout ${e.timeouts}); the server decides for them.`;
    case "clock_started": return `The clocks start${due(e.seats).length ? `: ${due(e.seats).join(", ")}` : ""}.`;
    case "clock_stamped": return due(e.seats).length ? `Clock: ${due(e.seats).join(", ")}.` : "Clock: nobody owes a decision.";
    default: return null;
  }
}

/** A field's value in words: a list item by item, a record as its fields, counts as amounts. */
function valueWords(v) {
  if (Array.isArray(v)) return v.map(valueWords).join(", ");
  if (typeof v !== "object" || v === null) return String(v);
  const entries = Object.entries(v);
  if (entries.every(([, n]) => typeof n === "number")) return amounts(v);
  return `(${entries.map(([k, n]) => `${k.replaceAll("_", " ")} ${valueWords(n)}`).join(", ")})`;
}

function generic(type, fields) {
  const words = type.replaceAll("_", " ");
  const rest = Object.entries(fields || {}).filter(([k]) => k !== "type")
    .map(([k, v]) => `${k.replaceAll("_", " ")} ${valueWords(v)}`);
  return `${words[0].toUpperCase()}${words.slice(1)}${rest.length ? ": " + rest.join("; ") : ""}.`;
}

/** An event (the `data` of /events) in plain words; `names` are the seats' names. */
export function tellEvent(game, data, names) {
  const who = (seat) => (names[seat] ?? `seat ${seat}`);
  return shared(data, who) || (TELLERS[game] && TELLERS[game](data, who)) || generic(data.type, data);
}

/** A command (an entry of `legal`) as a button label. */
export function tellCommand(game, command) {
  const c = command;
  switch (c.type) {
    case "choose_action": return `Pick action ${ACTION_NAMES[c.action] || c.action}`;
    case "bid": return `Bid ${amounts(c.gems)}`;
    case "bid_colour": return `Bid ${c.count} ${c.colour}`;
    case "accept": return "Accept the bid";
    case "exchange_gems": return `Return ${c.give || "nothing"}, take ${amounts(c.take)}`;
    case "take_gem": return `Take a ${c.colour} gem`;
    case "roll": return "Roll the die";
    case "choose_colour": return `Choose ${c.colour}`;
    case "trade": return `Trade on equation ${c.equation + 1}, giving the ${c.give} side`;
    case "buy": return `Buy ware ${c.ware}`;
    case "end_turn": return "End the turn";
    case "discard_excess": return `Return ${amounts(c.stones)}`;
    case "pick_card": return `Pick card ${c.card}`;
    case "play_action_card": return `Play ${c.card}`;
    case "purchase": return `Purchase from ${PLACE(c.place)}`;
    case "trade_from_store": return `Trade from ${PLACE(c.place)}${c.to_display ? " into the display" : ""}`;
    default: return generic(c.type, c);
  }
}
