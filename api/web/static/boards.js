// A board per game, drawn from the view JSON the API serves (the same for the live page and the replay).
// Each function returns one element; the page replaces the old board with it on every update.
import { el } from "/static/common.js";
import { amounts } from "/static/narrate.js";
import { ownEnd } from "/static/ending.js";

const gem = (colour, count, label) =>
  el("span", { class: `chip c-${colour}`, title: `${count} ${colour}` }, el("span", { class: "dot", "aria-hidden": "true" }), `${count}`, label ? ` ${label}` : "");

/** Coloured chips for {colour: count}, with a readable label for screen readers. */
export function chips(counts, order) {
  const colours = order || Object.keys(counts || {});
  return el("span", { class: "chips", role: "group", "aria-label": amounts(counts) },
    colours.filter((c) => (counts || {})[c] !== undefined).map((c) => gem(c, counts[c])));
}

const section = (title, ...children) => el("section", { class: "area", "aria-label": title }, el("h3", {}, title), ...children);
const fact = (name, value) => el("div", { class: "fact" }, el("span", { class: "muted" }, `${name} `), el("strong", {}, value));
const marker = (player, viewer) => (player.seat === viewer ? " (you)" : "");

// ---------------------------------------------------------------- Basari
function basariCard(card, caption) {
  if (!card) return el("div", { class: "card empty" }, caption || "no card");
  return el("div", { class: "card basari-card", role: "group", "aria-label": `${caption ? caption + ": " : ""}card ${card.id}, ${card.workers} workers, ${card.points} points, gems ${amounts(card.gems)}` },
    el("div", { class: "card-top" }, el("span", { class: "workers", title: "workers" }, `${card.workers} worker${card.workers === 1 ? "" : "s"}`), el("span", { class: "points" }, `${card.points}★`)),
    chips(card.gems, ["red", "yellow", "green", "blue"]),
    caption ? el("div", { class: "caption" }, caption) : null);
}

function basari(view, names) {
  const order = ["red", "yellow", "green", "blue"];
  const who = (s) => names[s] ?? `seat ${s}`;
  const header = el("div", { class: "row facts" },
    fact("Stage", `${view.stage} of ${view.stages}`), fact("Round", view.round), fact("Phase", view.over ? "game over" : view.phase.replace("_", " ")),
    fact("Draw pile", `${view.draw_pile} cards`), fact("Actions", view.actions.join(" ")),
    view.to_resolve.length ? fact("To resolve", view.to_resolve.join(" ")) : null);
  const stock = section("Gem stock", chips(view.stock, order));
  const players = section("Players", el("div", { class: "players" }, view.players.map((p) =>
    el("article", { class: `player${p.seat === view.viewer ? " me" : ""}`, "aria-label": `${p.name}${marker(p, view.viewer)}` },
      el("h4", {}, `${p.name}${marker(p, view.viewer)}`),
      el("div", { class: "row" }, fact("Points", p.points), fact("Workers", p.workers), fact("B bonus", p.action_b_this_stage)),
      el("div", {}, el("span", { class: "muted" }, "Gems "), chips(p.gems, order)),
      el("div", { class: "row" }, basariCard(p.current_card, "this round"),
        el("div", { class: "pick", role: "group", "aria-label": "action pick" },
          p.action ? el("span", { class: "action-badge" }, p.action) : view.phase === "choose" ? el("span", { class: "muted" }, p.picked ? "picked (hidden)" : "choosing…") : null)),
      p.cards.length ? el("details", {}, el("summary", {}, `${p.cards.length} cards collected`),
        el("div", { class: "row wrap" }, p.cards.map((c) => basariCard(c)))) : null))));
  let talks = null;
  if (view.negotiation) {
    const n = view.negotiation;
    talks = section(`Negotiation for action ${n.action}`,
      el("p", {}, `${who(n.first_bidder)} against ${who(n.opponent)}; ${who(n.to_move)} to move.`),
      el("ul", {}, n.bids.map((b) => el("li", {}, `${who(b.seat)}: `, b.gems ? chips(b.gems, order) : el("span", { class: "muted" }, "no bid yet")))),
      n.current_bid ? el("p", {}, "Bid to beat: ", chips(n.current_bid, order), ` by ${who(n.current_bidder)}`) : null,
      n.draft.length ? el("p", {}, `Bid being drafted: ${n.draft.map((c, i) => `${c} ${order[i]}`).join(", ")}`) : null);
    talks.classList.add("negotiation");
  }
  const d = view.d_turns.length ? section("Action D", el("p", {}, `Exchanging: ${view.d_turns.map(who).join(", ")}`)) : null;
  const over = view.over ? el("p", { class: "over" }, `Game over. Winner${view.winners.length > 1 ? "s" : ""}: ${view.winners.map(who).join(", ")}. Points: ${view.players.map((p, i) => `${who(i)} ${p.points}`).join(", ")}.`) : null;
  return el("div", { class: "board-basari" }, over, header, el("div", { class: "row wrap" }, stock, talks, d), players);
}

// ---------------------------------------------------------------- Bazaar
const BAZAAR_ORDER = ["red", "blue", "green", "yellow", "white"];
function ware(w, caption) {
  if (!w) return el("div", { class: "card empty" }, caption || "sold out");
  return el("div", { class: "card ware", "data-ware": w.id, role: "group", "aria-label": `${caption ? caption + ": " : ""}ware ${w.id}${w.star ? " with a star" : ""}, costs ${amounts(w.stones)}` },
    el("div", { class: "card-top" }, el("span", {}, `ware ${w.id}`), w.star ? el("span", { class: "points" }, "★") : null),
    chips(w.stones, BAZAAR_ORDER), caption ? el("div", { class: "caption" }, caption) : null);
}

function bazaar(view, names) {
  const who = (s) => names[s] ?? `seat ${s}`;
  const die = el("div", { class: `die${view.last_roll ? " c-" + view.last_roll : ""}`, role: "img", "aria-label": `die: ${view.last_roll || "not rolled"}` }, view.last_roll === "choice" ? "?" : view.last_roll ? "●" : "–");
  const header = el("div", { class: "row facts" }, fact("Turn", view.turn), fact("Up", view.current === null || view.over ? "–" : who(view.current)),
    fact("Phase", view.over ? "game over" : view.phase.replaceAll("_", " ")), el("div", { class: "fact" }, el("span", { class: "muted" }, "Die "), die, ` ${view.last_roll || ""}`),
    fact("Purchases", `${view.purchases_this_turn}/${view.purchases_allowed}`), view.stars_upgraded ? fact("Stars", "upgraded") : null);
  const exchange = section("The exchange", el("ol", { class: "equations" }, view.exchange.map((q) =>
    el("li", { "aria-label": `equation ${q.index + 1}: ${amounts(q.left)} equals ${amounts(q.right)}` },
      el("span", { class: "eq-no" }, `${q.index + 1}.`),
      el("span", { class: "side", "data-equation": q.index, "data-side": "left" }, chips(q.left, BAZAAR_ORDER)), el("span", { class: "eq" }, " ⇄ "),
      el("span", { class: "side", "data-equation": q.index, "data-side": "right" }, chips(q.right, BAZAAR_ORDER))))));
  const stalls = section("The stalls", el("div", { class: "row wrap" }, view.stalls.map((s) => ware(s.displayed, `stall ${s.stall + 1}: ${s.size} left`))),
    view.solitaire_ware ? ware(view.solitaire_ware, "solitaire ware") : null);
  const bank = section("Bank", chips(view.bank, BAZAAR_ORDER));
  const players = section("Players", el("div", { class: "players" }, view.players.map((p) =>
    el("article", { class: `player${p.seat === view.viewer ? " me" : ""}${p.seat === view.current ? " up" : ""}`, "aria-label": `${p.name}${marker(p, view.viewer)}` },
      el("h4", {}, `${p.name}${marker(p, view.viewer)}`),
      el("div", { class: "row" }, fact("Score", p.score), fact("Stones", `${p.stone_count}/${view.hand_limit}`), fact("Wares", p.wares.length)),
      el("div", {}, chips(p.stones, BAZAAR_ORDER))))));
  const limit = view.hand_limit_decision ? el("p", { class: "notice" }, `${who(view.hand_limit_decision.offender)} holds ${view.hand_limit_decision.excess} stones too many; ${who(view.hand_limit_decision.chooser)} chooses.`) : null;
  const over = view.over ? el("p", { class: "over" }, view.end_reason ? `Game over: ${ownEnd("bazaar", { reason: view.end_reason })}.` : "Game over.") : null;
  return el("div", { class: "board-bazaar" }, over, header, limit, el("div", { class: "row wrap top" }, exchange, el("div", {}, stalls, bank)), players);
}

// ---------------------------------------------------------------- Johari
function johariCards(components) {
  const byId = new Map(components.gem_cards.map((c) => [c.id, c]));
  const nobles = new Map(components.nobles.map((n) => [n.id, n]));
  return { byId, nobles };
}

export function describeJohariCard(card) {
  if (!card) return "unknown card";
  if (card.kind === "gold") return `gold card (${card.gold} gold)`;
  if (card.kind === "prestige") return `prestige card (${card.prestige ?? card.points ?? "?"} points)`;
  return `${card.colour} ${card.gems} gem${card.gems === 1 ? "" : "s"}${card.fake ? " (fake)" : ""}`;
}

function jcard(lookup, id) {
  const c = lookup.byId.get(id);
  const colour = c ? (c.kind === "gem" ? c.colour : c.kind) : "unknown";
  const face = !c ? "?" : c.kind === "gem" ? "◆".repeat(c.gems) : c.kind === "gold" ? `${c.gold}g` : `${c.prestige ?? c.points ?? "?"}p`;
  return el("span", { class: `jcard c-${colour}${c && c.fake ? " fake" : ""}`, "data-card": id, title: describeJohariCard(c), role: "img", "aria-label": describeJohariCard(c) }, face, c && c.fake ? el("span", { class: "fake-mark", "aria-hidden": "true" }, "✗") : null);
}

function johari(view, names, components) {
  const lookup = johariCards(components);
  const who = (s) => names[s] ?? `seat ${s}`;
  const header = el("div", { class: "row facts" }, fact("Day", `${view.day} of ${components.market_days}`), fact("Round", view.round),
    fact("Phase", view.phase.replaceAll("_", " ")), fact("Order", view.turn_order.map(who).join(" → ")),
    fact("Draw pile", view.draw_pile_size), fact("Discard", view.discard.length),
    view.turn ? fact("Acting", `${who(view.turn.seat)}: ${view.turn.action} (${view.turn.stage.replaceAll("_", " ")})`) : null);
  const places = Object.entries(view.market);
  const market = section("Market", el("div", { class: "market" }, places.map(([place, cards]) =>
    el("div", { class: `place ${place.startsWith("store") ? "store" : "booth"}`, "data-place": place, role: "group", "aria-label": `${place.replace("_", " ")}: ${cards.length} cards` },
      el("div", { class: "caption" }, place.replace("store_", "store ").replace(/booth_(\d)/, (_, n) => `booth ${Number(n) + 1}`)),
      el("div", { class: "cards" }, cards.length ? cards.map((id) => jcard(lookup, id)) : el("span", { class: "muted" }, "empty"))))));
  const nobles = section("Nobles", el("ol", { class: "noble-track", reversed: true }, ["5", "4", "3", "2", "1"].map((space) => {
    const id = view.noble_track[space];
    const noble = id ? lookup.nobles.get(id) : null;
    return el("li", { "aria-label": `space ${space}, costs ${view.noble_costs[space]}: ${noble ? noble.text : "empty"}` },
      el("strong", {}, `Space ${space}`), el("span", { class: "muted" }, ` costs ${view.noble_costs[space]} `), noble ? el("span", { class: "noble", "data-noble": id }, noble.text) : el("span", { class: "muted" }, "empty"));
  })), el("p", { class: "muted" }, `${view.noble_stack_size} nobles in the stack`));
  // J-11: the gold track has two rows; a token changes row when its player's turn in the round comes
  const max = components.gold_max;
  const rowOf = (p) => p.gold_row || (p.acted ? "bottom" : "top");
  const rows = ["top", "bottom"].map((row) => el("div", { class: "gold-row", role: "group", "aria-label": `gold track, ${row} row` },
    el("span", { class: "row-name" }, row),
    el("div", { class: "track" }, Array.from({ length: max + 1 }, (_, g) => {
      const here = view.players.filter((p) => p.gold === g && rowOf(p) === row);
      return el("span", { class: `space${g % 5 === 0 ? " five" : ""}`, title: `${g} gold` }, g % 5 === 0 ? el("span", { class: "num" }, g) : null,
        here.map((p) => el("span", { class: `token t${p.seat}`, role: "img", "aria-label": `${p.name}: ${g} gold` }, p.name[0])));
    }))));
  const gold = section("Gold track", el("div", { class: "gold-track", role: "group", "aria-label": "gold track" }, rows));
  const players = section("Players", el("div", { class: "players" }, view.players.map((p) =>
    el("article", { class: `player${p.seat === view.viewer ? " me" : ""}`, "aria-label": `${p.name}${marker(p, view.viewer)}` },
      el("h4", {}, el("span", { class: `token t${p.seat}`, "aria-hidden": "true" }, p.name[0]), ` ${p.name}${marker(p, view.viewer)}`),
      el("div", { class: "row" }, fact("Gold", p.gold), fact("Prestige cards", p.prestige_count ?? (p.prestige_cards || []).length), p.protected ? fact("Protected", "yes") : null),
      el("div", {}, el("span", { class: "muted" }, "Prestige tokens "), chips(p.gem_tokens, components.colours)),
      el("div", {}, el("span", { class: "muted" }, "Slots "), p.slots.map((s, i) => el("span", { class: "slot", role: "img", "aria-label": `slot ${i + 1}: ${s || "empty"}` }, s === "hidden" ? "?" : s || "·"))),
      el("div", {}, el("span", { class: "muted" }, "Display "), p.display.length ? p.display.map((id) => jcard(lookup, id)) : el("span", { class: "muted" }, "empty")),
      p.prestige_cards && p.prestige_cards.length ? el("div", {}, el("span", { class: "muted" }, "Prestige "), p.prestige_cards.map((id) => jcard(lookup, id))) : null,
      p.trade_card.length ? el("div", {}, el("span", { class: "muted" }, "Trade card "), p.trade_card.map((id) => jcard(lookup, id))) : null,
      p.nobles.length ? el("ul", { class: "nobles" }, p.nobles.map((id) => el("li", {}, lookup.nobles.get(id)?.text || `noble ${id}`))) : null,
      p.hand ? el("div", {}, el("span", { class: "muted" }, "Hand "), p.hand.map((name) => el("span", { class: "action-card", "data-action-card": name }, name))) : null))));
  const over = view.phase === "over" ? el("p", { class: "over" }, `Game over. Scores: ${view.scores.map((s, i) => `${who(i)} ${s}`).join(", ")}. Winner${view.winners.length > 1 ? "s" : ""}: ${view.winners.map(who).join(", ")}`) : null;
  return el("div", { class: "board-johari" }, over, header, gold, el("div", { class: "row wrap top" }, market, nobles), players);
}

const BOARDS = { basari, bazaar, johari };

/** The board of `game` for a view; `names` are the seats' names, `components` the game's published data. */
/** The board of `view`; `ending` (ending.js: who won, the scores, why), when given, stands in for the
 * board's own game-over line, or heads the board when the view has none (a game that ended by resignation
 * before its own end, e.g. during Johari's set-up). */
export function drawBoard(game, view, names, components, ending = null) {
  const board = BOARDS[game](view, names, components);
  const own = board.querySelector(":scope > .over");
  if (ending && own) own.replaceWith(ending);
  else if (ending) board.prepend(ending);
  return board;
}
