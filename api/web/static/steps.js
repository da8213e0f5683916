// How a replay steps (replay.js): by event, by move and by round, as Lichess steps a game by move.
// A move is one append to the game's history (one command with everything it caused, or one timeout): its
// events share their `recorded_at`, the time of the transaction that stored them. A round starts at the
// event each game's rule page opens it with: Basari's deal (B-5), Johari's market round (J-10), and in
// Bazaar the turn of the player who took the first one (Z-6: the turns go round the table).

const ROUND_STARTS = {
  basari: (data) => data.type === "cards_dealt",
  johari: (data) => data.type === "round_started",
  bazaar: (data, first) => data.type === "turn_started" && data.seat === first,
};

/** The replay's stops from the history's events (in version order): `moves`, the last version of each
 * move (the position after it); `rounds`, the last version of each move that opened a round. */
export function replayStops(game, events) {
  const moves = [];
  const rounds = [];
  const firstTurn = events.find((e) => e.data.type === "turn_started");
  const opensRound = ROUND_STARTS[game] || (() => false);
  let opening = false;
  events.forEach((event, i) => {
    const next = events[i + 1];
    opening = opening || opensRound(event.data, firstTurn ? firstTurn.data.seat : null);
    if (next && next.recorded_at === event.recorded_at) return; // the move goes on
    moves.push(event.version);
    if (opening) rounds.push(event.version);
    opening = false;
  });
  return { moves, rounds };
}

/** The first stop after `version` (or the last stop when there is none). */
export function after(stops, version) {
  return stops.find((v) => v > version) ?? stops[stops.length - 1];
}

/** The last stop before `version` (or 1, the opening's first event, when there is none). */
export function before(stops, version) {
  return [...stops].reverse().find((v) => v < version) ?? 1;
}

/** How many stops are at or before `version` (1 for the first). */
export function ordinal(stops, version) {
  return stops.filter((v) => v <= version).length;
}

/** The first version of the move `version` belongs to. */
export function moveStart(moves, version) {
  const previous = [...moves].reverse().find((v) => v < version);
  return previous === undefined ? 1 : previous + 1;
}
