// The seats' clocks of a timed game (docs/api.md, "Clocks and timeouts"), counting down on the game page
// from the deadlines of the game's answer. The browser's own clock may be off: every deadline is read on
// the server's clock, which is this browser's plus the skew measured from the answer's `Date` header.
import { el } from "/static/common.js";

const WARN_MS = 10_000; // under ten seconds left: the seat is warned (a class and words, not colour alone)

let shown = null; // {clock, names, skew, you}: what the ticking redraws from
let ticking = null;

/** "1:05", "12:00:09", "2 d 03:04:05": the time left in whole seconds (9.8 s left reads 0:09, under ten). */
export function timeLeft(ms) {
  const total = Math.max(0, Math.floor(ms / 1000));
  const days = Math.floor(total / 86400);
  const h = Math.floor((total % 86400) / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, "0");
  const clock = h || days ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
  return days ? `${days} d ${clock}` : clock;
}

function times(n) {
  return n === 1 ? "once" : n === 2 ? "twice" : `${n} times`;
}

/** One seat's clock: its time left (counting down while it owes a decision), its bank, its timeouts. */
function seatClock(seat, state, clock, name, now, you) {
  const left = state.deadline ? Date.parse(state.deadline) - now : null;
  const low = left !== null && left < WARN_MS;
  const words = [];
  if (left === null) words.push(el("span", { class: "muted" }, "not on the move"));
  else if (left <= 0) words.push(el("strong", {}, "time is up"), " (the server decides for this seat)");
  else words.push(el("strong", { class: "left" }, timeLeft(left)), " left", low ? el("strong", { class: "warn" }, " — under 10 seconds!") : null);
  if (clock.bank_seconds) words.push(el("span", { class: "muted" }, ` · bank ${timeLeft(state.bank_seconds * 1000)}`));
  if (state.timeouts) {
    words.push(el("span", { class: "timed-out" }, ` · ran out of time ${times(state.timeouts)} of ${clock.max_timeouts} allowed`));
  }
  return el("li", {
    class: `clock${low ? " low" : ""}${left !== null ? " running" : ""}${seat === you ? " mine" : ""}`,
    "data-seat": seat, "data-seconds": left === null ? "" : Math.max(0, Math.floor(left / 1000)),
  }, el("span", { class: "who" }, `${name}${seat === you ? " (you)" : ""}: `), ...words);
}

function draw() {
  const section = document.getElementById("clocks");
  const { clock, names, skew, you } = shown;
  const now = Date.now() + skew; // the server's time now
  document.getElementById("clock-list").replaceChildren(...clock.seats.map((state) =>
    seatClock(state.seat, state, clock, names[state.seat] ?? `seat ${state.seat}`, now, you)));
  const mine = clock.seats.find((state) => state.seat === you && state.deadline);
  const warning = document.getElementById("clock-warning");
  const urgent = mine && Date.parse(mine.deadline) - now < WARN_MS && Date.parse(mine.deadline) > now;
  const text = urgent ? "Under 10 seconds left for your decision!" : "";
  if (warning.textContent !== text) warning.textContent = text; // said once, not every tick
  section.hidden = false;
}

/** Show `clock` (the game answer's; null: an untimed game) for `names`, `you` the page's seat, `skew` the
 * server's clock minus this browser's in ms; redrawn every quarter second while a seat's clock runs. */
export function showClocks(clock, names, skew, you) {
  clearInterval(ticking);
  ticking = null;
  if (!clock) { document.getElementById("clocks").hidden = true; shown = null; return; }
  shown = { clock, names, skew, you };
  draw();
  if (clock.seats.some((state) => state.deadline)) ticking = setInterval(draw, 250);
}
