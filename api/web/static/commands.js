// A command of `legal` as a button's words, naming where its card lies (Johari names cards by id: two
// cards alike in two booths must not read alike), and no field's raw value (no "wild card null").
import { tellCommand, amounts } from "/static/narrate.js";
import { describeJohariCard } from "/static/boards.js";

const placeName = (place) => String(place).replace(/^store_(\w+)$/, "the $1 store").replace(/^booth_(\d)$/, (_, n) => `booth ${Number(n) + 1}`);

/** Where card `id` lies in a Johari view, in words ("booth 2", "your display"), or "" when not shown. */
export function whereIsCard(view, id) {
  for (const [place, cards] of Object.entries(view.market || {})) if (cards.includes(id)) return placeName(place);
  const me = (view.players || []).find((p) => p.seat === view.viewer);
  if (me && me.display.includes(id)) return "your display";
  if (me && me.trade_card.includes(id)) return "your trade card";
  return "";
}

function johari(command, view, components) {
  const c = command;
  const card = (id) => {
    const found = components.gem_cards.find((g) => g.id === id);
    const where = whereIsCard(view, id);
    return `the ${found ? describeJohariCard(found) : `card ${id}`}${where ? ` in ${where}` : ""}`;
  };
  const noble = (id) => components.nobles.find((n) => n.id === id)?.text || `noble ${id}`;
  switch (c.type) {
    case "pick_card": return `Pick ${card(c.card)}`;
    case "purchase": return `Purchase every card of ${placeName(c.place)}`;
    case "trade_from_store": return `Trade for ${placeName(c.place)}'s cards${c.to_display ? ", into your display" : ""}`;
    case "sell_to_collector": return `Sell your ${c.colour} cards to a collector${c.wild_card === null || c.wild_card === undefined ? "" : `, ${card(c.wild_card)} counting as ${c.colour}`}`;
    case "add_jeweler_card": return `Add ${card(c.card)} to the jeweler's set${c.as_colour ? ` as ${c.as_colour}` : ""}`;
    case "choose_jeweler_gem": return `Advance the token of ${card(c.card)}`;
    case "discard_for_advance": return `Discard ${card(c.card)} to advance its token`;
    case "discard_fake": return `Discard ${card(c.card)}`;
    case "cash_gold_card": return `Cash ${card(c.card)}`;
    case "keep_gold_cards": return "Keep the gold cards not cashed, as wild cards";
    case "hire_noble": return `Hire the noble: ${noble(c.noble)}`;
    case "pay_noble_card": return `Pay the noble with ${card(c.card)}`;
    case "pay_noble_gold": return `Pay the noble ${c.amount} gold`;
    case "place_noble": return `Place the noble on slot ${c.slot}`;
    case "exchange_give": return `Give ${card(c.card)} in exchange`;
    case "exchange_take": return `Take ${card(c.card)} in exchange`;
    case "play_action_card": return `Play the ${c.card} card`;
    default: return tellCommand("johari", c);
  }
}

function bazaar(command, view) {
  const c = command;
  if (c.type === "trade") {
    const equation = (view.exchange || []).find((q) => q.index === c.equation);
    const take = c.give === "left" ? "right" : "left";
    return equation ? `Trade on equation ${c.equation + 1}: give ${amounts(equation[c.give])}, take ${amounts(equation[take])}` : tellCommand("bazaar", c);
  }
  if (c.type === "buy") {
    const stall = (view.stalls || []).find((s) => s.displayed && s.displayed.id === c.ware);
    return stall ? `Buy the ware of stall ${stall.stall + 1} for ${amounts(stall.displayed.stones)}` : tellCommand("bazaar", c);
  }
  return tellCommand("bazaar", c);
}

/** The words of `command` for the seat that sees `view` (`components`: the game's published data). */
export function commandLabel(game, command, view, components) {
  if (game === "johari") return johari(command, view, components);
  if (game === "bazaar") return bazaar(command, view);
  return tellCommand(game, command);
}

/** Labels made unique: a second command with the same words gets "(the second alike)", and so on. */
export function distinctLabels(labels) {
  const seen = new Map();
  const nth = ["", "second", "third", "fourth", "fifth", "sixth"];
  return labels.map((text) => {
    const n = (seen.get(text) || 0) + 1;
    seen.set(text, n);
    return n === 1 ? text : `${text} (the ${nth[n - 1] || `${n}th`} alike)`;
  });
}
