// Home page: create a game (every person's seat kept in this browser: hot seat; any seat may be given to
// one of the server's bots) and go to its board. Signed in, seat 1 is offered to (and by default played by)
// the account: {"account": "me"} (docs/api.md "Games"), so the game is the account's, played through the
// browser's session and listed under the lobby's "Your games".
import { el, api, keepSeatToken, bound } from "/static/common.js";
import { currentAccount } from "/static/account.js";

const form = document.getElementById("new-game");
const kind = document.getElementById("new-game-kind");
const seats = document.getElementById("new-game-seats");
const error = document.getElementById("new-game-error");
const NAMES = ["Hanna", "Max", "Sarah", "Omar", "Lena"];
const BOTS = [["random", "random moves"], ["greedy", "greedy"], ["strong", "strong (searches ahead)"]];
const ACCOUNT = "me"; // the "played by" value of the signed-in account's seat
let me = null; // the signed-in account ({name}), null when signed out

function bounds() {
  const option = kind.selectedOptions[0];
  return [Number(option.dataset.min), Number(option.dataset.max)];
}

/** A seat played by the account shows the account's name, not an editable one. */
function showPlayer(row) {
  const name = row.querySelector("input");
  const yours = row.querySelector("select").value === ACCOUNT;
  if (yours) name.value = me.name;
  else if (name.readOnly) name.value = NAMES[0];
  name.readOnly = yours; // read-only, not disabled: still reached by Tab and read out
}

/** Seat 1 offers the signed-in account, chosen at first. */
function offerAccount(row) {
  if (!me || !row || row.querySelector(`option[value="${ACCOUNT}"]`)) return;
  row.querySelector("select").prepend(el("option", { value: ACCOUNT }, `you (signed in as ${me.name})`));
  row.querySelector("select").value = ACCOUNT;
  showPlayer(row);
}

function addSeat() {
  const index = seats.children.length;
  const id = `seat-name-${index}`;
  const by = `seat-by-${index}`;
  const row = el("div", { class: "inline seat-row" },
    el("label", { for: id }, `Seat ${index + 1} name`),
    el("input", { id, name: "name", value: NAMES[index] || `Player ${index + 1}`, required: true, maxlength: 40 }),
    el("label", { for: by }, `Seat ${index + 1} played by`),
    el("select", { id: by, name: "by", onchange: () => showPlayer(row) }, el("option", { value: "" }, "a person"),
      BOTS.map(([level, words]) => el("option", { value: level }, `the server's bot: ${words}`))));
  seats.append(row);
  if (index === 0) offerAccount(row);
}

function fit() {
  const [min, max] = bounds();
  const want = Math.min(Math.max(seats.children.length || 3, min), max);
  while (seats.children.length < want) addSeat();
  while (seats.children.length > want) seats.lastChild.remove();
}

/** The creation's seats: the account's, hot-seat names, and the server's bots (named only in a game without
 * the account: beside it each bot plays under its own account's name, one seat per level). */
function players() {
  const rows = [...seats.children].map((row) => [row.querySelector("input").value.trim(), row.querySelector("select").value]);
  const withAccount = rows.some(([, by]) => by === ACCOUNT);
  return rows.map(([name, by]) => by === ACCOUNT ? { account: "me" } : !by ? { name } : withAccount ? { bot: by } : { bot: by, name });
}

if (form) {
  kind.addEventListener("change", fit);
  document.getElementById("add-seat").addEventListener("click", () => { if (seats.children.length < bounds()[1]) addSeat(); });
  document.getElementById("remove-seat").addEventListener("click", () => { if (seats.children.length > bounds()[0]) seats.lastChild.remove(); });
  fit();
  form.addEventListener("submit", async (submitted) => {
    submitted.preventDefault();
    error.textContent = "";
    const seated = players();
    const levels = seated.filter((p) => p.bot && !p.name).map((p) => p.bot);
    if (new Set(levels).size < levels.length) {
      error.textContent = "Beside your account each of the server's bots plays under its own account, so one bot of each level: choose another level, or play seat 1 as a person.";
      return;
    }
    try {
      const created = await api("/v1/games", { method: "POST", body: { game: kind.value, players: seated } });
      // the server plays its bots' seats and the session the account's: only hot-seat tokens are kept here
      for (const seat of created.seats) if (seat.token && !seated[seat.seat].bot) keepSeatToken(created.game_id, seat.seat, seat.token);
      location.href = `/games/${created.game_id}`;
    } catch (failure) {
      error.textContent = `Could not create the game: ${failure.message}`;
    }
  });
  (async () => {
    me = await currentAccount().catch(() => null); // whether seat 1 can be the account's, before any click
    offerAccount(seats.children[0]);
  })().finally(() => bound(form));
}
