// Every page of a signed-in browser follows the account's notification stream (GET /v1/me/stream, the
// session cookie speaking for the account; docs/api.md "An account's notifications"): a game that starts
// (a lobby table that filled), an invitation, and "your turn" in another game, shown without reloading.
// The tab's title counts the other games waiting for a decision, "(2) Bazaar games", as Lichess does.
// Each notice is also dispatched as a `notice` event on `document`, for the page to act on (the lobby).
import { el, api } from "/static/common.js";
import { currentAccount } from "/static/account.js";

const TITLES = { basari: "Basari", bazaar: "Bazaar", johari: "Johari" };
const here = document.getElementById("game")?.dataset.gameId ?? null; // this page's game tells itself
const baseTitle = document.title;
const waiting = new Map(); // game id -> {game, version}: another game in which a decision of ours is due
let area = null;
const RECHECK_MS = 15_000; // no notice says a decision stopped being due: ask the flagged games this often

function drawTitle() {
  document.title = waiting.size ? `(${waiting.size}) ${baseTitle}` : baseTitle;
  document.documentElement.dataset.yourTurn = String(waiting.size);
}

/** A line in the page's notice area (made on first use at the top of the page), with its link. */
function announce(kind, words, href, linkWords) {
  if (!area) {
    area = el("section", { id: "notices", class: "notices", "aria-label": "Notifications", role: "status", "aria-live": "polite" });
    document.getElementById("main").prepend(area);
  }
  const line = el("p", { class: `notice-line ${kind}`, "data-kind": kind }, words, " ", href ? el("a", { href }, linkWords) : null, " ",
    el("button", { type: "button", class: "link dismiss", "aria-label": `Dismiss: ${words}`, onclick: () => line.remove() }, "Dismiss"));
  area.prepend(line);
  while (area.children.length > 5) area.lastChild.remove();
}

/** Forget the games where our decision is no longer due (played in another tab, or by the clock). */
async function recheck() {
  for (const gameId of [...waiting.keys()]) {
    try {
      const detail = await api(`/v1/games/${gameId}`);
      if (detail.status !== "active" || !detail.pending.some((p) => p.seat === detail.you)) waiting.delete(gameId);
    } catch (failure) {
      waiting.delete(gameId);
    }
  }
  drawTitle();
}

function yourTurn(notice) {
  if (notice.game_id === here) return;
  const known = waiting.has(notice.game_id);
  waiting.set(notice.game_id, notice);
  drawTitle();
  if (!known) announce("your-turn", `Your turn in a ${TITLES[notice.game] || notice.game} game.`, `/games/${notice.game_id}`, "Play it");
}

const HANDLERS = {
  snapshot: (data) => {
    waiting.clear();
    for (const g of data.games || []) if (g.your_turn && g.game_id !== here) waiting.set(g.game_id, g);
    drawTitle();
  },
  your_turn: yourTurn,
  seated: (n) => { if (n.game_id !== here) announce("seated", `Your ${TITLES[n.game] || n.game} game has started.`, `/games/${n.game_id}`, "Go to the game"); },
  round_seated: (n) => { if (n.game_id !== here) announce("seated", `A round of your tournament is seated: your ${TITLES[n.game] || n.game} game has started.`, `/games/${n.game_id}`, "Go to the game"); },
  game_finished: (n) => { waiting.delete(n.game_id); drawTitle(); },
  invited: (n) => announce("invited", `${n.invited_by || "Someone"} invited you to a ${n.rated ? "rated " : ""}${TITLES[n.game] || n.game} game.`, "/#lobby-h", "See it in the lobby"),
  tournament_invited: (n) => announce("invited", `${n.invited_by || "Someone"} invited you to a ${TITLES[n.game] || n.game} tournament.`, `/tournaments/${n.tournament}`, "See the tournament"),
};

async function follow() {
  if (!(await currentAccount())) return; // only an account has notifications
  const stream = new EventSource("/v1/me/stream");
  for (const [type, handle] of Object.entries(HANDLERS)) {
    stream.addEventListener(type, (message) => {
      const data = JSON.parse(message.data);
      handle(data);
      document.dispatchEvent(new CustomEvent("notice", { detail: { type, ...data } }));
      if (type !== "snapshot") recheck().catch(() => {});
    });
  }
  stream.addEventListener("error", () => { if (stream.readyState === EventSource.CLOSED) drawTitle(); });
  document.addEventListener("visibilitychange", () => { if (!document.hidden) recheck().catch(() => {}); });
  setInterval(() => { if (waiting.size) recheck().catch(() => {}); }, RECHECK_MS);
}

follow().catch(() => {}); // without notifications the page works as before
