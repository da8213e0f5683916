// Home page: create a game (every person's seat kept in this browser: hot seat; any seat may be given to
// one of the server's bots) and go to its board.
import { el, api, keepSeatToken, bound } from "/static/common.js";

const form = document.getElementById("new-game");
const kind = document.getElementById("new-game-kind");
const seats = document.getElementById("new-game-seats");
const error = document.getElementById("new-game-error");
const NAMES = ["Hanna", "Max", "Sarah", "Omar", "Lena"];
const BOTS = [["random", "random moves"], ["greedy", "greedy"], ["strong", "strong (searches ahead)"]];

function bounds() {
  const option = kind.selectedOptions[0];
  return [Number(option.dataset.min), Number(option.dataset.max)];
}

function addSeat() {
  const index = seats.children.length;
  const id = `seat-name-${index}`;
  const by = `seat-by-${index}`;
  seats.append(el("div", { class: "inline seat-row" },
    el("label", { for: id }, `Seat ${index + 1} name`),
    el("input", { id, name: "name", value: NAMES[index] || `Player ${index + 1}`, required: true, maxlength: 40 }),
    el("label", { for: by }, `Seat ${index + 1} played by`),
    el("select", { id: by, name: "by" }, el("option", { value: "" }, "a person"),
      BOTS.map(([level, words]) => el("option", { value: level }, `the server's bot: ${words}`)))));
}

function fit() {
  const [min, max] = bounds();
  const want = Math.min(Math.max(seats.children.length || 3, min), max);
  while (seats.children.length < want) addSeat();
  while (seats.children.length > want) seats.lastChild.remove();
}

if (form) {
  kind.addEventListener("change", fit);
  document.getElementById("add-seat").addEventListener("click", () => { if (seats.children.length < bounds()[1]) addSeat(); });
  document.getElementById("remove-seat").addEventListener("click", () => { if (seats.children.length > bounds()[0]) seats.lastChild.remove(); });
  fit();
  form.addEventListener("submit", async (submitted) => {
    submitted.preventDefault();
    error.textContent = "";
    const players = [...seats.children].map((row) => {
      const name = row.querySelector("input").value.trim();
      const bot = row.querySelector("select").value;
      return bot ? { bot, name } : { name };
    });
    try {
      const created = await api("/v1/games", { method: "POST", body: { game: kind.value, players } });
      // the server plays its bots' seats: only the people's seats are kept here
      for (const seat of created.seats) if (!players[seat.seat].bot) keepSeatToken(created.game_id, seat.seat, seat.token);
      location.href = `/games/${created.game_id}`;
    } catch (failure) {
      error.textContent = `Could not create the game: ${failure.message}`;
    }
  });
  bound(form);
}
