// How a finished game ended, in words: who won, the scores, and why it ended (the game's own end, a
// resignation, a timeout), from the game's `result` and its history; with links to the score sheet and
// the replay. Used by the game page and by the replay at its last version.
import { el } from "/static/common.js";

/** The game's own end (its `game_ended` event) in words, citing the rule page. */
export function ownEnd(game, ended) {
  if (game === "bazaar") {
    return {
      two_stalls_empty: "the wares of two stalls were sold out (Z-13)",
      solitaire_solved: "the player held exactly the ware's five stones (Z-12)",
      solitaire_unsolved: "the turn limit ran out before the ware was matched (Z-12)",
    }[ended.reason] || `it reached its end (${String(ended.reason).replaceAll("_", " ")})`;
  }
  if (game === "basari") return "the third stage was scored (B-10)";
  if (game === "johari") return "market day 10 ended (J-15)";
  return "it reached its end";
}

/** "Ann", "Ann and Bo", "Ann, Bo and Cy". */
function listed(words) {
  return words.length <= 1 ? words.join("") : `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`;
}

function times(n) {
  return n === 1 ? "once" : n === 2 ? "twice" : `${n} times`;
}

/** Why the game ended, from its history (the `data` of each event): its own end, or the resignations
 * (by the player, or by the clock after too many timeouts) that left fewer than two players. */
export function whyEnded(game, history, names) {
  const who = (seat) => names[seat] ?? `seat ${seat}`;
  const resigned = [];
  const timeouts = new Map(); // seat -> how often its clock ran out
  const byClock = new Set(); // seats the clock resigned (their last timeout)
  let ended = null;
  history.forEach((data, i) => {
    if (data.type === "seat_timed_out") timeouts.set(data.seat, data.timeouts);
    if (data.type === "game_ended") ended = data;
    if (data.type === "seat_resigned") {
      const previous = history[i - 1];
      if (previous && previous.type === "seat_timed_out" && previous.seat === data.seat) {
        byClock.add(data.seat);
        resigned.push(`${who(data.seat)} let the clock run out ${times(previous.timeouts)} and so resigned`);
      } else {
        resigned.push(`${who(data.seat)} resigned`);
      }
    }
  });
  const late = [...timeouts].filter(([seat]) => !byClock.has(seat))
    .map(([seat, n]) => `${who(seat)} ran out of time ${times(n)} (the server decided for them)`);
  const along = [...resigned, ...late];
  if (ended) return `${ownEnd(game, ended)}${along.length ? `; along the way ${listed(along)}` : ""}`;
  if (resigned.length) return names.length < 2 ? listed(along) : `${listed(along)}, which left fewer than two players`;
  return "it was ended";
}

/** Who won, from the game's `result` (a solitaire: whether the player solved it, and in how many turns). */
export function winners(result, names) {
  const who = (seat) => names[seat] ?? `seat ${seat}`;
  if (!result) return "";
  if (result.lower_is_better) {
    const turns = result.scores[0];
    return `${who(0)} ${result.solved ? `solved it in ${turns} turns` : `did not solve it (${turns} turns taken)`}.`;
  }
  const won = result.winners.map(who);
  return !won.length ? "Nobody wins." : won.length === 1 ? `${won[0]} wins.` : `${listed(won)} share the win.`;
}

/** The scores, best rank first ("Scores: Bo 12, Ann 9."); a solitaire's turns are told by `winners`. */
export function scores(result, names) {
  const who = (seat) => names[seat] ?? `seat ${seat}`;
  if (!result || result.lower_is_better) return "";
  const order = result.scores.map((score, seat) => ({ score, seat })).sort((a, b) => result.ranks[a.seat] - result.ranks[b.seat]);
  return `Scores: ${order.map(({ score, seat }) => `${who(seat)} ${score}`).join(", ")}.`;
}

/** The ending in one line, for the page's status: that the game is over and who won. */
export function endingLine(result, names) {
  return `The game is over. ${winners(result, names)}`;
}

/** The ending as one sentence group: who won, the scores, why the game ended. */
export function tellEnding(game, result, history, names) {
  const told = [winners(result, names), scores(result, names)].filter(Boolean).join(" ");
  return `The game is over. ${told} It ended because ${whyEnded(game, history, names)}.`;
}

/** The ending as a banner with links to the score sheet and the replay. */
export function endingBanner(gameId, game, result, history, names) {
  return el("div", { class: "over", id: "ending" },
    el("p", { id: "ending-text" }, tellEnding(game, result, history, names)),
    el("p", { class: "links" },
      el("a", { href: `/games/${gameId}/replay#sheet-h` }, "The score sheet"), " · ",
      el("a", { href: `/games/${gameId}/replay` }, "Replay and audit")));
}
