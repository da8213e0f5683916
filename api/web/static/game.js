// The game page: the board drawn from the caller's view, the caller's decisions as controls built from
// `legal`, and live updates through Server-Sent Events. A seat's stream opens with a short-lived ticket
// (POST /stream-ticket), never with the seat token in the URL.
import { el, api, apiWithSkew, seatTokens, keepSeatToken, pageData, bound } from "/static/common.js";
import { drawBoard } from "/static/boards.js";
import { tellEvent } from "/static/narrate.js";
import { commandLabel, distinctLabels } from "/static/commands.js";
import { armBoard } from "/static/targets.js";
import { acceptInvitation, invitePanel } from "/static/invite.js";
import { endingBanner, endingLine } from "/static/ending.js";
import { showClocks } from "/static/clocks.js";
import { bidComposer, isNegotiation } from "/static/bid.js";

const root = document.getElementById("game");
const gameId = root.dataset.gameId;
const game = root.dataset.game;
const components = pageData("components");
const board = document.getElementById("board");
const status = document.getElementById("status");
const decision = document.getElementById("decision");
const controls = document.getElementById("controls");
const commandError = document.getElementById("command-error");
const log = document.getElementById("log");
const picker = document.getElementById("seat-picker");
const resignArea = document.getElementById("resign-area");
const resignButton = document.getElementById("resign");
const resignConfirm = document.getElementById("resign-confirm");
const targetMenu = document.getElementById("target-menu");

const BUTTONS_AT_MOST = 12; // longer lists of choices (e.g. every beating bid) become a list box
let names = [];
let seat = null; // the seat this page acts as (null: spectator)
let detail = null;
let stream = null;
let ended = false;
let refreshTimer = null;
let sending = false;
let skew = 0; // the server's clock minus this browser's, in ms, from the last answer's Date header
let history = null; // every event's data once the game is over: why it ended (ending.js)

let accountSeat = null; // the seat the signed-in account holds in this game, if any

const SESSION = ""; // the signed-in account's seat: the browser's session cookie speaks for it

/** The seat tokens this browser holds for this game, the signed-in account's seat included. */
function held() {
  const tokens = { ...seatTokens(gameId) };
  if (accountSeat !== null && !(accountSeat in tokens)) tokens[accountSeat] = SESSION;
  return tokens;
}

/** How the page's API calls act: as the chosen seat (its token, or the session for the account's seat),
 * or as a spectator (no token and no cookie). */
function auth() {
  if (seat === null) return { anonymous: true };
  const token = held()[seat];
  return token ? { token } : {};
}

/** The invitation links this browser can make: one per seat it holds by a token (invite.js); none once
 * the game is over (a link to a finished game's seat only takes the seat from this browser). */
function drawInvite() {
  const panel = ended ? null : invitePanel(gameId, names, document.getElementById("invite-link-area"), (handed) => {
    if (seat === handed) seat = Object.keys(held()).map(Number).sort((a, b) => a - b)[0] ?? null;
    restart().catch(() => {});
  });
  document.getElementById("invite").replaceChildren(...(panel ? [panel] : []));
}

/** The seat-token form is for a spectator of a game under way: not for a browser that plays a seat of it
 * (its seats are in the picker), nor once the game is over. */
function drawSitDown() {
  document.getElementById("seat-token-form").hidden = ended || Object.keys(held()).length > 0;
}

function drawSeatPicker() {
  drawInvite();
  drawSitDown();
  const seats = Object.keys(held()).map(Number).sort((a, b) => a - b);
  if (!seats.length) { picker.replaceChildren(el("p", { class: "muted" }, ended ? "You are watching as a spectator." : "You are watching as a spectator. Sit down with a seat token to play.")); return; }
  const select = el("select", { id: "play-as", onchange: () => { seat = select.value === "" ? null : Number(select.value); follow.checked = false; restart(); } },
    el("option", { value: "" }, "Watch as a spectator"),
    seats.map((s) => el("option", { value: s, selected: s === seat }, `Play as ${names[s] ?? "seat " + s}${s === accountSeat ? " (your account)" : ""}`)));
  const follow = el("input", { type: "checkbox", id: "follow-turn", checked: seats.length > 1 });
  picker.replaceChildren(el("div", { class: "inline" }, el("label", { for: "play-as" }, "Seat"), select,
    seats.length > 1 ? el("span", { class: "inline" }, follow, el("label", { for: "follow-turn" }, "Hot seat: switch to whoever must decide")) : null));
}

function followTurn() {
  const follow = document.getElementById("follow-turn");
  if (!follow || !follow.checked || !detail) return false;
  const tokens = held();
  if (detail.pending.some((p) => p.seat === seat)) return false;
  const next = detail.pending.find((p) => p.seat in tokens);
  if (!next) return false;
  seat = next.seat; // the stream stays as it is: the same browser holds every seat of a hot-seat game
  document.getElementById("play-as").value = String(seat);
  scheduleRefresh();
  return true;
}

/** A command in words for this seat: where its card lies, what it gives and takes (commands.js). */
function label(command) {
  return commandLabel(game, command, detail.view, components);
}

/** One command at a time: until its answer is drawn the page is busy (aria-busy on #game, its controls
 * dimmed and not clickable), so a click meanwhile is visibly not taken rather than silently dropped. An
 * accepted command's answer is drawn before the page takes clicks again (drawAtLeast), a refused one's
 * board read again: a click is never left on a board the game has left behind. */
async function send(command) {
  if (sending) return;
  sending = true;
  root.setAttribute("aria-busy", "true");
  commandError.textContent = "";
  let accepted = 0; // the version the command's answer is at (0: refused, the board is read again)
  try {
    const answer = await api(`/v1/games/${gameId}/commands`, {
      method: "POST", body: command, ...auth(),
      // no If-Match: other seats decide at the same time (secret picks), and a command that loses such a
      // race is decided again on the new state; a retry of the same click is safe by its Idempotency-Key
      headers: { "Idempotency-Key": crypto.randomUUID() },
    });
    accepted = answer.version;
  } catch (failure) {
    commandError.textContent = `Refused: ${failure.message}`;
  }
  try {
    await drawAtLeast(accepted);
  } catch (failure) {
    status.textContent = `The board could not be updated: ${failure.message}. Trying again…`;
    scheduleRefresh();
  } finally {
    sending = false;
    root.removeAttribute("aria-busy");
  }
}

const REDRAW_PAUSES_MS = [250, 500, 1000, 2000, 4000]; // between a command's tries to draw its answer

/** Read and draw the game until the board shows `version` or later (a read asks for it: min_version,
 * docs/api.md "Reading your own writes"), whatever became of the page's other reads; a failed read is
 * tried again after a growing pause, and once the pauses are used up the last failure is raised. */
async function drawAtLeast(version) {
  let failed = new Error(`the game did not reach version ${version}`);
  for (const pause of [0, ...REDRAW_PAUSES_MS]) {
    if (pause) await new Promise((resolve) => setTimeout(resolve, pause));
    try {
      await refresh(version);
    } catch (failure) {
      failed = failure;
      continue;
    }
    if (Number(root.dataset.version) >= version) return;
  }
  throw failed;
}

/** Resigning is apart from the moves and takes two clicks: "Resign…", then "Yes, resign". */
function drawResign() {
  const can = (detail.legal || []).some((command) => command.type === "resign");
  resignArea.hidden = !can;
  if (!can) askResign(false);
}

function askResign(asking) {
  resignConfirm.hidden = !asking;
  resignButton.hidden = asking;
}

resignButton.addEventListener("click", () => { askResign(true); document.getElementById("resign-yes").focus(); });
document.getElementById("resign-no").addEventListener("click", () => { askResign(false); resignButton.focus(); });
document.getElementById("resign-yes").addEventListener("click", async () => {
  askResign(false);
  await send({ type: "resign" });
});

let drawnControls = ""; // what the controls were drawn from: an unchanged decision keeps its controls (and focus)

/** The decision's controls: `offBoard`, the commands with no target on the board, as buttons (Basari's
 * bids as the bid composer); every legal command stays at hand, folded away, as a compact fallback. */
function drawControls(legal, offBoard) {
  decision.hidden = !legal.length;
  const drawnFrom = JSON.stringify([seat, legal, offBoard.length, detail.view.negotiation ?? null]);
  if (drawnFrom === drawnControls) return;
  drawnControls = drawnFrom;
  targetMenu.replaceChildren();
  if (!legal.length) { controls.replaceChildren(); return; }
  const fallback = () => el("details", { class: "fallback" }, el("summary", {}, `Every legal command (${legal.length})`), legalControls(legal));
  if (game === "basari" && isNegotiation(legal)) {
    controls.replaceChildren(bidComposer({ legal, view: detail.view, viewer: seat, names, send }), fallback());
    return;
  }
  if (offBoard.length === legal.length) { controls.replaceChildren(...legalControls(legal)); return; }
  controls.replaceChildren(el("p", { class: "hint", id: "board-hint" }, BOARD_HINT[game]),
    ...(offBoard.length ? legalControls(offBoard) : []), fallback());
}

const BOARD_HINT = {
  johari: "Click a highlighted card, store, booth, noble or action card on the board (or press Enter on it).",
  bazaar: "Click a highlighted side of an equation to give it, or a highlighted ware to buy it (or press Enter on it).",
};

/** A board target with several commands (a store to purchase or to trade for): offer them. */
function offer(target, commands) {
  const buttons = commands.map((command) => el("button", { type: "button", class: "choice", "data-command": JSON.stringify(command), onclick: () => { targetMenu.replaceChildren(); send(command); } }, label(command)));
  targetMenu.replaceChildren(el("p", { class: "strong" }, `${target.getAttribute("aria-label").replace(/: choose$/, "")}?`),
    el("div", { class: "choices", role: "group", "aria-label": "choose what to do there" }, buttons,
      el("button", { type: "button", onclick: () => { targetMenu.replaceChildren(); target.focus(); } }, "Cancel")));
  buttons[0].focus();
}

let listBoxes = 0;

/** The `legal` list as controls: a button per command, a list box and a Send button for a long group. */
function legalControls(legal) {
  const groups = new Map();
  for (const command of legal) groups.set(command.type, [...(groups.get(command.type) || []), command]);
  const parts = [];
  for (const [type, commands] of groups) {
    const words = distinctLabels(commands.map(label)); // no two controls read alike
    if (commands.length <= BUTTONS_AT_MOST) {
      parts.push(el("div", { class: "choices", role: "group", "aria-label": type.replaceAll("_", " ") },
        commands.map((command, i) => el("button", { type: "button", class: "choice", "data-type": type, "data-command": JSON.stringify(command), onclick: () => send(command) }, words[i]))));
    } else {
      const id = `choose-${(listBoxes += 1)}`; // unique: the fallback repeats the buttons' commands
      const kind = type.replaceAll("_", " ");
      const select = el("select", { id, "data-type": type }, commands.map((command, i) => el("option", { value: i, "data-command": JSON.stringify(command) }, words[i])));
      // each list box's button is named for its group: two long groups must not offer two buttons read alike
      parts.push(el("div", { class: "inline" }, el("label", { for: id }, `${kind} (${commands.length} choices)`), select,
        el("button", { type: "button", class: "choice", "data-type": type, "aria-label": `Send the chosen ${kind}`, onclick: () => send(commands[Number(select.value)]) }, "Send")));
    }
  }
  return parts;
}

/** The status line: whose decision it is; once the game is over the ending banner on the board says so
 * (and who won), so the line is seen no more, but still heard: a screen reader announces the end from this
 * live region. */
function drawStatus() {
  status.classList.toggle("visually-hidden", detail.status === "finished");
  if (detail.status === "finished") { status.textContent = endingLine(detail.result, names); return; }
  if (seat !== null && !detail.legal.length) {
    status.textContent = `You resigned, ${names[seat]}: the server plays your seat to the end.`;
    return;
  }
  const who = (s) => `${names[s] ?? s}${detail.seats[s]?.bot ? ", the server's bot," : ""}`;
  const waiting = detail.pending.map((p) => `${who(p.seat)} (${p.decision.replaceAll("_", " ")})`);
  const mine = detail.pending.some((p) => p.seat === seat);
  status.textContent = mine ? `Your turn, ${names[seat]}: ${detail.pending.find((p) => p.seat === seat).decision.replaceAll("_", " ")}.` : `Waiting for ${waiting.join(", ") || "nobody"}.`;
}

function show(next) {
  detail = next;
  names = detail.seats.map((s) => s.name);
  const ending = detail.status === "finished" ? endingBanner(gameId, game, detail.result, history || [], names) : null;
  const drawn = drawBoard(game, detail.view, names, components, ending);
  board.replaceChildren(drawn);
  const legal = (detail.legal || []).filter((command) => command.type !== "resign");
  const offBoard = armBoard(drawn, game, legal, { label, send, menu: offer });
  drawStatus();
  drawControls(legal, offBoard);
  drawResign();
  showClocks(detail.clock, names, skew, seat);
  root.dataset.version = detail.version;
  if (detail.status === "finished") { ended = true; drawInvite(); drawSitDown(); } // it may have ended while the page was open
  if (followTurn()) return;
}

let drawnSeat; // whose view the board shows (undefined before the first); #game's data-version is its version

/** Read the game as the page's seat sees it (`atLeast`: at that version or later) and draw it if it shows
 * that seat something new: not if the page's seat changed meanwhile, nor if the board already shows that
 * seat this version or a later one. Reads may be answered out of order, and one that fails leaves the board
 * as the others drew it; and a board is not drawn again unchanged, so a click on it is never lost to a
 * redraw between the press and the release of the button. */
async function refresh(atLeast = 0) {
  const asker = seat;
  const answer = await apiWithSkew(`/v1/games/${gameId}${atLeast ? `?min_version=${atLeast}` : ""}`, auth());
  const next = answer.data;
  if (next.status === "finished" && history === null) {
    const page = await api(`/v1/games/${gameId}/events?limit=10000`, auth());
    history = page.events.map((event) => event.data);
  }
  if (asker !== seat || (asker === drawnSeat && next.version <= Number(root.dataset.version))) return;
  drawnSeat = asker;
  skew = answer.skew;
  show(next);
}

const RETRY_AT_MOST_MS = 30000;
let failedReads = 0; // the scheduled reads that failed since one last succeeded

/** Read the game shortly (a burst of live events is read once). A read that fails is tried again after a
 * growing pause (half a minute at most) until one succeeds: the board never stays behind a move the
 * stream told of. */
function scheduleRefresh(delay = 80) {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(() => refresh().then(() => { failedReads = 0; }, () => {
    failedReads += 1;
    scheduleRefresh(Math.min(RETRY_AT_MOST_MS, 250 * 2 ** failedReads));
  }), delay);
}

function tell(event) {
  log.prepend(el("li", { value: event.version }, el("span", { class: "muted" }, `v${event.version} `), tellEvent(game, event.data, names)));
  while (log.children.length > 60) log.lastChild.remove();
}

async function openStream() {
  if (stream) stream.close();
  let url = `/v1/games/${gameId}/stream`;
  if (seat !== null) {
    const ticket = await api(`/v1/games/${gameId}/stream-ticket`, { method: "POST", ...auth() });
    url += `?ticket=${encodeURIComponent(ticket.ticket)}`;
  }
  const opened = new EventSource(url);
  stream = opened;
  opened.addEventListener("snapshot", () => scheduleRefresh());
  opened.addEventListener("message", (message) => { tell(JSON.parse(message.data)); scheduleRefresh(); });
  opened.addEventListener("end", () => { ended = true; opened.close(); scheduleRefresh(); });
  opened.addEventListener("error", () => {
    // a ticket is good for a minute: when the browser gives up on the stream, open it again with a new one
    if (opened.readyState === EventSource.CLOSED && stream === opened && !ended) setTimeout(() => openStream().catch(() => {}), 2000);
  });
}

async function recentHistory() {
  const page = await api(`/v1/games/${gameId}/events?after=${Math.max(0, detail.version - 20)}`, auth());
  log.replaceChildren();
  for (const event of page.events) tell(event);
}

async function restart() {
  drawSeatPicker();
  await refresh();
  await recentHistory();
  if (!ended) await openStream();
}

// an invitation link opened while this game's page is open changes only the fragment: load it as a page
window.addEventListener("hashchange", () => { if (location.hash.includes("seat-token=")) location.reload(); });

document.getElementById("seat-token-form").addEventListener("submit", async (submitted) => {
  submitted.preventDefault();
  const input = document.getElementById("seat-token");
  const given = input.value.trim();
  if (!given) return;
  try {
    const found = await api(`/v1/games/${gameId}`, { token: given });
    keepSeatToken(gameId, found.you, given);
    seat = found.you;
    input.value = "";
    await restart();
    document.getElementById("play-as")?.focus(); // the form is gone: the seat picker takes the focus
  } catch (failure) {
    commandError.textContent = `That token does not open a seat of this game: ${failure.message}`;
  }
});
bound(document.getElementById("seat-token-form"));

(async () => {
  let invited = null;
  try {
    invited = await acceptInvitation(gameId); // opened from a friend's invitation link: sit down in that seat
  } catch (failure) {
    const area = document.getElementById("invite-link-area");
    area.replaceChildren(el("p", { class: "error", role: "alert" }, `That invitation link does not open a seat of this game: ${failure.message}`));
    area.hidden = false;
  }
  try {
    accountSeat = (await api(`/v1/games/${gameId}`)).you ?? null; // the signed-in account's seat, if any
  } catch (failure) {
    accountSeat = null;
  }
  const seats = Object.keys(held()).map(Number).sort((a, b) => a - b);
  seat = invited !== null ? invited : accountSeat !== null ? accountSeat : seats.length ? seats[0] : null;
  const first = await api(`/v1/games/${gameId}`, auth());
  names = first.seats.map((s) => s.name);
  ended = first.status === "finished";
  await restart();
})().catch((failure) => { status.textContent = `Could not load the game: ${failure.message}`; });
