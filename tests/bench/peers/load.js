// The boardgame.io peer's load: GAMES concurrent Basari games on the server at BASE, each game's three
// players on their own socket.io connection, the next legal move sent as soon as the server's update for
// the last one arrives (a fresh game when one ends). Runs SECONDS, then prints one JSON line: moves, the
// seconds it took, each move's latency (ms), the latency by move number of each game (for growth), and
// each match's last acknowledged state id (what a kill -9 may lose), and its own CPU seconds.
// Environment: BASE, GAMES, SECONDS, STAGES (stages a game lasts; 3 is the real game), PATIENCE_MS (how
// long a move may go unanswered before its game stops: the server is gone), MAX_MOVES (a client stops
// after that many moves of one game: the latency-growth run).
'use strict';
const { Client } = require('boardgame.io/client');
const { SocketIO } = require('boardgame.io/multiplayer');
const { Basari, COLOURS, ACTIONS, beats, count } = require('./basari');

const BASE = process.env.BASE;
const GAMES = Number(process.env.GAMES);
const SECONDS = Number(process.env.SECONDS);
const STAGES = Number(process.env.STAGES || 3);
const PLAYERS = 3;
const PATIENCE = Number(process.env.PATIENCE_MS || 10000);
const PAIRS = Number(process.env.PAIRS || 0);
const OLD_MOVES = Number(process.env.OLD_MOVES || 0);
const YOUNG_MOVES = Number(process.env.YOUNG_MOVES || 20);

async function post(path, body) {
  const response = await fetch(BASE + path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status}`);
  return response.json();
}

// A raise: the cheapest bid of one gem more than ``current`` from ``gems``, lowest colours first; null
// when the seat owns too few gems to beat it (it may then only accept, B-8).
function raise(gems, current) {
  const wanted = current ? count(current) + 1 : 1;
  const bid = Object.fromEntries(COLOURS.map((c) => [c, 0]));
  let left = wanted;
  for (const c of [...COLOURS].reverse()) {
    const take = Math.min(left, gems[c]);
    bid[c] = take;
    left -= take;
  }
  return left === 0 && (!current || beats(bid, current)) ? bid : null;
}

// The next move of the game in ``state`` (any seat's view: the parts a move needs are public): [seat,
// name, args]. A pick is drawn at random; in a negotiation the player to move accepts half the time.
function nextMove(state) {
  const G = state.G;
  if (G.negotiation) {
    const seat = G.negotiation.toMove;
    const other = Object.keys(G.negotiation.bids).map(Number).find((s) => s !== seat);
    const current = G.negotiation.bids[other];
    const bid = raise(G.players[seat].gems, current);
    if (current && (!bid || Math.random() < 0.5)) return [seat, 'accept', []];
    return [seat, 'bid', [bid]];
  }
  const seat = G.picks.findIndex((p) => p === null);
  return [seat, 'pick', [ACTIONS[Math.floor(Math.random() * ACTIONS.length)]]];
}

async function newMatch(stages = STAGES) {
  const { matchID } = await post('/games/basari/create', { numPlayers: PLAYERS, setupData: { stages } });
  const clients = [];
  for (let seat = 0; seat < PLAYERS; seat += 1) {
    const { playerCredentials } = await post(`/games/basari/${matchID}/join`, {
      playerID: String(seat),
      playerName: `p${seat}`,
    });
    const client = Client({
      game: Basari,
      matchID,
      playerID: String(seat),
      credentials: playerCredentials,
      multiplayer: SocketIO({ server: BASE }),
      debug: false,
    });
    client.start();
    watch(client);
    clients.push(client);
  }
  const ready = await Promise.all(clients.map((c) => waitFor(c, (s) => s !== null)));
  const state = ready.every((s) => s !== null) ? clients[0].getState() : null;
  return { matchID, clients, state, moves: 0 };
}

// Whether ``match`` can take another move: its server answered the last one and the game is not over.
function playable(match) {
  return match.state !== null && !match.state.ctx.gameover;
}

// Sends ``match``'s next legal move and waits for the mover's update; the latency (ms), or null when the
// mover's connection did not see the last update in time, or the server did not answer the move in time
// (match.state is then null).
async function step(match) {
  const { clients } = match;
  const [seat, name, args] = nextMove(match.state);
  const before = match.state._stateID;
  const sent = performance.now();
  // the mover's own connection must have seen the last update: the server drops a stale action
  if ((await waitFor(clients[seat], (s) => s._stateID >= before)) === null) return null;
  clients[seat].moves[name](...args);
  match.state = await waitFor(clients[seat], (s) => s._stateID > before);
  if (match.state === null) return null;
  match.moves += 1;
  return performance.now() - sent;
}

function stopMatch(match) {
  for (const client of match.clients) client.stop();
}

// The latency-growth run (PAIRS): see the header.
async function paired() {
  const pairs = [];
  let moves = 0;
  const old = await Promise.all(Array.from({ length: GAMES }, () => newMatch()));
  await Promise.all(
    old.map(async (match) => {
      while (match.moves < OLD_MOVES) {
        if (!playable(match) || (await step(match)) === null) throw new Error('an old match stopped early');
      }
    }),
  );
  moves += GAMES * OLD_MOVES;

  // a fresh three-stage match whose players' connections are ready (a few tries: under load one may not
  // be within PATIENCE_MS)
  async function youngMatch() {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const young = await newMatch(3);
      if (playable(young)) return young;
      console.error(`load.js: the young match ${young.matchID} was not ready in ${PATIENCE} ms; another`);
      stopMatch(young);
    }
    throw new Error('no young match was ready');
  }

  async function client(match, number) {
    let young = await youngMatch();
    for (let n = 0; n < PAIRS; n += 1) {
      if (!playable(young) || young.moves >= YOUNG_MOVES) {
        stopMatch(young);
        young = await youngMatch();
      }
      const order = (n + number) % 2 ? [young, match] : [match, young];
      const latencies = [];
      for (const each of order) {
        if (!playable(each)) {
          const which = each === match ? 'old' : 'young';
          const why = each.state === null ? 'unanswered' : 'over';
          throw new Error(`the ${which} match ${each.matchID} is ${why} after ${each.moves} moves`);
        }
        const latency = await step(each);
        if (latency === null) throw new Error('the server did not answer a move');
        latencies.push(latency);
      }
      const [oldMs, youngMs] = order[0] === match ? latencies : [latencies[1], latencies[0]];
      pairs.push([oldMs, youngMs]);
      moves += 2;
    }
    stopMatch(young);
    stopMatch(match);
  }

  await Promise.all(old.map(client));
  return { moves, pairs };
}

// Resolves with ``client``'s state once it satisfies ``ready``, or with null if that takes ``patience`` ms
// (the server was killed, or is too slow to count). Each client is subscribed to once (watch): the
// client numbers its subscribers by their count, so one that unsubscribes lets the next overwrite another.
function waitFor(client, ready, patience = PATIENCE) {
  return new Promise((resolve) => {
    if (ready(client.getState())) return resolve(client.getState());
    const waiter = (state) => {
      if (state && ready(state)) {
        clearTimeout(timer);
        client.waiters.delete(waiter);
        resolve(state);
      }
    };
    const timer = setTimeout(() => {
      client.waiters.delete(waiter);
      resolve(null);
    }, patience);
    client.waiters.add(waiter);
    return undefined;
  });
}

function watch(client) {
  client.waiters = new Set();
  client.subscribe((state) => {
    for (const waiter of [...client.waiters]) waiter(state);
  });
}

async function main() {
  if (PAIRS) {
    const result = await paired();
    process.stdout.write(`${JSON.stringify(result)}\n`, () => process.exit(0));
    return;
  }
  const acknowledged = {};
  const latencies = [];
  let moves = 0;
  // every client's first match is made before the clock starts (a match is four requests and three socket
  // connections); later ones, when a game ends, count
  let first;
  try {
    first = await Promise.all(Array.from({ length: GAMES }, () => newMatch()));
  } catch (error) {
    first = [];
  }
  process.stdout.write('playing\n'); // the clock starts (a kill -9 run waits for this line)
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const deadline = started + SECONDS * 1000;

  async function play(match) {
    let current = match;
    while (performance.now() < deadline) {
      while (playable(current) && performance.now() < deadline) {
        const latency = await step(current);
        if (latency === null) break;
        acknowledged[current.matchID] = current.state._stateID;
        latencies.push(latency);
        moves += 1;
      }
      stopMatch(current);
      if (current.state === null) return;
      try {
        current = await newMatch();
      } catch (error) {
        return; // the server is gone (a kill -9 run)
      }
    }
  }

  await Promise.all(first.map(play));
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpuBefore);
  const cpu = (used.user + used.system) / 1e6;
  // exit once written: a pipe is written asynchronously, and exiting at once would cut the line at 64 KB
  const line = `${JSON.stringify({ moves, seconds, latencies, acknowledged, cpu })}\n`;
  process.stdout.write(line, () => process.exit(0));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
