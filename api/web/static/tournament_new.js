// The form that creates a tournament: POST /v1/tournaments with the browser's session (a tournament of
// accounts needs the signed-in organizer; one of named players does not). The answer's organizer token and
// the named players' tokens are shown once, here; signed in, the organizer acts with her account anyway.
import { el, api, bound } from "/static/common.js";

const form = document.getElementById("new-tournament");
const error = document.getElementById("new-tournament-error");
const CLOCKS = { fast: { decision_seconds: 20, bank_seconds: 120 } };

function lines(id) {
  return document.getElementById(id).value.split("\n").map((line) => line.trim()).filter(Boolean);
}

function showKind() {
  const named = document.getElementById("t-kind").value === "named";
  document.getElementById("named-fields").hidden = !named;
  document.getElementById("accounts-fields").hidden = named;
}
document.getElementById("t-kind").addEventListener("change", showKind);
showKind();

function body() {
  const request = {
    name: document.getElementById("t-name").value.trim(),
    game: document.getElementById("t-game").value,
    rounds: Number(document.getElementById("t-rounds").value),
  };
  const size = document.getElementById("t-table-size").value;
  if (size) request.table_size = Number(size);
  if (document.getElementById("t-kind").value === "named") {
    request.players = lines("t-names").map((name) => ({ name }));
  } else {
    request.players = [
      ...(document.getElementById("t-plays").checked ? [{ account: "me" }] : []),
      ...lines("t-invite").map((invite) => ({ invite })),
    ];
    if (document.getElementById("t-open").checked) request.open = true;
  }
  const clock = document.getElementById("t-clock").value;
  if (clock === "untimed") request.untimed = true;
  else if (CLOCKS[clock]) request.clock = CLOCKS[clock];
  return request;
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  error.textContent = "";
  try {
    const created = await api("/v1/tournaments", { method: "POST", body: body() });
    const page = `/tournaments/${created.tournament_id}`;
    document.getElementById("created-body").replaceChildren(
      el("p", {}, created.registering
        ? "The tournament registers players: the invited accounts accept on its page (the server's bots already have). Seat round 1 there when everyone is in."
        : "The tournament is ready: seat its first round on its page."),
      el("p", {}, el("a", { href: page, id: "tournament-link" }, "Go to the tournament's page")),
      el("div", { class: "notice" },
        el("p", {}, "The organizer token, shown only now: a spare key to organize this tournament without your account (or when you are not signed in)."),
        el("code", { id: "organizer-token" }, created.organizer_token)),
      created.players.length ? el("div", {},
        el("p", {}, "Each player's token, shown only now: hand each to its player; it acts as their seat in every game of the tournament."),
        el("ul", { id: "player-tokens" }, created.players.map((p) => el("li", {}, `${p.name}: `, el("code", {}, p.token))))) : null);
    form.closest("section").hidden = true;
    document.getElementById("created").hidden = false;
    document.getElementById("created-h").focus();
  } catch (failure) {
    // a tournament of accounts is organized by the signed-in account: the API's words name a header
    error.replaceChildren(failure.status === 401 && document.getElementById("t-kind").value === "accounts"
      ? el("span", {}, "Could not create the tournament: a tournament of accounts is organized by your account, and this browser is not signed in. ",
          el("a", { href: "/", id: "sign-in-first" }, "Sign up or sign in on the home page"), ", or choose named players.")
      : `Could not create the tournament: ${failure.message}`);
  }
});
bound(form);
