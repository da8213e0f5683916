// Home page: create a game (every seat kept in this browser: hot seat) and go to its board.
import { el, api, keepSeatToken } from "/static/common.js";

const form = document.getElementById("new-game");
const kind = document.getElementById("new-game-kind");
const seats = document.getElementById("new-game-seats");
const error = document.getElementById("new-game-error");
const NAMES = ["Hanna", "Max", "Sarah", "Omar", "Lena"];

function bounds() {
  const option = kind.selectedOptions[0];
  return [Number(option.dataset.min), Number(option.dataset.max)];
}

function addSeat() {
  const index = seats.children.length;
  const id = `seat-name-${index}`;
  seats.append(el("div", { class: "inline" },
    el("label", { for: id }, `Seat ${index + 1} name`),
    el("input", { id, name: "name", value: NAMES[index] || `Player ${index + 1}`, required: true, maxlength: 40 })));
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
    const players = [...seats.querySelectorAll("input")].map((input) => ({ name: input.value.trim() }));
    try {
      const created = await api("/v1/games", { method: "POST", body: { game: kind.value, players } });
      for (const seat of created.seats) keepSeatToken(created.game_id, seat.seat, seat.token);
      location.href = `/games/${created.game_id}`;
    } catch (failure) {
      error.textContent = `Could not create the game: ${failure.message}`;
    }
  });
}
