// The home page's lobby: sign up (the account token is shown once; the browser is signed in with it) or
// sign in with a token (a form post: the server keeps the token in an HttpOnly session cookie); then the
// games waiting for players, joining one, opening a table, and your own games.
import { el, api, signIn, postForm } from "/static/common.js";
import { currentAccount } from "/static/account.js";

const body = document.getElementById("lobby-body");
const titles = Object.fromEntries([...document.querySelectorAll("#new-game-kind option")].map((o) => [o.value, o.textContent.replace(/ \(.*/, "")]));

function signForms() {
  const error = el("p", { class: "error", role: "alert", id: "sign-error" });
  const up = el("form", { id: "sign-up", class: "inline" },
    el("label", { for: "sign-up-name" }, "New account name"), el("input", { id: "sign-up-name", required: true, maxlength: 40, autocomplete: "username" }),
    el("button", { type: "submit" }, "Sign up"));
  const inForm = postForm("/session", { id: "sign-in", class: "inline" },
    el("label", { for: "sign-in-token" }, "Account token"), el("input", { id: "sign-in-token", name: "token", type: "password", required: true, autocomplete: "current-password" }),
    el("button", { type: "submit" }, "Sign in"));
  up.addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const made = await api("/v1/accounts", { method: "POST", body: { name: document.getElementById("sign-up-name").value.trim() } });
      await signIn(made.token);
      body.replaceChildren(el("div", { class: "notice", id: "new-token" },
        el("p", {}, `Welcome, ${made.name}. Your account token is your only key: this browser is signed in with it (the page cannot read it back); copy it now to sign in elsewhere.`),
        el("code", { id: "account-token" }, made.token), " ",
        el("button", { type: "button", id: "continue", onclick: () => location.reload() }, "Continue")));
    } catch (failure) { error.textContent = `Could not sign up: ${failure.message}`; }
  });
  inForm.addEventListener("submit", async (e) => {
    e.preventDefault(); // the form posts by itself without scripts; with them, a refusal is shown here
    try { await signIn(document.getElementById("sign-in-token").value.trim()); location.reload(); }
    catch (failure) { error.textContent = `Could not sign in: ${failure.message}`; }
  });
  return [el("p", { class: "hint" }, "Sign up or sign in to meet other players in the lobby."), up, inForm, error];
}

function seatText(seat) {
  return seat.status === "taken" ? seat.name : seat.status === "invited" ? `invited: ${seat.invited}` : "open seat";
}

async function drawLobby(me) {
  const error = el("p", { class: "error", role: "alert", id: "lobby-error" });
  const waiting = await api("/v1/lobby?limit=20");
  const join = async (gameId) => {
    try {
      const joined = await api(`/v1/games/${gameId}/join`, { method: "POST", body: {} });
      if (joined.status === "started") location.href = `/games/${gameId}`; else await drawLobby(me);
    } catch (failure) { error.textContent = `Could not join: ${failure.message}`; }
  };
  const list = waiting.games.length
    ? el("ul", { id: "lobby-games" }, waiting.games.map((g) => el("li", {},
        `${titles[g.game] || g.game}${g.rated ? " (rated)" : ""}: ${g.seats.map(seatText).join(", ")} `,
        g.seats.some((s) => s.status === "taken" && s.name === me.name)
          ? el("span", { class: "muted" }, "you are seated; waiting for players")
          : el("button", { type: "button", class: "join", onclick: () => join(g.game_id) }, `Join ${titles[g.game] || g.game} by ${g.creator || "?"}`))))
    : el("p", {}, "No game is waiting for players.");
  const open = el("button", { type: "button", id: "open-table" }, "Open a table with the game and seats above");
  open.addEventListener("click", async () => {
    const game = document.getElementById("new-game-kind").value;
    // you take the first seat; a seat "played by" a bot above gets the server's bot, the others are open
    const rows = [...document.querySelectorAll("#new-game-seats .seat-row")].slice(1);
    const players = [{ account: "me" }, ...rows.map((row) => {
      const bot = row.querySelector("select").value;
      return bot ? { bot } : { open: true };
    })];
    try {
      const created = await api("/v1/games", { method: "POST", body: { game, players } });
      if (created.status === "active") location.href = `/games/${created.game_id}`; // only bots to wait for
      else await drawLobby(me);
    } catch (failure) { error.textContent = `Could not open a table: ${failure.message}`; }
  });
  const mine = await api("/v1/me/games?limit=20");
  const games = mine.games.filter((g) => g.status === "active" || g.status === "waiting");
  myTables = new Set(games.filter((g) => g.status === "waiting").map((g) => g.game_id));
  body.replaceChildren(list, open, error,
    el("h3", {}, "Your games"),
    games.length ? el("ul", { id: "my-games" }, games.map((g) => el("li", {},
      g.status === "active" ? el("a", { href: `/games/${g.game_id}` }, `Play ${titles[g.game] || g.game} game ${g.game_id.slice(0, 8)}`) : `${titles[g.game] || g.game}: waiting for players`)))
      : el("p", {}, "None under way."));
}

// The account's notifications (notices.js): a table of ours that filled takes us to its game, as Lichess
// does when a seek is accepted; an invitation or another change redraws the lobby.
let myTables = new Set(); // our tables waiting for players
let signedIn = null;
document.addEventListener("notice", (e) => {
  const notice = e.detail;
  if (!signedIn || notice.type === "snapshot" || notice.type === "your_turn") return;
  if (notice.type === "seated" && myTables.has(notice.game_id)) { location.href = `/games/${notice.game_id}`; return; }
  drawLobby(signedIn).catch(() => {});
});

if (body) {
  (async () => {
    const me = await currentAccount();
    signedIn = me;
    if (me) await drawLobby(me); else body.replaceChildren(...signForms());
  })().catch((failure) => { body.replaceChildren(el("p", { class: "error" }, `The lobby is unavailable: ${failure.message}`)); });
}
