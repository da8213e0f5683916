// Basari's negotiation (B-8) as a person makes it: a stepper per gem colour composes the bid, the page says
// whether it beats the bid on the table before it is sent, one button sends it and one accepts.
// Whether a bid beats is read from the server's `legal` list (the whole bids it lists are exactly the
// beating ones), never decided here: the rule lives in the server alone (domain/basari/bids.py).
import { el } from "/static/common.js";
import { amounts } from "/static/narrate.js";

const ORDER = ["red", "yellow", "green", "blue"]; // the gems' value order (B-8), as the board shows them
const SYMBOL = { red: "◆", yellow: "●", green: "▲", blue: "■" }; // a shape per colour, not colour alone

let composed = { red: 0, yellow: 0, green: 0, blue: 0 }; // kept across redraws while the person composes

const key = (gems) => ORDER.map((c) => (gems && gems[c]) || 0).join(",");

/** Whether `legal` is a negotiation's (accept, whole bids or bid steps). */
export function isNegotiation(legal) {
  return legal.some((c) => c.type === "bid" || c.type === "bid_colour" || c.type === "accept");
}

/** The verdict on the composed bid from `legal`: {beats: true|false|null, words, prompt}; null when the
 * list is step-wise (too many beating bids to list whole) and only the red count can be checked here;
 * `prompt` while nothing is composed (nothing to send yet, but nothing refused either). */
function verdict(legal, current, bidderName) {
  const table = current ? `${amounts(current)} by ${bidderName}` : null;
  const total = ORDER.reduce((sum, c) => sum + composed[c], 0);
  if (!total) return { beats: false, words: "Add gems to make a bid.", prompt: true };
  const whole = legal.filter((c) => c.type === "bid");
  if (whole.length || !legal.some((c) => c.type === "bid_colour")) {
    const beats = whole.some((c) => key(c.gems) === key(composed));
    const against = table ? `the bid on the table (${table})` : "an opening bid";
    return { beats, words: beats ? `${amounts(composed)} beats ${against}.` : `${amounts(composed)} does not beat ${against}: it needs more gems, or as many of higher value.` };
  }
  const reds = legal.filter((c) => c.type === "bid_colour" && c.colour === "red").map((c) => c.count);
  if (reds.length && !reds.includes(composed.red)) {
    return { beats: false, words: `No bid with ${composed.red} red beats the bid on the table (${table}).` };
  }
  return { beats: null, words: `${amounts(composed)}: with this many gems the server checks the bid against ${table ? `the bid on the table (${table})` : "the rules"} when you send it.` };
}

/** The negotiation panel: steppers, the verdict, "Send bid" and "Accept"; `send(command)` sends one. */
export function bidComposer({ legal, view, viewer, names, send }) {
  const talks = view.negotiation || {};
  const owned = (view.players[viewer] && view.players[viewer].gems) || {};
  for (const c of ORDER) composed[c] = Math.max(0, Math.min(composed[c], owned[c] || 0));
  const current = talks.current_bid || null;
  const bidder = names[talks.current_bidder] ?? `seat ${talks.current_bidder}`;
  const canBid = legal.some((c) => c.type === "bid" || c.type === "bid_colour");
  const accept = legal.find((c) => c.type === "accept");
  const said = el("p", { id: "bid-verdict", class: "verdict", role: "status", "aria-live": "polite" });
  const sendButton = el("button", { type: "button", id: "send-bid", class: "choice" }, "Send bid");
  const inputs = {};

  const update = () => {
    for (const c of ORDER) inputs[c].value = String(composed[c]);
    const found = verdict(legal, current, bidder);
    said.textContent = found.words;
    said.dataset.beats = String(found.beats);
    // red only for a bid that does not beat; the prompt before any gem is added is a neutral hint
    said.className = `verdict ${found.prompt ? "prompt" : found.beats === false ? "no" : "yes"}`;
    sendButton.disabled = found.beats === false;
    sendButton.textContent = composed && ORDER.some((c) => composed[c]) ? `Send bid: ${amounts(composed)}` : "Send bid";
  };
  const set = (colour, count) => { composed[colour] = Math.max(0, Math.min(count, owned[colour] || 0)); update(); };

  const steppers = ORDER.map((colour) => {
    const id = `bid-${colour}`;
    const input = el("input", { id, type: "number", min: 0, max: owned[colour] || 0, inputmode: "numeric", class: "count",
      onchange: () => set(colour, Number(input.value) || 0) });
    inputs[colour] = input;
    return el("div", { class: `stepper c-${colour}`, role: "group", "aria-label": `${colour} gems in the bid` },
      el("label", { for: id }, el("span", { class: "gem-symbol", "aria-hidden": "true" }, SYMBOL[colour]), ` ${colour}`,
        el("span", { class: "muted" }, ` of ${owned[colour] || 0}`)),
      el("button", { type: "button", class: "step", "data-colour": colour, "data-step": "-1", "aria-label": `one ${colour} less`, onclick: () => set(colour, composed[colour] - 1) }, "−"),
      input,
      el("button", { type: "button", class: "step", "data-colour": colour, "data-step": "1", "aria-label": `one ${colour} more`, onclick: () => set(colour, composed[colour] + 1) }, "+"));
  });
  sendButton.addEventListener("click", () => {
    const gems = { ...composed };
    composed = { red: 0, yellow: 0, green: 0, blue: 0 };
    send({ type: "bid", gems });
  });
  const table = current
    ? el("p", { class: "on-table" }, `On the table: ${amounts(current)} by ${bidder}.`)
    : el("p", { class: "on-table" }, "No bid on the table yet: you open the bidding.");
  const parts = [table];
  if (canBid) {
    parts.push(el("div", { class: "steppers", role: "group", "aria-label": "compose your bid" }, steppers), said,
      el("div", { class: "inline" }, sendButton));
  } else {
    parts.push(el("p", {}, "Your gems cannot beat it (B-8): you can only accept."));
  }
  if (accept) {
    parts.push(el("div", { class: "inline" }, el("button", { type: "button", id: "accept-bid", class: "choice accept", "data-command": JSON.stringify(accept), onclick: () => send(accept) },
      `Accept ${bidder}'s bid: take ${amounts(current)}, ${bidder} performs ${talks.action}`)));
  }
  const panel = el("div", { id: "bid-composer", class: "bid-composer" }, parts);
  if (canBid) update();
  return panel;
}
