// The replay page: any version of a game (GET /state?at=N) drawn as a board, each event told in words.
// It steps by event, by move and by round (steps.js), plays itself (one move at the chosen pace), and
// answers the keys Lichess uses: ← → a move, ↑ ↓ a round, Shift+← → an event, Home End the ends.
import { el, api, pageData, bound } from "/static/common.js";
import { drawBoard } from "/static/boards.js";
import { tellEvent } from "/static/narrate.js";
import { endingBanner } from "/static/ending.js";
import { replayStops, after, before, ordinal, moveStart } from "/static/steps.js";

const root = document.getElementById("replay");
const gameId = root.dataset.gameId;
const game = root.dataset.game;
const last = Number(root.dataset.version);
const components = pageData("components");
const board = document.getElementById("board");
const told = document.getElementById("told");
const where = document.getElementById("where");
const at = document.getElementById("at");
const list = document.getElementById("events");
const play = document.getElementById("play");
const pace = document.getElementById("pace");
let names = [];
let events = new Map();
let stops = { moves: [], rounds: [] };
let result = null; // the game's result once it is over: the last version shows how it ended
let shown = 1;
let playing = null; // the timer of autoplay's next move, while it plays

/** The words of `v`'s move up to `v`: what the position on the board came from. */
function moveWords(v) {
  const words = [];
  for (let version = moveStart(stops.moves, v); version <= v; version += 1) {
    const event = events.get(version);
    if (event) words.push(tellEvent(game, event.data, names));
  }
  return words.join(" ");
}

async function go(version) {
  const v = Math.min(Math.max(1, version), last);
  shown = v;
  at.value = v;
  const state = await api(`/v1/games/${gameId}/state?at=${v}`);
  if (shown !== v) return; // a later step overtook this one
  const ending = v === last && result ? endingBanner(gameId, game, result, [...events.values()].map((e) => e.data), names) : null;
  board.replaceChildren(drawBoard(game, state.view, names, components, ending));
  told.textContent = events.size ? `Version ${v}: ${moveWords(v)}` : `Version ${v}.`;
  where.textContent = `Move ${ordinal(stops.moves, v)} of ${stops.moves.length}` +
    (stops.rounds.length ? `, round ${ordinal(stops.rounds, v)} of ${stops.rounds.length}` : "") + ".";
  root.dataset.at = v;
  for (const item of list.querySelectorAll("[aria-current]")) item.removeAttribute("aria-current");
  const current = list.querySelector(`[data-version="${v}"]`);
  if (current) current.setAttribute("aria-current", "step");
}

/** Autoplay: one move at the chosen pace until the last version, or until stopped. */
function setPlaying(on) {
  clearTimeout(playing);
  playing = null;
  play.setAttribute("aria-pressed", String(on));
  play.textContent = on ? "Pause" : "Play";
  if (!on) return;
  const tick = async () => {
    if (shown >= last) { setPlaying(false); return; }
    await go(after(stops.moves, shown));
    if (play.getAttribute("aria-pressed") === "true") playing = setTimeout(tick, Number(pace.value));
  };
  playing = setTimeout(tick, Number(pace.value));
}

const STEPS = {
  first: () => 1,
  "prev-round": () => before(stops.rounds, shown),
  "prev-move": () => before(stops.moves, shown),
  prev: () => shown - 1,
  next: () => shown + 1,
  "next-move": () => after(stops.moves, shown),
  "next-round": () => after(stops.rounds, shown),
  last: () => last,
};
for (const [id, target] of Object.entries(STEPS)) {
  document.getElementById(id).addEventListener("click", () => { setPlaying(false); go(target()); });
}
play.addEventListener("click", () => setPlaying(play.getAttribute("aria-pressed") !== "true"));
at.addEventListener("change", () => { setPlaying(false); go(Number(at.value)); });

const KEYS = {
  ArrowLeft: (e) => (e.shiftKey ? "prev" : "prev-move"),
  ArrowRight: (e) => (e.shiftKey ? "next" : "next-move"),
  ArrowUp: () => "prev-round",
  ArrowDown: () => "next-round",
  Home: () => "first",
  End: () => "last",
};
document.addEventListener("keydown", (e) => {
  // the keys step the replay unless a field or a list box wants them (the version field, the pace)
  if (e.altKey || e.ctrlKey || e.metaKey || e.target.closest("input, select, textarea")) return;
  const step = KEYS[e.key] && KEYS[e.key](e);
  if (!step) return;
  e.preventDefault();
  document.getElementById(step).click();
});
bound(root);

(async () => {
  const detail = await api(`/v1/games/${gameId}`);
  names = detail.seats.map((s) => s.name);
  result = detail.status === "finished" ? detail.result : null;
  const page = await api(`/v1/games/${gameId}/events?limit=10000`);
  events = new Map(page.events.map((e) => [e.version, e]));
  stops = replayStops(game, page.events.filter((e) => e.version <= last));
  list.replaceChildren(...page.events.map((e) => el("li", { "data-version": e.version },
    el("button", { type: "button", class: "link", onclick: () => { setPlaying(false); go(e.version); } }, `v${e.version}`), " ", tellEvent(game, e.data, names))));
  await go(1);
})().catch((failure) => { told.textContent = `Could not load the replay: ${failure.message}`; });
