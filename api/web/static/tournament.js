// A tournament's page: the organizer's actions (seat a round, adjudicate, withdraw, late entry, end the
// tournament) and a signed-in account's answer to its registration (accept, decline, register, withdraw).
// Each button names its API call in data attributes: data-call (the path under /v1/tournaments/{id}/),
// data-field and data-source (a body {field: value of the element}), data-done (what to say once done).
// The calls go with the browser's session cookie and the CSRF header (common.js), never with a token.
import { el, api, bound } from "/static/common.js";

const status = document.getElementById("action-status");
const error = document.getElementById("action-error");

async function call(button) {
  const area = button.closest("[data-tournament]");
  const tournament = area.dataset.tournament;
  const { field, source } = button.dataset;
  const body = field ? { [field]: document.getElementById(source).value.trim() } : undefined;
  error.textContent = "";
  status.textContent = "Working…";
  for (const b of document.querySelectorAll("button[data-call]")) b.disabled = true;
  try {
    const answer = await api(`/v1/tournaments/${encodeURIComponent(tournament)}/${button.dataset.call}`, { method: "POST", body });
    status.textContent = button.dataset.done || "Done.";
    if (button.dataset.showsToken && answer && answer.token) {
      // a late entry's player token is shown once, here, to hand to that player
      document.getElementById("entered-token").replaceChildren(el("div", { class: "notice", id: "late-entry" },
        el("p", {}, `${answer.name}'s player token, shown only now: hand it to them, it acts as their seat in every game of the tournament.`),
        el("code", { id: "late-entry-token" }, answer.token), " ",
        el("button", { type: "button", id: "continue", onclick: () => location.reload() }, "Continue")));
      document.getElementById("continue").focus();
      return;
    }
    location.reload();
  } catch (failure) {
    status.textContent = "";
    error.textContent = `Refused: ${failure.message}`;
    for (const b of document.querySelectorAll("button[data-call]")) b.disabled = false;
  }
}

for (const button of document.querySelectorAll("button[data-call]")) button.addEventListener("click", () => call(button));
for (const button of document.querySelectorAll("button[data-confirm]")) {
  button.addEventListener("click", () => {
    document.getElementById(button.dataset.confirm).hidden = false;
    button.hidden = true;
    document.querySelector(`#${button.dataset.confirm} button`).focus();
  });
}
for (const button of document.querySelectorAll("button[data-cancel]")) {
  button.addEventListener("click", () => {
    document.getElementById(button.dataset.cancel).hidden = true;
    const asking = document.querySelector(`button[data-confirm="${button.dataset.cancel}"]`);
    asking.hidden = false;
    asking.focus();
  });
}

bound(document.getElementById("organizer-panel"), document.getElementById("my-registration"));
