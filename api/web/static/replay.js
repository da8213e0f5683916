// The replay page: any version of a game (GET /state?at=N) drawn as a board, each event told in words.
import { el, api, pageData } from "/static/common.js";
import { drawBoard } from "/static/boards.js";
import { tellEvent } from "/static/narrate.js";
import { endingBanner } from "/static/ending.js";

const root = document.getElementById("replay");
const gameId = root.dataset.gameId;
const game = root.dataset.game;
const last = Number(root.dataset.version);
const components = pageData("components");
const board = document.getElementById("board");
const told = document.getElementById("told");
const at = document.getElementById("at");
const list = document.getElementById("events");
let names = [];
let events = new Map();
let result = null; // the game's result once it is over: the last version shows how it ended

async function go(version) {
  const v = Math.min(Math.max(1, version), last);
  at.value = v;
  const state = await api(`/v1/games/${gameId}/state?at=${v}`);
  const ending = v === last && result ? endingBanner(gameId, game, result, [...events.values()].map((e) => e.data), names) : null;
  board.replaceChildren(drawBoard(game, state.view, names, components, ending));
  const event = events.get(v);
  told.textContent = event ? `Version ${v}: ${tellEvent(game, event.data, names)}` : `Version ${v}.`;
  root.dataset.at = v;
  for (const item of list.querySelectorAll("[aria-current]")) item.removeAttribute("aria-current");
  const current = list.querySelector(`[data-version="${v}"]`);
  if (current) current.setAttribute("aria-current", "step");
}

document.getElementById("first").addEventListener("click", () => go(1));
document.getElementById("prev").addEventListener("click", () => go(Number(at.value) - 1));
document.getElementById("next").addEventListener("click", () => go(Number(at.value) + 1));
document.getElementById("last").addEventListener("click", () => go(last));
at.addEventListener("change", () => go(Number(at.value)));

(async () => {
  const detail = await api(`/v1/games/${gameId}`);
  names = detail.seats.map((s) => s.name);
  result = detail.status === "finished" ? detail.result : null;
  const page = await api(`/v1/games/${gameId}/events?limit=10000`);
  events = new Map(page.events.map((e) => [e.version, e]));
  list.replaceChildren(...page.events.map((e) => el("li", { "data-version": e.version },
    el("button", { type: "button", class: "link", onclick: () => go(e.version) }, `v${e.version}`), " ", tellEvent(game, e.data, names))));
  await go(1);
})().catch((failure) => { told.textContent = `Could not load the replay: ${failure.message}`; });
